/**
 * What a run is asked to do (the CLI maps its flags onto RunOptions) and what it gives back.
 */
import type { TargetConfig } from '../config/targets.ts';
import type { Summary } from '../report/summary.ts';
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
  /** A dry run's billable estimate (src/app/billable-plan.ts), part of the plan the report holds. */
  planBillable?: (summary: Summary, reportDir: string) => Promise<NonNullable<Summary['plan']>>;
}

export interface RunResult {
  summary: Summary;
  reportDir: string;
  exitCode: number;
}
