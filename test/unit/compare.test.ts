import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareRuns, comparisonLines, previousReport } from '../../src/report/compare.ts';
import { appendStepSummary, mdText, renderMarkdown } from '../../src/report/markdown.ts';
import { aggregate, type Summary } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';

function test(
  title: string,
  outcome: TestResultRecord['outcome'],
  id = title.split(' ')[0]!,
): TestResultRecord {
  return {
    title,
    file: 'suites/x.test.ts',
    ids: [id],
    outcome,
    durationMs: 1,
    violations:
      outcome === 'failed'
        ? [{ id, level: 'failure', severity: 'failure', message: `broken <b>|x|</b> ${id}`, count: 1 }]
        : [],
    exchanges: [],
    exchangeCount: 0,
    observed: { [id]: [] },
    ...(outcome === 'not_run' ? { reason: 'role other_tenant has no key' } : {}),
  };
}

function summary(name: string, tests: TestResultRecord[], startedAt = '2026-11-01T00:00:00.000Z'): Summary {
  return {
    suite: { name: 'gateway-conformance', version: '0.1.0' },
    target: {
      name,
      baseUrl: 'https://api.example.test',
      embedded: false,
      allow: ['read'],
      roles: [],
      models: {},
    },
    strict: false,
    seed: 1,
    startedAt,
    durationMs: 1,
    openapi: { valid: true, errors: [] },
    ...aggregate(tests, []),
    exchanges: { file: 'exchanges.ndjson', count: 0 },
    tests,
  } as Summary;
}

function reportDir(root: string, name: string, s: Summary, times: Record<string, number[]> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(s));
  const lines = Object.entries(times).flatMap(([op, ms]) =>
    ms.map((d, i) => {
      const [method, path] = op.split(' ');
      return JSON.stringify({
        id: `${name}-${op}-${i}`,
        method,
        path,
        durationMs: d,
        startedAt: s.startedAt,
      });
    }),
  );
  writeFileSync(join(dir, 'exchanges.ndjson'), lines.join('\n'));
  return dir;
}

const before = summary('staging', [
  test('AUTH-005 refuses a request without a key', 'failed'),
  test('HEALTH-001 GET /healthz answers', 'passed'),
  test('ISO-001 another tenant cannot read', 'passed'),
  test('MJOB-001 creates a job', 'not_run'),
]);
const now = summary(
  'staging',
  [
    test('AUTH-005 refuses a request without a key', 'passed'),
    test('HEALTH-001 GET /healthz answers', 'failed'),
    test('ISO-001 another tenant cannot read', 'not_run'),
    test('MJOB-001 creates a job', 'passed'),
  ],
  '2026-11-02T00:00:00.000Z',
);

describe('what changed since an earlier run (--compare-with)', () => {
  it('lists newly failing, fixed, newly not run and newly judged, per requirement and per test', () => {
    const root = mkdtempSync(join(tmpdir(), 'gc-compare-'));
    const b = reportDir(root, 'a', before, {
      'GET /v1/media/jobs/job_1': [100, 110, 120],
      'GET /v1/models': [10, 10, 10],
    });
    const n = reportDir(root, 'b', now, {
      'GET /v1/media/jobs/job_9': [400, 420, 450],
      'GET /v1/models': [11, 10, 12],
    });
    const c = compareRuns(now, n, before, b);
    expect(c.requirements).toEqual({
      newlyFailing: ['HEALTH-001'],
      fixed: ['AUTH-005'],
      newlyNotRun: ['ISO-001'],
      newlyJudged: ['MJOB-001'],
    });
    expect(c.tests.newlyFailing).toEqual(['HEALTH-001 GET /healthz answers (suites/x.test.ts)']);
    // Job ids fold into the path template; a growth within noise (GET /v1/models) is not listed.
    expect(c.slower).toEqual([{ operation: 'GET /v1/media/jobs/{id}', beforeMs: 110, nowMs: 420 }]);
    const lines = comparisonLines(c);
    expect(lines[0]).toContain('1 newly failing requirement(s): HEALTH-001; 1 fixed: AUTH-005');
    expect(lines.length).toBeLessThanOrEqual(3);
  });

  it("'previous' is the newest other report of the same target, never another target's", () => {
    const root = mkdtempSync(join(tmpdir(), 'gc-compare-'));
    const old = reportDir(root, '2026-11-01', before);
    reportDir(root, '2026-11-03-other', summary('partner', []));
    const mine = reportDir(root, '2026-11-04', now);
    expect(previousReport(mine, { target: 'staging' })).toMatchObject({ dir: old });
    expect(previousReport(old, { target: 'nobody' })).toMatchObject({
      missing: expect.stringMatching(/^no earlier report of a completed live run of target nobody/),
    });
  });

  it("'previous' passes over newer dry runs, interrupted runs and other selections, and says so", () => {
    const root = mkdtempSync(join(tmpdir(), 'gc-compare-'));
    const at = (dir: string, s: number) => {
      utimesSync(join(dir, 'summary.json'), s, s);
      return dir;
    };
    const live = at(reportDir(root, 'a-live', summary('staging', [])), 1_000);
    at(reportDir(root, 'b-dry', { ...summary('staging', []), dryRun: true }), 2_000);
    at(reportDir(root, 'c-cut', { ...summary('staging', []), interrupted: 'interrupted by SIGINT' }), 3_000);
    at(reportDir(root, 'd-filtered', { ...summary('staging', []), filter: 'HEALTH' }), 4_000);
    const mine = at(reportDir(root, 'e-now', summary('staging', [])), 5_000);
    const found = previousReport(mine, { target: 'staging' });
    expect(found).toEqual({
      dir: live,
      why: 'the newest completed live run of target staging with the same selection; newer, passed over: 1 dry run(s), 1 interrupted run(s), 1 run(s) of another selection',
    });
    // The same selection finds the filtered run.
    expect(previousReport(mine, { target: 'staging', filter: 'HEALTH' })).toMatchObject({
      dir: join(root, 'd-filtered'),
    });
  });
});

describe('summary.md', () => {
  it('renders the verdict, counts, changes, root causes and not-run causes, with the target text inert', () => {
    const root = mkdtempSync(join(tmpdir(), 'gc-md-'));
    const s = summary('stag|ing<script>', now.tests ?? []);
    s.comparison = compareRuns(now, reportDir(root, 'b', now), before, reportDir(root, 'a', before));
    const md = renderMarkdown(s);
    expect(md).toContain('## gateway-conformance: FAILED');
    expect(md).toContain('| 2 | 1 | 0 | 0 | 0 | 1 | 0 | 4 |');
    expect(md).toContain('### Since the compared run');
    expect(md).toContain('| newly failing | 1 | HEALTH-001 | 1 |');
    expect(md).toContain('### Root causes of the failures');
    expect(md).toContain('### Not run');
    expect(md).not.toContain('<script>');
    expect(md).not.toContain('<b>');
    expect(md).toContain('stag\\|ing&lt;script&gt;');
    expect(md).not.toMatch(/\]\(/);
  });

  it('mdText leaves no markup, link, table break or control character of the target', () => {
    expect(mdText('[x](https://evil) |a| `c` <img>\n::error::x\u001b[31m')).toBe(
      '\\[x\\]\\(https://evil\\) \\|a\\| \\`c\\` &lt;img&gt; ::error::x\\\\u001b\\[31m',
    );
  });

  it('is appended to $GITHUB_STEP_SUMMARY when set; a file that cannot be written is said', () => {
    const root = mkdtempSync(join(tmpdir(), 'gc-md-'));
    writeFileSync(join(root, 'summary.md'), '## x\n');
    const target = join(root, 'step.md');
    expect(appendStepSummary(root, { GITHUB_STEP_SUMMARY: target })).toBeUndefined();
    expect(appendStepSummary(root, {})).toBeUndefined();
    expect(appendStepSummary(root, { GITHUB_STEP_SUMMARY: join(root, 'no', 'such', 'dir', 'f') })).toMatch(
      /GITHUB_STEP_SUMMARY: cannot append/,
    );
  });
});

describe('the verdict block of the console', () => {
  it('says the counts are tests and the ids are requirements, each with the tests it failed or was advisory in', async () => {
    const { printVerdict } = await import('../../src/app/print.ts');
    const adv: TestResultRecord = {
      ...test('BAL-003 available is total minus held', 'advisory', 'BAL-003'),
      ids: ['BAL-003', 'LEDGER-002'],
      violations: [
        { id: 'BAL-003', level: 'implied', severity: 'advisory', message: 'x', count: 1 },
        { id: 'LEDGER-002', level: 'implied', severity: 'advisory', message: 'y', count: 1 },
      ],
    };
    const lines: string[] = [];
    printVerdict(summary('staging', [adv, test('HEALTH-001 ok', 'passed')]), [], '/tmp/r', (l) =>
      lines.push(l),
    );
    expect(lines).toContain('  tests: passed 1, failed 0, advisory 1, not run 0, harness errors 0');
    expect(lines).toContain('  2 requirements advisory (×: in how many tests): BAL-003×1, LEDGER-002×1');
  });
});
