import { randomUUID } from 'node:crypto';
import { type AccountModel, canSpend, nextLabel } from '../account-state.ts';
import { settled } from '../calls.ts';
import { is2xx, newKey, type Real } from '../real.ts';
import { Step } from './step.ts';

/** POST /v1/responses (three output tokens at most) with a new Idempotency-Key. */
export class ResponsesCall extends Step {
  check(m: Readonly<AccountModel>): boolean {
    return !!m.env.responses && canSpend(m as AccountModel) && m.calls.length < 8;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const key = newKey('responses');
    const body = {
      model: m.env.responses,
      input: `Say ok. ${randomUUID().slice(0, 8)}`,
      max_output_tokens: 16,
    };
    const res = await r.t.post('/v1/responses', body, { headers: { 'idempotency-key': key } });
    if (!is2xx(res.status)) return;
    const label = nextLabel('responses', m.calls);
    this.target = label;
    m.calls.push({ label, kind: 'responses', key, body });
    settled(m, r, res, `${label} (POST /v1/responses)`);
  }

  toString(): string {
    return `responses call${this.target ? ` as ${this.target}` : ''}`;
  }
}
