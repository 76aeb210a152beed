import { randomUUID } from 'node:crypto';
import { type AccountModel, canSpend, nextLabel } from '../account-state.ts';
import { settled } from '../calls.ts';
import { is2xx, newKey, type Real } from '../real.ts';
import { Step } from './step.ts';

/** POST /v1/chat/completions (two tokens at most) with a new Idempotency-Key. */
export class ChatCall extends Step {
  check(m: Readonly<AccountModel>): boolean {
    return !!m.env.chat && canSpend(m as AccountModel) && m.calls.length < 8;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const key = newKey('chat');
    const body = {
      model: m.env.chat,
      messages: [{ role: 'user', content: `Say ok. ${randomUUID().slice(0, 8)}` }],
      max_tokens: 2,
    };
    const res = await r.t.post('/v1/chat/completions', body, { headers: { 'idempotency-key': key } });
    // A refused call is judged by the fixed chat tests; the model only follows what ran.
    if (!is2xx(res.status)) return;
    const label = nextLabel('chat', m.calls);
    this.target = label;
    m.calls.push({ label, kind: 'chat', key, body });
    settled(m, r, res, `${label} (POST /v1/chat/completions)`);
  }

  toString(): string {
    return `chat${this.target ? ` as ${this.target}` : ''}`;
  }
}
