// What the three inference routes share: model resolution, the deterministic stand-in model
// (token counts and text), the spend guard, Idempotency-Key handling and streamed bodies.
import { Readable } from 'node:stream';
import type { Decimal } from 'decimal.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { available, cost } from './billing.ts';
import type { RefContext } from './context.ts';
import { type ErrorKind, sendError } from './errors.ts';
import { wantsLegacy } from './legacy.ts';
import { isVariant } from './reach.ts';
import type { Account, TextModel } from './state.ts';

/** The 16 media model ids of the contract's model table: sent to a text endpoint they get a 404. */
export const MEDIA_MODEL_IDS: ReadonlySet<string> = new Set([
  ...['10', '11', '12', '13', '14', '15', '16', '17', '18', '19'].map((n) => `wc-1000${n}`),
  ...['31', '32', '33', '34', '40', '41'].map((n) => `wc-1000${n}`),
]);

export type EndpointKind = 'chat' | 'responses' | 'embedding';

export type Resolution = { model: TextModel } | { error: ErrorKind; message: string };

/**
 * The catalog model a call may use, or why not. Order: the account's catalog (403 for a model that
 * exists elsewhere), then the endpoint type (404 for a media or otherwise wrong-typed model, 400 for a
 * chat model without native responses support on /v1/responses), then points configuration.
 */
export function resolveModel(ctx: RefContext, account: Account, id: string, kind: EndpointKind): Resolution {
  // Fault text-model-case: the catalog lookup of a text call ignores case.
  const same = (m: TextModel) =>
    ctx.fault === 'text-model-case' ? m.id.toLowerCase() === id.toLowerCase() : m.id === id;
  // Fault embeddings-catalog-unchecked: /v1/embeddings finds a model among every account's models (its
  // type is still checked: a chat model outside the catalog is refused as the wrong type all the same).
  let model =
    account.catalog.find(same) ??
    (ctx.fault === 'embeddings-catalog-unchecked' && kind === 'embedding'
      ? ctx.state.models.find(same)
      : undefined);
  if (!model) {
    const known = ctx.state.models.find((m) => m.id === id);
    // Faults embeddings-forbidden-callable, responses-forbidden-callable (issue 22): a model outside the
    // catalog is answered on that endpoint only, silently by the account's own model of the kind.
    const forbiddenCallable =
      (ctx.fault === 'embeddings-forbidden-callable' && kind === 'embedding') ||
      (ctx.fault === 'responses-forbidden-callable' && kind === 'responses');
    // Faults embeddings-unknown-model-200, responses-unknown-model-200 (issue 22): an id no catalog lists
    // is answered on that endpoint only, silently by the account's own model of the kind.
    const unknownCallable =
      !known &&
      !MEDIA_MODEL_IDS.has(id) &&
      ((ctx.fault === 'embeddings-unknown-model-200' && kind === 'embedding') ||
        (ctx.fault === 'responses-unknown-model-200' && kind === 'responses'));
    if (known && ctx.fault === 'chat-forbidden-callable' && kind === 'chat') model = known;
    // Fault empty-catalog-calls-all: an account whose catalog is empty may call every model (an empty
    // allow-list read as no restriction).
    else if (known && ctx.fault === 'empty-catalog-calls-all' && account.catalog.length === 0) model = known;
    else if ((known && forbiddenCallable) || unknownCallable)
      model = account.catalog.find((m) =>
        m.capabilities.includes(kind === 'embedding' ? 'embedding' : 'responses'),
      );
    else if (known)
      return { error: 'model_not_allowed', message: `The model ${id} is not in this account's catalog.` };
    else if (MEDIA_MODEL_IDS.has(id))
      return {
        // Fault media-model-chat-400: a media model sent to a text endpoint is refused 400, not 404;
        // media-model-responses-400 and media-model-embeddings-400: on that endpoint only.
        error:
          ctx.fault === 'media-model-chat-400' ||
          (ctx.fault === 'media-model-responses-400' && kind === 'responses') ||
          (ctx.fault === 'media-model-embeddings-400' && kind === 'embedding')
            ? 'invalid_request'
            : 'wrong_endpoint_type',
        message: `${id} is a media model; use /v1/media/jobs.`,
      };
    // Fault unknown-model-400: an id no catalog lists is refused 400, not 404.
    else
      return {
        error: ctx.fault === 'unknown-model-400' ? 'invalid_request' : 'model_not_found',
        message: `No model ${id}.`,
      };
    // No model of the kind to answer with (an empty catalog): refused as it would be without the fault.
    if (!model)
      return known
        ? { error: 'model_not_allowed', message: `The model ${id} is not in this account's catalog.` }
        : { error: 'model_not_found', message: `No model ${id}.` };
  }
  const caps = model.capabilities;
  const textModel = caps.includes('chat') || caps.includes('responses');
  // Fault embeddings-any-text-model: /v1/embeddings answers any text model of the catalog.
  const anyText = ctx.fault === 'embeddings-any-text-model' && kind === 'embedding';
  // Fault text-calls-any-embedding-model: chat and /v1/responses answer the embedding model too.
  const anyEmbedding = ctx.fault === 'text-calls-any-embedding-model' && kind !== 'embedding';
  if (anyEmbedding && caps.includes('embedding')) return model.prices ? { model } : resolvedUnpriced(id);
  if (!anyText && (kind === 'embedding' ? !caps.includes('embedding') : !textModel)) {
    const endpoint = kind === 'embedding' ? '/v1/embeddings' : 'this endpoint';
    // Fault media-model-responses-400: on /v1/responses the embedding model is refused 400 too.
    const error =
      ctx.fault === 'media-model-responses-400' && kind === 'responses'
        ? 'invalid_request'
        : 'wrong_endpoint_type';
    return { error, message: `${id} cannot be used with ${endpoint}.` };
  }
  // Fault responses-refused: no model is served on /v1/responses, those with native support neither.
  const refusedAll = kind === 'responses' && ctx.fault === 'responses-refused';
  if (
    (kind === 'responses' && !caps.includes('responses') && ctx.fault !== 'responses-any-model') ||
    refusedAll
  ) {
    return {
      error: 'unsupported_endpoint',
      message: `${id} does not support native responses calls; use /v1/chat/completions.`,
    };
  }
  if (!model.prices) return resolvedUnpriced(id);
  // Variants upstream-unavailable-sometimes and -undeclared: every UNAVAILABLE_EVERY-th call that found its model meets an
  // upstream that is down, refused 503 before anything is held or charged (variant proxy-502-page: the
  // load balancer in front answers it, 502 with its HTML page: errors.ts).
  if (
    isVariant(ctx, 'upstream-unavailable-sometimes') ||
    isVariant(ctx, 'upstream-unavailable-undeclared') ||
    isVariant(ctx, 'proxy-502-page')
  ) {
    const n = (unavailableCount.get(ctx) ?? 0) + 1;
    unavailableCount.set(ctx, n);
    if (n % UNAVAILABLE_EVERY === 0)
      return { error: 'model_unavailable', message: `${id} is unavailable upstream; try again later.` };
  }
  return { model };
}

/** Variant upstream-unavailable-sometimes: how often a call meets the upstream down, and the count per server. */
const UNAVAILABLE_EVERY = 13;
const unavailableCount = new WeakMap<RefContext, number>();

/**
 * "no zero quote is invented": a model without points configuration is not billed at 0, so it is refused
 * as unavailable (503) rather than answered for free or at a made-up price.
 */
function resolvedUnpriced(id: string): Resolution {
  return {
    error: 'points_not_configured',
    message: `${id} has no points configuration; it cannot be billed.`,
  };
}

/** Characters (code points) / 4, rounded up. */
export function textTokens(text: string): number {
  return Math.ceil([...text].length / 4);
}

/** Per message: its text tokens plus 4 for the framing. */
export function messageTokens(texts: string[]): number {
  return texts.reduce((sum, text) => sum + textTokens(text) + 4, 0);
}

/** The stand-in model writes at most 16 tokens. */
export const COMPLETION_CAP = 16;

export function completionTokens(max: number | undefined): number {
  return Math.min(Math.max(max ?? COMPLETION_CAP, 0), COMPLETION_CAP);
}

let replies = 0;
/**
 * The completion of one call. Variant reply-length-varies: every other call one token shorter (at least
 * one), as a real model's replies to the same request differ in length, and so in what they cost.
 */
export function completionFor(ctx: RefContext, max: number | undefined): number {
  const n = completionTokens(max);
  if (!isVariant(ctx, 'reply-length-varies') || n <= 1) return n;
  return replies++ % 2 === 0 ? n : n - 1;
}

const WORDS = ['This', 'is', 'a', 'deterministic', 'reply', 'from', 'the', 'reference', 'gateway'];

/** One word per token, the first `tokens` words of a fixed text, as stream increments. */
export function replyPieces(tokens: number): string[] {
  return Array.from({ length: tokens }, (_, i) => `${i === 0 ? '' : ' '}${WORDS[i % WORDS.length]}`);
}

/**
 * The points held while a call runs: its quote with the largest completion the request allows
 * (max_tokens, else the stand-in's cap; never beyond the model's context limit).
 */
export function holdFor(model: TextModel, promptTokens: number, maxTokens: number | undefined): Decimal {
  const largest = Math.min(
    Math.max(maxTokens ?? COMPLETION_CAP, completionTokens(maxTokens)),
    model.contextLength,
  );
  return cost(model.prices ?? { request: '0', response: '0' }, promptTokens, largest);
}

export function canAfford(account: Account, hold: Decimal): boolean {
  return available(account).gte(hold);
}

// ------------------------------------------------------------------ Idempotency-Key

/** JSON with object keys sorted at every depth: equal requests give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What the account's key store says of a request's Idempotency-Key (media routes use it directly). */
export type KeyLookup =
  | { kind: 'none' }
  | { kind: 'invalid'; message: string }
  | { kind: 'new'; key: string; fingerprint: string }
  | { kind: 'stored'; key: string; fingerprint: string; result: unknown }
  | { kind: 'conflict' };

/**
 * Looks the request's Idempotency-Key up in the account's store: the same key with the same
 * fingerprint (the request's identity) is `stored`, with another fingerprint a `conflict`.
 */
export function lookupKey(
  ctx: RefContext,
  request: FastifyRequest,
  account: Pick<Account, 'idempotency'>,
  fingerprint: string,
): KeyLookup {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return { kind: 'none' };
  const sent = Array.isArray(header) ? header.join(',') : header;
  if (sent.length === 0 || sent.length > 128) {
    return { kind: 'invalid', message: 'Idempotency-Key must be 1 to 128 characters.' };
  }
  // Fault idem-key-colon-refused: a key with a colon (the reference client's keys hold one) is malformed.
  if (ctx.fault === 'idem-key-colon-refused' && sent.includes(':'))
    return {
      kind: 'invalid',
      message: 'Idempotency-Key may hold letters, digits, dot, underscore and hyphen.',
    };
  // Faults upload-key-prefix-64, job-key-prefix-64: the store keeps a key's first 64 characters (a column
  // of 64), so two keys alike that far are one.
  const cut =
    (ctx.fault === 'upload-key-prefix-64' && fingerprint.startsWith('POST /v1/media/inputs\n')) ||
    (ctx.fault === 'job-key-prefix-64' && fingerprint.startsWith('POST /v1/media/jobs\n'));
  const key = cut ? sent.slice(0, 64) : sent;
  const stored = account.idempotency.get(key);
  if (!stored) return { kind: 'new', key, fingerprint };
  if (stored.fingerprint !== fingerprint) return { kind: 'conflict' };
  return { kind: 'stored', key, fingerprint, result: stored.result };
}

/** The answer to a malformed key or a key used for another request; undefined when the request goes on. */
export function refuseKey(
  reply: FastifyReply,
  ctx: RefContext,
  found: { kind: string; message?: string },
): FastifyReply | undefined {
  if (found.kind === 'invalid') return sendError(reply, ctx, 'invalid_request', found.message ?? '');
  if (found.kind === 'conflict')
    return sendError(
      reply,
      ctx,
      'idempotency_conflict',
      'This Idempotency-Key was used with a different request.',
    );
  return undefined;
}

export type Idempotency = Exclude<KeyLookup, { kind: 'stored' }> | { kind: 'replay'; result: unknown };

/**
 * The inference routes' reading of the key: same key and same request (method, path, canonical body)
 * replays; same key and another request conflicts. The Accept header is no part of the request's
 * identity: "Changing the display currency format for the same request never causes re-execution."
 */
export function idempotencyOf(
  ctx: RefContext,
  request: FastifyRequest,
  account: Account,
  path: string,
): Idempotency {
  // Fault idem-key-only: the body is no part of the request's identity, so another body replays.
  const body = ctx.fault === 'idem-key-only' ? '' : canonicalJson(request.body);
  const found = lookupKey(ctx, request, account, `POST ${path}\n${body}`);
  if (found.kind !== 'stored') return found;
  const { key, fingerprint } = found;
  // Faults: the replay executes (and charges) again.
  if (ctx.fault === 'idem-double-charge') return { kind: 'new', key, fingerprint };
  // Faults legacy-reexecute and legacy-responses-reexecute: a replay in the legacy currency format executes
  // again, on chat and on /v1/responses respectively.
  const reexecutes =
    (ctx.fault === 'legacy-reexecute' && path === '/v1/chat/completions') ||
    (ctx.fault === 'legacy-responses-reexecute' && path === '/v1/responses');
  if (reexecutes && wantsLegacy(ctx, request)) return { kind: 'new', key, fingerprint };
  return { kind: 'replay', result: found.result };
}

/** Stores a settled result under its key; a key keeps its first result. */
export function remember(account: Account, idem: Idempotency, result: unknown): void {
  if (idem.kind === 'new' && !account.idempotency.has(idem.key)) {
    account.idempotency.set(idem.key, { fingerprint: idem.fingerprint, result });
  }
}

const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Marks a reply as a replay (the description's IdempotentReplayed header, const "true"). Fault
 * replay-header-yes: every replay is marked 'yes', against the header schema of its own description.
 */
export function markReplayed(reply: FastifyReply, ctx: RefContext): FastifyReply {
  return reply.header(REPLAYED_HEADER, ctx.fault === 'replay-header-yes' ? 'yes' : 'true');
}

// ------------------------------------------------------------------ streamed bodies

/** The pause between two pieces of a stream: they are produced one by one, as a model writes them. */
export const STREAM_PACE_MS = 2;

/**
 * Open streams of one app, ended when it closes (a stream that never ends would hold the server).
 * `send` replies with the given pieces, STREAM_PACE_MS apart; `endless` true writes the first piece and
 * then nothing. Fault stream-buffered: the whole body at once, as a proxy that buffers it would.
 */
export function streams(
  app: FastifyInstance,
  ctx: RefContext,
): {
  send(reply: FastifyReply, type: string, pieces: string[], endless?: boolean): FastifyReply;
} {
  const open = new Set<Readable>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.destroy();
    open.clear();
  });
  return {
    send(reply, type, pieces, endless = false) {
      reply.type(type).header('cache-control', 'no-cache');
      if (ctx.fault === 'stream-buffered' && !endless) return reply.send(pieces.join(''));
      const stream = new Readable({ read() {} });
      open.add(stream);
      const forget = () => {
        open.delete(stream);
        stream.destroy();
      };
      reply.raw.once('close', forget);
      let next = 0;
      const write = () => {
        if (stream.destroyed) return;
        if (next < pieces.length) stream.push(pieces[next++]);
        if (endless) return;
        if (next < pieces.length) setTimeout(write, STREAM_PACE_MS);
        else {
          stream.push(null);
          open.delete(stream);
        }
      };
      write();
      return reply.send(stream);
    },
  };
}

/**
 * Variant model-snapshot-names: a reply names the dated snapshot of the model asked
 * (`tx-chat-1-2024-08-06`), as an upstream names its snapshot of an alias; the usage record keeps the id.
 */
export const replyModelName = (ctx: RefContext, id: string): string =>
  isVariant(ctx, 'model-snapshot-names') ? `${id}-2024-08-06` : id;
