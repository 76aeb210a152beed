import { isPlainObject } from '../../checks/json.ts';
import { type AccountModel, liveInputs, pickOf } from '../account-state.ts';
import { holds } from '../invariants.ts';
import { observeJob } from '../jobs.ts';
import { is2xx, judged, LEGACY, type Real } from '../real.ts';
import { named, Step } from './step.ts';

/**
 * The same job create again, with its Idempotency-Key and body (`legacy`: in the legacy currency
 * format): the same job, never a second one (MJOB-024); a refusal is no second job. A status it shows
 * that the job never showed is held against the job's history (MJOB-025); one it showed may be the reply
 * stored with the key.
 */
export class ReplayJob extends Step {
  /** `referencing`: preferably a job that references inputs the model has not deleted. */
  constructor(
    readonly pick: number,
    readonly legacy: boolean,
    readonly referencing: boolean,
  ) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return m.jobs.length > 0;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const holding = m.jobs.filter((j) => j.refs.some((id) => liveInputs(m).some((i) => i.id === id)));
    const job = pickOf(this.referencing && holding.length > 0 ? holding : m.jobs, this.pick)!;
    this.target = job.label;
    const res = await r.postJob(job.body, { 'idempotency-key': job.key, ...(this.legacy ? LEGACY : {}) });
    m.lastJob = job.id;
    if (!is2xx(res.status)) return;
    const id = isPlainObject(res.json) ? res.json.id : undefined;
    judged(
      r,
      holds(id === job.id, {
        id: 'MJOB-024',
        message: `repeating the create of ${job.label} with its Idempotency-Key and body${this.legacy ? ' (legacy currency format)' : ''} was answered ${res.status} with job ${JSON.stringify(id)}, not ${job.id}`,
        received: id,
        expected: job.id,
      }),
      res,
    );
    observeJob(r, job, res, true);
  }

  toString(): string {
    return named(
      `replay the create of${this.legacy ? ' (legacy format)' : ''}`,
      this.target,
      this.pick,
      'job',
    );
  }
}
