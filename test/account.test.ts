/**
 * Acceptance tests of a run on a real account (issue 12): the default budget and how it is changed,
 * a budget of 0, bad budgets, a primary account of 50 points (variant account-runs-out) that the run
 * plans within, and the same account drained by another client mid-run, so that the run's jobs wait
 * for points (settlement_pending) and hold their inputs: the run stops billable work and ends bounded,
 * the held inputs listed as left behind with the job holding them. Each runs the real CLI.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkgPath } from '../src/paths.ts';
import { incompleteness } from '../src/report/bundle.ts';
import type { Summary } from '../src/report/summary.ts';
import { PROMPT as STATEFUL_PROMPT } from '../src/stateful/commands/create-job.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import { type RefTarget, refTarget, targetArgs } from '../tools/ref-target.ts';
import { runCli } from './helpers.ts';

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
const tmp = (name: string) => join(mkdtempSync(join(tmpdir(), 'gc-account-')), name);
const BALANCE_OUT = /^the account's balance ran out/;
/** The cleanup bound of the reference targets (50 ms polls): cleanupBoundMs gives its 10 s floor. */
const CLEANUP_BOUND_MS = 10_000;

/** Billable POSTs the run sent (exchanges.ndjson). */
const billablePosts = (dir: string) =>
  readFileSync(join(dir, 'exchanges.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method: string; path: string })
    .filter((e) => e.method === 'POST' && /^\/v1\/(chat|responses|embeddings|media\/jobs)/.test(e.path));

describe('budget flags', { timeout: HANG_BOUND_MS }, () => {
  const key = { CONFORMANCE_API_KEY: 'sk-not-used-0123456789' };
  const offline = ['--base-url', 'http://127.0.0.1:9', '--allow', 'all', '--dry-run', '--quiet'];

  it.for([
    [['--budget-points', '-1'], /--budget-points: '-1' is negative/],
    [['--budget-points=-1'], /--budget-points: '-1' is negative/],
    [['--budget-points', '-0.5'], /--budget-points: '-0.5' is negative/],
    [['--budget-points', 'lots'], /--budget-points: 'lots' is not a number of points/],
    [['--budget-points', '1e3'], /--budget-points: '1e3' is not a number of points/],
  ] as const)('%s is a usage error saying what is wrong (exit 2)', async ([args, message]) => {
    const run = await runCli([...offline, ...args], key);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/ambiguous|\n\s+at /);
  });

  it('a bad CONFORMANCE_BUDGET_POINTS or budget_points is a usage error too', async () => {
    const env = await runCli(offline, { ...key, CONFORMANCE_BUDGET_POINTS: '-3' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/CONFORMANCE_BUDGET_POINTS: '-3' is negative/);
    const file = tmp('targets.yaml');
    writeFileSync(
      file,
      'targets:\n  - name: t\n    base_url: http://127.0.0.1:9\n    keys: { primary: K }\n    budget_points: many\n',
    );
    const bad = await runCli(['--targets', file, '--dry-run', '--quiet'], { K: 'sk-not-used-0123456789' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/target 't': budget_points: 'many' is not a number of points/);
    writeFileSync(
      file,
      'targets:\n  - name: t\n    base_url: http://127.0.0.1:9\n    keys: { primary: K }\n    budget_points: -1\n',
    );
    const negative = await runCli(['--targets', file, '--dry-run', '--quiet'], {
      K: 'sk-not-used-0123456789',
    });
    expect(negative.code).toBe(2);
    expect(negative.stderr).toMatch(/line 5, \/targets\/0\/budget_points/);
  });
});

describe('a run on a real account', { timeout: HANG_BOUND_MS }, () => {
  let ref: RefTarget;
  beforeAll(async () => {
    ref = await refTarget({ variant: 'account-runs-out' });
  });
  afterAll(async () => {
    await ref.close();
  });

  it('a real target gets the default budget, said in the first lines with how to change it', async () => {
    const dir = tmp('default');
    const run = await runCli(['--suite', 'health', '--report-dir', dir], {
      CONFORMANCE_BASE_URL: ref.url,
      CONFORMANCE_API_KEY: ref.keys.primary,
      CONFORMANCE_ALLOW: 'all',
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const first = run.stdout.split('\n').slice(0, 3).join('\n');
    expect(first).toContain('points budget: 100 points for billable tests (the default for a real target)');
    expect(first).toContain('--budget-points N, CONFORMANCE_BUDGET_POINTS or budget_points');
    expect(first).toMatch(
      /balance: the primary account has 50 points available, less than the budget of 100/,
    );
    expect(summaryOf(dir).points?.budget).toBe('50');
  });

  it('--budget-points 0 runs only the free tests', async () => {
    const dir = tmp('zero');
    const run = await runCli(
      [...targetArgs(ref), '--budget-points', '0', '--suite', 'media/lifecycle,health', '--report-dir', dir],
      ref.env,
    );
    // A budget of 0 is a choice (free tests only), not a cut: a selection that passed says PARTIAL.
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^VERDICT: PARTIAL \(/m);
    const s = summaryOf(dir);
    const billable = s.tests.filter((t) => t.effect === 'billable');
    expect(billable.length).toBeGreaterThan(0);
    for (const t of billable) {
      expect(t.outcome).toBe('not_run');
      expect(t.reason).toMatch(/points budget of 0 \(--budget-points\): billable tests are not run/);
      expect(t.unpaid).toBe(true);
    }
    // A run cut by its budget certifies nothing (verify: incomplete).
    expect(incompleteness(s).join('\n')).toMatch(/billable test\(s\) not run for want of points/);
    expect(s.tests.filter((t) => t.effect !== 'billable' && t.outcome === 'passed').length).toBeGreaterThan(
      0,
    );
    expect(billablePosts(dir)).toEqual([]);
  });

  it('an account of 50 points: the run plans within them and ends bounded, the rest not run for the balance', async () => {
    const dir = tmp('fifty');
    const started = Date.now();
    const run = await runCli([...targetArgs(ref), '--report-dir', dir, '--quiet'], ref.env);
    const wallMs = Date.now() - started;
    const s = summaryOf(dir);
    // Cut short by the balance: INCOMPLETE (exit 4), never PASSED.
    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.stdout).toMatch(/^VERDICT: INCOMPLETE \(/m);
    expect([s.verdict, s.cut?.kind]).toEqual(['incomplete', 'balance']);
    expect(s.counts.failed).toBe(0);
    // Not run for want of the account's points: the balance ran out, or admission kept what is left of
    // the 50 (for the first jobs of models not bought yet, or a predicted hold it cannot pay).
    const out = s.tests.filter(
      (t) => BALANCE_OUT.test(t.reason ?? '') || /^points budget: .* of 50 /.test(t.reason ?? ''),
    );
    expect(out.length, 'billable tests not run for the balance').toBeGreaterThan(10);
    for (const t of out) expect([t.effect, t.unpaid]).toEqual(['billable', true]);
    expect(incompleteness(s).join('\n')).toMatch(/not run for want of points/);
    expect(s.points?.budget).toBe('50');
    // Bounded: it ended by itself (exit 4 above, not runCli's kill); the wall time is a figure.
    console.log(`50-point run: ${(wallMs / 1000).toFixed(1)} s wall, ${s.points?.spent} points spent`);
  });

  // The refusal's status is not stated ("the code of an insufficient-balance refusal is not shown"): the
  // reference's 429, and the 403 of an account policy ("403 | account, model or call policy forbids").
  it.for([
    ['account-runs-out', 429],
    ['runs-out-refused-403', 403],
  ] as const)(
    'a billable refusal (%s: %i) with nothing available stops billable work: the rest not run, nothing failed',
    async ([variant, status]) => {
      // Spent before the run, and no balance read in preflight (read not allowed): the first chat is
      // refused, and the balance read that follows shows nothing left.
      const ref = await refTarget({ variant });
      try {
        ref.spendAll();
        const dir = tmp('refused');
        const run = await runCli(
          [
            ...targetArgs(ref),
            '--allow',
            'write,billable',
            '--suite',
            'chat',
            '--report-dir',
            dir,
            '--quiet',
          ],
          ref.env,
        );
        const s = summaryOf(dir);
        expect(run.code, run.stdout + run.stderr).toBe(4);
        expect([s.verdict, s.cut?.kind]).toEqual(['incomplete', 'balance']);
        expect(s.counts.failed).toBe(0);
        expect(s.points?.balanceRanOut).toMatch(
          new RegExp(
            `^the account's balance ran out: POST /v1/chat/completions answered ${status} with 0 points available`,
          ),
        );
        const out = s.tests.filter((t) => BALANCE_OUT.test(t.reason ?? ''));
        expect(out.length).toBeGreaterThan(3);
        expect(s.points?.spent).toBe('0');
      } finally {
        await ref.close();
      }
    },
  );

  it('an account drained mid-run by another client: billable work stops, held inputs are left behind with their holder, within the cleanup bound', async () => {
    // A fresh account of 50 points, which another user of the account spends at the moment the first
    // job the reference accepted that references inputs places its hold: that job waits for points
    // (settlement_pending) and holds its inputs, whatever the run measured of the balance before.
    let drained = false;
    const ref = await refTarget({
      variant: 'account-runs-out',
      beforeHold: (job, handle) => {
        // A job of the media tests that will succeed (not one a test prompt makes fail or uncertain) and
        // references inputs; not one of the model-based runs (their own prompt), which track their inputs
        // through their own commands rather than leaving them to the test's cleanup.
        if (drained || job.references === 0 || job.fails || job.uncertain || job.prompt === STATEFUL_PROMPT)
          return;
        drained = true;
        handle.spendAll('primary');
      },
    });
    try {
      await drainedRun(ref);
      expect(drained).toBe(true);
    } finally {
      await ref.close();
    }
  });
});

/** The run, with another client spending the account's points (the caller's reference does it). */
async function drainedRun(ref: RefTarget): Promise<void> {
  const dir = tmp('drained');
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [pkgPath('bin', 'gateway-conformance.mjs'), ...targetArgs(ref), '--report-dir', dir],
    {
      env: { ...process.env, ...ref.env },
      cwd: pkgPath(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const kill = setTimeout(() => child.kill('SIGKILL'), HANG_BOUND_MS);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(kill);
  const wallMs = Date.now() - started;
  const s = summaryOf(dir);
  const failed = s.tests.filter((t) => t.outcome === 'failed');
  // The balance ran out: INCOMPLETE (exit 4), with nothing failed.
  expect(code, `${stderr}\nfailed: ${JSON.stringify(failed.map((t) => [t.title, t.violations]))}`).toBe(4);
  // Ran out as the job's settlement_pending showed it, or as the balance read after it measured it (the
  // budget of a run is the account's available points).
  expect(s.cut?.kind, JSON.stringify(s.cut)).toBe('balance');
  const out = s.tests.filter((t) => BALANCE_OUT.test(t.reason ?? ''));
  expect(out.length).toBeGreaterThan(10);
  for (const t of out) expect(t.outcome).toBe('not_run');
  expect(stdout).toMatch(/the account's balance ran out.*: billable work stopped there/);
  // Held inputs: left behind with the job that holds them, its status and the time; never waited for long.
  const held = (s.cleanup.details ?? []).filter((l) => l.holder?.status === 'settlement_pending');
  expect(held.length, JSON.stringify(s.cleanup)).toBeGreaterThan(0);
  for (const l of held) {
    expect(l.item).toMatch(/^media input /);
    expect(l.holder?.job).toMatch(/\S/);
    expect(Number.isNaN(Date.parse(l.at))).toBe(false);
  }
  expect(stdout).toMatch(/left behind: media input \S+ .*\(job \S+, settlement_pending\)/);
  const slowest = Math.max(
    ...s.tests.filter((t) => t.cleanup?.leftBehind?.some((l) => l.holder)).map((t) => t.cleanup?.ms ?? 0),
  );
  console.log(
    `drained run: ${(wallMs / 1000).toFixed(1)} s wall; slowest cleanup with a held input ${slowest} ms (bound ${CLEANUP_BOUND_MS} ms); ${held.length} inputs left behind held by settlement_pending jobs`,
  );
  // Never waited for long: each held input was left at once for its settlement_pending holder, none at
  // the cleanup's time bound (its duration above is a figure: it follows the machine's load).
  for (const l of held) expect(l.bound, JSON.stringify(l)).toBeUndefined();
}
