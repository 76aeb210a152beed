/**
 * Defining and running one conformance test: `check` declares it to vitest, decides whether it may run
 * (side-effect class, roles, capabilities, budget), runs its body between its account lock and its
 * cleanups, and turns what it found into its outcome. The body's tools are CheckContext's (check.ts).
 */
import { afterAll, beforeAll, describe, TestRunner, test } from 'vitest';
import { notJudged, requirement } from '../catalogue.ts';
import { TransportError } from '../errors.ts';
import type { Effect, NotRunCause, Role, Violation } from '../vocabulary.ts';
import { accountOf, runsAlone } from './account.ts';
import { type BudgetRefusal, budgetRefusal } from './budget.ts';
import { CheckContext, type TestRecord } from './check.ts';
import { judge, type NotRun } from './judgement.ts';
import { stopReason } from './liveness.ts';
import { AccountLock, accountLockKey, LockTimeout } from './lock.ts';
import { notApplicable } from './may-run.ts';
import { runConfig, waitBoundMs } from './run-config.ts';
import { AbortSignalError, SkipSignal, StopSignal } from './signals.ts';
import { holdsTurn, leaveTurn, takeTurn } from './turns.ts';
import { type WorkerState, worker } from './worker.ts';

declare module 'vitest' {
  interface TaskMeta {
    conformance?: TestRecord;
  }
}

export interface CheckSpec {
  /** Requirement ids this test checks; they also open its title. */
  ids: string[];
  /** Side-effect class: the runner skips the test unless the target allows it. */
  effect: Effect;
  roles?: Role[];
  capabilities?: string[];
  timeoutMs?: number;
  /**
   * `exclusive`: the test compares an account's balance before and after, so it holds the account lock
   * alone (across the workers and shards of the run); billable tests hold it shared. The lock is the one
   * of the account the test speaks for as `primary`: the isolated account's for the files the run moved
   * beside the others (runtime/account.ts).
   */
  account?: 'exclusive';
  /**
   * The test judges 429 answers themselves (a guard, a quota, the ticket limit). Otherwise a failure of
   * one of its own rules that cites a 429 answer is not judged: the contract allows 429 for any "rate
   * limit or protection" ("wait for the limit window"), so the test is not run, never passed.
   */
  judges429?: true;
}

export class ConformanceFailure extends Error {
  override name = 'ConformanceFailure';
}

/** The violations of a failed test, as its error message says them. */
function formatFailure(violations: Violation[]): string {
  return violations
    .map((v) => {
      const lines = [`[${v.id}] ${v.message}`];
      if (v.pointer) lines.push(`  at ${v.pointer}`);
      if (v.received !== undefined) lines.push(`  Received: ${short(v.received)}`);
      if (v.expected !== undefined) lines.push(`  Expected: ${short(v.expected)}`);
      return lines.join('\n');
    })
    .join('\n');
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/**
 * How a test body ended: stopped (by a stop of the run, or by the budget: `unpaid`), skipped (it could
 * go no further: not run, unless what it found before fails it), or not.
 */
interface BodyEnd {
  stoppedBy?: string;
  unpaid?: BudgetRefusal;
  skip?: SkipSignal;
}

/**
 * Run a test body between its lock and its cleanups: the account lock it needs (shared for billable
 * work, exclusive for a balance comparison), the body, its cleanups (always, last in first out), and
 * what it found copied to its record. A stop ends the body where it is; a connection failure is a
 * violation, or inconclusive when it could not be repeated; any other throw is the suite's error.
 */
async function runBody(
  spec: CheckSpec,
  w: WorkerState,
  t: CheckContext,
  fn: (t: CheckContext) => Promise<void>,
  record: TestRecord,
  notRun: (reason: string, cause?: NotRunCause) => never,
): Promise<BodyEnd> {
  let stoppedBy: string | undefined;
  let unpaid: BudgetRefusal | undefined;
  let skip: SkipSignal | undefined;
  let release: (() => void) | undefined;
  if (spec.account === 'exclusive' || spec.effect === 'billable') {
    const lock = new AccountLock(accountLockKey(w.run.target.baseUrl, t.keyOf('primary')));
    const waitMs = Math.max(1_000, (spec.timeoutMs ?? w.run.target.timeouts.testMs) / 2);
    try {
      release =
        spec.account === 'exclusive' ? await lock.acquireExclusive(waitMs) : await lock.acquireShared(waitMs);
    } catch (err) {
      if (err instanceof LockTimeout)
        notRun(`account lock: ${err.message}`, { kind: 'lock', subject: 'the account lock was busy' });
      throw err;
    }
  }
  try {
    await fn(t);
  } catch (err) {
    record.cleanup = await t.runCleanups();
    release?.();
    if (err instanceof StopSignal) {
      stoppedBy = err.message;
      if (err.unpaid) unpaid = err.unpaid;
    } else if (err instanceof SkipSignal) {
      // Judged like a stop: the replies it met before (a precondition's, answered against the
      // contract) were judged, and their failures stand.
      skip = err;
    } else if (err instanceof TransportError) {
      const ex = err.exchangeId ? t.exchange(err.exchangeId) : undefined;
      if (err.inconclusive) t.inconclusiveAfter(err.inconclusive, ex);
      else t.violate('GEN-001', err.message, ex ? { exchange: ex } : {});
    } else if (t.refusedBy && !(err instanceof AbortSignalError)) {
      // A stop refused one of its requests, and the test broke on it (it caught the refusal, or a
      // model-based run could not finish): stopped, like a test the refusal ended directly.
      stoppedBy = t.refusedBy.message;
      if (t.refusedBy.unpaid) unpaid = t.refusedBy.unpaid;
    } else if (!(err instanceof AbortSignalError)) {
      record.outcome = 'harness_error';
      record.error = w.redactor.text(
        err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err),
      );
      record.exchangeCount = t.exchangeCount;
      throw err;
    }
  }
  if (!record.cleanup) record.cleanup = await t.runCleanups();
  release?.(); // a second call (after the catch) removes nothing
  record.violations = [...t.violations];
  if (t.notes.length) record.notes = [...t.notes];
  record.exchanges = t.citedExchanges();
  record.exchangeCount = t.exchangeCount;
  record.touches = t.touches();
  const observed = t.observedIds();
  if (Object.keys(observed).length) record.observed = observed;
  if (t.accepted.size) record.accepted = [...t.accepted];
  if (t.beside.length) record.beside = [...t.beside];
  const asserted = t.assertedStatuses();
  if (Object.keys(asserted).length) record.asserted = asserted;
  if (t.retried > 0) record.retried = t.retried;
  return { ...(stoppedBy ? { stoppedBy } : {}), ...(unpaid ? { unpaid } : {}), ...(skip ? { skip } : {}) };
}

/**
 * A group of tests (vitest `describe`). Why not describe itself: vitest runs describe blocks one after
 * another even when tests are concurrent; a group runs its tests alongside the other groups of its file.
 */
export function group(name: string, fn: () => void): void {
  describe(name, { concurrent: true }, fn);
}

/**
 * Longer than the other files of any run take (a standard run against a real target takes minutes, a
 * thorough one well under an hour); the run's deadline and a stop end the wait sooner.
 */
const TURN_BOUND_MS = 6 * 60 * 60 * 1000;
/**
 * Suites (describe blocks, files) whose hooks wait for the turn: one pair each, by the file they were
 * collected for. Not the suite alone: vitest collects a file's top-level tests into one default suite
 * per worker thread, which it clears and reuses for the next file the thread collects (isolate: false),
 * so a second file run alone in a thread would find it marked and run without waiting for its turn.
 */
const waitsForTurn = new WeakMap<object, object>();
/** Why the files that run alone may not run their tests, by report directory (the bound passed first). */
const turnRefused = new Map<string, string>();

/**
 * A file that runs alone (account.ts runsAlone) waits, before its tests, until every other file of the
 * run has ended and then for its turn among the files that run alone, given back after its last test
 * (runtime/turns.ts). In hooks, so that the wait counts against no test's timeout; hooks of nested
 * blocks take the turn the file already holds.
 */
function aloneAfterTheOthers(): void {
  const suite = TestRunner.getCurrentSuite();
  if (waitsForTurn.get(suite) === suite.file) return;
  waitsForTurn.set(suite, suite.file);
  beforeAll(async () => {
    const dir = worker().run.reportDir;
    const refused = await takeTurn(dir, () => stopReason(dir), TURN_BOUND_MS);
    if (refused && !stopReason(dir)) turnRefused.set(dir, refused);
  }, 0);
  afterAll(() => leaveTurn(worker().run.reportDir));
}

/**
 * Define one conformance test. The runner, not the test, decides whether it may run (side-effect class,
 * roles, capabilities); the test records violations by requirement id and the verdict follows from them.
 */
export function check(spec: CheckSpec, title: string, fn: (t: CheckContext) => Promise<void>): void {
  for (const id of spec.ids) requirement(id);
  const run = runConfig();
  // The account this test speaks for as `primary`: the isolated account's when the run moved its file
  // beside the others (runtime/account.ts), else the primary account.
  const file = TestRunner.getCurrentSuite().file.filepath;
  const account = accountOf(file, run.isolatedFiles);
  const alone = runsAlone(file, run.isolatedFiles);
  if (alone) aloneAfterTheOthers();
  const fullTitle = `${spec.ids.join(' ')} ${title}`;
  // Concurrent: the target's concurrency limits requests in flight (the worker's request gate), not
  // tests. A file that runs alone runs one test at a time; so does a file moved beside the others on
  // the isolated account, by itself (its tests would only wait for its lock).
  const concurrent = account === 'primary' && !alone;
  test(fullTitle, { timeout: spec.timeoutMs ?? run.target.timeouts.testMs, concurrent }, async (ctx) => {
    const w = worker();
    const record: TestRecord = {
      ids: spec.ids,
      effect: spec.effect,
      outcome: 'passed',
      violations: [],
      exchanges: [],
      exchangeCount: 0,
    };
    ctx.task.meta.conformance = record;
    const notRun = (reason: string, cause?: NotRunCause): never => {
      record.outcome = 'not_run';
      record.reason = reason;
      if (cause) record.cause = cause;
      return ctx.skip(reason);
    };
    const notRunAs = (n: NotRun): never => {
      if (n.unpaid) record.unpaid = true;
      if (n.planned) record.planned = true;
      return notRun(n.reason, n.cause);
    };
    const skipped = notApplicable(spec, {
      target: w.run.target,
      hasRole: (role) => !!w.keys[role],
      stopReason: () => stopReason(w.run.reportDir),
      budgetRefusal: () => budgetRefusal(w.run.reportDir, w.run.budget),
      dryRun: !!w.run.dryRun,
    });
    if (skipped) notRunAs(skipped);
    if (alone) {
      const refused = turnRefused.get(w.run.reportDir);
      if (refused) notRun(refused);
      // Its file's hooks took the turn before its first test: a test that runs without it would run
      // beside another (the harness's fault, never the target's), so it does not run.
      if (!holdsTurn())
        notRun(
          "not run alone: the test started without its file's turn among the files that run alone (the harness's fault)",
        );
    }
    const t = new CheckContext(w, fullTitle, spec.effect, spec.judges429, spec.ids, account);
    t.waitDeadline = Date.now() + waitBoundMs(w.run.target, spec.timeoutMs ?? w.run.target.timeouts.testMs);
    let end: BodyEnd;
    try {
      end = await runBody(spec, w, t, fn, record, notRun);
    } catch (err) {
      // Before the body (the account lock's key): nothing was sent, so nothing was found.
      if (err instanceof SkipSignal) return notRun(err.message, err.notRunCause);
      throw err;
    }
    const { stoppedBy, unpaid, skip } = end;
    const verdict = judge(
      {
        violations: t.violations,
        limitedCases: t.limitedCases,
        inconclusive: t.inconclusive,
        balanceRanOut: t.balanceRanOut,
        stoppedBy,
        unpaid,
        wentNoFurther: skip && { reason: skip.message, cause: skip.notRunCause },
      },
      {
        ids: spec.ids,
        judges429: !!spec.judges429,
        statusOf: (id) => t.exchange(id)?.status,
        requestOf: (id) => {
          const x = t.exchange(id);
          return x && { method: x.method, path: x.path };
        },
        // What runBody copied to the record (t.observedIds), not computed again.
        observedOwn: spec.ids.some((id) => id in (record.observed ?? {})),
      },
    );
    for (const u of verdict.unjudged) notJudged(u.violation, u.because);
    if (verdict.outcome === 'not_run') {
      if (verdict.discard) {
        record.violations = [];
        record.exchanges = [];
      }
      return notRunAs(verdict.notRun);
    }
    if (verdict.outcome === 'inconclusive') {
      record.outcome = 'inconclusive';
      record.reason = verdict.reason;
      return;
    }
    record.outcome = verdict.outcome;
    if (verdict.notes) record.notes = [...(record.notes ?? []), ...verdict.notes];
    const failures = verdict.failures;
    if (failures.length > 0) throw new ConformanceFailure(formatFailure(failures));
  });
}
