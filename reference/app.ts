// Assembles the reference server: cross-cutting hooks, error mapping, then the area routes.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerAuth } from './auth.ts';
import { pathOf, type RefContext } from './context.ts';
import { type ErrorKind, errorResponse, sendError } from './errors.ts';
import { registerGuards } from './guards.ts';
import { registerInternal } from './internal.ts';
import { type JobDurations, mediaStore, settleDue } from './media/store.ts';
import { registerUploadParser } from './media/upload.ts';
import { buildOpenApi } from './openapi.ts';
import { describing, isVariant, registerReach } from './reach.ts';
import { registerBalance } from './routes/balance.ts';
import { registerChat } from './routes/chat.ts';
import { registerEmbeddings } from './routes/embeddings.ts';
import { registerLedger } from './routes/ledger.ts';
import { registerMediaAssets, registerMediaModels } from './routes/media-assets.ts';
import { registerMediaInputs } from './routes/media-inputs.ts';
import { registerMediaJobs } from './routes/media-jobs.ts';
import { registerModels } from './routes/models.ts';
import { registerPayments } from './routes/payments.ts';
import { registerPending } from './routes/pending.ts';
import { registerPublic } from './routes/public.ts';
import { registerResponses } from './routes/responses.ts';
import { registerTickets } from './routes/tickets.ts';
import { registerUsage } from './routes/usage.ts';
import { registerReuseClose, registerTransport } from './transport.ts';

/** The calls whose null members the variant null-as-omitted reads as left out. */
const NULL_AS_OMITTED = [
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/embeddings',
  '/v1/support/tickets',
  '/v1/payment-orders',
];

export interface AppOptions {
  latencyMs?: number;
  logger?: boolean;
  /** Duration of each media job stage (authorizing, queued, running, output_fetching); default 150. */
  mediaStepMs?: number;
  /** Whole media job durations by output kind (start option mediaJobMs). */
  mediaJobMs?: JobDurations;
  /** Fault transport-hang: how long a hanging request holds its socket; default 120 s. */
  hangLimitMs?: number;
}

/** Areas the reference implements beyond 501 stubs; grows as routes are added. */
export const CAPABILITIES = [
  'health',
  'status',
  'openapi',
  'models',
  'balance',
  'chat',
  'responses',
  'embeddings',
  'usage',
  'ledger',
  'legacy-currency',
  'idempotency',
  'tickets',
  'payments',
  'rate-limit',
  'media',
  // A prompt containing CONFORMANCE_FAIL_JOB makes the media job fail.
  'media-fail-prompt',
  // A prompt containing CONFORMANCE_UNCERTAIN_JOB makes the job read submission_uncertain instead of queued.
  'media-uncertain-prompt',
];

/** Whether responses carry X-Request-ID (fault request-id-promised: described as required, never sent). */
function sendsRequestId(ctx: RefContext): boolean {
  return !isVariant(ctx, 'no-request-id') && ctx.fault !== 'request-id-promised';
}

export function buildApp(ctx: RefContext, options: AppOptions = {}): FastifyInstance {
  const nextRequestId = requestIds(ctx);
  const app = Fastify({
    logger: options.logger ?? false,
    genReqId: nextRequestId,
    requestIdHeader: false,
    // Fault v1-doubled-served: a duplicated /v1/v1 prefix is served as /v1 instead of 404;
    // v1-doubled-balance-served: only for the balance; v1-doubled-post-served: only on POST.
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      if (ctx.fault === 'v1-doubled-served') return url.replace(/^\/v1\/v1\//, '/v1/');
      if (ctx.fault === 'v1-doubled-balance-served') return url.replace(/^\/v1\/v1\/balance/, '/v1/balance');
      if (ctx.fault === 'v1-doubled-post-served' && req.method === 'POST')
        return url.replace(/^\/v1\/v1\//, '/v1/');
      return url;
    },
    // close() ends every connection, also those a client left open next to an endless stream.
    forceCloseConnections: true,
    // Errors raised before routing (bad URL encoding) still answer an APIError.
    frameworkErrors: (error, request, reply) => {
      if (sendsRequestId(ctx)) reply.header('X-Request-ID', request.id);
      sendError(reply, ctx, 'malformed_request', error.message);
    },
    clientErrorHandler: (_error, socket) => {
      if (!socket.writable) return;
      const { status, body } = errorResponse(ctx, 'malformed_request', 'Malformed HTTP request.');
      const text = JSON.stringify(body);
      socket.end(
        `HTTP/1.1 ${status} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    },
  });

  // The matrix's plan: each request's steps know the request (before any other hook).
  if (ctx.reach) registerReach(app);
  // A variant of the connection itself: before any other hook sees the request.
  registerReuseClose(app, ctx);
  const latency = options.latencyMs ?? 0;
  if (latency > 0) app.addHook('onRequest', async () => void (await sleep(latency)));
  if (sendsRequestId(ctx)) {
    app.addHook('onRequest', async (request, reply) => void reply.header('X-Request-ID', request.id));
  }
  // Variant idempotency-key-first: an upload or a job creation without an Idempotency-Key (a header the
  // contract lists for them) is refused before the key and its scope are looked at.
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0];
    if (request.method !== 'POST' || (path !== '/v1/media/inputs' && path !== '/v1/media/jobs')) return;
    const key = request.headers['idempotency-key'];
    if (!isVariant(ctx, 'idempotency-key-first') || (typeof key === 'string' && key !== '')) return;
    return reply.code(400).send({
      error: {
        code: 'idempotency_key_required',
        message: 'Send an Idempotency-Key.',
        type: 'client_error',
      },
    });
  });
  registerAuth(app, ctx);
  registerGuards(app, ctx);
  registerInternal(app, ctx);
  // Transport faults act on requests the key, scopes and guards accepted.
  registerTransport(app, ctx, options.hangLimitMs);
  if (ctx.fault === 'key-echo') {
    app.addHook('onSend', async (request, reply) => {
      if (request.caller) reply.header('X-Debug-Key', request.caller.value);
    });
  }
  // Variant null-as-omitted: a top-level member sent as null on a text call, a ticket or a payment order is
  // read as left out (a required one is then missing).
  if (isVariant(ctx, 'null-as-omitted')) {
    app.addHook('preHandler', async (request) => {
      const body = request.body;
      if (request.method !== 'POST' || !NULL_AS_OMITTED.includes(pathOf(request.url))) return;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
      for (const [k, v] of Object.entries(body)) if (v === null) delete (body as Record<string, unknown>)[k];
    });
  }
  if (isVariant(ctx, 'extra-fields')) {
    app.addHook('preSerialization', async (request, _reply, payload) =>
      pathOf(request.url) === '/openapi.json' ? payload : withVendorFields(payload, true),
    );
  }

  // Media uploads are raw bytes; the route checks them.
  registerUploadParser(app, ctx);

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    // Fault wrong-method-plain: a known path called with another method answers the framework's
    // plain 405, not the APIError object.
    if (
      ctx.fault === 'wrong-method-plain' &&
      ['GET', 'POST', 'DELETE'].some((m) => app.hasRoute({ method: m, url: path }))
    )
      return reply.code(405).type('text/plain; charset=utf-8').send('Method Not Allowed');
    // Variant public-errors-own-bodies: the public paths ("Health, status and openapi bodies are not
    // shown") are served as a static site serves them: another method gets its HTML 405.
    if (['/healthz', '/status', '/openapi.json'].includes(path) && isVariant(ctx, 'public-errors-own-bodies'))
      return reply
        .code(405)
        .type('text/html; charset=utf-8')
        .send(
          '<html><head><title>405 Not Allowed</title></head><body><h1>405 Not Allowed</h1></body></html>',
        );
    return sendError(reply, ctx, 'not_found', `No endpoint ${request.method} ${path}.`);
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const kind = kindOf(error.statusCode ?? 500);
    sendError(reply, ctx, kind, kind === 'internal_error' ? 'Internal error.' : error.message);
  });

  // The description declares 501 for the stubs, so it is built once every route is known.
  let openapi: object = {};
  registerPublic(app, ctx, () => openapi);
  registerModels(app, ctx);
  registerBalance(app, ctx);
  registerChat(app, ctx);
  registerResponses(app, ctx);
  registerEmbeddings(app, ctx);
  registerUsage(app, ctx);
  registerLedger(app, ctx);
  registerTickets(app, ctx);
  registerPayments(app, ctx);
  registerMedia(app, ctx, options.mediaStepMs, options.mediaJobMs);
  const pending = registerPending(app, ctx);
  openapi = describing(() => buildOpenApi(ctx, pending));
  return app;
}

/** Variant jobs-slow: image (and 3D) jobs take 2 s, video jobs 6 s, unless the start option sets durations. */
const SLOW_JOBS_MS: JobDurations = { image: 2_000, glb: 2_000, video: 6_000 };

function registerMedia(
  app: FastifyInstance,
  ctx: RefContext,
  stepMs: number | undefined,
  jobMs: JobDurations | undefined,
): void {
  const store = mediaStore(ctx.state, stepMs, jobMs ?? (isVariant(ctx, 'jobs-slow') ? SLOW_JOBS_MS : {}));
  store.fault = ctx.fault;
  // Media jobs settle when due; doing it before any request of the account keeps balance and ledger exact.
  app.addHook('preHandler', async (request) => {
    if (request.caller) settleDue(store, request.caller.account);
  });
  registerMediaModels(app, ctx);
  registerMediaInputs(app, ctx, store);
  registerMediaJobs(app, ctx, store);
  registerMediaAssets(app, ctx, store);
}

function kindOf(status: number): ErrorKind {
  if (status === 413) return 'payload_too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'malformed_request';
  return 'internal_error';
}

function requestIds(ctx: RefContext): () => string {
  const nonce = randomBytes(6).toString('hex');
  let counter = 0;
  return () => {
    counter += 1;
    const serial = counter.toString(36);
    // Variant long-ids: zero-padding before the serial keeps 160-byte ids unique.
    return `req_${nonce}_${isVariant(ctx, 'long-ids') ? serial.padStart(160 - 5 - nonce.length, '0') : serial}`;
  };
}

/**
 * Variant extra-fields: x_vendor on every object, except the closed MediaInputEnvelope itself and
 * the `parameters` map of media catalog entries (its keys are parameter names, not fields).
 */
function withVendorFields(node: unknown, top: boolean, map = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withVendorFields(item, false));
  if (node === null || typeof node !== 'object' || Buffer.isBuffer(node)) return node;
  const out: Record<string, unknown> = {};
  const entry = (node as { object?: unknown }).object === 'media_model';
  for (const [key, value] of Object.entries(node))
    out[key] = withVendorFields(value, false, entry && key === 'parameters');
  if (map || (top && out.object === 'media_input')) return out;
  out.x_vendor = { region: 'reference', tier: 'standard' };
  return out;
}
