import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  addedRecords,
  assetIdProblem,
  assetProblem,
  availableProblem,
  balanceMoveProblem,
  balanceOf,
  chargeChanges,
  chargedOf,
  ledgerAddsUpProblem,
  ledgerBalanceProblem,
  ledgerChainProblem,
  ledgerOf,
  type Problem,
  recordTokenJudgements,
  reportedSpend,
  statusProblem,
  tokenJudgements,
  usageChargeProblem,
  usageChargesOf,
} from '../../src/stateful/invariants.ts';

const d = (v: string) => new Decimal(v);

const MET = (id: string) => ({ id, met: true });

describe('balance invariants', () => {
  it('finds the balance figures at any depth and checks available = total - held (BAL-003)', () => {
    const flat = balanceOf({ total_points: '100.5', held_points: '0.5', available_points: '100' });
    expect(flat?.total.toString()).toBe('100.5');
    expect(availableProblem(flat!)).toEqual({ id: 'BAL-003', met: true });
    const nested = balanceOf({ data: { total_points: '10', held_points: '1', available_points: '10' } });
    expect(availableProblem(nested!)?.id).toBe('BAL-003');
    expect((availableProblem(nested!) as Problem).expected).toBe('9');
    expect(balanceOf({ total_points: 10 })).toBeUndefined();
    expect(availableProblem(balanceOf({ total_points: '10' })!)).toBeUndefined();
  });

  it('judges a move of the total exactly (BAL-004)', () => {
    expect(balanceMoveProblem(d('9.999'), d('9.999'), 'now')).toEqual({ id: 'BAL-004', met: true });
    const p = <Problem>balanceMoveProblem(d('9.999'), d('9.998'), 'after one call');
    expect(p?.id).toBe('BAL-004');
    expect(p?.message).toContain('0.001');
  });

  it('reads what a reply charged or held', () => {
    expect(chargedOf({ billing: { charged_points: '0.25' } })?.toString()).toBe('0.25');
    expect(chargedOf({ billing: {} })).toBeUndefined();
    expect(reportedSpend({ pending_points: '0.75' })?.toString()).toBe('0.75');
    expect(reportedSpend({ pending_points: '0', charged_points: '0.75' })?.toString()).toBe('0.75');
  });
});

describe('ledger invariants', () => {
  const newestFirst = {
    data: [
      { id: 'c', amount_points: '-1', balance_after_points: '7' },
      { id: 'b', amount_points: '-2', balance_after_points: '8' },
      { id: 'a', amount_points: '10', balance_after_points: '10' },
    ],
  };
  it('accepts running balances in either listing order (LEDGER-002)', () => {
    expect(ledgerChainProblem(ledgerOf(newestFirst))).toEqual(MET('LEDGER-002'));
    expect(ledgerChainProblem(ledgerOf({ entries: [...newestFirst.data].reverse() }))).toEqual(
      MET('LEDGER-002'),
    );
    expect(ledgerChainProblem(ledgerOf({ data: [newestFirst.data[0]] }))).toBeUndefined();
  });

  it('finds a skipped entry in the chain (LEDGER-002)', () => {
    const skipped = ledgerOf({ data: [newestFirst.data[0], newestFirst.data[2]] });
    expect(ledgerChainProblem(skipped)?.id).toBe('LEDGER-002');
  });

  it('requires an end of the ledger to state the balance (LEDGER-003)', () => {
    const lines = ledgerOf(newestFirst);
    expect(ledgerBalanceProblem(lines, d('7'))).toEqual(MET('LEDGER-003'));
    expect(ledgerBalanceProblem(ledgerOf({ data: [...newestFirst.data].reverse() }), d('7'))).toEqual(
      MET('LEDGER-003'),
    );
    expect(ledgerBalanceProblem(lines, d('6.99'))?.id).toBe('LEDGER-003');
    expect(ledgerBalanceProblem([], d('1'))).toBeUndefined();
  });

  it('requires the entries added between two reads to add up to the move (LEDGER-003)', () => {
    const before = ledgerOf({ data: newestFirst.data.slice(1) });
    const after = ledgerOf(newestFirst);
    expect(ledgerAddsUpProblem(before, after, d('-1'))).toEqual(MET('LEDGER-003'));
    // Nothing added, nothing moved: nothing to add up, not judged.
    expect(ledgerAddsUpProblem(after, after, d('0'))).toBeUndefined();
    expect(ledgerAddsUpProblem(before, after, d('-3'))?.id).toBe('LEDGER-003');
    // Entries without ids are told apart by content, duplicates counted as two entries.
    const old = { amount_points: '-1', balance_after_points: '7' };
    const twice = { amount_points: '-2', balance_after_points: '5' };
    const anonymous = (...e: object[]) => ledgerOf({ data: e });
    expect(ledgerAddsUpProblem(anonymous(old), anonymous(twice, old), d('-2'))).toEqual(MET('LEDGER-003'));
    expect(ledgerAddsUpProblem(anonymous(old), anonymous(old, old), d('-1'))).toEqual(MET('LEDGER-003'));
    expect(ledgerAddsUpProblem(anonymous(old), anonymous(twice, old), d('-3'))?.id).toBe('LEDGER-003');
  });
});

describe('usage invariants', () => {
  it('finds the usage record of a call among those added and compares its charge (USAGE-080)', () => {
    const before = { data: [{ id: 'u1', model: 'm', charged_points: '0.1' }] };
    const after = {
      data: [{ id: 'u2', model: 'm', charged_points: '0.20' }, ...before.data],
    };
    const added = addedRecords(before, after);
    expect(added.map((r) => r.id)).toEqual(['u2']);
    expect(usageChargeProblem(added, d('0.2'), 'm', 'chat')).toEqual({ id: 'USAGE-080', met: true });
    expect(usageChargeProblem(added, d('0.3'), 'm', 'chat')?.id).toBe('USAGE-080');
    expect((usageChargeProblem(added, d('0.2'), 'other', 'chat') as Problem).message).toMatch(
      /names no model other/,
    );
    // Field names beyond charged_points are not shown: the model may sit under any name.
    const renamed = addedRecords([], { records: [{ usage_id: 'x', engine: 'm', charged_points: '0.2' }] });
    expect(usageChargeProblem(renamed, d('0.2'), 'm', 'chat')).toEqual({ id: 'USAGE-080', met: true });
    expect(usageChargeProblem([{ id: 'u3', model: 'm' }], d('0.2'), 'm', 'chat')).toBeUndefined();
  });

  it('follows settled charges by record id and reports a change (PTS-006)', () => {
    const first = usageChargesOf({ data: [{ id: 'u1', charged_points: '0.1' }, { id: 'u2' }] });
    expect([...first]).toEqual([['u1', '"0.1"']]);
    const renamed = usageChargesOf({ records: [{ usage_id: 'u1', charged_points: '0.1' }] });
    expect(chargeChanges(first, renamed)).toEqual([]);
    const changed = chargeChanges(first, usageChargesOf({ data: [{ id: 'u1', charged_points: '0.101' }] }));
    expect(changed.map((p) => p.id)).toEqual(['PTS-006']);
    expect(chargeChanges(first, new Map())).toEqual([]);
    // The same exact decimal written otherwise is the same charge; another value is not.
    const respelled = usageChargesOf({ data: [{ id: 'u1', charged_points: '0.10' }] });
    expect(chargeChanges(first, respelled)).toEqual([]);
    // A media job's record charging zero may be listed before its settlement: not followed. A call's is.
    const early = usageChargesOf({
      data: [
        { id: 'j1', job_id: 'job_1', charged_points: '0' },
        { id: 'j2', endpoint: '/v1/media/jobs', charged_points: '0.00' },
        { id: 'j3', job_id: 'job_3', charged_points: '1.5' },
        { id: 'c1', endpoint: '/v1/chat/completions', charged_points: '0' },
      ],
    });
    expect([...early.keys()]).toEqual(['j3', 'c1']);
  });

  it('keeps token figures integers and totals consistent (PTS-005, CHAT-004), met where they show', () => {
    const ids = (body: unknown, path = '/v1/chat/completions') =>
      tokenJudgements(body, 'a call', path).map((j) => (j && 'met' in j ? `${j.id} met` : j?.id));
    expect(ids({ usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } })).toEqual([
      'PTS-005 met',
      'CHAT-004 met',
    ]);
    expect(ids({ usage: { prompt_tokens: '5', completion_tokens: 2, total_tokens: 7 } })).toEqual([
      'PTS-005',
    ]);
    expect(ids({ usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 8 } })).toEqual([
      'CHAT-004',
      'PTS-005 met',
    ]);
    expect(ids({ usage: { input_tokens: 3, output_tokens: 1 } })).toEqual(['PTS-005 met']);
    expect(ids({ choices: [] })).toEqual([]);
    // An embeddings reply's usage gives {prompt_tokens, total_tokens}: a null beside them reports nothing.
    // Not so for a chat reply, whose usage gives all three, nor for the two an embedding does give.
    const nullCompletion = { usage: { prompt_tokens: 5, completion_tokens: null, total_tokens: 5 } };
    expect(ids(nullCompletion, '/v1/embeddings')).toEqual(['PTS-005 met']);
    expect(ids(nullCompletion)).toEqual(['PTS-005']);
    expect(ids({ usage: { prompt_tokens: null, total_tokens: 5 } }, '/v1/embeddings')).toEqual(['PTS-005']);
    // A count the contract does not name for the reply may be null anywhere (a chat reply's
    // reasoning_tokens); the counts it names stay integers.
    const reasoning = {
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, reasoning_tokens: null },
    };
    expect(ids(reasoning)).toEqual(['PTS-005 met', 'CHAT-004 met']);
    expect(ids({ usage: { input_tokens: null, output_tokens: 3 } }, '/v1/responses')).toEqual([
      'PTS-005 met',
    ]);
    expect(ids({ usage: { input_tokens: '3' } }, '/v1/responses')).toEqual(['PTS-005']);
  });
});

describe('token counts of usage records (PTS-005)', () => {
  it('judges every *_tokens field of a record and of a usage object in it, met where one shows', () => {
    expect(recordTokenJudgements([{ prompt_tokens: 8, total_tokens: 10 }])).toEqual([
      { id: 'PTS-005', met: true },
    ]);
    const problems = recordTokenJudgements([
      { id: 'u1', prompt_tokens: 8 },
      { id: 'u2', usage: { input_tokens: '8', output_tokens: 1.5 } },
    ]);
    expect(problems.map((p) => (p as Problem).message)).toEqual([
      'usage record #1: usage/input_tokens is "8", not an integer',
      'usage record #1: usage/output_tokens is 1.5, not an integer',
    ]);
    expect(recordTokenJudgements([{ id: 'u1', charged_points: '0.1' }])).toEqual([]);
    expect(recordTokenJudgements([])).toEqual([]);
    // A media job's record may give its token counts as null (it has none); a call's may not.
    expect(recordTokenJudgements([{ id: 'j1', job_id: 'job_1', prompt_tokens: null }])).toEqual([]);
    // Named by a documented media model, or by a model and nothing else (whose record it is, unknown).
    expect(recordTokenJudgements([{ id: 'j2', model: 'wc-100010', prompt_tokens: null }])).toEqual([]);
    expect(recordTokenJudgements([{ id: 'j3', model: 'wc-900001', total_tokens: null }])).toEqual([]);
    expect(
      recordTokenJudgements([{ id: 'j3', model: 'wc-900001', total_tokens: '3' }]).map((p) => p?.id),
    ).toEqual(['PTS-005']);
    expect(
      recordTokenJudgements([{ id: 'c1', endpoint: '/v1/chat/completions', prompt_tokens: null }]).map(
        (p) => p?.id,
      ),
    ).toEqual(['PTS-005']);
    // An embedding has no completion: its record may say null there, not for the counts it gives.
    const embedding = (counts: Record<string, unknown>) =>
      recordTokenJudgements([{ id: 'e1', endpoint: '/v1/embeddings', ...counts }]).map((p) =>
        p && 'met' in p ? 'met' : p?.id,
      );
    expect(embedding({ prompt_tokens: 3, completion_tokens: null, total_tokens: 3 })).toEqual(['met']);
    expect(embedding({ prompt_tokens: null, completion_tokens: 0, total_tokens: 3 })).toEqual(['PTS-005']);
    expect(embedding({ prompt_tokens: 3, total_tokens: null })).toEqual(['PTS-005']);
    expect(embedding({ prompt_tokens: 3, completion_tokens: '0', total_tokens: 3 })).toEqual(['PTS-005']);
  });
});

describe('media job invariants', () => {
  it.each([
    [['queued'], 'running', undefined],
    [['running', 'succeeded'], 'expired', 'MJOB-025 met'],
    [['running', 'succeeded'], 'succeeded', 'MJOB-025 met'],
    [['running', 'succeeded'], 'running', 'MJOB-025'],
    [['running', 'failed'], 'running', 'MJOB-025'],
    [['cancelled'], 'succeeded', 'MJOB-025'],
    [['expired'], 'expired', 'MJOB-025 met'],
    [[], 'failed', undefined],
  ])('after %j, %s is %s', (seen, next, id) => {
    const j = statusProblem('job#1', seen as string[], next as string);
    expect(j && 'met' in j ? `${j.id} met` : j?.id).toBe(id);
  });

  it('requires the asset of a succeeded job (MJOB-021)', () => {
    expect(assetIdProblem('job#1', { status: 'succeeded', asset_id: 'a1' })).toEqual({
      id: 'MJOB-021',
      met: true,
    });
    expect(assetIdProblem('job#1', { status: 'running' })).toBeUndefined();
    expect(assetIdProblem('job#1', { status: 'succeeded' })?.id).toBe('MJOB-021');
    expect(assetIdProblem('job#1', { status: 'succeeded', asset_id: '' })).toMatchObject({
      id: 'MJOB-021',
      received: '',
    });
  });

  it("judges the asset's real type by the model's output (MASSET-001)", () => {
    const png = { ext: 'png', mime: 'image/png' };
    const empty = Buffer.alloc(0);
    const met = { id: 'MASSET-001', met: true };
    expect(assetProblem('job#1', 'image', 'png', png, empty)).toEqual(met);
    expect((assetProblem('job#1', 'image', 'jpeg', png, empty) as Problem).expected).toBe('image/jpeg');
    expect(assetProblem('job#1', 'image', undefined, png, empty)).toEqual(met);
    expect(assetProblem('job#1', 'video', undefined, { ext: 'mp4', mime: 'video/mp4' }, empty)).toEqual(met);
    expect(assetProblem('job#1', 'video', undefined, png, empty)?.id).toBe('MASSET-001');
    expect(assetProblem('job#1', 'glb', undefined, undefined, Buffer.from('glTF....'))).toEqual(met);
    expect(assetProblem('job#1', 'glb', undefined, png, empty)?.id).toBe('MASSET-001');
    expect(assetProblem('job#1', null, undefined, undefined, empty)).toBeUndefined();
  });
});
