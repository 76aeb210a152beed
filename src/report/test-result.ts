/**
 * One test's result as a report holds it: what the test recorded while it ran (TestRecord, carried in the
 * vitest task's meta) with what the reporter adds (title, file, duration) and what the harness adds
 * (the expectations file's verdict, a record made for a stale entry of that file).
 */
import type { TestRecord } from '../runtime/check.ts';
import type { Effect } from '../vocabulary.ts';

export interface TestResultRecord extends Omit<TestRecord, 'effect'> {
  title: string;
  file: string;
  /** Absent on a record the harness made (origin). */
  effect?: Effect;
  durationMs: number;
  /** A record the harness made, not a test: `expectations` for an expired or stale entry of that file. */
  origin?: 'expectations';
  /** Inconclusive and allowed to be: the `flaky:` entry of the expectations file that covers it. */
  flaky?: string;
}
