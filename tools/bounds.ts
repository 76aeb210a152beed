/**
 * The bound on a hung test, hook or child process of `npm test`: it ends a hang, it judges nothing. Wide
 * enough that a slow or loaded machine never reaches it (on a machine at load 60 a 38 s test file took
 * 505 s); each test is bound by what it proves (events, order, counts), never by the clock.
 */
export const HANG_BOUND_MS = 30 * 60_000;
