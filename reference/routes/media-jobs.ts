// POST /v1/media/jobs and GET /v1/media/jobs/{job_id}: MediaJobCreate validated (media/validate.ts),
// a points hold placed on creation, Idempotency-Key replays of the same job, and reads that show the
// time-driven lifecycle (media/store.ts), in the legacy currency format too. Variant create-drop-once
// creates the first job of each Idempotency-Key, then drops the connection without an answer.
import type { FastifyInstance } from 'fastify';
import { available, newId } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { canonicalJson, lookupKey, markReplayed, refuseKey } from '../inference.ts';
import { sendJson, wantsLegacy } from '../legacy.ts';
import { mediaCatalog } from '../media/catalog.ts';
import {
  inputKey,
  jobStepMs,
  type MediaJob,
  type MediaStore,
  noteRead,
  placeHold,
  settleDue,
  statusOf,
} from '../media/store.ts';
import { outputOf } from '../media/table.ts';
import { isUpload } from '../media/upload.ts';
import { underStudioName, validateJob } from '../media/validate.ts';
import { FAIL_MARKER, jobView, quoteOf, scaledQuoteOf, UNCERTAIN_MARKER } from '../media/view.ts';
import { raceWindow } from '../race.ts';
import { isVariant } from '../reach.ts';
import type { Account } from '../state.ts';
import { callerOf } from './caller.ts';

const PATH = '/v1/media/jobs';
/** Variant job-reads-overloaded: how often a read of a job is answered 503, and the reads per server. */
const JOB_READ_503_EVERY = 4;
const jobReads = new WeakMap<object, number>();
/** Variant video-jobs-outlast-tests: how long a video job takes (its matrix row's test timeout is 15 s). */
const VIDEO_OUTLASTS_MS = 25_000;
/** Variant job-ids-per-tenant: the finished jobs each account but the primary one holds from before the run. */
const JOB_HISTORY = 2000;

/** Faults under which a replay of a job in the given status creates a new job and hold. */
const REPLAY_NEW: Record<string, string> = {
  'settlement-replay-new-job': 'settlement_pending',
  'uncertain-replay-new-job': 'submission_uncertain',
};
/** Faults under which a read of a job in the given status answers 404. */
const READ_LOST: Record<string, string> = {
  'settlement-pending-lost': 'settlement_pending',
  'uncertain-job-lost': 'submission_uncertain',
};

export function registerMediaJobs(app: FastifyInstance, ctx: RefContext, store: MediaStore): void {
  // Decided per request, where it acts (variant reach: reference/reach.ts).
  const created = () => (isVariant(ctx, 'job-202') ? 202 : 201);

  // Fault job-key-global: the Idempotency-Keys of job creates kept in one store for every account.
  const globalKeys: Pick<Account, 'idempotency'> = { idempotency: new Map() };
  const keysOf = (account: Account) => (ctx.fault === 'job-key-global' ? globalKeys : account);
  // Variant job-ids-per-tenant: job and asset ids number each account's jobs from 1 (`job_3`, `asset_3`),
  // looked up in the caller's account, and every account but the primary one holds finished jobs from
  // before the run: another tenant's own `job_3` answers where the primary account's job_3 is asked for.
  const perTenant = () => isVariant(ctx, 'job-ids-per-tenant');
  const primaryAccount = ctx.state.keys.get(ctx.state.roleKeys.primary ?? '')?.account.id;
  const seeded = new Set<string>();
  const withHistory = (account: Account) => {
    if (!perTenant() || account.id === primaryAccount || seeded.has(account.id)) return;
    seeded.add(account.id);
    const start = Date.UTC(2026, 0, 1);
    for (let n = 1; n <= JOB_HISTORY; n++) {
      const job: MediaJob = {
        id: `job_${n}`,
        accountId: account.id,
        model: 'wc-100010',
        kind: 'image_generation',
        kindSent: false,
        output: 'image',
        format: 'jpeg',
        referenceIds: [],
        createdMs: start + n * 1000,
        createdAt: new Date(start + n * 1000).toISOString(),
        quote: '0',
        hold: '0',
        fails: false,
        uncertain: false,
        assetId: `asset_${n}`,
        settlement: 'charged',
        charged: '0',
        released: '0',
        stepMs: 1,
      };
      store.jobs.set(inputKey(true, account.id, job.id), job);
      store.assets.set(inputKey(true, account.id, job.assetId), inputKey(true, account.id, job.id));
    }
  };

  app.post(PATH, async (request, reply) => {
    const account = callerOf(request).account;
    withHistory(account);
    if (Buffer.isBuffer(request.body) || isUpload(request.body))
      return sendError(reply, ctx, 'unsupported_media_type', 'The body of a media job is JSON.');
    const found = lookupKey(ctx, request, keysOf(account), `POST ${PATH}\n${canonicalJson(request.body)}`);
    const refused = refuseKey(reply, ctx, found);
    if (refused) return refused;
    const stored = found.kind === 'stored' ? found : undefined;
    // Fault race-job-double: a window between the key lookup and the write that stores the key.
    if (found.kind === 'new' && ctx.fault === 'race-job-double') await raceWindow(ctx);
    let now = Date.now();
    const storedJob = stored ? (store.jobs.get(stored.result as string) as MediaJob) : undefined;
    if (storedJob) settleDue(store, account, now);
    // Faults settlement-replay-new-job and uncertain-replay-new-job: a replay of a job in that status
    // runs as a new job.
    // Fault legacy-job-reexecute: a replay in the legacy currency format runs as a new job.
    const replayNew =
      ctx.fault === 'job-replay-new' ||
      (storedJob !== undefined && ctx.fault === 'legacy-job-reexecute' && wantsLegacy(ctx, request)) ||
      (storedJob !== undefined &&
        ctx.fault !== undefined &&
        REPLAY_NEW[ctx.fault] === statusOf(ctx, storedJob, now).status);
    // Variant settlement-replay-refused: "do not generate again" read as a refusal of any repeat of a
    // settlement_pending job's create (409), instead of answering that job.
    // Variant uncertain-replay-refused: the same for a submission_uncertain job's repeat.
    const storedStatus = storedJob && statusOf(ctx, storedJob, now).status;
    if (
      (isVariant(ctx, 'settlement-replay-refused') && storedStatus === 'settlement_pending') ||
      (isVariant(ctx, 'uncertain-replay-refused') && storedStatus === 'submission_uncertain')
    )
      return sendError(
        reply,
        ctx,
        'idempotency_conflict',
        'This job was already created with this key; do not generate again.',
      );
    // Fault replay-releases-input: a replay forgets the job's references, so they can be deleted.
    if (storedJob && !replayNew && ctx.fault === 'replay-releases-input') storedJob.referenceIds = [];
    if (storedJob && !replayNew)
      return sendJson(
        ctx,
        request,
        markReplayed(reply.code(created()), ctx),
        storedJob.storedReply ?? jobView(ctx, storedJob, now),
      );

    const outcome = validateJob(ctx, store, account, mediaCatalog(ctx, account), request.body);
    if ('error' in outcome) {
      const kind =
        outcome.error === 'not_found'
          ? 'model_not_found'
          : outcome.error === 'unknown_input'
            ? 'not_found'
            : outcome.error === 'forbidden'
              ? 'model_not_allowed'
              : outcome.error === 'malformed'
                ? 'validation_error'
                : ctx.fault === 'invalid-code'
                  ? 'bad_parameter'
                  : 'invalid_request';
      return sendError(reply, ctx, kind, outcome.message);
    }
    const spec = outcome.job;
    // Fault race-delete-vs-job: a window between the check of the references and the job that holds them.
    if (ctx.fault === 'race-delete-vs-job' && spec.references.length > 0) {
      await raceWindow(ctx);
      now = Date.now();
    }
    const output = outputOf(spec.def);
    const fails = spec.prompt.includes(FAIL_MARKER);
    const uncertain = spec.prompt.includes(UNCERTAIN_MARKER);
    ctx.beforeHold?.({
      model: spec.model,
      prompt: spec.prompt,
      references: spec.references.length,
      fails,
      uncertain,
    });
    const quote = ctx.mediaPricing === 'scaled' ? scaledQuoteOf(spec.def, spec.parameters) : quoteOf(output);
    // Variant unaffordable-job-402: a job whose quote the available points cannot cover is refused at its
    // creation (no hold, no settlement_pending; the refusal's status is not stated).
    if (isVariant(ctx, 'unaffordable-job-402') && available(account).lt(quote))
      return sendError(reply, ctx, 'insufficient_points', 'The available points do not cover this job.');
    const job: MediaJob = {
      id: perTenant()
        ? `job_${[...store.jobs.values()].filter((j) => j.accountId === account.id).length + 1}`
        : newId('job_'),
      accountId: account.id,
      model: spec.model,
      kind: spec.kind,
      kindSent: spec.kindSent,
      output,
      format: spec.format,
      // Fault studio-ids-not-held: references sent under the equivalent name do not hold their inputs.
      referenceIds:
        ctx.fault === 'studio-ids-not-held' && underStudioName(spec.parameters)
          ? []
          : spec.references.map((input) => input.id),
      createdMs: now,
      createdAt: new Date(now).toISOString(),
      quote,
      hold: placeHold(account, quote),
      fails,
      uncertain,
      assetId: perTenant()
        ? `asset_${[...store.jobs.values()].filter((j) => j.accountId === account.id).length + 1}`
        : newId('asset_'),
      settlement: 'open',
      charged: '0',
      released: '0',
      // Variant video-jobs-outlast-tests: a video job takes 25 s (4 stages).
      stepMs:
        output === 'video' && isVariant(ctx, 'video-jobs-outlast-tests')
          ? VIDEO_OUTLASTS_MS / 4
          : jobStepMs(store, output),
    };
    const jobKey = inputKey(perTenant(), account.id, job.id);
    store.jobs.set(jobKey, job);
    store.assets.set(inputKey(perTenant(), account.id, job.assetId), jobKey);
    // Variant usage-job-record-early: the job's usage record is listed from its creation, charging zero
    // until its settlement writes the charge into it (store.ts settle).
    // Variant usage-job-record-bare: so too, its charge null until then.
    if (isVariant(ctx, 'usage-job-record-early') || isVariant(ctx, 'usage-job-record-bare'))
      account.usage.push({
        id: newId('usage_'),
        requestId: job.id,
        endpoint: '/v1/media/jobs',
        model: job.model,
        promptTokens: 0,
        completionTokens: 0,
        prices: { request: '0', response: '0' },
        chargedPoints: '0',
        createdAt: job.createdAt,
        jobId: job.id,
        unsettled: true,
      });
    // Fault legacy-job-unrecorded: a create made in the legacy currency format is not kept under its key
    // (the store is written by the points format's path only), so its replay is a new job.
    const unrecorded = ctx.fault === 'legacy-job-unrecorded' && wantsLegacy(ctx, request);
    if (found.kind === 'new') {
      if (!unrecorded)
        keysOf(account).idempotency.set(found.key, { fingerprint: found.fingerprint, result: jobKey });
      // Variant create-drop-once: the job exists and its key is kept, but no answer is sent.
      if (isVariant(ctx, 'create-drop-once')) {
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      }
    }
    const view = jobView(ctx, job, now);
    // Fault job-create-model-substituted: the create's answer names another documented model than asked.
    if (ctx.fault === 'job-create-model-substituted' && typeof view.model === 'string')
      view.model = view.model === 'wc-100010' ? 'wc-100011' : 'wc-100010';
    // Variant job-replay-stored: the reply is stored with the key and a repeated create answers it as it was.
    if (isVariant(ctx, 'job-replay-stored')) job.storedReply = view;
    return sendJson(ctx, request, reply.code(created()), view);
  });

  app.get(`${PATH}/:job_id`, async (request, reply) => {
    const account = callerOf(request).account;
    const { job_id: id } = request.params as { job_id: string };
    withHistory(account);
    const job = store.jobs.get(inputKey(perTenant(), account.id, id));
    if (!job) return sendError(reply, ctx, 'not_found', `No media job ${id}.`);
    if (job.accountId !== account.id && ctx.fault !== 'asset-other-tenant') {
      if (isVariant(ctx, 'foreign-ids-403'))
        return sendError(reply, ctx, 'resource_forbidden', 'This media job belongs to another account.');
      return sendError(reply, ctx, 'not_found', `No media job ${id}.`);
    }
    // Variant job-reads-overloaded: every JOB_READ_503_EVERY-th read of a job by its owner meets an overloaded
    // store and is answered 503 (judging.md: "a 502/503/504" is advisory).
    if (isVariant(ctx, 'job-reads-overloaded')) {
      const n = (jobReads.get(ctx) ?? 0) + 1;
      jobReads.set(ctx, n);
      if (n % JOB_READ_503_EVERY === 0)
        return sendError(reply, ctx, 'overloaded', 'The job store is busy; read the job again shortly.');
    }
    const now = Date.now();
    const owner = ctx.state.accounts.find((a) => a.id === job.accountId);
    if (owner) settleDue(store, owner, now);
    const view = statusOf(ctx, job, now);
    noteRead(job, view, now);
    // Faults settlement-pending-lost and uncertain-job-lost: a job in that status cannot be read.
    if (ctx.fault !== undefined && READ_LOST[ctx.fault] === view.status)
      return sendError(reply, ctx, 'not_found', `No media job ${id}.`);
    const body = jobView(ctx, job, now);
    // Fault job-read-fields-dropped: a read of the job leaves out its kind and model.
    if (ctx.fault === 'job-read-fields-dropped') {
      delete body.kind;
      delete body.model;
    }
    return sendJson(ctx, request, reply, body);
  });
}
