// POST /v1/media/inputs and DELETE /v1/media/inputs/{input_id}: raw uploads checked against their
// real content (type, pixels 1..8192, H.264 video of 1 to 30 s), the shared 10 GiB account quota
// (released one step after a delete, once "cleanup is confirmed"), Idempotency-Key replays, and
// deletes refused while an active job references the input.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { newId } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { type ErrorKind, sendError } from '../errors.ts';
import { lookupKey, markReplayed, refuseKey } from '../inference.ts';
import { isH264, type Measured, measure } from '../media/sniff.ts';
import {
  inputKey,
  isActive,
  type MediaInput,
  type MediaJob,
  type MediaStore,
  statusOf,
  usedBytes,
} from '../media/store.ts';
import { isUpload, type Upload } from '../media/upload.ts';
import { upperMs, VIDEO_MS } from '../media/validate.ts';
import { raceWindow } from '../race.ts';
import { isVariant } from '../reach.ts';
import type { Account } from '../state.ts';
import { callerOf } from './caller.ts';

const PATH = '/v1/media/inputs';
/** Variant input-ids-per-tenant: the ready inputs the primary account holds from before the run. */
const INPUT_HISTORY = 30;
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
};

type Refusal = { error: ErrorKind; message: string };

/** The coding each coding fault refuses (Measured.coding). */
const REFUSED_CODING: Record<string, string> = {
  'upload-refuses-progressive-jpeg': 'jpeg-progressive',
  'upload-refuses-lossless-webp': 'webp-lossless',
  'webp-alpha-refused': 'webp-alpha',
  'png-alpha-refused': 'png-alpha',
  'upload-refuses-moov-last': 'mp4-moov-last',
};

/** Why the upload cannot become a ready input, or undefined. */
function uploadProblem(ctx: RefContext, declared: string, m: Measured): Refusal | undefined {
  const invalid = (message: string): Refusal => ({ error: 'invalid_request', message });
  // Faults upload-refuses-* and *-alpha-refused: one coding of a format is taken for another type.
  const refused = REFUSED_CODING[ctx.fault ?? ''];
  if (refused && m.coding === refused) return invalid(`The bytes are not ${declared} (${refused}).`);
  // Variant sniff-at-job defers the type and codec checks to job creation; fault sniff-skipped drops them.
  const deferred = isVariant(ctx, 'sniff-at-job');
  if (!deferred && ctx.fault !== 'sniff-skipped' && m.realType !== declared)
    return invalid(`The bytes are ${m.realType ?? 'of no supported type'}, not ${declared}.`);
  const video = declared === 'video/mp4';
  if (m.width === undefined || m.height === undefined)
    return invalid(video ? 'No readable video track.' : 'The image dimensions cannot be read.');
  // Faults edge-8193 (an 8193-pixel edge accepted) and edge-8192-refused (the bound itself refused).
  const edge = ctx.fault === 'edge-8193' ? 8193 : ctx.fault === 'edge-8192-refused' ? 8191 : 8192;
  // Fault edge-height-unchecked: only the width is held to the edge bound.
  const heightEdge = ctx.fault === 'edge-height-unchecked' ? Number.POSITIVE_INFINITY : edge;
  if (m.width < 1 || m.height < 1 || m.width > edge || m.height > heightEdge)
    return invalid(`Width and height must be 1 to 8192 pixels, got ${m.width}x${m.height}.`);
  if (!video) return undefined;
  if (!deferred && ctx.fault !== 'hevc-accepted' && !isH264(m.codec))
    return invalid(`Video must be H.264 (avc1) MP4, got ${m.codec}.`);
  const max = ctx.fault === 'video-31s' ? 31000 : VIDEO_MS.max;
  if (m.durationMs === undefined || m.durationMs < VIDEO_MS.min || upperMs(ctx, m.durationMs) > max)
    return invalid(`Video must last 1 to 30 s, got ${m.durationMs} ms.`);
  return undefined;
}

function envelope(ctx: RefContext, store: MediaStore, account: Account, input: MediaInput): object {
  const image = input.contentType !== 'video/mp4';
  return {
    object: 'media_input',
    input: {
      id: input.id,
      filename: input.filename,
      content_type: input.contentType,
      size_bytes: input.sizeBytes,
      width_pixels: input.width,
      height_pixels: input.height,
      duration_ms: image && ctx.fault === 'image-duration-nonzero' ? 1 : input.durationMs,
      sha256: ctx.fault === 'sha-uppercase' ? input.sha256.toUpperCase() : input.sha256,
      status: 'ready',
      // Fault available-at-epoch: the time as epoch seconds in a string, not a date-time.
      available_at:
        ctx.fault === 'available-at-epoch'
          ? String(Math.floor(Date.parse(input.availableAt) / 1000))
          : input.availableAt,
      // Fault expires-on-new: "new ready inputs have none".
      ...(ctx.fault === 'expires-on-new'
        ? { expires_at: new Date(Date.parse(input.availableAt) + 30 * 86400_000).toISOString() }
        : {}),
    },
    // Fault envelope-extra-field: the closed envelope gains a field.
    ...(ctx.fault === 'envelope-extra-field'
      ? { quota_remaining_bytes: account.inputQuotaBytes - usedBytes(store, account.id) }
      : {}),
  };
}

function filenameOf(header: unknown, declared: string): string {
  if (typeof header === 'string' && header.trim() !== '' && header.length <= 255) return header.trim();
  return `upload.${EXTENSIONS[declared]}`;
}

export function registerMediaInputs(app: FastifyInstance, ctx: RefContext, store: MediaStore): void {
  // Fault input-owned-by-key: the key each input was uploaded with, by input id.
  const uploaderOf = new Map<string, string>();
  // Variant input-ids-per-tenant: input ids number each account's inputs from 1 (`in_3`), and the primary
  // account holds ready inputs from before the run (in_1 to in_30), so that another tenant's new input
  // has the id of one of the primary account's own.
  const perTenant = () => isVariant(ctx, 'input-ids-per-tenant');
  const primaryAccount = ctx.state.keys.get(ctx.state.roleKeys.primary ?? '')?.account.id;
  let seeded = false;
  const withHistory = () => {
    if (seeded || !perTenant() || primaryAccount === undefined) return;
    seeded = true;
    for (let n = 1; n <= INPUT_HISTORY; n++) {
      const input: MediaInput = {
        id: `in_${n}`,
        accountId: primaryAccount,
        filename: `earlier-${n}.png`,
        contentType: 'image/png',
        realType: 'image/png',
        codec: null,
        sizeBytes: 1024,
        width: 64,
        height: 48,
        durationMs: 0,
        sha256: createHash('sha256').update(`earlier input ${n}`).digest('hex'),
        availableAt: new Date(Date.UTC(2026, 0, n)).toISOString(),
      };
      store.inputs.set(inputKey(true, primaryAccount, input.id), input);
    }
  };
  /** An account's next input id under the variant. */
  const nextId = (account: Account) =>
    `in_${[...store.inputs.values()].filter((i) => i.accountId === account.id).length + 1}`;
  // Decided per request, where it acts (variant reach: reference/reach.ts).
  const send = (reply: FastifyReply, body: object) =>
    reply
      .code(isVariant(ctx, 'input-200') ? 200 : 201)
      .type('application/json; charset=utf-8')
      .send(body);
  // Fault race-upload-coalesce: the upload in flight per account and content, settled with its input id.
  const inflight = new Map<string, Promise<string | undefined>>();
  // Fault upload-key-global: the Idempotency-Keys of uploads kept in one store for every account.
  const globalKeys: Pick<Account, 'idempotency'> = { idempotency: new Map() };
  const keysOf = (account: Account) => (ctx.fault === 'upload-key-global' ? globalKeys : account);

  app.post(PATH, async (request, reply) => {
    const account = callerOf(request).account;
    withHistory();
    const upload = request.body;
    // Fault uploads-refused: every upload is refused as of an unsupported type, the valid ones too.
    if (!isUpload(upload) || ctx.fault === 'uploads-refused')
      return sendError(
        reply,
        ctx,
        'unsupported_media_type',
        'The body is the raw file with Content-Type image/png, image/jpeg, image/webp or video/mp4.',
      );
    // Fault empty-upload-accepted: an empty body is taken (as an image of one pixel, below).
    if (upload.size === 0 && ctx.fault !== 'empty-upload-accepted')
      return sendError(reply, ctx, 'invalid_request', 'The body is empty.');

    const fingerprint = `POST ${PATH}\n${upload.declared}\n${upload.sha256}`;
    const found = lookupKey(ctx, request, keysOf(account), fingerprint);
    const refused = refuseKey(reply, ctx, found);
    if (refused) return refused;
    const stored = found.kind === 'stored' ? found : undefined;
    // Variant upload-replay-refused: a replay (the same key and bytes) is refused 409, as already done.
    if (stored && isVariant(ctx, 'upload-replay-refused'))
      return sendError(reply, ctx, 'idempotency_conflict', 'This upload was already made with this key.');
    if (stored && ctx.fault !== 'upload-replay-new') {
      const input = store.inputs.get(stored.result as string) as MediaInput;
      // Fault replay-envelope-extra: a replay's closed envelope says it is one.
      const extra = ctx.fault === 'replay-envelope-extra' ? { replayed: true } : {};
      return send(markReplayed(reply, ctx), { ...envelope(ctx, store, account, input), ...extra });
    }

    // Fault race-upload-coalesce: an upload of the same bytes while another is in flight answers that
    // one's input, whatever its key; the first one opens the window.
    let settle: ((id: string | undefined) => void) | undefined;
    if (ctx.fault === 'race-upload-coalesce') {
      const flight = `${account.id}\n${upload.sha256}`;
      const first = inflight.get(flight);
      const shared = first && store.inputs.get((await first) ?? '');
      if (shared) return send(reply, envelope(ctx, store, account, shared));
      if (!first) {
        inflight.set(
          flight,
          new Promise((resolve) => {
            settle = resolve;
          }),
        );
        reply.raw.once('close', () => {
          inflight.delete(flight);
          settle?.(undefined);
        });
        await raceWindow(ctx);
      }
    }
    // Fault race-upload-double: a window between the key lookup and the write that stores the key.
    if (found.kind === 'new' && ctx.fault === 'race-upload-double') await raceWindow(ctx);
    const measured = await measure(upload.bytes, upload.declared);
    if (upload.size === 0) Object.assign(measured, { realType: upload.declared, width: 1, height: 1 });
    // Fault duration-rounded-to-seconds: whole seconds, as stored, reported and validated.
    if (ctx.fault === 'duration-rounded-to-seconds' && measured.durationMs !== undefined)
      measured.durationMs = Math.round(measured.durationMs / 1000) * 1000;
    // Another request with this key may have created the input while this one was measured: replay it.
    const settled = found.kind === 'new' ? lookupKey(ctx, request, keysOf(account), fingerprint) : undefined;
    if (settled?.kind === 'conflict' && ctx.fault !== 'race-upload-double')
      return refuseKey(reply, ctx, settled);
    if (settled?.kind === 'stored' && ctx.fault !== 'race-upload-double') {
      const input = store.inputs.get(settled.result as string) as MediaInput;
      return send(markReplayed(reply, ctx), envelope(ctx, store, account, input));
    }
    const refusal = uploadProblem(ctx, upload.declared, measured);
    if (refusal) return sendError(reply, ctx, refusal.error, refusal.message);
    const left = account.inputQuotaBytes - usedBytes(store, account.id);
    // Fault quota-images-only: a video upload is not held to the quota.
    const unmetered =
      ctx.fault === 'quota-ignored' || (ctx.fault === 'quota-images-only' && upload.declared === 'video/mp4');
    if (upload.size > left && !unmetered)
      return sendError(
        reply,
        ctx,
        'input_quota_exceeded',
        `The input quota has ${Math.max(left, 0)} bytes left; delete inputs to free space.`,
      );
    const input = createInput(request.headers['x-filename'], upload, measured, account);
    if (perTenant()) input.id = nextId(account);
    const key = inputKey(perTenant(), account.id, input.id);
    // Fault input-id-161: input ids one byte over the 160 a reference id may have.
    if (ctx.fault === 'input-id-161') input.id = input.id.padEnd(161, '0');
    store.inputs.set(key, input);
    uploaderOf.set(input.id, callerOf(request).value);
    settle?.(key);
    if (found.kind === 'new') keysOf(account).idempotency.set(found.key, { fingerprint, result: key });
    return send(reply, envelope(ctx, store, account, input));
  });

  app.delete(`${PATH}/:input_id`, async (request, reply) => {
    const account = callerOf(request).account;
    const { input_id: id } = request.params as { input_id: string };
    withHistory();
    const input = store.inputs.get(inputKey(perTenant(), account.id, id));
    // Variant input-delete-idempotent: the owner's repeated delete of a deleted input succeeds again.
    if (
      isVariant(ctx, 'input-delete-idempotent') &&
      input?.deletedAt !== undefined &&
      input.accountId === account.id
    )
      return reply.code(204).send();
    if (!input || input.deletedAt !== undefined) return sendError(reply, ctx, 'not_found', `No input ${id}.`);
    // Fault input-owned-by-key: an input is the key's that uploaded it, not the tenant's: another key of
    // the same account is answered as for a foreign input.
    const otherKey = ctx.fault === 'input-owned-by-key' && uploaderOf.get(id) !== callerOf(request).value;
    if (input.accountId !== account.id || otherKey) {
      const kind = isVariant(ctx, 'foreign-ids-403') ? 'resource_forbidden' : 'not_found';
      return sendError(reply, ctx, kind, kind === 'not_found' ? `No input ${id}.` : 'Not your input.');
    }
    const now = Date.now();
    // Variant account-runs-out: a job waiting for points (settlement_pending) still holds its inputs
    // (the contract defines "active" no further; a settlement_pending job is kept alive).
    // Variant inputs-held-by-failed-jobs: a failed job keeps its inputs ("active" is defined no further
    // than authorizing, queued, running and output_fetching: either outcome for the other statuses).
    const holds = (job: MediaJob) =>
      isActive(ctx, job, now) ||
      (isVariant(ctx, 'account-runs-out') && statusOf(ctx, job, now).status === 'settlement_pending') ||
      (isVariant(ctx, 'inputs-held-by-failed-jobs') && statusOf(ctx, job, now).status === 'failed');
    const inUse = [...store.jobs.values()].some(
      (job) => job.referenceIds.includes(id) && (!perTenant() || job.accountId === account.id) && holds(job),
    );
    // Fault deletes-refused: every delete is refused as in use, of an input no job references too.
    if ((inUse && ctx.fault !== 'delete-while-active') || ctx.fault === 'deletes-refused')
      return sendError(reply, ctx, 'input_in_use', `The input ${id} is referenced by an active media job.`);
    // Fault race-delete-vs-job: a window between the check for active jobs and the delete itself.
    if (ctx.fault === 'race-delete-vs-job') await raceWindow(ctx);
    input.deletedAt = Date.now();
    return reply.code(204).send();
  });
}

function createInput(filename: unknown, upload: Upload, m: Measured, account: Account): MediaInput {
  return {
    id: newId('in_'),
    accountId: account.id,
    filename: filenameOf(filename, upload.declared),
    contentType: upload.declared,
    realType: m.realType,
    codec: m.codec ?? null,
    sizeBytes: upload.size,
    width: m.width as number,
    height: m.height as number,
    durationMs: upload.declared === 'video/mp4' ? (m.durationMs as number) : 0,
    sha256: upload.sha256,
    availableAt: new Date().toISOString(),
  };
}
