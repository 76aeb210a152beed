/**
 * How a test body ends early, thrown through it: skipped (not run, with why), stopped (a stop of the run
 * or the budget refused one of its requests), or aborted after a violation (later steps would only
 * repeat the cause). CheckContext throws them; the runner (define.ts) reads them.
 */
import type { NotRunCause } from '../vocabulary.ts';
import type { BudgetRefusal } from './budget.ts';

/**
 * The test cannot go on (a precondition the target did not give, a role or model hint not configured):
 * not run, with why; what it found before still stands (define.ts).
 */
export class SkipSignal extends Error {
  constructor(
    message: string,
    readonly notRunCause?: NotRunCause,
  ) {
    super(message);
  }
}
/** The run was asked to stop (Ctrl-C, deadline): the test ends where it is, its cleanups still run. */
export class StopSignal extends Error {
  /** `unpaid`: the stop came from the points budget or the account's balance, not from a stop of the run. */
  constructor(
    message: string,
    readonly unpaid?: BudgetRefusal,
  ) {
    super(message);
  }
}
export class AbortSignalError extends Error {}
