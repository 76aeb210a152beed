/**
 * The vitest suites of a run: every suite file (the files that declare `start-early` first:
 * src/app/suite-hints.ts), the serial ones last, each alone after the others (runtime/turns.ts); the
 * serial files of the primary account's balance checks beside the others, on the isolated account, when
 * the target names one (balanceChecks).
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';
import type { TargetConfig } from '../config/targets.ts';
import type { Redactor } from '../http/redact.ts';
import { PKG_ROOT } from '../paths.ts';
import { type Progress, ProgressReporter } from '../report/progress.ts';
import { ConformanceReporter } from '../report/reporter.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { runsAlone, SERIAL_FILE } from '../runtime/account.ts';
import { concurrencyPlan, RUN_FILE_ENV } from '../runtime/run-config.ts';
import { othersEnded } from '../runtime/turns.ts';
import { CACHE_ROOT, cacheRootTrusted } from '../yaml-cache.ts';
import type { RunOptions } from './run-options.ts';
import { SUITE_GLOB, suiteFiles, suitesVitest } from './selection.ts';
import { type SuiteHints, suiteHints } from './suite-hints.ts';

/**
 * Where the run's balance checks run, decided once before the suites start. `isolated`: the target
 * names an `isolated` key, so the serial files marked `@conformance isolated-account` (balance checks of
 * the primary account, nothing of another) run on that account beside the other files, one test at a
 * time among themselves (its account lock); the other serial files (another account's balance, payments)
 * still run alone after everything. `serial`: every serial file runs alone after the others, as always.
 */
export interface BalanceChecks {
  on: 'isolated' | 'serial';
  /** The serial files that run on the isolated account beside the others (paths from the package root). */
  files: string[];
  /** The serial files that run alone after the others (runtime/account.ts runsAlone). */
  after: string[];
  /** One line for the run's header: where the balance checks run. */
  line: string;
}

export function balanceChecks(
  target: Pick<TargetConfig, 'keys'>,
  files: string[] = suiteFiles([]),
  hints: (file: string) => SuiteHints = suiteHints,
): BalanceChecks {
  const serial = files.filter((f) => SERIAL_FILE.test(f));
  const movable = serial.filter((f) => hints(f).isolatedAccount);
  if (target.keys.isolated && movable.length > 0)
    return {
      on: 'isolated',
      files: movable,
      after: serial.filter((f) => !movable.includes(f)),
      line: `balance checks: on the isolated account, beside the other files (${movable.length} file(s) of the primary account's balance checks; the other serial files after them)`,
    };
  return {
    on: 'serial',
    files: [],
    after: serial,
    line: `balance checks: serial, after the other files${target.keys.isolated ? '' : " (a target key of role 'isolated', an account of its own, would run them beside the others: docs/budgets.md)"}`,
  };
}

let vitestNode: Promise<typeof import('vitest/node')> | undefined;
/** vitest's node API, imported once per process (started early by runConformance). */
export const loadVitest = () => {
  vitestNode ??= import('vitest/node');
  return vitestNode;
};

/**
 * Tells the files that run alone when every other file of this run has ended (runtime/turns.ts): the
 * sequencer hands it the files the run holds (after --shard took its part), vitest each file's end (a
 * file that failed to load ends too).
 */
class OthersEnded implements Reporter {
  /** The other files not ended yet: empty until the sequencer hands over the run's files. */
  private readonly left = new Set<string>();
  private told = false;

  constructor(
    private readonly reportDir: string,
    private readonly isolatedFiles: string[],
  ) {}

  expect(files: readonly TestSpecification[]): void {
    for (const f of files) if (!runsAlone(f.moduleId, this.isolatedFiles)) this.left.add(f.moduleId);
    this.tellWhenNoneLeft();
  }

  onTestModuleEnd(mod: TestModule): void {
    // Before the sequencer spoke, nothing has run: vitest ends a module only after sorting the files.
    if (!this.left.delete(mod.moduleId)) return;
    this.tellWhenNoneLeft();
  }

  private tellWhenNoneLeft(): void {
    if (this.told || this.left.size > 0) return;
    this.told = true;
    othersEnded(this.reportDir);
  }
}

/** The vitest suites: every suite file, the isolated account's balance checks among them; those that run alone last. */
export async function runSuites(
  opts: RunOptions,
  target: TargetConfig,
  redactor: Redactor,
  runFile: string,
  progress: Progress | undefined,
  balance: BalanceChecks,
): Promise<{ tests: TestResultRecord[]; harnessErrors: string[] }> {
  process.env[RUN_FILE_ENV] = runFile;
  const reporter = new ConformanceReporter(redactor, opts.filter);
  const { createVitest, BaseSequencer } = await loadVitest();
  // The files that declare they hold the longest chains of dependent requests (or wait for media jobs)
  // start first, so that they do not set the end of a run against a slow target; the rest in vitest's
  // order (longest last time, or largest). Under a points budget, the files that buy the covering design
  // of media jobs (many jobs per requirement: the least verdict per point) start last, after the tests
  // whose one job judges a rule of its own (src/runtime/budget.ts admission orders the rest).
  const budgeted = target.budget.points !== null;
  // The balance checks beside the others are one chain of one test at a time (their account lock): its
  // first file starts first, the others in vitest's order, after it most likely (two at once would keep a
  // worker waiting for the lock).
  const beside = new Set(balance.files.map((f) => join(PKG_ROOT, f)));
  // The files that run alone come last, after every other (they wait for the others to end anyway:
  // ahead of one, a worker thread would only wait).
  const others = new OthersEnded(dirname(runFile), balance.files);
  class LongChainsFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]) {
      const sorted = await super.sort(files);
      const chainHead = sorted.find((spec) => beside.has(spec.moduleId))?.moduleId;
      const rank = (moduleId: string) => {
        if (moduleId === chainHead) return 0;
        const hints = suiteHints(moduleId);
        if (budgeted && hints.mediaAcceptance) return Number.POSITIVE_INFINITY;
        return hints.startEarly ?? Number.MAX_SAFE_INTEGER;
      };
      const alone = (moduleId: string) => Number(runsAlone(moduleId, balance.files));
      others.expect(sorted);
      return sorted
        .map((spec, i) => ({ spec, i, alone: alone(spec.moduleId), rank: rank(spec.moduleId) }))
        .sort((a, b) => a.alone - b.alone || a.rank - b.rank || a.i - b.i)
        .map(({ spec }) => spec);
    }
  }
  // The target's concurrency is the number of requests in flight, split over the worker threads
  // (concurrencyPlan); each worker runs more tests than it has request slots.
  const { workers, testsPerWorker } = concurrencyPlan(target, availableParallelism(), opts.workers);
  // The suite's modules as vite transformed them, kept between runs (keyed by each file's content) in
  // the suite's cache under the system's temp directory: every run and worker thread reuses them.
  // (Only in a cache directory of this user's alone: cacheRootTrusted.)
  const experimental = {
    fsModuleCache: cacheRootTrusted(),
    fsModuleCachePath: join(CACHE_ROOT, 'vitest-modules'),
  };
  const vitest = await suitesVitest(
    createVitest,
    {
      // Not vitest's own reporter: one line per group of findings at the end (printVerdict), not a
      // dump with code frames per failing test; progress meanwhile.
      reporters: progress ? [reporter, others, new ProgressReporter(progress)] : [reporter, others],
      maxWorkers: workers,
      ...(opts.filter ? { testNamePattern: opts.filter } : {}),
      ...(opts.shard ? { shard: opts.shard } : {}),
      passWithNoTests: !!opts.shard,
      experimental,
    },
    {
      test: {
        projects: suiteProjects(testsPerWorker, experimental),
        sequence: { sequencer: LongChainsFirst },
      },
    },
  );
  try {
    await vitest.start(opts.files ?? []);
  } finally {
    await vitest.close();
  }
  return reporter.collected;
}

/**
 * One project: every suite file, the serial ones each alone after the others (runtime/turns.ts), with
 * the isolated account's balance checks beside the others when the run moved them (balanceChecks).
 * Why one: a project's (or a group's) worker threads load the suite's modules again (measured: about
 * 1.8 CPU-s more per embedded run for a project of the isolated files beside the others, 0.3 s of wall
 * for the serial group after them).
 */
export function suiteProjects(
  testsPerWorker: number,
  experimental: { fsModuleCache: boolean; fsModuleCachePath: string },
) {
  return [
    {
      test: {
        name: 'suites',
        include: [SUITE_GLOB],
        pool: 'threads',
        isolate: false,
        // Tests are independent (each creates and cleans up its own resources): within a file they
        // run concurrently (check() marks them, but those of a file that runs alone or on the isolated
        // account); the worker's request gate keeps its requests in flight within its share of the
        // target's concurrency, so a test that only waits costs nothing.
        // (A project's own `sequence.concurrent` is not honoured by vitest 4.1.)
        maxConcurrency: testsPerWorker,
        experimental,
      },
    },
  ];
}
