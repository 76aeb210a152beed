// GET /v1/usage: "per-request token usage, model and charged amount" of the calling account, newest
// first. The envelope and record fields beyond charged_points are not shown by the contract.
import type { FastifyInstance } from 'fastify';
import { usageView } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { sendJson } from '../legacy.ts';
import { isVariant } from '../reach.ts';
import type { ApiKey, UsageRecord } from '../state.ts';
import { callerOf } from './caller.ts';
import { sendPaged } from './pages.ts';

// Fault enterprise-second-separate-usage: the second enterprise key's own list, copied at its first read.
const separate = new WeakMap<ApiKey, UsageRecord[]>();
function separateUsage(key: ApiKey): UsageRecord[] {
  let own = separate.get(key);
  if (!own) {
    own = [...key.account.usage];
    separate.set(key, own);
  }
  return own;
}

const USAGE_LAG_MS = 3_000;

export function registerUsage(app: FastifyInstance, ctx: RefContext): void {
  let reads = 0;
  app.get('/v1/usage', async (request, reply) => {
    if (ctx.fault === 'usage-unavailable')
      return sendError(reply, ctx, 'internal_error', 'Usage is unavailable.');
    // Fault usage-cross-tenant: every account's records (by time), not only the caller's.
    const caller = callerOf(request);
    const usage =
      ctx.fault === 'usage-cross-tenant'
        ? ctx.state.accounts.flatMap((a) => a.usage).sort((a, b) => a.createdAt.localeCompare(b.createdAt))
        : ctx.fault === 'enterprise-second-separate-usage' && caller.role === 'enterprise_second'
          ? separateUsage(caller)
          : caller.account.usage;
    const paged = sendPaged(
      ctx,
      request,
      reply,
      usage.map((r) => usageView(ctx, r)),
    );
    if (paged) return paged;
    // Variant usage-record-lag: a record is listed only USAGE_LAG_MS after its call (when it appears is
    // not stated).
    const now = Date.now();
    const listed = isVariant(ctx, 'usage-record-lag')
      ? usage.filter((r) => Date.parse(r.createdAt) + USAGE_LAG_MS <= now)
      : usage;
    const records = [...listed].reverse().map((r) => usageView(ctx, r));
    // Variant usage-charge-respelled: every other read writes each charge with one more trailing zero
    // ("1.5", then "1.50"): the same exact decimal.
    if (isVariant(ctx, 'usage-charge-respelled') && reads++ % 2 === 1)
      for (const r of records)
        if (typeof r.charged_points === 'string')
          r.charged_points = r.charged_points.includes('.')
            ? `${r.charged_points}0`
            : `${r.charged_points}.0`;
    const body = isVariant(ctx, 'usage-envelope') ? { records } : { object: 'list', data: records };
    return sendJson(ctx, request, reply, body);
  });
}
