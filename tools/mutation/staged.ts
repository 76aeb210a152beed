/**
 * One module of the reference under StrykerJS within the hour on a 2-core machine (issue 36): the
 * suite files that reach the module run in stages, each stage over the mutants that every earlier stage
 * left alive. A mutant killed by one part of the suite is killed by the whole suite (a run fails when
 * any of its tests fails), so a later part need not run it again; run side by side instead, every part
 * ran every mutant (media: 57 + 38 + 24 min, 62.8 min from first start to last end).
 * - Stage 1 runs every mutant of the module with the part that kills most; each next stage runs only the
 *   survivors so far: StrykerJS's incremental mode, given a file of what the earlier stages killed,
 *   reuses those results and runs the rest (killedSoFar).
 * - Each suite run has one worker thread (`STRYKER_WORKERS`): StrykerJS runs two mutants at once, and
 *   a second thread per run only costs CPU on two cores.
 * - The stages' reports are united (tools/mutation-triage.ts unionOf: the first stage's mutants, each
 *   killed when any stage killed it) and triaged; the wall time of each stage and of the whole is printed
 *   and kept in DIR/timing.json.
 * Usage: npx tsx tools/mutation/staged.ts MODULE [--out DIR] [--concurrency N]
 *   (MODULE: billing or media; DIR default reports/mutation/MODULE). Not part of .ci/run.
 * Then: npx tsx tools/mutation-triage.ts DIR/stage-*.json --write --out <the module's triage file>.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pkgPath } from '../../src/paths.ts';
import { ALIVE, DETECTED, type Report, triage, unionOf } from '../mutation-triage.ts';

interface ModulePlan {
  file: string;
  /** The suite parts, in the order they run (each a list for --suite). */
  stages: string[][];
  triageFile: string;
}

export const MODULES: Record<string, ModulePlan> = {
  billing: {
    file: 'reference/billing.ts',
    stages: [['points', 'balance', 'chat', 'responses', 'embeddings', 'stateful', 'accounts']],
    triageFile: 'reference/mutation-triage.md',
  },
  media: {
    file: 'reference/media/validate.ts',
    stages: [
      ['media/validation'],
      ['media/references', 'media/undocumented'],
      ['media/catalog', 'media/inputs', 'media/lifecycle', 'media/states'],
    ],
    triageFile: 'reference/mutation-triage-media.md',
  },
};

/**
 * What the earlier stages killed, as StrykerJS's incremental file: its incremental mode reuses the result
 * of every mutant the file holds (with no per-test coverage, as the command runner has, it reuses any
 * result whose mutant is unchanged) and runs the others. So a later stage runs exactly the survivors so
 * far (and the mutants no stage ran): not their neighbours at the same place, not the killed ones.
 */
export function killedSoFar(report: Report): Report {
  const files: Report['files'] = {};
  for (const [file, f] of Object.entries(report.files))
    files[file] = { ...f, mutants: f.mutants.filter((m) => DETECTED.has(m.status)) };
  return { ...report, files };
}

/** How many mutants of a report are alive (survived, or covered by no test). */
export const aliveIn = (report: Report): number =>
  Object.values(report.files).reduce((n, f) => n + f.mutants.filter((m) => ALIVE.has(m.status)).length, 0);

function runStage(
  plan: ModulePlan,
  stage: number,
  earlier: Report | undefined,
  out: string,
  concurrency: number,
): Promise<void> {
  const json = join(out, `stage-${stage + 1}.json`);
  // An earlier run's report is no result of this stage.
  rmSync(json, { force: true });
  // StrykerJS writes its incremental file over at its end: each stage has its own.
  const incremental = join(out, `stage-${stage + 1}.incremental.json`);
  if (earlier) writeFileSync(incremental, JSON.stringify(killedSoFar(earlier)));
  const log = createWriteStream(join(out, `stage-${stage + 1}.log`));
  const child = spawn(
    process.execPath,
    [
      pkgPath('node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'),
      'run',
      'stryker.config.mjs',
      '--mutate',
      plan.file,
      ...(earlier ? ['--incremental', '--incrementalFile', incremental] : []),
      '--concurrency',
      String(concurrency),
      '--tempDirName',
      `.stryker-tmp-staged-${stage + 1}`,
    ],
    {
      cwd: pkgPath(),
      env: {
        ...process.env,
        STRYKER_JSON: json,
        STRYKER_SUITES: plan.stages[stage]!.join(','),
        STRYKER_WORKERS: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0 && existsSync(json)) resolve();
      else
        reject(
          new Error(
            `stage ${stage + 1} (${plan.stages[stage]!.join(',')}) ended with ${signal ?? `exit code ${code}`}: see ${join(out, `stage-${stage + 1}.log`)}`,
          ),
        );
    });
  });
}

const parseOptions = (argv: string[]) =>
  parseArgs({
    args: argv,
    options: { out: { type: 'string' }, concurrency: { type: 'string' } },
    allowPositionals: true,
  });

const minutes = (ms: number) => `${(ms / 60000).toFixed(1)} min`;

const USAGE = `usage: npx tsx tools/mutation/staged.ts MODULE [--out DIR] [--concurrency N] (MODULE: ${Object.keys(MODULES).join(' or ')})`;

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const name = positionals.length === 1 ? positionals[0]! : '';
  const plan = MODULES[name];
  if (!plan) {
    console.error(USAGE);
    return 2;
  }
  const out = values.out ?? pkgPath('reports', 'mutation', name);
  const concurrency = Number(values.concurrency ?? availableParallelism());
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    console.error(`--concurrency: a whole number of at least 1, not ${values.concurrency}`);
    return 2;
  }
  mkdirSync(out, { recursive: true });
  const reports: Report[] = [];
  const timing: Array<{ stage: number; suites: string; mutants: number | 'all'; ms: number }> = [];
  const started = Date.now();
  for (let stage = 0; stage < plan.stages.length; stage++) {
    const earlier = stage === 0 ? undefined : unionOf(reports);
    const alive = earlier ? aliveIn(earlier) : 'all';
    if (alive === 0) break;
    const suites = plan.stages[stage]!.join(',');
    const t0 = Date.now();
    console.log(
      `stage ${stage + 1} of ${plan.stages.length}: --suite ${suites} over ${alive === 'all' ? `all of ${plan.file}` : `the ${alive} survivors so far`} (${new Date(t0).toISOString()})`,
    );
    await runStage(plan, stage, earlier, out, concurrency);
    reports.push(JSON.parse(readFileSync(join(out, `stage-${stage + 1}.json`), 'utf8')) as Report);
    timing.push({ stage: stage + 1, suites, mutants: alive, ms: Date.now() - t0 });
    console.log(`  done in ${minutes(Date.now() - t0)}`);
  }
  const total = Date.now() - started;
  const { counts, rows } = triage(unionOf(reports));
  const open = rows.filter((r) => r.reason === 'to triage').length;
  writeFileSync(
    join(out, 'timing.json'),
    `${JSON.stringify({ module: name, concurrency, total, stages: timing }, null, 2)}\n`,
  );
  console.log(
    `${name}: ${minutes(total)} in all; ${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}; ${rows.length} survivors off the switches, ${open} not triaged`,
  );
  console.log(
    `triage: npx tsx tools/mutation-triage.ts ${reports.map((_, i) => join(out, `stage-${i + 1}.json`)).join(' ')} --write --out ${plan.triageFile}`,
  );
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`)
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exitCode = 1;
    },
  );
