/**
 * bench/generation.ts: a `standard` run against a reference whose media jobs take real generation times
 * (images ~20 s, videos ~60 s), at the default concurrency and poll interval of a URL target, and how
 * close its wall time comes to the run's critical path.
 *
 *   node --import tsx bench/generation.ts [--image-ms 20000] [--video-ms 60000] [--profile standard]
 *                                         [--concurrency N] [--rate-limit N] [--cli-root DIR] [--seed N]
 *   node --import tsx bench/generation.ts --analyse REPORT_DIR [--image-ms ...] [--video-ms ...]
 *
 * The reference runs in this process (startReference with mediaJobMs; 3D jobs take the image time); the
 * CLI runs in a child through a temporary targets file without `concurrency` or `media` settings, so
 * the URL-target defaults apply (--concurrency N sets one). --cli-root runs another checkout's CLI
 * against the same reference (the "before" figure of a base commit).
 *
 * Critical path, from exchanges.ndjson (every exchange's test, start, duration, method, path, bodies):
 *   per test T, work(T) = the time T has a request in flight other than a read of a media job (the union
 *   of those exchanges' intervals: a race's requests at once count once), plus its waits: for each job T
 *   read while it was still active, its generation time D(kind) less T's work between the job's
 *   creation and the first such read (what the test could do meanwhile), waits that overlap in time
 *   counted once (the longest); then
 *   critical path = preflight work + the largest of those over the tests of the parallel files + the sum
 *   over the tests of the `*.serial.test.ts` files (they run alone, after the others).
 * No schedule with a zero poll interval finishes sooner: a test's requests and its waits are sequential,
 * and a job cannot end before its generation time. Target: wall / critical path <= 1.5.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startReference } from '../reference/start.ts';
import { mediaTable } from '../src/rules/media-models.ts';
import { writeRefTargets } from '../tools/ref-target.ts';
import {
  intFlag,
  ROOT,
  readSummary,
  round,
  spawnNode,
  stamp,
  tail,
  usage,
  warnIfBusy,
  writeResult,
} from './lib.ts';

const TARGET_RATIO = 1.5;
const SERIAL = /\.serial\.test\.ts$/;
const JOB_READ = /^\/v1\/media\/jobs\/[^/?]+$/;
const ACTIVE = ['authorizing', 'queued', 'running', 'output_fetching', 'submission_uncertain'];

const { values } = parseArgs({
  options: {
    'image-ms': { type: 'string' },
    'video-ms': { type: 'string' },
    profile: { type: 'string' },
    concurrency: { type: 'string' },
    'rate-limit': { type: 'string' },
    'cli-root': { type: 'string' },
    seed: { type: 'string' },
    analyse: { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log(
    'node --import tsx bench/generation.ts [--image-ms 20000] [--video-ms 60000] [--profile standard] [--concurrency N] [--rate-limit N] [--cli-root DIR] [--seed N] | --analyse REPORT_DIR',
  );
  process.exit(0);
}
const imageMs = intFlag(values['image-ms'], '--image-ms', 20_000, 1, 3_600_000);
const videoMs = intFlag(values['video-ms'], '--video-ms', 60_000, 1, 3_600_000);
const durations = { image: imageMs, video: videoMs, glb: imageMs };

interface Exchange {
  test?: string;
  startedAt: string;
  durationMs: number;
  method: string;
  path: string;
  status?: number;
  requestBody?: { preview?: string };
  responseBody?: { preview?: string };
}

interface TestPath {
  title: string;
  workMs: number;
  waitMs: number;
  waits: number;
  pathMs: number;
}

const json = (s: string | undefined): Record<string, unknown> | undefined => {
  try {
    const v = s ? JSON.parse(s) : undefined;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The generation time of a job created by this exchange: by its model's output kind in the table. */
function generationMs(create: Exchange): number {
  const model = json(create.requestBody?.preview)?.model;
  const output = typeof model === 'string' ? mediaTable().models[model]?.output : undefined;
  if (output) return durations[output];
  const kind = String(json(create.responseBody?.preview)?.kind ?? '');
  return kind.includes('video') ? durations.video : durations.image;
}

/** Total length of the union of intervals [start, end), clipped to [from, to). */
function covered(intervals: Array<[number, number]>, from = -Infinity, to = Infinity): number {
  const xs = intervals
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as [number, number])
    .filter(([a, b]) => b > a)
    .sort((p, q) => p[0] - q[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of xs) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/** A test's critical path (see the header). `created`: job id -> its create exchange's end and D. */
function testPath(
  title: string,
  exchanges: Exchange[],
  created: Map<string, { at: number; genMs: number }>,
): TestPath {
  const work: Array<[number, number]> = [];
  const firstActive = new Map<string, number>();
  const lastRead = new Map<string, number>();
  for (const ex of exchanges) {
    const t0 = Date.parse(ex.startedAt);
    const interval: [number, number] = [t0, t0 + ex.durationMs];
    if (ex.method === 'GET' && JOB_READ.test(ex.path)) {
      const id = decodeURIComponent(ex.path.split('/').pop()!);
      const status = json(ex.responseBody?.preview)?.status;
      if (typeof status === 'string' && ACTIVE.includes(status) && !firstActive.has(id))
        firstActive.set(id, t0);
      lastRead.set(id, interval[1]);
    } else work.push(interval);
  }
  // Each wait: the job's remaining generation time once the test started reading it, and the real
  // interval it spanned (to count overlapping waits once).
  const waits: Array<{ from: number; to: number; ms: number }> = [];
  for (const [id, from] of firstActive) {
    const job = created.get(id);
    if (!job) continue;
    const ms = Math.max(0, job.genMs - covered(work, job.at, from));
    waits.push({ from, to: lastRead.get(id) ?? from, ms });
  }
  waits.sort((a, b) => a.from - b.from);
  let waitMs = 0;
  let group: { to: number; ms: number } | undefined;
  for (const w of waits) {
    if (group && w.from < group.to) {
      group.to = Math.max(group.to, w.to);
      group.ms = Math.max(group.ms, w.ms);
      continue;
    }
    if (group) waitMs += group.ms;
    group = { to: w.to, ms: w.ms };
  }
  if (group) waitMs += group.ms;
  const workMs = covered(work);
  return { title, workMs, waitMs, waits: waits.length, pathMs: workMs + waitMs };
}

export interface Analysis {
  criticalPathMs: number;
  preflightMs: number;
  longest: TestPath;
  serialMs: number;
  serialTests: number;
  jobsCreated: number;
  jobReads: number;
  requests: number;
  inFlight: { mean: number; max: number };
}

export function analyse(reportDir: string): Analysis {
  const s = readSummary(reportDir);
  const lines = readFileSync(join(reportDir, 'exchanges.ndjson'), 'utf8').split('\n').filter(Boolean);
  const all = lines.map((l) => JSON.parse(l) as Exchange);
  const created = new Map<string, { at: number; genMs: number }>();
  const byTest = new Map<string, Exchange[]>();
  const events: Array<[number, number]> = [];
  let busy = 0;
  let jobReads = 0;
  for (const ex of all) {
    const t0 = Date.parse(ex.startedAt);
    events.push([t0, 1], [t0 + ex.durationMs, -1]);
    busy += ex.durationMs;
    if (ex.method === 'GET' && JOB_READ.test(ex.path)) jobReads++;
    if (ex.method === 'POST' && ex.path === '/v1/media/jobs' && (ex.status ?? 500) < 300) {
      const id = json(ex.responseBody?.preview)?.id;
      if (typeof id === 'string' && !created.has(id))
        created.set(id, { at: t0 + ex.durationMs, genMs: generationMs(ex) });
    }
    const title = ex.test ?? '(none)';
    byTest.set(title, [...(byTest.get(title) ?? []), ex]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, d] of events) {
    now += d;
    max = Math.max(max, now);
  }
  const span = events.length ? events.at(-1)![0] - events[0]![0] : 0;
  const fileOf = new Map(s.tests.map((t) => [t.title, t.file]));
  const paths = [...byTest].map(([title, exs]) => testPath(title, exs, created));
  const preflight = paths.find((p) => p.title === 'preflight')?.pathMs ?? 0;
  const parallel = paths.filter((p) => p.title !== 'preflight' && !SERIAL.test(fileOf.get(p.title) ?? ''));
  const serial = paths.filter((p) => SERIAL.test(fileOf.get(p.title) ?? ''));
  const longest = parallel.reduce((a, p) => (p.pathMs > a.pathMs ? p : a), parallel[0]!);
  const serialMs = serial.reduce((n, p) => n + p.pathMs, 0);
  return {
    criticalPathMs: Math.round(preflight + longest.pathMs + serialMs),
    preflightMs: Math.round(preflight),
    longest: { ...longest, title: longest.title.slice(0, 100) },
    serialMs: Math.round(serialMs),
    serialTests: serial.length,
    jobsCreated: created.size,
    jobReads,
    requests: all.length,
    inFlight: { mean: span > 0 ? round(busy / span, 2) : 0, max },
  };
}

function report(a: Analysis, wallMs: number, runMs: number): string {
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    `  wall ${sec(wallMs)} (run ${sec(runMs)}), critical path ${sec(a.criticalPathMs)} = ${sec(a.preflightMs)} preflight + ${sec(a.longest.pathMs)} longest parallel test (${sec(a.longest.workMs)} requests + ${sec(a.longest.waitMs)} for ${a.longest.waits} job(s)) + ${sec(a.serialMs)} in ${a.serialTests} serial tests`,
    `  ratio wall / critical path ${round(wallMs / a.criticalPathMs, 2)} (run only ${round(runMs / a.criticalPathMs, 2)}; target <= ${TARGET_RATIO})`,
    `  ${a.requests} requests (${a.jobReads} job reads), ${a.jobsCreated} jobs created; in flight mean ${a.inFlight.mean}, max ${a.inFlight.max}`,
    `  longest parallel test: ${a.longest.title}`,
  ].join('\n');
}

if (values.analyse) {
  const dir = resolve(values.analyse);
  const a = analyse(dir);
  const s = readSummary(dir);
  console.log(report(a, s.durationMs, s.durationMs));
  process.exit(0);
}

warnIfBusy();
const profile = values.profile ?? 'standard';
const concurrency =
  values.concurrency === undefined ? undefined : intFlag(values.concurrency, '--concurrency', 4, 1, 64);
const rateLimit =
  values['rate-limit'] === undefined ? undefined : intFlag(values['rate-limit'], '--rate-limit', 1, 1, 1e6);
const seed = values.seed === undefined ? undefined : intFlag(values.seed, '--seed', 0, 0, 2 ** 31 - 1);
const cliRoot = values['cli-root'] ? resolve(values['cli-root']) : undefined;
if (cliRoot && !existsSync(join(cliRoot, 'bin/gateway-conformance.mjs')))
  usage(`--cli-root: no bin/gateway-conformance.mjs in ${cliRoot}`);

const dir = mkdtempSync(join(tmpdir(), 'gc-bench-generation-'));
const ref = await startReference({
  port: 0,
  mediaJobMs: durations,
  ...(rateLimit !== undefined ? { rateLimitPerMinute: rateLimit } : {}),
});
let exitCode = 0;
try {
  const env = writeRefTargets(ref, join(dir, 'targets.yaml'), {
    streamMs: 10_000,
    ...(concurrency !== undefined ? { concurrency } : { urlDefaults: true }),
  });
  if (concurrency !== undefined)
    // writeRefTargets pins fast polling with a concurrency; keep the URL default interval here too.
    env.CONFORMANCE_MEDIA_POLL_INTERVAL_MS = '5000';
  // Kept for --analyse: reports/bench/generation-report-<timestamp>/ (reports/ is git-ignored).
  const out = join(ROOT, 'reports', 'bench', `generation-report-${stamp()}`);
  const run = await spawnNode(
    join(cliRoot ?? ROOT, 'bin/gateway-conformance.mjs'),
    [
      '--targets',
      join(dir, 'targets.yaml'),
      '--target',
      'ref',
      '--report-dir',
      out,
      '--profile',
      profile,
      ...(seed !== undefined ? ['--seed', String(seed)] : []),
    ],
    {
      env,
      timeoutMs: 3_600_000,
      onLine: (l) => /^concurrency:|VERDICT|passed \d+/.test(l) && console.log(l),
    },
  );
  let s: ReturnType<typeof readSummary>;
  try {
    s = readSummary(out);
  } catch {
    throw new Error(`no summary (exit ${run.code}): ${tail(run)}`);
  }
  const a = analyse(out);
  console.log(
    `generation bench: images ${imageMs / 1000} s, videos ${videoMs / 1000} s, ${concurrency === undefined ? 'the URL-target default concurrency' : `concurrency ${concurrency}`}, poll interval 5 s${rateLimit ? `, guard ${rateLimit}/min` : ''}${cliRoot ? `, CLI of ${cliRoot}` : ''}: ${s.verdict}, ${s.counts.total} tests (${s.counts.passed} passed, ${s.counts.failed} failed, ${s.counts.not_run} not run)`,
  );
  console.log(report(a, run.wallMs, s.durationMs));
  const file = writeResult('generation', {
    imageMs,
    videoMs,
    profile,
    concurrency: concurrency ?? 'url-default',
    rateLimit: rateLimit ?? null,
    cliRoot: cliRoot ?? null,
    exitCode: run.code,
    verdict: s.verdict,
    counts: s.counts,
    wallMs: Math.round(run.wallMs),
    runDurationMs: s.durationMs,
    ratio: round(run.wallMs / a.criticalPathMs, 2),
    runRatio: round(s.durationMs / a.criticalPathMs, 2),
    targetRatio: TARGET_RATIO,
    ...a,
  });
  console.log(`result: ${file}; the run's report: ${out}`);
} catch (err) {
  console.log(`generation bench: ERROR ${(err as Error).message}`);
  exitCode = 1;
} finally {
  await ref.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
