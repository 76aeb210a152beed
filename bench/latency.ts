/**
 * bench/latency.ts: how well the runner overlaps requests when the target is slow. The reference
 * runs in this process with a fixed delay on every response (startReference({latencyMs})); the real
 * CLI runs against it in a child process through a temporary targets file (as tools/mutation/matrix.ts
 * does), with the target's `concurrency` set from --concurrency.
 *
 *   node --import tsx bench/latency.ts [--concurrency 16] [--latency-ms 100] [--profile standard] [--seed N]
 *   node --import tsx bench/latency.ts --sweep 2,8,16,32
 *   node --import tsx bench/latency.ts --without-isolated   (the targets file names no isolated key)
 *
 * The run's critical path, from summary.json (every test's file and exchangeCount; the requests of a
 * test are sequential) and checked against exchanges.ndjson:
 *   (preflight exchanges + the larger of: the most exchanges of a test in the parallel files, and the
 *    sum of those of the balance checks beside them on the isolated account (one test at a time)
 *    + the sum of exchanges of the tests in the other `*.serial.test.ts` files, alone after the others)
 *   x latency.
 * No schedule can finish sooner. A second lower bound is the throughput one: the parallel files'
 * exchanges x latency / concurrency, plus the sequential part. The ratio wall / critical path is the
 * figure of merit (target: at most 2). Deliberate sleeps (media polling) are not latency: the longest
 * test's measured wall time is reported separately.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startReference } from '../reference/start.ts';
import { balanceChecks } from '../src/app/suites.ts';
import { writeRefTargets } from '../tools/ref-target.ts';
import {
  intFlag,
  readSummary,
  round,
  spawnNode,
  table,
  tail,
  usage,
  warnIfBusy,
  writeResult,
} from './lib.ts';

const TARGET_RATIO = 2;
const SERIAL = /\.serial\.test\.ts$/;

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string' },
    'latency-ms': { type: 'string' },
    sweep: { type: 'string' },
    profile: { type: 'string' },
    seed: { type: 'string' },
    'without-isolated': { type: 'boolean' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log(
    'node --import tsx bench/latency.ts [--concurrency 16] [--latency-ms 100] [--profile standard] [--seed N] [--sweep 2,8,16,32] [--without-isolated]',
  );
  process.exit(0);
}
warnIfBusy();
const latencyMs = intFlag(values['latency-ms'], '--latency-ms', 100, 1, 10_000);
const profile = values.profile ?? 'standard';
// A fixed seed makes the random parts (the model-based sequences' lengths) the same at every level.
const seed = values.seed === undefined ? undefined : intFlag(values.seed, '--seed', 0, 0, 2 ** 31 - 1);
const withoutIsolated = !!values['without-isolated'];
const levels = values.sweep
  ? values.sweep.split(',').map((s) => intFlag(s.trim(), '--sweep', 0, 1, 64))
  : [intFlag(values.concurrency, '--concurrency', 16, 1, 64)];
if (levels.length === 0) usage('--sweep: no concurrency levels');

interface Measure {
  concurrency: number;
  latencyMs: number;
  exitCode: number | null;
  verdict?: string;
  /** Process start to exit (tsx, vitest start-up, preflight, the run, the report). */
  wallMs: number;
  /** The run itself (summary.durationMs: preflight to report). */
  runDurationMs?: number;
  tests?: number;
  totalRequests?: number;
  preflightExchanges?: number;
  maxParallelTestExchanges?: number;
  maxParallelTest?: string;
  serialExchanges?: number;
  serialTests?: number;
  /** The balance checks beside the parallel files on the isolated account: one chain of one test at a time. */
  besideExchanges?: number;
  besideTests?: number;
  criticalPathMs?: number;
  throughputBoundMs?: number;
  ratio?: number;
  runRatio?: number;
  /** The longest test by measured wall time; its time beyond exchanges x latency is sleeps and CPU. */
  longestTest?: { title: string; file: string; durationMs: number; exchanges: number; notLatencyMs: number };
  /** Requests in flight, from exchanges.ndjson (startedAt + durationMs): the concurrency achieved. */
  inFlight?: { max: number; mean: number };
  /** summary exchangeCount per title vs the lines of exchanges.ndjson per title: should be 0. */
  ndjsonMismatches?: number;
  requestsPerSecond?: number;
  error?: string;
}

async function measure(concurrency: number): Promise<Measure> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-latency-'));
  const ref = await startReference({ port: 0, latencyMs });
  try {
    const { isolated: _, ...withoutKey } = ref.keys;
    const facts = withoutIsolated ? { ...ref, keys: withoutKey } : ref;
    const env = writeRefTargets(facts, join(dir, 'targets.yaml'), { streamMs: 10_000, concurrency });
    const report = join(dir, 'report');
    const run = await spawnNode(
      'bin/gateway-conformance.mjs',
      [
        '--targets',
        join(dir, 'targets.yaml'),
        '--target',
        'ref',
        '--report-dir',
        report,
        '--quiet',
        '--profile',
        profile,
        ...(seed !== undefined ? ['--seed', String(seed)] : []),
      ],
      { env, timeoutMs: 900_000 },
    );
    const m: Measure = { concurrency, latencyMs, exitCode: run.code, wallMs: Math.round(run.wallMs) };
    let s: ReturnType<typeof readSummary>;
    try {
      s = readSummary(report);
    } catch {
      m.error = `no summary (exit ${run.code}): ${tail(run)}`;
      return m;
    }
    const lines = readFileSync(join(report, 'exchanges.ndjson'), 'utf8').split('\n').filter(Boolean);
    const perTitle = new Map<string, number>();
    const events: Array<[number, number]> = [];
    let busyMs = 0;
    for (const l of lines) {
      const ex = JSON.parse(l) as { test?: string; startedAt: string; durationMs: number };
      const title = ex.test ?? '(none)';
      perTitle.set(title, (perTitle.get(title) ?? 0) + 1);
      const t0 = Date.parse(ex.startedAt);
      events.push([t0, 1], [t0 + ex.durationMs, -1]);
      busyMs += ex.durationMs;
    }
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let maxInFlight = 0;
    for (const [, d] of events) {
      now += d;
      maxInFlight = Math.max(maxInFlight, now);
    }
    const spanMs = events.length ? events[events.length - 1]![0] - events[0]![0] : 0;
    const fromSummary = new Map<string, number>();
    for (const t of s.tests) fromSummary.set(t.title, (fromSummary.get(t.title) ?? 0) + t.exchangeCount);
    let mismatches = 0;
    for (const [title, n] of fromSummary) if ((perTitle.get(title) ?? 0) !== n) mismatches++;

    const preflight = perTitle.get('preflight') ?? 0;
    const moved = new Set(
      balanceChecks({ keys: Object.fromEntries(s.target.roles.map((r) => [r, r])) }).files,
    );
    const besideTests = s.tests.filter((t) => moved.has(t.file));
    const parallel = s.tests.filter((t) => t.file !== 'preflight' && !SERIAL.test(t.file));
    const serial = s.tests.filter((t) => SERIAL.test(t.file) && !moved.has(t.file));
    const top = parallel.reduce((a, t) => (t.exchangeCount > a.exchangeCount ? t : a), parallel[0]!);
    const serialExchanges = serial.reduce((n, t) => n + t.exchangeCount, 0);
    const besideExchanges = besideTests.reduce((n, t) => n + t.exchangeCount, 0);
    const parallelExchanges = parallel.reduce((n, t) => n + t.exchangeCount, 0);
    const sequential = preflight + serialExchanges;
    const criticalPathMs = (sequential + Math.max(top?.exchangeCount ?? 0, besideExchanges)) * latencyMs;
    const longest = s.tests.reduce((a, t) => (t.durationMs > a.durationMs ? t : a), s.tests[0]!);
    Object.assign(m, {
      verdict: s.verdict,
      runDurationMs: s.durationMs,
      tests: s.counts.total,
      totalRequests: lines.length,
      preflightExchanges: preflight,
      maxParallelTestExchanges: top?.exchangeCount ?? 0,
      maxParallelTest: top?.title.slice(0, 100),
      serialExchanges,
      serialTests: serial.length,
      besideExchanges,
      besideTests: besideTests.length,
      criticalPathMs,
      throughputBoundMs: Math.round(
        sequential * latencyMs + ((parallelExchanges + besideExchanges) * latencyMs) / concurrency,
      ),
      ratio: round(m.wallMs / criticalPathMs, 2),
      runRatio: round(s.durationMs / criticalPathMs, 2),
      longestTest: {
        title: longest.title.slice(0, 100),
        file: longest.file,
        durationMs: longest.durationMs,
        exchanges: longest.exchangeCount,
        notLatencyMs: Math.max(0, longest.durationMs - longest.exchangeCount * latencyMs),
      },
      inFlight: { max: maxInFlight, mean: spanMs > 0 ? round(busyMs / spanMs, 2) : 0 },
      ndjsonMismatches: mismatches,
      requestsPerSecond: round(lines.length / (m.wallMs / 1000)),
    } satisfies Partial<Measure>);
    return m;
  } finally {
    await ref.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Measure[] = [];
for (const c of levels) {
  const m = await measure(c);
  results.push(m);
  if (m.error) {
    console.log(`  concurrency ${c}: ERROR ${m.error}`);
    continue;
  }
  console.log(
    `  concurrency ${c}, latency ${latencyMs} ms: wall ${(m.wallMs / 1000).toFixed(1)} s (run ${((m.runDurationMs ?? 0) / 1000).toFixed(1)} s), critical path ${((m.criticalPathMs ?? 0) / 1000).toFixed(1)} s = (${m.preflightExchanges} preflight + the larger of ${m.maxParallelTestExchanges} longest parallel test and ${m.besideExchanges} in ${m.besideTests} balance checks beside on the isolated account + ${m.serialExchanges} in ${m.serialTests} serial tests) x ${latencyMs} ms, ratio ${m.ratio} (run only ${m.runRatio}; target <= ${TARGET_RATIO}); throughput bound ${((m.throughputBoundMs ?? 0) / 1000).toFixed(1)} s; in flight mean ${m.inFlight?.mean}, max ${m.inFlight?.max}; ${m.totalRequests} requests, ${m.tests} tests, ${m.verdict}${m.ndjsonMismatches ? `; ${m.ndjsonMismatches} titles disagree with exchanges.ndjson` : ''}`,
  );
  console.log(
    `    longest test: ${((m.longestTest?.durationMs ?? 0) / 1000).toFixed(1)} s (${m.longestTest?.exchanges} exchanges; ${((m.longestTest?.notLatencyMs ?? 0) / 1000).toFixed(1)} s beyond their latency: sleeps, polling, CPU) ${m.longestTest?.title}`,
  );
}

if (results.length > 1) {
  const rows: Array<Array<string | number>> = [
    [
      'concurrency',
      'wall s',
      'run s',
      'crit. path s',
      'thr. bound s',
      'wall/crit',
      'in flight mean/max',
      'requests',
      'req/s',
      'longest test s',
    ],
  ];
  for (const m of results)
    rows.push(
      m.error
        ? [m.concurrency, 'ERROR', '', '', '', '', '', '', '', '']
        : [
            m.concurrency,
            round(m.wallMs / 1000),
            round((m.runDurationMs ?? 0) / 1000),
            round((m.criticalPathMs ?? 0) / 1000),
            round((m.throughputBoundMs ?? 0) / 1000),
            m.ratio ?? '',
            `${m.inFlight?.mean}/${m.inFlight?.max}`,
            m.totalRequests ?? '',
            m.requestsPerSecond ?? '',
            round((m.longestTest?.durationMs ?? 0) / 1000),
          ],
    );
  console.log('');
  console.log(table(rows));
}

const file = writeResult('latency', {
  latencyMs,
  profile,
  seed: seed ?? null,
  targetRatio: TARGET_RATIO,
  results,
});
console.log(`result: ${file}`);
if (results.every((m) => m.error)) process.exitCode = 1;
