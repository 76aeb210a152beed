// POST /v1/responses: native responses calls, "only for models whose catalog entry marks native
// responses support". Stateless (`store` keeps nothing); streamed replies are text/event-stream with
// named events ending in exactly one terminal event.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { billingOf, newId, type Settlement, settle } from '../billing.ts';
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
import { sendJson, sendPlain, toLegacy, wantsLegacy } from '../legacy.ts';
import { isVariant } from '../reach.ts';
import { callerOf } from './caller.ts';

const PATH = '/v1/responses';
const ROLES = ['system', 'developer', 'user', 'assistant'];

interface ResponsesResult {
  id: string;
  messageId: string;
  createdAt: number;
  model: string;
  pieces: string[];
  inputTokens: number;
  outputTokens: number;
  settlement: Settlement;
  stream: boolean;
  /** The reply was cut by max_output_tokens before its natural end: a stream ends response.incomplete. */
  cut: boolean;
}

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The texts of `input`: a non-empty string, or a non-empty array of message-like items
 * (`{role, content}` with string content or content parts carrying `text`, or typed items such as
 * `function_call_output` with an `output`). A string describing the first problem otherwise.
 */
function inputTexts(input: unknown): string[] | string {
  if (typeof input === 'string') return input.length > 0 ? [input] : '`input` must not be empty.';
  if (!Array.isArray(input) || input.length === 0)
    return '`input` must be a non-empty string or a non-empty array of items.';
  const texts: string[] = [];
  for (const [i, item] of input.entries()) {
    if (!isObject(item)) return `input[${i}] must be an object.`;
    if (item.role !== undefined) {
      if (typeof item.role !== 'string' || !ROLES.includes(item.role))
        return `input[${i}].role must be one of ${ROLES.join(', ')}.`;
      if (typeof item.content === 'string') texts.push(item.content);
      else if (Array.isArray(item.content) && item.content.every(isObject))
        texts.push(item.content.map((part) => (typeof part.text === 'string' ? part.text : '')).join(''));
      else return `input[${i}].content must be a string or an array of content parts.`;
    } else if (typeof item.type === 'string') {
      texts.push(typeof item.output === 'string' ? item.output : '');
    } else return `input[${i}] needs a role or a type.`;
  }
  return texts;
}

export function registerResponses(app: FastifyInstance, ctx: RefContext): void {
  const streamer = streams(app, ctx);

  app.post(PATH, async (request, reply) => {
    const account = callerOf(request).account;
    const body = request.body;
    if (!isObject(body)) return sendError(reply, ctx, 'invalid_request', 'The body must be a JSON object.');
    if (typeof body.model !== 'string')
      return sendError(reply, ctx, 'invalid_request', '`model` must be a string.');
    // Fault responses-input-any: a number or boolean input is taken as its text.
    const loose = ctx.fault === 'responses-input-any' && ['number', 'boolean'].includes(typeof body.input);
    const texts = inputTexts(loose ? String(body.input) : body.input);
    if (typeof texts === 'string') return sendError(reply, ctx, 'invalid_request', texts);
    const max = body.max_output_tokens;
    if (max !== undefined && (!Number.isInteger(max) || (max as number) < 0))
      return sendError(reply, ctx, 'invalid_request', '`max_output_tokens` must be an integer >= 0.');
    // Variant responses-min-output-16: as OpenAI's upstream, a cap below 16 is refused.
    if (isVariant(ctx, 'responses-min-output-16') && typeof max === 'number' && max < 16)
      return sendError(reply, ctx, 'invalid_request', '`max_output_tokens` must be at least 16.');
    for (const flag of ['store', 'stream']) {
      // Fault responses-stream-truthy: a `stream` that is not a boolean is taken as its truth value.
      const truthy = flag === 'stream' && ctx.fault === 'responses-stream-truthy';
      if (body[flag] !== undefined && typeof body[flag] !== 'boolean' && !truthy)
        return sendError(reply, ctx, 'invalid_request', `\`${flag}\` must be a boolean.`);
    }

    // Fault responses-stream-only: a call without stream: true is refused.
    if (ctx.fault === 'responses-stream-only' && body.stream !== true)
      return sendError(reply, ctx, 'invalid_request', 'Only streamed calls are served: send `stream: true`.');

    // Fault responses-replay-new: the Idempotency-Key is ignored, a replay executes (and charges) again.
    const idem =
      ctx.fault === 'responses-replay-new'
        ? { kind: 'none' as const }
        : idempotencyOf(ctx, request, account, PATH);
    const refused = refuseKey(reply, ctx, idem);
    if (refused) return refused;
    // Fault stream-replay-reexecutes: the idempotency store keeps JSON replies only, so a streamed call
    // replayed with its key executes (and charges) again.
    const storeSkipsStream =
      ctx.fault === 'stream-replay-reexecutes' && (request.body as Body)?.stream === true;
    if (idem.kind === 'replay' && !storeSkipsStream) {
      markReplayed(reply, ctx);
      return answer(request, reply, idem.result as ResponsesResult);
    }

    // Fault responses-stream-any-model (issue 22): a streamed call skips the native-responses check.
    const streamLax = ctx.fault === 'responses-stream-any-model' && body.stream === true;
    const resolved = resolveModel(ctx, account, body.model, streamLax ? 'chat' : 'responses');
    if ('error' in resolved) return sendError(reply, ctx, resolved.error, resolved.message);
    const { model } = resolved;
    const inputTokens = messageTokens(texts);
    const output = completionFor(ctx, max as number | undefined);
    const hold = holdFor(model, inputTokens, max as number | undefined);
    if (!canAfford(account, hold)) {
      return sendError(reply, ctx, 'insufficient_points', 'The available points do not cover this request.');
    }
    const settlement = settle(ctx, account, {
      endpoint: PATH,
      model,
      recordedModel: body.model,
      requestId: request.id,
      promptTokens: inputTokens,
      completionTokens: output,
      hold,
    });
    const result: ResponsesResult = {
      id: newId('resp_'),
      messageId: newId('msg_'),
      createdAt: Math.floor(Date.now() / 1000),
      model: replyModelName(ctx, body.model as string),
      pieces: replyPieces(output),
      inputTokens,
      outputTokens: output,
      settlement,
      stream: body.stream === true,
      cut: typeof max === 'number' && max < COMPLETION_CAP,
    };
    remember(account, idem, result);
    return answer(request, reply, result);
  });

  function answer(request: FastifyRequest, reply: FastifyReply, result: ResponsesResult): FastifyReply {
    // Fault legacy-responses-points (issue 22): the legacy format is ignored on responses only.
    const send = ctx.fault === 'legacy-responses-points' ? sendPlain : sendJson;
    if (!result.stream) return send(ctx, request, reply, responseOf(ctx, result));
    // Fault legacy-stream-points: a stream keeps its points fields under the legacy Accept header.
    const legacy = wantsLegacy(ctx, request) && ctx.fault !== 'legacy-stream-points';
    const text = eventsOf(ctx, result).map(({ event, data }) => {
      const payload =
        typeof data === 'string'
          ? data === ''
            ? ''
            : ` ${data}`
          : ` ${JSON.stringify(legacy ? toLegacy(ctx, data, request) : data)}`;
      const name = ctx.fault === 'responses-unnamed-events' ? '' : `event: ${event}\n`;
      return `${name}data:${payload}\n\n`;
    });
    const type =
      ctx.fault === 'responses-json-stream'
        ? 'application/json; charset=utf-8'
        : 'text/event-stream; charset=utf-8';
    return streamer.send(reply, type, text);
  }
}

function responseOf(
  ctx: RefContext,
  result: ResponsesResult,
  status = 'completed',
  streamed = false,
): Record<string, unknown> {
  let billing = billingOf(ctx, result.settlement);
  // Fault stream-billing-numbers: a streamed response's charge is a JSON number.
  if (streamed && billing && ctx.fault === 'stream-billing-numbers')
    billing = { ...billing, charged_points: Number(billing.charged_points) };
  return {
    id: result.id,
    object: 'response',
    created_at: result.createdAt,
    model: result.model,
    status,
    output: [
      {
        type: 'message',
        id: result.messageId,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: result.pieces.join(''), annotations: [] }],
      },
    ],
    usage: {
      input_tokens: result.inputTokens,
      output_tokens: result.outputTokens,
      total_tokens: result.inputTokens + result.outputTokens,
    },
    ...(billing ? { billing } : {}),
  };
}

interface StreamEvent {
  event: string;
  /** '' sends an empty data line; another string is sent as it stands (plain text). */
  data: Record<string, unknown> | string;
}

/**
 * response.created, one response.output_text.delta per token, then exactly one terminal event
 * carrying the whole response: response.completed, or response.incomplete where the cap cut the reply. Variant responses-extra-events adds events the
 * contract does not show, some between the deltas.
 */
function eventsOf(ctx: RefContext, result: ResponsesResult): StreamEvent[] {
  const extra = isVariant(ctx, 'responses-extra-events');
  const created = {
    id: result.id,
    object: 'response',
    created_at: result.createdAt,
    model: result.model,
    // Variant points-null-until-settled: the billing's fields present, null until the call is settled.
    ...(isVariant(ctx, 'points-null-until-settled')
      ? { billing: { charged_points: null, released_points: null } }
      : {}),
  };
  const ev = (event: string, data: Record<string, unknown> | '' = {}): StreamEvent => ({
    event,
    data: data === '' ? '' : { type: event, ...data },
  });
  const part = { item_id: result.messageId, output_index: 0, content_index: 0 };
  const events: StreamEvent[] = [
    ev('response.created', { response: { ...created, status: 'in_progress', output: [] } }),
  ];
  if (extra) {
    events.push(ev('response.in_progress', { response: { ...created, status: 'in_progress', output: [] } }));
    events.push(ev('response.content_part.added', { ...part, part: { type: 'output_text', text: '' } }));
  }
  // Variant responses-zero-length-delta: a zero-length increment opens the text.
  if (isVariant(ctx, 'responses-zero-length-delta'))
    events.push(ev('response.output_text.delta', { ...part, delta: '' }));
  // Variant responses-empty-delta-omitted: the same zero-length increment written by a serializer that
  // leaves out empty strings (Go's omitempty): its `delta` member is absent.
  if (isVariant(ctx, 'responses-empty-delta-omitted')) events.push(ev('response.output_text.delta', part));
  // Variant responses-plain-deltas: each increment is plain text (the first one empty, one a number).
  const plain = isVariant(ctx, 'responses-plain-deltas');
  if (plain) events.push({ event: 'response.output_text.delta', data: '' });
  for (const [i, piece] of result.pieces.entries()) {
    events.push(
      plain
        ? { event: 'response.output_text.delta', data: i === 1 ? '42' : piece }
        : ctx.fault === 'responses-empty-delta'
          ? ev('response.output_text.delta', '')
          : // Fault responses-delta-textless: the deltas name their part and lose their text.
            ev(
              'response.output_text.delta',
              // Fault responses-delta-text-dropped: the second token's delta loses its text (member left out).
              ctx.fault === 'responses-delta-textless' ||
                (ctx.fault === 'responses-delta-text-dropped' && i === 1)
                ? part
                : { ...part, delta: ctx.fault === 'responses-blank-deltas' ? '' : piece },
            ),
    );
    if (extra && i === 0)
      events.push(ev('response.in_progress', { response: { ...created, status: 'in_progress' } }));
  }
  if (extra) events.push(ev('response.output_text.done', { ...part, text: result.pieces.join('') }));
  // A reply cut by its cap ends response.incomplete, a natural end response.completed. Fault
  // responses-never-completed: every stream ends response.incomplete, natural ends too. Fault
  // responses-no-terminal-natural: a natural end has no terminal event (a cut one keeps its own).
  if (
    ctx.fault !== 'responses-no-terminal' &&
    !(ctx.fault === 'responses-no-terminal-natural' && !result.cut)
  ) {
    if (result.cut || ctx.fault === 'responses-never-completed')
      events.push(
        ev('response.incomplete', {
          response: {
            ...responseOf(ctx, result, 'incomplete', true),
            incomplete_details: { reason: 'max_output_tokens' },
          },
        }),
      );
    else events.push(ev('response.completed', { response: responseOf(ctx, result, 'completed', true) }));
  }
  if (ctx.fault === 'responses-two-terminals') {
    events.push(
      ev('response.failed', {
        response: {
          ...responseOf(ctx, result, 'failed'),
          error: { code: 'server_error', message: 'Failed.' },
        },
      }),
    );
  }
  // Fault responses-stream-model-substituted: a stream ends naming another model than the one asked.
  if (ctx.fault === 'responses-stream-model-substituted')
    for (const e of events)
      if (typeof e.data !== 'string' && e.event !== 'response.output_text.delta') {
        const response = e.data.response as Record<string, unknown> | undefined;
        if (response) e.data = { ...e.data, response: { ...response, model: `${result.model}-mini` } };
      }
  return events;
}
