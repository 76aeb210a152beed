/**
 * Run-wide control shared by every test worker (threads of one process, and shards that share a report
 * directory): a stop request (Ctrl-C, the run deadline) and the points the run has spent. Why files in
 * the report directory: workers are separate threads with separate module state, and appends of one
 * short line are atomic, so no lock is needed.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { Decimal } from 'decimal.js';
import { legacyReply } from '../checks/exchange-points.ts';
import { findField, isPlainObject } from '../checks/json.ts';
import { judgePoints } from '../checks/points.ts';
import type { Exchange, HttpResponse } from '../http/client.ts';
import { type LearnedPrice, PriceBook } from './prices.ts';

export const STOP_FILE = 'stop-requested';
export const SPEND_FILE = 'spend.ndjson';
/**
 * Media jobs each worker thread is waiting on: a directory of one small file per thread (`<pid>-<thread>`,
 * its count), overwritten when the count changes; the progress line sums the latest counts.
 */
export const JOBS_FILE = 'jobs-in-flight';

const jobsDirs = new Set<string>();
/** This worker thread now waits on `count` jobs (for the main thread's progress line). */
export function noteJobsInFlight(reportDir: string, thread: number, count: number): void {
  const dir = join(reportDir, JOBS_FILE);
  if (!jobsDirs.has(dir)) {
    mkdirSync(dir, { recursive: true });
    jobsDirs.add(dir);
  }
  // Written aside, then renamed over: a reader sees the old count or the new one, never an empty file.
  const file = join(dir, `${process.pid}-${thread}`);
  writeFileSync(`${file}.next`, String(count));
  renameSync(`${file}.next`, file);
}

/** The media jobs the run's worker threads are waiting on, summed. */
export function jobsInFlight(reportDir: string): number {
  const dir = join(reportDir, JOBS_FILE);
  let total = 0;
  try {
    for (const f of readdirSync(dir)) {
      if (f.endsWith('.next')) continue;
      const n = Number(readFileSync(join(dir, f), 'utf8'));
      if (Number.isFinite(n)) total += n;
    }
  } catch {
    // no job yet (no directory), or the run ended meanwhile
  }
  return total;
}

/**
 * A run-wide flag with its reason: a file of the report directory, set once by any worker, read by
 * every one (cached once set, by report directory: one process may hold several runs one after another).
 */
function runFlag(name: string, fallback: string) {
  const seen = new Map<string, string>();
  return {
    set(reportDir: string, reason: string): void {
      if (!existsSync(join(reportDir, name))) writeFileSync(join(reportDir, name), reason);
    },
    get(reportDir: string): string | undefined {
      const known = seen.get(reportDir);
      if (known) return known;
      const file = join(reportDir, name);
      if (!existsSync(file)) return undefined;
      const reason = readFileSync(file, 'utf8') || fallback;
      seen.set(reportDir, reason);
      return reason;
    },
  };
}

const stopFlag = runFlag(STOP_FILE, 'the run was stopped');
/** Ask every worker of the run to stop starting tests and requests (running cleanups still run). */
export const requestStop = stopFlag.set;
/** The reason the run was asked to stop, if it was. */
export const stopReason = stopFlag.get;

/** The billable endpoints whose replies report what a request charged or held. */
export const BILLABLE = /^\/v1\/(chat\/completions|responses|embeddings|media\/jobs)(\?|$)/;

/**
 * What a billable reply says the request spent: `charged_points` (call settlement, in `billing` or
 * anywhere in the reply) and, for a media job, `pending_points` (its hold counts in full until it is
 * settled: a budget errs on the safe side). `readable` false: a 2xx billable reply without any such
 * field readable as a decimal string (a number, a missing field: a violation the checks report), whose
 * spend the budget must learn elsewhere (the price learned so far, the balance). Undefined for every
 * other reply (it spends nothing).
 */
export function readSpend(res: HttpResponse): { points: Decimal; readable: boolean } | undefined {
  if (res.method !== 'POST' || res.status < 200 || res.status >= 300 || !BILLABLE.test(res.rawPath)) return;
  // A streamed reply (server-sent events, not one JSON object) reports its settlement in its events:
  // not counted here, as before (the balance reads every BALANCE_EVERY replies still measure it).
  if (res.json === undefined && res.mediaType !== 'application/json') return;
  let total = new Decimal(0);
  let readable = false;
  if (isPlainObject(res.json))
    for (const field of ['charged_points', 'pending_points']) {
      for (const f of findField(res.json, field)) {
        const v = judgePoints(f.value);
        if (!v.ok) continue;
        readable = true;
        if (v.value.isPositive()) total = total.plus(v.value);
      }
    }
  return { points: total, readable };
}

/** The points a reply says the request spent (undefined: nothing readable, or nothing spent). */
export function spentBy(res: HttpResponse): Decimal | undefined {
  const s = readSpend(res);
  return s?.readable && !s.points.isZero() ? s.points : undefined;
}

/** One line of the spend file. */
type SpendLine =
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
    }
  /**
   * A billable request about to be sent holds its predicted points until its reply is counted;
   * `unpriced`: nothing comparable was bought yet, so its price is not known.
   */
  | { reserve: string; points: string; unpriced?: true }
  | { release: string }
  /** A billable reply whose spend could not be read (its exchange id): the replies are not to be trusted. */
  | { unreadable: string }
  /** The primary account's available points fell by this much since before the run (a balance read). */
  | { balance: string }
  /** A media price known before the run (--prices). */
  | { price: string; known: Partial<LearnedPrice> };

const appendSpend = (reportDir: string, line: SpendLine) =>
  appendFileSync(join(reportDir, SPEND_FILE), `${JSON.stringify(line)}\n`);

/**
 * Count a billable reply: what it reported, or, when nothing readable, the price learned so far of its
 * model (nothing if none is known, or if `estimate` is false). Returns whether its spend was unreadable
 * (the caller reads the balance then). `measured`: the spend of an unreadable reply sent alone, as the
 * balance measured it across the request (a price to learn, like a reported one).
 */
export function recordSpend(
  reportDir: string,
  res: HttpResponse,
  model?: string,
  seconds?: number,
  estimate = true,
  measured?: Decimal,
): { unreadable: boolean } {
  const s = readSpend(res);
  if (!s) return { unreadable: false };
  const base = {
    exchange: res.exchange.id,
    path: res.rawPath,
    ...(model ? { model } : {}),
    ...(seconds ? { seconds } : {}),
  };
  if (measured) {
    appendSpend(reportDir, { ...base, points: measured.toString(), measured: true });
    return { unreadable: true };
  }
  if (s.readable) {
    if (!s.points.isZero()) appendSpend(reportDir, { ...base, points: s.points.toString() });
    return { unreadable: false };
  }
  // A reply in the legacy currency format carries legacy amount fields in place of points fields (whose
  // names the contract does not show): unreadable by design, not a sign that the replies lie.
  if (!legacyReply(res)) appendSpend(reportDir, { unreadable: res.exchange.id });
  if (!estimate) return { unreadable: true };
  const guess = spendOf(reportDir).prices.predict(model, seconds);
  if (guess) appendSpend(reportDir, { ...base, points: guess.toString(), estimated: true });
  return { unreadable: true };
}

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
  /** Media prices learned from the replies with readable spend. */
  prices: PriceBook;
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
  const file = join(reportDir, SPEND_FILE);
  const empty = (): Spend => ({
    total: new Decimal(0),
    estimated: new Decimal(0),
    max: new Decimal(0),
    models: new Set(),
    sinceBalance: 0,
    reserved: new Map(),
    unreadable: 0,
    prices: new PriceBook(),
  });
  if (!existsSync(file)) return empty();
  const size = statSync(file).size;
  let tally = tallies.get(file);
  // A new spend file at the same path (a later run into the same directory) starts a new tally.
  if (!tally || size < tally.offset) tally = { offset: 0, spend: empty() };
  if (size > tally.offset) {
    const buf = Buffer.alloc(size - tally.offset);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buf, 0, buf.length, tally.offset);
    } finally {
      closeSync(fd);
    }
    const text = buf.toString('utf8');
    // A line still being appended (no newline yet) is read next time.
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    const s = tally.spend;
    for (const line of complete.split('\n')) {
      if (!line) continue;
      try {
        const entry = JSON.parse(line) as SpendLine;
        if ('reserve' in entry)
          s.reserved.set(entry.reserve, { points: new Decimal(entry.points), unpriced: !!entry.unpriced });
        else if ('release' in entry) s.reserved.delete(entry.release);
        else if ('unreadable' in entry) s.unreadable++;
        else if ('price' in entry) s.prices.seed(entry.price, entry.known);
        else if ('balance' in entry) {
          s.measured = new Decimal(entry.balance);
          s.sinceBalance = 0;
        } else {
          const points = new Decimal(entry.points);
          // An estimate stands until the next balance read says otherwise (measured), or for good
          // when the balance is never read.
          if (entry.estimated) s.estimated = s.estimated.plus(points);
          else s.total = s.total.plus(points);
          s.max = Decimal.max(s.max, points);
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
    tally.offset += Buffer.byteLength(complete);
    tallies.set(file, tally);
  }
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
   * The media models of the primary account's catalog (preflight): while one is not bought yet, a part of
   * the budget is kept for its first job (see admission).
   */
  models: string[];
  /**
   * The primary account's available points before the run (decimal string; absent: unreadable): what
   * it has available later, subtracted from this, is the spend the account measures.
   */
  baseline?: string;
}

/** The most of a budget kept for first jobs of models not bought yet. */
export const RESERVE_SHARE = 0.25;

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
}

/** A billable request about to start: its model, the hold predicted for it, its reservation. */
export interface BillableStart {
  model?: string;
  /** The hold predicted (PriceBook.predict); undefined when nothing comparable was bought yet. */
  predicted?: Decimal;
  /** The key of the reservation it appended (reserve): only reservations before it count against it. */
  reservation?: string;
}

/**
 * Whether a billable request (or test, without a model) may start under the run's budget; why not if
 * it may not. Spent is the larger of the replies' count and the balance's measure. A request whose hold
 * is predicted starts only if the budget can hold it beside what was spent and what the requests in
 * flight before it reserved, so "spent" never ends above the budget. Why a reserve: a budget too small
 * for the whole plan should buy what proves most per point first, and a model's first job proves more
 * than its second; tests run in file order, so while some media model is not bought yet, a model bought
 * already gets no more than the budget minus a reserve of (models not bought) x (the costliest reply so
 * far), at most RESERVE_SHARE of the budget. Run-wide: the spend file is shared by every worker thread.
 */
export function admission(
  reportDir: string,
  budget: RunBudget | undefined,
  start: BillableStart | string = {},
): BudgetRefusal | undefined {
  if (!budget) return undefined;
  const { model, predicted, reservation } = typeof start === 'string' ? { model: start } : start;
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
  if (predicted) {
    let inFlight = new Decimal(0);
    for (const [key, r] of spend.reserved) {
      if (key === reservation) break;
      inFlight = inFlight.plus(r.points);
    }
    const left = limit.minus(spent).minus(inFlight);
    if (predicted.gt(left))
      return {
        reason: `points budget: a job of ${model ?? 'this model'} is predicted to hold ${predicted.toDecimalPlaces(4).toString()} points and ${Decimal.max(left, 0).toDecimalPlaces(4).toString()} of ${budget.points} are left (${spent.toDecimalPlaces(4).toString()} spent, ${inFlight.toDecimalPlaces(4).toString()} held by requests in flight; ${budget.source})`,
        subject: `points budget: what is left of the ${budget.points} points cannot hold the predicted price of the next job (${budget.source})`,
      };
  }
  if (model === undefined || !spend.models.has(model)) return undefined;
  const unbought = budget.models.filter((m) => !spend.models.has(m)).length;
  const reserve = Decimal.min(limit.times(RESERVE_SHARE), spend.max.times(unbought));
  if (spent.plus(reserve).lt(limit)) return undefined;
  return {
    reason: `points budget: ${model} was bought once already and the last ${reserve.toString()} of ${budget.points} points are kept for the first job of ${unbought} media model(s) not bought yet (${budget.source})`,
    subject: `points budget: a media model bought once already waits while the rest of the ${budget.points} points is kept for the first jobs of the models not bought yet (${budget.source})`,
  };
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

export const DEAD_FILE = 'dead-target';
const deadFlag = runFlag(DEAD_FILE, 'the target stopped answering');
/** Why the run gave up on the target (too many consecutive requests without an answer), if it did. */
export const deadTarget = deadFlag.get;

/**
 * Consecutive requests, across every worker of the run, that got no answer (timeout, connection
 * refused or reset) before the run gives up on the target. Why 5: one slow or flaky reply is a finding
 * of its test; five in a row with nothing answered in between is a target that is gone, and each more
 * costs a request timeout (30 s by default) per test still to come.
 */
export const DEAD_AFTER = 5;
export const STREAK_FILE = 'no-answer-streak';
/** The channel on which a thread that counted a no-answer tells the run's other threads (a report dir). */
export const STREAK_CHANNEL = 'gateway-conformance:no-answer-streak';

/**
 * Report directories whose streak this thread knows to be 0: it has not counted a no-answer there, nor
 * heard of another thread counting one, since it last reset the streak. Why: about 5,000 answers a run
 * would otherwise each stat the streak file; an answer in a thread that knows the streak is 0 touches
 * nothing.
 */
const streakZero = new Set<string>();
const streakSeen = new Set<string>();
let streakChannel: BroadcastChannel | undefined;
function streakNews(): BroadcastChannel {
  if (!streakChannel) {
    streakChannel = new BroadcastChannel(STREAK_CHANNEL);
    streakChannel.onmessage = (e) => streakZero.delete(String((e as { data: unknown }).data));
    // Listening keeps no worker thread alive.
    streakChannel.unref();
  }
  return streakChannel;
}

/**
 * Count a request's transport outcome run-wide: an answer resets the streak, a request without one
 * adds to it; at DEAD_AFTER the run is stopped (no test or request starts any more) with the cause.
 * Why a file of appended bytes: worker threads share no memory, an append of one byte is atomic and
 * the streak is the file's size; an answer truncates it. A thread touches the file on an answer only
 * after it counted a no-answer or heard (STREAK_CHANNEL) that another thread of the process did.
 */
export function noteAnswer(reportDir: string, answered: boolean, what?: string): void {
  const file = join(reportDir, STREAK_FILE);
  const channel = streakNews();
  try {
    // A report directory this thread meets for the first time: its streak is read once.
    if (!streakSeen.has(reportDir)) {
      streakSeen.add(reportDir);
      if (!existsSync(file) || statSync(file).size === 0) streakZero.add(reportDir);
    }
    if (answered) {
      if (streakZero.has(reportDir)) return;
      if (existsSync(file) && statSync(file).size > 0) writeFileSync(file, '');
      streakZero.add(reportDir);
      return;
    }
    streakZero.delete(reportDir);
    appendFileSync(file, 'x');
    channel.postMessage(reportDir);
    const streak = statSync(file).size;
    if (streak >= DEAD_AFTER && !deadFlag.get(reportDir)) {
      const reason = `the target stopped answering: ${streak} requests in a row got no answer${what ? ` (the last: ${what})` : ''}`;
      deadFlag.set(reportDir, reason);
      requestStop(reportDir, reason);
    }
  } catch {
    // the report directory is gone (the run ended): nothing to count
  }
}

/** Transport failures that mean the target gave no answer at all (not a stop of ours, not a body cap). */
const NO_ANSWER = new Set([
  'TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * Count one exchange of a test towards (or against) the run's no-answer streak. A failed attempt the
 * client repeats on a fresh connection (`repeated`) counts as nothing yet: its repeat counts.
 */
export function noteExchange(reportDir: string, ex: Exchange): void {
  if (ex.repeated) return;
  if (ex.status !== undefined) noteAnswer(reportDir, true);
  else if (ex.error && NO_ANSWER.has(ex.error.code))
    noteAnswer(reportDir, false, `${ex.method} ${ex.path}: ${ex.error.message} [${ex.error.code}]`);
}

export const BALANCE_FILE = 'balance-ran-out';

const balanceFlag = runFlag(BALANCE_FILE, "the account's balance ran out");
/**
 * The primary account cannot pay any more: billable work stops run-wide (every worker reads the flag),
 * the remaining billable tests are not run with this reason. Not a failure of the target.
 */
export const markBalanceOut = balanceFlag.set;
/** Why the primary account's balance ran out, if it did. */
export const balanceOut = balanceFlag.get;

const JOB_REPLY = /^\/v1\/media\/jobs(\/[^/?]+)?(\?|$)/;

/**
 * What a reply to the primary key says about its balance: a media job waiting for points
 * (`settlement_pending`: "top up needed points, then keep tracking the same job"), or a billable
 * request refused with 402 or 429 (the code of an insufficient-balance refusal is not shown, and a
 * 429 may be any protection: the caller confirms it against the balance).
 */
export function balanceSignal(
  res: HttpResponse,
): { kind: 'settlement_pending'; job: string } | { kind: 'refused' } | undefined {
  if (res.status >= 200 && res.status < 300 && JOB_REPLY.test(res.rawPath) && isPlainObject(res.json)) {
    if (res.json.status === 'settlement_pending')
      return { kind: 'settlement_pending', job: String(res.json.id ?? res.rawPath.split('/').pop()) };
    return undefined;
  }
  if (res.method === 'POST' && BILLABLE.test(res.rawPath) && (res.status === 402 || res.status === 429))
    return { kind: 'refused' };
  return undefined;
}
