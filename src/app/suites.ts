/**
 * The vitest suites of a run: every suite file in parallel (the files that declare `start-early` first:
 * src/app/suite-hints.ts), then the serial ones; the serial files of the primary account's balance
 * checks beside the parallel ones, on the isolated account, when the target names one (balanceChecks).
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import type { TargetConfig } from '../config/targets.ts';
import type { Redactor } from '../http/redact.ts';
import { PKG_ROOT } from '../paths.ts';
import { type Progress, ProgressReporter } from '../report/progress.ts';
import { ConformanceReporter } from '../report/reporter.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { concurrencyPlan, RUN_FILE_ENV } from '../runtime/run-config.ts';
import { CACHE_ROOT, cacheRootTrusted } from '../yaml-cache.ts';
import type { RunOptions } from './run-options.ts';
import { SUITE_GLOB, suiteFiles, suitesVitest } from './selection.ts';
import { type SuiteHints, suiteHints } from './suite-hints.ts';

/** The files that run alone after the others (a quiet account), unless balanceChecks moves them. */
const SERIAL_GLOB = 'suites/**/*.serial.test.ts';
const SERIAL = /\.serial\.test\.ts$/;

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
  /** The serial files that still run alone after the others, when `on` is isolated. */
  after: string[];
  /** One line for the run's header: where the balance checks run. */
  line: string;
}

export function balanceChecks(
  target: Pick<TargetConfig, 'keys'>,
  files: string[] = suiteFiles([]),
  hints: (file: string) => SuiteHints = suiteHints,
): BalanceChecks {
  const serial = files.filter((f) => SERIAL.test(f));
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
    after: [],
    line: `balance checks: serial, after the other files${target.keys.isolated ? '' : " (a target key of role 'isolated', an account of its own, would run them beside the others: docs/budgets.md)"}`,
  };
}

let vitestNode: Promise<typeof import('vitest/node')> | undefined;
/** vitest's node API, imported once per process (started early by runConformance). */
export const loadVitest = () => {
  vitestNode ??= import('vitest/node');
  return vitestNode;
};

/** The vitest suites: every suite in parallel (the isolated account's balance checks among them), then the serial ones. */
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
      return sorted
        .map((spec, i) => ({ spec, i, rank: rank(spec.moduleId) }))
        .sort((a, b) => a.rank - b.rank || a.i - b.i)
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
      reporters: progress ? [reporter, new ProgressReporter(progress)] : [reporter],
      maxWorkers: workers,
      ...(opts.filter ? { testNamePattern: opts.filter } : {}),
      ...(opts.shard ? { shard: opts.shard } : {}),
      passWithNoTests: !!opts.shard,
      experimental,
    },
    {
      test: {
        projects: suiteProjects(testsPerWorker, experimental, balance),
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
 * Two groups: every suite in parallel, then the `*.serial.test.ts` files one at a time with no other
 * traffic of this run (balance-delta checks need a quiet account). With the isolated account
 * (balanceChecks), its files join the first group (each runs one test at a time by itself: check(); the
 * account lock makes them wait for each other). Not a project of their own: vitest 4.1 projects of one
 * group share the workers, and a project's worker loads the suite's modules again (measured: about
 * 1.8 CPU-s more per embedded run).
 */
export function suiteProjects(
  testsPerWorker: number,
  experimental: { fsModuleCache: boolean; fsModuleCachePath: string },
  balance: Pick<BalanceChecks, 'on' | 'after' | 'files'>,
) {
  const beside = balance.on === 'isolated';
  return [
    {
      test: {
        name: 'parallel',
        include: [SUITE_GLOB],
        exclude: beside ? balance.after : [SERIAL_GLOB],
        pool: 'threads',
        isolate: false,
        // Tests are independent (each creates and cleans up its own resources): within a file they
        // run concurrently (check() marks them); the worker's request gate keeps its requests in flight
        // within its share of the target's concurrency, so a test that only waits costs nothing.
        // (A project's own `sequence.concurrent` is not honoured by vitest 4.1.)
        sequence: { groupOrder: 0 },
        maxConcurrency: testsPerWorker,
        experimental,
      },
    },
    {
      test: {
        name: 'serial',
        include: [SERIAL_GLOB],
        ...(beside ? { exclude: balance.files } : {}),
        pool: 'threads',
        isolate: false,
        fileParallelism: false,
        // One test at a time, even those check() marks concurrent.
        maxConcurrency: 1,
        sequence: { groupOrder: 1 },
        experimental,
      },
    },
  ];
}
