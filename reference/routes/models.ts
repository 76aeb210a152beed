// GET /v1/models: the calling account's text and embedding catalog (legacy currency format too).
import type { FastifyInstance } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { sendJson, wantsLegacy } from '../legacy.ts';
import { isVariant } from '../reach.ts';
import type { TextModel } from '../state.ts';
import { callerOf } from './caller.ts';

export function registerModels(app: FastifyInstance, ctx: RefContext): void {
  app.get('/v1/models', async (request, reply) => {
    let catalog = callerOf(request).account.catalog;
    // Fault models-empty-401: an empty catalog is taken for a bad key.
    if (ctx.fault === 'models-empty-401' && catalog.length === 0)
      return sendError(reply, ctx, 'invalid_api_key', 'Missing or invalid API key.');
    // Fault legacy-model-ids: "Model ids ... are unchanged" is broken under the legacy format.
    // Fault catalog-omits-embedding: the catalog lists no embedding model, which its calls still take.
    if (ctx.fault === 'catalog-omits-embedding')
      catalog = catalog.filter((m) => !m.capabilities.includes('embedding'));
    // Fault models-forbidden-embedding-listed: the forbidden embedding model is listed (its calls are still refused).
    if (ctx.fault === 'models-forbidden-embedding-listed')
      catalog = [...catalog, ...ctx.state.models.filter((m) => m.id === ctx.state.hints.forbidden_embedding)];
    if (ctx.fault === 'legacy-model-ids' && wantsLegacy(ctx, request))
      catalog = catalog.map((m) => ({ ...m, id: `${m.id}-legacy` }));
    const body = isVariant(ctx, 'models-envelope')
      ? { models: catalog.map((m) => envelopeEntry(ctx, m)) }
      : isVariant(ctx, 'catalog-links')
        ? // Variant catalog-links: links to the list itself before its entries (an empty catalog still empty).
          {
            object: 'list',
            links: [{ rel: 'self', href: '/v1/models' }],
            data: catalog.map((m) => entry(ctx, m)),
          }
        : { object: 'list', data: catalog.map((m) => entry(ctx, m)) };
    return sendJson(ctx, request, reply, body);
  });
}

function entry(ctx: RefContext, model: TextModel): Record<string, unknown> {
  return {
    // Variant catalog-entry-ids: each entry has an id of its own; the model's id is its `model`.
    ...(isVariant(ctx, 'catalog-entry-ids')
      ? { id: `mdl_${Buffer.from(model.id).toString('hex').slice(0, 12)}`, model: model.id }
      : { id: model.id }),
    object: 'model',
    owned_by: 'service',
    capabilities: model.capabilities,
    ...(ctx.fault === 'models-undocumented-shape' ? {} : { context_length: model.contextLength }),
    // Variant catalog-pricing-object: the prices and their flag in an object of their own.
    ...(isVariant(ctx, 'catalog-pricing-object') ? { pricing: pricing(ctx, model) } : pricing(ctx, model)),
    // Variant catalog-names-upgrade: a chat model's entry names, in a field of its own, the model an
    // enterprise plan offers instead (a model outside this catalog, named but not listed).
    ...(isVariant(ctx, 'catalog-names-upgrade') && model.id === ctx.state.hints.chat
      ? { upgrade_model: ctx.state.hints.forbidden }
      : {}),
  };
}

function envelopeEntry(ctx: RefContext, model: TextModel): Record<string, unknown> {
  return {
    model_id: model.id,
    features: model.capabilities,
    max_context_tokens: model.contextLength,
    ...pricing(ctx, model),
  };
}

function pricing(ctx: RefContext, model: TextModel): Record<string, unknown> {
  const prices = model.prices;
  if (!prices) {
    if (ctx.fault === 'models-zero-quote') {
      return {
        request_points_per_million_tokens: '0',
        response_points_per_million_tokens: '0',
        points_configured: false,
      };
    }
    // "points_configured is false or the points fields are omitted, and no zero quote is invented"
    // Variant unpriced-null: the price fields present with null beside points_configured false (no quote).
    if (isVariant(ctx, 'unpriced-null'))
      return {
        request_points_per_million_tokens: null,
        response_points_per_million_tokens: null,
        points_configured: false,
      };
    return isVariant(ctx, 'unpriced-omitted') ? {} : { points_configured: false };
  }
  // Fault models-prices-dropped: the price join misses the embedding model, and the flag goes with it.
  if (ctx.fault === 'models-prices-dropped' && model.capabilities.includes('embedding')) return {};
  const value = (v: string) =>
    ctx.fault === 'models-price-number'
      ? Number(v)
      : // Fault models-price-float-noise: a float per 100,000 tokens, times 10.
        ctx.fault === 'models-price-float-noise'
        ? String(Number(v) * 0.1 * 10)
        : v;
  // Variant embedding-prompt-price-only: an embedding model has no completion to price, and its entry
  // quotes its request price alone.
  if (isVariant(ctx, 'embedding-prompt-price-only') && model.capabilities.includes('embedding'))
    return { request_points_per_million_tokens: value(prices.request), points_configured: true };
  return {
    request_points_per_million_tokens: value(prices.request),
    response_points_per_million_tokens: value(prices.response),
    points_configured: true,
  };
}
