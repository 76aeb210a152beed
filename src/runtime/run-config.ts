import { readFileSync } from 'node:fs';
import type { TargetConfig } from '../config/targets.ts';
import type { JudgedDescription } from '../openapi/live.ts';
import type { Profile } from '../vocabulary.ts';
import type { RunBudget } from './budget.ts';

/** What the CLI hands to the test workers (through a file named in CONFORMANCE_RUN_FILE). No secret values. */
export interface RunConfig {
  target: TargetConfig;
  strict: boolean;
  reportDir: string;
  exchangesFile: string;
  suiteVersion: string;
  /** fast-check seed of the run (printed in every property failure; --seed replays it). */
  seed: number;
  /**
   * fast-check path of one failing case of a model-based (stateful) test, as its failure prints it
   * (`--path`): with the same seed that case alone runs again, exactly on the reference.
   */
  path?: string;
  /** Worker threads of the suites, when set (--workers): concurrencyPlan splits the concurrency among them. */
  workers?: number;
  /** Runs per property test. */
  propertyRuns: number;
  /** quick | standard | thorough: scales property runs and scenario depth. */
  profile: Profile;
  /** The points budget of billable work (absent: none), applied run-wide by admission (runtime/budget.ts). */
  budget?: RunBudget;
  /** List the plan without sending a request: every test records whether it would run, and why not. */
  dryRun?: boolean;
  /** The run's deadline (ms since the epoch) and the reason a test stopped by it gives. */
  deadline?: { at: number; reason: string };
  /** --har: every answered exchange is appended, redacted, as a HAR entry (layout `har`). */
  har?: true;
  /**
   * The CLI shows a progress line (not --quiet, not a dry run): only then do the workers write the
   * count of media jobs they wait on for it (runtime/liveness.ts), a file per change that nobody reads
   * otherwise.
   */
  progress?: true;
  /**
   * The serial files (paths from the package root) whose tests speak for the isolated account, beside
   * the other files (src/app/suites.ts balanceChecks; runtime/account.ts). Absent: none.
   */
  isolatedFiles?: string[];
  /** The live description as fetched once by the CLI and judged there (tooLarge: why the suite did not examine it). */
  openapi?: JudgedDescription & { file: string };
}

/** Property runs per profile (--property-runs overrides). */
export const PROFILE_PROPERTY_RUNS: Record<Profile, number> = { quick: 5, standard: 25, thorough: 100 };

/** A scenario depth by profile, e.g. depth(run, {quick: 1, standard: 4, thorough: 12}). */
export function depth<T>(run: Pick<RunConfig, 'profile'>, by: Record<Profile, T>): T {
  return by[run.profile ?? 'standard'];
}

/**
 * How a target's concurrency (tests in flight) splits into worker threads and concurrent tests within
 * each worker, never above the concurrency: worker threads up to the cores first (a fast target makes
 * the run CPU-bound); beyond that at most PER_WORKER tests per worker, more workers taking the rest
 * (a worker runs one file at a time, so against a slow, remote target a file whose last tests are long
 * would otherwise leave its share of the concurrency idle). The fewest workers that fill the concurrency
 * exactly.
 */
export const PER_WORKER = 4;
export function concurrencySplit(concurrency: number, cores: number): { workers: number; perWorker: number } {
  const c = Math.max(1, Math.floor(concurrency));
  for (let workers = Math.max(1, Math.min(c, cores)); workers < c; workers++) {
    const perWorker = c / workers;
    if (Number.isInteger(perWorker) && perWorker <= PER_WORKER) return { workers, perWorker };
  }
  return { workers: c, perWorker: 1 };
}

/**
 * How long one test's cleanups may take in all (waiting for jobs that hold its inputs included): twelve
 * poll intervals of the target (60 s at the default 5 s), at least 10 s, at most half the test timeout.
 * Why: a holder is waited for only while it progresses, and never silently for minutes.
 */
export function cleanupBoundMs(target: TargetConfig): number {
  return Math.min(target.timeouts.testMs / 2, Math.max(10_000, 12 * target.media.pollIntervalMs));
}

/**
 * How long a test's body may wait for a media job from the test's start: its timeout less the cleanup
 * bound and a margin for the last read (a twentieth of the timeout, at least 1 s). Why: the poll cap
 * (interval x cap, 10 minutes by default; the contract's client caps polls at 1 to 1440) may outlast
 * the test timeout (5 minutes by default), and a job still running when vitest ends the test would
 * fail GEN-001 ("the test did not finish") though the target answered every poll: a slow deployment
 * obeys the contract. A wait that reaches this point ends, and what it did not see is not judged.
 */
export function waitBoundMs(target: TargetConfig, timeoutMs = target.timeouts.testMs): number {
  return Math.max(0, timeoutMs - cleanupBoundMs(target) - Math.max(1_000, timeoutMs / 20));
}

/**
 * The embedded reference's default: 8 requests in flight over as many worker threads as cores, at most 4
 * (2 cores: 2 threads of 4; 4 cores or more: 4 of 2). Why no more threads than cores: the reference
 * answers in the CLI's own thread, so the run is CPU-bound, and each thread loads the suite and compiles
 * its validators again (on 2 cores, alternating runs: 2 threads 17.2-17.3 s wall and 24.4-24.6 CPU-s,
 * 4 threads 18.1-19.4 s and 29.4-31.6 CPU-s).
 */
export const EMBEDDED = { concurrency: 8, maxWorkers: 4 } as const;

/**
 * A URL target without a set concurrency adapts (AIMD on each worker's request gate): 4 worker threads
 * (more files at once: a file whose tests wait for media jobs keeps its worker), each starting with 1
 * request in flight and rising to 4 while replies stay fast and no 429 comes, halved on a 429.
 */
export const ADAPTIVE = { workers: 4, start: 1, max: 4 } as const;
/** Tests at once per worker: a waiting test holds no request slot, so a worker runs more tests than slots. */
export const TESTS_PER_SLOT = 4;
const MIN_TESTS_PER_WORKER = 16;

export interface ConcurrencyPlan {
  workers: number;
  /** Requests in flight per worker: at the start, and the bounds when adaptive. */
  slots: { start: number; min?: number; max?: number };
  /** vitest maxConcurrency of the parallel project (the serial one runs one test at a time). */
  testsPerWorker: number;
  adaptive: boolean;
  /** One line for the start of the run: which concurrency, and why. */
  describe: string;
}

/**
 * How a target's concurrency becomes worker threads, request slots per worker and tests per worker.
 * `workers` (--workers) fixes the threads: the concurrency is shared among them (never more threads than
 * requests in flight, at least one slot each), the adaptive bounds scaled to keep their totals.
 */
export function concurrencyPlan(
  target: Pick<TargetConfig, 'concurrency' | 'concurrencySource' | 'embedded'>,
  cores: number,
  workers?: number,
): ConcurrencyPlan {
  const threads = (n: number) => (workers !== undefined ? ` over ${n} worker thread(s) (--workers)` : '');
  if (target.concurrencySource === 'default' && !target.embedded) {
    const w = workers ?? ADAPTIVE.workers;
    const share = (n: number) => Math.max(1, Math.round((n * ADAPTIVE.workers) / w));
    const slots = { start: share(ADAPTIVE.start), min: 1, max: share(ADAPTIVE.max) };
    return {
      workers: w,
      slots,
      testsPerWorker: Math.max(MIN_TESTS_PER_WORKER, TESTS_PER_SLOT * slots.max),
      adaptive: true,
      describe: `concurrency: adaptive, ${w * slots.start} requests in flight at the start, up to ${w * slots.max} while replies stay fast and no 429 comes, halved on a 429${threads(w)} (the default for a URL target; --concurrency N or \`concurrency:\` in targets.yaml fixes it)`,
    };
  }
  const c = Math.max(1, Math.floor(target.concurrency));
  const fixed = workers !== undefined ? Math.min(workers, c) : undefined;
  const split =
    fixed !== undefined
      ? { workers: fixed, perWorker: Math.floor(c / fixed) }
      : target.embedded && target.concurrencySource === 'default'
        ? concurrencySplit(EMBEDDED.concurrency, Math.min(cores, EMBEDDED.maxWorkers))
        : concurrencySplit(c, cores);
  const why =
    target.concurrencySource === 'flag'
      ? 'set by --concurrency'
      : target.concurrencySource === 'file'
        ? "set by the target's `concurrency` in targets.yaml"
        : target.embedded
          ? "the embedded reference's default; --concurrency N changes it"
          : 'as configured';
  return {
    workers: split.workers,
    slots: { start: split.perWorker },
    testsPerWorker: Math.max(MIN_TESTS_PER_WORKER, TESTS_PER_SLOT * split.perWorker),
    adaptive: false,
    describe: `concurrency: ${split.workers * split.perWorker} requests in flight (${why})${threads(split.workers)}`,
  };
}

export const RUN_FILE_ENV = 'CONFORMANCE_RUN_FILE';

let cached: { file: string; config: RunConfig } | undefined;

export function runConfig(): RunConfig {
  const file = process.env[RUN_FILE_ENV];
  if (!file) {
    throw new Error(
      `${RUN_FILE_ENV} is not set: run the suites through the CLI (npm run conformance), not with vitest directly`,
    );
  }
  if (cached?.file !== file) cached = { file, config: JSON.parse(readFileSync(file, 'utf8')) as RunConfig };
  return cached.config;
}

/** The deadline's reason once it has passed (every worker checks before a request starts). */
export function pastDeadline(run: Pick<RunConfig, 'deadline'>, now = Date.now()): string | undefined {
  return run.deadline && now >= run.deadline.at ? run.deadline.reason : undefined;
}

/** The run's deadline in a worker, if the run has one (undefined outside a run: unit tests). */
export function runDeadlineAt(): number | undefined {
  if (!process.env[RUN_FILE_ENV]) return undefined;
  try {
    return runConfig().deadline?.at;
  } catch {
    return undefined;
  }
}
