import { describe, expect, it } from 'vitest';
import type { Requirement } from '../../src/catalogue.ts';
import { requirementResults } from '../../src/report/requirements.ts';
import { aggregate } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import type { Outcome } from '../../src/vocabulary.ts';

const req = (id: string): Requirement => ({ id, section: 'S', words: 'w', level: 'failure', testable: true });
const test = (
  ids: string[],
  outcome: Outcome,
  violations: Array<{ id: string; severity: 'failure' | 'advisory' }> = [],
  reason?: string,
  observed: string[] = ids,
) => ({
  ids,
  outcome,
  violations,
  ...(reason ? { reason } : {}),
  observed: Object.fromEntries(observed.map((id) => [id, []])),
});

describe('requirementResults: one outcome per requirement', () => {
  const results = requirementResults(
    [
      test(['A-001', 'B-001'], 'failed', [{ id: 'A-001', severity: 'failure' }]),
      test(['A-001'], 'passed'),
      test(['B-001'], 'harness_error'),
      test(['C-001'], 'known_failure', [{ id: 'C-001', severity: 'failure' }]),
      test(['C-001'], 'advisory', [{ id: 'C-001', severity: 'advisory' }]),
      test(['D-001'], 'advisory', [{ id: 'D-001', severity: 'advisory' }]),
      test(['E-001'], 'passed'),
      test(['E-001'], 'not_run', [], 'role x missing'),
      test(['F-001'], 'not_run', [], 'role x missing'),
      test(['F-001'], 'not_run', [], 'role x missing'),
      test(['RESP-001'], 'failed', [{ id: 'X-001', severity: 'failure' }]),
      // Aimed, never observed: a test that failed on another id before it reached H-001's form.
      test(['H-001', 'I-001'], 'failed', [{ id: 'I-001', severity: 'failure' }], undefined, ['I-001']),
      test(['H-001'], 'passed', [], undefined, []),
      // A stopped test's observations do not count: J-001 was seen only by a test that was not run.
      test(['J-001'], 'not_run', [], 'stopped', ['J-001']),
      test(['J-001'], 'passed', [], undefined, []),
      // Observed by a test that does not cite it (a per-exchange rule): judged all the same.
      test(['K-001'], 'passed', [], undefined, []),
      test(['L-001'], 'passed', [], undefined, ['L-001', 'K-001']),
    ],
    ['A-001', 'B-001', 'C-001', 'D-001', 'E-001', 'F-001', 'G-001', 'H-001', 'J-001', 'K-001'].map(req),
  );

  it('takes the strongest outcome: failed > harness error > known > advisory > passed > not judged > not run > no test', () => {
    expect(Object.fromEntries(Object.entries(results).map(([id, r]) => [id, r.outcome]))).toEqual({
      'A-001': 'failed',
      'B-001': 'harness_error',
      'C-001': 'known_failure',
      'D-001': 'advisory',
      'E-001': 'passed',
      'F-001': 'not_run',
      'G-001': 'no_test',
      'H-001': 'not_judged',
      'J-001': 'not_judged',
      'K-001': 'passed',
      'RESP-001': 'passed',
      'X-001': 'failed',
      'I-001': 'failed',
      'L-001': 'passed',
    });
  });

  it('never passes a requirement no decided test observed, and says what it needed', () => {
    expect(results['H-001']?.reasons[0]).toMatch(/^not judged: the target never showed /);
    expect(results['H-001']?.observed).toBeUndefined();
    expect(results['K-001']?.observed).toEqual([16]);
  });

  it('lists the tests by index, and each not-run reason once', () => {
    expect(results['A-001']).toMatchObject({ tests: [0, 1], failed: [0] });
    expect(results['C-001']).toMatchObject({ tests: [3, 4], known: [3], advisory: [4] });
    expect(results['F-001']?.reasons).toEqual(['role x missing']);
    // An id a violation names without the test citing it is still listed (after the catalogue's).
    expect(results['X-001']).toMatchObject({ tests: [], failed: [10] });
  });
});

describe('aggregate: the per-id tallies are the rollup counted', () => {
  const rec = (
    ids: string[],
    outcome: Outcome,
    violations: Array<{ id: string; severity: 'failure' | 'advisory' }> = [],
  ): TestResultRecord => ({
    title: `${ids.join(' ')} ${outcome}`,
    file: 'suites/x.test.ts',
    ids,
    outcome,
    durationMs: 1,
    violations: violations.map((v) => ({ ...v, level: 'failure', message: 'm', count: 1 })),
    exchanges: [],
    exchangeCount: 0,
  });
  const s = aggregate(
    [
      rec(['AUTH-001'], 'failed', [{ id: 'AUTH-001', severity: 'failure' }]),
      rec(['AUTH-001'], 'failed', [{ id: 'AUTH-001', severity: 'failure' }]),
      // A known failure and a harness error do not make an id failed: the rollup says so once.
      rec(['AUTH-002'], 'known_failure', [{ id: 'AUTH-002', severity: 'failure' }]),
      rec(['AUTH-004'], 'harness_error', [{ id: 'AUTH-004', severity: 'failure' }]),
      rec(['BAL-003'], 'advisory', [{ id: 'BAL-003', severity: 'advisory' }]),
    ],
    [],
  );

  it('lists an id failed in n tests with n, and advisory ones apart', () => {
    expect(s.failedRequirements).toEqual({ 'AUTH-001': 2 });
    expect(s.advisoryRequirements).toEqual({ 'BAL-003': 1 });
    expect(s.requirements['AUTH-002']?.outcome).toBe('known_failure');
    expect(s.requirements['AUTH-004']?.outcome).toBe('harness_error');
  });

  it('agrees with the rollup on every id', () => {
    for (const [id, r] of Object.entries(s.requirements)) {
      expect(s.failedRequirements[id] ?? 0, id).toBe(r.failed.length);
      expect(s.advisoryRequirements[id] ?? 0, id).toBe(r.advisory.length);
    }
  });
});

describe('requirementResults: a refusal stands beside its control, accepted anywhere in the run', () => {
  const beside = [{ key: 'media-job:m1', what: 'media job of m1' }];
  const refusal = (
    ids: string[],
    violations: Array<{ id: string; severity: 'failure' | 'advisory' }> = [],
  ) => ({
    ...test(ids, violations.length ? 'failed' : 'passed', violations, undefined, [...ids, 'ERR-001']),
    beside,
  });
  const outcomes = (tests: Parameters<typeof requirementResults>[0]) =>
    requirementResults(tests, ['M-001', 'M-002', 'ERR-001'].map(req));

  it('does not count its observations of its own ids where no test showed the control accepted', () => {
    const r = outcomes([refusal(['M-001'])]);
    expect(r['M-001']?.outcome).toBe('not_judged');
    expect(r['M-001']?.reasons[0]).toMatch(/no media job of m1 was accepted in this run/);
    // A per-exchange rule it observed (not its own id) stands.
    expect(r['ERR-001']?.outcome).toBe('passed');
  });

  it('counts them where another test (of another file or shard) showed it accepted', () => {
    const r = outcomes([refusal(['M-001']), { ...test(['M-002'], 'passed'), accepted: ['media-job:m1'] }]);
    expect(r['M-001']?.outcome).toBe('passed');
    // Another model's acceptance is no control of m1.
    const other = outcomes([
      refusal(['M-001']),
      { ...test(['M-002'], 'passed'), accepted: ['media-job:m2'] },
    ]);
    expect(other['M-001']?.outcome).toBe('not_judged');
  });

  it('keeps its violations: an invalid job accepted fails whatever the control', () => {
    const r = outcomes([refusal(['M-001'], [{ id: 'M-001', severity: 'failure' }])]);
    expect(r['M-001']?.outcome).toBe('failed');
  });
});
