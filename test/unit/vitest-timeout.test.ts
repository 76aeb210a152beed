import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import { pkgPath } from '../../src/paths.ts';
import { ConformanceReporter, isVitestTimeout } from '../../src/report/reporter.ts';

/** What the reporter records of a test vitest failed outside the check() wrapper with this message. */
function recordOf(message: string) {
  const tc = {
    name: 'GEN-001 a test',
    meta: () => ({}),
    result: () => ({ state: 'failed', errors: [{ message }] }),
    diagnostic: () => ({ duration: 50 }),
  };
  const mod = {
    moduleId: pkgPath('suites', 'x.test.ts'),
    errors: () => [],
    children: { allTests: () => [tc] },
  };
  const reporter = new ConformanceReporter(new Redactor({}));
  reporter.onTestRunEnd([mod] as never, []);
  return reporter.collected.tests[0]!;
}

// The error vitest itself raises when a test outlives its timeout: caught from the test's context
// signal, which vitest aborts with that same error (so a vitest upgrade that rewords it fails here).
let raised: unknown;

describe('a vitest test timeout, recognised in one place (src/report/reporter.ts isVitestTimeout)', () => {
  it.fails('a test past its timeout (expected to fail: vitest times it out)', {
    timeout: 50,
  }, async (ctx) => {
    ctx.signal.addEventListener('abort', () => {
      raised = ctx.signal.reason;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  });

  it("recognises vitest's own timeout message", () => {
    expect(raised).toBeInstanceOf(Error);
    expect(isVitestTimeout((raised as Error).message)).toBe(true);
  });

  it("makes vitest's timeout the target's failure (GEN-001), any other error outside check() a harness error", () => {
    const timedOut = recordOf((raised as Error).message);
    expect(timedOut.outcome).toBe('failed');
    expect(timedOut.violations.map((v) => [v.id, v.severity])).toEqual([['GEN-001', 'failure']]);
    expect(timedOut.violations[0]!.message).toMatch(/^the test did not finish: Test timed out in 50ms/);
    const other = recordOf('TypeError: the upstream request timed out');
    expect([other.outcome, other.error]).toEqual([
      'harness_error',
      'TypeError: the upstream request timed out',
    ]);
  });

  it.for([
    ['Hook timed out in 10000ms.\nIf this is a long-running hook, ...', true],
    ['The setup phase of "aroundEach" hook timed out after 10000ms.', true],
    ['expected 401 to be 200', false],
    ['TypeError: the upstream request timed out', false],
    ['The test run was aborted by the user.', false],
  ] as const)('%j: %s', ([message, timeout]) => {
    expect(isVitestTimeout(message)).toBe(timeout);
  });
});
