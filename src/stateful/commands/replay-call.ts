import { type AccountModel, pickOf } from '../account-state.ts';
import { holds, tokenJudgements } from '../invariants.ts';
import { is2xx, judged, LEGACY, type Real } from '../real.ts';
import { readBalance } from './read-balance.ts';
import { readUsage } from './read-usage.ts';
import { named, Step } from './step.ts';

/**
 * A chat or responses call again with its Idempotency-Key and body (`legacy`: in the legacy currency
 * format). It must not execute twice: on a quiet account the balance does not move (IDEM-001; IDEM-003
 * for the currency format), and the settled charges read before and after it stay as they were
 * (PTS-006). Whether the replay returns the first reply or a refusal is not stated.
 */
export class ReplayCall extends Step {
  constructor(
    readonly pick: number,
    readonly legacy: boolean,
  ) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return m.calls.length > 0;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const call = pickOf(m.calls, this.pick)!;
    this.target = call.label;
    const quiet = m.env.mode === 'exclusive';
    await readUsage(m, r);
    const before = quiet ? await readBalance(m, r) : undefined;
    const path = call.kind === 'chat' ? '/v1/chat/completions' : '/v1/responses';
    const res = await r.t.post(path, call.body, {
      headers: { 'idempotency-key': call.key, ...(this.legacy ? LEGACY : {}) },
      retry429: false,
    });
    if (is2xx(res.status))
      for (const j of tokenJudgements(res.json, `the replay of ${call.label}`, path)) judged(r, j, res);
    // A settled charge never changes (PTS-006), also not when its request is replayed.
    await readUsage(m, r);
    if (!before) return;
    // The total is compared with the one read before the replay, not with the model (BAL-004 is the
    // model's rule for executed calls; a replay that moves the balance breaks IDEM-001 itself).
    m.total = undefined;
    const after = await readBalance(m, r);
    // A replay the limit refused (429) was no replay: a balance it left alone says nothing of the rule.
    if (after && (res.status !== 429 || !after.equals(before)))
      judged(
        r,
        holds(after.equals(before), {
          id: this.legacy ? 'IDEM-003' : 'IDEM-001',
          message: `replaying ${call.label} with its Idempotency-Key and body${this.legacy ? ' in the legacy currency format' : ''} (answered ${res.status}) moved total_points by ${before.minus(after)}`,
          received: before.minus(after).toString(),
          expected: '0',
        }),
        res,
      );
  }

  toString(): string {
    return named(`replay${this.legacy ? ' (legacy format)' : ''}`, this.target, this.pick, 'call');
  }
}
