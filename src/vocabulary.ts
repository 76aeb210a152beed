/** Shared vocabulary of the harness: side-effect classes, roles, hints, levels and verdicts. */
export const EFFECTS = ['read', 'write', 'billable', 'tickets', 'payments'] as const;
export type Effect = (typeof EFFECTS)[number];

export const ROLES = [
  'primary',
  'isolated',
  'other_tenant',
  'enterprise',
  'enterprise_second',
  'restricted_models',
  'restricted_inference',
  'restricted_media',
  'restricted_support',
  'restricted_usage',
  'restricted_balance',
  'expired',
  'revoked',
  'ip_blocked',
  'no_models',
  'poor',
  'quota_nearly_full',
  'ticket_limit',
  'ratelimited',
  'tokens_limited',
  'concurrency_limited',
  'spend_limited',
] as const;
export type Role = (typeof ROLES)[number];
/** The keys of the enterprise account (fixtures/roles.yaml): its two full-scope keys and those restricted by scope. */
export const ENTERPRISE_ROLES: ReadonlyArray<Role> = ROLES.filter(
  (r) => r === 'enterprise' || r === 'enterprise_second' || r.startsWith('restricted_'),
);

export const HINTS = [
  'chat',
  'embedding',
  'responses',
  'no_responses',
  'forbidden',
  'forbidden_embedding',
  'forbidden_responses',
] as const;
export type Hint = (typeof HINTS)[number];
/** The hints of models outside the primary account's catalog: never discovered from it. */
export type ForbiddenHint = Extract<Hint, `forbidden${string}`>;
export const isForbiddenHint = (h: Hint): h is ForbiddenHint => h.startsWith('forbidden');

/** How deep a run goes (property runs, scenario rounds, covering strength): --profile. */
export const PROFILES = ['quick', 'standard', 'thorough'] as const;
export type Profile = (typeof PROFILES)[number];

/** failure: stated rule; implied: implied invariant (failure under --strict); notable: always advisory. */
export type Level = 'failure' | 'implied' | 'notable';

/**
 * known_failure: a failure the target's expectations file lists with a reason and a future expiry date.
 * inconclusive: the test's only findings are connection failures before any byte of a response that
 * could not be repeated on a fresh connection (judging.md): neither passed nor failed.
 */
export type Outcome =
  | 'passed'
  | 'failed'
  | 'advisory'
  | 'known_failure'
  | 'inconclusive'
  | 'not_run'
  | 'harness_error';

/**
 * A test (or a requirement) that ran and was decided: its judgements stand. Not run, inconclusive and a
 * harness error decide nothing (a stop, a connection failure or the suite's own error took them).
 */
export const decidedOutcome = (o: string): boolean =>
  o === 'passed' || o === 'failed' || o === 'advisory' || o === 'known_failure';

/**
 * The answers that say a model or an upstream was unavailable: "a 502/503/504" is advisory, never
 * promoted (judging.md), wherever it is met (ERR-003; RESP-001 where the description does not declare it).
 */
export const UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * A 502, 503 or 504 whose body is no JSON: the page of a proxy or load balancer in front of the service
 * (nginx's "502 Bad Gateway"), as passing as its status. Its body is no answer of the service's: its
 * APIError shape (ERR-001) and its content type the description does not declare (RESP-002) are
 * advisory, as the status is, or the verdict would turn on whether an upstream was down (variant
 * proxy-502-page). A JSON body at those statuses is the service's, judged as any.
 */
export function unavailablePage(res: { status: number; json?: unknown }): boolean {
  return UNAVAILABLE_STATUSES.has(res.status) && res.json === undefined;
}

export interface Violation {
  id: string;
  level: Level;
  /** Effective severity after --strict. */
  severity: 'failure' | 'advisory';
  message: string;
  pointer?: string;
  received?: unknown;
  expected?: unknown;
  exchangeId?: string;
  /** Raised by the checks every exchange gets (src/checks/, the live description), not by the test's own rule. */
  scope?: 'exchange';
  /**
   * A case of a rule the answer contradicted (CheckContext.verdict): which way, and the case in words.
   * Cases of one rule on one endpoint are one root cause (no validation of `temperature`), not one each.
   */
  verdictCase?: VerdictCase;
  /** The count of a test's violations of this id beyond those it lists (ViolationLog): no cause of its own. */
  unlisted?: true;
}

export interface VerdictCase {
  /**
   * `accepted`: an invalid request answered 2xx; `refused`: a valid one not accepted; `status`: a
   * refusal with a status the contract does not give it; `code`: a refusal with another error code than
   * the contract's (the code it carried is the violation's `received`: one code, one cause, wherever);
   * `carried`: a reply carries what the rule forbids there (a points field in the legacy format).
   */
  wrong: 'accepted' | 'refused' | 'status' | 'code' | 'carried';
  what: string;
  /**
   * Rules that one cause breaks together, across requirements and endpoints: `authentication`, every
   * probe of a key (none, unknown, another scheme, ...) answered 2xx, is one root cause, no auth at all;
   * `scope`, keys restricted to other scopes answered on every endpoint, is no scope check; `legacy`,
   * points fields in every legacy-format reply, is the legacy format not applied; `points`, points
   * values of one kind (JSON numbers, strings that are no decimal) wherever they are, is one writer;
   * `balance`, the account's figures (total, held, ledger) disagreeing with the charges the replies
   * report, wherever a test compared them, is one bookkeeping (src/report/groups.ts ACCOUNT_FIGURES).
   */
  family?: 'authentication' | 'scope' | 'legacy' | 'points' | 'balance';
}

/**
 * Why a test was not run, as a typed fact: its kind, what it is about (the class, role, capability,
 * hint, endpoint...), and the remedy a user can apply. Not-run lines are grouped by kind and subject.
 */
export interface NotRunCause {
  kind:
    | 'class'
    | 'role'
    | 'capability'
    | 'hint'
    | 'stopped'
    | 'budget'
    | 'limited'
    | 'lock'
    | 'dry_run'
    | 'filter'
    | 'endpoint'
    | 'precondition';
  /** What the cause is about: 'billable', 'revoked', 'GET /v1/media/models answered 404', ... */
  subject: string;
  /** How to make the test run: the variable to set, the flag to pass, the capability to declare. */
  remedy?: string;
  /** kind 'endpoint': the request whose answer left the test nothing to judge. */
  endpoint?: { method: string; path: string; status: number };
}

/** Not run because `method path` answered `status`: one cause for every test it stopped. */
export function answeredCause(method: string, path: string, status: number): NotRunCause {
  return {
    kind: 'endpoint',
    subject: `${method} ${path} answered ${status}`,
    endpoint: { method, path, status },
  };
}

/** Something a test created and could not remove, with why, when, and the job holding it if one does. */
export interface LeftBehind {
  item: string;
  reason: string;
  /** When the cleanup gave up on it (ISO 8601). */
  at: string;
  holder?: { job: string; status: string };
  /** The cleanup ended here because the test's cleanup bound was reached. */
  bound?: true;
}

export interface CleanupRecord {
  done: string[];
  failed: string[];
  leftBehind?: LeftBehind[];
  /** How long the test's cleanups took (ms), waits for jobs included. */
  ms?: number;
}
