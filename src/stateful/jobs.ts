/** Reading a job the model follows: every read is held against the statuses it showed before. */
import { isPlainObject } from '../checks/json.ts';
import type { HttpResponse } from '../http/client.ts';
import { segment } from '../http/segment.ts';
import type { JobRecord } from './account-state.ts';
import { assetIdProblem, isReplaySnapshot, statusProblem } from './invariants.ts';
import { is2xx, judged, type Real } from './real.ts';

/** MJOB-025 and MJOB-021 on one reply carrying the job; the model then remembers the status. */
export function observeJob(r: Real, job: JobRecord, res: HttpResponse, replay = false): string | undefined {
  if (!is2xx(res.status) || !isPlainObject(res.json) || typeof res.json.status !== 'string') return undefined;
  const status = res.json.status;
  judged(r, assetIdProblem(job.label, res.json), res);
  // A repeated create may answer the reply stored with its Idempotency-Key: a status the job already
  // showed is that snapshot, not a change (isReplaySnapshot).
  if (replay && isReplaySnapshot(job.seen, status)) return status;
  judged(r, statusProblem(job.label, job.seen, status), res);
  if (job.seen.at(-1) !== status) job.seen.push(status);
  if (typeof res.json.asset_id === 'string') job.assetId = res.json.asset_id;
  return status;
}

export async function readJob(r: Real, job: JobRecord): Promise<string | undefined> {
  const res = await r.t.get(`/v1/media/jobs/${segment(job.id, 'job id')}`);
  return observeJob(r, job, res);
}
