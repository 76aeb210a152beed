import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import { verifyBundle } from '../../src/report/bundle.ts';
import { aggregate, type Summary } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import { writeReport } from '../../src/report/write.ts';

const KEY = 'sk-writer-secret-0123456789';

function summaryWith(tests: TestResultRecord[], harnessErrors: string[]): Summary {
  return {
    suite: { name: 'gateway-conformance', version: '0.0.0-test' },
    target: {
      name: 't',
      baseUrl: 'http://127.0.0.1:9',
      embedded: false,
      allow: ['read'],
      roles: [],
      models: {},
    },
    strict: false,
    seed: 1,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    openapi: { valid: false, errors: ['not fetched'] },
    ...aggregate(tests, harnessErrors),
    exchanges: { file: 'exchanges.ndjson', count: 0 },
    tests,
    dryRun: true,
  };
}

describe('the one writer of a report directory (src/report/write.ts)', () => {
  it('keeps the harness errors, writes every report file, redacts all of them, then the manifest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-write-'));
    // A data file written before the writer (as the run writes its exchange log): redacted too.
    writeFileSync(join(dir, 'exchanges.ndjson'), `{"id":"e1","note":"${KEY}"}\n`);
    const test: TestResultRecord = {
      title: `HEALTH-001 echoes ${KEY}`,
      file: 'suites/x.test.ts',
      ids: ['HEALTH-001'],
      outcome: 'failed',
      durationMs: 1,
      violations: [
        { id: 'HEALTH-001', level: 'failure', severity: 'failure', message: `got ${KEY}`, count: 1 },
      ],
      exchanges: [],
      exchangeCount: 0,
    };
    const harnessErrors = [`suites/x.test.ts: collection failed near ${KEY}`];
    const summary = summaryWith([test], harnessErrors);
    summary.target.models = { chat: KEY };
    writeReport(dir, summary, harnessErrors, new Redactor({ primary: KEY }));

    expect(readdirSync(dir).sort()).toEqual([
      'exchanges.ndjson',
      'junit.xml',
      'manifest.json',
      'report.html',
      'report.sarif',
      'requirements.junit.xml',
      'summary.json',
      'summary.md',
    ]);
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain(KEY);
    const stored = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(stored.harnessErrors).toEqual(['suites/x.test.ts: collection failed near [REDACTED:primary]']);
    expect(stored.verdict).toBe('harness_error');
    expect(stored.target.models.chat).toBe('[REDACTED:primary]');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('collection failed near [REDACTED');
    // The manifest hashes the files as redacted: the directory verifies intact.
    expect(verifyBundle(dir).intact).toBe(true);
  });
});

describe('junit.xml tells a dashboard what the exit code tells CI', () => {
  const rec = (title: string, extra: Partial<TestResultRecord>): TestResultRecord => ({
    title,
    file: 'suites/x.test.ts',
    ids: ['HEALTH-001'],
    outcome: 'not_run',
    durationMs: 0,
    violations: [],
    exchanges: [],
    exchangeCount: 0,
    ...extra,
  });
  const tests = [
    rec('HEALTH-001 passes', { outcome: 'passed' }),
    rec('HEALTH-001 stopped', { reason: 'SIGINT', cause: { kind: 'stopped', subject: 'SIGINT' } }),
    rec('HEALTH-001 never reached', { reason: 'skipped' }),
    rec('HEALTH-001 billable', {
      reason: "side-effect class 'billable' is not allowed",
      cause: { kind: 'class', subject: 'billable' },
    }),
  ];
  const attrs = (xml: string) =>
    /<testsuites tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/
      .exec(xml)!
      .slice(1)
      .map(Number);

  it('a run cut short: the tests it did not reach are errors, the ones it chose not to run skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-junit-'));
    writeFileSync(join(dir, 'exchanges.ndjson'), '');
    const s = summaryWith(tests, []);
    s.cut = { kind: 'signal', reason: 'stopped by SIGINT' };
    writeReport(dir, s, []);
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    // tests, failures, errors, skipped: as many tests as the console counts, and red.
    expect(attrs(junit)).toEqual([4, 0, 2, 1]);
    expect(junit).toContain('type="incomplete"');
    expect(junit).toContain('not reached: the run was cut short (stopped by SIGINT)');
    const reqs = readFileSync(join(dir, 'requirements.junit.xml'), 'utf8');
    expect(reqs).toContain('<testsuite name="requirements"');
  });

  it('an inconclusive test is an error of its own type in both files; one the expectations allow stays skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-junit-'));
    writeFileSync(join(dir, 'exchanges.ndjson'), '');
    const inconclusive = [
      rec('HEALTH-001 passes', { outcome: 'passed' }),
      rec('MODELS-001 reset twice', { ids: ['MODELS-001'], outcome: 'inconclusive', reason: 'reset twice' }),
      rec('MODELS-002 allowed', {
        ids: ['MODELS-002'],
        outcome: 'inconclusive',
        reason: 'reset twice',
        flaky: 'a known flake',
      }),
    ];
    writeReport(dir, summaryWith(inconclusive, []), []);
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(attrs(junit)).toEqual([3, 0, 1, 1]);
    expect(junit).toContain('type="inconclusive"');
    const reqs = readFileSync(join(dir, 'requirements.junit.xml'), 'utf8');
    expect(reqs).toMatch(
      /name="MODELS-001"[^>]*>\s*<error message="MODELS-001 is inconclusive" type="inconclusive"/,
    );
    expect(reqs).toMatch(/name="MODELS-002"[^>]*>\s*<skipped/);
  });

  it('a run cut short: a requirement whose tests it did not reach is an error in requirements.junit.xml too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-junit-'));
    writeFileSync(join(dir, 'exchanges.ndjson'), '');
    const cutRun = [
      rec('HEALTH-001 passes', { outcome: 'passed' }),
      rec('MODELS-001 stopped', {
        ids: ['MODELS-001'],
        reason: 'SIGINT',
        cause: { kind: 'stopped', subject: 'SIGINT' },
      }),
      rec('BAL-001 chose not to', {
        ids: ['BAL-001'],
        reason: "side-effect class 'billable' is not allowed",
        cause: { kind: 'class', subject: 'billable' },
      }),
    ];
    const s = summaryWith(cutRun, []);
    s.cut = { kind: 'signal', reason: 'stopped by SIGINT' };
    writeReport(dir, s, []);
    const reqs = readFileSync(join(dir, 'requirements.junit.xml'), 'utf8');
    expect(reqs).toMatch(
      /name="MODELS-001"[^>]*>\s*<error message="not reached: the run was cut short \(stopped by SIGINT\)/,
    );
    expect(reqs).toMatch(/name="BAL-001"[^>]*>\s*<skipped/);
    expect(attrs(reqs)[2]).toBeGreaterThanOrEqual(1);
  });

  it('a complete run: tests not run for their own reasons stay skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-junit-'));
    writeFileSync(join(dir, 'exchanges.ndjson'), '');
    writeReport(dir, summaryWith(tests, []), []);
    expect(attrs(readFileSync(join(dir, 'junit.xml'), 'utf8'))).toEqual([4, 0, 0, 3]);
  });
});
