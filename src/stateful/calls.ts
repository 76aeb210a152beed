/** What every executed inference call tells the model: token figures, and the points it charged. */
import type { HttpResponse } from '../http/client.ts';
import { type AccountModel, spend } from './account-state.ts';
import { chargedOf, tokenJudgements } from './invariants.ts';
import { judged, type Real } from './real.ts';

/**
 * PTS-005 / CHAT-004 on the reply's usage; the charge counts against the run's points cap and, on a
 * quiet account, moves the balance the model expects (unknown when the reply does not say).
 */
export function settled(m: AccountModel, r: Real, res: HttpResponse, where: string): void {
  for (const j of tokenJudgements(res.json, where, res.rawPath)) judged(r, j, res);
  const charged = chargedOf(res.json);
  spend(m, charged);
  if (m.env.mode === 'exclusive') m.total = charged && m.total ? m.total.minus(charged) : undefined;
}
