/**
 * Run-wide control shared by every test worker (threads of one process, and shards that share a report
 * directory): a stop request (Ctrl-C, the run deadline) and the points the run has spent. Why files in
 * the report directory: workers are separate threads with separate module state, and appends of one
 * short line are atomic, so no lock is needed.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { findField, isPlainObject } from '../checks/json.ts';
import { judgePoints } from '../checks/points.ts';
import type { HttpResponse } from '../http/client.ts';

export const STOP_FILE = 'stop-requested';
export const SPEND_FILE = 'spend.ndjson';

/** Ask every worker of the run to stop starting tests and requests (running cleanups still run). */
export function requestStop(reportDir: string, reason: string): void {
  if (!existsSync(join(reportDir, STOP_FILE))) writeFileSync(join(reportDir, STOP_FILE), reason);
}

let stopped: string | undefined;
/** The reason the run was asked to stop, if it was. */
export function stopReason(reportDir: string): string | undefined {
  if (stopped) return stopped;
  const file = join(reportDir, STOP_FILE);
  if (existsSync(file)) stopped = readFileSync(file, 'utf8') || 'the run was stopped';
  return stopped;
}

/** The billable endpoints whose replies report what a request charged or held. */
const BILLABLE = /^\/v1\/(chat\/completions|responses|embeddings|media\/jobs)(\?|$)/;

/**
 * The points a reply says the request spent: `charged_points` (call settlement, in `billing` or
 * anywhere in the reply) and, for a media job, `pending_points` (its hold counts in full until it is
 * settled: a budget errs on the safe side). Other replies spend nothing.
 */
export function spentBy(res: HttpResponse): Decimal | undefined {
  if (res.method !== 'POST' || res.status < 200 || res.status >= 300 || !BILLABLE.test(res.rawPath)) return;
  if (!isPlainObject(res.json)) return;
  let total = new Decimal(0);
  for (const field of ['charged_points', 'pending_points']) {
    for (const f of findField(res.json, field)) {
      const v = judgePoints(f.value);
      if (v.ok && v.value.isPositive()) total = total.plus(v.value);
    }
  }
  return total.isZero() ? undefined : total;
}

export function recordSpend(reportDir: string, res: HttpResponse): void {
  const points = spentBy(res);
  if (!points) return;
  appendFileSync(
    join(reportDir, SPEND_FILE),
    `${JSON.stringify({ exchange: res.exchange.id, path: res.rawPath, points: points.toString() })}\n`,
  );
}

/** The points the run has spent so far, as the target reported them. */
export function spentPoints(reportDir: string): Decimal {
  const file = join(reportDir, SPEND_FILE);
  if (!existsSync(file)) return new Decimal(0);
  let total = new Decimal(0);
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      total = total.plus(new Decimal((JSON.parse(line) as { points: string }).points));
    } catch {
      // a torn line of a concurrent append: ignored (the budget errs only by that line)
    }
  }
  return total;
}
