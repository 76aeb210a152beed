/**
 * The budget of a run's billable work, shared by every test worker (threads of one process, and shards
 * that share a report directory): the points its replies spent (the spend log, src/layout.ts),
 * the reservations of requests in flight, the admission of a billable start, and the balance running
 * out. Run liveness (stop, dead target) is src/runtime/liveness.ts.
 */
import { threadId } from 'node:worker_threads';
import { Decimal } from 'decimal.js';
import { legacyReply } from '../checks/exchange-points.ts';
import { findField, isPlainObject } from '../checks/json.ts';
import { accountingPoints } from '../checks/points.ts';
import { parseSse } from '../checks/sse.ts';
import type { HttpResponse } from '../http/client.ts';
import { SpendLog } from '../layout.ts';
import { runFlag } from './liveness.ts';
import { type LearnedPrice, PriceBook } from './prices.ts';

/** The billable endpoints whose replies report what a request charged or held. */
export const BILLABLE = /^\/v1\/(chat\/completions|responses|embeddings|media\/jobs)(\?|$)/;

/**
 * What a billable reply says the request spent: `charged_points` (call settlement, in `billing` or
 * anywhere in the reply) and, for a media job, `pending_points` (its hold counts in full until it is
 * settled: a budget errs on the safe side), read for accounting: a JSON number breaks PTS-001 (the
 * checks report it) and still counts. `readable` false: a 2xx billable reply without any such field
 * carrying a number, whose spend the budget must learn elsewhere (the balance, else the most it could
 * have cost). Undefined for every other reply (it spends nothing).
 */
export function readSpend(res: HttpResponse): { points: Decimal; readable: boolean } | undefined {
  if (res.method !== 'POST' || res.status < 200 || res.status >= 300 || !BILLABLE.test(res.rawPath)) return;
  if (res.json === undefined && res.mediaType !== 'application/json') return streamSpend(res);
  return pointsIn(res.json);
}

/** The points fields of one JSON body (charged and pending), and whether any was readable. */
function pointsIn(json: unknown): { points: Decimal; readable: boolean } {
  let total = new Decimal(0);
  let readable = false;
  if (isPlainObject(json))
    for (const field of ['charged_points', 'pending_points']) {
      for (const f of findField(json, field)) {
        const v = accountingPoints(f.value);
        if (!v) continue;
        readable = true;
        if (v.isPositive()) total = total.plus(v);
      }
    }
  return { points: total, readable };
}

/**
 * A streamed reply (server-sent events, or one JSON object per line) may report its charge in its events;
 * where, the contract does not show. Counted as the largest charge one event reports (a running total
 * repeated in several events is one charge, not their sum). None readable: not counted here, as before
 * (the balance reads every BALANCE_EVERY replies measure it), and not a sign that the replies lie.
 */
function streamSpend(res: HttpResponse): { points: Decimal; readable: boolean } | undefined {
  const payloads =
    res.mediaType === 'text/event-stream'
      ? parseSse(res.text).map((e) => e.data)
      : res.text.split('\n').map((l) => l.trim());
  let most: Decimal | undefined;
  for (const data of payloads) {
    if (!data.startsWith('{')) continue;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      continue;
    }
    const s = pointsIn(json);
    if (s.readable && (most === undefined || s.points.greaterThan(most))) most = s.points;
  }
  return most === undefined ? undefined : { points: most, readable: true };
}

/** The points a reply says the request spent (undefined: nothing readable, or nothing spent). */
export function spentBy(res: HttpResponse): Decimal | undefined {
  const s = readSpend(res);
  return s?.readable && !s.points.isZero() ? s.points : undefined;
}

/** One line of the spend file. */
export type SpendLine =
  /** A reply's spend (`estimated`: not readable from the reply, counted at the price learned so far). */
  | {
      exchange: string;
      path: string;
      points: string;
      model?: string;
      seconds?: number;
      estimated?: true;
      /** Unreadable, measured by the balance across the request (sent alone): a price learned. */
      measured?: true;
      /** Unreadable and unmeasured: counted at the most it could have cost (countUnmeasured). */
      unmeasured?: true;
      /** Spent with another role's key than the primary one (Bought.elsewhere). */
      elsewhere?: true;
    }
  /**
   * A billable request about to be sent holds its predicted points until its reply is counted;
   * `unpriced`: nothing comparable was bought yet, so its price is not known.
   */
  | { reserve: string; points: string; unpriced?: true }
  | { release: string }
  /** A billable reply whose spend could not be read (its exchange id): the replies are not to be trusted. */
  | { unreadable: string }
  /** A reply that said less than the balance measured across it (its exchange id): Spend.suspect. */
  | { suspect: string }
  /** A second one in a row: Spend.untrusted. */
  | { untrusted: string }
  /** A reply that added up with the balance: the suspicion is cleared. */
  | { trusted: string }
  /** The primary account's available points fell by this much since before the run (a balance read). */
  | { balance: string }
  /** A media price known before the run (--prices). */
  | { price: string; known: Partial<LearnedPrice> };

const appendSpend = (reportDir: string, line: SpendLine) => SpendLog.of<SpendLine>(reportDir).append(line);

/** What a billable request bought: its model and, for a timed media job, its seconds (the price book's keys). */
export interface Bought {
  model?: string;
  seconds?: number;
  /** Bought with another role's key than the primary one: counted, but not in the primary balance. */
  elsewhere?: true;
}

const lineOf = (res: HttpResponse, of: Bought) => ({
  exchange: res.exchange.id,
  path: res.rawPath,
  ...(of.model ? { model: of.model } : {}),
  ...(of.seconds ? { seconds: of.seconds } : {}),
  ...(of.elsewhere ? { elsewhere: true as const } : {}),
});

/**
 * Count a billable reply: what it reported, or, when nothing readable and `estimate`, the price learned
 * so far of its model (a media job; the balance read that follows supersedes it). `distrust`: the
 * replies under-report (Spend.untrusted), so what this one says is an estimate. Returns whether its
 * spend was unreadable (or distrusted): the caller then reads the balance (recordMeasured), and where the balance
 * measures nothing, counts the most the request could have cost (countUnmeasured).
 */
export function recordSpend(
  reportDir: string,
  res: HttpResponse,
  of: Bought = {},
  estimate = true,
  distrust = false,
): { unreadable: boolean; reported?: Decimal } {
  const s = readSpend(res);
  if (!s) return { unreadable: false };
  // Replies that under-report (Spend.untrusted): what one says is counted until the balance prices it.
  if (s.readable && distrust) {
    appendSpend(reportDir, { ...lineOf(res, of), points: s.points.toString(), estimated: true });
    return { unreadable: true };
  }
  if (s.readable) {
    if (!s.points.isZero()) appendSpend(reportDir, { ...lineOf(res, of), points: s.points.toString() });
    return { unreadable: false, reported: s.points };
  }
  // A reply in the legacy currency format carries legacy amount fields in place of points fields (whose
  // names the contract does not show): unreadable by design, not a sign that the replies lie.
  if (!legacyReply(res)) appendSpend(reportDir, { unreadable: res.exchange.id });
  if (!estimate) return { unreadable: true };
  // The price book learns media jobs only: a chat, embeddings or responses call is never estimated from them.
  const guess = buysMediaJob(res.rawPath)
    ? spendOf(reportDir).prices.predict(of.model, of.seconds)
    : undefined;
  if (guess) appendSpend(reportDir, { ...lineOf(res, of), points: guess.toString(), estimated: true });
  return { unreadable: true };
}

/** The spend of an unreadable reply sent alone, as the balance measured it across the request: a price learned. */
export function recordMeasured(reportDir: string, res: HttpResponse, of: Bought, points: Decimal): void {
  appendSpend(reportDir, { ...lineOf(res, of), points: points.toString(), measured: true });
}

/**
 * A readable reply of a request sent alone (it `reported` its spend), against what the balance measured
 * across it: `measured` is the balance's move, `counted` what the replies counted over the same span (this reply and any other
 * answered meanwhile). More measured than counted (beyond a hundredth of this reply) makes the replies
 * suspect, and a second such request in a row untrusted (Spend.untrusted): once is a hold in flight of
 * another request, twice is a deployment that under-reports. A request that adds up clears the suspicion.
 */
export function checkReported(
  reportDir: string,
  res: HttpResponse,
  reported: Decimal,
  measured: Decimal,
  counted: Decimal,
): void {
  const spend = spendOf(reportDir);
  if (measured.minus(counted).gt(reported.times('0.01')))
    appendSpend(reportDir, spend.suspect ? { untrusted: res.exchange.id } : { suspect: res.exchange.id });
  else if (spend.suspect) appendSpend(reportDir, { trusted: res.exchange.id });
}

/**
 * The most a billable request could have cost: the price learned for its model (a media job) or the
 * dearest reply of its endpoint so far, whichever is larger; when nothing is known of either, the whole
 * remaining budget (the run then stops its billable work: what it cannot measure it counts as spent),
 * or nothing where only a price known may be counted (`knownOnly`).
 */
export function mostItCouldCost(
  spend: Spend,
  budget: RunBudget,
  path: string,
  of: Bought = {},
  knownOnly = false,
): Decimal {
  const learned = buysMediaJob(path) ? spend.prices.predict(of.model, of.seconds) : undefined;
  const dearest = spend.dearest.get(endpointOf(path));
  const most = learned && dearest ? Decimal.max(learned, dearest) : (learned ?? dearest);
  if (most || knownOnly) return most ?? new Decimal(0);
  return Decimal.max(new Decimal(budget.points).minus(spentOfRun(spend)), 0);
}

/**
 * How the primary balance met an unreadable reply: read after it and did not move (`unmoved`: the
 * balance is the measure, so the request cost nothing new, an idempotent replay or a free call), could
 * not be read (`unread`), or was not read because the request was not the primary key's (`other`).
 */
export type BalanceAfter = 'unmoved' | 'unread' | 'other';

/**
 * An unreadable reply the balance did not measure, counted at the most it could have cost: where the
 * balance could not be read, mostItCouldCost (the whole remaining budget when no price is known); for
 * another key's request, a price known for its kind (the primary balance may not be that key's
 * account); nothing where the balance read shows no move. A later balance read supersedes the estimate.
 * Returns the points counted.
 */
export function countUnmeasured(
  reportDir: string,
  res: HttpResponse,
  of: Bought,
  budget: RunBudget,
  after: BalanceAfter,
): Decimal {
  if (after === 'unmoved') return new Decimal(0);
  const most = mostItCouldCost(spendOf(reportDir), budget, res.rawPath, of, after === 'other');
  if (most.isPositive())
    appendSpend(reportDir, {
      ...lineOf(res, of),
      points: most.toString(),
      estimated: true,
      unmeasured: true,
    });
  return most;
}

/** The billable endpoint of a path (chat/completions, responses, embeddings, media/jobs), or the path. */
const endpointOf = (path: string): string => BILLABLE.exec(path)?.[1] ?? path;

let reservations = 0;
/**
 * Hold `points` of the budget for a billable request about to be sent (undefined: its price is not
 * known yet); the key releases it.
 */
export function reserve(reportDir: string, points: Decimal | undefined): string {
  const key = `${process.pid}-${threadId}-${++reservations}`;
  appendSpend(reportDir, {
    reserve: key,
    points: (points ?? 0).toString(),
    ...(points ? {} : { unpriced: true }),
  });
  return key;
}

/**
 * Whether a billable request must wait before it is sent: a request of unknown price waits for every
 * request reserved before it, a priced one for the requests of unknown price reserved before it. Why:
 * a price not known yet is learned from the reply (or the balance read after it) of a request sent
 * alone, so that no budget is passed by a batch of requests nobody could price.
 */
export function mustWait(reportDir: string, key: string): boolean {
  const reserved = spendOf(reportDir).reserved;
  const own = reserved.get(key);
  if (!own) return false;
  for (const [k, r] of reserved) {
    if (k === key) return false;
    if (own.unpriced || r.unpriced) return true;
  }
  return false;
}
export function release(reportDir: string, key: string): void {
  appendSpend(reportDir, { release: key });
}

/** The media prices known before the run (--prices), for admission to predict from. */
export function notePrices(reportDir: string, prices: Record<string, Partial<LearnedPrice>>): void {
  for (const [model, known] of Object.entries(prices)) appendSpend(reportDir, { price: model, known });
}

/**
 * A balance read: the primary account's available points before the run minus now. Its points are
 * the truth up to the read; replies counted after it add to it (see Spend.measured).
 */
export function noteBalanceSpent(reportDir: string, spent: Decimal): void {
  appendSpend(reportDir, { balance: spent.toString() });
}

/** The run's spend so far: the replies' total, the costliest reply, the models bought, and more. */
export interface Spend {
  /** What the replies reported. */
  total: Decimal;
  /** Unreadable replies counted at the price learned so far. */
  estimated: Decimal;
  /** Of both, what was spent with other roles' keys than the primary one (not in the primary balance). */
  elsewhere: Decimal;
  max: Decimal;
  models: Set<string>;
  /** The latest balance read (spend since before the run) plus the replies counted after it. */
  measured?: Decimal;
  /** Replies counted since the latest balance read (or since the start). */
  sinceBalance: number;
  /** Points held for requests in flight, by key, in the order they were reserved. */
  reserved: Map<string, { points: Decimal; unpriced: boolean }>;
  /** Billable replies whose spend could not be read. */
  unreadable: number;
  /** The latest balance read's spend (available points before the run minus then). */
  lastRead?: Decimal;
  /** The dearest reply reported (or measured) per billable endpoint (mostItCouldCost). */
  dearest: Map<string, Decimal>;
  /**
   * The replies under-report: two replies of requests sent alone in a row said less than the balance
   * measured across them (checkReported). Between them, the periodic balance reads bound the spend
   * (spentOfRun takes the larger of the replies' count and the balance's measure). From then on every billable request is sent alone, unpriced, and priced by the balance across it.
   */
  untrusted: boolean;
  /** One reply said less than the balance measured (checkReported): the next request is sent alone to see. */
  suspect: boolean;
  /** Media prices learned from the replies with readable spend. */
  prices: PriceBook;
  /**
   * What each reply reported (or the balance measured across it), by exchange id: not the estimates of
   * unreadable ones (a dry run's plan prices its billable requests from these).
   */
  reported: Map<string, { points: Decimal; path: string; model?: string; seconds?: number }>;
}

/**
 * What the budget goes by: the larger of the replies' count and the balance's measure (which counts the
 * unreadable replies after the latest read at their estimate); without a balance read, the replies'
 * count with the estimates.
 */
export const spentOfRun = (s: Spend): Decimal =>
  s.measured ? Decimal.max(s.total, s.measured) : s.total.plus(s.estimated);

/** What this worker has already summed of each spend file: complete lines only, by byte offset. */
const tallies = new Map<string, { offset: number; spend: Spend }>();

const MEDIA_JOBS = /^\/v1\/media\/jobs(\?|$)/;
/** Whether a request path creates media jobs (what the price book learns from). */
export const buysMediaJob = (path: string): boolean => MEDIA_JOBS.test(path);

/**
 * The run's spend so far (all workers). Called before every billable request when a budget is set:
 * only the bytes appended since the last call are read.
 */
export function spendOf(reportDir: string): Spend {
  const log = SpendLog.of<SpendLine>(reportDir);
  const empty = (): Spend => ({
    total: new Decimal(0),
    estimated: new Decimal(0),
    elsewhere: new Decimal(0),
    max: new Decimal(0),
    models: new Set(),
    sinceBalance: 0,
    reserved: new Map(),
    unreadable: 0,
    dearest: new Map(),
    untrusted: false,
    suspect: false,
    prices: new PriceBook(),
    reported: new Map(),
  });
  let tally = tallies.get(log.file);
  const read = log.since(tally?.offset ?? 0);
  if (!read) return empty();
  // A new spend file at the same path (a later run into the same directory) starts a new tally.
  if (!tally || read.restart) tally = { offset: 0, spend: empty() };
  const s = tally.spend;
  for (const entry of read.lines) {
    try {
      if ('reserve' in entry)
        s.reserved.set(entry.reserve, { points: new Decimal(entry.points), unpriced: !!entry.unpriced });
      else if ('release' in entry) s.reserved.delete(entry.release);
      else if ('unreadable' in entry) s.unreadable++;
      else if ('suspect' in entry) s.suspect = true;
      else if ('trusted' in entry) s.suspect = false;
      else if ('untrusted' in entry) s.untrusted = true;
      else if ('price' in entry) s.prices.seed(entry.price, entry.known);
      else if ('balance' in entry) {
        const read = new Decimal(entry.balance);
        s.lastRead = read;
        s.measured = read;
        s.sinceBalance = 0;
      } else {
        const points = new Decimal(entry.points);
        if (entry.elsewhere) s.elsewhere = s.elsewhere.plus(points);
        // An estimate stands until the next balance read says otherwise (measured), or for good
        // when the balance is never read.
        if (entry.estimated) {
          s.estimated = s.estimated.plus(points);
        } else {
          const at = endpointOf(entry.path);
          s.dearest.set(at, Decimal.max(s.dearest.get(at) ?? 0, points));
          s.total = s.total.plus(points);
          s.reported.set(entry.exchange, {
            points,
            path: entry.path,
            ...(entry.model ? { model: entry.model } : {}),
            ...(entry.seconds ? { seconds: entry.seconds } : {}),
          });
        }
        // The costliest reply is a price seen, not a bound counted for want of one.
        if (!entry.unmeasured) s.max = Decimal.max(s.max, points);
        if (s.measured) s.measured = s.measured.plus(points);
        s.sinceBalance++;
        if (entry.model) s.models.add(entry.model);
        if (entry.model && !entry.estimated && MEDIA_JOBS.test(entry.path))
          s.prices.learn({
            model: entry.model,
            points,
            ...(entry.seconds ? { seconds: entry.seconds } : {}),
          });
      }
    } catch {
      // a malformed line: ignored (the budget errs only by that line)
    }
  }
  tally.offset = read.offset;
  tallies.set(log.file, tally);
  return tally.spend;
}

/** The points the run has spent so far: the replies' count, or the balance's measure where larger. */
export function spentPoints(reportDir: string): Decimal {
  return spentOfRun(spendOf(reportDir));
}

/** The budget of a run's billable work, as the workers apply it. */
export interface RunBudget {
  /**
   * The effective budget (decimal string): the configured one, or the primary account's available
   * points (preflight) when those are fewer.
   */
  points: string;
  /** Where it came from, as every reason citing it says. */
  source: string;
  /** `balance`: the budget is the primary account's available points (fewer than any budget set). */
  kind: 'budget' | 'balance';
  /**
   * The primary account's available points before the run (decimal string; absent: unreadable): what
   * it has available later, subtracted from this, is the spend the account measures.
   */
  baseline?: string;
  /**
   * Why the run cannot measure what it spends (the primary balance could not be read before the run):
   * billable work is not run at all.
   */
  unmeasurable?: string;
}

/**
 * The most of a budget kept for requests the contract refuses and text calls (no media purchase eats
 * into it): what one such request could cost if the target wrongly accepted it, the costliest reply so far.
 */
export const REFUSAL_SHARE = 0.1;

/** A test's media jobs beyond this many are bulk purchases (BillableStart.bulk). */
export const BULK_AFTER = 1;
/** The most of a budget bulk purchases (and dear ones) leave to other tests' first jobs. */
export const BULK_SHARE = 0.25;
/** A media job likely to cost more than this share of the budget is a dear one (admission). */
export const DEAR_SHARE = 0.05;

/** Read the primary balance after this many billable replies counted without a balance read. */
export const BALANCE_EVERY = 5;

/**
 * Why the budget refuses a billable start: the reason its test shows (with the figures and the model),
 * and the subject its not-run group shares (the same for every test refused on that ground, so the
 * console and the report show one line per ground, not one per model or per figure).
 */
export interface BudgetRefusal {
  reason: string;
  subject: string;
  /** How to run the tests it refused, where raising the budget is not it. */
  remedy?: string;
}

/** How to run billable tests when the spend cannot be measured. */
export const UNMEASURABLE_REMEDY =
  "make GET /v1/balance give the primary key's available_points, or lift the budget with --budget-points unlimited (then nothing bounds what the run spends)";

/** A billable request about to start: its model, the hold predicted for it, its reservation. */
export interface BillableStart {
  model?: string;
  /** The hold predicted (PriceBook.predict); undefined when nothing comparable was bought yet. */
  predicted?: Decimal;
  /** The key of the reservation it appended (reserve): only reservations before it count against it. */
  reservation?: string;
  /** The request's path: the dearest reply of its endpoint prices it where nothing is predicted. */
  path?: string;
  /**
   * The contract says the request must be refused (Req.refusal): on a conformant target it spends
   * nothing, so it goes before purchases (the refusal reserve); what it spends if accepted is counted.
   */
  refusal?: boolean;
  /** The test bought BULK_AFTER media jobs or more before it: it goes after every test's first one. */
  bulk?: boolean;
  /** Judge as if the requests in flight before it were answered (blockedByInFlight). */
  ignoreInFlight?: boolean;
}

/**
 * Whether a billable request (or test, without a model) may start under the run's budget; why not if
 * it may not. Spent is the larger of the replies' count and the balance's measure. A request whose hold
 * is predicted starts only if the budget can hold it beside what was spent and what the requests in
 * flight before it reserved, so "spent" never ends above the budget. Why reserves: a budget too small
 * for the whole plan should buy what proves most per point first, and files run in parallel, so the
 * order is kept by what each kind of purchase leaves to the cheaper kinds: a request the contract says
 * must be refused (and a text call) costs nothing on a conformant target, so no media purchase eats the
 * last REFUSAL_SHARE of the budget (at most the costliest reply so far) that such requests need room
 * for; and a test's second media job or later (a covering design, a replay) or a dear job (more than
 * DEAR_SHARE of the budget) leaves BULK_SHARE more to other tests' cheaper first jobs. (Under a budget
 * the covering-design files also start last: src/app/suites.ts.) Run-wide: the spend file is shared by
 * every worker thread.
 */
export function admission(
  reportDir: string,
  budget: RunBudget | undefined,
  start: BillableStart | string = {},
): BudgetRefusal | undefined {
  if (!budget) return undefined;
  const { model, predicted, reservation, path, refusal, bulk, ignoreInFlight } =
    typeof start === 'string' ? { model: start } : start;
  if (budget.unmeasurable)
    return { reason: budget.unmeasurable, subject: budget.unmeasurable, remedy: UNMEASURABLE_REMEDY };
  const limit = new Decimal(budget.points);
  if (limit.isZero()) {
    const reason = `points budget of 0 (${budget.source}): billable tests are not run`;
    return { reason, subject: reason };
  }
  const spend = spendOf(reportDir);
  const spent = spentOfRun(spend);
  if (spent.gte(limit))
    return budget.kind === 'balance'
      ? {
          reason: `the account's balance ran out: ${spent.toString()} of the ${budget.points} points available before the run spent`,
          subject: `the account's balance ran out (${budget.points} points available before the run)`,
        }
      : {
          reason: `points budget reached: ${spent.toString()} of ${budget.points} points spent (${budget.source})`,
          subject: `points budget reached: ${budget.points} points (${budget.source})`,
        };
  let inFlight = new Decimal(0);
  for (const [key, r] of ignoreInFlight ? [] : spend.reserved) {
    if (key === reservation) break;
    inFlight = inFlight.plus(r.points);
  }
  if (predicted) {
    const left = limit.minus(spent).minus(inFlight);
    if (predicted.gt(left))
      return {
        reason: `points budget: a job of ${model ?? 'this model'} is predicted to hold ${predicted.toDecimalPlaces(4).toString()} points and ${Decimal.max(left, 0).toDecimalPlaces(4).toString()} of ${budget.points} are left (${spent.toDecimalPlaces(4).toString()} spent, ${inFlight.toDecimalPlaces(4).toString()} held by requests in flight; ${budget.source})`,
        subject: `points budget: what is left of the ${budget.points} points cannot hold the predicted price of the next job (${budget.source})`,
      };
  }
  // The reserves restrain media purchases only: a chat, responses or embeddings call (thousands of
  // them cost less than one image) and a request the contract refuses are admitted by the budget alone.
  if (refusal || model === undefined || (path && !buysMediaJob(path))) return undefined;
  const forRefusals = Decimal.min(limit.times(REFUSAL_SHARE), spend.max);
  // A reserve holds back only what would eat into it: a job whose likely price (predicted, else the
  // dearest job so far) fits above the reserves runs. A test's second job and later (a covering design,
  // a replay, a property of bounds) and a dear job (a long or high-resolution video) judge less per
  // point than other tests' cheap first jobs: they leave BULK_SHARE of the budget to those.
  const likely = predicted ?? (path ? spend.dearest.get(endpointOf(path)) : undefined) ?? spend.max;
  const dear = likely.gt(limit.times(DEAR_SHARE));
  const forFirsts = bulk || dear ? limit.times(BULK_SHARE) : new Decimal(0);
  const after = spent.plus(inFlight).plus(likely);
  if (after.lte(limit.minus(forRefusals))) {
    if (after.lte(limit.minus(forRefusals).minus(forFirsts))) return undefined;
    return {
      reason: `points budget: ${bulk ? `a test's job after its first (${model})` : `a job of ${model} likely to cost ${likely.toDecimalPlaces(4).toString()} points, more than ${DEAR_SHARE * 100}% of the budget,`} would eat into the last ${forFirsts.plus(forRefusals).toString()} of ${budget.points} points, kept for other tests' first jobs, refusals and text calls (${budget.source})`,
      subject: `points budget: a test's jobs after its first, and dear jobs, stop where the rest of the ${budget.points} points is kept for other tests' cheaper first jobs (${budget.source})`,
    };
  }
  return {
    reason: `points budget: a job of ${model} would eat into the last ${forRefusals.toString()} of ${budget.points} points, kept for the requests the contract refuses and the text calls, which cost nothing or next to nothing on a conformant target (${budget.source})`,
    subject: `points budget: media jobs stop where the rest of the ${budget.points} points is kept for refusals and text calls, which prove more per point (${budget.source})`,
  };
}

/**
 * A billable request the budget refuses only for the requests in flight before it (its price fits
 * once they are answered, and a refusal or a cheap reply frees what they hold): it waits for them
 * rather than being not run.
 */
export function blockedByInFlight(
  reportDir: string,
  budget: RunBudget | undefined,
  start: BillableStart,
): boolean {
  return (
    !!start.reservation &&
    admission(reportDir, budget, start) !== undefined &&
    admission(reportDir, budget, { ...start, ignoreInFlight: true }) === undefined
  );
}

/** The run-wide refusal of billable work: the account's balance ran out, or the budget refuses it. */
export function budgetRefusal(
  reportDir: string,
  budget: RunBudget | undefined,
  start: BillableStart | string = {},
): BudgetRefusal | undefined {
  const out = balanceOut(reportDir);
  return out ? { reason: out, subject: out } : admission(reportDir, budget, start);
}

const balanceFlag = runFlag('balanceOut', "the account's balance ran out");
/**
 * The primary account cannot pay any more: billable work stops run-wide (every worker reads the flag),
 * the remaining billable tests are not run with this reason. Not a failure of the target.
 */
export const markBalanceOut = balanceFlag.set;
/** Why the primary account's balance ran out, if it did. */
export const balanceOut = balanceFlag.get;

const JOB_REPLY = /^\/v1\/media\/jobs(\/[^/?]+)?(\?|$)/;

/** The statuses a billable refusal for want of points may carry (balanceSignal). */
const BALANCE_REFUSALS: readonly number[] = [402, 403, 429];

/**
 * What a reply to the primary key says about its balance: a media job waiting for points
 * (`settlement_pending`: "top up needed points, then keep tracking the same job"), or a billable
 * request refused with 402, 403 or 429. The status of an insufficient-balance refusal is not stated:
 * 402 is HTTP's own, 403 "account, model or call policy forbids" and 429 "rate limit or protection"
 * both cover it (variant runs-out-refused-403). None of them alone proves it (a 429 may be any
 * protection, a 403 a model outside the catalog): the caller confirms it against the balance.
 */
export function balanceSignal(
  res: HttpResponse,
): { kind: 'settlement_pending'; job: string } | { kind: 'refused' } | undefined {
  if (res.status >= 200 && res.status < 300 && JOB_REPLY.test(res.rawPath) && isPlainObject(res.json)) {
    if (res.json.status === 'settlement_pending')
      return { kind: 'settlement_pending', job: String(res.json.id ?? res.rawPath.split('/').pop()) };
    return undefined;
  }
  if (res.method === 'POST' && BILLABLE.test(res.rawPath) && BALANCE_REFUSALS.includes(res.status))
    return { kind: 'refused' };
  return undefined;
}
