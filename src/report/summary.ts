import type { Exchange } from '../http/client.ts';
import type { CleanupRecord, Effect, LeftBehind, Outcome, Role, Violation } from '../model.ts';
import { coverage } from './reporter.ts';

export interface TestResultRecord {
  title: string;
  file: string;
  ids: string[];
  effect?: Effect;
  outcome: Outcome;
  durationMs: number;
  reason?: string;
  error?: string;
  violations: Array<Violation & { count: number }>;
  exchanges: Exchange[];
  exchangeCount: number;
  cleanup?: CleanupRecord;
  /** Dry run: the test would have run. */
  planned?: boolean;
  /** Not run because the points budget or the account's balance could not pay for it. */
  unpaid?: true;
}

export interface Summary {
  suite: { name: 'gateway-conformance'; version: string };
  target: {
    name: string;
    baseUrl: string;
    embedded: boolean;
    allow: Effect[];
    roles: Role[];
    models: Record<string, string>;
  };
  strict: boolean;
  seed: number;
  startedAt: string;
  durationMs: number;
  /**
   * The live description, and what every response was validated against: `live` (it is valid) or
   * `documented` (the contract's schemas/, when it is missing, unparsable, invalid or over a bound).
   */
  openapi: { sha256?: string; valid: boolean; errors: string[]; validatedAgainst?: 'live' | 'documented' };
  verdict: 'passed' | 'failed' | 'harness_error';
  counts: Record<Outcome, number> & { total: number };
  /** Every failing requirement id, with how many tests it failed. */
  failedRequirements: Record<string, number>;
  advisoryRequirements: Record<string, number>;
  coverage: { testable: number; tested: number; untested: string[]; unknownIds: string[] };
  exchanges: { file: string; count: number };
  /**
   * Things the run created and removed again; what it could not remove is listed by name, and in
   * `details` with why, when, and the job holding it; `boundReached`: tests whose cleanup bound ended it.
   */
  cleanup: { cleaned: number; leftBehind: string[]; details?: LeftBehind[]; boundReached?: number };
  tests: TestResultRecord[];
  /** quick | standard | thorough. */
  profile?: string;
  /** Points the run spent as the target reported them (billing objects of its replies; media holds in full). */
  points?: {
    spent: string;
    budget: string | null;
    source: string;
    /** The primary account's total_points before minus after the run (other traffic may move it too). */
    balanceDelta?: string;
    /** Where the budget came from (a flag, the environment, the file, the default, the available balance). */
    budgetSource?: string;
    /** Why billable work stopped: the primary account could not pay any more. */
    balanceRanOut?: string;
  };
  /** Why the run stopped early (Ctrl-C, its deadline): the tests it did not reach are not run. */
  interrupted?: string;
  /** This report is one shard (i/n) of a run; or, after a merge, the shards it combines. */
  shard?: string;
  shards?: string[];
  dryRun?: boolean;
  /** Dry run: the billable requests the planned tests make, by model, measured on the embedded reference. */
  plan?: {
    basis: string;
    billable: Array<{ model: string; requests: number; points: string }>;
    totalRequests: number;
    totalPoints: string;
  };
  /** --filter of the run: the tests it excluded are not run. */
  filter?: string;
  /** --suite of the run: only these suite files were collected. */
  suites?: string[];
  /** Tests not run because their side-effect class is not allowed, per class. */
  skippedByClass?: Record<string, number>;
  expectations?: Array<{
    id: string;
    test?: string;
    reason: string;
    expires: string;
    status: string;
    tests: string[];
  }>;
  /** What changed in the target's live description since the previous (or a pinned) run's. */
  drift?: {
    against: string;
    changes: Array<{ kind: string; path: string; detail: string; breaking: boolean }>;
    breaking: number;
  };
}

export const OUTCOMES: Outcome[] = [
  'passed',
  'failed',
  'advisory',
  'known_failure',
  'not_run',
  'harness_error',
];

function cleanupOf(tests: TestResultRecord[]): Summary['cleanup'] {
  const details = tests.flatMap((t) => t.cleanup?.leftBehind ?? []);
  const boundReached = tests.filter((t) => t.cleanup?.leftBehind?.some((l) => l.bound)).length;
  return {
    cleaned: tests.reduce((n, t) => n + (t.cleanup?.done.length ?? 0), 0),
    leftBehind: tests.flatMap((t) => t.cleanup?.failed ?? []),
    ...(details.length ? { details } : {}),
    ...(boundReached ? { boundReached } : {}),
  };
}

/** The verdict and tallies of a list of test records (a run, or shards merged into one). */
export function aggregate(
  tests: TestResultRecord[],
  harnessErrors: string[],
): Pick<
  Summary,
  'verdict' | 'counts' | 'failedRequirements' | 'advisoryRequirements' | 'coverage' | 'cleanup'
> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Summary['counts'];
  for (const t of tests) counts[t.outcome]++;
  counts.harness_error += harnessErrors.length;
  counts.total = tests.length;
  const tally = (sev: 'failure' | 'advisory') => {
    const out: Record<string, number> = {};
    for (const t of tests) {
      if (sev === 'failure' && t.outcome === 'known_failure') continue;
      for (const id of new Set(t.violations.filter((v) => v.severity === sev).map((v) => v.id)))
        out[id] = (out[id] ?? 0) + 1;
    }
    return out;
  };
  return {
    verdict: counts.harness_error > 0 ? 'harness_error' : counts.failed > 0 ? 'failed' : 'passed',
    counts,
    failedRequirements: tally('failure'),
    advisoryRequirements: tally('advisory'),
    coverage: coverage(tests),
    cleanup: cleanupOf(tests),
  };
}
