// Race faults: each opens a delay window between a check and the write that depends on it, so that
// requests sent at the same moment all fall inside it. Why a window rather than real contention: the
// reference handles a request without yielding, so without one no race can happen, and with a short
// one a kill would depend on scheduling (flaky on a loaded 2-core machine). `--race-window-ms` sets it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RefContext } from './context.ts';
import type { Account } from './state.ts';

export const DEFAULT_RACE_WINDOW_MS = 200;

export async function raceWindow(ctx: RefContext): Promise<void> {
  await sleep(ctx.raceWindowMs ?? DEFAULT_RACE_WINDOW_MS);
}

/**
 * Fault race-ledger-skip: the ledger entry just written is written again over a copy of the ledger
 * taken before the window, so an entry another request wrote meanwhile is lost (a lost update).
 */
export async function lostLedgerUpdate(ctx: RefContext, account: Account): Promise<void> {
  const entry = account.ledger.pop();
  if (!entry) return;
  const before = [...account.ledger];
  await raceWindow(ctx);
  account.ledger = [...before, entry];
}
