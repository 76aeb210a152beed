/**
 * Run liveness, shared by every test worker (threads of one process, and shards that share a report
 * directory): a stop request (Ctrl-C, the run deadline), a target given up on (a streak of requests
 * without an answer), and the media jobs each thread waits on (the progress line). Why files in the
 * report directory (src/layout.ts): workers are separate threads with separate module state, and
 * appends of one short line are atomic, so no lock is needed. The budget is src/runtime/budget.ts.
 */

import { setMaxListeners } from 'node:events';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import type { Exchange } from '../http/client.ts';
import { REPORT_FILES, reportFile } from '../layout.ts';

/**
 * Media jobs each worker thread is waiting on: a directory of one small file per thread (`<pid>-<thread>`,
 * its count), overwritten when the count changes; the progress line sums the latest counts.
 */
export const JOBS_FILE = REPORT_FILES.jobs.name;

const jobsDirs = new Set<string>();
/** This worker thread now waits on `count` jobs (for the main thread's progress line). */
export function noteJobsInFlight(reportDir: string, thread: number, count: number): void {
  const dir = reportFile(reportDir, 'jobs');
  if (!jobsDirs.has(dir)) {
    mkdirSync(dir, { recursive: true });
    jobsDirs.add(dir);
  }
  // Written aside, then renamed over: a reader sees the old count or the new one, never an empty file.
  const file = join(dir, `${process.pid}-${thread}`);
  writeFileSync(`${file}.next`, String(count));
  renameSync(`${file}.next`, file);
}

/** The media jobs the run's worker threads are waiting on, summed. */
export function jobsInFlight(reportDir: string): number {
  const dir = reportFile(reportDir, 'jobs');
  let total = 0;
  try {
    for (const f of readdirSync(dir)) {
      if (f.endsWith('.next')) continue;
      const n = Number(readFileSync(join(dir, f), 'utf8'));
      if (Number.isFinite(n)) total += n;
    }
  } catch {
    // no job yet (no directory), or the run ended meanwhile
  }
  return total;
}

/**
 * A run-wide flag with its reason: a file of the report directory, set once by any worker, read by
 * every one (cached once set, by report directory: one process may hold several runs one after another).
 */
export function runFlag(file: keyof typeof REPORT_FILES, fallback: string) {
  const seen = new Map<string, string>();
  const at = (reportDir: string) => reportFile(reportDir, file);
  return {
    set(reportDir: string, reason: string): void {
      if (!existsSync(at(reportDir))) writeFileSync(at(reportDir), reason);
    },
    get(reportDir: string): string | undefined {
      const known = seen.get(reportDir);
      if (known) return known;
      const path = at(reportDir);
      if (!existsSync(path)) return undefined;
      const reason = readFileSync(path, 'utf8') || fallback;
      seen.set(reportDir, reason);
      return reason;
    },
  };
}

const stopFlag = runFlag('stop', 'the run was stopped');
/** Ask every worker of the run to stop starting tests and requests (running cleanups still run). */
export const requestStop = stopFlag.set;
/** The reason the run was asked to stop, if it was. */
export const stopReason = stopFlag.get;

const deadFlag = runFlag('deadTarget', 'the target stopped answering');
/** Why the run gave up on the target (too many consecutive requests without an answer), if it did. */
export const deadTarget = deadFlag.get;

/**
 * Consecutive requests, across every worker of the run, that got no answer (timeout, connection
 * refused or reset) before the run gives up on the target. Why 5: one slow or flaky reply is a finding
 * of its test; five in a row with nothing answered in between is a target that is gone, and each more
 * costs a request timeout (30 s by default) per test still to come.
 */
export const DEAD_AFTER = 5;
export const STREAK_FILE = REPORT_FILES.streak.name;
/** The channel on which a thread that counted a no-answer tells the run's other threads (a report dir). */
export const STREAK_CHANNEL = 'gateway-conformance:no-answer-streak';

/**
 * Report directories whose streak this thread knows to be 0: it has not counted a no-answer there, nor
 * heard of another thread counting one, since it last reset the streak. Why: about 5,000 answers a run
 * would otherwise each stat the streak file; an answer in a thread that knows the streak is 0 touches
 * nothing.
 */
const streakZero = new Set<string>();
const streakSeen = new Set<string>();
let streakChannel: BroadcastChannel | undefined;
function streakNews(): BroadcastChannel {
  if (!streakChannel) {
    streakChannel = new BroadcastChannel(STREAK_CHANNEL);
    streakChannel.onmessage = (e) => streakZero.delete(String((e as { data: unknown }).data));
    // Listening keeps no worker thread alive.
    streakChannel.unref();
  }
  return streakChannel;
}

/**
 * Count a request's transport outcome run-wide: an answer resets the streak, a request without one
 * adds to it; at DEAD_AFTER the run is stopped (no test or request starts any more) with the cause.
 * Why a file of appended bytes: worker threads share no memory, an append of one byte is atomic and
 * the streak is the file's size; an answer truncates it. A thread touches the file on an answer only
 * after it counted a no-answer or heard (STREAK_CHANNEL) that another thread of the process did.
 */
export function noteAnswer(reportDir: string, answered: boolean, what?: string): void {
  const file = reportFile(reportDir, 'streak');
  const channel = streakNews();
  try {
    // A report directory this thread meets for the first time: its streak is read once.
    if (!streakSeen.has(reportDir)) {
      streakSeen.add(reportDir);
      if (!existsSync(file) || statSync(file).size === 0) streakZero.add(reportDir);
    }
    if (answered) {
      if (streakZero.has(reportDir)) return;
      if (existsSync(file) && statSync(file).size > 0) writeFileSync(file, '');
      streakZero.add(reportDir);
      return;
    }
    streakZero.delete(reportDir);
    appendFileSync(file, 'x');
    channel.postMessage(reportDir);
    const streak = statSync(file).size;
    if (streak >= DEAD_AFTER && !deadFlag.get(reportDir)) {
      const reason = `the target stopped answering: ${streak} requests in a row got no answer${what ? ` (the last: ${what})` : ''}`;
      deadFlag.set(reportDir, reason);
      requestStop(reportDir, reason);
      deadNews().postMessage(reportDir);
      deadControllers.get(reportDir)?.abort(givenUp(reason));
    }
  } catch {
    // the report directory is gone (the run ended): nothing to count
  }
}

/** Transport failures that mean the target gave no answer at all (not a stop of ours, not a body cap). */
const NO_ANSWER = new Set([
  'TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * Count one exchange of a test towards (or against) the run's no-answer streak. A failed attempt the
 * client repeats on a fresh connection (`repeated`) counts as nothing yet: its repeat counts.
 */
export function noteExchange(reportDir: string, ex: Exchange): void {
  if (ex.repeated) return;
  if (ex.status !== undefined) noteAnswer(reportDir, true);
  else if (ex.error && NO_ANSWER.has(ex.error.code))
    noteAnswer(reportDir, false, `${ex.method} ${ex.path}: ${ex.error.message} [${ex.error.code}]`);
}

/** The code of a request ended because the run gave up on the target (deadSignal). */
export const GIVEN_UP = 'TARGET_GIVEN_UP';
const givenUp = (reason: string) => Object.assign(new Error(reason), { code: GIVEN_UP });

/** The channel on which the thread that gave up on the target tells the run's other threads (a report dir). */
const DEAD_CHANNEL = 'gateway-conformance:dead-target';
const deadControllers = new Map<string, AbortController>();
let deadChannel: BroadcastChannel | undefined;
function deadNews(): BroadcastChannel {
  if (!deadChannel) {
    deadChannel = new BroadcastChannel(DEAD_CHANNEL);
    deadChannel.onmessage = (e) => {
      const dir = String((e as { data: unknown }).data);
      deadControllers.get(dir)?.abort(givenUp(deadFlag.get(dir) ?? 'the target stopped answering'));
    };
    deadChannel.unref();
  }
  return deadChannel;
}

/**
 * Aborted once the run gives up on the target (any thread): the requests still in flight to it end at
 * once instead of at their own deadline, since nothing they could answer is judged any more (their
 * tests end stopped, not run). One signal per report directory and thread.
 */
export function deadSignal(reportDir: string): AbortSignal {
  let c = deadControllers.get(reportDir);
  if (!c) {
    c = new AbortController();
    // Every request in flight in this thread listens to it once (and stops when it ends): more than
    // Node's default of 10 is the concurrency, no leak (a URL target's adaptive pace goes to 16).
    setMaxListeners(0, c.signal);
    deadControllers.set(reportDir, c);
    deadNews();
    const known = deadFlag.get(reportDir);
    if (known) c.abort(givenUp(known));
  }
  return c.signal;
}
