import { readWholeList } from '../../runtime/lists.ts';
import type { AccountModel } from '../account-state.ts';
import { chargeChanges, chargesCompared, met, usageChargesOf } from '../invariants.ts';
import { judged, type Real } from '../real.ts';
import { Step } from './step.ts';

/** GET /v1/usage: a settled charge read before never changes (PTS-006, the price snapshot). */
export async function readUsage(m: AccountModel, r: Real): Promise<void> {
  // The whole list: a record read before may have moved to another page since.
  const list = await readWholeList(r.t, '/v1/usage');
  if (!list || list.incomplete) return;
  const now = usageChargesOf(list.entries);
  if (chargesCompared(m.charges, now))
    judged(r, chargeChanges(m.charges, now)[0] ?? met('PTS-006'), list.last);
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
