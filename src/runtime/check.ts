import { setTimeout as sleep } from 'node:timers/promises';
import { Decimal } from 'decimal.js';
import { describe, test } from 'vitest';
import { type Touch, touchOf } from '../applicability.ts';
import { notJudged, requirement, violation } from '../catalogue.ts';
import { exchangeFindings } from '../checks/per-exchange.ts';
import { accountingField } from '../checks/points.ts';
import { envHintName, type TargetConfig } from '../config/targets.ts';
import { TransportError } from '../errors.ts';
import {
  type Exchange,
  type HttpClient,
  type HttpResponse,
  modelOf,
  type RequestSpec,
} from '../http/client.ts';
import { targetClient } from '../http/target-client.ts';
import { capEvidence } from '../openapi/guard.ts';
import type {
  CleanupRecord,
  Effect,
  Hint,
  LeftBehind,
  NotRunCause,
  Outcome,
  Role,
  VerdictCase,
  Violation,
} from '../vocabulary.ts';
import { type NotApplicable, notApplicable, roleCause } from './applicability.ts';
import {
  BALANCE_EVERY,
  type BalanceAfter,
  type BudgetRefusal,
  balanceSignal,
  budgetRefusal,
  buysMediaJob,
  checkReported,
  countUnmeasured,
  markBalanceOut,
  mustWait,
  noteBalanceSpent,
  type RunBudget,
  recordMeasured,
  recordSpend,
  release,
  reserve,
  spendOf,
} from './budget.ts';
import { TestSlot } from './gate.ts';
import { caseVerdict, judge, type Verdict } from './judgement.ts';
import { noteExchange, stopReason } from './liveness.ts';
import { AccountLock, LockTimeout } from './lock.ts';
import { secondsOf } from './prices.ts';
import { cleanupBoundMs, pastDeadline, runConfig } from './run-config.ts';
import { discoverHints, undiscovered, type WorkerState, worker } from './worker.ts';

export { isSuccess, type Verdict } from './judgement.ts';

export interface TestRecord {
  ids: string[];
  effect: Effect;
  outcome: Outcome;
  violations: Array<Violation & { count: number }>;
  /** The exchanges the violations cite (redacted). */
  exchanges: Exchange[];
  exchangeCount: number;
  reason?: string;
  /** Why it was not run, typed (kind, subject, remedy). */
  cause?: NotRunCause;
  error?: string;
  /** Dry run: the test would have run (it is reported as not run with that reason). */
  planned?: boolean;
  /** Not run (or stopped) because the points budget or the account's balance could not pay for it. */
  unpaid?: true;
  /** What the test created and then cleaned up, and what it could not clean up. */
  cleanup?: CleanupRecord;
  /** The places its requests touched (src/applicability.ts), each once. */
  touches?: Touch[];
  /**
   * Requests of this test repeated once on a fresh connection after a connection failure before any
   * byte of a response (the client's transientRetry); absent when none was. Its requests took
   * exchangeCount attempts in all (429 waits included).
   */
  retried?: number;
  /** What a reader must know of how the test judged (a sample it drew, with the seed that replays it). */
  notes?: string[];
  /**
   * The requirement ids a judgement of this test was made on (a condition evaluated on what the target
   * showed: CheckContext.observe), each with the indices into `touches` of the requests whose answers it
   * read (empty: the test's answers as a whole). An id the test cites but never observed was aimed at,
   * not judged: src/report/requirements.ts never passes it on this test.
   */
  observed?: Record<string, number[]>;
  /** The status expectations the test asserted per id (expectStatus' labels: `403`, `4xx`, ...). */
  asserted?: Record<string, string[]>;
}

/** What a cleanup function resolves to: true when the thing is gone, else why it is left behind. */
export type CleanupOutcome = true | false | Omit<LeftBehind, 'item' | 'at'>;

declare module 'vitest' {
  interface TaskMeta {
    conformance?: TestRecord;
  }
}

export interface CheckSpec {
  /** Requirement ids this test checks; they also open its title. */
  ids: string[];
  /** Side-effect class: the runner skips the test unless the target allows it. */
  effect: Effect;
  roles?: Role[];
  capabilities?: string[];
  timeoutMs?: number;
  /**
   * `exclusive`: the test compares an account's balance before and after, so it holds the account lock
   * alone (across the workers and shards of the run); billable tests hold it shared.
   */
  account?: 'exclusive';
  /**
   * The test judges 429 answers themselves (a guard, a quota, the ticket limit). Otherwise a failure of
   * one of its own rules that cites a 429 answer is not judged: the contract allows 429 for any "rate
   * limit or protection" ("wait for the limit window"), so the test is not run, never passed.
   */
  judges429?: true;
}

/** Who a request authenticates as: a role's key (Bearer), or no Authorization header. */
export type As = Role | 'none';

export interface Req extends Omit<RequestSpec, 'method' | 'path'> {
  as?: As;
  /** Skip the automatic per-exchange checks (used only by probes that study a broken response on purpose). */
  raw?: boolean;
}

class SkipSignal extends Error {}
/** The run was asked to stop (Ctrl-C, deadline): the test ends where it is, its cleanups still run. */
class StopSignal extends Error {
  /** `unpaid`: the stop came from the points budget or the account's balance, not from a stop of the run. */
  constructor(
    message: string,
    readonly unpaid?: BudgetRefusal,
  ) {
    super(message);
  }
}
class AbortSignalError extends Error {}

/** Distinct violations of one requirement id listed per test; the rest are counted in one entry. */
const MAX_LISTED_PER_ID = 25;

/** What a test body gets: requests that check themselves, and a way to report violations by id. */
export class CheckContext {
  readonly target: TargetConfig;
  readonly violations: Array<Violation & { count: number }> = [];
  private readonly byKey = new Map<string, Violation & { count: number }>();
  private readonly listedById = new Map<string, number>();
  private readonly cited = new Map<string, Exchange>();
  private readonly exchanges = new Map<string, Exchange>();
  /** The places this test's requests touched, each once (by its JSON form). */
  private readonly touched = new Map<string, Touch>();
  /** The touch (its key in `touched`) of each exchange of the test's own requests. */
  private readonly touchKeyOf = new Map<string, string>();
  /** Ids observed (observe()): the touch keys of the answers read, '*' where no answer was named. */
  private readonly observations = new Map<string, Set<string>>();
  /** The status expectations asserted per id (assertedStatus()). */
  private readonly assertions = new Map<string, Set<string>>();
  exchangeCount = 0;
  /** Requests repeated on a fresh connection after a connection failure (TestRecord.retried). */
  retried = 0;
  /** Connection failures that could not be repeated (TransportError.inconclusive): nothing is known. */
  readonly inconclusive: string[] = [];
  /** Said in the report beside the verdict (note()). */
  readonly notes: string[] = [];
  private readonly cleanups: Array<{ label: string; fn: () => Promise<CleanupOutcome> }> = [];
  /**
   * Why the primary account's balance ran out, when one of this test's own replies showed it, and how
   * many violations the test had recorded by then.
   */
  balanceRanOut: { reason: string; violations: number } | undefined;
  /** While cleanups run: when they must end (epoch ms). */
  cleanupDeadline: number | undefined;
  private readonly client: HttpClient;
  /** The test's requests take one of the worker's request slots while any of them is in flight. */
  private readonly slot: TestSlot;

  constructor(
    private readonly w: WorkerState,
    readonly title: string,
    private readonly skipFn: (note: string, cause?: NotRunCause) => never,
    readonly effect: Effect = 'read',
    /** The test provokes 429s on purpose (CheckSpec.judges429): they say nothing of the run's pace. */
    private readonly provokes429 = false,
    /** The requirement ids the test cites (CheckSpec.ids): what a verdict of one of its cases judges. */
    readonly ids: readonly string[] = [],
  ) {
    this.target = w.run.target;
    this.slot = new TestSlot(w.gate);
    this.client = targetClient(this.target, w.redactor, {
      testName: title,
      gate: this.slot,
      ...(w.run.deadline ? { deadlineAt: w.run.deadline.at } : {}),
      onExchange: (ex) => {
        this.exchangeCount++;
        if (ex.retryOf) this.retried++;
        this.exchanges.set(ex.id, ex);
        this.lastExchange = ex;
        if (!(this.provokes429 && ex.status === 429)) w.gate.observe(ex.status, ex.durationMs);
        w.record(ex);
        noteExchange(w.run.reportDir, ex);
      },
    });
  }

  /**
   * Whether an answer is a limit of the target and no verdict: 429 is "rate limit or protection" and may
   * meet any request, valid or not; only the tests that judge 429 themselves (judges429) count it.
   */
  isLimit(status: number | undefined): boolean {
    return status === 429 && !this.provokes429;
  }

  /** Cases whose answer was a limit (isLimit), left not judged. */
  readonly limitedCases: string[] = [];

  /**
   * A case a rule needed answered (accepted or refused) got a limit instead: it is not judged (a 429 is
   * no refusal), and a test that judged nothing else is not run. Returns whether that happened.
   */
  notJudged429(res: { status: number }, what: string): boolean {
    if (!this.isLimit(res.status)) return false;
    this.limitedCases.push(what);
    return true;
  }

  /**
   * The contract's verdict for one request, judged in this one place: valid -> 2xx; invalid -> a 4xx
   * refusal (the APIError shape is checked on every exchange). A 429 is neither: the case is not judged
   * (notJudged429). `mismatch` is the violation message when the answer contradicts the verdict.
   */
  verdict(res: { status: number; exchange?: Exchange }, valid: boolean, what: string): Verdict {
    if (this.notJudged429(res, what)) return { judged: false };
    this.observeOwn(res.exchange);
    return caseVerdict(res.status, valid, what);
  }

  /**
   * A judgement of `id` was made on what the target showed (the answer `exchange`, or the test's answers
   * as a whole): a condition was evaluated on the form the rule needs, met or not. ensure(), violate()
   * and verdict() observe by themselves; a test that reads a form and finds it right with no ensure()
   * calls this. A requirement no judged test observed is *not judged* in the run, never passed.
   */
  observe(id: string, exchange?: Exchange): void {
    addTo(this.observations, id, (exchange && this.touchKeyOf.get(exchange.id)) ?? '*');
  }

  /** A status expectation `label` was judged for `id` (expectStatus): its strength is checked against the rule's. */
  assertedStatus(id: string, label: string): void {
    addTo(this.assertions, id, label);
  }

  /** The status expectations asserted, per id (TestRecord.asserted). */
  assertedStatuses(): Record<string, string[]> {
    return Object.fromEntries([...this.assertions].map(([id, labels]) => [id, [...labels].sort()]));
  }

  /** A judgement of the test's own case (a verdict, a documented schema): every id it cites is observed. */
  observeOwn(exchange?: Exchange): void {
    for (const id of this.ids) this.observe(id, exchange);
  }

  /** The ids observed, each with the indices into touches() of the answers read (TestRecord.observed). */
  observedIds(): Record<string, number[]> {
    // touches() lists the touched map's values in its key order: a key's position is its index there.
    const index = new Map([...this.touched.keys()].map((k, i) => [k, i]));
    const out: Record<string, number[]> = {};
    for (const [id, keys] of this.observations) {
      const at = [...keys].map((k) => index.get(k)).filter((i): i is number => i !== undefined);
      out[id] = keys.has('*') ? [] : [...new Set(at)].sort((a, b) => a - b);
    }
    return out;
  }

  /**
   * Whether a request the contract refuses got no wrong acceptance: a 4xx refusal, or a 429, which is no
   * refusal but leaves the case not judged. A must-refuse check tests this, never the range.
   */
  refusal(res: { status: number }, what: string): boolean {
    return this.verdict(res, false, what).mismatch === undefined;
  }

  /** The newest exchange of this test (a property reads the answer to the case it just sent). */
  lastExchange: Exchange | undefined;

  get strict(): boolean {
    return this.w.run.strict;
  }

  /** Say in the report how this test judged (a sample it drew, and the seed that replays it). */
  note(text: string): void {
    if (!this.notes.includes(text)) this.notes.push(text);
  }

  get run(): WorkerState['run'] {
    return this.w.run;
  }

  /** The target's live description, when it is usable (what a client would read to page a list). */
  get live(): WorkerState['live'] {
    return this.w.live;
  }

  hasRole(role: Role): boolean {
    return this.w.keys[role] !== undefined;
  }

  /** A key value, for probes that must build a broken header from it. Never print it. */
  keyOf(role: Role): string {
    const k = this.w.keys[role];
    if (!k) {
      const cause = roleCause(role);
      this.skip(`role '${role}' is not configured for target '${this.target.name}'`, cause);
    }
    return k;
  }

  /** A model hint from the target config, else discovered from the catalog, else the test is not run. */
  async hint(h: Hint): Promise<string> {
    const configured = this.target.models[h];
    if (configured) return configured;
    const found = (await discoverHints())[h];
    if (found) return found;
    return this.skip(
      `model hint '${h}' is not configured for target '${this.target.name}' and could not be discovered: ${undiscovered(h)}`,
      {
        kind: 'hint',
        subject: h,
        remedy: `set ${envHintName(h)} or models.${h} in the targets file`,
      },
    );
  }

  /** The test is not run: why, and (where the suite knows it) the typed cause with its remedy. */
  skip(reason: string, cause?: NotRunCause): never {
    this.skipFn(reason, cause);
    throw new SkipSignal(reason);
  }

  async request(method: string, path: string, req: Req = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = {};
    const as = req.as ?? 'primary';
    if (as !== 'none') headers.authorization = `Bearer ${this.keyOf(as)}`;
    Object.assign(headers, req.headers ?? {});
    const model = modelOf(req.json);
    const seconds = secondsOf(model, req.json);
    const dir = this.w.run.reportDir;
    const budget = this.w.run.budget;
    // The points a billable request holds of the budget while it is in flight (its predicted hold).
    const billable = !!budget && this.effect === 'billable' && method === 'POST' && !this.cleaning;
    const spendNow = billable ? spendOf(dir) : undefined;
    // The price book learns media jobs only: a chat, embeddings or responses call is never predicted from them.
    // Replies that under-report (Spend.untrusted) price nothing: every request is then sent alone.
    const predicted =
      buysMediaJob(path) && !spendNow?.untrusted && !spendNow?.suspect
        ? spendNow?.prices.predict(model, seconds)
        : undefined;
    // Which requests hold a reservation: a media job (it holds up to a long video's price, so one of
    // unknown price is sent alone and its reply prices the next), and, once the target sent a billable
    // reply whose spend cannot be read, every billable request (one of unknown price then goes alone, so
    // the balance measures it). A chat, embeddings or responses call of a target whose replies read is
    // counted when answered: never serialised, so the concurrency tests stay concurrent.
    const holds =
      !!spendNow &&
      (predicted !== undefined ||
        buysMediaJob(path) ||
        spendNow.unreadable > 0 ||
        spendNow.untrusted ||
        spendNow.suspect);
    let reservation = holds ? reserve(dir, predicted) : undefined;
    // Judged when the request gets its slot of the worker's gate, not when it starts to queue: a test
    // waiting for a slot must see a stop or a spend that came meanwhile.
    const mayStart = () => {
      // A stop (Ctrl-C, run deadline) ends the test at its next request; its cleanups still send theirs.
      const stop = this.cleaning ? undefined : (stopReason(dir) ?? pastDeadline(this.w.run));
      if (stop) throw this.refuse(new StopSignal(stop));
      if (this.effect === 'billable' && method === 'POST' && !this.cleaning) {
        const refused = budgetRefusal(dir, budget, {
          ...(model ? { model } : {}),
          ...(predicted ? { predicted } : {}),
          ...(reservation ? { reservation } : {}),
        });
        if (refused) throw this.refuse(new StopSignal(refused.reason, refused));
      }
    };
    const spec: RequestSpec = { ...req, method, path, headers, beforeAttempt: mayStart };
    let res: HttpResponse;
    try {
      if (reservation) await this.waitForPrices(reservation);
      // A request of unknown price is sent alone (waitForPrices): what the balance measures across it is its price.
      const sofar = reservation && !predicted ? spendOf(dir) : undefined;
      const before = sofar?.measured;
      const countedBefore = sofar?.total;
      res = await this.client.send(spec);
      this.touch(method, path, as, req, res);
      // A complete answer within the timeout: what GEN-001 needs (a hang or a reset is its violation).
      this.observe('GEN-001', res.exchange);
      const bought = { ...(model ? { model } : {}), ...(seconds ? { seconds } : {}) };
      const { unreadable } = recordSpend(dir, res, bought, before === undefined, !!spendNow?.untrusted);
      // Counted: the requests waiting on this one may go, unless the balance read below prices it.
      if (reservation && !(unreadable && before)) {
        release(dir, reservation);
        reservation = undefined;
      }
      let measured = false;
      let after: BalanceAfter = as === 'primary' ? 'unread' : 'other';
      // A request sent alone is measured by the balance across it (its reply's figure checked, or learned).
      if (
        budget &&
        as === 'primary' &&
        (unreadable || before !== undefined || spendOf(dir).sinceBalance >= BALANCE_EVERY)
      ) {
        const last = spendOf(dir).lastRead;
        const now = await this.measureBalance(budget);
        // The balance measured this reply only if it moved across it (since the read before it was sent
        // alone, or since the run's latest read).
        const from = before ?? last;
        measured = !!now && !!from && now.gt(from);
        if (now) after = 'unmoved';
        if (now && before && unreadable && measured) recordMeasured(dir, res, bought, now.minus(before));
        // A readable reply the balance shows cost more than it said: the replies under-report.
        else if (now && before && countedBefore && !unreadable)
          checkReported(dir, res, now.minus(before), spendOf(dir).total.minus(countedBefore));
        if (now) noteBalanceSpent(dir, now);
      }
      // What no reply and no balance read measured counts at the most it could have cost.
      if (budget && unreadable && !measured) countUnmeasured(dir, res, bought, budget, after);
    } finally {
      if (reservation) release(dir, reservation);
    }
    if (!req.raw) this.checkExchange(res);
    if (as === 'primary') await this.noteBalance(res);
    return res;
  }

  /** Wait (bounded by the request timeout) while mustWait says so, or until the run stops. */
  private async waitForPrices(reservation: string): Promise<void> {
    const until = Date.now() + this.target.timeouts.requestMs;
    while (mustWait(this.w.run.reportDir, reservation) && Date.now() < until) {
      if (stopReason(this.w.run.reportDir)) return;
      await sleep(20);
    }
  }

  /**
   * The account is the truth for the budget: the primary balance is read after a billable reply whose
   * spend is unreadable and after every BALANCE_EVERY billable replies: what its available points fell
   * since before the run (the caller notes it run-wide; admission goes by the larger of it and the
   * replies' count). A harness read: recorded with the test, judged by the balance tests, not here.
   */
  private async measureBalance(budget: RunBudget): Promise<Decimal | undefined> {
    if (budget.baseline === undefined || !this.target.allow.includes('read')) return undefined;
    const answer = this.lastExchange;
    try {
      const read = await this.client.send({
        method: 'GET',
        path: '/v1/balance',
        headers: { authorization: `Bearer ${this.keyOf('primary')}` },
      });
      const available = read.status < 300 ? accountingField(read.json, 'available_points') : undefined;
      if (available) return new Decimal(budget.baseline).minus(available);
    } catch (err) {
      // A stop or an unanswered read: the replies' count stands.
      if (!(err instanceof StopSignal) && !(err instanceof TransportError)) throw err;
    } finally {
      this.lastExchange = answer;
    }
    return undefined;
  }

  /**
   * A reply of the primary account that shows its balance ran out stops billable work run-wide: a job
   * waiting for points, or a billable refusal (402/429) after which the balance read shows less
   * available than the costliest reply of the run (a 429 may be any protection, so it alone proves nothing).
   */
  private async noteBalance(res: HttpResponse): Promise<void> {
    const signal = balanceSignal(res);
    if (!signal || (signal.kind === 'refused' && this.balanceRanOut)) return;
    let reason: string | undefined;
    if (signal.kind === 'settlement_pending') {
      reason = `the account's balance ran out: job ${signal.job} is settlement_pending (the account cannot pay; it is tracked by its id, never created again)`;
    } else {
      // The test reads the answer to what it sent (a property discards a case answered 429), not this read.
      const answer = this.lastExchange;
      const read = await this.client.send({
        method: 'GET',
        path: '/v1/balance',
        headers: { authorization: `Bearer ${this.keyOf('primary')}` },
      });
      this.lastExchange = answer;
      this.checkExchange(read);
      const available = read.status < 300 ? accountingField(read.json, 'available_points') : undefined;
      if (available?.lte(spendOf(this.w.run.reportDir).max))
        reason = `the account's balance ran out: ${res.method} ${res.rawPath} answered ${res.status} with ${available.toString()} points available`;
    }
    if (!reason) return;
    this.balanceRanOut ??= { reason, violations: this.violations.length };
    markBalanceOut(this.w.run.reportDir, reason);
  }

  get(path: string, req: Req = {}): Promise<HttpResponse> {
    return this.request('GET', path, req);
  }

  post(path: string, json: unknown, req: Req = {}): Promise<HttpResponse> {
    return this.request('POST', path, { ...req, json });
  }

  /** Generic checks every exchange gets: description conformance, error shape, server faults, leaks. */
  checkExchange(res: HttpResponse): void {
    const { findings, observed } = exchangeFindings(res, this.w);
    for (const id of observed) this.observe(id, res.exchange);
    for (const f of findings)
      this.violate(f.id, f.message, { ...f, exchange: res.exchange, scope: 'exchange' });
  }

  /** Record a violation of a requirement; its level comes from the catalogue. */
  violate(
    id: string,
    message: string,
    extra: {
      pointer?: string;
      received?: unknown;
      expected?: unknown;
      exchange?: Exchange;
      level?: 'notable' | 'failure';
      scope?: 'exchange';
      verdictCase?: VerdictCase;
    } = {},
  ): void {
    this.observe(id, extra.exchange);
    const made = (text: string) =>
      violation(id, text, { strict: this.strict, ...(extra.level ? { level: extra.level } : {}) });
    if (extra.exchange) this.cited.set(extra.exchange.id, extra.exchange);
    // One entry per id, message and pointer, found by key; past MAX_LISTED_PER_ID entries of one id
    // the rest are counted, not copied: a reply may raise a finding per entry of a 40,000-entry list.
    const key = `${id}\n${message}\n${extra.pointer ?? ''}`;
    const same = this.byKey.get(key);
    if (same) {
      same.count++;
      return;
    }
    const listed = this.listedById.get(id) ?? 0;
    if (listed >= MAX_LISTED_PER_ID) {
      const more = this.byKey.get(`${id}\n(more)`);
      if (more) more.count++;
      else {
        const v = made(
          `${id}: more violations like the ${MAX_LISTED_PER_ID} above, counted here but not listed`,
        );
        this.byKey.set(`${id}\n(more)`, v);
        this.violations.push(v);
      }
      return;
    }
    this.listedById.set(id, listed + 1);
    const redact = this.w.redactor;
    const v = made(redact.text(message));
    if (extra.pointer !== undefined) v.pointer = extra.pointer;
    // Evidence is capped in size (the rest counted, not copied): a body or enum may be megabytes.
    if (extra.received !== undefined) v.received = redact.value(capEvidence(extra.received));
    if (extra.expected !== undefined) v.expected = redact.value(capEvidence(extra.expected));
    if (extra.exchange) v.exchangeId = extra.exchange.id;
    if (extra.scope) v.scope = extra.scope;
    if (extra.verdictCase)
      v.verdictCase = { ...extra.verdictCase, what: redact.text(extra.verdictCase.what) };
    this.byKey.set(key, v);
    this.violations.push(v);
  }

  /** Report a violation unless `ok`; returns `ok`. */
  ensure(
    ok: boolean,
    id: string,
    message: string,
    extra: Parameters<CheckContext['violate']>[2] = {},
  ): boolean {
    this.observe(id, extra.exchange);
    if (!ok) this.violate(id, message, extra);
    return ok;
  }

  /** Stop the test here (after recording why with violate); later steps would only repeat the cause. */
  abort(): never {
    throw new AbortSignalError('aborted after a violation');
  }

  /**
   * Register something the test created, to be removed when the test ends, failed or not (last in,
   * first out). `fn` resolves true when the thing is gone; false or a throw lists it as left behind.
   */
  onCleanup(label: string, fn: () => Promise<CleanupOutcome>): void {
    this.cleanups.push({ label, fn });
  }

  private cleaning = false;

  /**
   * Run the cleanups, last in first out, within cleanupBoundMs in all (each cleanup reads
   * cleanupDeadline; one that starts after it still tries once, without waiting).
   */
  async runCleanups(): Promise<CleanupRecord> {
    this.cleaning = true;
    const started = Date.now();
    this.cleanupDeadline = started + cleanupBoundMs(this.target);
    const out: CleanupRecord = { done: [], failed: [] };
    for (const c of this.cleanups.reverse()) {
      let result: CleanupOutcome;
      try {
        result = await c.fn();
      } catch (err) {
        result = { reason: `the cleanup threw: ${err instanceof Error ? err.message : String(err)}` };
      }
      if (result === true) {
        out.done.push(c.label);
        continue;
      }
      out.failed.push(c.label);
      const why = result === false ? { reason: 'not removed' } : result;
      out.leftBehind = [...(out.leftBehind ?? []), { item: c.label, at: new Date().toISOString(), ...why }];
    }
    this.cleanups.length = 0;
    out.ms = Date.now() - started;
    return out;
  }

  /**
   * Notes the place a request touched (method, template, role, format, model, forms), once. A cleanup's
   * requests (deleting what the test made, waiting for its jobs) judge nothing: they are not noted.
   */
  private touch(method: string, path: string, as: As, req: Req, res: HttpResponse): void {
    if (this.cleaning) return;
    const t = touchOf({
      method,
      path,
      role: as,
      ...(req.headers ? { headers: req.headers } : {}),
      ...(req.json !== undefined ? { json: req.json } : {}),
      ...(res.mediaType ? { responseType: res.mediaType, responseText: res.text } : {}),
    });
    const key = JSON.stringify(t);
    this.touched.set(key, t);
    this.touchKeyOf.set(res.exchange.id, key);
  }

  touches(): Touch[] {
    return [...this.touched.values()];
  }

  /** The stop (run stop, budget) that refused one of this test's requests, if one did. */
  refusedBy: StopSignal | undefined;

  private refuse(stop: StopSignal): StopSignal {
    this.refusedBy = stop;
    return stop;
  }

  /**
   * Ends the test as stopped (not run, unless it found something) when a stop refused one of its requests
   * or is in effect now: what went wrong after a refusal (a model-based run that could not finish, code
   * that caught the refusal) is the stop's doing, never an error of the suite. Returns when there is none.
   */
  haltIfStopped(): void {
    if (this.refusedBy) throw this.refusedBy;
    const stop = stopReason(this.w.run.reportDir) ?? pastDeadline(this.w.run);
    if (stop) throw this.refuse(new StopSignal(stop));
  }

  /** A connection failure that could not be repeated ended the test: it is inconclusive unless it failed. */
  inconclusiveAfter(why: string, exchange: Exchange | undefined): void {
    this.inconclusive.push(this.w.redactor.text(why));
    if (exchange) this.cited.set(exchange.id, exchange);
  }

  citedExchanges(): Exchange[] {
    return [...this.cited.values()];
  }

  exchange(id: string): Exchange | undefined {
    return this.exchanges.get(id);
  }
}

/** Adds `value` to the set of `key` in `map`, creating the set on first use. */
function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

export class ConformanceFailure extends Error {
  override name = 'ConformanceFailure';
}

/** Not run because `method path` answered `status`: one cause for every test it stopped. */
export function answeredCause(method: string, path: string, status: number): NotRunCause {
  return {
    kind: 'endpoint',
    subject: `${method} ${path} answered ${status}`,
    endpoint: { method, path, status },
  };
}

/** The model a request body names, if any (what a billable request buys). */
function formatFailure(violations: Violation[]): string {
  return violations
    .map((v) => {
      const lines = [`[${v.id}] ${v.message}`];
      if (v.pointer) lines.push(`  at ${v.pointer}`);
      if (v.received !== undefined) lines.push(`  Received: ${short(v.received)}`);
      if (v.expected !== undefined) lines.push(`  Expected: ${short(v.expected)}`);
      return lines.join('\n');
    })
    .join('\n');
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** How a test body ended: stopped (by a stop of the run, or by the budget: `unpaid`), or not. */
interface BodyEnd {
  stoppedBy?: string;
  unpaid?: BudgetRefusal;
}

/**
 * Run a test body between its lock and its cleanups: the account lock it needs (shared for billable
 * work, exclusive for a balance comparison), the body, its cleanups (always, last in first out), and
 * what it found copied to its record. A stop ends the body where it is; a connection failure is a
 * violation, or inconclusive when it could not be repeated; any other throw is the suite's error.
 */
async function runBody(
  spec: CheckSpec,
  w: WorkerState,
  t: CheckContext,
  fn: (t: CheckContext) => Promise<void>,
  record: TestRecord,
  notRun: (reason: string, cause?: NotRunCause) => never,
): Promise<BodyEnd> {
  let stoppedBy: string | undefined;
  let unpaid: BudgetRefusal | undefined;
  let release: (() => void) | undefined;
  if (spec.account === 'exclusive' || spec.effect === 'billable') {
    const lock = new AccountLock(`${w.run.target.name} ${w.run.target.baseUrl}`);
    const waitMs = Math.max(1_000, (spec.timeoutMs ?? w.run.target.timeouts.testMs) / 2);
    try {
      release =
        spec.account === 'exclusive' ? await lock.acquireExclusive(waitMs) : await lock.acquireShared(waitMs);
    } catch (err) {
      if (err instanceof LockTimeout)
        notRun(`account lock: ${err.message}`, { kind: 'lock', subject: 'the account lock was busy' });
      throw err;
    }
  }
  try {
    await fn(t);
  } catch (err) {
    record.cleanup = await t.runCleanups();
    release?.();
    if (err instanceof StopSignal) {
      stoppedBy = err.message;
      if (err.unpaid) unpaid = err.unpaid;
    } else if (err instanceof TransportError) {
      const ex = err.exchangeId ? t.exchange(err.exchangeId) : undefined;
      if (err.inconclusive) t.inconclusiveAfter(err.inconclusive, ex);
      else t.violate('GEN-001', err.message, ex ? { exchange: ex } : {});
    } else if (t.refusedBy && !(err instanceof AbortSignalError) && !(err instanceof SkipSignal)) {
      // A stop refused one of its requests, and the test broke on it (it caught the refusal, or a
      // model-based run could not finish): stopped, like a test the refusal ended directly.
      if (record.outcome === 'not_run') throw err;
      stoppedBy = t.refusedBy.message;
      if (t.refusedBy.unpaid) unpaid = t.refusedBy.unpaid;
    } else if (!(err instanceof AbortSignalError)) {
      if (record.outcome === 'not_run' || err instanceof SkipSignal) throw err;
      record.outcome = 'harness_error';
      record.error = w.redactor.text(
        err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err),
      );
      record.exchangeCount = t.exchangeCount;
      throw err;
    }
  }
  if (!record.cleanup) record.cleanup = await t.runCleanups();
  release?.(); // a second call (after the catch) removes nothing
  record.violations = t.violations;
  if (t.notes.length) record.notes = [...t.notes];
  record.exchanges = t.citedExchanges();
  record.exchangeCount = t.exchangeCount;
  record.touches = t.touches();
  const observed = t.observedIds();
  if (Object.keys(observed).length) record.observed = observed;
  const asserted = t.assertedStatuses();
  if (Object.keys(asserted).length) record.asserted = asserted;
  if (t.retried > 0) record.retried = t.retried;
  return { ...(stoppedBy ? { stoppedBy } : {}), ...(unpaid ? { unpaid } : {}) };
}

/**
 * A group of tests (vitest `describe`). Why not describe itself: vitest runs describe blocks one after
 * another even when tests are concurrent; a group runs its tests alongside the other groups of its file.
 */
export function group(name: string, fn: () => void): void {
  describe(name, { concurrent: true }, fn);
}

/**
 * Define one conformance test. The runner, not the test, decides whether it may run (side-effect class,
 * roles, capabilities); the test records violations by requirement id and the verdict follows from them.
 */
export function check(spec: CheckSpec, title: string, fn: (t: CheckContext) => Promise<void>): void {
  for (const id of spec.ids) requirement(id);
  const run = runConfig();
  const fullTitle = `${spec.ids.join(' ')} ${title}`;
  // Always concurrent: the target's concurrency limits requests in flight (the worker's request gate),
  // not tests; the serial project caps its files at one test at a time.
  const concurrent = true;
  test(fullTitle, { timeout: spec.timeoutMs ?? run.target.timeouts.testMs, concurrent }, async (ctx) => {
    const w = worker();
    const record: TestRecord = {
      ids: spec.ids,
      effect: spec.effect,
      outcome: 'passed',
      violations: [],
      exchanges: [],
      exchangeCount: 0,
    };
    ctx.task.meta.conformance = record;
    const notRun = (reason: string, cause?: NotRunCause): never => {
      record.outcome = 'not_run';
      record.reason = reason;
      if (cause) record.cause = cause;
      return ctx.skip(reason);
    };
    const notRunAs = (n: NotApplicable): never => {
      if (n.unpaid) record.unpaid = true;
      if (n.planned) record.planned = true;
      return notRun(n.reason, n.cause);
    };
    const skipped = notApplicable(spec, {
      target: w.run.target,
      hasRole: (role) => !!w.keys[role],
      stopReason: () => stopReason(w.run.reportDir),
      budgetRefusal: () => budgetRefusal(w.run.reportDir, w.run.budget),
      dryRun: !!w.run.dryRun,
    });
    if (skipped) notRunAs(skipped);
    const t = new CheckContext(w, fullTitle, notRun, spec.effect, spec.judges429, spec.ids);
    const { stoppedBy, unpaid } = await runBody(spec, w, t, fn, record, notRun);
    const verdict = judge(
      {
        violations: t.violations,
        limitedCases: t.limitedCases,
        inconclusive: t.inconclusive,
        balanceRanOut: t.balanceRanOut,
        stoppedBy,
        unpaid,
      },
      {
        ids: spec.ids,
        judges429: !!spec.judges429,
        statusOf: (id) => t.exchange(id)?.status,
      },
    );
    for (const u of verdict.unjudged) notJudged(u.violation, u.because);
    if (verdict.outcome === 'not_run') return notRunAs(verdict.notRun);
    if (verdict.outcome === 'inconclusive') {
      record.outcome = 'inconclusive';
      record.reason = verdict.reason;
      return;
    }
    record.outcome = verdict.outcome;
    const failures = verdict.failures;
    if (failures.length > 0) throw new ConformanceFailure(formatFailure(failures));
  });
}
