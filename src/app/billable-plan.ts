/**
 * The billable part of a dry run's plan, computed before the run's report is written (RunOptions.planBillable):
 * by a run of its own against the embedded reference, after the dry run's suites ended (never inside that run).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import type { TargetConfig } from '../config/targets.ts';
import { billableByModel } from '../report/plan.ts';
import type { Summary } from '../report/summary.ts';
import { priceAt } from '../runtime/prices.ts';
import type { Profile } from '../vocabulary.ts';
import { budgetBuys } from './budget-buys.ts';
import { startEmbedded } from './embedded.ts';
import type { PriceList } from './prices-file.ts';
import { runConformance } from './run.ts';

/**
 * A dry run's billable estimate: the planned billable tests run against a fresh embedded reference
 * (loopback; the target gets no request), and their billable requests are counted by model with the
 * points the reference charged. Model ids of the reference's model hints are shown with the target's.
 */
export async function planBillable(
  summary: Pick<Summary, 'tests' | 'profile'>,
  reportDir: string,
  target: TargetConfig,
  prices?: { file: string; list: PriceList },
): Promise<NonNullable<Summary['plan']>> {
  const titles = summary.tests.filter((t) => t.planned && t.effect === 'billable').map((t) => t.title);
  const priced = prices ? Object.keys(prices.list) : [];
  const basis = prices
    ? `the planned billable tests run against the embedded reference; media jobs of ${priced.join(', ')} priced at ${prices.file} (--prices), the rest at the reference's prices; the target was not asked (a dry run sends it no request)`
    : "the planned billable tests run against the embedded reference at its prices; the target's catalog and prices were not asked (a dry run sends it no request)";
  let plan: NonNullable<Summary['plan']> = { basis, billable: [], totalRequests: 0, totalPoints: '0' };
  if (titles.length > 0) {
    const started = await startEmbedded({
      ...target,
      embedded: true,
      allow: target.allow,
      budget: { points: null, source: 'default' },
    });
    const dir = join(reportDir, '.plan');
    try {
      await runConformance(
        {
          target: started.target,
          quiet: true,
          reportDir: dir,
          filter: titles.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
          selectionKnown: true,
          ...(summary.profile ? { profile: summary.profile as Profile } : {}),
        },
        () => {},
      );
    } finally {
      await started.stop();
    }
    const hints = (m: string) =>
      (Object.entries(started.target.models) as Array<[keyof TargetConfig['models'], string]>)
        .filter(([, id]) => id === m)
        .map(([h]) => h);
    const billable = billableByModel(
      dir,
      (m) => {
        const hs = hints(m);
        if (hs.length === 0) return m;
        const theirs = [...new Set(hs.map((h) => target.models[h] ?? 'as discovered'))].join(', ');
        return `${hs.join('/')} model (the target's ${theirs}; ${m} on the reference)`;
      },
      prices ? (m, seconds) => priceAt(prices.list, m, seconds) : undefined,
    );
    rmSync(dir, { recursive: true, force: true });
    plan = {
      basis,
      billable,
      totalRequests: billable.reduce((n, b) => n + b.requests, 0),
      totalPoints: billable.reduce((n, b) => n.plus(b.points), new Decimal(0)).toString(),
    };
  }
  const { points, source } = target.budget;
  if (points !== null && !target.embedded) {
    plan.budget = {
      points,
      source: source === 'default' ? 'the default budget of a real target' : source,
    };
    const buys = budgetBuys(plan.billable, points);
    if (buys) plan.buys = buys;
  }
  return plan;
}
