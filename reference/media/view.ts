// The MediaJob as sent: status and progress computed now, points of its hold and settlement.
import { Decimal } from 'decimal.js';
import { spendShown, spendUnreported } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { isVariant } from '../reach.ts';
import { type MediaJob, statusOf } from './store.ts';
import { type ModelDef, outputOf } from './table.ts';

export const FAIL_MARKER = 'CONFORMANCE_FAIL_JOB';
/** Capability media-uncertain-prompt: the job reads submission_uncertain first (store.ts uncertainUntil). */
export const UNCERTAIN_MARKER = 'CONFORMANCE_UNCERTAIN_JOB';

/** The job's price: what its hold reserves and what success charges. */
export function quoteOf(output: MediaJob['output']): string {
  if (output === 'video') return '3.125';
  if (output === 'glb') return '1.5';
  return '0.75';
}

/** Option mediaPricing 'scaled': the flat quote is that of a 4 s 720p video without audio, a 1-megapixel image. */
const VIDEO_RESOLUTION: Record<string, number> = { '480p': 0.5, '720p': 1, '1080p': 2.25 };
const IMAGE_RESOLUTION: Record<string, number> = { '0.5k': 0.25, '1k': 1, '2k': 4, '3k': 9, '4k': 16 };
const QUALITY: Record<string, number> = { low: 0.5, medium: 1, auto: 1, high: 1.5, xhigh: 2, max: 3 };

/**
 * A price like a real deployment's (option mediaPricing 'scaled'): video by seconds x resolution, 25%
 * more with audio; images by megapixels (of a custom size, a named `auto_NK` preset or `resolution`,
 * else 1) and quality; 3D flat. Parameters left out count at the model's defaults.
 */
export function scaledQuoteOf(def: ModelDef, sent: Record<string, unknown>): string {
  const value = (name: string) => sent[name] ?? def.parameters[name]?.default;
  const output = outputOf(def);
  const flat = new Decimal(quoteOf(output));
  if (output === 'video') {
    const seconds = typeof value('duration') === 'number' ? (value('duration') as number) : 4;
    const res = VIDEO_RESOLUTION[String(value('resolution')).toLowerCase()] ?? 1;
    return flat
      .times(seconds / 4)
      .times(res)
      .times(value('generate_audio') === true ? 1.25 : 1)
      .toDecimalPlaces(6)
      .toString();
  }
  if (output !== 'image') return flat.toString();
  const size = String(value('size') ?? '');
  const dims = /^(\d+)[x*](\d+)$/.exec(size);
  const named = /^auto_(\d)K$/.exec(size);
  const megapixels = dims
    ? (Number(dims[1]) * Number(dims[2])) / 2 ** 20
    : named
      ? Number(named[1]) ** 2
      : (IMAGE_RESOLUTION[String(value('resolution')).toLowerCase()] ?? 1);
  return flat
    .times(megapixels)
    .times(QUALITY[String(value('quality'))] ?? 1)
    .toDecimalPlaces(6)
    .toString();
}

const pointsOut = (ctx: RefContext, v: string | undefined) => (v === undefined ? v : spendShown(ctx, v));

const TERMINAL = ['succeeded', 'failed', 'settlement_pending'];

function progressOf(ctx: RefContext, job: MediaJob, status: string, now: number): object {
  const observedAt = new Date(now).toISOString();
  if (!isVariant(ctx, 'progress-object')) return { stage: status, observed_at: observedAt };
  const end = job.createdMs + (job.fails ? 3 : 4) * job.stepMs;
  const eta = TERMINAL.includes(status) ? 0 : Math.max(0, Math.ceil((end - now) / 1000));
  return { phase: status, updated_at: observedAt, eta_seconds: eta };
}

/** Fault media-charged-misreported: a charged job shows 0.01 less than its settlement took. */
function chargedShown(ctx: RefContext, job: MediaJob): string {
  if (ctx.fault !== 'media-charged-misreported' || job.settlement !== 'charged') return job.charged;
  return new Decimal(job.charged).minus('0.01').toFixed();
}

export function jobView(ctx: RefContext, job: MediaJob, now: number): Record<string, unknown> {
  let { status, percent } = statusOf(ctx, job, now);
  // Fault failed-flips: once a job was read as failed, later reads show it running again.
  if (ctx.fault === 'failed-flips' && status === 'failed') {
    if (job.failedShown) [status, percent] = ['running', 50];
    job.failedShown = true;
  }
  // Variant succeeded-expires ("`succeeded` may later become `expired`"): once a job was read as succeeded,
  // later reads show it expired, and its asset is no longer served (routes/media-assets.ts).
  if (isVariant(ctx, 'succeeded-expires') && status === 'succeeded') {
    if (job.succeededShown) {
      status = 'expired';
      job.expired = true;
    }
    job.succeededShown = true;
  }
  const settled = job.settlement === 'charged' || job.settlement === 'released';
  return {
    id: job.id,
    status,
    // Fault kind-missing: no kind when the request sent none.
    // Fault job-kind-mismatch: a job reports a kind other than its model's catalog kind.
    ...(ctx.fault === 'kind-missing' && !job.kindSent
      ? {}
      : { kind: ctx.fault === 'job-kind-mismatch' ? otherKind(job.kind) : job.kind }),
    model: job.model,
    ...(status === 'succeeded' && ctx.fault !== 'succeeded-no-asset' ? { asset_id: job.assetId } : {}),
    // Fault failed-no-error: the failure's reason is not passed on.
    ...(status === 'failed' && ctx.fault !== 'failed-no-error'
      ? { error_code: 'generation_failed', error_message: 'The provider could not generate the output.' }
      : {}),
    // Fault job-progress-number: progress is the percent itself.
    progress: ctx.fault === 'job-progress-number' ? (percent ?? 0) : progressOf(ctx, job, status, now),
    progress_percent: percent,
    // Faults spend-numbers, points-numbers, spend-misreported: spendShown; variant spend-unreported
    // and fault spend-unmeasurable: no points fields.
    // Fault job-usage-unrecorded-unstated: a job reports no spend either (and writes no usage record).
    ...(spendUnreported(ctx) || ctx.fault === 'job-usage-unrecorded-unstated'
      ? {}
      : {
          pending_points: pointsOut(ctx, settled ? '0' : job.hold),
          ...(settled
            ? {
                // Fault settled-points-null: the settlement made, its charge shown as null.
                charged_points:
                  ctx.fault === 'settled-points-null' ? null : pointsOut(ctx, chargedShown(ctx, job)),
                released_points: pointsOut(ctx, job.released),
              }
            : // Variant points-null-until-settled: the settlement's fields present, null until it is made.
              isVariant(ctx, 'points-null-until-settled')
              ? { charged_points: null, released_points: null }
              : // Variant points-zero-until-settled: nothing charged nor released yet, said as "0".
                isVariant(ctx, 'points-zero-until-settled')
                ? { charged_points: pointsOut(ctx, '0'), released_points: pointsOut(ctx, '0') }
                : {}),
        }),
    created_at: job.createdAt,
  };
}

/** Another model kind than `kind` (fault job-kind-mismatch). */
const otherKind = (kind: string): string =>
  kind === 'video_generation' ? 'image_generation' : 'video_generation';
