/**
 * The vitest suites of a run: every suite file in parallel (the files that declare `start-early` first:
 * src/app/suite-hints.ts), then the serial ones.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import type { TargetConfig } from '../config/targets.ts';
import type { Redactor } from '../http/redact.ts';
import { type Progress, ProgressReporter } from '../report/progress.ts';
import { ConformanceReporter } from '../report/reporter.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { concurrencyPlan, RUN_FILE_ENV } from '../runtime/run-config.ts';
import { CACHE_ROOT, cacheRootTrusted } from '../yaml-cache.ts';
import type { RunOptions } from './run-options.ts';
import { SUITE_GLOB, suitesVitest } from './selection.ts';
import { suiteHints } from './suite-hints.ts';

let vitestNode: Promise<typeof import('vitest/node')> | undefined;
/** vitest's node API, imported once per process (started early by runConformance). */
export const loadVitest = () => {
  vitestNode ??= import('vitest/node');
  return vitestNode;
};

/** The vitest suites: every suite in parallel, then the serial ones. */
export async function runSuites(
  opts: RunOptions,
  target: TargetConfig,
  redactor: Redactor,
  runFile: string,
  progress: Progress | undefined,
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
  class LongChainsFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]) {
      const sorted = await super.sort(files);
      const rank = (moduleId: string) => {
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
 * Two groups: every suite in parallel, then the `*.serial.test.ts` files one at a time with no other
 * traffic of this run (balance-delta checks need a quiet account).
 */
function suiteProjects(
  testsPerWorker: number,
  experimental: { fsModuleCache: boolean; fsModuleCachePath: string },
) {
  return [
    {
      test: {
        name: 'parallel',
        include: [SUITE_GLOB],
        exclude: ['suites/**/*.serial.test.ts'],
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
        include: ['suites/**/*.serial.test.ts'],
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
