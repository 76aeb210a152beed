import type { Decimal } from 'decimal.js';
import type { AccountModel } from '../account-state.ts';
import { availableProblem, balanceMoveProblem, balanceOf } from '../invariants.ts';
import { is2xx, judged, type Real } from '../real.ts';
import { Step } from './step.ts';

/**
 * GET /v1/balance: available = total - held (BAL-003); on a quiet account the total is what the model
 * expects from the charges the replies reported since the last read (BAL-004). Returns the total read.
 */
export async function readBalance(m: AccountModel, r: Real): Promise<Decimal | undefined> {
  const res = await r.t.get('/v1/balance');
  const b = is2xx(res.status) ? balanceOf(res.json) : undefined;
  if (!b) return undefined;
  judged(r, availableProblem(b), res);
  if (m.env.mode !== 'exclusive') return b.total;
  if (m.total)
    judged(r, balanceMoveProblem(m.total, b.total, 'after the charges reported since the last read'), res);
  m.total = b.total;
  return b.total;
}

export class ReadBalance extends Step {
  check(): boolean {
    return true;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    await readBalance(m, r);
  }

  toString(): string {
    return 'read the balance';
  }
}
