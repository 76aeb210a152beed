/**
 * The budget's stage of one request (CheckContext.request is a pipeline: stop gate, this stage's hold
 * and admission, send, this stage's count, per-exchange checks). Around the send it holds the request's
 * predicted price of the run's budget, admits or refuses its start, counts what its reply spent, and
 * reads the primary balance where the replies cannot be read or trusted. A new budget rule touches this
 * file and budget.ts (what the spend log's lines mean), nothing else.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Decimal } from 'decimal.js';
import { accountingField } from '../checks/points.ts';
import type { HttpResponse } from '../http/client.ts';
import {
  BALANCE_EVERY,
  type BalanceAfter,
  type BillableStart,
  type Bought,
  BULK_AFTER,
  type BudgetRefusal,
  balanceSignal,
  blockedByInFlight,
  budgetRefusal,
  buysMediaJob,
  checkReported,
  countUnmeasured,
  mustWait,
  noteBalanceSpent,
  type RunBudget,
  recordMeasured,
  recordSpend,
  release,
  reserve,
  type Spend,
  spendOf,
} from './budget.ts';
import { stopReason } from './liveness.ts';

/** What the stage needs to know of its request. */
export interface SpendRequest {
  reportDir: string;
  budget: RunBudget | undefined;
  /** A POST of a billable test, not a cleanup's: what the budget admits and holds. */
  billable: boolean;
  /** The contract says it must be refused (Req.refusal): it goes before purchases (budget.ts admission). */
  refusal?: boolean;
  /** The media jobs the test bought before this request: its second and later are bulk (budget.ts admission). */
  purchasesBefore?: number;
  path: string;
  bought: Bought;
  /** The request authenticates as the primary key, whose balance measures the run's spend. */
  primary: boolean;
  /** How long a request may wait for the prices of the requests before it. */
  waitMs: number;
}

/**
 * Reads the primary balance: what its available points fell since before the run (undefined: the read
 * failed or is not allowed). The test's own client sends it (a harness read, recorded with the test).
 */
export type BalanceReader = () => Promise<Decimal | undefined>;

export class SpendStage {
  private readonly dir: string;
  private readonly spendNow: Spend | undefined;
  /** The hold predicted for a media job from the prices learned (undefined: send it alone). */
  private readonly predicted: Decimal | undefined;
  private reservation: string | undefined;
  /** A media job the contract does not refuse: one the test buys (CheckContext counts them). */
  readonly purchase: boolean;
  /** The test bought BULK_AFTER or more before it: a bulk purchase, after every test's first one. */
  private readonly bulk: boolean;
  /** The balance's measure and the replies' count just before a request sent alone. */
  private before: Decimal | undefined;
  private countedBefore: Decimal | undefined;

  constructor(private readonly r: SpendRequest) {
    this.dir = r.reportDir;
    this.spendNow = r.billable && r.budget ? spendOf(this.dir) : undefined;
    this.purchase = r.billable && !r.refusal && buysMediaJob(r.path);
    this.bulk = this.purchase && (r.purchasesBefore ?? 0) >= BULK_AFTER;
    const s = this.spendNow;
    // The price book learns media jobs only: a chat, embeddings or responses call is never predicted from
    // them. Replies that under-report (untrusted, suspect) price nothing: every request is sent alone.
    this.predicted =
      s && buysMediaJob(r.path) && !s.untrusted && !s.suspect
        ? s.prices.predict(r.bought.model, r.bought.seconds)
        : undefined;
    // Which requests hold a reservation: a media job (it holds up to a long video's price, so one of
    // unknown price is sent alone and its reply prices the next), and, once the target sent a billable
    // reply whose spend cannot be read or trusted, every billable request (one of unknown price then
    // goes alone, so the balance measures it). A chat, embeddings or responses call of a target whose
    // replies read is counted when answered: never serialised, so the concurrency tests stay concurrent.
    const holds =
      !!s &&
      (this.predicted !== undefined || buysMediaJob(r.path) || s.unreadable > 0 || s.untrusted || s.suspect);
    if (holds) this.reservation = reserve(this.dir, this.predicted);
  }

  /**
   * The budget's refusal of the request's start, judged when it gets its slot of the worker's gate (a
   * request waiting for a slot must see a spend that came meanwhile). Undefined: it may start.
   */
  refusal(): BudgetRefusal | undefined {
    if (!this.r.billable) return undefined;
    return budgetRefusal(this.dir, this.r.budget, this.start());
  }

  /** What the budget judges of the request's start. */
  private start(): BillableStart {
    const { model } = this.r.bought;
    return {
      path: this.r.path,
      ...(model ? { model } : {}),
      ...(this.predicted ? { predicted: this.predicted } : {}),
      ...(this.reservation ? { reservation: this.reservation } : {}),
      ...(this.r.refusal ? { refusal: true } : {}),
      ...(this.bulk ? { bulk: true } : {}),
    };
  }

  /**
   * Before the send: wait (bounded) for the prices of the requests reserved before this one; a request
   * of unknown price then goes alone, so what the balance measures across it is its price. A request the
   * budget refuses only for what the requests in flight before it hold waits for their replies too.
   */
  async beforeSend(): Promise<void> {
    if (!this.reservation) return;
    const until = Date.now() + this.r.waitMs;
    const blocked = () =>
      mustWait(this.dir, this.reservation!) ||
      (this.r.billable && blockedByInFlight(this.dir, this.r.budget, this.start()));
    while (blocked() && Date.now() < until) {
      if (stopReason(this.dir)) break;
      await sleep(20);
    }
    if (this.predicted) return;
    const sofar = spendOf(this.dir);
    this.before = sofar.measured;
    this.countedBefore = sofar.total;
  }

  /**
   * After the reply: count what it spent; read the balance after a request sent alone, after an
   * unreadable reply and every BALANCE_EVERY replies; count what nothing measured at the most it could
   * have cost.
   */
  async afterReply(res: HttpResponse, readBalance: BalanceReader): Promise<void> {
    const { dir, before, countedBefore } = this;
    const { budget, bought, primary } = this.r;
    const { unreadable, reported } = recordSpend(
      dir,
      res,
      bought,
      before === undefined,
      !!this.spendNow?.untrusted,
    );
    // Counted: the requests waiting on this one may go, unless the balance read below prices it.
    if (this.reservation && !(unreadable && before)) this.close();
    if (!budget) return;
    let measured = false;
    let after: BalanceAfter = primary ? 'unread' : 'other';
    if (primary && (unreadable || before !== undefined || spendOf(dir).sinceBalance >= BALANCE_EVERY)) {
      const last = spendOf(dir).lastRead;
      const now = await readBalance();
      // The balance measured this reply only if it moved across it (since the read before it was sent
      // alone, or since the run's latest read).
      const from = before ?? last;
      measured = !!now && !!from && now.gt(from);
      if (now) after = 'unmoved';
      if (now && before && unreadable && measured) recordMeasured(dir, res, bought, now.minus(before));
      // A readable reply the balance shows cost more than it said: the replies under-report.
      else if (now && before && countedBefore && reported)
        checkReported(dir, res, reported, now.minus(before), spendOf(dir).total.minus(countedBefore));
      if (now) noteBalanceSpent(dir, now);
    }
    // What no reply and no balance read measured counts at the most it could have cost.
    if (unreadable && !measured) countUnmeasured(dir, res, bought, budget, after);
  }

  /** Release the request's hold of the budget (its reply counted, or it never got one). */
  close(): void {
    if (!this.reservation) return;
    release(this.dir, this.reservation);
    this.reservation = undefined;
  }
}

/**
 * The account is the truth for the budget: what the primary account's available points fell since
 * before the run, from a balance read (undefined: no budget, no baseline, or no number to read).
 */
export function spentSince(
  budget: RunBudget | undefined,
  read: HttpResponse | undefined,
): Decimal | undefined {
  const available = availableIn(read);
  return budget?.baseline !== undefined && available
    ? new Decimal(budget.baseline).minus(available)
    : undefined;
}

/** The available points a balance read shows, read for accounting (undefined: no answer, a refusal, no number). */
const availableIn = (read: HttpResponse | undefined): Decimal | undefined =>
  read && read.status < 300 ? accountingField(read.json, 'available_points') : undefined;

/**
 * Why a reply of the primary account shows its balance ran out, if it does: a media job waiting for
 * points (settlement_pending), or a billable refusal (402, 403 or 429) after which a balance read (`read`)
 * shows less available than the costliest reply of the run (a 429 may be any protection, a 403 a model outside the catalog, so it alone
 * proves nothing).
 */
export async function ranOutBy(
  res: HttpResponse,
  reportDir: string,
  read: () => Promise<HttpResponse | undefined>,
): Promise<string | undefined> {
  const signal = balanceSignal(res);
  if (!signal) return undefined;
  if (signal.kind === 'settlement_pending')
    return `the account's balance ran out: job ${signal.job} is settlement_pending (the account cannot pay; it is tracked by its id, never created again)`;
  const available = availableIn(await read());
  if (available?.lte(spendOf(reportDir).max))
    return `the account's balance ran out: ${res.method} ${res.rawPath} answered ${res.status} with ${available.toString()} points available`;
  return undefined;
}
