/**
 * The prices of the target's media models as a run learns them from the jobs it buys (each job's hold
 * as its reply reported it), and the hold a next job is predicted to take. Why learned: the contract
 * shows no media price list, and a real deployment's prices differ from the reference's by orders of
 * magnitude; the first job of a model tells what the next one will cost.
 */
import { Decimal } from 'decimal.js';
import { isPlainObject } from '../checks/json.ts';
import { mediaTable } from '../rules/media-models.ts';

/** One job bought: the points its reply reported and, for a video, its seconds (sent or the default). */
export interface JobPrice {
  model: string;
  points: Decimal;
  seconds?: number;
}

/**
 * What a run learned of one model's price (summary.json `points.prices`): the first job's points, the
 * costliest job, per second where the price follows `duration` (`follows`: 'duration' once two
 * durations showed it, 'flat' once they showed none, 'unknown' before).
 */
export interface LearnedPrice {
  points: string;
  seconds?: number;
  max: string;
  perSecond?: string;
  follows: 'duration' | 'flat' | 'unknown';
  jobs: number;
}

interface Book {
  first: JobPrice;
  max: Decimal;
  maxRate?: Decimal;
  /** The cheapest job of each duration. */
  bySeconds: Map<number, Decimal>;
  jobs: number;
  /** A price known before the run (--prices): how it follows duration, as given. */
  given?: LearnedPrice['follows'];
}

/** The output kind of a documented media model (a model outside the table: undefined). */
const outputOf = (model: string) => mediaTable().models[model]?.output ?? undefined;

/**
 * The seconds of a media job request: `parameters.duration` as sent, else the model's documented
 * default duration; undefined for a model without one (images, 3D).
 */
export function secondsOf(model: string | undefined, json: unknown): number | undefined {
  if (!model || !isPlainObject(json)) return undefined;
  const sent = isPlainObject(json.parameters) ? json.parameters.duration : undefined;
  if (typeof sent === 'number' && Number.isFinite(sent) && sent > 0) return sent;
  const def = mediaTable().models[model]?.parameters.duration?.default;
  return typeof def === 'number' && def > 0 ? def : undefined;
}

/** Prices learned from the jobs of a run (in the order they were bought), and predictions from them. */
export class PriceBook {
  private readonly books = new Map<string, Book>();

  learn(job: JobPrice): void {
    const b = this.books.get(job.model);
    const rate = job.seconds ? job.points.div(job.seconds) : undefined;
    if (!b) {
      this.books.set(job.model, {
        first: job,
        max: job.points,
        ...(rate ? { maxRate: rate } : {}),
        bySeconds: new Map(job.seconds ? [[job.seconds, job.points]] : []),
        jobs: 1,
      });
      return;
    }
    b.jobs++;
    b.max = Decimal.max(b.max, job.points);
    if (rate) b.maxRate = b.maxRate ? Decimal.max(b.maxRate, rate) : rate;
    if (job.seconds) {
      const known = b.bySeconds.get(job.seconds);
      b.bySeconds.set(job.seconds, known ? Decimal.min(known, job.points) : job.points);
    }
  }

  /**
   * A price known before any job of the run (--prices: a previous run's learned prices or a price
   * file); the run's own jobs refine it.
   */
  seed(model: string, p: Partial<LearnedPrice>): void {
    const points = p.points !== undefined ? new Decimal(p.points) : undefined;
    const rate = p.perSecond !== undefined ? new Decimal(p.perSecond) : undefined;
    const seconds = p.seconds ?? (points && rate && !rate.isZero() ? points.div(rate).toNumber() : undefined);
    const first = points ?? (rate && seconds ? rate.times(seconds) : undefined);
    if (!first || this.books.has(model)) return;
    this.books.set(model, {
      first: { model, points: first, ...(seconds ? { seconds } : {}) },
      max: p.max !== undefined ? Decimal.max(first, p.max) : first,
      ...(rate ? { maxRate: rate } : {}),
      bySeconds: new Map(),
      jobs: 0,
      given: p.follows ?? (rate ? 'duration' : 'flat'),
    });
  }

  has(model: string): boolean {
    return this.books.has(model);
  }

  /** Whether the model's price follows `duration`: the cheapest jobs of its two shortest durations tell. */
  private follows(b: Book): LearnedPrice['follows'] {
    const [short, long] = [...b.bySeconds].sort(([a], [c]) => a - c);
    if (!short || !long) return b.given ?? (b.first.seconds ? 'unknown' : 'flat');
    return long[1].gt(short[1].times(1.01)) ? 'duration' : 'flat';
  }

  /** One model's prediction, undefined if the model was never bought. */
  private predictOne(model: string, seconds: number | undefined): Decimal | undefined {
    const b = this.books.get(model);
    if (!b) return undefined;
    const follows = this.follows(b);
    const timed = b.maxRate && seconds ? b.maxRate.times(seconds) : undefined;
    if (follows === 'duration' && !timed && b.maxRate) return b.max;
    if (follows === 'duration' && timed) return timed;
    if (follows === 'unknown' && timed) return Decimal.max(b.max, timed);
    return b.max;
  }

  /**
   * The hold a job of `model` is predicted to take: from its learned price (per second where the price
   * follows `duration`) and its costliest job so far; for a model not bought yet, the costliest
   * prediction among the bought models of the same output kind (a model outside the media table, e.g.
   * a chat model: among the other such models); undefined when nothing comparable was bought yet.
   */
  predict(model: string | undefined, seconds?: number): Decimal | undefined {
    if (model === undefined) return undefined;
    const own = this.predictOne(model, seconds);
    if (own) return own;
    const kind = outputOf(model);
    let best: Decimal | undefined;
    for (const other of this.books.keys()) {
      if (outputOf(other) !== kind) continue;
      const p = this.predictOne(other, seconds);
      if (p && (!best || p.gt(best))) best = p;
    }
    return best;
  }

  /** The learned prices, by model (summary.json `points.prices`). */
  learned(): Record<string, LearnedPrice> {
    const out: Record<string, LearnedPrice> = {};
    for (const [model, b] of [...this.books].sort(([a], [c]) => a.localeCompare(c))) {
      const follows = this.follows(b);
      out[model] = {
        points: b.first.points.toString(),
        ...(b.first.seconds ? { seconds: b.first.seconds } : {}),
        max: b.max.toString(),
        ...(b.maxRate && follows !== 'flat' ? { perSecond: b.maxRate.toDecimalPlaces(6).toString() } : {}),
        follows,
        jobs: b.jobs,
      };
    }
    return out;
  }
}

/**
 * The price of a job at given prices (a previous run's learned ones, or a price file's): per second
 * where the price follows `duration` (or where only a per-second price is given), else the flat price.
 */
export function priceAt(
  prices: Record<string, Partial<LearnedPrice>>,
  model: string,
  seconds: number | undefined,
): Decimal | undefined {
  const p = prices[model];
  if (!p) return undefined;
  if (p.perSecond !== undefined && seconds && p.follows !== 'flat')
    return new Decimal(p.perSecond).times(seconds);
  if (p.points !== undefined) return new Decimal(p.points);
  return undefined;
}
