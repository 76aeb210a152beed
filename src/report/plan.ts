/**
 * The billable part of a dry run's plan: how many billable requests of which models the planned tests
 * make, and the points they cost, measured by running exactly those tests against the embedded
 * reference (a conformant implementation of the contract, on loopback: the target gets no request).
 */
import { Decimal } from 'decimal.js';
import type { Exchange } from '../http/client.ts';
import { BILLABLE, buysMediaJob, spendOf } from '../runtime/budget.ts';
import { ExchangeLog } from './layout.ts';
import type { Summary } from './summary.ts';

export type BillablePlan = NonNullable<Summary['plan']>;

/** Count the billable requests of a run's report directory by model, with the points spent on each. */
export function billableByModel(
  reportDir: string,
  label: (model: string) => string,
  /** The price of a job at other prices (`--prices`); undefined keeps the points the reply reported. */
  reprice?: (model: string, seconds: number | undefined) => Decimal | undefined,
): BillablePlan['billable'] {
  // What the replies reported (or the balance measured): not the budget's estimates of unreadable ones.
  const reported = spendOf(reportDir).reported;
  const points = (ex: Exchange): Decimal | undefined => {
    const r = reported.get(ex.id);
    if (!r) return undefined;
    const at = r.model && r.path === '/v1/media/jobs' ? reprice?.(r.model, r.seconds) : undefined;
    return at ?? r.points;
  };
  const billable = (ex: Exchange) =>
    ex.method === 'POST' && BILLABLE.test(ex.path) && (ex.status ?? 0) >= 200 && (ex.status ?? 0) < 300;
  const by = new Map<string, { requests: number; points: Decimal; media: boolean }>();
  for (const [model, exchanges] of ExchangeLog.of(reportDir).byModel(billable))
    by.set(model, {
      requests: exchanges.length,
      points: exchanges.reduce((sum, ex) => sum.plus(points(ex) ?? 0), new Decimal(0)),
      media: exchanges.some((ex) => buysMediaJob(ex.path)),
    });
  return [...by]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([model, e]) => ({
      model: label(model),
      requests: e.requests,
      points: e.points.toString(),
      ...(e.media ? { media: true as const } : {}),
    }));
}
