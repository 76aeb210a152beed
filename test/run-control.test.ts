// @conformance start-early 3
/**
 * Acceptance tests of how a run is controlled: dry run, points budget, deadline, Ctrl-C, profiles,
 * expectations, shards with merge, the certification bundle and `verify`, and description drift. Each
 * runs the real CLI in a child process against the reference.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../src/catalogue.ts';
import { CONTRACT_PATH, fold } from '../src/contract.ts';
import { pkgPath } from '../src/paths.ts';
import type { SarifLog } from '../src/report/sarif.ts';
import type { StoredSummary, Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import { type RefTarget, refTarget, targetArgs } from '../tools/ref-target.ts';
import { runCli } from './helpers.ts';
import { sarifErrors } from './support/sarif-schema.ts';

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
/** A report's report.sarif, checked against the SARIF 2.1.0 schema of the standard. */
const sarifOf = (dir: string): SarifLog['runs'][0] => {
  const doc = JSON.parse(readFileSync(join(dir, 'report.sarif'), 'utf8')) as SarifLog;
  expect(sarifErrors(doc), `${dir}/report.sarif`).toEqual([]);
  return doc.runs[0];
};
/** The line of the contract where a requirement's words stand, found without the suite's locator. */
const lineOfWords = (id: string): number =>
  readFileSync(CONTRACT_PATH, 'utf8')
    .split('\n')
    .findIndex((l) => fold(l).includes(fold(catalogue().get(id)!.words))) + 1;
const tmp = (name: string) => join(mkdtempSync(join(tmpdir(), 'gc-control-')), name);

describe('run control', { timeout: HANG_BOUND_MS }, () => {
  let ref: RefTarget;
  beforeAll(async () => {
    ref = await refTarget();
  });
  afterAll(async () => {
    await ref.close();
  });

  it('--dry-run lists the plan and sends no request (an unreachable URL is fine)', async () => {
    const dir = tmp('dry');
    const run = await runCli(
      ['--base-url', 'http://127.0.0.1:9', '--allow', 'read,write', '--dry-run', '--report-dir', dir],
      { CONFORMANCE_API_KEY: 'sk-not-used-0123456789' },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('DRY RUN');
    expect(run.stdout).toMatch(/would run \d+ of \d+ tests/);
    // One line per cause, largest first, with what runs them (as the real run prints them).
    const wouldNot = [...run.stdout.matchAll(/would not run \((\d+)\): (.*)/g)];
    expect(wouldNot.length).toBeGreaterThan(0);
    const counts = wouldNot.map((m) => Number(m[1]));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(run.stdout).toMatch(
      /would not run \(\d+\): side-effect class 'billable' is not allowed.* — to run: allow it with --allow/,
    );
    const s = summaryOf(dir);
    expect(s.dryRun).toBe(true);
    expect(s.exchanges.count).toBe(0);
    const planned = s.tests.filter((t) => t.planned);
    expect(planned.length).toBeGreaterThan(100);
    expect(planned.every((t) => t.effect === 'read' || t.effect === 'write')).toBe(true);
    const billable = s.tests.filter((t) => t.effect === 'billable');
    expect(billable.length).toBeGreaterThan(10);
    for (const t of billable) expect(t.reason).toMatch(/side-effect class 'billable' is not allowed/);
    expect(s.skippedByClass?.billable).toBe(billable.length);
  });

  it('--dry-run estimates the billable requests by model on the embedded reference, never on the target', async () => {
    const dir = tmp('dry-billable');
    const run = await runCli(
      [
        '--base-url',
        'http://127.0.0.1:9',
        '--allow',
        'all',
        '--dry-run',
        '--filter',
        'MJOB-020',
        '--budget-points',
        '5',
        '--report-dir',
        dir,
      ],
      // A key value that reaches the summary (here as a model hint) is redacted there too.
      { CONFORMANCE_API_KEY: 'sk-not-used-0123456789', CONFORMANCE_MODEL_CHAT: 'sk-not-used-0123456789' },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/billable requests the plan would make: \d+/);
    // The minute it takes to price the plan is announced first, not silent.
    expect(run.stdout.indexOf('… pricing the plan: its ')).toBeGreaterThan(-1);
    expect(run.stdout.indexOf('… pricing the plan: its ')).toBeLessThan(
      run.stdout.indexOf('billable requests the plan'),
    );
    // The plan goes through the run's one writer (src/report/write.ts): harness errors kept beside the
    // summary, the final redaction pass applied, the manifest written over the finished directory.
    const stored = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(stored.harnessErrors).toEqual([]);
    expect(stored.target.models.chat).toBe('[REDACTED:primary]');
    for (const f of ['summary.json', 'junit.xml', 'report.html', 'manifest.json'])
      expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain('sk-not-used-0123456789');
    expect(readdirSync(dir)).not.toContain('.plan');
    expect(run.stdout).toMatch(/media acceptance \(covering design, profile standard\): \d+ billable jobs/);
    const s = summaryOf(dir);
    expect(s.exchanges.count).toBe(0);
    expect(s.plan?.totalRequests).toBeGreaterThan(0);
    expect(s.plan?.billable.map((b) => b.model)).toContain('wc-100010');
    expect(s.plan?.billable.map((b) => b.model)).not.toContain('(unknown model)');
    expect(Number(s.plan?.totalPoints)).toBeGreaterThan(5);
    // The plan's points set beside the budget, with the budget that would run it all.
    expect(s.plan?.budget).toEqual({ points: '5', source: '--budget-points' });
    expect(run.stdout).toContain(
      'the points budget of 5 (--budget-points) is less: billable tests would stop there',
    );
    expect(run.stdout).toContain(
      `--budget-points ${Math.ceil(Number(s.plan?.totalPoints))} or more runs them all`,
    );
  });

  it('--budget-points stops billable tests before the reported spend passes the budget', async () => {
    const dir = tmp('budget');
    const run = await runCli(
      [...targetArgs(ref), '--budget-points', '1', '--filter', 'MJOB-020', '--report-dir', dir, '--quiet'],
      ref.env,
    );
    // Cut short by the budget: INCOMPLETE (exit 4), never PASSED.
    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.stdout).toMatch(
      /^VERDICT: INCOMPLETE \(\d+ billable tests? not run: the points budget of 1 ran out/m,
    );
    const s = summaryOf(dir);
    expect([s.verdict, s.cut?.kind]).toEqual(['incomplete', 'budget']);
    // Stopped at the budget, or before it by a reserve (src/runtime/budget.ts admission): what is left is
    // kept for refusals and cheaper first jobs.
    const budgetStopped = s.tests.filter((t) => /^points budget/.test(t.reason ?? ''));
    const ran = s.tests.filter((t) => t.effect === 'billable' && t.outcome === 'passed');
    expect(budgetStopped.length, 'some billable tests stopped for budget').toBeGreaterThan(0);
    expect(ran.length, 'the first billable tests ran').toBeGreaterThan(0);
    // The first job (0.75) is bought; no job starts that the budget cannot hold beside it.
    expect(Number(s.points?.spent)).toBeGreaterThanOrEqual(0.75);
    expect(Number(s.points?.spent)).toBeLessThanOrEqual(1);
    expect(s.points?.budget).toBe('1');
    // a stopped test is never a pass
    for (const t of budgetStopped) expect(t.outcome).toBe('not_run');
  });

  it('--deadline stops the run bounded, reports it incomplete and cleans up', async () => {
    const dir = tmp('deadline');
    // Counted from the command's start (the preflight and vitest's start included). Bounded: it ends by
    // itself with exit 4 (below), not at runCli's kill.
    const run = await runCli([...targetArgs(ref), '--deadline', '5', '--report-dir', dir], ref.env);
    const s = summaryOf(dir);
    expect(s.interrupted).toMatch(/run deadline of 5 s reached/);
    // Cut by its deadline: INCOMPLETE with its own exit code, never PASSED, the verdict last.
    expect(run.code, run.stdout.slice(-2000)).toBe(4);
    expect(run.stdout).not.toContain('PASSED');
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(
      /^VERDICT: INCOMPLETE \(run deadline of 5 s reached; \d+ of \d+ tests judged/,
    );
    expect([s.verdict, s.cut?.kind]).toEqual(['incomplete', 'deadline']);
    // report.sarif says it too: the execution did not succeed, and why.
    const inv = sarifOf(dir).invocations[0];
    expect(inv).toMatchObject({ executionSuccessful: false, exitCode: 4 });
    expect(inv.toolExecutionNotifications.map((n) => n.message.text).join('\n')).toContain(
      'run deadline of 5 s reached',
    );
    // The tests the deadline cut say so and are not run (how many, or whether vitest had collected them
    // at all, depends on the machine's speed: the verdict line above counts what was judged).
    const stopped = s.tests.filter((t) => /run deadline/.test(t.reason ?? ''));
    for (const t of stopped) expect(t.outcome, t.title).toBe('not_run');
    expect(s.cleanup.leftBehind).toEqual([]);
  });

  it('Ctrl-C: the run stops, cleans up, writes its report and exits 130', async () => {
    const dir = tmp('sigint');
    const child = spawn(
      process.execPath,
      [pkgPath('bin', 'gateway-conformance.mjs'), ...targetArgs(ref), '--report-dir', dir, '--quiet'],
      { env: { ...process.env, ...ref.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // Tests are running (an exchange of a test, not of the preflight, is logged), whatever the machine's
    // speed; then the signal. Exit 130 below (not the run's normal 0 or 1) proves that it stopped the run.
    const log = join(dir, 'exchanges.ndjson');
    const testsRunning = () => {
      try {
        return readFileSync(log, 'utf8')
          .split('\n')
          .some((l) => l.startsWith('{') && !l.includes('"test":"preflight"'));
      } catch {
        return false;
      }
    };
    await expect.poll(testsRunning, { timeout: HANG_BOUND_MS, interval: 100 }).toBe(true);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('close', r));
    const s = summaryOf(dir);
    const failed = s.tests.filter((t) => t.outcome === 'failed');
    expect(code, `${stderr}\nfailed: ${JSON.stringify(failed.map((t) => [t.title, t.violations]))}`).toBe(
      130,
    );
    expect(stderr).toContain('stopping after cleanup');
    expect(s.interrupted).toBe('interrupted by SIGINT');
    expect([s.verdict, s.cut?.kind]).toEqual(['incomplete', 'signal']);
    expect(s.tests.some((t) => /interrupted by SIGINT/.test(t.reason ?? ''))).toBe(true);
    expect(s.cleanup.leftBehind).toEqual([]);
  });

  it('--profile scales the property runs; an unknown profile is a usage error', async () => {
    const dir = tmp('profile');
    const run = await runCli(
      [...targetArgs(ref), '--profile', 'quick', '--filter', 'HEALTH', '--report-dir', dir, '--quiet'],
      ref.env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(summaryOf(dir).profile).toBe('quick');
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).propertyRuns).toBe(5);
    const bad = await runCli(['--profile', 'fast']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--profile: 'fast' is not one of quick, standard, thorough");
  });

  it('the balance checks run on the isolated account beside the others when the target names one, judged as serially without it', async () => {
    const args = ['--suite', 'points/settlement', '--seed', '7', '--report-dir'];
    const before = ref.trueAvailable();
    const beside = tmp('isolated');
    const a = await runCli([...targetArgs(ref), ...args, beside], ref.env);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(a.stdout).toContain('balance checks: on the isolated account, beside the other files');
    // The primary account paid for none of them: every request of theirs went with the isolated key.
    expect(ref.trueAvailable()).toBe(before);
    const keysOf = (dir: string) => {
      const titles = new Set(summaryOf(dir).tests.map((t) => t.title));
      const lines = readFileSync(join(dir, 'exchanges.ndjson'), 'utf8').split('\n').filter(Boolean);
      const used = lines
        .filter((l) => titles.has((JSON.parse(l) as { test: string }).test))
        .flatMap((l) => [...l.matchAll(/\[REDACTED:(\w+)\]/g)].map((m) => m[1]));
      return [...new Set(used)];
    };
    expect(keysOf(beside)).toEqual(['isolated']);
    // The same target without its isolated key: serial, on the primary account, the same outcomes.
    const targets = tmp('targets.yaml');
    const file = readFileSync(ref.targetsFile, 'utf8');
    writeFileSync(targets, file.replace(/^ +isolated: REF_KEY_ISOLATED\n/m, ''));
    const serial = tmp('serial');
    const b = await runCli(['--targets', targets, '--target', 'ref', ...args, serial], ref.env);
    expect(b.code, b.stdout + b.stderr).toBe(0);
    expect(b.stdout).toContain('balance checks: serial, after the other files');
    expect(keysOf(serial)).toEqual(['primary']);
    // RSP-090 (a stream whose events all arrived within 1 ms: buffered on the way) is timed on this
    // machine, which a loaded CI runner coalesces: an advisory of it alone is no outcome of the account.
    const outcomes = (dir: string) =>
      Object.fromEntries(
        summaryOf(dir).tests.map((t) => [
          t.title,
          t.outcome === 'advisory' && t.violations.every((v) => v.id === 'RSP-090') ? 'passed' : t.outcome,
        ]),
      );
    expect(Object.keys(outcomes(beside)).length).toBeGreaterThan(5);
    expect(outcomes(beside)).toEqual(outcomes(serial));
  });

  it('a report directory a killed run left its control files in: the next run there starts clean', async () => {
    // What a run killed before its end leaves: its stop request, its HAR entries, a serial file's turn.
    const dir = tmp('reused');
    mkdirSync(join(dir, 'serial-turns'), { recursive: true });
    writeFileSync(join(dir, 'stop-requested'), 'the run was stopped (SIGINT)');
    writeFileSync(join(dir, 'har-entries.ndjson'), '{"stale":"an entry of the killed run"}\n');
    mkdirSync(join(dir, 'serial-turns', 'turn'));
    const har = tmp('reused.har');
    const run = await runCli(
      [...targetArgs(ref), '--suite', 'health', '--har', har, '--report-dir', dir, '--quiet'],
      ref.env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const tests = summaryOf(dir).tests;
    expect(tests.length).toBeGreaterThan(0);
    expect(tests.filter((t) => t.outcome === 'not_run')).toEqual([]);
    expect(readFileSync(har, 'utf8')).not.toContain('an entry of the killed run');
    for (const f of ['stop-requested', 'har-entries.ndjson', 'serial-turns'])
      expect(existsSync(join(dir, f))).toBe(false);
  });

  it('--har: a destination the capture cannot be written to is refused before the run; a write that fails at the end is a harness error beside a complete report', async () => {
    // Refused up front, exit 2, before any request (the run may be long and billable).
    const folder = tmp('har-parent');
    for (const [har, why] of [
      [join(folder, 'missing', 'x.har'), /is not there/],
      [tmpdir(), /it is a directory/],
      [join(pkgPath('package.json'), 'x.har'), /is not a directory/],
    ] as const) {
      const run = await runCli([...targetArgs(ref), '--suite', 'health', '--har', har, '--quiet'], ref.env);
      expect(run.code, har).toBe(2);
      expect(run.stderr, har).toMatch(new RegExp(`--har: cannot write the capture to .*${why.source}`));
    }
    // A write that fails only when it happens (a full disk: /dev/full answers every write with ENOSPC).
    if (!existsSync('/dev/full')) return;
    const dir = tmp('har-full');
    const run = await runCli(
      [...targetArgs(ref), '--suite', 'health', '--har', '/dev/full', '--report-dir', dir, '--quiet'],
      ref.env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(3);
    expect(run.stdout + run.stderr).not.toMatch(/internal error/);
    const summary = summaryOf(dir) as StoredSummary;
    expect(summary.verdict).toBe('harness_error');
    expect((summary.harnessErrors ?? []).join('\n')).toMatch(
      /--har: the capture could not be written to \/dev\/full \(ENOSPC/,
    );
    expect(summary.tests.length).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
  });

  it('the serial files run alone after every other file, one test at a time, in the same worker threads', async () => {
    // Without the isolated key, every serial file runs alone (runtime/turns.ts); stateful/sequences is
    // the longest file of the run and starts first, so a serial file that did not wait would meet it.
    const targets = tmp('targets.yaml');
    writeFileSync(
      targets,
      readFileSync(ref.targetsFile, 'utf8').replace(/^ +isolated: REF_KEY_ISOLATED\n/m, ''),
    );
    const dir = tmp('alone');
    const args = ['--suite', 'points,stateful', '--seed', '7', '--workers', '2', '--report-dir', dir];
    const run = await runCli(['--targets', targets, '--target', 'ref', ...args], ref.env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const summary = summaryOf(dir);
    // A test that started without its file's turn does not run (runtime/define.ts): none may have.
    const withoutTurn = summary.tests
      .filter((t) => /^not run alone/.test(t.reason ?? ''))
      .map((t) => t.title);
    expect(withoutTurn, 'tests of the files that run alone started without their turn').toEqual([]);
    const fileOf = new Map(summary.tests.map((t) => [t.title, t.file]));
    const alone = (title: string) => /\.serial\.test\.ts$/.test(fileOf.get(title) ?? '');
    // Each test's span, from its first exchange's start to its last one's end (with the exchanges that
    // bound it, named in a failure: which request ran past the next test's start).
    const spans = new Map<string, { from: number; to: number; first: string; last: string }>();
    for (const line of readFileSync(join(dir, 'exchanges.ndjson'), 'utf8').split('\n')) {
      if (!line) continue;
      const ex = JSON.parse(line) as {
        test?: string;
        startedAt: string;
        durationMs: number;
        method: string;
        path: string;
      };
      if (!ex.test || !fileOf.has(ex.test)) continue;
      const from = Date.parse(ex.startedAt);
      const what = `${ex.method} ${ex.path} at ${ex.startedAt} for ${ex.durationMs} ms`;
      const span = spans.get(ex.test) ?? { from, to: from, first: what, last: what };
      if (from < span.from) [span.from, span.first] = [from, what];
      if (from + ex.durationMs > span.to) [span.to, span.last] = [from + ex.durationMs, what];
      spans.set(ex.test, span);
    }
    const aloneSpans = [...spans].filter(([t]) => alone(t)).sort((a, b) => a[1].from - b[1].from);
    const files = new Set(aloneSpans.map(([t]) => fileOf.get(t)));
    expect(files.size).toBe(4);
    const othersEnd = Math.max(...[...spans].filter(([t]) => !alone(t)).map(([, s]) => s.to));
    expect(othersEnd).toBeGreaterThan(0);
    for (const [title, span] of aloneSpans)
      expect(span.from, `${title} started before the other files ended`).toBeGreaterThanOrEqual(othersEnd);
    for (let i = 1; i < aloneSpans.length; i++)
      expect(
        aloneSpans[i]![1].from,
        `${aloneSpans[i]![0]} (its first exchange ${aloneSpans[i]![1].first}) overlaps ${aloneSpans[i - 1]![0]} (its last ${aloneSpans[i - 1]![1].last})`,
      ).toBeGreaterThanOrEqual(aloneSpans[i - 1]![1].to);
  });
});

describe('expectations, shards, bundles and drift', { timeout: HANG_BOUND_MS }, () => {
  let faulty: RefTarget;
  beforeAll(async () => {
    faulty = await refTarget({ fault: 'auth-query-key' });
  });
  afterAll(async () => {
    await faulty.close();
  });

  const expectationsFile = (entries: string[]) => {
    const f = tmp('expectations.yaml');
    writeFileSync(f, ['expectations:', ...entries].join('\n'));
    return f;
  };

  it('a listed failure with a future expiry does not fail the run; an expired or stale one does', async () => {
    const args = [...targetArgs(faulty), '--filter', 'AUTH-005|AUTH-003', '--quiet'];
    const listed = await runCli(
      [
        ...args,
        '--report-dir',
        tmp('known'),
        '--expectations',
        expectationsFile([
          '  - id: AUTH-005',
          '    reason: the gateway still reads ?api_key= (ticket SEC-42)',
          '    expires: 2999-12-31',
        ]),
      ],
      faulty.env,
    );
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^VERDICT: PARTIAL \(a selection: --filter /m);

    const expiredDir = tmp('expired');
    const expired = await runCli(
      [
        ...args,
        '--report-dir',
        expiredDir,
        '--expectations',
        expectationsFile(['  - id: AUTH-005', '    reason: old', '    expires: 2020-01-01']),
      ],
      faulty.env,
    );
    expect(expired.code).toBe(1);
    const e = summaryOf(expiredDir);
    expect(e.tests.some((t) => /expired on 2020-01-01/.test(t.title))).toBe(true);
    // The failing run's report.sarif: the seeded fault's requirement at its sentence in the contract, and
    // the expired entry at the expectations file.
    const failing = sarifOf(expiredDir);
    expect(failing.results.map((r) => [r.ruleId, r.level])).toEqual([
      ['AUTH-005', 'error'],
      ['EXPECTATIONS', 'error'],
    ]);
    const [auth, expectations] = failing.results.map((r) => r.locations[0]!.physicalLocation);
    if (existsSync(CONTRACT_PATH)) expect(auth!.region?.startLine).toBe(lineOfWords('AUTH-005'));
    expect(expectations!.artifactLocation.uri).toMatch(/^file:\/\/.*expectations\.yaml$/);
    expect(failing.invocations[0]).toMatchObject({ executionSuccessful: true, exitCode: 1 });

    const staleDir = tmp('stale');
    const stale = await runCli(
      [
        ...args,
        '--report-dir',
        staleDir,
        '--expectations',
        expectationsFile([
          '  - id: AUTH-005',
          '    reason: known',
          '    expires: 2999-12-31',
          '  - id: AUTH-003',
          '    reason: was broken once',
          '    expires: 2999-12-31',
        ]),
      ],
      faulty.env,
    );
    expect(stale.code).toBe(1);
    const st = summaryOf(staleDir);
    expect(st.expectations?.find((x) => x.id === 'AUTH-003')?.status).toBe('stale');
    expect(st.counts.known_failure).toBeGreaterThan(0);

    const bad = await runCli([
      '--expectations',
      expectationsFile(['  - id: NOPE-001', '    reason: xyz', '    expires: 2030-01-01']),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown requirement id NOPE-001');
  });

  it('shards merge into one report that verify accepts as intact; a changed file is caught', async () => {
    const dirs = [tmp('s1'), tmp('s2')];
    for (const [i, d] of dirs.entries()) {
      const r = await runCli(
        [...targetArgs(faulty), '--shard', `${i + 1}/2`, '--filter', 'AUTH-00', '--report-dir', d, '--quiet'],
        faulty.env,
      );
      expect([0, 1]).toContain(r.code);
    }
    const out = tmp('merged');
    const merged = await runCli(['merge', '--report-dir', out, ...dirs]);
    expect(merged.code, merged.stderr).toBe(1); // the fault fails AUTH-005
    const s = summaryOf(out);
    const parts = dirs.map(summaryOf);
    expect(s.counts.total).toBe(parts[0]!.counts.total + parts[1]!.counts.total);
    expect(s.shards).toEqual(['1/2', '2/2']);
    expect(s.failedRequirements['AUTH-005']).toBeGreaterThan(0);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('AUTH-005');
    expect(sarifOf(out).results.map((r) => r.ruleId)).toEqual(['AUTH-005']);

    const v = await runCli(['verify', out]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('files intact as far as the manifest says; the manifest itself is not signed');
    expect(v.stdout).toContain('✗ failed requirements: AUTH-005');
    expect(v.stdout).toContain('incomplete: --filter');
    expect(v.stdout).toMatch(/NOT CERTIFIED: .*the verdict is failed/);

    writeFileSync(join(out, 'junit.xml'), '<testsuites/>');
    const tampered = await runCli(['verify', out]);
    expect(tampered.stdout).toContain('junit.xml does not match its sha256');
    expect(tampered.code).toBe(1);

    // Signed at merge, checked with the public half: only then "unchanged since the run".
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const [priv, pub] = [tmp('sign.pem'), tmp('sign.pub.pem')];
    writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
    const signedOut = tmp('signed');
    expect((await runCli(['merge', '--report-dir', signedOut, '--sign-key', priv, ...dirs])).code).toBe(1);
    const signed = await runCli(['verify', '--public-key', pub, signedOut]);
    expect(signed.stdout).toMatch(/files unchanged since the run: the manifest is signed by key/);
    writeFileSync(join(signedOut, 'junit.xml'), '<testsuites/>');
    expect((await runCli(['verify', '--public-key', pub, signedOut])).stdout).toContain(
      'junit.xml does not match',
    );
    expect((await runCli(['verify', '--sign-key', priv, signedOut])).code).toBe(2);

    const bad = await runCli(['merge', '--report-dir', tmp('x'), dirs[0]!, dirs[0]!]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('shard 1/2 appears twice');
  });

  it('--drift-against lists breaking changes of the live description', async () => {
    const runs = tmp('runs');
    const first = join(runs, 'd1');
    const one = await runCli(
      [...targetArgs(faulty), '--filter', 'HEALTH', '--report-dir', first, '--quiet'],
      faulty.env,
    );
    expect([0, 1], one.stdout + one.stderr).toContain(one.code);
    const pinned = JSON.parse(readFileSync(join(first, 'openapi.json'), 'utf8'));
    // The pinned description had an endpoint the live one lacks: removing it is breaking.
    pinned.paths['/v1/removed-endpoint'] = { get: { responses: { 200: { description: 'ok' } } } };
    const pinnedFile = tmp('pinned.json');
    writeFileSync(pinnedFile, JSON.stringify(pinned));
    const dir = join(runs, 'd2');
    const stepSummary = tmp('step-summary.md');
    const run = await runCli(
      [
        ...targetArgs(faulty),
        '--filter',
        'HEALTH',
        '--report-dir',
        dir,
        '--drift-against',
        pinnedFile,
        '--compare-with',
        'previous',
      ],
      { ...faulty.env, GITHUB_STEP_SUMMARY: stepSummary },
    );
    expect(run.stdout).toContain('BREAKING endpoint-removed');
    // --compare-with previous: the newest other report of the same target beside this one.
    expect(run.stdout).toMatch(/since .*d1 .*: 0 newly failing requirement\(s\); 0 fixed/);
    expect(summaryOf(dir).comparison?.against).toBe(first);
    // Under GitHub Actions the run appends its summary.md to the job summary.
    const md = readFileSync(stepSummary, 'utf8');
    expect(md).toContain('## gateway-conformance: PARTIAL');
    expect(md).toBe(`${readFileSync(join(dir, 'summary.md'), 'utf8')}\n`);
    const s = summaryOf(dir);
    expect(s.drift?.breaking).toBe(1);
    expect(JSON.parse(readFileSync(join(dir, 'drift.json'), 'utf8')).changes).toHaveLength(1);
  });
});
