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
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
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

/** Stop reasons seen, by report directory (one process may hold several runs one after another). */
const stopped = new Map<string, string>();
/** The reason the run was asked to stop, if it was. */
export function stopReason(reportDir: string): string | undefined {
  const seen = stopped.get(reportDir);
  if (seen) return seen;
  const file = join(reportDir, STOP_FILE);
  if (!existsSync(file)) return undefined;
  const reason = readFileSync(file, 'utf8') || 'the run was stopped';
  stopped.set(reportDir, reason);
  return reason;
}

/** The billable endpoints whose replies report what a request charged or held. */
export const BILLABLE = /^\/v1\/(chat\/completions|responses|embeddings|media\/jobs)(\?|$)/;

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

/** What this worker has already summed of each spend file: complete lines only, by byte offset. */
const tallies = new Map<string, { offset: number; total: Decimal }>();

/**
 * The points the run has spent so far, as the target reported them. Called before every billable
 * request when a budget is set: only the bytes appended since the last call are read.
 */
export function spentPoints(reportDir: string): Decimal {
  const file = join(reportDir, SPEND_FILE);
  if (!existsSync(file)) return new Decimal(0);
  const size = statSync(file).size;
  let tally = tallies.get(file);
  // A new spend file at the same path (a later run into the same directory) starts a new tally.
  if (!tally || size < tally.offset) tally = { offset: 0, total: new Decimal(0) };
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
    for (const line of complete.split('\n')) {
      if (!line) continue;
      try {
        tally.total = tally.total.plus(new Decimal((JSON.parse(line) as { points: string }).points));
      } catch {
        // a malformed line: ignored (the budget errs only by that line)
      }
    }
    tally.offset += Buffer.byteLength(complete);
    tallies.set(file, tally);
  }
  return tally.total;
}
