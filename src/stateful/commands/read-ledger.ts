import type { AccountModel } from '../account-state.ts';
import { ledgerBalanceProblem, ledgerChainProblem, ledgerOf } from '../invariants.ts';
import { fail, is2xx, type Real } from '../real.ts';
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
    const res = await r.t.get('/v1/ledger');
    if (!is2xx(res.status)) return;
    const lines = ledgerOf(res.json);
    fail(ledgerChainProblem(lines), res);
    const total = await readBalance(m, r);
    if (total) fail(ledgerBalanceProblem(lines, total), res);
  }

  toString(): string {
    return 'read the ledger and the balance';
  }
}
