// POST /v1/embeddings: the closed EmbeddingRequest ("unknown fields rejected"), one text string in,
// 1024 floats out, deterministic from the input. Charged like chat with no completion tokens.
// Idempotency-Key is not listed for embeddings, so the header is ignored here.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { billingOf, settle } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { canAfford, holdFor, replyModelName, resolveModel, textTokens } from '../inference.ts';
import { sendJson, sendPlain } from '../legacy.ts';
import { isVariant } from '../reach.ts';
import { callerOf } from './caller.ts';

const PATH = '/v1/embeddings';
const FIELDS = ['model', 'input', 'dimensions', 'encoding_format', 'user'];
export const DIMENSIONS = 1024;

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The inputs to embed, or the first violation of the EmbeddingRequest table. */
function embeddingInputs(ctx: RefContext, body: Body): string[] | { problem: string } {
  if (ctx.fault !== 'embed-unknown-field') {
    const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
    if (unknown.length > 0) return { problem: `Unknown field(s): ${unknown.join(', ')}.` };
  }
  if (body.model === undefined && ctx.fault !== 'embed-model-optional')
    return { problem: '`model` is required.' };
  if (body.model !== undefined && typeof body.model !== 'string')
    return { problem: '`model` must be a string.' };
  const input = body.input;
  const laxArray =
    ctx.fault === 'embed-array-input' &&
    Array.isArray(input) &&
    input.length > 0 &&
    input.every((s) => typeof s === 'string' && s.length > 0);
  // Fault embed-min-2: the minimum input length is 2, not 1.
  const minLength = ctx.fault === 'embed-min-2' ? 2 : 1;
  if (!laxArray && (typeof input !== 'string' || input.length < minLength))
    return { problem: '`input` must be one non-empty text string.' };
  const dims = body.dimensions;
  if (dims !== undefined) {
    const lax = ctx.fault === 'embed-dimensions-lax' && Number.isInteger(dims) && (dims as number) > 0;
    if (dims !== DIMENSIONS && !lax) return { problem: '`dimensions` supports only 1024.' };
  }
  const format = body.encoding_format;
  if (format !== undefined) {
    // Fault embed-format-case: `float` is matched whatever its case (FLOAT, Float).
    const lax =
      (ctx.fault === 'embed-encoding-lax' && format === 'base64') ||
      (ctx.fault === 'embed-format-case' && typeof format === 'string' && format.toLowerCase() === 'float');
    if (format !== 'float' && !lax) return { problem: '`encoding_format` supports only `float`.' };
  }
  // Fault embed-user-any: `user` of any type is accepted.
  if (body.user !== undefined && typeof body.user !== 'string' && ctx.fault !== 'embed-user-any')
    return { problem: '`user` must be a string.' };
  return laxArray ? (input as string[]) : [input as string];
}

/** A unit vector of `size` floats drawn from a generator seeded by the model and text. */
export function embeddingOf(model: string, text: string, size: number): number[] {
  const digest = createHash('sha256').update(`${model}\n${text}`).digest();
  let state = digest.readUInt32LE(0) || 1;
  const next = () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  const raw = Array.from({ length: size }, () => next() * 2 - 1);
  const norm = Math.sqrt(raw.reduce((sum, x) => sum + x * x, 0)) || 1;
  return raw.map((x) => x / norm);
}

export function registerEmbeddings(app: FastifyInstance, ctx: RefContext): void {
  app.post(PATH, async (request, reply) => {
    const account = callerOf(request).account;
    const body = request.body;
    if (!isObject(body)) return sendError(reply, ctx, 'invalid_request', 'The body must be a JSON object.');
    const inputs = embeddingInputs(ctx, body);
    if ('problem' in inputs) return sendError(reply, ctx, 'invalid_request', inputs.problem);

    // Fault embed-model-optional: a missing model defaults to the embedding model.
    const id = typeof body.model === 'string' ? body.model : (ctx.state.hints.embedding as string);
    const resolved = resolveModel(ctx, account, id, 'embedding');
    if ('error' in resolved) return sendError(reply, ctx, resolved.error, resolved.message);
    const { model } = resolved;
    const promptTokens = inputs.reduce((sum, text) => sum + Math.max(1, textTokens(text)), 0);
    const hold = holdFor(model, promptTokens, 0);
    if (!canAfford(account, hold)) {
      return sendError(reply, ctx, 'insufficient_points', 'The available points do not cover this request.');
    }
    const settlement = settle(ctx, account, {
      endpoint: PATH,
      model,
      recordedModel: id,
      requestId: request.id,
      promptTokens,
      completionTokens: 0,
      hold,
    });
    const size = ctx.fault === 'embed-1023' ? DIMENSIONS - 1 : DIMENSIONS;
    const billing = billingOf(ctx, settlement);
    // Variant embeddings-201: the contract gives no status for the embedding list (only chat's 200).
    if (isVariant(ctx, 'embeddings-201')) reply.code(201);
    // Fault legacy-embeddings-points (issue 22): the legacy format is ignored on embeddings only.
    const send = ctx.fault === 'legacy-embeddings-points' ? sendPlain : sendJson;
    return send(ctx, request, reply, {
      object: 'list',
      // Fault embeddings-no-data: the list of embeddings comes back empty.
      data: (ctx.fault === 'embeddings-no-data' ? [] : inputs).map((text, index) => ({
        object: 'embedding',
        index,
        embedding: embeddingOf(id, text, size),
      })),
      model: replyModelName(ctx, id),
      usage: {
        prompt_tokens: promptTokens,
        // Variant usage-embeddings-completion-null: the reply's usage says null for the completion count
        // too, beside the two the embeddings usage gives.
        ...(isVariant(ctx, 'usage-embeddings-completion-null') ? { completion_tokens: null } : {}),
        total_tokens: promptTokens,
      },
      ...(billing ? { billing } : {}),
    });
  });
}
