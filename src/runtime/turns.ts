/**
 * The files that run alone after the others (account.ts runsAlone: the `*.serial.test.ts` files the run
 * did not move beside the others on the isolated account). They are sorted last among the run's files
 * and share its worker threads (src/app/suites.ts), and before its first test each one waits here:
 * first until every other file of the run has ended (the main thread's reporter says so:
 * othersEnded), then for the run's one turn (a directory made atomically), which it holds until its last
 * test has ended. So none of their tests overlaps another file's test or one of each other's, as when
 * they were a vitest group of their own; why not that group: a group starts worker threads of its own,
 * which load the suite's modules again (about 0.3 s of wall and CPU per run, a tenth of the embedded
 * run's serial part: bench/README.md).
 *
 * The report directory is the run's alone (src/app/run.ts ownReportDir), and a run clears what a killed
 * one left there when it starts (clearControlFiles): the mark and the turn need no owner's name. Between
 * shards (each its own report directory), the account locks (lock.ts) keep a balance check alone on its
 * account, as they did beside the serial groups.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { reportFile } from '../layout.ts';

/** How often a waiting file looks again (a stat of one file: nothing to a run that waits seconds). */
export const TURN_POLL_MS = 10;

const ended = (reportDir: string) => join(reportFile(reportDir, 'turns'), 'others-ended');
const turn = (reportDir: string) => join(reportFile(reportDir, 'turns'), 'turn');

/** The main thread: every file of the run that does not run alone has ended. */
export function othersEnded(reportDir: string): void {
  mkdirSync(reportFile(reportDir, 'turns'), { recursive: true });
  writeFileSync(ended(reportDir), '');
}

/** How many times this thread holds the turn (a file's hooks nest: one per describe block and the file's own). */
let held = 0;

/**
 * Wait until the other files have ended, then take the turn. Returns undefined once it is held, or why
 * the file's tests may not run: the run was asked to stop meanwhile (`stop`), or the bound passed first
 * (a file that never ended: never a test on an account that other traffic may still touch).
 */
export async function takeTurn(
  reportDir: string,
  stop: () => string | undefined,
  boundMs: number,
  now: () => number = Date.now,
): Promise<string | undefined> {
  if (held > 0) {
    held++;
    return undefined;
  }
  const until = now() + boundMs;
  for (;;) {
    const stopped = stop();
    if (stopped) return stopped;
    if (existsSync(ended(reportDir))) {
      try {
        mkdirSync(turn(reportDir));
        held = 1;
        return undefined;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    if (now() >= until)
      return `not run alone: the run's other files had not ended after ${Math.round(boundMs / 1000)} s (a file that must run alone never starts beside them)`;
    await sleep(TURN_POLL_MS);
  }
}

/** Whether this thread holds the turn now (a test of a file that runs alone runs only while it does). */
export const holdsTurn = (): boolean => held > 0;

/** Give the turn back (after a file's last test); nothing when this thread does not hold it. */
export function leaveTurn(reportDir: string): void {
  if (held === 0) return;
  held--;
  if (held === 0) rmSync(turn(reportDir), { recursive: true, force: true });
}
