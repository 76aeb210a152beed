import { type AccountModel, pickOf } from '../account-state.ts';
import { readJob } from '../jobs.ts';
import type { Real } from '../real.ts';
import { named, Step } from './step.ts';

/** One GET /v1/media/jobs/{id}: the status is held against the job's history (MJOB-025, MJOB-021). */
export class PollJob extends Step {
  constructor(readonly pick: number) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return m.jobs.length > 0;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const job = pickOf(m.jobs, this.pick)!;
    this.target = job.label;
    await readJob(r, job);
  }

  toString(): string {
    return named('poll', this.target, this.pick, 'job');
  }
}
