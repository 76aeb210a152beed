/**
 * bench/ratio.ts: the embedded standard run against a trivial one-test vitest run, measured in the same
 * run, alternating, so that the ratio does not depend on how fast (or how busy) the machine is.
 *
 *   node --import tsx bench/ratio.ts [--reps 3] [--profile standard] [--without-isolated]
 *
 * `--without-isolated`: the embedded reference without its isolated key (its balance checks serial,
 * after the other files, as on a target that names none), to measure what the key changes.
 *
 * Each repetition runs (a) the real CLI as a user runs it (`bin/gateway-conformance.mjs --quiet
 * --profile standard`, the embedded reference) and (b) `vitest run` on a directory holding one test that
 * asserts 1 + 1 = 2, and records the wall and CPU seconds (user + system of node and its threads) of
 * each. It prints the medians and the ratio standard / trivial for both. Goals (issue 40, which retired
 * issue 27's 10x): the standard run at most 12x the trivial vitest run (wall), and at most 12 CPU-s.
 *
 * And two floors, to tell what scheduling alone could still win: the CPU seconds spread over every core
 * (no run of the same work is shorter on this machine), and the parts of the run that are chains of one
 * step at a time (its start, the serial files, the report: phasesOf) plus the rest of the CPU spread over
 * every core (a chain taken to use one core all along: the most favourable case).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EMBEDDED_NO_ISOLATED_ENV } from '../src/app/embedded.ts';
import {
  intFlag,
  median,
  type Phases,
  phasesOf,
  ROOT,
  readSummary,
  round,
  spawnNode,
  tail,
  warnIfBusy,
  writeResult,
} from './lib.ts';

const GOAL_RATIO = 12;
/** The standard run's CPU seconds (user + system), issue 40. */
const GOAL_CPU_MS = 12_000;

const { values } = parseArgs({
  options: {
    reps: { type: 'string' },
    profile: { type: 'string' },
    'without-isolated': { type: 'boolean' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log('node --import tsx bench/ratio.ts [--reps 3] [--profile standard] [--without-isolated]');
  process.exit(0);
}
warnIfBusy();
const reps = intFlag(values.reps, '--reps', 3, 1, 50);
const profile = values.profile ?? 'standard';
const withoutIsolated = !!values['without-isolated'];

// The trivial run's directory sits under the package (git-ignored reports/), so `vitest` resolves.
const trivialRoot = join(ROOT, 'reports', 'bench');
mkdirSync(trivialRoot, { recursive: true });
const trivial = mkdtempSync(join(trivialRoot, 'trivial-'));
writeFileSync(
  join(trivial, 'one.test.ts'),
  "import { expect, it } from 'vitest';\nit('adds', () => expect(1 + 1).toBe(2));\n",
);
writeFileSync(join(trivial, 'vitest.config.mjs'), 'export default { test: { include: ["one.test.ts"] } };\n');

interface Figure {
  wallMs: number;
  cpuMs?: number;
}
const cores = availableParallelism();
const standard: Figure[] = [];
const phases: Phases[] = [];
const plain: Figure[] = [];
let failed = false;
try {
  for (let rep = 1; rep <= reps; rep++) {
    const dir = mkdtempSync(join(tmpdir(), 'gc-bench-ratio-'));
    try {
      const startedAt = Date.now();
      const run = await spawnNode(
        'bin/gateway-conformance.mjs',
        ['--quiet', '--profile', profile, '--report-dir', join(dir, 'report')],
        { cpu: true, ...(withoutIsolated ? { env: { [EMBEDDED_NO_ISOLATED_ENV]: '1' } } : {}) },
      );
      let note = '';
      try {
        const s = readSummary(join(dir, 'report'));
        note = `${s.counts.total} tests, ${s.exchanges.count} exchanges, ${s.verdict}`;
        const p = phasesOf(join(dir, 'report'), startedAt, run.wallMs);
        if (p) {
          phases.push(p);
          note += ` (start ${sec(p.startMs)}, parallel files ${sec(p.parallelMs)}, serial files ${sec(p.serialMs)}, report ${sec(p.finishMs)})`;
        }
      } catch {
        failed = true;
        note = `ERROR no summary (exit ${run.code}): ${tail(run)}`;
      }
      standard.push({ wallMs: run.wallMs, ...(run.cpuMs !== undefined ? { cpuMs: run.cpuMs } : {}) });
      const t = await spawnNode(
        'node_modules/vitest/vitest.mjs',
        ['run', '--root', trivial, '--config', join(trivial, 'vitest.config.mjs')],
        { cpu: true },
      );
      if (t.code !== 0) {
        failed = true;
        note += `; trivial vitest run failed (exit ${t.code}): ${tail(t)}`;
      }
      plain.push({ wallMs: t.wallMs, ...(t.cpuMs !== undefined ? { cpuMs: t.cpuMs } : {}) });
      console.log(
        `  rep ${rep}: standard ${s(run.wallMs)} wall ${s(run.cpuMs)} CPU; trivial vitest ${s(t.wallMs)} wall ${s(t.cpuMs)} CPU; ${note}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(trivial, { recursive: true, force: true });
}

function s(ms: number | undefined): string {
  return ms === undefined ? '? s' : `${(ms / 1000).toFixed(1)} s`;
}
function sec(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
const med = (xs: Figure[], k: keyof Figure) => median(xs.flatMap((x) => (x[k] === undefined ? [] : [x[k]])));
const trivialWall = med(plain, 'wallMs');
const cpu = med(standard, 'cpuMs');
const phase = (k: keyof Phases) => median(phases.map((p) => p[k]));
const chainsMs = phases.length ? phase('startMs') + phase('serialMs') + phase('finishMs') : undefined;
const floors = {
  cores,
  /** No run of the same work is shorter than its CPU seconds spread over every core. */
  cpuSpreadMs: Number.isFinite(cpu) ? cpu / cores : undefined,
  /** The chains (one core each) plus the rest of the CPU spread over every core. */
  chainsPlusSpreadMs:
    chainsMs !== undefined && Number.isFinite(cpu)
      ? chainsMs + Math.max(0, cpu - chainsMs) / cores
      : undefined,
  phases: phases.length
    ? {
        startMs: phase('startMs'),
        parallelMs: phase('parallelMs'),
        serialMs: phase('serialMs'),
        finishMs: phase('finishMs'),
      }
    : undefined,
};
// Judged unrounded: a ratio of 12.03 is not "at most 12" (it printed 12x and passed when rounded first).
const wallRatio = med(standard, 'wallMs') / trivialWall;
const result = {
  profile,
  reps,
  isolated: !withoutIsolated,
  goalRatio: GOAL_RATIO,
  goalCpuMs: GOAL_CPU_MS,
  standard: { wallMs: med(standard, 'wallMs'), cpuMs: cpu },
  trivial: { wallMs: trivialWall, cpuMs: med(plain, 'cpuMs') },
  ratio: {
    wall: round(wallRatio, 2),
    cpu: round(cpu / med(plain, 'cpuMs')),
  },
  floors,
  runs: { standard, trivial: plain, phases },
};
const file = writeResult('ratio', result);
console.log(
  `ratio (${profile}${withoutIsolated ? ', without the isolated key' : ''}, medians of ${reps}): standard ${s(result.standard.wallMs)} wall, ${s(result.standard.cpuMs)} CPU; trivial vitest ${s(result.trivial.wallMs)} wall, ${s(result.trivial.cpuMs)} CPU; standard / trivial = ${result.ratio.wall}x wall, ${result.ratio.cpu}x CPU (goals: <= ${GOAL_RATIO}x wall ${wallRatio <= GOAL_RATIO ? 'met' : 'MISSED'}, <= ${s(GOAL_CPU_MS)} CPU ${cpu <= GOAL_CPU_MS ? 'met' : 'MISSED'})`,
);
const x = (ms: number | undefined) => (ms === undefined ? '?' : `${round(ms / trivialWall)}x`);
if (floors.cpuSpreadMs !== undefined)
  console.log(
    `floors: the CPU spread over ${cores} cores ${s(floors.cpuSpreadMs)} (${x(floors.cpuSpreadMs)}); the chains (start, serial files, report: ${s(chainsMs)}) plus the rest of the CPU spread over ${cores} cores ${s(floors.chainsPlusSpreadMs)} (${x(floors.chainsPlusSpreadMs)})`,
  );
console.log(`result: ${file}`);
if (failed) process.exitCode = 1;
