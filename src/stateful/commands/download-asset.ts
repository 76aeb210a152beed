import { assetOfSucceeded, sniff, watchJob } from '../../media-jobs.ts';
import { type AccountModel, pickOf } from '../account-state.ts';
import { assetProblem, isEnded } from '../invariants.ts';
import { observeJob, readJob } from '../jobs.ts';
import { is2xx, judged, type Real } from '../real.ts';
import { named, Step } from './step.ts';

/**
 * Poll a job to its end (at the target's interval, within its poll cap and the run's deadline; once per
 * run), then download the asset of a succeeded job: it must be a real file of the model's output
 * (MASSET-001; MJOB-021 and MJOB-025 on every read).
 */
export class DownloadAsset extends Step {
  constructor(readonly pick: number) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return !m.waited && m.jobs.length > 0;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    m.waited = true;
    // The oldest job that has not ended is the first to end: the shortest wait.
    const open = m.jobs.filter((j) => !isEnded(j.seen.at(-1)));
    const job = (this.pick % 2 === 0 ? open[0] : undefined) ?? pickOf(m.jobs, this.pick)!;
    this.target = job.label;
    let status = job.seen.at(-1);
    const waiting = () => !isEnded(status) && status !== 'settlement_pending';
    if (waiting())
      await watchJob(r.t, job.id, 'primary', (res) => {
        status = observeJob(r, job, res) ?? status;
        return !waiting() || Date.now() + r.t.target.media.pollIntervalMs > r.deadline;
      });
    if (status !== 'succeeded' || !job.assetId) return;
    const { res, expired } = await assetOfSucceeded(r.t, job.assetId, () => readJob(r, job));
    if (expired) return;
    if (!is2xx(res.status)) {
      judged(
        r,
        {
          id: 'MASSET-001',
          message: `the asset of the succeeded ${job.label} was answered ${res.status}`,
          received: res.status,
          expected: '2xx with the output bytes',
        },
        res,
      );
      return;
    }
    judged(r, assetProblem(job.label, job.output, job.format, await sniff(res.body), res.body), res);
  }

  toString(): string {
    return `${named('wait for the end of', this.target, this.pick, 'job')} and download its asset`;
  }
}
