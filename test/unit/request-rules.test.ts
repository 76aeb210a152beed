// The request rules a capture is judged by (src/rules/requests.ts) give the verdict the live suites' case
// tables give (fixtures/cases/): a row the contract refuses breaks a rule of one of the row's ids, a row
// it accepts breaks none.
import { describe, expect, it } from 'vitest';
import { brokenRequestRules, requestRules } from '../../src/rules/requests.ts';
import { applyCase, cases } from '../../src/suite/cases.ts';

const TABLES: Array<{ table: string; path: string; base: Record<string, unknown> }> = [
  {
    table: 'chat',
    path: '/v1/chat/completions',
    base: { model: 'tx-chat-1', messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 2 },
  },
  { table: 'embeddings', path: '/v1/embeddings', base: { model: 'tx-embed-1', input: 'conformance' } },
  {
    table: 'responses',
    path: '/v1/responses',
    base: { model: 'tx-resp-1', input: 'Say ok.', max_output_tokens: 16 },
  },
  {
    table: 'tickets',
    path: '/v1/support/tickets',
    base: { category: 'technical', subject: 'Conformance probe', message: 'Automated conformance probe.' },
  },
  {
    table: 'payment-orders',
    path: '/v1/payment-orders',
    base: { method: 'alipay', amount_cny: '1000.00', note: 'conformance probe' },
  },
];

/**
 * Rows whose refusal a body's shape cannot show, each with why: the capture leaves them to the live
 * suite's case tables.
 */
const NOT_BY_SHAPE: Record<string, string> = {
  // "above a configured minimum": the minimum is the deployment's (judging.md); 0 is judged live.
  'an amount of 0': 'the configured minimum is not shown',
  'an amount of 0.00': 'the configured minimum is not shown',
};

/**
 * Rows whose table id is another reading of the same words: a role outside the four is CHAT-008's reading
 * ("a role outside system, developer, user, assistant is refused") and CHAT-011's words ("one of system,
 * developer, user, assistant"); the capture names CHAT-011, whose words they are.
 */
const SAME_WORDS: Record<string, string> = { 'CHAT-008': 'CHAT-011' };

describe('the request rules of a capture agree with the case tables', () => {
  for (const { table, path, base } of TABLES)
    for (const c of cases(table))
      it(`${table}: ${c.valid ? 'accepts' : 'refuses'} ${c.description}`, () => {
        const broken = brokenRequestRules('POST', path, applyCase(base, c))!;
        if (c.valid || NOT_BY_SHAPE[c.description]) {
          expect(broken).toEqual([]);
          return;
        }
        expect(broken.length, c.description).toBeGreaterThan(0);
        const ids = new Set(c.ids.flatMap((id) => [id, SAME_WORDS[id] ?? id]));
        expect(
          broken.some((b) => ids.has(b.id)),
          `${c.description}: ${JSON.stringify(broken)}`,
        ).toBe(true);
      });
});

describe('the request rules of a media job', () => {
  const ACK = { provider_processing_acknowledged: true };
  const job = (over: Record<string, unknown>) => ({
    model: 'wc-100010',
    prompt: 'a small red house',
    parameters: ACK,
    ...over,
  });
  const ids = (body: unknown) => brokenRequestRules('POST', '/v1/media/jobs', body)!.map((b) => b.id);
  it.each([
    ['a valid job', job({}), []],
    ['wc-100018 without a prompt ("`prompt` itself optional")', { model: 'wc-100018', parameters: ACK }, []],
    [
      'an undocumented model without a prompt (its rules are not stated)',
      { model: 'wc-900001', parameters: ACK },
      [],
    ],
    ['no parameters', { model: 'wc-100010', prompt: 'x' }, ['MJOB-001']],
    [
      'the acknowledgement false',
      job({ parameters: { provider_processing_acknowledged: false } }),
      ['MJOB-001'],
    ],
    ['the acknowledgement missing', job({ parameters: {} }), ['MJOB-001']],
    ['images in parameters', job({ parameters: { ...ACK, images: [] } }), ['MJOB-003']],
    ['images at the top level', job({ images: [] }), ['MJOB-003']],
    ['another top-level field', job({ seed: 3 }), ['MJOB-002']],
    [
      'both names of the references',
      job({ parameters: { ...ACK, input_asset_ids: ['a'], studio_asset_ids: ['b'] } }),
      ['MJOB-011'],
    ],
    ['a reference id twice', job({ parameters: { ...ACK, input_asset_ids: ['a', 'a'] } }), ['MJOB-012']],
    [
      'a reference id of 161 characters',
      job({ parameters: { ...ACK, input_asset_ids: ['r'.repeat(161)] } }),
      ['MJOB-012'],
    ],
    ['no model', { prompt: 'x', parameters: ACK }, ['MJOB-044']],
  ])('%s', (_, body, expected) => {
    expect(ids(body).sort()).toEqual([...expected].sort());
  });

  it('says where and what, once per id', () => {
    const broken = brokenRequestRules('POST', '/v1/chat/completions', {
      model: 'm',
      messages: [{ role: 'tool', content: 'hi' }, { role: 'user' }],
      temperature: 2.5,
      top_p: 3,
    })!;
    expect(broken).toEqual([
      {
        id: 'CHAT-011',
        pointer: '/messages/0/role',
        what: expect.stringMatching(/^messages\[0\]\.role "tool": /),
        received: 'tool',
      },
      { id: 'CHAT-008', pointer: '/messages/1/content', what: 'no messages[1].content' },
      { id: 'CHAT-005', pointer: '/temperature', what: 'temperature 2.5: must be <= 2', received: 2.5 },
      { id: 'CHAT-006', pointer: '/top_p', what: 'top_p 3: must be <= 1', received: 3 },
    ]);
    expect(brokenRequestRules('GET', '/v1/models', {})).toBeUndefined();
    expect(brokenRequestRules('POST', '/v1/embeddings', ['a'])).toEqual([]);
  });

  it('reads a member sent as null as left out: an optional one breaks nothing, a required one is missing', () => {
    const ids = (body: Record<string, unknown>) =>
      brokenRequestRules('POST', '/v1/chat/completions', body)!.map((b) => b.id);
    const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(ids({ ...base, temperature: null, top_p: null, max_tokens: null, user: null })).toEqual([]);
    expect(ids({ ...base, model: null })).toEqual(['CHAT-009']);
    expect(ids({ ...base, messages: [{ role: 'user', content: null }] })).toEqual(['CHAT-008']);
    expect(ids({ ...base, temperature: null, top_p: 3 })).toEqual(['CHAT-006']);
    expect(
      brokenRequestRules('POST', '/v1/embeddings', { model: 'e', input: 'a', dimensions: null })!,
    ).toEqual([]);
  });

  it('names each rule once, with what a capture must hold', () => {
    const rules = requestRules();
    expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
    for (const id of ['CHAT-005', 'EMB-002', 'MJOB-001', 'TICKET-007', 'PAY-006'])
      expect(rules.map((r) => r.id)).toContain(id);
  });
});
