import type { Touch } from '../applicability.ts';
import { exchangeFindings } from '../checks/per-exchange.ts';
import { envHintName, type TargetConfig } from '../config/targets.ts';
import { endpointOf } from '../endpoint-table.ts';
import { TransportError } from '../errors.ts';
import {
  type Exchange,
  type HttpClient,
  type HttpResponse,
  JSON_PARSE_CAP,
  modelOf,
  type RequestSpec,
} from '../http/client.ts';
import { targetClient } from '../http/target-client.ts';
import { recordHar } from '../traffic/har-record.ts';
import { type CountedViolation, type ViolationExtra, ViolationLog } from '../violation-log.ts';
import type { CleanupRecord, Effect, Hint, NotRunCause, Role } from '../vocabulary.ts';
import type { AccountRole } from './account.ts';
import { balanceSignal, markBalanceOut } from './budget.ts';
import { TestSlot } from './gate.ts';
import { caseVerdict, isSuccess, type Verdict } from './judgement.ts';
import { deadSignal, deadTarget, GIVEN_UP, noteExchange, stopReason } from './liveness.ts';
import { roleCause } from './may-run.ts';
import { Observations } from './observations.ts';
import { secondsOf } from './prices.ts';
import { cleanupBoundMs, pastDeadline } from './run-config.ts';
import { AbortSignalError, SkipSignal, StopSignal } from './signals.ts';
import { ranOutBy, SpendStage, spentSince } from './spend-stage.ts';
import { type CleanupOutcome, runCleanups } from './test-record.ts';
import { discoverHints, undiscovered, type WorkerState } from './worker.ts';

export { isSuccess, type Verdict } from './judgement.ts';

/** The control key of a path of the endpoint table called with a method it gives it (showRoute). */
export const routeControl = (templatePath: string): string => `route:${templatePath}`;

export type { CleanupOutcome, TestRecord } from './test-record.ts';

/** Who a request authenticates as: a role's key (Bearer), or no Authorization header. */
export type As = Role | 'none';

export interface Req extends Omit<RequestSpec, 'method' | 'path'> {
  as?: As;
  /** Skip the automatic per-exchange checks (used only by probes that study a broken response on purpose). */
  raw?: boolean;
  /** The contract refuses it (a bad key, a scope, a bound): a small budget sends it first (budget.ts). */
  refusal?: true;
}

/** What a test body gets: requests that check themselves, and a way to report violations by id. */
export class CheckContext {
  readonly target: TargetConfig;
  private readonly log: ViolationLog;
  private readonly exchanges = new Map<string, Exchange>();
  /** The places its requests touched, the ids it observed, the statuses it asserted. */
  private readonly seen = new Observations();
  exchangeCount = 0;
  /** The media jobs its requests bought (SpendRequest.purchasesBefore). */
  private purchases = 0;
  /** Requests repeated on a fresh connection after a connection failure (TestRecord.retried). */
  retried = 0;
  /** Connection failures that could not be repeated (TransportError.inconclusive): nothing is known. */
  readonly inconclusive: string[] = [];
  /** Said in the report beside the verdict (note()). */
  readonly notes: string[] = [];
  /** The controls its answers showed accepted (showAccepted; TestRecord.accepted). */
  readonly accepted = new Set<string>();
  /** The controls its own judgements stand beside, wherever in the run they are accepted (standBeside). */
  readonly beside: Array<{ key: string; what: string }> = [];
  private readonly cleanups: Array<{ label: string; fn: () => Promise<CleanupOutcome> }> = [];
  /**
   * Why the primary account's balance ran out, when one of this test's own replies showed it, and how
   * many violations the test had recorded by then.
   */
  balanceRanOut: { reason: string; violations: number } | undefined;
  /** While cleanups run: when they must end (epoch ms). */
  cleanupDeadline: number | undefined;
  /**
   * When the body's waits for media jobs must end (epoch ms; run-config waitBoundMs): the test's start
   * plus its timeout, less the cleanup bound and a margin. Undefined outside a test (own tests).
   */
  waitDeadline: number | undefined;
  private readonly client: HttpClient;
  /** The test's requests take one of the worker's request slots while any of them is in flight. */
  private readonly slot: TestSlot;

  constructor(
    private readonly w: WorkerState,
    readonly title: string,
    readonly effect: Effect = 'read',
    /** The test provokes 429s on purpose (CheckSpec.judges429): they say nothing of the run's pace. */
    private readonly provokes429 = false,
    /** The requirement ids the test cites (CheckSpec.ids): what a verdict of one of its cases judges. */
    readonly ids: readonly string[] = [],
    /**
     * The account the test speaks for as `primary` (runtime/account.ts): on `isolated`, every request
     * and key of role `primary` uses the isolated key instead, the same checks on the other account.
     */
    readonly account: AccountRole = 'primary',
  ) {
    this.target = w.run.target;
    this.log = new ViolationLog(w.redactor, w.run.strict);
    this.slot = new TestSlot(w.gate);
    this.client = targetClient(this.target, w.redactor, {
      testName: title,
      gate: this.slot,
      ...(w.run.deadline ? { deadlineAt: w.run.deadline.at } : {}),
      signal: deadSignal(w.run.reportDir),
      onExchange: (ex, res, spec) => {
        if (w.run.har && res && spec) recordHar(w.run, spec, res, w.redactor);
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
   * `judges`: the ids the case is a case of, where a test's cases judge different rules (its own ids).
   */
  verdict(
    res: { status: number; exchange?: Exchange },
    valid: boolean,
    what: string,
    judges: readonly string[] = this.ids,
  ): Verdict {
    if (this.notJudged429(res, what)) return { judged: false };
    for (const id of judges) this.observe(id, res.exchange);
    return caseVerdict(res.status, valid, what);
  }

  /**
   * A judgement of `id` was made on what the target showed (the answer `exchange`, or the test's answers
   * as a whole): a condition was evaluated on the form the rule needs, met or not. ensure(), violate()
   * and verdict() observe by themselves; a test that reads a form and finds it right with no ensure()
   * calls this. A requirement no judged test observed is *not judged* in the run, never passed.
   */
  observe(id: string, exchange?: Exchange): void {
    this.seen.observe(id, exchange);
  }

  /**
   * This test's answers showed the control `key` accepted (a valid media job of one model): a refusal
   * elsewhere in the run that stands beside it (standBeside) is judged.
   */
  showAccepted(key: string): void {
    this.accepted.add(key);
  }

  /**
   * A call of a method the endpoint table gives its path, answered 2xx: the control `route:<path>` of
   * that path's refusals of other methods (ERR-070 stands beside it). Cleanups' calls show it too.
   */
  private showRoute(method: string, path: string, status: number): void {
    const route = isSuccess(status) ? endpointOf(method, path.split('?')[0]!) : undefined;
    if (route) this.showAccepted(routeControl(route.path));
  }

  /**
   * The refusals this test judges prove their rule only beside a valid request of the same kind accepted
   * (`key`, said as `what`): one this run showed anywhere, in any test, file or shard (a media job costs
   * points and time: the acceptance tests' own jobs are the control, no job is bought for it). Where none
   * was accepted, the report does not count this test's observations of its own ids (src/report/
   * requirements.ts): a target refusing every such request passes none of them. Its violations stand.
   * A test of several models' refusals stands beside each model's control.
   */
  standBeside(key: string, what: string): void {
    if (!this.beside.some((b) => b.key === key)) this.beside.push({ key, what });
  }

  /** A status expectation `label` was judged for `id` (expectStatus): its strength is checked against the rule's. */
  assertedStatus(id: string, label: string): void {
    this.seen.assert(id, label);
  }

  /** The status expectations asserted, per id (TestRecord.asserted). */
  assertedStatuses(): Record<string, string[]> {
    return this.seen.assertedStatuses();
  }

  /** A judgement of the test's own case (a verdict, a documented schema): every id it cites is observed. */
  observeOwn(exchange?: Exchange): void {
    for (const id of this.ids) this.observe(id, exchange);
  }

  /** The ids observed, each with the indices into touches() of the answers read (TestRecord.observed). */
  observedIds(): Record<string, number[]> {
    return this.seen.observedIds();
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
    return this.w.keys[this.keyRole(role)] !== undefined;
  }

  /** The role whose key stands for `role`: the test's account's for `primary`. */
  private keyRole<R extends As>(role: R): R | AccountRole {
    return role === 'primary' ? this.account : role;
  }

  /**
   * Whether other traffic may move the balance of the account the test speaks for (balance deltas then
   * only indicative): the target's `shared_account`, never on the isolated account, which by its role's
   * definition no other client uses.
   */
  get sharedAccount(): boolean {
    return this.account === 'primary' && this.target.sharedAccount;
  }

  /** A key value, for probes that must build a broken header from it. Never print it. */
  keyOf(role: Role): string {
    role = this.keyRole(role);
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

  /**
   * The test goes no further: not run, with why and (where the suite knows it) the typed cause with its
   * remedy; unless what it found before fails it (define.ts).
   */
  skip(reason: string, cause?: NotRunCause): never {
    throw new SkipSignal(reason, cause);
  }

  async request(method: string, path: string, req: Req = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = {};
    const as = req.as ?? 'primary';
    if (as !== 'none') headers.authorization = `Bearer ${this.keyOf(as)}`;
    // The primary account measures the run's spend and its running out: not the isolated one's requests.
    const primary = this.keyRole(as) === 'primary';
    Object.assign(headers, req.headers ?? {});
    const model = modelOf(req.json);
    const seconds = secondsOf(model, req.json);
    const dir = this.w.run.reportDir;
    const budget = this.w.run.budget;
    const spend = new SpendStage({
      reportDir: dir,
      budget,
      billable: this.effect === 'billable' && method === 'POST' && !this.cleaning,
      ...(req.refusal ? { refusal: true } : {}),
      purchasesBefore: this.purchases,
      path,
      bought: {
        ...(model ? { model } : {}),
        ...(seconds ? { seconds } : {}),
        ...(primary ? {} : { elsewhere: true as const }),
      },
      primary,
      waitMs: this.target.timeouts.requestMs,
    });
    // Judged when the request gets its slot of the worker's gate, not when it starts to queue: a test
    // waiting for a slot must see a stop or a spend that came meanwhile.
    const mayStart = () => {
      // A stop (Ctrl-C, run deadline) ends the test at its next request; its cleanups still send theirs.
      const stop = this.cleaning ? undefined : (stopReason(dir) ?? pastDeadline(this.w.run));
      if (stop) throw this.refuse(new StopSignal(stop));
      const refused = spend.refusal();
      if (refused) throw this.refuse(new StopSignal(refused.reason, refused));
    };
    const spec: RequestSpec = { ...req, method, path, headers, beforeAttempt: mayStart };
    let res: HttpResponse;
    try {
      await spend.beforeSend();
      res = await this.client.send(spec).catch((err: unknown) => {
        // Ended by the run giving up on the target: the test is stopped (not run), no finding of its own.
        const dead = err instanceof TransportError && err.code === GIVEN_UP ? deadTarget(dir) : undefined;
        throw dead ? this.refuse(new StopSignal(dead)) : err;
      });
      // The place as the test asked for it (the isolated key stands in for the primary one there).
      this.touch(method, path, as, req, res);
      this.showRoute(method, path, res.status);
      if (spend.purchase && isSuccess(res.status)) this.purchases++;
      // A complete answer within the timeout: what GEN-001 needs (a hang or a reset is its violation).
      this.observe('GEN-001', res.exchange);
      // The balance measures the spend where reads are allowed (a refusal's ran-out check reads it always).
      const reads = this.target.allow.includes('read');
      await spend.afterReply(res, async () =>
        reads ? spentSince(budget, await this.readPrimaryBalance()) : undefined,
      );
    } finally {
      spend.close();
    }
    if (!req.raw) this.checkExchange(res);
    if (primary) await this.noteBalance(res);
    // A JSON reply larger than the suite reads (JSON_PARSE_CAP) was counted and hashed, not parsed:
    // whatever the test would judge on it is not judged.
    if (res.bodyTooLarge && !req.raw)
      this.skip(
        `not judged: ${method} ${res.exchange.path} answered a body of ${res.bodyTooLarge.bytes} bytes, more than the ${JSON_PARSE_CAP} the suite reads (the rest was counted and hashed, not kept)`,
        {
          kind: 'precondition',
          subject: `a reply larger than the ${JSON_PARSE_CAP} bytes the suite reads`,
        },
      );
    return res;
  }

  /**
   * A read of the primary balance the harness makes (the budget's, the ran-out check's): recorded with
   * the test and judged by the checks every exchange gets, as any reply the target gives is (a balance
   * broken only under the load of billable work shows there); the test's newest exchange stays the
   * answer to what it sent. Undefined: a stop or no answer.
   */
  private async readPrimaryBalance(): Promise<HttpResponse | undefined> {
    const answer = this.lastExchange;
    let read: HttpResponse;
    try {
      read = await this.client.send({
        method: 'GET',
        path: '/v1/balance',
        headers: { authorization: `Bearer ${this.w.keys.primary ?? ''}` },
      });
    } catch (err) {
      if (!(err instanceof StopSignal) && !(err instanceof TransportError)) throw err;
      return undefined;
    } finally {
      this.lastExchange = answer;
    }
    this.checkExchange(read);
    return read;
  }

  /** A reply of the primary account that shows its balance ran out stops billable work run-wide (ranOutBy). */
  private async noteBalance(res: HttpResponse): Promise<void> {
    if (this.balanceRanOut && balanceSignal(res)?.kind === 'refused') return;
    const reason = await ranOutBy(res, this.w.run.reportDir, () => this.readPrimaryBalance());
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

  /** Record a violation of a requirement; its level comes from the catalogue (one log: ViolationLog). */
  violate(id: string, message: string, extra: ViolationExtra = {}): void {
    this.observe(id, extra.exchange);
    this.log.add(id, message, extra);
  }

  /** The violations recorded so far. */
  get violations(): readonly CountedViolation[] {
    return this.log.violations;
  }

  /** Report a violation unless `ok`; returns `ok`. */
  ensure(ok: boolean, id: string, message: string, extra: ViolationExtra = {}): boolean {
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
    this.cleanupDeadline = Date.now() + cleanupBoundMs(this.target);
    const out = await runCleanups(this.cleanups);
    this.cleanups.length = 0;
    return out;
  }

  /**
   * Notes the place a request touched (method, template, role, format, model, forms), once. A cleanup's
   * requests (deleting what the test made, waiting for its jobs) judge nothing: they are not noted.
   */
  private touch(method: string, path: string, as: As, req: Req, res: HttpResponse): void {
    if (this.cleaning) return;
    this.seen.touch({
      method,
      path,
      role: as,
      exchangeId: res.exchange.id,
      ...(req.headers ? { headers: req.headers } : {}),
      ...(req.json !== undefined ? { json: req.json } : {}),
      ...(res.mediaType ? { responseType: res.mediaType, responseText: res.text } : {}),
    });
  }

  touches(): Touch[] {
    return this.seen.touches();
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
    if (exchange) this.log.cited.set(exchange.id, exchange);
  }

  citedExchanges(): Exchange[] {
    return [...this.log.cited.values()];
  }

  exchange(id: string): Exchange | undefined {
    return this.exchanges.get(id);
  }
}
