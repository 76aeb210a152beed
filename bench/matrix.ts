/**
 * bench/matrix.ts: the wall time of the mutation matrix (`npm run mutants`: the real CLI against the
 * reference with every seeded fault, every conformant variant, and the reference plain and strict).
 *
 *   node --import tsx bench/matrix.ts [--parallel N] [--only NAME,NAME] [--full] [--verbose]
 *
 * Spawns `node bin/mutants.mjs` (passing --parallel, --only and --full through), counts the rows and
 * the wrong ones from its output, and prints the ten slowest rows (each row ends with '[12.3s]', or
 * '[12.3s, CLI 1.4 CPU-s]': the CPU its run's CLI process used). Also the CPU of the whole matrix (its
 * CLI processes and the references it starts) and the rows' CLI CPU by kind.
 * Target: under 5 minutes on the 2-core machine.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { intFlag, median, round, spawnNode, tail, warnIfBusy, writeResult } from './lib.ts';

const TARGET_MS = 5 * 60_000;
const ROW =
  /^(ok {2}|FAIL) (reference|fault|variant)\s+(\S+(?: \(strict\))?)\s+(\S+).*\[(\d+(?:\.\d+)?)s(?:, CLI (\d+(?:\.\d+)?) CPU-s)?\]\s*$/;

const { values } = parseArgs({
  options: {
    parallel: { type: 'string' },
    only: { type: 'string' },
    full: { type: 'boolean' },
    verbose: { type: 'boolean' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log('node --import tsx bench/matrix.ts [--parallel N] [--only NAME,NAME] [--full] [--verbose]');
  process.exit(0);
}
warnIfBusy();
const args: string[] = [];
if (values.parallel !== undefined)
  args.push('--parallel', String(intFlag(values.parallel, '--parallel', 3, 1, 64)));
if (values.only) args.push('--only', values.only);
if (values.full) args.push('--full');

interface Row {
  ok: boolean;
  kind: string;
  name: string;
  status: string;
  seconds: number;
  /** CPU-seconds of the row's CLI process (absent when the matrix did not report it). */
  cpuS?: number;
}
const rows: Row[] = [];
const started = Date.now();
const run = await spawnNode('bin/mutants.mjs', args, {
  timeoutMs: 90 * 60_000,
  cpu: true,
  onLine: (line) => {
    const m = ROW.exec(line);
    if (!m) return;
    rows.push({
      ok: m[1] === 'ok  ',
      kind: m[2]!,
      name: m[3]!,
      status: m[4]!,
      seconds: Number(m[5]),
      ...(m[6] !== undefined ? { cpuS: Number(m[6]) } : {}),
    });
    if (values.verbose) console.log(line);
    else if (rows.length % 20 === 0)
      console.log(`  ${rows.length} rows, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  },
});
const summaryLine = run.stdout.split('\n').find((l) => l.startsWith('mutation matrix:'));
const wrong = rows.filter((r) => !r.ok);
const slowest = [...rows].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
const secs = rows.map((r) => r.seconds);
const byKind = (kind: string) => {
  const of = rows.filter((r) => r.kind === kind);
  const s = of.map((r) => r.seconds);
  const cpu = of.flatMap((r) => (r.cpuS === undefined ? [] : [r.cpuS]));
  return {
    rows: s.length,
    medianS: round(median(s)),
    maxS: s.length ? Math.max(...s) : 0,
    cliCpuS: { sum: round(cpu.reduce((a, b) => a + b, 0)), median: round(median(cpu)) },
  };
};
const result = {
  args,
  parallel: values.parallel
    ? Number(values.parallel)
    : `default (3 per core, at most 8: ${Math.max(2, Math.min(8, 3 * availableParallelism()))}, of which ${availableParallelism() + 1} may run the whole suite)`,
  exitCode: run.code,
  wallMs: Math.round(run.wallMs),
  ...(run.cpuMs !== undefined ? { cpuMs: run.cpuMs } : {}),
  targetMs: TARGET_MS,
  withinTarget: run.wallMs < TARGET_MS,
  rows: rows.length,
  wrong: wrong.length,
  wrongRows: wrong.map((r) => `${r.kind} ${r.name}: ${r.status}`),
  rowSeconds: { sum: round(secs.reduce((a, b) => a + b, 0)), median: round(median(secs)) },
  byKind: { reference: byKind('reference'), fault: byKind('fault'), variant: byKind('variant') },
  slowest,
  summaryLine,
  ...(rows.length === 0 ? { error: `no rows (exit ${run.code}): ${tail(run, 6)}` } : {}),
};
const file = writeResult('matrix', result);

console.log('');
console.log('slowest rows:');
for (const r of slowest)
  console.log(`  ${r.seconds.toFixed(1).padStart(6)} s  ${r.kind.padEnd(9)} ${r.name} (${r.status})`);
for (const w of result.wrongRows) console.log(`  WRONG: ${w}`);
if (summaryLine) console.log(summaryLine);
for (const kind of ['reference', 'fault', 'variant'] as const) {
  const k = result.byKind[kind];
  console.log(
    `  ${kind}: ${k.rows} rows, median ${k.medianS} s; their CLI processes ${k.cliCpuS.sum} CPU-s (median ${k.cliCpuS.median})`,
  );
}
console.log(
  `matrix: ${(run.wallMs / 1000).toFixed(1)} s wall${run.cpuMs !== undefined ? `, ${(run.cpuMs / 1000).toFixed(0)} CPU-s` : ''} (target < ${TARGET_MS / 60_000} min: ${result.withinTarget ? 'met' : 'MISSED'}), ${rows.length} rows, ${wrong.length} wrong, exit ${run.code}; row times sum ${result.rowSeconds.sum} s (median ${result.rowSeconds.median} s) with parallel ${result.parallel}`,
);
if (rows.length === 0) console.log(`  ERROR: ${result.error}`);
console.log(`result: ${file}`);
if (rows.length === 0) process.exitCode = 1;
