/**
 * The verdict hub's two pure halves: whether a test may run (src/runtime/may-run.ts) and what its
 * findings make of it (src/runtime/judgement.ts): each rule on its own, then judge()'s order.
 */
import { describe, expect, it } from 'vitest';
import {
  balanceRule,
  type Findings,
  type JudgeFacts,
  judge,
  limitRule,
  skipRule,
  stopRule,
  transientRule,
  unavailableRule,
  unseenRule,
} from '../../src/runtime/judgement.ts';
import { notApplicable, type RunFacts } from '../../src/runtime/may-run.ts';
import type { Violation } from '../../src/vocabulary.ts';

const fail = (id: string, extra: Partial<Violation> = {}): Violation => ({
  id,
  level: 'failure',
  severity: 'failure',
  message: `${id} broken`,
  ...extra,
});
const advisory = (id: string): Violation => ({ id, level: 'notable', severity: 'advisory', message: id });

const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  target: { name: 't', allow: ['read', 'write', 'billable'], capabilities: ['hook'] },
  hasRole: (r) => r === 'primary',
  stopReason: () => undefined,
  budgetRefusal: () => undefined,
  dryRun: false,
  ...over,
});

describe('notApplicable', () => {
  it('runs a test whose class, roles and capabilities the run has', () => {
    expect(
      notApplicable({ effect: 'read', roles: ['primary'], capabilities: ['hook'] }, facts()),
    ).toBeUndefined();
  });

  it('names the first reason in order: class, role, capability, stop, budget, dry run', () => {
    const all = facts({
      target: { name: 't', allow: ['read'], capabilities: [] },
      stopReason: () => 'stopped by a signal',
      budgetRefusal: () => ({ reason: 'budget reached', subject: 'budget' }),
      dryRun: true,
    });
    expect(notApplicable({ effect: 'billable', roles: ['other_tenant'] }, all)?.cause.kind).toBe('class');
    expect(
      notApplicable({ effect: 'read', roles: ['other_tenant'], capabilities: ['x'] }, all)?.cause,
    ).toMatchObject({
      kind: 'role',
      subject: 'other_tenant',
    });
    expect(notApplicable({ effect: 'read', capabilities: ['x'] }, all)?.cause.kind).toBe('capability');
    expect(notApplicable({ effect: 'read' }, all)).toMatchObject({
      reason: 'stopped by a signal',
      cause: { kind: 'stopped' },
    });
    const running = facts({
      budgetRefusal: () => ({ reason: 'budget reached', subject: 'budget' }),
      dryRun: true,
    });
    expect(notApplicable({ effect: 'billable' }, running)).toMatchObject({
      reason: 'budget reached',
      cause: { kind: 'budget', subject: 'budget' },
      unpaid: true,
    });
    // The budget refuses billable work only.
    expect(notApplicable({ effect: 'read' }, running)).toMatchObject({
      planned: true,
      cause: { kind: 'dry_run' },
    });
  });

  it('reads a stop and the budget only when the earlier reasons let the test through', () => {
    let reads = 0;
    const counted = facts({
      target: { name: 't', allow: [], capabilities: [] },
      stopReason: () => {
        reads++;
        return undefined;
      },
    });
    notApplicable({ effect: 'read' }, counted);
    expect(reads).toBe(0);
  });
});

const judgeFacts = (over: Partial<JudgeFacts> = {}): JudgeFacts => ({
  ids: ['CHAT-001'],
  judges429: false,
  statusOf: (id) => (id.startsWith('limited') ? 429 : id.startsWith('unavailable') ? 503 : 200),
  requestOf: () => ({ method: 'POST', path: '/v1/chat/completions' }),
  observedOwn: true,
  ...over,
});

describe('balanceRule', () => {
  it('keeps what came before the balance ran out and leaves what came after not judged', () => {
    const before = fail('CHAT-001');
    const after = fail('CHAT-002');
    const r = balanceRule([before, after], [before, after], { reason: 'ran out', violations: 1 });
    expect(r.failures).toEqual([before]);
    expect(r.unjudged).toEqual([{ violation: after, because: "the account's balance ran out" }]);
    expect(r.notRun).toBeUndefined();
  });

  it('is not run (unpaid) when nothing came before', () => {
    const after = fail('CHAT-002');
    const r = balanceRule([after], [after], { reason: 'ran out', violations: 0 });
    expect(r.notRun).toMatchObject({ reason: 'ran out', cause: { kind: 'budget' }, unpaid: true });
  });
});

describe('limitRule', () => {
  it("leaves a failure of the test's own rule citing a 429 not judged, but not a per-exchange finding of it", () => {
    const own = fail('CHAT-001', { exchangeId: 'limited-1' });
    const shape = fail('ERR-001', { exchangeId: 'limited-1', scope: 'exchange' });
    const r = limitRule([own, shape], [], judgeFacts());
    expect(r.unjudged.map((u) => u.violation)).toEqual([own]);
    expect(r.failures).toEqual([shape]);
    expect(r.notRun).toBeUndefined();
    // Its own rule on a reply that was no 429 stays judged.
    const answered = fail('CHAT-001', { exchangeId: 'answered-1' });
    expect(limitRule([answered], [], judgeFacts())).toEqual({ failures: [answered], unjudged: [] });
  });

  it('counts a prerequisite read another rule cites, and judges nothing for a test that judges 429 itself', () => {
    const prerequisite = fail('BAL-001', { exchangeId: 'limited-2' });
    expect(limitRule([prerequisite], [], judgeFacts()).notRun?.cause.kind).toBe('limited');
    expect(limitRule([prerequisite], [], judgeFacts({ judges429: true }))).toEqual({
      failures: [prerequisite],
      unjudged: [],
    });
  });

  it('is not run when only limited cases were left, naming at most three', () => {
    const r = limitRule([], ['a', 'b', 'c', 'd'], judgeFacts());
    expect(r.notRun?.reason).toContain('a; b; c and 1 more case(s) not judged');
    expect(limitRule([], ['a', 'b', 'c'], judgeFacts()).notRun?.reason).toContain(': a; b; c not judged');
  });
});

describe('unavailableRule', () => {
  it('leaves what the test concluded from a 502/503/504 not judged, not what the per-exchange checks found in it', () => {
    const own = fail('CHAT-001', { exchangeId: 'unavailable-1' });
    const shape = fail('ERR-001', { exchangeId: 'unavailable-1', scope: 'exchange' });
    const r = unavailableRule([own, shape], judgeFacts());
    expect(r.unjudged).toEqual([
      { violation: own, because: 'the target answered 503 (a model or an upstream unavailable)' },
    ]);
    expect(r.failures).toEqual([shape]);
    expect(r.notRun).toBeUndefined();
    const answered = fail('CHAT-001', { exchangeId: 'answered-1' });
    expect(unavailableRule([answered], judgeFacts())).toEqual({ failures: [answered], unjudged: [] });
  });

  it('is not run when nothing else failed, citing the request; a test that judges 429 itself judges its 5xx too', () => {
    const own = fail('CHAT-001', { exchangeId: 'unavailable-1' });
    const r = unavailableRule([own], judgeFacts());
    expect(r.notRun).toMatchObject({
      cause: {
        kind: 'endpoint',
        subject: 'POST /v1/chat/completions answered 503',
        endpoint: { method: 'POST', path: '/v1/chat/completions', status: 503 },
      },
    });
    expect(r.notRun?.reason).toContain('CHAT-001 not judged');
    expect(unavailableRule([own], judgeFacts({ judges429: true }))).toEqual({
      failures: [own],
      unjudged: [],
    });
    expect(judge({ violations: [own], limitedCases: [], inconclusive: [] }, judgeFacts()).outcome).toBe(
      'not_run',
    );
  });
});

describe('skipRule', () => {
  const cause = { kind: 'precondition' as const, subject: 'the upload was answered 201 without its id' };
  it('a test that went no further is not run with its reason and cause, unless a failure stands', () => {
    expect(skipRule([], { reason: 'no id', cause })).toEqual({ reason: 'no id', cause });
    expect(skipRule([], { reason: 'no role' })).toEqual({ reason: 'no role' });
    expect(skipRule([fail('RESP-003')], { reason: 'no id', cause })).toBeUndefined();
    expect(skipRule([], undefined)).toBeUndefined();
  });
});

describe('stopRule and transientRule', () => {
  it('a stop leaves a test that found nothing not run (budget or stopped), and one that failed failed', () => {
    expect(stopRule([], 'stop', undefined)?.cause).toEqual({ kind: 'stopped', subject: 'stop' });
    expect(stopRule([], 'stop', { reason: 'r', subject: 's' })).toMatchObject({
      reason: 'stop (stopped while running)',
      cause: { kind: 'budget', subject: 's' },
      unpaid: true,
    });
    expect(stopRule([fail('CHAT-001')], 'stop', undefined)).toBeUndefined();
  });

  it('a connection failure that could not be repeated is inconclusive unless something failed', () => {
    expect(transientRule([], ['reset'])).toBe('inconclusive: reset');
    expect(transientRule([fail('CHAT-001')], ['reset'])).toBeUndefined();
    expect(transientRule([], [])).toBeUndefined();
  });
});

describe('judge', () => {
  const found = (over: Partial<Findings> = {}): Findings => ({
    violations: [],
    limitedCases: [],
    inconclusive: [],
    ...over,
  });

  it('passes, advises or fails by the violations left', () => {
    expect(judge(found(), judgeFacts()).outcome).toBe('passed');
    expect(judge(found({ violations: [advisory('X')] }), judgeFacts()).outcome).toBe('advisory');
    const f = fail('CHAT-001');
    expect(judge(found({ violations: [f] }), judgeFacts())).toMatchObject({
      outcome: 'failed',
      failures: [f],
    });
  });

  it('applies the balance before the 429 rule: a not-run by the balance leaves the 429s as they were', () => {
    const limited = fail('CHAT-001', { exchangeId: 'limited-1' });
    const j = judge(
      found({ violations: [limited], balanceRanOut: { reason: 'ran out', violations: 0 } }),
      judgeFacts(),
    );
    expect(j.outcome).toBe('not_run');
    expect(j.unjudged.map((u) => u.because)).toEqual(["the account's balance ran out"]);
  });

  it('a stop outranks inconclusive, and a failure both', () => {
    expect(judge(found({ stoppedBy: 'stop', inconclusive: ['reset'] }), judgeFacts()).outcome).toBe(
      'not_run',
    );
    expect(judge(found({ inconclusive: ['reset'], violations: [advisory('X')] }), judgeFacts()).outcome).toBe(
      'inconclusive',
    );
    expect(judge(found({ stoppedBy: 'stop', violations: [fail('CHAT-001')] }), judgeFacts()).outcome).toBe(
      'failed',
    );
  });

  it('a test that went no further: not run, nothing it met counts, unless a failure it met first fails it', () => {
    const skip = {
      reason: 'the upload was answered 201',
      cause: { kind: 'precondition' as const, subject: 's' },
    };
    expect(judge(found({ wentNoFurther: skip, violations: [advisory('X')] }), judgeFacts())).toEqual({
      outcome: 'not_run',
      notRun: { reason: skip.reason, cause: skip.cause },
      discard: true,
      unjudged: [],
    });
    const f = fail('RESP-003');
    expect(judge(found({ wentNoFurther: skip, violations: [f] }), judgeFacts())).toEqual({
      outcome: 'failed',
      failures: [f],
      notes: ['went no further: the upload was answered 201'],
      unjudged: [],
    });
    // After the balance and 429 rules (their reason is the truer one), before a stop and inconclusive.
    const ranOut = judge(
      found({ wentNoFurther: skip, balanceRanOut: { reason: 'ran out', violations: 0 } }),
      judgeFacts(),
    );
    expect(ranOut).toMatchObject({ outcome: 'not_run', notRun: { reason: 'ran out', unpaid: true } });
    expect(judge(found({ wentNoFurther: skip, inconclusive: ['reset'] }), judgeFacts())).toMatchObject({
      outcome: 'not_run',
      notRun: { reason: skip.reason },
    });
  });

  it('a test that met nothing wrong and judged none of its own ids is not run, never passed', () => {
    const unseen = judgeFacts({ ids: ['PAY-001'], observedOwn: false });
    expect(judge(found(), unseen)).toMatchObject({
      outcome: 'not_run',
      notRun: {
        reason: expect.stringContaining('none of PAY-001 was judged'),
        cause: { kind: 'precondition' },
      },
    });
    // What it met stands: an advisory or a failure of another id is its outcome.
    expect(judge(found({ violations: [advisory('RESP-004')] }), unseen).outcome).toBe('advisory');
    expect(judge(found({ violations: [fail('RESP-003')] }), unseen).outcome).toBe('failed');
    expect(judge(found(), judgeFacts()).outcome).toBe('passed');
    expect(unseenRule([], judgeFacts())).toBeUndefined();
  });
});
