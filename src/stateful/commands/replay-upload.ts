import { upload } from '../../media-jobs.ts';
import { type AccountModel, liveInputs, pickOf } from '../account-state.ts';
import { holds } from '../invariants.ts';
import { is2xx, judged, type Real } from '../real.ts';
import { named, Step } from './step.ts';

/**
 * The same upload again with its Idempotency-Key: the same input, never a second one (MIN-008); a
 * refusal is no second input (how a replay is answered beyond that is not stated), a 429 no answer.
 */
export class ReplayUpload extends Step {
  constructor(readonly pick: number) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return liveInputs(m as AccountModel).length > 0;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const input = pickOf(liveInputs(m), this.pick)!;
    this.target = input.label;
    const again = await upload(r.t, input.file, { idempotencyKey: input.key });
    if (!is2xx(again.res.status)) return;
    judged(
      r,
      holds(again.id === input.id, {
        id: 'MIN-008',
        message: `the upload of ${input.label} repeated with its Idempotency-Key was answered ${again.res.status}${again.id ? ` with input ${again.id}` : ''}, not the same input ${input.id}`,
        received: again.id ?? again.res.status,
        expected: input.id,
      }),
      again.res,
    );
  }

  toString(): string {
    return named('replay the upload of', this.target, this.pick, 'input');
  }
}
