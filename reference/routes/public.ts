// Public endpoints: "Only `GET /healthz` is public; `GET /status` is public too", plus the description.
import type { FastifyInstance } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { isVariant } from '../reach.ts';

export function registerPublic(app: FastifyInstance, ctx: RefContext, openapi: () => object): void {
  app.get('/healthz', async (_request, reply) => {
    if (isVariant(ctx, 'healthz-text')) return reply.type('text/plain; charset=utf-8').send('ok');
    return { status: 'ok' };
  });

  app.get('/status', async (_request, reply) => {
    if (ctx.fault === 'status-500') return sendError(reply, ctx, 'internal_error', 'Status is unavailable.');
    // Fault status-absent: the route is not there (the reference's 404 of any unknown route).
    if (ctx.fault === 'status-absent') return sendError(reply, ctx, 'not_found', 'No endpoint GET /status.');
    if (isVariant(ctx, 'healthz-text')) {
      return reply
        .type('text/html; charset=utf-8')
        .send('<!doctype html><title>Status</title><p>All systems operational. No incidents.</p>');
    }
    return { status: 'operational', incidents: [] };
  });

  app.get('/openapi.json', async (_request, reply) => {
    // Fault openapi-absent: no description is served (the framework's own 404), the API itself works.
    if (ctx.fault === 'openapi-absent')
      return reply
        .code(404)
        .type('application/json; charset=utf-8')
        .send({ message: 'Route GET:/openapi.json not found', error: 'Not Found', statusCode: 404 });
    // Variant openapi-served-as-text: the description is sent as text/plain (and described so).
    if (isVariant(ctx, 'openapi-served-as-text'))
      return reply.type('text/plain; charset=utf-8').send(JSON.stringify(openapi()));
    return openapi();
  });
}
