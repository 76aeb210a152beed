import { segment } from '../../http/segment.ts';
import { ACTIVE, type AccountModel, holders, liveInputs, pickOf } from '../account-state.ts';
import { holds } from '../invariants.ts';
import { readJob } from '../jobs.ts';
import { is2xx, judged, type Real } from '../real.ts';
import { named, Step } from './step.ts';

/**
 * DELETE /v1/media/inputs/{id} of an input the model owns.
 * Deleted: 2xx (idempotent) or a refusal, not judged (it stays unusable: CreateJob). No job references
 * it: succeeds (MIN-009). Only jobs the model has seen end reference it: either outcome ("active" is
 * defined no further than authorizing, queued, running and output_fetching: judging.md; variant
 * inputs-held-by-failed-jobs). A job that may still hold it is read after the delete: where it reads
 * active the delete had to be refused (MIN-010); where it has ended, either outcome.
 */
export type DeleteChoice = 'any' | 'held' | 'recent' | 'again';

export class DeleteInput extends Step {
  /**
   * any: preferably an input no job holds (its delete must succeed); held: preferably one a job may
   * still hold; recent: preferably one the job created or replayed last references (what a client
   * deletes once it is done with a job); again: preferably a deleted one.
   */
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
    const free = live.filter((i) => !held.includes(i));
    const recent = held.filter((i) => m.jobs.find((j) => j.id === m.lastJob)?.refs.includes(i.id));
    const first = <T>(...pools: T[][]): T[] => pools.find((p) => p.length > 0) ?? [];
    const pool =
      this.choice === 'again'
        ? first(deleted, live)
        : this.choice === 'recent'
          ? first(recent, held, live, deleted)
          : this.choice === 'held'
            ? first(held, live, deleted)
            : first(free, live, deleted);
    const input = pickOf(pool, this.pick)!;
    this.target = input.label;
    const res = await r.t.request('DELETE', `/v1/media/inputs/${segment(input.id, 'input id')}`);
    if (res.status === 429) return;
    // A repeated delete may answer 2xx (idempotent) or a refusal (judging.md); the input stays deleted,
    // and a job referencing it must still be refused (CreateJob, deleted-ref).
    if (input.deleted) return;
    const holding = holders(m, input.id);
    if (!m.jobs.some((j) => j.refs.includes(input.id)))
      judged(
        r,
        holds(is2xx(res.status), {
          id: 'MIN-009',
          message: `deleting ${input.label}, which no job references, was answered ${res.status}`,
          received: res.status,
          expected: '2xx',
        }),
        res,
      );
    if (is2xx(res.status)) input.deleted = true;
    // A job that reads active after the delete was active at it (no ended job becomes active again):
    // the delete had to be refused, and its refusal then met the rule. A job read ended tells neither.
    for (const job of holding) {
      const status = await readJob(r, job);
      if (!status || !ACTIVE.includes(status)) continue;
      judged(
        r,
        holds(!is2xx(res.status), {
          id: 'MIN-010',
          message: `deleting ${input.label} succeeded (${res.status}) while ${job.label}, which references it, reads ${status}`,
          received: res.status,
          expected: 'a 4xx refusal while the job is active',
        }),
        res,
      );
      return;
    }
  }

  toString(): string {
    return named(this.choice === 'again' ? 'delete (again)' : 'delete', this.target, this.pick, 'input');
  }
}
