// Endpoints of fixtures/endpoints.yaml that no area module implements yet: authenticated, then 501.
import type { FastifyInstance } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { ENDPOINTS } from '../fixtures.ts';

/** Registers the stubs and returns their "METHOD /path" keys (the description declares 501 for them). */
export function registerPending(app: FastifyInstance, ctx: RefContext): Set<string> {
  const pending = new Set<string>();
  for (const { method, path } of ENDPOINTS) {
    const url = path.replace(/\{(\w+)\}/g, ':$1');
    if (app.hasRoute({ method, url })) continue;
    pending.add(`${method} ${path}`);
    app.route({
      method,
      url,
      handler: async (_request, reply) =>
        sendError(
          reply,
          ctx,
          'not_implemented',
          `${method} ${path} is not implemented by the reference yet.`,
        ),
    });
  }
  return pending;
}
