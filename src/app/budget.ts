/**
 * The points budget of a run and the primary balance that bounds it (read before and after the suites).
 */
import { Decimal } from 'decimal.js';
import { accountingField } from '../checks/points.ts';
import type { TargetConfig } from '../config/targets.ts';
import type { HttpClient } from '../http/client.ts';
import type { RunBudget } from '../runtime/budget.ts';

/**
 * The primary account's total_points and available_points (GET /v1/balance, a read; the envelope is not
 * shown, so the fields are found at any depth), read for accounting (a JSON number breaks PTS-001, which
 * the balance tests report, and still counts): the total cross-checks the spend the replies reported,
 * the available points bound the budget and measure the spend. `unreadable`: why no available points
 * could be read (then the run cannot measure what it spends).
 */
export async function readBalance(
  client: HttpClient,
  auth: Record<string, string>,
  target: TargetConfig,
): Promise<{ total?: Decimal; available?: Decimal; unreadable?: string }> {
  if (!target.allow.includes('read'))
    return { unreadable: 'reads are not allowed (--allow), so GET /v1/balance was not sent' };
  try {
    const res = await client.send({ method: 'GET', path: '/v1/balance', headers: auth });
    if (res.status >= 300) return { unreadable: `GET /v1/balance answered ${res.status}` };
    const total = accountingField(res.json, 'total_points');
    const available = accountingField(res.json, 'available_points');
    return {
      ...(total ? { total } : {}),
      ...(available
        ? { available }
        : { unreadable: 'GET /v1/balance carried no available_points with a number' }),
    };
  } catch {
    return { unreadable: 'GET /v1/balance got no answer' };
  }
}

const BUDGET_HOW =
  'change it with --budget-points N, CONFORMANCE_BUDGET_POINTS or budget_points in the targets file; unlimited lifts it, 0 runs free tests only';

/** The first lines about the budget, before anything is known of the balance (also a dry run's). */
export function planBudgetLines(target: TargetConfig): string[] {
  if (!target.allow.includes('billable')) return [];
  const { points, source } = target.budget;
  const from =
    source === 'default'
      ? target.embedded
        ? 'the embedded reference'
        : 'the default for a real target'
      : source;
  return [
    points === null
      ? `points budget: none (${from}); ${BUDGET_HOW}`
      : `points budget: ${points} points for billable tests (${from}); ${BUDGET_HOW}${source === 'default' ? '; --dry-run prints what the whole plan buys' : ''}`,
  ];
}

/**
 * What a dry run knows of the run's budget without asking the target: a budget of 0 points runs no
 * billable test whatever the balance ("0 runs free tests only"), so its plan runs none and prices none;
 * any other budget is bounded by a balance a dry run does not read, so its billable tests are planned.
 */
export function dryRunBudget(target: TargetConfig): RunBudget | undefined {
  const { points, source } = target.budget;
  if (!target.allow.includes('billable') || points === null || !new Decimal(points).isZero())
    return undefined;
  return { points, source, kind: 'budget' };
}

/**
 * The run's budget: the configured one, bounded by the primary account's available points (read in
 * preflight) on a real target or when a budget is set ("plan within what is there"); and the first
 * lines that say so.
 */
export function planBudget(
  target: TargetConfig,
  balance: { available?: Decimal; unreadable?: string },
): { budget?: RunBudget; lines: string[] } {
  const lines = planBudgetLines(target);
  if (!target.allow.includes('billable')) return { lines };
  let { points } = target.budget;
  let source =
    target.budget.source === 'default' ? 'the default budget of a real target' : target.budget.source;
  let kind: RunBudget['kind'] = 'budget';
  if (points === null && target.embedded) return { lines };
  const { available } = balance;
  if (available !== undefined && (points === null || available.lt(points))) {
    lines.push(
      `balance: the primary account has ${available.toString()} points available, ${points === null ? 'and no budget is set' : `less than the budget of ${points}`}: the run plans within ${available.toString()} points`,
    );
    points = Decimal.max(available, 0).toString();
    source = `the primary account's available points before the run`;
    kind = 'balance';
  } else if (available !== undefined) {
    lines.push(`balance: the primary account has ${available.toString()} points available`);
  }
  if (points === null) return { lines };
  // What the run spends is measured by the balance (the replies may not say, or say wrong): a balance
  // that cannot be read leaves the spend unmeasurable, and billable work is not run.
  const unmeasurable =
    available === undefined
      ? `the spend cannot be measured: the primary account's balance cannot be read (${balance.unreadable ?? 'no available_points'})`
      : undefined;
  if (unmeasurable) lines.push(`balance: ${unmeasurable}; billable tests are not run`);
  return {
    budget: {
      ...(unmeasurable ? { unmeasurable } : {}),
      points,
      source,
      kind,
      ...(available !== undefined ? { baseline: available.toString() } : {}),
    },
    lines,
  };
}
