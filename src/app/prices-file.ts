/**
 * `--prices FILE`: the media prices a plan is priced at. A previous run's report directory or its
 * summary.json (`points.prices`, what that run learned from the jobs it bought), or a small YAML:
 *
 *   prices:
 *     wc-100010: 0.75                            # points per job
 *     wc-100014: { points: 14, per_second: 3.5 } # per second where the price follows duration
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { parse } from 'yaml';
import { isPlainObject } from '../checks/json.ts';
import { UsageError } from '../errors.ts';
import { reportFile } from '../report/layout.ts';
import type { LearnedPrice } from '../runtime/prices.ts';

export type PriceList = Record<string, Partial<LearnedPrice>>;

const decimal = (v: unknown, what: string): string => {
  try {
    if (typeof v !== 'number' && typeof v !== 'string') throw new Error();
    const d = new Decimal(v);
    if (!d.isFinite() || d.isNegative()) throw new Error();
    return d.toString();
  } catch {
    throw new UsageError(`--prices: ${what} is not a number of points: ${JSON.stringify(v)}`);
  }
};

const FOLLOWS: ReadonlyArray<LearnedPrice['follows']> = ['duration', 'flat', 'unknown'];

/**
 * A report's learned prices as a run writes them (LearnedPrice), each checked as a price file's are: a
 * price that is no number of points, or a model with none, is said, not planned at as if it were free.
 */
function learnedPrices(learned: Record<string, unknown>, path: string): PriceList {
  const out: PriceList = {};
  for (const [model, v] of Object.entries(learned)) {
    const where = `${path}: points.prices.${model}`;
    if (!isPlainObject(v))
      throw new UsageError(`--prices: ${where} is not a learned price: ${JSON.stringify(v)}`);
    if (v.points === undefined && v.perSecond === undefined)
      throw new UsageError(`--prices: ${where} gives neither points nor perSecond`);
    if (v.follows !== undefined && !FOLLOWS.includes(v.follows as LearnedPrice['follows']))
      throw new UsageError(`--prices: ${where}.follows is not one of ${FOLLOWS.join(', ')}`);
    out[model] = {
      ...(v as Partial<LearnedPrice>),
      ...(v.points !== undefined ? { points: decimal(v.points, model) } : {}),
      ...(v.perSecond !== undefined ? { perSecond: decimal(v.perSecond, `${model} perSecond`) } : {}),
      ...(v.max !== undefined ? { max: decimal(v.max, `${model} max`) } : {}),
    };
  }
  return out;
}

/** The prices of FILE (see above); a UsageError naming what is wrong. */
export function loadPrices(file: string): PriceList {
  const path = existsSync(file) && statSync(file).isDirectory() ? reportFile(file, 'summary') : file;
  let doc: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    doc = /\.json$/i.test(path) ? JSON.parse(text) : parse(text);
  } catch (err) {
    throw new UsageError(`--prices: cannot read ${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (isPlainObject(doc) && isPlainObject(doc.points)) {
    const learned = doc.points.prices;
    if (!isPlainObject(learned) || Object.keys(learned).length === 0)
      throw new UsageError(`--prices: ${path} is a report without learned prices (it bought no media job)`);
    return learnedPrices(learned, path);
  }
  if (!isPlainObject(doc) || !isPlainObject(doc.prices))
    throw new UsageError(`--prices: ${path} has neither points.prices (a report) nor prices: (a price file)`);
  const out: PriceList = {};
  for (const [model, v] of Object.entries(doc.prices)) {
    if (isPlainObject(v)) {
      if (v.points === undefined && v.per_second === undefined)
        throw new UsageError(`--prices: ${model} gives neither points nor per_second`);
      out[model] = {
        ...(v.points !== undefined ? { points: decimal(v.points, model) } : {}),
        ...(v.per_second !== undefined
          ? { perSecond: decimal(v.per_second, `${model} per_second`), follows: 'duration' as const }
          : {}),
      };
    } else out[model] = { points: decimal(v, model), follows: 'flat' };
  }
  return out;
}
