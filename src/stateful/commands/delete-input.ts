import { readJob } from '../jobs.ts';
import { ACTIVE, type AccountModel, holders, liveInputs, pickOf } from '../model.ts';
import { fail, is2xx, is4xx, type Real } from '../real.ts';
import { named, Step } from './step.ts';

/**
 * DELETE /v1/media/inputs/{id} of an input the model owns.
 * Deleted: refused (MIN-009). No job the model knows may still hold it: succeeds (MIN-009). A job that
 * may still hold it: either outcome, but a success while that job reads active breaks MIN-010.
 */
export type DeleteChoice = 'any' | 'held' | 'again';

export class DeleteInput extends Step {
  /** any: a live input; held: preferably one a job may still hold; again: preferably a deleted one. */
  constructor(
    readonly pick: number,
    readonly choice: DeleteChoice,
  ) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return m.inputs.length > 0;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const deleted = m.inputs.filter((i) => i.deleted);
    const live = liveInputs(m);
    const held = live.filter((i) => holders(m, i.id).length > 0);
    const pool =
      this.choice === 'again' && deleted.length > 0
        ? deleted
        : this.choice === 'held' && held.length > 0
          ? held
          : live.length > 0
            ? live
            : deleted;
    const input = pickOf(pool, this.pick)!;
    this.target = input.label;
    const res = await r.t.request('DELETE', `/v1/media/inputs/${encodeURIComponent(input.id)}`);
    if (res.status === 429) return;
    if (input.deleted) {
      if (!is4xx(res.status))
        fail(
          {
            id: 'MIN-009',
            message: `deleting ${input.label} a second time was answered ${res.status}`,
            received: res.status,
            expected: 'a 4xx refusal',
          },
          res,
        );
      return;
    }
    const holding = holders(m, input.id);
    if (is2xx(res.status)) {
      input.deleted = true;
      for (const job of holding) {
        const status = await readJob(r, job);
        if (status && ACTIVE.includes(status))
          fail(
            {
              id: 'MIN-010',
              message: `deleting ${input.label} succeeded (${res.status}) while ${job.label}, which references it, reads ${status}`,
              received: res.status,
              expected: 'a 4xx refusal while the job is active',
            },
            res,
          );
      }
      return;
    }
    if (holding.length === 0)
      fail(
        {
          id: 'MIN-009',
          message: `deleting ${input.label}, which no job still holds${m.jobs.some((j) => j.refs.includes(input.id)) ? ' (its jobs have ended)' : ''}, was answered ${res.status}`,
          received: res.status,
          expected: '2xx',
        },
        res,
      );
  }

  toString(): string {
    return named(this.choice === 'again' ? 'delete (again)' : 'delete', this.target, this.pick, 'input');
  }
}
