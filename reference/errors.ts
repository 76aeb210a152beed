// Every error the reference sends goes through here, so the APIError shape, the codes and the
// fault/variant deviations live in one table.
import type { FastifyReply } from 'fastify';
import type { RefContext } from './context.ts';
import { REFUSAL_429_EVERY } from './guard-rates.ts';
import { patchedError } from './patch.ts';
import { isVariant } from './reach.ts';

interface ErrorSpec {
  status: number;
  code: string;
  type: string;
}

const ERRORS = {
  invalid_api_key: { status: 401, code: 'invalid_api_key', type: 'authentication_error' },
  key_expired: { status: 401, code: 'invalid_api_key', type: 'authentication_error' },
  // A 401 under another code than the stated one (a place fault's patch: reference/faults/places.ts).
  unauthorized: { status: 401, code: 'unauthorized', type: 'authentication_error' },
  ip_not_allowed: { status: 403, code: 'ip_not_allowed', type: 'permission_error' },
  insufficient_scope: { status: 403, code: 'insufficient_scope', type: 'permission_error' },
  model_not_allowed: { status: 403, code: 'model_not_allowed', type: 'permission_error' },
  not_found: { status: 404, code: 'not_found', type: 'invalid_request_error' },
  // "404 ... wrong model id or wrong endpoint type (media model sent to chat)"
  model_not_found: { status: 404, code: 'model_not_found', type: 'invalid_request_error' },
  wrong_endpoint_type: { status: 404, code: 'wrong_endpoint_type', type: 'invalid_request_error' },
  // A text model whose catalog entry does not mark native responses support, on /v1/responses.
  unsupported_endpoint: { status: 400, code: 'unsupported_endpoint', type: 'invalid_request_error' },
  // Same Idempotency-Key, different request.
  idempotency_conflict: { status: 409, code: 'idempotency_conflict', type: 'invalid_request_error' },
  // The spend protection: the call's hold exceeds the available points.
  insufficient_points: { status: 429, code: 'insufficient_points', type: 'rate_limit_error' },
  // A listed model without points configuration cannot be billed, and no zero quote is invented.
  points_not_configured: { status: 503, code: 'points_not_configured', type: 'api_error' },
  // Variant upstream-unavailable-sometimes: "When a model is unavailable the service returns an error".
  model_unavailable: { status: 503, code: 'model_unavailable', type: 'api_error' },
  // The contract's stated code for parameters outside published ranges and unknown fields.
  invalid_request: { status: 400, code: 'invalid_request', type: 'invalid_request_error' },
  // Malformed bodies: the contract gives no code, the reference reuses invalid_request.
  malformed_request: { status: 400, code: 'invalid_request', type: 'invalid_request_error' },
  payload_too_large: { status: 413, code: 'payload_too_large', type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, code: 'unsupported_media_type', type: 'invalid_request_error' },
  rate_limited: { status: 429, code: 'rate_limited', type: 'rate_limit_error' },
  // The spend guard ("four guards exist per account: ... and spend"): "429 | rate limit or protection".
  spend_limit_reached: { status: 429, code: 'spend_limit_reached', type: 'rate_limit_error' },
  // Fault spend-guard-403: the spend guard's refusal as a policy refusal.
  spend_limit_forbidden: { status: 403, code: 'spend_limit_reached', type: 'permission_error' },
  // Fault concurrency-guard-503: the concurrency guard's refusal as an overload.
  overloaded: { status: 503, code: 'overloaded', type: 'api_error' },
  internal_error: { status: 500, code: 'internal_error', type: 'api_error' },
  not_implemented: { status: 501, code: 'not_implemented', type: 'api_error' },
  // --- tickets and payments (routes/tickets.ts, routes/payments.ts)
  // "429 ... more than 10 unresolved support tickets"
  ticket_limit_reached: { status: 429, code: 'ticket_limit_reached', type: 'rate_limit_error' },
  // "an enterprise request returns 403" on the deprecated payment interface.
  payment_not_allowed: { status: 403, code: 'payment_not_allowed', type: 'permission_error' },
  // --- media (routes/media-*.ts)
  // "429 ... input quota insufficient"
  input_quota_exceeded: { status: 429, code: 'input_quota_exceeded', type: 'rate_limit_error' },
  // "deleting an input still referenced by an active job is refused"
  input_in_use: { status: 409, code: 'input_in_use', type: 'invalid_request_error' },
  // Variant foreign-ids-403: another tenant's input, job or asset. ("Foreign ... ids may be 403 or 404")
  resource_forbidden: { status: 403, code: 'resource_forbidden', type: 'permission_error' },
  // Fault invalid-code: media validation refusals under a code other than the stated invalid_request.
  bad_parameter: { status: 400, code: 'bad_parameter', type: 'invalid_request_error' },
  // Variant parameter-types-422: a media parameter of the wrong type, as a schema validator refuses it.
  validation_error: { status: 422, code: 'validation_error', type: 'invalid_request_error' },
} satisfies Record<string, ErrorSpec>;

export type ErrorKind = keyof typeof ERRORS;

// Variant error-codes: every code the contract does not state changes, and every type.
const OTHER_CODES: Record<ErrorKind, ErrorSpec> = {
  invalid_api_key: { status: 401, code: 'invalid_api_key', type: 'auth' },
  key_expired: { status: 401, code: 'invalid_api_key', type: 'auth' },
  unauthorized: { status: 401, code: 'unauthorized', type: 'auth' },
  ip_not_allowed: { status: 403, code: 'permission_denied', type: 'forbidden' },
  insufficient_scope: { status: 403, code: 'permission_denied', type: 'forbidden' },
  model_not_allowed: { status: 403, code: 'permission_denied', type: 'forbidden' },
  not_found: { status: 404, code: 'route_not_found', type: 'not_found' },
  model_not_found: { status: 404, code: 'unknown_model', type: 'not_found' },
  wrong_endpoint_type: { status: 404, code: 'model_endpoint_mismatch', type: 'not_found' },
  unsupported_endpoint: { status: 400, code: 'responses_not_supported', type: 'client_error' },
  idempotency_conflict: { status: 409, code: 'idempotency_key_reused', type: 'conflict' },
  insufficient_points: { status: 429, code: 'spend_guard', type: 'throttled' },
  points_not_configured: { status: 503, code: 'model_unpriced', type: 'server' },
  model_unavailable: { status: 503, code: 'upstream_down', type: 'server' },
  invalid_request: { status: 400, code: 'invalid_request', type: 'client_error' },
  malformed_request: { status: 400, code: 'malformed_body', type: 'client_error' },
  payload_too_large: { status: 413, code: 'body_too_large', type: 'client_error' },
  unsupported_media_type: { status: 415, code: 'bad_content_type', type: 'client_error' },
  rate_limited: { status: 429, code: 'too_many_requests', type: 'throttled' },
  spend_limit_reached: { status: 429, code: 'spend_cap', type: 'throttled' },
  spend_limit_forbidden: { status: 403, code: 'spend_cap', type: 'forbidden' },
  overloaded: { status: 503, code: 'busy', type: 'server' },
  internal_error: { status: 500, code: 'server_error', type: 'server' },
  not_implemented: { status: 501, code: 'unsupported', type: 'server' },
  // --- tickets and payments
  ticket_limit_reached: { status: 429, code: 'too_many_open_tickets', type: 'throttled' },
  payment_not_allowed: { status: 403, code: 'permission_denied', type: 'forbidden' },
  // --- media
  input_quota_exceeded: { status: 429, code: 'storage_quota_full', type: 'throttled' },
  input_in_use: { status: 409, code: 'input_referenced', type: 'conflict' },
  resource_forbidden: { status: 403, code: 'permission_denied', type: 'forbidden' },
  bad_parameter: { status: 400, code: 'bad_parameter', type: 'client_error' },
  validation_error: { status: 422, code: 'schema_violation', type: 'client_error' },
};

function specOf(ctx: RefContext, kind: ErrorKind): ErrorSpec {
  if (kind === 'key_expired' && isVariant(ctx, 'expired-403')) {
    return { status: 403, code: 'key_expired', type: 'permission_error' };
  }
  // Variant scope-refusal-401: a key refused for its scope answers 401 (judging.md: "refused with 403 or 401").
  if (kind === 'insufficient_scope' && isVariant(ctx, 'scope-refusal-401')) {
    return { status: 401, code: 'insufficient_scope', type: 'authentication_error' };
  }
  if (kind === 'model_not_found' && isVariant(ctx, 'unknown-model-403')) {
    return ERRORS.model_not_allowed;
  }
  // Variant runs-out-refused-403: a balance that cannot cover a call is refused as an account policy
  // ("403 | account, model or call policy forbids"; its status is not stated), on a 50-point account.
  // Variant unaffordable-job-402: the same refusal as HTTP's own 402 Payment Required.
  if (kind === 'insufficient_points' && isVariant(ctx, 'unaffordable-job-402')) {
    return { status: 402, code: 'insufficient_points', type: 'payment_required' };
  }
  if (kind === 'insufficient_points' && isVariant(ctx, 'runs-out-refused-403')) {
    return { status: 403, code: 'insufficient_points', type: 'permission_error' };
  }
  const spec = isVariant(ctx, 'error-codes') ? OTHER_CODES[kind] : ERRORS[kind];
  if (kind === 'idempotency_conflict' && isVariant(ctx, 'idem-conflict-422')) return { ...spec, status: 422 };
  if (spec.status === 401 && ctx.fault === 'auth-wrong-code') return { ...spec, code: 'unauthorized' };
  return spec;
}

const FLAT_REFUSALS: Partial<Record<string, ErrorKind>> = {
  'scope-refusal-flat': 'insufficient_scope',
  'spend-refusal-flat': 'insufficient_points',
  'quota-refusal-flat': 'input_quota_exceeded',
};

export function errorResponse(
  ctx: RefContext,
  kind: ErrorKind,
  message: string,
): { status: number; body: unknown } {
  const { status, code, type } = specOf(ctx, kind);
  if (status === 401 && ctx.fault === 'error-shape-flat')
    return { status, body: { error: 'invalid api key' } };
  // Faults scope-refusal-flat, spend-refusal-flat, quota-refusal-flat: that refusal's body is
  // {"error": "<message>"}, not the APIError object.
  if (ctx.fault !== undefined && FLAT_REFUSALS[ctx.fault] === kind)
    return { status, body: { error: message } };
  return { status, body: { error: { code, message, type } } };
}

/** Variant guard-429-refusals: the 4xx refusals of each account, counted (per server). */
const refusals = new WeakMap<RefContext, Map<string, number>>();

/**
 * Variant guard-429-refusals: a protection that trips on a client sending invalid requests. Every
 * REFUSAL_429_EVERY-th 4xx refusal (other than 429) of an authenticated account is answered 429
 * rate_limited, Retry-After: 1.
 */
function refusalLimited(reply: FastifyReply, ctx: RefContext, status: number): boolean {
  const account = reply.request.caller?.account;
  if (!isVariant(ctx, 'guard-429-refusals') || !account || status < 400 || status >= 500 || status === 429)
    return false;
  const counts = refusals.get(ctx) ?? new Map<string, number>();
  refusals.set(ctx, counts);
  const n = (counts.get(account.id) ?? 0) + 1;
  counts.set(account.id, n);
  return n % REFUSAL_429_EVERY === 0;
}

/** nginx's page for a 502 (its default error page, as a load balancer in front of a service sends it). */
const BAD_GATEWAY_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

export function sendError(
  reply: FastifyReply,
  ctx: RefContext,
  refusal: ErrorKind,
  message: string,
): FastifyReply {
  // Variant proxy-502-page: an upstream down is answered by the load balancer in front of the service, as
  // nginx does: 502 with its HTML page, no APIError (its status and body advisory, never failed).
  if (refusal === 'model_unavailable' && isVariant(ctx, 'proxy-502-page'))
    return reply.code(502).type('text/html').send(BAD_GATEWAY_PAGE);
  // A fault's patch may answer this refusal as another kind on this endpoint (reference/patch.ts).
  const kind = patchedError(ctx, reply.request, refusal);
  if (refusalLimited(reply, ctx, specOf(ctx, kind).status)) {
    reply.header('Retry-After', '1');
    return sendError(reply, ctx, 'rate_limited', 'A guard of this account refused the request; retry later.');
  }
  const { status, body } = errorResponse(ctx, kind, message);
  // Fault media-not-found-flat: a media resource that is not found answers {"error": "<message>"}.
  const flat =
    ctx.fault === 'media-not-found-flat' &&
    kind === 'not_found' &&
    reply.request.url.startsWith('/v1/media/');
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(flat ? { error: message } : body);
}
