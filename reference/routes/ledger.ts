// GET /v1/ledger: "public record of fund movements" of the calling account: the opening top-up (and
// hold) that explain the seeded balance, then one charge per settled call. Newest first, unless a
// variant lists them oldest first.
import type { FastifyInstance } from 'fastify';
import { ledgerView } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { sendJson } from '../legacy.ts';
import { isVariant } from '../reach.ts';
import { callerOf } from './caller.ts';
import { sendPaged } from './pages.ts';

export function registerLedger(app: FastifyInstance, ctx: RefContext): void {
  app.get('/v1/ledger', async (request, reply) => {
    if (ctx.fault === 'ledger-unavailable')
      return sendError(reply, ctx, 'not_found', 'No endpoint GET /v1/ledger.');
    const entries = callerOf(request).account.ledger.map((e) => ledgerView(ctx, e));
    const paged = sendPaged(ctx, request, reply, entries);
    if (paged) return paged;
    if (isVariant(ctx, 'ledger-ascending'))
      return sendJson(ctx, request, reply, { entries, has_more: false });
    return sendJson(ctx, request, reply, { object: 'list', data: entries.reverse() });
  });
}
