// Serial: these checks compare the balance before and after, so they run after every other suite of the
// run, one at a time (the `serial` project), with no other traffic of this run on the account; or beside
// the others on the isolated account, when the target names one (the account lock keeps them one at a time).
// @conformance isolated-account
import { randomUUID } from 'node:crypto';
import type { Decimal } from 'decimal.js';
import {
  type CheckContext,
  chargeChanges,
  chargesCompared,
  check,
  expectStatus,
  isProblem,
  isSuccess,
  ledgerChainProblem,
  ledgerOf,
  pointsFields,
  readWholeList,
  usageChargesOf,
} from '../../src/suite/index.ts';
import { LEGACY } from './legacy-support.ts';

async function total(t: CheckContext): Promise<Decimal> {
  const res = await t.get('/v1/balance');
  const f = pointsFields(res.json, ['total_points'])[0];
  if (!isSuccess(res.status) || !f?.verdict.ok)
    return t.skip('the balance has no decimal total_points to compare (see BAL-001, PTS-001)');
  return f.verdict.value;
}

async function chatBody(t: CheckContext) {
  return {
    model: await t.hint('chat'),
    messages: [{ role: 'user', content: `Say ok. ${randomUUID()}` }],
    max_tokens: 2,
  };
}

/** On a target whose account other clients use, balance deltas are only indicative. */
const deltaLevel = (t: CheckContext) => (t.sharedAccount ? { level: 'notable' as const } : {});

check(
  { ids: ['BAL-004'], effect: 'billable', account: 'exclusive' },
  'moves the balance by exactly the charged points of a chat call',
  async (t) => {
    const before = await total(t);
    const res = await t.post('/v1/chat/completions', await chatBody(t));
    if (!isSuccess(res.status)) return t.skip(`the chat call was answered ${res.status}`);
    const charged = pointsFields((res.json as { billing?: unknown } | undefined)?.billing, [
      'charged_points',
    ])[0];
    if (!charged?.verdict.ok) return t.skip('the reply carries no billing.charged_points to compare with');
    const after = await total(t);
    const moved = before.minus(after);
    t.ensure(
      moved.equals(charged.verdict.value),
      'BAL-004',
      `total_points moved by ${moved} but the call reports charged_points ${charged.verdict.value}`,
      {
        received: moved.toString(),
        expected: charged.verdict.value.toString(),
        exchange: res.exchange,
        ...deltaLevel(t),
      },
    );
  },
);

check(
  { ids: ['LEDGER-002'], effect: 'billable', account: 'exclusive' },
  'keeps running balances consistent between consecutive ledger entries',
  async (t) => {
    // Two charges first, so that the ledger holds consecutive movements to compare.
    for (let i = 0; i < 2; i++) await t.post('/v1/chat/completions', await chatBody(t));
    // The whole ledger, in whichever order and however many pages it is served.
    const ledger = await readWholeList(t, '/v1/ledger');
    if (!ledger) return t.skip('GET /v1/ledger was not answered 2xx (see LEDGER-001)');
    if (ledger.incomplete) return t.skip(`the ledger could not be read whole: ${ledger.incomplete}`);
    // Running balances hold whatever else moves the account: no shared-account leniency here.
    const chain = ledgerChainProblem(ledgerOf(ledger.entries));
    if (!chain) return t.skip('fewer than two ledger entries carry amount_points and balance_after_points');
    const exchange = ledger.last.exchange;
    t.observe(chain.id, exchange);
    if (isProblem(chain))
      t.violate(chain.id, chain.message, { received: chain.received, expected: chain.expected, exchange });
  },
);

check(
  { ids: ['PTS-006'], effect: 'billable', account: 'exclusive' },
  'never changes a settled charge afterwards',
  async (t) => {
    const charges = async () => {
      const usage = await readWholeList(t, '/v1/usage');
      if (!usage) return t.skip('GET /v1/usage was not answered 2xx (see USAGE-001)');
      if (usage.incomplete) return t.skip(`the usage list could not be read whole: ${usage.incomplete}`);
      return { map: usageChargesOf(usage.entries), res: usage.last };
    };
    await t.post('/v1/chat/completions', await chatBody(t));
    const first = await charges();
    if (first.map.size === 0) return t.skip('usage records carry no id and charged_points to follow');
    await t.post('/v1/chat/completions', await chatBody(t));
    await t.post('/v1/chat/completions', await chatBody(t));
    const second = await charges();
    if (!chargesCompared(first.map, second.map)) return;
    t.observe('PTS-006', second.res.exchange);
    for (const p of chargeChanges(first.map, second.map))
      t.violate(p.id, p.message, {
        received: p.received,
        expected: p.expected,
        exchange: second.res.exchange,
      });
  },
);

async function replay(
  t: CheckContext,
  opts: {
    secondHeaders?: Record<string, string>;
    id: string;
    what: string;
    path?: string;
    body?: Record<string, unknown>;
    /** Both calls streamed (`stream` true): a store that keeps JSON replies only must not skip them. */
    stream?: true;
  },
) {
  const key = `conformance-${randomUUID()}`;
  const path = opts.path ?? '/v1/chat/completions';
  const body = { ...(opts.body ?? (await chatBody(t))), ...(opts.stream ? { stream: true } : {}) };
  const timeout = opts.stream ? { timeoutMs: t.target.timeouts.streamMs } : {};
  const b0 = await total(t);
  const first = await t.post(path, body, { headers: { 'idempotency-key': key }, ...timeout });
  if (!isSuccess(first.status)) return t.skip(`the first call was answered ${first.status}`);
  const b1 = await total(t);
  if (b1.equals(b0)) return t.skip('the first call moved no points: a second execution could not be seen');
  const second = await t.post(path, body, {
    headers: { 'idempotency-key': key, ...(opts.secondHeaders ?? {}) },
    retry429: false,
    ...timeout,
  });
  const b2 = await total(t);
  t.ensure(
    b2.equals(b1),
    opts.id,
    `${opts.what} moved the balance again by ${b1.minus(b2)} (the first call moved it by ${b0.minus(b1)})`,
    {
      received: b1.minus(b2).toString(),
      expected: '0',
      exchange: second.exchange,
      ...deltaLevel(t),
    },
  );
}

check(
  { ids: ['IDEM-001'], effect: 'billable', account: 'exclusive' },
  'does not execute a request replayed with the same Idempotency-Key twice',
  async (t) => {
    await replay(t, { id: 'IDEM-001', what: 'replaying the same request with the same Idempotency-Key' });
  },
);

check(
  { ids: ['IDEM-001'], effect: 'billable', account: 'exclusive' },
  'does not execute a /v1/responses request replayed with the same Idempotency-Key twice',
  async (t) => {
    await replay(t, {
      id: 'IDEM-001',
      what: 'replaying the same /v1/responses request with the same Idempotency-Key',
      path: '/v1/responses',
      body: { model: await t.hint('responses'), input: `Say ok. ${randomUUID()}`, max_output_tokens: 16 },
    });
  },
);

// "Idempotency-Key is sent on chat, responses ... when retrying the same task keep the key and the
// identical request": a streamed call too (the reply's form is not the request's identity).
check(
  { ids: ['IDEM-001'], effect: 'billable', account: 'exclusive' },
  'does not execute a streamed chat request replayed with the same Idempotency-Key twice',
  async (t) => {
    await replay(t, {
      id: 'IDEM-001',
      what: 'replaying the same streamed chat request with the same Idempotency-Key',
      stream: true,
    });
  },
);

check(
  { ids: ['IDEM-001'], effect: 'billable', account: 'exclusive' },
  'does not execute a streamed /v1/responses request replayed with the same Idempotency-Key twice',
  async (t) => {
    await replay(t, {
      id: 'IDEM-001',
      what: 'replaying the same streamed /v1/responses request with the same Idempotency-Key',
      path: '/v1/responses',
      body: { model: await t.hint('responses'), input: `Say ok. ${randomUUID()}`, max_output_tokens: 16 },
      stream: true,
    });
  },
);

check(
  { ids: ['IDEM-003'], effect: 'billable', account: 'exclusive' },
  'does not re-execute a replay that only changes the currency format',
  async (t) => {
    await replay(t, {
      id: 'IDEM-003',
      what: 'replaying with the legacy currency Accept header',
      secondHeaders: LEGACY,
    });
  },
);

check(
  { ids: ['IDEM-003'], effect: 'billable', account: 'exclusive' },
  'does not re-execute a /v1/responses replay that only changes the currency format',
  async (t) => {
    await replay(t, {
      id: 'IDEM-003',
      what: 'replaying the same /v1/responses request with the legacy currency Accept header',
      path: '/v1/responses',
      body: { model: await t.hint('responses'), input: `Say ok. ${randomUUID()}`, max_output_tokens: 16 },
      secondHeaders: LEGACY,
    });
  },
);

check(
  { ids: ['IDEM-002'], effect: 'billable', account: 'exclusive' },
  'refuses the same Idempotency-Key with a different body',
  async (t) => {
    const key = `conformance-${randomUUID()}`;
    const body = await chatBody(t);
    const first = await t.post('/v1/chat/completions', body, { headers: { 'idempotency-key': key } });
    if (!isSuccess(first.status)) return t.skip(`the first call was answered ${first.status}`);
    const second = await t.post(
      '/v1/chat/completions',
      { ...body, messages: [{ role: 'user', content: 'Something else.' }] },
      { headers: { 'idempotency-key': key } },
    );
    expectStatus(t, second, 'IDEM-002', '4xx', 'the same Idempotency-Key with another body');
  },
);
