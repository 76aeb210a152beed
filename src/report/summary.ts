import { catalogue } from '../catalogue.ts';
import type { LearnedPrice } from '../runtime/prices.ts';
import type { Effect, LeftBehind, Outcome, Role } from '../vocabulary.ts';
import { type FindingGroup, groupFindings, groupNotRun, type NotRunGroup } from './groups.ts';
import { coverage, judgedOutcome, type RequirementResult, requirementResults } from './requirements.ts';
import type { TestResultRecord } from './test-result.ts';

/** What changed since an earlier run of the target (--compare-with): computed by src/report/compare.ts. */
export interface Changes {
  /** Failing now, not failing then (or not there then). */
  newlyFailing: string[];
  /** Failing then, judged and not failing now. */
  fixed: string[];
  /** Judged then, not judged now (not run, no test, gone). */
  newlyNotRun: string[];
  /** Not judged then (not run, no test, not there), judged now. */
  newlyJudged: string[];
}

export interface SlowerOperation {
  /** Method and path template: `GET /v1/media/jobs/{id}`. */
  operation: string;
  /** Median exchange time then and now, ms. */
  beforeMs: number;
  nowMs: number;
}

export interface Comparison {
  /** The report directory compared with. */
  against: string;
  /** Why that one (`--compare-with previous`): what it is and what newer reports were passed over. */
  why?: string;
  againstStartedAt: string;
  againstVerdict: Verdict;
  requirements: Changes;
  tests: Changes;
  /** The operations whose median time grew most (at most MAX_SLOWER, each with enough samples). */
  slower: SlowerOperation[];
}

/**
 * What summary.json holds, the one type every reader of it uses (merge, the HTML report): the summary and
 * the errors outside any test, which writeReport keeps beside it.
 */
export type StoredSummary = Summary & { harnessErrors?: string[] };

export interface Summary {
  /** `node`: the Node.js that ran the suite (absent in reports written before it was recorded). */
  suite: { name: 'gateway-conformance'; version: string; node?: string };
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
   * `documented` (the contract's schemas/, when it is missing, unparsable, invalid or over a bound;
   * `documentedBecause` says which requirement tells why). `tooLarge`: the size bounds it crosses, why
   * the suite did not examine it (advisory, OAS-006); `errors`: why it is invalid (OAS-001).
   */
  openapi: {
    sha256?: string;
    valid: boolean;
    /** The OpenAPI version a valid description declares (`3.1.0`, `3.2.0`). */
    version?: string;
    errors: string[];
    tooLarge?: string[];
    validatedAgainst?: 'live' | 'documented';
    documentedBecause?: string;
  };
  verdict: Verdict;
  /** Why the run was cut short (a typed cause): its verdict is INCOMPLETE unless something failed. */
  cut?: RunCut;
  /**
   * Why some tests are inconclusive (a connection failed before any byte of a response and the request
   * could not be repeated), when one is that no `flaky:` entry allows: the verdict is then INCOMPLETE
   * unless something failed.
   */
  inconclusive?: string;
  counts: Record<Outcome, number> & { total: number };
  /**
   * Every failing requirement id, with how many tests it failed in (and every id advisory somewhere):
   * the `requirements` rollup's `failed` and `advisory` lists, counted.
   */
  failedRequirements: Record<string, number>;
  advisoryRequirements: Record<string, number>;
  /** The violations grouped by root cause (src/report/groups.ts): what the console and the HTML show. */
  groups?: FindingGroup[];
  /** The tests not run, grouped by cause, with its remedy. */
  notRunGroups?: NotRunGroup[];
  coverage: { testable: number; tested: number; untested: string[]; unknownIds: string[] };
  /**
   * Each requirement's outcome over the run (failed > harness error > known failure > advisory > passed >
   * not run > no test), with the indices of the tests citing it and why those not run did not run.
   */
  requirements: Record<string, RequirementResult>;
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
    /** Why `spent` and `balanceDelta` differ, from what the run measured (absent: they agree). */
    balanceDeltaWhy?: BalanceDeltaWhy;
    /** Where the budget came from (a flag, the environment, the file, the default, the available balance). */
    budgetSource?: string;
    /** Why billable work stopped: the primary account could not pay any more. */
    balanceRanOut?: string;
    /** What the replies reported (`spent` is the larger of this and `measured`). */
    replies?: string;
    /** The primary available_points' fall since before the run at the last balance read, plus replies after it. */
    measured?: string;
    /** The media prices learned from the jobs bought, by model (`--prices` reads them back). */
    prices?: Record<string, LearnedPrice>;
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
    /** `media`: the model's requests create media jobs (else text calls: chat, responses, embeddings). */
    billable: Array<{ model: string; requests: number; points: string; media?: true }>;
    totalRequests: number;
    totalPoints: string;
    /** The points budget the run would have (absent: none), to set beside the total. */
    budget?: { points: string; source: string };
    /** What that budget buys, in the order the run spends it (src/app/budget-buys.ts), when it is less. */
    buys?: string;
  };
  /** --filter of the run: the tests it excluded are not run. */
  filter?: string;
  /** --suite of the run: only these suite files were collected. */
  suites?: string[];
  /** Tests not run because their side-effect class is not allowed, per class. */
  skippedByClass?: Record<string, number>;
  expectations?: Array<{
    /** Absent for a `flaky:` entry without one. */
    id?: string;
    test?: string;
    /** An entry of `flaky:` (a test allowed to be inconclusive), not a known failure. */
    flaky?: true;
    reason: string;
    expires: string;
    status: string;
    tests: string[];
  }>;
  /** What changed since an earlier report of the target (--compare-with): src/report/compare.ts. */
  comparison?: Comparison;
  /** --compare-with previous found no earlier report of the target: said instead of a comparison. */
  comparisonMissing?: string;
  /** check-traffic: what the captured traffic held and what of it was judged (src/traffic/judge.ts). */
  capture?: {
    files: string[];
    /** Entries met in the files, read or not; those read; the exchanges among them judged. */
    entries: number;
    entriesRead: number;
    exchangesJudged: number;
    requirementsJudged: number;
    /** The rules check-traffic knows that this capture held nothing to judge with: not judged, never passed. */
    notJudged: string[];
    /** Entries (or files) that could not be read, each named. */
    problems: string[];
    /** Exchanges left out because their origin is not the API's (check-traffic): how many of each origin. */
    otherOrigins?: Record<string, number>;
    /** What responses were validated against. */
    description: string;
    /** What the capture holds: the time span of its exchanges, the credentials and endpoints they used. */
    holds?: CaptureHolds;
  };
  /** What changed in the target's live description since the previous (or a pinned) run's. */
  drift?: {
    against: string;
    changes: Array<{ kind: string; path: string; detail: string; breaking: boolean }>;
    breaking: number;
  };
}

/**
 * What a capture holds, as its report says it (check-traffic; summed over shards by merge): the first and
 * last exchange's start (ISO 8601, as the capture gives them), how many credentials (by digest) and which
 * endpoints (method and path template, at most CAPTURE_ENDPOINTS_LISTED listed, the rest counted).
 */
export interface CaptureHolds {
  from?: string;
  to?: string;
  credentials: number;
  endpoints: string[];
  moreEndpoints?: number;
}
export const CAPTURE_ENDPOINTS_LISTED = 100;

/** What a capture holds, in one sentence (the console and the HTML). */
export function holdsText(h: CaptureHolds): string {
  const span = h.from && h.to ? `exchanges from ${h.from} to ${h.to}` : 'exchanges with no start time';
  const endpoints = h.endpoints.length + (h.moreEndpoints ?? 0);
  return `${span}; ${h.credentials} credential${h.credentials === 1 ? '' : 's'} (told apart by digest); ${endpoints} endpoint${endpoints === 1 ? '' : 's'}`;
}

/**
 * The run's one verdict word, decided once (aggregate) from typed facts, in this order: a harness error,
 * a failure among what ran, a run cut short or an inconclusive test no `flaky:` entry allows
 * (incomplete), a partial selection (--filter, --suite, one shard), else passed (every test of the plan for the allowed classes ran; tests not run for a class
 * not allowed, a role or capability missing are counted on the verdict line).
 */
export const VERDICTS = ['passed', 'failed', 'harness_error', 'incomplete', 'partial'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** What cut a run short: a signal, its deadline, a dead target, the points budget or the balance. */
/** What cut a run short; `capture`: a part of a capture (check-traffic) could not be read (truncated, broken). */
export type CutKind = 'signal' | 'deadline' | 'dead_target' | 'budget' | 'balance' | 'capture';
export interface RunCut {
  kind: CutKind;
  reason: string;
}

/** The facts beside the test records that decide the verdict word. */
export interface VerdictFacts {
  cut?: RunCut | undefined;
  /** The run judged a selection of the plan only (--filter, --suite, a shard, a merge missing shards, a dry run). */
  partial?: boolean;
}

/**
 * Exit codes, one mapping for every command (run, merge): 0 passed (or a partial selection that
 * passed), 1 a check failed, 2 usage/configuration, 3 harness error, 4 incomplete (deadline, dead
 * target, budget, balance), 130 incomplete because a signal stopped it (Ctrl-C, SIGTERM).
 */
export const EXIT = { passed: 0, failed: 1, usage: 2, harness: 3, incomplete: 4, interrupted: 130 } as const;

export function exitCodeOf(s: { verdict: Verdict; cut?: RunCut | undefined }): number {
  switch (s.verdict) {
    case 'harness_error':
      return EXIT.harness;
    case 'failed':
      return EXIT.failed;
    case 'incomplete':
      return s.cut?.kind === 'signal' ? EXIT.interrupted : EXIT.incomplete;
    default:
      return EXIT.passed;
  }
}

/** The verdict word as printed: `PASSED`, `HARNESS ERROR`, ... */
export const verdictWord = (v: Verdict): string => v.toUpperCase().replace('_', ' ');

/** What the first and the last line say of a run against the embedded reference. */
export const EMBEDDED_NOTE = 'target: the embedded reference server, not a deployment';

/**
 * A reason as the verdict line says it, inside its one pair of parentheses: a parenthetical of the
 * reason ("… got no answer (the last: …)") is set off with a dash instead.
 */
export const flatReason = (reason: string): string => reason.replace(/ \(([^()]*)\)/g, ' — $1');

/**
 * The last line of a run: the verdict word, then how much of the plan it judged and why not all of it
 * (the cut, the selection, the tests not run for a class not allowed, a missing role or capability).
 */
export function verdictLine(
  s: Pick<Summary, 'verdict' | 'cut' | 'inconclusive' | 'counts' | 'filter' | 'suites' | 'shard' | 'dryRun'> &
    Partial<Pick<Summary, 'requirements' | 'capture' | 'shards'>> & {
      target: { embedded: boolean; allow: Effect[] };
      tests: Array<Pick<TestResultRecord, 'outcome' | 'effect'>>;
    },
): string {
  // A capture's last line speaks of captures (entries, rules judged and not), never of a run's plan.
  if (s.capture) return captureVerdictLine(s);
  const c = s.counts;
  const judged = c.total - c.not_run;
  const detail: string[] = [];
  // A cut run that also failed says both: FAILED (INCOMPLETE: why). One level of parentheses: a reason's
  // own parenthetical ("… got no answer (the last: …)") is set off with a dash inside the verdict's.
  if (s.cut)
    detail.push(flatReason(s.verdict === 'incomplete' ? s.cut.reason : `INCOMPLETE: ${s.cut.reason}`));
  if (s.inconclusive)
    detail.push(flatReason(s.verdict === 'incomplete' ? s.inconclusive : `INCOMPLETE: ${s.inconclusive}`));
  const selection = [
    s.filter !== undefined && `--filter ${s.filter}`,
    s.suites?.length && `--suite ${s.suites.join(',')}`,
    s.shard && `shard ${s.shard}`,
    s.dryRun && 'a dry run (no request was sent)',
  ].filter(Boolean);
  if (selection.length) detail.push(`a selection: ${selection.join(', ')}`);
  // Not run for a side-effect class the run did not allow: outside the plan (a typed fact of each test).
  const byClass = s.tests.filter(
    (t) => t.outcome === 'not_run' && t.effect && !s.target.allow.includes(t.effect),
  ).length;
  const notRun = !c.not_run
    ? ''
    : byClass === 0
      ? `, ${c.not_run} not run`
      : `, ${c.not_run} not run (${byClass} for a side-effect class not allowed${c.not_run > byClass ? `, ${c.not_run - byClass} for other reasons (each with its reason in the report)` : ''})`;
  const inconclusive = c.inconclusive ? `, ${c.inconclusive} inconclusive` : '';
  detail.push(`${judged - (c.inconclusive ?? 0)} of ${c.total} tests judged${inconclusive}${notRun}`);
  // Requirements: judged only where a test observed their form; the rest are said, never counted passed.
  const reqs = Object.values(s.requirements ?? {}).filter((r) => r.outcome !== 'no_test');
  if (reqs.length && !s.dryRun) {
    const notJudged = reqs.filter((r) => r.outcome === 'not_judged').length;
    detail.push(
      `${reqs.filter((r) => judgedOutcome(r.outcome)).length} of ${reqs.length} requirements judged${notJudged ? `, ${notJudged} not judged: the target never showed what they need` : ''}`,
    );
  }
  return `VERDICT: ${verdictWord(s.verdict)} (${detail.join('; ')})${s.target.embedded ? ` — ${EMBEDDED_NOTE}` : ''}`;
}

/**
 * The last line of check-traffic (a capture, a shard of one, or the shards merged): how much of the
 * capture was judged, in a capture's words (entries, requirements judged and not), never a run's plan.
 */
export function captureVerdictLine(
  s: Pick<Summary, 'verdict' | 'cut' | 'capture' | 'shard' | 'shards'>,
): string {
  const c = s.capture!;
  const cut = s.cut ? flatReason(`${s.verdict === 'incomplete' ? '' : 'INCOMPLETE: '}${s.cut.reason}; `) : '';
  const shards = s.shard ? `, shard ${s.shard}` : s.shards ? `, shards ${s.shards.join(', ')}` : '';
  return `VERDICT: ${verdictWord(s.verdict)} (${cut}captured traffic: ${c.exchangesJudged} of ${c.entries} entries judged, ${c.requirementsJudged} requirements judged, ${c.notJudged.length} not judged by this capture${c.problems.length ? `, ${c.problems.length} input problem(s)` : ''}${shards})`;
}

export const OUTCOMES: Outcome[] = [
  'passed',
  'failed',
  'advisory',
  'known_failure',
  'inconclusive',
  'not_run',
  'harness_error',
];

/**
 * Why the run is not PASSED for its inconclusive tests: those no `flaky:` entry allows (an allowed one is
 * still shown apart, counted as inconclusive). Undefined when there is none.
 */
export function inconclusiveReason(
  tests: ReadonlyArray<Pick<TestResultRecord, 'outcome' | 'flaky'>>,
): string | undefined {
  const open = tests.filter((t) => t.outcome === 'inconclusive' && !t.flaky).length;
  if (open === 0) return undefined;
  return `${open} test${open === 1 ? '' : 's'} inconclusive: a connection failed before any byte of a response and the request was not safe to repeat (run again; a flaky: entry of the expectations file allows a known one)`;
}

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
  facts: VerdictFacts = {},
): Pick<
  Summary,
  | 'verdict'
  | 'cut'
  | 'inconclusive'
  | 'counts'
  | 'failedRequirements'
  | 'advisoryRequirements'
  | 'groups'
  | 'notRunGroups'
  | 'coverage'
  | 'requirements'
  | 'cleanup'
> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Summary['counts'];
  for (const t of tests) counts[t.outcome]++;
  counts.harness_error += harnessErrors.length;
  counts.total = tests.length;
  // The per-id tallies are read off the per-requirement rollup: one judgement of which tests an id
  // failed (or was advisory) in, for the console, the HTML, merge and the matrix alike.
  const requirements = requirementResults(tests, catalogue().values());
  const tally = (list: 'failed' | 'advisory') => {
    const out: Record<string, number> = {};
    for (const [id, r] of Object.entries(requirements)) if (r[list].length > 0) out[id] = r[list].length;
    return out;
  };
  const groups = groupFindings(tests);
  const inconclusive = inconclusiveReason(tests);
  return {
    verdict:
      counts.harness_error > 0
        ? 'harness_error'
        : counts.failed > 0
          ? 'failed'
          : facts.cut || inconclusive
            ? 'incomplete'
            : facts.partial
              ? 'partial'
              : 'passed',
    ...(facts.cut ? { cut: facts.cut } : {}),
    ...(inconclusive ? { inconclusive } : {}),
    counts,
    failedRequirements: tally('failed'),
    advisoryRequirements: tally('advisory'),
    groups,
    notRunGroups: groupNotRun(tests, groups),
    coverage: coverage(tests, catalogue()),
    requirements,
    cleanup: cleanupOf(tests),
  };
}

/**
 * The facts behind a difference between the points a run counts as spent and what the primary
 * account's total_points moved (decimal strings, computed once in finish and rendered by every report).
 */
export interface BalanceDeltaWhy {
  /** held_points (total - available) after the run minus before: holds counted as spent, not settled yet. */
  stillHeld?: string;
  /** Points the replies reported spent with other roles' keys than the primary one (other accounts). */
  elsewhere?: string;
  /** The target declares the primary account shared: other traffic moves its balance too. */
  shared?: true;
  /**
   * spent - moved - stillHeld - elsewhere. Positive: holds counted in full (a media job's pending_points) that were
   * released or settled lower (refunds). Negative: charges the replies did not report (or other traffic).
   */
  rest?: string;
}

/** The clause that says why spent and the balance's move differ (console, summary.md, HTML). */
export function balanceDeltaClause(why: BalanceDeltaWhy): string {
  const parts: string[] = [];
  if (why.stillHeld) parts.push(`${why.stillHeld} still held by requests not settled yet`);
  if (why.elsewhere) parts.push(`${why.elsewhere} spent with other roles' keys (other accounts)`);
  if (why.rest && !why.rest.startsWith('-'))
    parts.push(`${why.rest} of holds counted in full but released or settled lower`);
  if (why.rest?.startsWith('-')) parts.push(`${why.rest.slice(1)} more than the replies reported`);
  if (why.shared) parts.push('the account is shared, so other traffic moves it too');
  return parts.join('; ');
}

/** `points spent: X of a budget of Y (the primary balance moved by Z: why)`, for the console and summary.md. */
export function pointsSpentLine(p: NonNullable<Summary['points']>): string {
  const budget = p.budget ? ` of a budget of ${p.budget}` : '';
  const why = p.balanceDeltaWhy ? `: ${balanceDeltaClause(p.balanceDeltaWhy)}` : '';
  const moved = p.balanceDelta !== undefined ? ` (the primary balance moved by ${p.balanceDelta}${why})` : '';
  return `points spent: ${p.spent}${budget}${moved}`;
}
