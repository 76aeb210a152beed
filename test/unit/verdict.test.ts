import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSettingsWithoutUrl, checkUnknownVariables, closestKnown } from '../../src/config/env.ts';
import { UsageError } from '../../src/errors.ts';
import type { Exchange } from '../../src/http/client.ts';
import { incompleteness } from '../../src/report/bundle.ts';
import {
  applyExpectations,
  type Expectation,
  expectationFailures,
  loadExpectations,
} from '../../src/report/expectations.ts';
import { aggregate, EXIT, exitCodeOf, type Summary, verdictLine } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import { DEAD_AFTER, deadTarget, noteExchange, stopReason } from '../../src/runtime/liveness.ts';
import { pastDeadline } from '../../src/runtime/run-config.ts';

const record = (outcome: TestResultRecord['outcome']): TestResultRecord => ({
  title: `X-001 ${outcome}`,
  file: 'x',
  ids: ['X-001'],
  outcome,
  durationMs: 0,
  violations: [],
  exchanges: [],
  exchangeCount: 0,
});

describe('the verdict word, decided once', () => {
  const cut = { kind: 'deadline' as const, reason: 'run deadline of 5 s reached' };
  it.for([
    [['passed', 'not_run'], {}, 'passed', EXIT.passed],
    [['passed', 'failed'], { cut }, 'failed', EXIT.failed],
    [['passed'], { cut }, 'incomplete', EXIT.incomplete],
    [[], { cut }, 'incomplete', EXIT.incomplete],
    [
      ['passed'],
      { cut: { kind: 'signal', reason: 'interrupted by SIGINT' } },
      'incomplete',
      EXIT.interrupted,
    ],
    [['passed'], { partial: true }, 'partial', EXIT.passed],
    [['passed'], { cut, partial: true }, 'incomplete', EXIT.incomplete],
    [['harness_error', 'failed'], { cut }, 'harness_error', EXIT.harness],
    // Inconclusive (a connection failure that could not be repeated): never PASSED, never FAILED.
    [['passed', 'inconclusive'], {}, 'incomplete', EXIT.incomplete],
    [['inconclusive'], { partial: true }, 'incomplete', EXIT.incomplete],
    [['failed', 'inconclusive'], {}, 'failed', EXIT.failed],
    [['harness_error', 'inconclusive'], {}, 'harness_error', EXIT.harness],
  ] as const)('%j with %j: %s, exit %i', ([outcomes, facts, verdict, code]) => {
    const s = aggregate(outcomes.map(record), [], facts as never);
    expect(s.verdict).toBe(verdict);
    expect(exitCodeOf(s)).toBe(code);
  });
});

describe('an inconclusive test', () => {
  const inconclusive = (extra: Partial<TestResultRecord> = {}): TestResultRecord => ({
    ...record('inconclusive'),
    reason: 'inconclusive: POST /v1/chat/completions: other side closed [UND_ERR_SOCKET]',
    ...extra,
  });

  it('is shown apart: counted, its requirement inconclusive, the reason on the verdict line', () => {
    const s = aggregate([record('passed'), inconclusive()], []);
    expect(s.counts).toMatchObject({ passed: 1, inconclusive: 1, failed: 0 });
    expect(s.requirements['X-001']?.outcome).toBe('inconclusive');
    expect(s.inconclusive).toMatch(/^1 test inconclusive: a connection failed before any byte of a response/);
    const line = verdictLine({ ...s, target: { embedded: false, allow: ['read'] }, tests: [] });
    expect(line).toMatch(
      /^VERDICT: INCOMPLETE \(1 test inconclusive: .*; 1 of 2 tests judged, 1 inconclusive; 0 of 1 requirements judged\)$/,
    );
  });

  it('the verdict line keeps one level of parentheses, whatever its reasons hold', () => {
    const s = aggregate([record('failed')], [], {
      cut: {
        kind: 'dead_target',
        reason:
          'the target stopped answering: 5 requests in a row got no answer (the last: POST /v1/media/inputs: no complete response within 2000 ms [TIMEOUT])',
      },
    });
    const line = verdictLine({ ...s, target: { embedded: false, allow: ['read'] }, tests: [] });
    expect(line).toContain('got no answer — the last: POST /v1/media/inputs');
    let depth = 0;
    let deepest = 0;
    for (const ch of line) {
      if (ch === '(') deepest = Math.max(deepest, ++depth);
      if (ch === ')') depth--;
    }
    expect([deepest, depth], line).toEqual([1, 0]);
  });

  it('a flaky: entry allows it: still inconclusive, but the run may pass', () => {
    const list: Expectation[] = [
      { flaky: true, test: 'X-001', reason: 'the LB drops POSTs (OPS-1)', expires: '2099-01-01' },
    ];
    const tests = [record('passed'), inconclusive()];
    const status = applyExpectations(tests, list, '2026-11-27');
    expect(status[0]).toMatchObject({ status: 'matched', tests: ['X-001 inconclusive'] });
    expect(tests[1]).toMatchObject({
      outcome: 'inconclusive',
      flaky: 'the LB drops POSTs (OPS-1) (expires 2099-01-01)',
    });
    const s = aggregate(tests, []);
    expect([s.verdict, s.counts.inconclusive, s.inconclusive]).toEqual(['passed', 1, undefined]);
    // Never a failure's cover, never stale when its tests pass; expired, it fails the run.
    const failed = [{ ...record('failed'), violations: [] }];
    expect(applyExpectations(failed, list, '2026-11-27')[0]?.status).toBe('unused');
    expect(applyExpectations([record('passed')], list, '2026-11-27')[0]?.status).toBe('unused');
    const expired = applyExpectations([inconclusive()], list, '2100-01-01');
    expect(expectationFailures(expired, 'e.yaml')[0]?.violations[0]?.message).toMatch(
      /the flaky entry \/X-001\/ .* expired on 2099-01-01/,
    );
  });

  it('verify never certifies a run with an inconclusive test, flaky: entry or not', () => {
    const s = {
      ...aggregate([record('passed'), inconclusive({ flaky: 'allowed' })], []),
      target: { allow: ['read', 'write', 'billable', 'tickets', 'payments'], roles: [] },
      tests: [record('passed'), inconclusive({ flaky: 'allowed' })],
      profile: 'standard',
    } as unknown as Summary;
    expect(incompleteness(s).join('\n')).toMatch(/1 test\(s\) inconclusive: a connection failed/);
  });

  it('flaky: entries are read from the expectations file beside expectations:', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gc-flaky-')), 'e.yaml');
    writeFileSync(
      file,
      'flaky:\n  - test: wc-100016\n    reason: LB idle close (OPS-2)\n    expires: 2099-01-01\n',
    );
    expect(loadExpectations(file)).toEqual([
      { test: 'wc-100016', reason: 'LB idle close (OPS-2)', expires: '2099-01-01', flaky: true },
    ]);
    writeFileSync(file, 'flaky:\n  - reason: no test named\n    expires: 2099-01-01\n');
    expect(() => loadExpectations(file)).toThrow(UsageError);
  });
});

describe('the environment', () => {
  it('an unknown CONFORMANCE_* variable names the closest known one; internal ones are known', () => {
    expect(closestKnown('CONFORMANCE_BASEURL')).toBe('CONFORMANCE_BASE_URL');
    expect(closestKnown('CONFORMANCE_KEY_REVOKD')).toBe('CONFORMANCE_KEY_REVOKED');
    expect(() => checkUnknownVariables({ CONFORMANCE_APIKEY: 'k' })).toThrow(
      /CONFORMANCE_APIKEY \(did you mean CONFORMANCE_API_KEY\?\)/,
    );
    expect(() =>
      checkUnknownVariables(
        {
          CONFORMANCE_RUN_FILE: '/x',
          CONFORMANCE_EMBEDDED_KEY_PRIMARY: 'k',
          CONFORMANCE_LIMIT_PAYMENT_MIN_CNY: '10',
          CONFORMANCE_STAGING_KEY: 'k',
        },
        ['CONFORMANCE_STAGING_KEY'],
      ),
    ).not.toThrow();
  });

  it('a deployment setting without a base URL is refused; the harness own variables are not settings', () => {
    expect(() => checkSettingsWithoutUrl({ CONFORMANCE_MODEL_CHAT: 'm' })).toThrow(UsageError);
    expect(() =>
      checkSettingsWithoutUrl({
        CONFORMANCE_RUN_FILE: '/x',
        CONFORMANCE_EMBEDDED_KEY_PRIMARY: 'k',
        CONFORMANCE_API_KEY: '',
      }),
    ).not.toThrow();
  });
});

describe('a dead target', () => {
  const exchange = (status?: number, code?: string): Exchange => ({
    id: 'x',
    startedAt: '',
    method: 'GET',
    path: '/v1/models',
    requestHeaders: {},
    durationMs: 1,
    ...(status !== undefined ? { status } : {}),
    ...(code ? { error: { code, message: 'no complete response within 1000 ms' } } : {}),
  });

  it(`stops the run after ${DEAD_AFTER} requests in a row without an answer; an answer resets the streak`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-dead-unit-'));
    for (let i = 0; i < DEAD_AFTER - 1; i++) noteExchange(dir, exchange(undefined, 'TIMEOUT'));
    noteExchange(dir, exchange(500));
    // A stop of ours or a body cap is not "no answer".
    noteExchange(dir, exchange(undefined, 'AbortError'));
    for (let i = 0; i < DEAD_AFTER - 1; i++) noteExchange(dir, exchange(undefined, 'ECONNREFUSED'));
    expect(deadTarget(dir)).toBeUndefined();
    noteExchange(dir, exchange(undefined, 'ECONNRESET'));
    expect(deadTarget(dir)).toMatch(/^the target stopped answering: 5 requests in a row got no answer/);
    expect(stopReason(dir)).toBe(deadTarget(dir));
  });

  it('a deadline passed is a stop reason for every worker', () => {
    const run = { deadline: { at: 1_000, reason: 'run deadline of 1 s reached' } };
    expect(pastDeadline(run, 999)).toBeUndefined();
    expect(pastDeadline(run, 1_000)).toBe('run deadline of 1 s reached');
    expect(pastDeadline({}, 5_000)).toBeUndefined();
  });
});
