/**
 * What a points budget smaller than a dry run's plan buys, in the order a run's admission spends it
 * (src/runtime/budget.ts): the text calls (and the requests the contract refuses, free on a conformant
 * target) first, then the first job of each media model, cheapest first, then further jobs, cheapest
 * first, leaving the refusal reserve unspent.
 */
import { Decimal } from 'decimal.js';
import type { Summary } from '../report/summary.ts';
import { REFUSAL_SHARE } from '../runtime/budget.ts';

type Billable = NonNullable<Summary['plan']>['billable'];

const sum = (xs: Decimal[]) => xs.reduce((a, b) => a.plus(b), new Decimal(0));
const fixed = (d: Decimal) => d.toDecimalPlaces(4).toString();

/** One sentence for the plan (undefined: the budget holds the whole plan). */
export function budgetBuys(billable: Billable, budgetPoints: string): string | undefined {
  const limit = new Decimal(budgetPoints);
  if (sum(billable.map((b) => new Decimal(b.points))).lte(limit)) return undefined;
  const text = billable.filter((b) => !b.media);
  const textRequests = text.reduce((n, b) => n + b.requests, 0);
  const textPoints = sum(text.map((b) => new Decimal(b.points)));
  const media = billable
    .filter((b) => b.media && b.requests > 0)
    .map((b) => ({ requests: b.requests, each: new Decimal(b.points).div(b.requests) }))
    .sort((a, b) => a.each.comparedTo(b.each));
  const textPart = `the text calls (${textRequests} requests, ${fixed(textPoints)} points)`;
  if (textPoints.gt(limit))
    return `the points budget of ${budgetPoints} buys part of ${textPart} and no media job`;
  const dearest = media.reduce((m, j) => Decimal.max(m, j.each), new Decimal(0));
  const kept = Decimal.min(limit.times(REFUSAL_SHARE), dearest);
  let left = limit.minus(textPoints).minus(kept);
  let firsts = 0;
  let firstPoints = new Decimal(0);
  for (const j of media)
    if (j.each.lte(left)) {
      left = left.minus(j.each);
      firstPoints = firstPoints.plus(j.each);
      firsts++;
    }
  const further = media.flatMap((j) => Array.from({ length: j.requests - 1 }, () => j.each));
  let more = 0;
  let morePoints = new Decimal(0);
  for (const each of further) {
    if (each.gt(left)) break;
    left = left.minus(each);
    morePoints = morePoints.plus(each);
    more++;
  }
  return `the points budget of ${budgetPoints} buys about, in the order the run spends it: all ${textPart}; the first job of ${firsts} of ${media.length} media models (${fixed(firstPoints)} points, cheapest first); ${more} of the other ${further.length} media jobs (${fixed(morePoints)} points); ${fixed(kept)} points are kept for the requests the contract refuses (they cost nothing on a conformant target)`;
}
