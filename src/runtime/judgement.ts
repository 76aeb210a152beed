/**
 * The verdict of a test whose body ran: from what it found (violations, cases a limit left unanswered,
 * connection failures that could not be repeated) and the facts of how it ended (a stop, the account's
 * balance running out) to its outcome and the notes that go with it. Pure: nothing is read or written
 * here; each rule is one function, applied in judge()'s order (balance, limit, unavailable, skip, stop,
 * transient, unseen),
 * and the first that leaves the test with nothing judged ends it not run.
 */
import {
  type NotRunCause,
  type Outcome,
  UNAVAILABLE_STATUSES,
  type VerdictCase,
  type Violation,
} from '../vocabulary.ts';
import type { BudgetRefusal } from './budget.ts';
import { budgetCause, type NotApplicable } from './may-run.ts';

/** What a test body found, as its context recorded it. */
export interface Findings {
  /** Every violation recorded, in order (failures and advisories). */
  violations: readonly Violation[];
  /** Cases a rule needed answered that got a limit (429) instead (CheckContext.notJudged429). */
  limitedCases: readonly string[];
  /** Connection failures that could not be repeated (TransportError.inconclusive). */
  inconclusive: readonly string[];
  /** One of its own replies showed the account's balance ran out: why, and how many violations came before. */
  balanceRanOut?: { reason: string; violations: number } | undefined;
  /** A stop (run stop, budget) ended it halfway: the stop's message, and the budget refusal if it was one. */
  stoppedBy?: string | undefined;
  unpaid?: BudgetRefusal | undefined;
  /** It could go no further (t.skip: a precondition the target did not give): why, and its typed cause. */
  wentNoFurther?: { reason: string; cause?: NotRunCause | undefined } | undefined;
}

/** The facts of the test the verdict needs. */
export interface JudgeFacts {
  /** The requirement ids the test checks. */
  ids: readonly string[];
  /** The test judges 429 answers itself (CheckSpec.judges429). */
  judges429: boolean;
  /** The status of one of the test's exchanges (undefined: no answer, or not one of its exchanges). */
  statusOf: (exchangeId: string) => number | undefined;
  /** The request of one of the test's exchanges (undefined: not one of its exchanges). */
  requestOf: (exchangeId: string) => { method: string; path: string } | undefined;
  /** A judgement of one of its own ids was made on what the target showed (CheckContext.observe). */
  observedOwn: boolean;
}

/** A violation the verdict does not count, and why (the caller marks it so: notJudged). */
export interface Unjudged {
  violation: Violation;
  because: string;
}

/**
 * The verdict: its outcome, the failures it stands on, the violations not judged. A test not run that
 * went no further has `discard`: nothing it found counts (an advisory is not judged either); one that
 * failed after it went no further has a note of where it ended.
 */
export type Judgement = { unjudged: Unjudged[] } & (
  | { outcome: 'not_run'; notRun: NotRun; discard?: true }
  | { outcome: 'inconclusive'; reason: string }
  | { outcome: Extract<Outcome, 'failed' | 'advisory' | 'passed'>; failures: Violation[]; notes?: string[] }
);

/** Why a judged test is not run: as NotApplicable, its cause absent where the test's skip gave none. */
export type NotRun = Omit<NotApplicable, 'cause'> & { cause?: NotRunCause | undefined };

/** One rule's result: the failures still standing, those it took out, and a not-run if nothing stands. */
interface RuleResult {
  failures: Violation[];
  unjudged: Unjudged[];
  notRun?: NotApplicable;
}

/**
 * The account could not pay for what the test asked: not the target's failure. What the test found
 * before its balance ran out stands; what came after is not judged, and a test with nothing else is not run.
 */
export function balanceRule(
  failures: Violation[],
  violations: readonly Violation[],
  ranOut: Findings['balanceRanOut'],
): RuleResult {
  if (!ranOut) return { failures, unjudged: [] };
  const after = violations.slice(ranOut.violations);
  const unjudged = failures
    .filter((f) => after.includes(f))
    .map((violation) => ({ violation, because: "the account's balance ran out" }));
  const left = failures.filter((f) => !after.includes(f));
  if (left.length > 0) return { failures: left, unjudged };
  return {
    failures: left,
    unjudged,
    notRun: {
      reason: ranOut.reason,
      cause: { kind: 'budget', subject: ranOut.reason, remedy: "top up the primary account's points" },
      unpaid: true,
    },
  };
}

const LIMIT_STATUSES: ReadonlySet<number> = new Set([429]);

/**
 * The failures of the test's own rules, or of the prerequisite reads it cites, that stand on an answer
 * of one of `statuses` (the per-exchange findings in that answer stay judged); none for a test that
 * judges 429 itself, which judges such answers as its rule's.
 */
function answeredWith(failures: Violation[], facts: JudgeFacts, statuses: ReadonlySet<number>): Violation[] {
  if (facts.judges429) return [];
  return failures.filter(
    (v) =>
      (facts.ids.includes(v.id) || v.scope !== 'exchange') &&
      v.exchangeId !== undefined &&
      statuses.has(facts.statusOf(v.exchangeId) ?? 0),
  );
}

/**
 * A limit or protection of the target refused a request the rule needed answered: not judged. That
 * covers the test's own ids and the prerequisite reads it cites (balance, catalog, usage) alike; what
 * the per-exchange checks find in a 429 reply itself (its shape, its headers) stays judged. A test that
 * judges 429 itself counts them all.
 */
export function limitRule(
  failures: Violation[],
  limitedCases: readonly string[],
  facts: JudgeFacts,
): RuleResult {
  const limited = answeredWith(failures, facts, LIMIT_STATUSES);
  if (limited.length === 0 && limitedCases.length === 0) return { failures, unjudged: [] };
  const unjudged = limited.map((violation) => ({ violation, because: 'the target answered 429' }));
  const left = failures.filter((v) => !limited.includes(v));
  if (left.length > 0) return { failures: left, unjudged };
  const what = [...new Set(limited.map((v) => v.id)), ...limitedCases.slice(0, 3)].join('; ');
  return {
    failures: left,
    unjudged,
    notRun: {
      reason: `the target answered 429 (a limit or protection, which the contract allows: "wait for the limit window"): ${what}${limitedCases.length > 3 ? ` and ${limitedCases.length - 3} more case(s)` : ''} not judged; run again when its limits allow`,
      cause: {
        kind: 'limited',
        subject: 'the target answered 429 (a limit or protection)',
        remedy: 'run again when its limits allow, or with a lower --concurrency',
      },
    },
  };
}

/**
 * A request the rule needed answered met a 502, 503 or 504: "a 502/503/504" is advisory, never promoted
 * (judging.md: a model may be unavailable), so what the test concluded from that answer is not judged,
 * as a 429's is not (limitRule), and a test left with nothing else is not run. The answer itself stays
 * judged by the per-exchange checks (ERR-003 advisory, its APIError shape, its declared status). A test
 * that judges 429 itself (a guard's refusal) judges its 5xx as well.
 */
export function unavailableRule(failures: Violation[], facts: JudgeFacts): RuleResult {
  const statusOf = (v: Violation) => (v.exchangeId === undefined ? undefined : facts.statusOf(v.exchangeId));
  const hit = answeredWith(failures, facts, UNAVAILABLE_STATUSES);
  if (hit.length === 0) return { failures, unjudged: [] };
  const unjudged = hit.map((violation) => ({
    violation,
    because: `the target answered ${statusOf(violation)} (a model or an upstream unavailable)`,
  }));
  const left = failures.filter((v) => !hit.includes(v));
  if (left.length > 0) return { failures: left, unjudged };
  const first = hit[0]!;
  const request = first.exchangeId === undefined ? undefined : facts.requestOf(first.exchangeId);
  const status = statusOf(first)!;
  const subject = request ? `${request.method} ${request.path} answered ${status}` : `answered ${status}`;
  return {
    failures: left,
    unjudged,
    notRun: {
      reason: `${subject}: a model or an upstream was unavailable, which the contract allows ("When a model is unavailable the service returns an error"); ${[...new Set(hit.map((v) => v.id))].join(', ')} not judged; run again when it is available`,
      cause: request
        ? { kind: 'endpoint', subject, endpoint: { ...request, status } }
        : { kind: 'precondition', subject },
    },
  };
}

/** Stopped halfway: what it found stands; a test that found nothing yet is not run (never passed). */
export function stopRule(
  failures: Violation[],
  stoppedBy: string | undefined,
  unpaid: BudgetRefusal | undefined,
): NotApplicable | undefined {
  if (!stoppedBy || failures.length > 0) return undefined;
  return {
    reason: `${stoppedBy} (stopped while running)`,
    cause: unpaid ? budgetCause(unpaid.subject, unpaid.remedy) : { kind: 'stopped', subject: stoppedBy },
    ...(unpaid ? { unpaid: true as const } : {}),
  };
}

/**
 * It could go no further (a precondition's reply, a role or hint not configured): not run with its
 * reason, unless a failure it met before stands, since a precondition's reply that broke the contract is
 * the target's failure, never lost to the test it stopped; that test fails with a note of where it ended.
 */
export function skipRule(failures: Violation[], skip: Findings['wentNoFurther']): NotRun | undefined {
  if (!skip || failures.length > 0) return undefined;
  return { reason: skip.reason, ...(skip.cause ? { cause: skip.cause } : {}) };
}

/**
 * A connection failure that could not be repeated says nothing of the contract (judging.md): a test
 * with nothing else failed is inconclusive, never passed nor failed (its advisories are kept).
 */
export function transientRule(failures: Violation[], inconclusive: readonly string[]): string | undefined {
  if (failures.length > 0 || inconclusive.length === 0) return undefined;
  return `inconclusive: ${inconclusive.join('; ')}`;
}

/**
 * A test that met nothing wrong and judged none of its own ids on what the target showed (its body
 * returned where the form it checks never came) judged nothing: not run with why, never passed.
 */
export function unseenRule(violations: readonly Violation[], facts: JudgeFacts): NotRun | undefined {
  if (violations.length > 0 || facts.observedOwn) return undefined;
  return {
    reason: `the target showed nothing this test judges: none of ${facts.ids.join(', ')} was judged on its replies`,
    cause: { kind: 'precondition', subject: 'the form its rules judge, which the target did not show' },
  };
}

/** The verdict of a test whose body ran: the rules above in order, then failed, advisory or passed. */
export function judge(found: Findings, facts: JudgeFacts): Judgement {
  const unjudged: Unjudged[] = [];
  let failures = found.violations.filter((v) => v.severity === 'failure');
  for (const rule of [
    () => balanceRule(failures, found.violations, found.balanceRanOut),
    () => limitRule(failures, found.limitedCases, facts),
    () => unavailableRule(failures, facts),
  ]) {
    const r = rule();
    unjudged.push(...r.unjudged);
    failures = r.failures;
    if (r.notRun) return { outcome: 'not_run', notRun: r.notRun, unjudged };
  }
  const skipped = skipRule(failures, found.wentNoFurther);
  if (skipped) return { outcome: 'not_run', notRun: skipped, discard: true, unjudged };
  const stopped = stopRule(failures, found.stoppedBy, found.unpaid);
  if (stopped) return { outcome: 'not_run', notRun: stopped, unjudged };
  const inconclusive = transientRule(failures, found.inconclusive);
  if (inconclusive) return { outcome: 'inconclusive', reason: inconclusive, unjudged };
  const unseen = unseenRule(found.violations, facts);
  if (unseen) return { outcome: 'not_run', notRun: unseen, unjudged };
  const outcome = failures.length > 0 ? 'failed' : found.violations.length > 0 ? 'advisory' : 'passed';
  const notes = found.wentNoFurther ? [`went no further: ${found.wentNoFurther.reason}`] : undefined;
  return { outcome, failures, unjudged, ...(notes ? { notes } : {}) };
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** How an answer met the contract's verdict for its request (CheckContext.verdict). */
export type Verdict =
  /** A 429, a limit of the target: neither an acceptance nor a refusal, the case is not judged. */
  | { judged: false; mismatch?: undefined }
  /** mismatch: the violation message when the answer contradicts the verdict; absent when it agrees. */
  | { judged: true; mismatch?: string; case?: VerdictCase };

/**
 * The contract's verdict for one request answered `status` (not a limit: the caller leaves a 429 not
 * judged first): valid -> 2xx; invalid -> a 4xx refusal. `mismatch` when the answer contradicts it.
 */
export function caseVerdict(status: number, valid: boolean, what: string): Verdict {
  if (valid)
    return isSuccess(status)
      ? { judged: true }
      : {
          judged: true,
          mismatch: `${what} is valid per the contract but was answered ${status}`,
          case: { wrong: 'refused', what },
        };
  return status >= 400 && status < 500
    ? { judged: true }
    : {
        judged: true,
        mismatch: `${what} is invalid per the contract but was answered ${status} (expected a 4xx refusal)`,
        case: { wrong: 'accepted', what },
      };
}
