// Internal routing data: per model the upstream key it is bought with, its purchase cost, the node
// and the upstream endpoint serving it. "Upstream keys, purchase cost, internal nodes and routing
// topology are never returned to clients": the conformant server only keeps it; the faults below
// leak it (headers, /v1/models fields).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathOf, type RefContext } from './context.ts';
import { isVariant } from './reach.ts';
import type { JsonObject } from './schemas.ts';
import type { State } from './state.ts';

/** Prefixes no response may ever contain; a target file declares them as `canaries`. */
export const CANARIES = ['sk-upstream-', 'node-internal-'];

export interface Route {
  /** `sk-upstream-<hex>`, random per start. */
  upstreamKey: string;
  /** CNY per 1K tokens, a decimal string. */
  purchaseCost: string;
  /** `node-internal-<n>`. */
  node: string;
  /** host:port of the upstream. */
  endpoint: string;
}

// In the order of state.models: chat, noResponses, embedding, unpriced, premium.
const COSTS = ['0.0021', '0.0014', '0.0001', '0.0009', '0.0180'];

const routings = new WeakMap<State, Map<string, Route>>();

/** Model id -> its route, made once per server state. */
export function routingOf(state: State): Map<string, Route> {
  let routing = routings.get(state);
  if (!routing) {
    routing = new Map(
      state.models.map((model, i) => [
        model.id,
        {
          upstreamKey: `sk-upstream-${randomBytes(16).toString('hex')}`,
          purchaseCost: COSTS[i % COSTS.length] as string,
          node: `node-internal-${7 + i}`,
          endpoint: `10.2.3.${4 + i}:8443`,
        },
      ]),
    );
    routings.set(state, routing);
  }
  return routing;
}

/** The route of the request's `model`, or of the default chat model. */
function routeOf(ctx: RefContext, request: FastifyRequest): Route {
  const routing = routingOf(ctx.state);
  const asked = (request.body as { model?: unknown } | undefined)?.model;
  const route = typeof asked === 'string' ? routing.get(asked) : undefined;
  return route ?? (routing.get(ctx.state.hints.chat as string) as Route);
}

/** The hooks of the leak faults; nothing is registered on a conformant server. */
export function registerInternal(app: FastifyInstance, ctx: RefContext): void {
  routingOf(ctx.state);
  if (ctx.fault === 'upstream-key-header') {
    app.addHook('onSend', async (request, reply) => {
      if (request.caller) reply.header('X-Upstream-Key', routeOf(ctx, request).upstreamKey);
    });
  }
  if (ctx.fault === 'node-header') {
    app.addHook('onSend', async (request, reply) => {
      reply.header('X-Upstream-Node', routeOf(ctx, request).node);
    });
  }
  const field = leakedField(ctx);
  if (field) {
    app.addHook('preSerialization', async (request, reply, payload) => {
      if (pathOf(request.url) !== '/v1/models' || reply.statusCode !== 200) return payload;
      const body = payload as { data?: unknown; models?: unknown };
      const entries = Array.isArray(body.data) ? body.data : Array.isArray(body.models) ? body.models : [];
      const routing = routingOf(ctx.state);
      for (const entry of entries as Record<string, unknown>[]) {
        const route = routing.get(String(entry.id ?? entry.model_id));
        if (route) entry[field.name] = field.value(route, entry);
      }
      return payload;
    });
  }
}

interface LeakedField {
  name: string;
  value: (route: Route, entry: Record<string, unknown>) => string;
}

function leakedField(ctx: RefContext): LeakedField | undefined {
  // Variant customer-cost-field: a customer-facing `cost` (the entry's own request price), no leak at all.
  if (isVariant(ctx, 'customer-cost-field'))
    return { name: 'cost', value: (_r, e) => String(e.request_points_per_million_tokens ?? '0') };
  if (ctx.fault === 'purchase-cost-field') return { name: 'purchase_cost', value: (r) => r.purchaseCost };
  if (ctx.fault === 'routing-field-host') return { name: 'upstream_endpoint', value: (r) => r.endpoint };
  return undefined;
}

/** The description of the leaked /v1/models entry field (the faults are "described so"), or the variant's cost. */
export function leakedFieldSchema(ctx: RefContext): JsonObject | undefined {
  const field = leakedField(ctx);
  if (!field) return undefined;
  return { type: 'object', required: [field.name], properties: { [field.name]: { type: 'string' } } };
}
