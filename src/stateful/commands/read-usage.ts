import type { AccountModel } from '../account-state.ts';
import { chargeChanges, usageChargesOf } from '../invariants.ts';
import { fail, is2xx, type Real } from '../real.ts';
import { Step } from './step.ts';

/** GET /v1/usage: a settled charge read before never changes (PTS-006, the price snapshot). */
export async function readUsage(m: AccountModel, r: Real): Promise<void> {
  const res = await r.t.get('/v1/usage');
  if (!is2xx(res.status)) return;
  const now = usageChargesOf(res.json);
  fail(chargeChanges(m.charges, now)[0], res);
  for (const [id, charged] of now) if (!m.charges.has(id)) m.charges.set(id, charged);
}

export class ReadUsage extends Step {
  check(): boolean {
    return true;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    await readUsage(m, r);
  }

  toString(): string {
    return 'read usage';
  }
}
