/**
 * Shared helpers of the benchmark scripts: argument parsing, timing, spawning the real CLI, machine
 * info and the JSON result file (reports/bench/<name>-<timestamp>.json; reports/ is git-ignored).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { balanceChecks } from '../src/app/suites.ts';
import { ExchangeLog } from '../src/report/layout.ts';

/** The package root (bench/ sits directly under it). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const stamp = (): string => new Date().toISOString().replace(/[:.]/g, '-');

export function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

/** A whole-number flag value, or a usage error. */
export function intFlag(
  value: string | undefined,
  flag: string,
  fallback: number,
  min = 1,
  max = 1e9,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    usage(`${flag}: '${value}' is not a whole number from ${min} to ${max}`);
  return n;
}

export function usage(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

export interface Machine {
  nproc: number;
  cpu: string;
  memGiB: number;
  os: string;
  node: string;
  commit: string;
  /** The working tree had uncommitted changes when the benchmark ran (others edit it concurrently). */
  dirty: boolean;
  /** 1, 5 and 15 minute load averages when the result was written: above nproc, other work shared the cores. */
  loadavg: number[];
}

export function machine(): Machine {
  let commit = 'unknown';
  let dirty = false;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        cwd: ROOT,
        encoding: 'utf8',
      }).trim() !== '';
  } catch {
    // not a git checkout: leave unknown
  }
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memGiB: round(totalmem() / 2 ** 30, 1),
    os: `${type()} ${release()}`,
    node: process.version,
    commit,
    dirty,
    loadavg: loadavg().map((l) => round(l, 2)),
  };
}

/** Write reports/bench/<name>-<timestamp>.json and return its path. */
export function writeResult(name: string, result: Record<string, unknown>): string {
  const dir = join(ROOT, 'reports', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${stamp()}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ bench: name, at: new Date().toISOString(), machine: machine(), ...result }, null, 2)}\n`,
  );
  return file;
}

export interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** With `cpu`: the CPU time (user + system) of the node process and every thread it ran, in ms. */
  cpuMs?: number;
}

/** The line the POSIX shell's `times` prints for its children, after the script's own output. */
const TIMES = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/;

/**
 * Run `node <script> ...args` from the package root, with the process environment minus every
 * CONFORMANCE_* variable (like tools/run-cli.ts runCli) plus `env`; bounded by `timeoutMs`.
 * `onLine` sees each stdout line as it arrives. `cpu`: node runs under `sh -c`, whose `times` (POSIX)
 * says the CPU time its child used (cpuMs); the exit code is node's.
 */
export function spawnNode(
  script: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; onLine?: (line: string) => void; cpu?: boolean } = {},
): Promise<Spawned> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONFORMANCE_')) clean[k] = v;
  return new Promise((done) => {
    const started = performance.now();
    const argv = [resolve(ROOT, script), ...args];
    const [file, fileArgs] = opts.cpu
      ? // A signal to the shell (the timeout below, Ctrl-C) ends node at once.
        [
          '/bin/sh',
          [
            '-c',
            '"$0" "$@" & p=$!; trap \'kill -9 $p\' TERM INT; wait $p; s=$?; times >&2; exit $s',
            process.execPath,
            ...argv,
          ],
        ]
      : [process.execPath, argv];
    const child = spawn(file, fileArgs, {
      env: { ...clean, ...(opts.env ?? {}) },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (d: Buffer) => {
      const s = d.toString();
      stdout += s;
      if (!opts.onLine) return;
      partial += s;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) opts.onLine(l);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill(opts.cpu ? 'SIGTERM' : 'SIGKILL'), opts.timeoutMs ?? 600_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (partial && opts.onLine) opts.onLine(partial);
      const wallMs = performance.now() - started;
      if (!opts.cpu) return done({ code, stdout, stderr, wallMs });
      // `times`: the shell's own line, then its children's (user, system).
      const lines = stderr.trimEnd().split('\n');
      const m = TIMES.exec(lines.at(-1) ?? '');
      const cpuMs = m
        ? Math.round((Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000)
        : undefined;
      done({
        code,
        stdout,
        stderr: m ? lines.slice(0, -2).join('\n') : stderr,
        wallMs,
        ...(cpuMs !== undefined ? { cpuMs } : {}),
      });
    });
  });
}

/** The parts of a run's summary.json the benchmarks read. */
export interface RunSummary {
  target: { roles: string[] };
  durationMs: number;
  verdict: string;
  counts: Record<string, number> & { total: number };
  exchanges: { count: number };
  tests: Array<{ title: string; file: string; outcome: string; durationMs: number; exchangeCount: number }>;
}

/**
 * Where a run's wall time went, from its report: `startMs` from the process's start to the first
 * exchange of a test (the CLI, the embedded reference, the preflight, vitest and its workers starting);
 * `parallelMs` until the last exchange of the parallel files ends; `serialMs` until the last exchange
 * of the `*.serial.test.ts` files ends (their worker's start included; those that ran beside the others
 * on the isolated account are parallel files); `finishMs` from there to the
 * exit (the report). The start, the serial files and the finish are chains of one step at a time: more
 * cores do not shorten them. `startedAt`: the process's start, ms since the epoch.
 */
export interface Phases {
  startMs: number;
  parallelMs: number;
  serialMs: number;
  finishMs: number;
}
export function phasesOf(reportDir: string, startedAt: number, wallMs: number): Phases | undefined {
  const summary = readSummary(reportDir);
  // The serial files that ran beside the others on the isolated account (src/app/suites.ts) are parallel.
  const keys = Object.fromEntries(summary.target.roles.map((r) => [r, r]));
  const beside = new Set(balanceChecks({ keys }).files);
  const serial = new Set(
    summary.tests
      .filter((t) => /\.serial\.test\.ts$/.test(t.file) && !beside.has(t.file))
      .map((t) => t.title),
  );
  let first = Number.POSITIVE_INFINITY;
  let parallelEnd = 0;
  let serialEnd = 0;
  for (const ex of ExchangeLog.of(reportDir).all()) {
    if (!ex.test || ex.test === 'preflight') continue;
    const at = Date.parse(ex.startedAt) - startedAt;
    const end = at + ex.durationMs;
    first = Math.min(first, at);
    if (serial.has(ex.test)) serialEnd = Math.max(serialEnd, end);
    else parallelEnd = Math.max(parallelEnd, end);
  }
  if (!Number.isFinite(first)) return undefined;
  const last = Math.max(parallelEnd, serialEnd);
  return {
    startMs: first,
    parallelMs: parallelEnd - first,
    serialMs: Math.max(0, serialEnd - parallelEnd),
    finishMs: Math.max(0, wallMs - last),
  };
}

export function readSummary(reportDir: string): RunSummary {
  return JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as RunSummary;
}

/** The last few lines of a failed child's output, for the message. */
export function tail(run: Spawned, lines = 4): string {
  return `${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-lines).join(' | ');
}

export function table(rows: Array<Array<string | number>>): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows
    .map((r) =>
      r
        .map((c, i) =>
          typeof c === 'number' ? String(c).padStart(widths[i]!) : String(c).padEnd(widths[i]!),
        )
        .join('  '),
    )
    .join('\n');
}

/** Warn when other work already loads the machine: the figures would be pessimistic. */
export function warnIfBusy(): void {
  const [one] = loadavg();
  const n = availableParallelism();
  if (one !== undefined && one > n)
    console.log(
      `note: load average ${one.toFixed(1)} on ${n} cores before the benchmark: other work shares the machine, figures will be pessimistic`,
    );
}
