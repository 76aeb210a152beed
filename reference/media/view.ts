// The MediaJob as sent: status and progress computed now, points of its hold and settlement.
import type { RefContext } from '../context.ts';
import { type MediaJob, statusOf } from './store.ts';

export const FAIL_MARKER = 'CONFORMANCE_FAIL_JOB';
/** Capability media-uncertain-prompt: the job reads submission_uncertain instead of queued. */
export const UNCERTAIN_MARKER = 'CONFORMANCE_UNCERTAIN_JOB';

/** The job's price: what its hold reserves and what success charges. */
export function quoteOf(output: MediaJob['output']): string {
  if (output === 'video') return '3.125';
  if (output === 'glb') return '1.5';
  return '0.75';
}

const TERMINAL = ['succeeded', 'failed', 'settlement_pending'];

function progressOf(ctx: RefContext, job: MediaJob, status: string, now: number): object {
  const observedAt = new Date(now).toISOString();
  if (ctx.variant !== 'progress-object') return { stage: status, observed_at: observedAt };
  const end = job.createdMs + (job.fails ? 3 : 4) * job.stepMs;
  const eta = TERMINAL.includes(status) ? 0 : Math.max(0, Math.ceil((end - now) / 1000));
  return { phase: status, updated_at: observedAt, eta_seconds: eta };
}

export function jobView(ctx: RefContext, job: MediaJob, now: number): Record<string, unknown> {
  let { status, percent } = statusOf(ctx, job, now);
  // Fault failed-flips: once a job was read as failed, later reads show it running again.
  if (ctx.fault === 'failed-flips' && status === 'failed') {
    if (job.failedShown) [status, percent] = ['running', 50];
    job.failedShown = true;
  }
  const settled = job.settlement === 'charged' || job.settlement === 'released';
  return {
    id: job.id,
    status,
    // Fault kind-missing: no kind when the request sent none.
    ...(ctx.fault === 'kind-missing' && !job.kindSent ? {} : { kind: job.kind }),
    model: job.model,
    ...(status === 'succeeded' && ctx.fault !== 'succeeded-no-asset' ? { asset_id: job.assetId } : {}),
    ...(status === 'failed'
      ? { error_code: 'generation_failed', error_message: 'The provider could not generate the output.' }
      : {}),
    progress: progressOf(ctx, job, status, now),
    progress_percent: percent,
    pending_points: settled ? '0' : job.hold,
    ...(settled ? { charged_points: job.charged, released_points: job.released } : {}),
    created_at: job.createdAt,
  };
}
