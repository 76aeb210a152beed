import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSettingsWithoutUrl, checkUnknownVariables, closestKnown } from '../../src/config/env.ts';
import { UsageError } from '../../src/errors.ts';
import type { Exchange } from '../../src/http/client.ts';
import { aggregate, EXIT, exitCodeOf, type TestResultRecord } from '../../src/report/summary.ts';
import { DEAD_AFTER, deadTarget, noteExchange, stopReason } from '../../src/runtime/control.ts';
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
  ] as const)('%j with %j: %s, exit %i', ([outcomes, facts, verdict, code]) => {
    const s = aggregate(outcomes.map(record), [], facts as never);
    expect(s.verdict).toBe(verdict);
    expect(exitCodeOf(s)).toBe(code);
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
