// Transport faults: a target that misbehaves below the level of the contract's shapes. Each one hits
// a single read endpoint (GET, after authentication, scopes and the rate-limit guard accepted the
// request), so a fault run stays short and every other endpoint keeps answering normally:
//   transport-hang          GET /v1/balance          no status line, no headers; the socket stays open
//   transport-reset         GET /v1/usage            the connection is reset (TCP RST), nothing sent
//   transport-500           GET /v1/ledger           500 with an APIError body
//   transport-truncated     GET /v1/models           Content-Length of the whole body, half of it sent, then FIN
//   transport-invalid-json  GET /v1/support/tickets  200 application/json whose body is not JSON
// The openapi description is left as it is: the target claims to serve the documented answers.
// And one conformant behaviour (a variant), registered before everything else:
//   keepalive-close-on-reuse  every REUSE_CLOSE_EVERY-th request on a reused connection: the socket is closed
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pathOf, type RefContext } from './context.ts';
import { sendError } from './errors.ts';
import { REUSE_CLOSE_EVERY } from './faults/transport.ts';
import { isVariant } from './reach.ts';

/** A hanging request is dropped by the server after this long, so no socket is held forever. */
export const HANG_LIMIT_MS = 120_000;

export const TRANSPORT_PATHS = {
  'transport-hang': '/v1/balance',
  'transport-reset': '/v1/usage',
  'transport-500': '/v1/ledger',
  'transport-truncated': '/v1/models',
  'transport-invalid-json': '/v1/support/tickets',
} as const;

type TransportFault = keyof typeof TRANSPORT_PATHS;

/** Body of transport-invalid-json: the start of a list that never closes. */
export const INVALID_JSON_BODY = '{"data": [';

function isTransportFault(fault: string | undefined): fault is TransportFault {
  return fault !== undefined && Object.hasOwn(TRANSPORT_PATHS, fault);
}

/** Registered after authentication and the guards: only an accepted GET of the fault's endpoint is hit. */
export function registerTransport(
  app: FastifyInstance,
  ctx: RefContext,
  hangLimitMs: number = HANG_LIMIT_MS,
): void {
  const fault = ctx.fault;
  if (!isTransportFault(fault)) return;
  const path = TRANSPORT_PATHS[fault];
  const hit = (request: FastifyRequest) =>
    request.method === 'GET' && request.caller !== null && pathOf(request.url) === path;

  if (fault === 'transport-truncated') {
    // The real body is produced; its length is announced, half of it is written, and `Connection:
    // close` makes Node end the socket once the response is finished.
    app.addHook('onSend', async (request, reply, payload) => {
      if (!hit(request) || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
      const body = Buffer.from(payload);
      reply.header('content-length', String(body.length)).header('connection', 'close');
      return Readable.from([body.subarray(0, Math.floor(body.length / 2))]);
    });
    return;
  }

  app.addHook('onRequest', async (request, reply) => {
    if (!hit(request)) return;
    switch (fault) {
      case 'transport-500':
        return sendError(reply, ctx, 'internal_error', 'Internal error.');
      case 'transport-invalid-json':
        return reply.code(200).type('application/json; charset=utf-8').send(INVALID_JSON_BODY);
      case 'transport-reset': {
        reply.hijack();
        const socket = request.raw.socket;
        // resetAndDestroy sends a TCP RST (the client sees ECONNRESET), not an orderly close.
        if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket.destroy();
        return reply;
      }
      case 'transport-hang': {
        reply.hijack();
        const socket = request.raw.socket;
        // Bounded on this side too: the socket is dropped after hangLimitMs unless the client (or
        // close(), which ends every connection: forceCloseConnections) closes it first.
        const timer = setTimeout(() => socket.destroy(), hangLimitMs);
        timer.unref();
        socket.once('close', () => clearTimeout(timer));
        return reply;
      }
    }
  });
}

/**
 * Variant keepalive-close-on-reuse: the race every HTTP client meets behind a load balancer that closes
 * idle kept-alive connections. A request that arrives on a connection which served one before is read
 * (its head), and every REUSE_CLOSE_EVERY-th of them gets its socket closed (FIN) without a byte of
 * reply: the request is not processed. A request on a fresh connection is always served.
 */
export function registerReuseClose(app: FastifyInstance, ctx: RefContext): void {
  if (!isVariant(ctx, 'keepalive-close-on-reuse')) return;
  const served = new WeakMap<Socket, number>();
  let reuses = 0;
  app.addHook('onRequest', async (request, reply) => {
    const socket = request.raw.socket;
    const before = served.get(socket) ?? 0;
    served.set(socket, before + 1);
    if (before === 0 || ++reuses % REUSE_CLOSE_EVERY !== 0) return;
    reply.hijack();
    socket.destroy();
    return reply;
  });
}
