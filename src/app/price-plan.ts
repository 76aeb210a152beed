/**
 * What media acceptance (the covering design) costs at given prices, and which of its cases a budget
 * leaves out: the first lines of a billable run against a real target with --prices.
 */
import { Decimal } from 'decimal.js';
import { coveringDesign } from '../rules/covering.ts';
import type { MediaTable } from '../rules/media-models.ts';
import { priceAt } from '../runtime/prices.ts';
import type { Profile } from '../vocabulary.ts';
import type { PriceList } from './prices-file.ts';

export interface PricedCase {
  model: string;
  /** What the case puts at stake, e.g. `duration 30`. */
  what: string;
  points: Decimal;
}

/** The covering design's cases of the models the prices know, each at its price. */
export function pricedAcceptance(table: MediaTable, profile: Profile, prices: PriceList): PricedCase[] {
  const out: PricedCase[] = [];
  for (const [model, m] of Object.entries(table.models)) {
    if (!prices[model]) continue;
    for (const c of coveringDesign(table, m, profile)) {
      const sent = c.parameters.duration;
      const def = m.parameters.duration?.default;
      const seconds = typeof sent === 'number' ? sent : typeof def === 'number' ? def : undefined;
      const points = priceAt(prices, model, seconds);
      if (!points) continue;
      const timed = c.proves.find((p) => p.subject === 'duration');
      const what = (timed ? [timed] : c.proves)
        .slice(0, 2)
        .map((p) => `${p.subject} ${typeof p.value === 'string' ? p.value : JSON.stringify(p.value)}`)
        .join(', ');
      out.push({ model, what: what || 'its base job', points });
    }
  }
  return out;
}

/**
 * The lines: what acceptance costs at the known prices, and the dearest cases that do not fit beside
 * the rest (dropped dearest first until the rest fits the budget), at most five named.
 */
export function pricePlanLines(
  table: MediaTable,
  profile: Profile,
  prices: PriceList,
  file: string,
  budget: string | null,
): string[] {
  const cases = pricedAcceptance(table, profile, prices);
  if (cases.length === 0) return [`prices (${file}): none of the documented media models is priced there`];
  const total = cases.reduce((n, c) => n.plus(c.points), new Decimal(0));
  const round = (d: Decimal) => d.toDecimalPlaces(d.gte(10) ? 0 : 2).toString();
  const models = new Set(cases.map((c) => c.model)).size;
  const lines = [
    `plan at the prices of ${file}: media acceptance of the ${models} priced model(s) costs ~${round(total)} points (${cases.length} jobs)`,
  ];
  if (budget === null) return lines;
  const dearest = [...cases].sort((a, b) => b.points.comparedTo(a.points));
  const out: PricedCase[] = [];
  let rest = total;
  for (const c of dearest) {
    if (rest.lte(budget)) break;
    out.push(c);
    rest = rest.minus(c.points);
  }
  if (out.length > 0)
    lines.push(
      `the budget of ${budget} points leaves out the dearest ${out.length} acceptance case(s): ${out
        .slice(0, 5)
        .map((c) => `${c.what} on ${c.model}: ~${round(c.points)} points`)
        .join('; ')}${out.length > 5 ? '; ...' : ''}`,
    );
  return lines;
}
