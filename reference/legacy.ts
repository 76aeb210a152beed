// The legacy currency format: "the header `Accept: application/vnd.service.currency.v1+json` selects
// the legacy amount fields in place of points fields" on models, balance, usage, ledger and inference.
// The contract does not show the legacy names; the reference renames every points field:
//   *_points_per_million_tokens -> *_amount_per_million_tokens, amount_points -> amount,
//   any other *_points -> *_amount. Values, model ids and token usage stay unchanged.
// Variant legacy-credits-json takes the other allowed reading: the older `*_credits` names
// (*_credits_per_million_tokens, amount_credits, any other *_credits) in an application/json reply.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RefContext } from './context.ts';
import { isVariant } from './reach.ts';

export const LEGACY_TYPE = 'application/vnd.service.currency.v1+json';

/** True when the request selects the legacy format (the media type listed with q > 0). */
export function wantsLegacy(ctx: RefContext, request: FastifyRequest): boolean {
  if (ctx.fault === 'legacy-ignored') return false;
  const accept = request.headers.accept;
  if (typeof accept !== 'string') return false;
  return accept.split(',').some((part) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (type !== LEGACY_TYPE) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Variants legacy-credits-json and legacy-credits-studio: the legacy format names its amounts the older
 * `*_credits` way, in an application/json reply.
 */
export const creditsNamed = (ctx: RefContext | undefined): boolean =>
  isVariant(ctx, 'legacy-credits-json') || isVariant(ctx, 'legacy-credits-studio');

/** The legacy name of a field, or the name itself when it is no points field. */
export function legacyName(field: string, ctx?: RefContext): string {
  if (creditsNamed(ctx)) return field.replace(/_points(_per_million_tokens)?$/, '_credits$1');
  if (field.endsWith('_points_per_million_tokens'))
    return field.replace(/_points_per_million_tokens$/, '_amount_per_million_tokens');
  if (field === 'amount_points') return 'amount';
  if (field.endsWith('_points')) return field.replace(/_points$/, '_amount');
  return field;
}

export function isPointsField(field: string): boolean {
  return legacyName(field) !== field;
}

/**
 * A body in the legacy format: every points field renamed, at any depth. Fault legacy-added keeps
 * the points fields and adds the legacy ones next to them; fault legacy-drops-points leaves them out.
 */
export function toLegacy(ctx: RefContext, node: unknown, request?: FastifyRequest): unknown {
  // Fault legacy-drops-points: the points fields are left out, with nothing in their place; fault
  // legacy-call-drops-points: the same in the replies of calls (POST) only.
  const drop =
    ctx.fault === 'legacy-drops-points' ||
    (ctx.fault === 'legacy-call-drops-points' && request?.method === 'POST');
  return legacyBody(ctx, node, drop);
}

function legacyBody(ctx: RefContext, node: unknown, drop: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => legacyBody(ctx, item, drop));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const converted = legacyBody(ctx, value, drop);
    if (ctx.fault === 'legacy-added' && isPointsField(key)) out[key] = converted;
    if (drop && isPointsField(key)) continue;
    // Fault legacy-model-alias: a reply's model named by a legacy alias of its id.
    if (ctx.fault === 'legacy-model-alias' && key === 'model' && typeof converted === 'string')
      out[key] = `legacy:${converted}`;
    else out[legacyName(key, ctx)] = converted;
  }
  return out;
}

/** Sends a JSON body, in the legacy format (and media type) when the request selects it. */
export function sendJson(
  ctx: RefContext,
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
): FastifyReply {
  if (wantsLegacy(ctx, request)) {
    const type = creditsNamed(ctx) ? 'application/json' : LEGACY_TYPE;
    return reply.type(`${type}; charset=utf-8`).send(toLegacy(ctx, body, request));
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

/** Sends a JSON body in the default (points) format whatever the request selects (a fault's reply). */
export function sendPlain(
  _ctx: RefContext,
  _request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
