/**
 * bench/ratio.ts: the embedded standard run against a trivial one-test vitest run, measured in the same
 * run, alternating, so that the ratio does not depend on how fast (or how busy) the machine is.
 *
 *   node --import tsx bench/ratio.ts [--reps 3] [--profile standard]
 *
 * Each repetition runs (a) the real CLI as a user runs it (`bin/gateway-conformance.mjs --quiet
 * --profile standard`, the embedded reference) and (b) `vitest run` on a directory holding one test that
 * asserts 1 + 1 = 2, and records the wall and CPU seconds (user + system of node and its threads) of
 * each. It prints the medians and the ratio standard / trivial for both. Goal (issue 27, item 7): the
 * standard run at most 10x the trivial vitest run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  intFlag,
  median,
  ROOT,
  readSummary,
  round,
  spawnNode,
  tail,
  warnIfBusy,
  writeResult,
} from './lib.ts';

const GOAL_RATIO = 10;

const { values } = parseArgs({
  options: { reps: { type: 'string' }, profile: { type: 'string' }, help: { type: 'boolean' } },
  strict: true,
});
if (values.help) {
  console.log('node --import tsx bench/ratio.ts [--reps 3] [--profile standard]');
  process.exit(0);
}
warnIfBusy();
const reps = intFlag(values.reps, '--reps', 3, 1, 50);
const profile = values.profile ?? 'standard';

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
const standard: Figure[] = [];
const plain: Figure[] = [];
let failed = false;
try {
  for (let rep = 1; rep <= reps; rep++) {
    const dir = mkdtempSync(join(tmpdir(), 'gc-bench-ratio-'));
    try {
      const run = await spawnNode(
        'bin/gateway-conformance.mjs',
        ['--quiet', '--profile', profile, '--report-dir', join(dir, 'report')],
        { cpu: true },
      );
      let note = '';
      try {
        const s = readSummary(join(dir, 'report'));
        note = `${s.counts.total} tests, ${s.exchanges.count} exchanges, ${s.verdict}`;
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
const med = (xs: Figure[], k: keyof Figure) => median(xs.flatMap((x) => (x[k] === undefined ? [] : [x[k]])));
const result = {
  profile,
  reps,
  goalRatio: GOAL_RATIO,
  standard: { wallMs: med(standard, 'wallMs'), cpuMs: med(standard, 'cpuMs') },
  trivial: { wallMs: med(plain, 'wallMs'), cpuMs: med(plain, 'cpuMs') },
  ratio: {
    wall: round(med(standard, 'wallMs') / med(plain, 'wallMs')),
    cpu: round(med(standard, 'cpuMs') / med(plain, 'cpuMs')),
  },
  runs: { standard, trivial: plain },
};
const file = writeResult('ratio', result);
console.log(
  `ratio (${profile}, medians of ${reps}): standard ${s(result.standard.wallMs)} wall, ${s(result.standard.cpuMs)} CPU; trivial vitest ${s(result.trivial.wallMs)} wall, ${s(result.trivial.cpuMs)} CPU; standard / trivial = ${result.ratio.wall}x wall, ${result.ratio.cpu}x CPU (goal <= ${GOAL_RATIO}x wall: ${result.ratio.wall <= GOAL_RATIO ? 'met' : 'MISSED'})`,
);
console.log(`result: ${file}`);
if (failed) process.exitCode = 1;
