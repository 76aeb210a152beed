/**
 * The billable part of a dry run's plan: how many billable requests of which models the planned tests
 * make, and the points they cost, measured by running exactly those tests against the embedded
 * reference (a conformant implementation of the contract, on loopback: the target gets no request).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import type { Exchange } from '../http/client.ts';
import { BILLABLE, SPEND_FILE } from '../runtime/control.ts';
import type { Summary } from './summary.ts';

export type BillablePlan = NonNullable<Summary['plan']>;

const MEDIA_JOBS = /"path":"\/v1\/media\/jobs"/;

/** Count the billable requests of a run's report directory by model, with the points spent on each. */
export function billableByModel(
  reportDir: string,
  label: (model: string) => string,
  /** The price of a job at other prices (`--prices`); undefined keeps the points the reply reported. */
  reprice?: (model: string, seconds: number | undefined) => Decimal | undefined,
): BillablePlan['billable'] {
  const points = new Map<string, Decimal>();
  const spendFile = join(reportDir, SPEND_FILE);
  if (existsSync(spendFile))
    for (const line of readFileSync(spendFile, 'utf8').split('\n').filter(Boolean)) {
      const s = JSON.parse(line) as {
        exchange?: string;
        points?: string;
        model?: string;
        seconds?: number;
        estimated?: true;
      };
      // What the replies reported (or the balance measured): not the budget's estimates of unreadable ones.
      if (s.exchange === undefined || s.points === undefined || s.estimated) continue;
      const at = s.model && MEDIA_JOBS.test(line) ? reprice?.(s.model, s.seconds) : undefined;
      points.set(s.exchange, at ?? new Decimal(s.points));
    }
  const by = new Map<string, { requests: number; points: Decimal }>();
  for (const line of readFileSync(join(reportDir, 'exchanges.ndjson'), 'utf8').split('\n')) {
    if (!line) continue;
    const ex = JSON.parse(line) as Exchange;
    if (ex.method !== 'POST' || !BILLABLE.test(ex.path) || (ex.status ?? 0) < 200 || (ex.status ?? 0) >= 300)
      continue;
    const model = ex.model ?? '(unknown model)';
    const e = by.get(model) ?? { requests: 0, points: new Decimal(0) };
    e.requests++;
    e.points = e.points.plus(points.get(ex.id) ?? 0);
    by.set(model, e);
  }
  return [...by]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([model, e]) => ({ model: label(model), requests: e.requests, points: e.points.toString() }));
}
