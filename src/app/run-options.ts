/**
 * What a run is asked to do (the CLI maps its flags onto RunOptions) and what it gives back.
 */
import type { TargetConfig } from '../config/targets.ts';
import { SUITE_VERSION } from '../paths.ts';
import type { Summary } from '../report/summary.ts';
import { PROFILE_PROPERTY_RUNS, type RunConfig } from '../runtime/run-config.ts';
import type { Profile } from '../vocabulary.ts';

export interface RunOptions {
  target: TargetConfig;
  reportDir?: string;
  strict?: boolean;
  filter?: string;
  quiet?: boolean;
  seed?: number;
  /** Replays one failing case of a model-based test (with its seed); see RunConfig.path. */
  path?: string;
  propertyRuns?: number;
  /** Worker threads of the suites (default: concurrencyPlan's, from the concurrency and the cores). */
  workers?: number;
  /** Restrict to suite files whose path contains one of these strings. */
  files?: string[];
  profile?: Profile;
  /** The plan without a single request to the target. */
  dryRun?: boolean;
  /**
   * A global deadline, counted from `startedAt` (the command's start; default: this call): when it
   * passes, no test or request starts any more (the preflight and every wait included); cleanups still run.
   */
  deadlineMs?: number;
  startedAt?: number;
  /** `i/n`: run the i-th of n shards (vitest's file sharding); `merge` combines the shard reports. */
  shard?: string;
  /** The target's known failures (see src/report/expectations.ts). */
  expectationsFile?: string;
  /** Diff the live description against this file, or `previous` (the latest earlier report of the target). */
  driftAgainst?: string;
  /** The selection names tests known to exist (a dry run's own titles): not checked again. */
  selectionKnown?: boolean;
  /** Compare with this report directory, or `previous` (the newest other report of the target). */
  compareWith?: string;
  /** Sign the report's manifest with the Ed25519 private key in this file (src/report/signature.ts). */
  signKeyFile?: string;
  /** --prices: a previous run's report (its learned prices) or a price YAML (src/app/prices-file.ts). */
  pricesFile?: string;
  /** --har: where the run's own traffic is written as a HAR 1.2 capture (credentials redacted). */
  harFile?: string;
  /** A dry run's billable estimate (src/app/billable-plan.ts), part of the plan the report holds. */
  planBillable?: (
    planned: Pick<Summary, 'tests' | 'profile'>,
    reportDir: string,
  ) => Promise<NonNullable<Summary['plan']>>;
}

export interface RunResult {
  summary: Summary;
  reportDir: string;
  exitCode: number;
}

/**
 * The run's config as its workers read it, from what the run was asked (the one place a RunOptions
 * field becomes a RunConfig field) and where it writes. The budget and the live description are added
 * when the preflight has read them.
 */
/** The run shows a progress line (and its workers report the media jobs they wait on for it). */
export const showsProgress = (opts: RunOptions): boolean => !opts.quiet && !opts.dryRun;

export function runConfigOf(
  opts: RunOptions,
  at: { reportDir: string; exchangesFile: string; deadline?: RunConfig['deadline'] },
): RunConfig {
  const profile = opts.profile ?? 'standard';
  return {
    target: opts.target,
    strict: !!opts.strict,
    reportDir: at.reportDir,
    exchangesFile: at.exchangesFile,
    suiteVersion: SUITE_VERSION,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    propertyRuns: opts.propertyRuns ?? PROFILE_PROPERTY_RUNS[profile],
    profile,
    ...(opts.path !== undefined ? { path: opts.path } : {}),
    ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
    ...(opts.dryRun ? { dryRun: true } : {}),
    ...(opts.harFile !== undefined ? { har: true as const } : {}),
    ...(showsProgress(opts) ? { progress: true as const } : {}),
    ...(at.deadline ? { deadline: at.deadline } : {}),
  };
}
