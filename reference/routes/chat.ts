// POST /v1/chat/completions: the ChatCompletionRequest table, model resolution, settlement in points,
// streaming (SSE, or NDJSON under a variant) and Idempotency-Key replays.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { billingOf, Exact, newId, points, type Settlement, settle } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import {
  COMPLETION_CAP,
  canAfford,
  completionFor,
  holdFor,
  idempotencyOf,
  markReplayed,
  messageTokens,
  refuseKey,
  remember,
  replyModelName,
  replyPieces,
  resolveModel,
  streams,
} from '../inference.ts';
import { sendJson, toLegacy, wantsLegacy } from '../legacy.ts';
import { lostLedgerUpdate, raceWindow } from '../race.ts';
import { isVariant } from '../reach.ts';
import { callerOf } from './caller.ts';

const PATH = '/v1/chat/completions';
const ROLES = ['system', 'developer', 'user', 'assistant'];

/** A settled chat call: everything needed to answer it again, in any format. */
interface ChatResult {
  id: string;
  created: number;
  model: string;
  pieces: string[];
  finishReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
  settlement: Settlement;
  stream: boolean;
}

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The first violation of the ChatCompletionRequest table, or undefined. Unknown fields pass. */
export function chatProblem(ctx: RefContext, body: unknown): string | undefined {
  if (!isObject(body)) return 'The body must be a JSON object.';
  // Fault chat-model-default: a request without model goes to the default chat model.
  if (body.model === undefined && ctx.fault !== 'chat-model-default') return '`model` is required.';
  if (body.model !== undefined && typeof body.model !== 'string') return '`model` must be a string.';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return '`messages` must be a non-empty array.';
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages[${i}] must be an object {role, content}.`;
    if (typeof message.role !== 'string' || !ROLES.includes(message.role))
      return `messages[${i}].role must be one of ${ROLES.join(', ')}.`;
    if (message.role === 'developer' && ctx.fault === 'chat-developer-refused')
      return `messages[${i}].role developer is not supported.`;
    // Fault chat-content-parts: a content given as an array of parts (the form other APIs take) is accepted.
    const partsOk = ctx.fault === 'chat-content-parts' && Array.isArray(message.content);
    const missingOk = (ctx.fault === 'chat-missing-content' && message.content === undefined) || partsOk;
    if (typeof message.content !== 'string' && !missingOk) return `messages[${i}].content must be a string.`;
  }
  const { max_tokens: max, temperature, top_p: topP } = body;
  // Fault chat-stream-bounds-exclusive: a request to be streamed has exclusive upper bounds (2 and 1 refused).
  const exclusive = ctx.fault === 'chat-stream-bounds-exclusive' && body.stream === true;
  if (max !== undefined) {
    if (!Number.isInteger(max)) return '`max_tokens` must be an integer.';
    if ((max as number) < 0 && ctx.fault !== 'chat-max-tokens-negative') return '`max_tokens` must be >= 0.';
    if (max === 0 && ctx.fault === 'chat-max-tokens-zero') return '`max_tokens` must be >= 1.';
  }
  if (temperature !== undefined) {
    if (!isNumber(temperature)) return '`temperature` must be a number.';
    const tooHigh =
      ctx.fault === 'chat-temperature-lax'
        ? false
        : ctx.fault === 'chat-temperature-strict' || exclusive
          ? temperature >= 2
          : temperature > 2;
    if (temperature < 0 || tooHigh) return '`temperature` must be from 0 to 2.';
  }
  if (topP !== undefined && ctx.fault !== 'chat-top-p-unchecked') {
    if (!isNumber(topP)) return '`top_p` must be a number from 0 to 1.';
    // Fault chat-top-p-strict: the inclusive upper bound 1 refused.
    const tooHigh = ctx.fault === 'chat-top-p-strict' || exclusive ? topP >= 1 : topP > 1;
    if (topP < 0 || tooHigh) return '`top_p` must be a number from 0 to 1.';
  }
  // Fault chat-stream-truthy: a `stream` that is not a boolean is taken as its truth value.
  if (body.stream !== undefined && typeof body.stream !== 'boolean' && ctx.fault !== 'chat-stream-truthy')
    return '`stream` must be a boolean.';
  // Fault chat-user-any: `user` of any type is accepted.
  if (body.user !== undefined && typeof body.user !== 'string' && ctx.fault !== 'chat-user-any')
    return '`user` must be a string.';
  return undefined;
}

export function registerChat(app: FastifyInstance, ctx: RefContext): void {
  const streamer = streams(app, ctx);

  app.post(PATH, async (request, reply) => {
    const account = callerOf(request).account;
    // Fault chat-stream-params-unchecked: a request to be streamed skips the parameter checks.
    const streamed = (request.body as Body | undefined)?.stream === true;
    const problem =
      ctx.fault === 'chat-stream-params-unchecked' && streamed ? undefined : chatProblem(ctx, request.body);
    if (problem) return sendError(reply, ctx, 'invalid_request', problem);
    const body = request.body as Body;
    // Variant max-tokens-zero-no-room: max_tokens 0 leaves no room for a reply and is refused for that,
    // under a code of its own (never as out of range: 0 is inside ">= 0").
    if (body.max_tokens === 0 && isVariant(ctx, 'max-tokens-zero-no-room'))
      return reply.code(400).send({
        error: {
          code: 'no_output_room',
          message: 'max_tokens 0 leaves no room for a reply.',
          type: 'client_error',
        },
      });

    const idem = idempotencyOf(ctx, request, account, PATH);
    const refused = refuseKey(reply, ctx, idem);
    if (refused) return refused;
    // Fault stream-replay-reexecutes: the idempotency store keeps JSON replies only, so a streamed call
    // replayed with its key executes (and charges) again.
    const storeSkipsStream =
      ctx.fault === 'stream-replay-reexecutes' && (request.body as Body)?.stream === true;
    if (idem.kind === 'replay' && !storeSkipsStream) {
      // Fault replay-reprices-usage: the replay (not charged again) re-prices the settled usage record.
      if (ctx.fault === 'replay-reprices-usage') {
        const record = account.usage.find((u) => u.id === (idem.result as ChatResult).settlement.usageId);
        if (record) record.chargedPoints = points(new Exact(record.chargedPoints).times('1.01'));
      }
      markReplayed(reply, ctx);
      return answer(request, reply, idem.result as ChatResult);
    }
    // Fault race-chat-double: a window between the key lookup and the settlement that stores it.
    if (idem.kind === 'new' && ctx.fault === 'race-chat-double') await raceWindow(ctx);

    const requested = (body.model ?? ctx.state.hints.chat) as string;
    // Fault chat-stream-unknown-model-200 (issue 22): a streamed call for an id no model has is answered
    // by the chat model (a non-streamed one is refused).
    const unknown = !ctx.state.models.some((m) => m.id === requested) && !/^wc-/.test(requested);
    // Fault chat-stream-forbidden-callable: a streamed call for a model outside the account's catalog too.
    const forbidden =
      ctx.state.models.some((m) => m.id === requested) && !account.catalog.some((m) => m.id === requested);
    const streamLax =
      body.stream === true &&
      ((ctx.fault === 'chat-stream-unknown-model-200' && unknown) ||
        (ctx.fault === 'chat-stream-forbidden-callable' && forbidden));
    const resolved = resolveModel(
      ctx,
      account,
      streamLax ? (ctx.state.hints.chat as string) : requested,
      'chat',
    );
    if ('error' in resolved) return sendError(reply, ctx, resolved.error, resolved.message);
    const { model } = resolved;

    const messages = body.messages as Body[];
    const promptTokens = messageTokens(messages.map((m) => (typeof m.content === 'string' ? m.content : '')));
    const max = body.max_tokens as number | undefined;
    const completion = completionFor(ctx, max);
    const hold = holdFor(model, promptTokens, max);
    if (!canAfford(account, hold)) {
      return sendError(reply, ctx, 'insufficient_points', 'The available points do not cover this request.');
    }
    // Fault chat-model-substituted: another model answers (and is recorded) when tx-chat-1 is asked.
    const substituted = ctx.fault === 'chat-model-substituted' && model.id === ctx.state.hints.chat;
    const replyModel = substituted ? (ctx.state.hints.no_responses as string) : requested;
    const settlement = settle(ctx, account, {
      endpoint: PATH,
      model,
      recordedModel: replyModel,
      requestId: request.id,
      promptTokens,
      completionTokens: completion,
      hold,
    });
    const result: ChatResult = {
      id: newId('chatcmpl-'),
      created: Math.floor(Date.now() / 1000),
      model: replyModelName(ctx, replyModel),
      pieces: replyPieces(completion),
      // The stand-in stops by itself after COMPLETION_CAP tokens; a smaller max_tokens cuts it short.
      finishReason: max !== undefined && max < COMPLETION_CAP ? 'length' : 'stop',
      promptTokens,
      completionTokens: completion,
      settlement,
      stream: body.stream === true,
    };
    remember(account, idem, result);
    // Fault race-ledger-skip: the charge's ledger entry is written back over an older copy of the ledger.
    if (ctx.fault === 'race-ledger-skip') await lostLedgerUpdate(ctx, account);
    return answer(request, reply, result);
  });

  function answer(request: FastifyRequest, reply: FastifyReply, result: ChatResult): FastifyReply {
    if (!result.stream) return sendJson(ctx, request, reply, completionOf(ctx, result));
    const legacy = wantsLegacy(ctx, request) && ctx.fault !== 'legacy-stream-points';
    const chunks = chunksOf(ctx, result).map((c) => (legacy ? toLegacy(ctx, c, request) : c));
    if (isVariant(ctx, 'chat-stream-ndjson')) {
      const lines = chunks.map((c) => `${JSON.stringify(c)}\n`);
      return streamer.send(reply, 'application/x-ndjson; charset=utf-8', lines);
    }
    const events = [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'];
    return streamer.send(
      reply,
      'text/event-stream; charset=utf-8',
      events,
      ctx.fault === 'chat-stream-never-ends',
    );
  }
}

function usageOf(ctx: RefContext, result: ChatResult): Record<string, unknown> {
  const total =
    result.promptTokens + result.completionTokens + (ctx.fault === 'chat-usage-total-off' ? 1 : 0);
  const value = (n: number) => (ctx.fault === 'usage-tokens-as-strings' ? String(n) : n);
  // Fault chat-usage-partial: usage carries its total only.
  if (ctx.fault === 'chat-usage-partial') return { total_tokens: total };
  return {
    prompt_tokens: value(result.promptTokens),
    completion_tokens: value(result.completionTokens),
    total_tokens: value(total),
    // Variant usage-points-field: the settled charge copied into usage (an extra field; usage is open).
    ...(isVariant(ctx, 'usage-points-field') ? { charged_points: result.settlement.charged } : {}),
  };
}

function completionOf(ctx: RefContext, result: ChatResult): Record<string, unknown> {
  const billing = billingOf(ctx, result.settlement);
  return {
    // Fault chat-no-id: the reply carries no id.
    ...(ctx.fault === 'chat-no-id' ? {} : { id: result.id }),
    object: 'chat.completion',
    created: result.created,
    model: result.model,
    choices: [
      {
        index: 0,
        // Fault chat-role-model: the upstream's role word passed through.
        message: {
          role: ctx.fault === 'chat-role-model' ? 'model' : 'assistant',
          content: result.pieces.join(''),
        },
        finish_reason: result.finishReason,
      },
    ],
    usage: usageOf(ctx, result),
    ...(billing ? { billing } : {}),
  };
}

/** OpenAI-style chunks: the role, one chunk per token, then the finish reason with usage and billing. */
function chunksOf(ctx: RefContext, result: ChatResult): Record<string, unknown>[] {
  const base = {
    id: result.id,
    object: 'chat.completion.chunk',
    created: result.created,
    model: result.model,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const billing = billingOf(ctx, result.settlement);
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...result.pieces.map((piece) => chunk({ content: piece }, null)),
    { ...chunk({}, result.finishReason), usage: usageOf(ctx, result), ...(billing ? { billing } : {}) },
  ];
}
