/**
 * bench/standard.ts: the wall time of a full `standard` profile run of the real CLI against the
 * embedded reference (what a user gets from `npm run conformance`), repeated --reps times.
 *
 *   node --import tsx bench/standard.ts [--reps 3] [--profile standard] [--concurrency N]
 *
 * Reports min/median wall time (process start to exit: tsx, vitest start-up, the embedded
 * reference, the run, the report), the run's own durationMs, tests, exchanges and exchanges per
 * wall second, and the CPU time of each repetition (user + system of the CLI and its threads):
 * on a machine others share, wall time swings with their load while CPU time barely does.
 * Target (issue 12, item 7): a median of 10 s or less on the 2-core machine, quiet. The first
 * repetition after a change of the suite's sources fills vitest's module cache (see src/app/suites.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { intFlag, median, readSummary, round, spawnNode, tail, warnIfBusy, writeResult } from './lib.ts';

const TARGET_MS = 10_000;

const { values } = parseArgs({
  options: {
    reps: { type: 'string' },
    profile: { type: 'string' },
    concurrency: { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log('node --import tsx bench/standard.ts [--reps 3] [--profile standard] [--concurrency N]');
  process.exit(0);
}
warnIfBusy();
const reps = intFlag(values.reps, '--reps', 3, 1, 50);
const profile = values.profile ?? 'standard';
const concurrency =
  values.concurrency === undefined ? undefined : intFlag(values.concurrency, '--concurrency', 2, 1, 64);

interface Rep {
  rep: number;
  wallMs: number;
  /** User + system CPU time of the CLI process and its threads. */
  cpuMs?: number;
  runDurationMs?: number;
  exitCode: number | null;
  verdict?: string;
  tests?: number;
  exchanges?: number;
  exchangesPerSecond?: number;
  error?: string;
}

let withProfile = true;
const runs: Rep[] = [];
for (let rep = 1; rep <= reps; rep++) {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-standard-'));
  const report = join(dir, 'report');
  const args = ['--quiet', '--report-dir', report];
  if (concurrency !== undefined) args.push('--concurrency', String(concurrency));
  let run = await spawnNode(
    'bin/gateway-conformance.mjs',
    withProfile ? [...args, '--profile', profile] : args,
    {
      cpu: true,
    },
  );
  if (withProfile && run.code === 2 && /profile/i.test(run.stderr)) {
    // An older CLI without --profile: its only profile is the standard one.
    console.log('  (the CLI refuses --profile: running without it)');
    withProfile = false;
    run = await spawnNode('bin/gateway-conformance.mjs', args, { cpu: true });
  }
  const r: Rep = {
    rep,
    wallMs: Math.round(run.wallMs),
    ...(run.cpuMs !== undefined ? { cpuMs: run.cpuMs } : {}),
    exitCode: run.code,
  };
  try {
    const s = readSummary(report);
    r.runDurationMs = s.durationMs;
    r.verdict = s.verdict;
    r.tests = s.counts.total;
    r.exchanges = s.exchanges.count;
    r.exchangesPerSecond = round(s.exchanges.count / (run.wallMs / 1000));
  } catch {
    r.error = `no summary (exit ${run.code}): ${tail(run)}`;
  }
  runs.push(r);
  console.log(
    r.error
      ? `  rep ${rep}: ERROR ${r.error}`
      : `  rep ${rep}: ${(r.wallMs / 1000).toFixed(1)} s wall, ${r.cpuMs === undefined ? '?' : (r.cpuMs / 1000).toFixed(1)} s CPU (run ${((r.runDurationMs ?? 0) / 1000).toFixed(1)} s), ${r.tests} tests, ${r.exchanges} exchanges, ${r.exchangesPerSecond} req/s, ${r.verdict}`,
  );
  rmSync(dir, { recursive: true, force: true });
}

const ok = runs.filter((r) => !r.error);
const walls = ok.map((r) => r.wallMs);
const result = {
  profile: withProfile ? profile : '(none: --profile not accepted)',
  concurrency: concurrency ?? 'default',
  reps,
  targetMs: TARGET_MS,
  wallMs: { min: Math.min(...walls), median: median(walls), max: Math.max(...walls) },
  cpuMs: { median: median(ok.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs]))) },
  runDurationMs: { median: median(ok.map((r) => r.runDurationMs ?? 0)) },
  tests: ok[0]?.tests,
  /** Median over the reps (randomised sequences make the count vary a little). */
  exchanges: median(ok.map((r) => r.exchanges ?? 0)),
  exchangesRange: [
    Math.min(...ok.map((r) => r.exchanges ?? 0)),
    Math.max(...ok.map((r) => r.exchanges ?? 0)),
  ],
  exchangesPerSecond: { median: median(ok.map((r) => r.exchangesPerSecond ?? 0)) },
  withinTarget: ok.length > 0 && median(walls) <= TARGET_MS,
  runs,
};
const file = writeResult('standard', result);
if (ok.length === 0) {
  console.log(`standard: every repetition failed; see ${file}`);
  process.exitCode = 1;
} else {
  console.log(
    `standard (${result.profile}): wall min ${(result.wallMs.min / 1000).toFixed(1)} s, median ${(result.wallMs.median / 1000).toFixed(1)} s over ${ok.length}/${reps} reps (target <= ${TARGET_MS / 1000} s: ${result.withinTarget ? 'met' : 'MISSED'}), CPU median ${(result.cpuMs.median / 1000).toFixed(1)} s; ${result.tests} tests, ${result.exchanges} exchanges (median; ${result.exchangesRange.join(' to ')}), ${result.exchangesPerSecond.median} req/s`,
  );
  console.log(`result: ${file}`);
}
