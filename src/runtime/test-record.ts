/**
 * What one test leaves for the report: its record (outcome, violations, evidence, what it touched and
 * observed), and what its cleanups resolve to. Written by the runner (define.ts), read by src/report/.
 */
import type { Touch } from '../applicability.ts';
import type { Exchange } from '../http/client.ts';
import type { CleanupRecord, Effect, LeftBehind, NotRunCause, Outcome, Violation } from '../vocabulary.ts';

export interface TestRecord {
  ids: string[];
  effect: Effect;
  outcome: Outcome;
  violations: Array<Violation & { count: number }>;
  /** The exchanges the violations cite (redacted). */
  exchanges: Exchange[];
  exchangeCount: number;
  reason?: string;
  /** Why it was not run, typed (kind, subject, remedy). */
  cause?: NotRunCause;
  error?: string;
  /** Dry run: the test would have run (it is reported as not run with that reason). */
  planned?: boolean;
  /** Not run (or stopped) because the points budget or the account's balance could not pay for it. */
  unpaid?: true;
  /** What the test created and then cleaned up, and what it could not clean up. */
  cleanup?: CleanupRecord;
  /** The places its requests touched (src/applicability.ts), each once. */
  touches?: Touch[];
  /**
   * Requests of this test repeated once on a fresh connection after a connection failure before any
   * byte of a response (the client's transientRetry); absent when none was. Its requests took
   * exchangeCount attempts in all (429 waits included).
   */
  retried?: number;
  /** What a reader must know of how the test judged (a sample it drew, with the seed that replays it). */
  notes?: string[];
  /**
   * The requirement ids a judgement of this test was made on (a condition evaluated on what the target
   * showed: CheckContext.observe), each with the indices into `touches` of the requests whose answers it
   * read (empty: the test's answers as a whole). An id the test cites but never observed was aimed at,
   * not judged: src/report/requirements.ts never passes it on this test.
   */
  observed?: Record<string, number[]>;
  /** The controls the test's answers showed accepted (CheckContext.showAccepted: `media-job:<model>`). */
  accepted?: string[];
  /**
   * The controls the test's judgements of its own ids stand beside (CheckContext.standBeside): where a
   * test of the run shows none of one accepted, those observations are not counted (src/report/requirements.ts).
   */
  beside?: Array<{ key: string; what: string }>;
  /** The status expectations the test asserted per id (expectStatus' labels: `403`, `4xx`, ...). */
  asserted?: Record<string, string[]>;
}

/** What a cleanup function resolves to: true when the thing is gone, else why it is left behind. */
export type CleanupOutcome = true | false | Omit<LeftBehind, 'item' | 'at'>;

/**
 * Run cleanups last in first out (each reads its test's cleanupDeadline; one that starts after it still
 * tries once, without waiting): what is gone, and what is left behind with why.
 */
export async function runCleanups(
  cleanups: ReadonlyArray<{ label: string; fn: () => Promise<CleanupOutcome> }>,
): Promise<CleanupRecord> {
  const started = Date.now();
  const out: CleanupRecord = { done: [], failed: [] };
  for (const c of [...cleanups].reverse()) {
    let result: CleanupOutcome;
    try {
      result = await c.fn();
    } catch (err) {
      result = { reason: `the cleanup threw: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (result === true) {
      out.done.push(c.label);
      continue;
    }
    out.failed.push(c.label);
    const why = result === false ? { reason: 'not removed' } : result;
    out.leftBehind = [...(out.leftBehind ?? []), { item: c.label, at: new Date().toISOString(), ...why }];
  }
  out.ms = Date.now() - started;
  return out;
}
