import { readWholeList } from '../../runtime/lists.ts';
import type { AccountModel } from '../account-state.ts';
import { ledgerBalanceProblem, ledgerChainProblem, ledgerOf } from '../invariants.ts';
import { judged, type Real } from '../real.ts';
import { readBalance } from './read-balance.ts';
import { Step } from './step.ts';

/**
 * GET /v1/ledger, then the balance (a quiet account only): running balances agree (LEDGER-002) and the
 * newest entry states the total read right after (LEDGER-003).
 */
export class ReadLedger extends Step {
  check(m: Readonly<AccountModel>): boolean {
    return m.env.mode === 'exclusive';
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    // The whole ledger (its pages, in either order): its newest entry is at one end of the whole list.
    const list = await readWholeList(r.t, '/v1/ledger');
    if (!list || list.incomplete) return;
    const res = list.last;
    const lines = ledgerOf(list.entries);
    judged(r, ledgerChainProblem(lines), res);
    const total = await readBalance(m, r);
    if (total) judged(r, ledgerBalanceProblem(lines, total), res);
  }

  toString(): string {
    return 'read the ledger and the balance';
  }
}
