import { type AccountModel, canSpend } from '../account-state.ts';
import { settled } from '../calls.ts';
import { is2xx, type Real } from '../real.ts';
import { Step } from './step.ts';

/** POST /v1/embeddings (no Idempotency-Key: the contract does not list one for embeddings). */
export class EmbeddingCall extends Step {
  check(m: Readonly<AccountModel>): boolean {
    return !!m.env.embedding && canSpend(m as AccountModel);
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const res = await r.t.post('/v1/embeddings', { model: m.env.embedding, input: 'ok' });
    if (is2xx(res.status)) settled(m, r, res, 'an embedding call');
  }

  toString(): string {
    return 'embedding call';
  }
}
