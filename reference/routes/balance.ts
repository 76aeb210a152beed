// GET /v1/balance: points as exact decimal strings, available = total - held.
import type { FastifyInstance } from 'fastify';
import { points as decimalString, Exact } from '../billing.ts';
import type { RefContext } from '../context.ts';
import { sendJson } from '../legacy.ts';
import { mediaStore } from '../media/store.ts';
import { isVariant } from '../reach.ts';
import { callerOf } from './caller.ts';

/** "images and video together share 10 GiB per account" */
export const STORAGE = { limit: 10737418240, unit: 'bytes' } as const;

/** Fault balance-stuck: each account's balance at its first read, shown ever after. */
const firstRead = new WeakMap<
  object,
  { total: string; held: string; available: InstanceType<typeof Exact> }
>();
function opening(account: { totalPoints: string; heldPoints: string }) {
  let first = firstRead.get(account);
  if (!first) {
    const { totalPoints: total, heldPoints: held } = account;
    first = { total, held, available: new Exact(total).minus(held) };
    firstRead.set(account, first);
  }
  return first;
}

export function registerBalance(app: FastifyInstance, ctx: RefContext): void {
  // Fault wrong-method-200: the methods the endpoint table does not give /v1/balance answer 200 {}.
  if (ctx.fault === 'wrong-method-200')
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/v1/balance',
      handler: async (_request, reply) => reply.code(200).send({}),
    });
  app.get('/v1/balance', async (request, reply) => {
    const { account } = callerOf(request);
    let { totalPoints, heldPoints } = account;
    // Fault media-hold-unseen: the holds of media jobs not yet settled are left out of held_points.
    if (ctx.fault === 'media-hold-unseen') {
      const jobHolds = [...mediaStore(ctx.state).jobs.values()]
        .filter((j) => j.accountId === account.id && (j.settlement === 'open' || j.settlement === 'unpaid'))
        .reduce((sum, j) => sum.plus(j.hold), new Exact(0));
      heldPoints = decimalString(new Exact(heldPoints).minus(jobHolds));
    }
    let available = new Exact(totalPoints).minus(heldPoints);
    if (ctx.fault === 'balance-available-off') available = available.plus(1);
    // Fault balance-stuck: the balance of the account as it opened, whatever was spent since.
    if (ctx.fault === 'balance-stuck')
      ({ total: totalPoints, held: heldPoints, available } = opening(account));
    const value = (v: string) =>
      ctx.fault === 'balance-number' || ctx.fault === 'points-numbers' ? Number(v) : v;
    const points = {
      total_points: value(totalPoints),
      ...(ctx.fault === 'balance-missing-held' ? {} : { held_points: value(heldPoints) }),
      // Fault spend-unmeasurable: no available points (nor any spend in the replies).
      ...(ctx.fault === 'spend-unmeasurable' ? {} : { available_points: value(decimalString(available)) }),
    };
    const body = isVariant(ctx, 'balance-envelope')
      ? { data: { ...points, unit: 'service_points' } }
      : {
          object: 'balance',
          unit: 'service_points',
          ...points,
          // Variant balance-storage-unit: the account's shared input space, with its own unit.
          ...(isVariant(ctx, 'balance-storage-unit') ? { storage: STORAGE } : {}),
          // Variant balance-purchased-points: "balance, held points, platform points" split by origin.
          ...(isVariant(ctx, 'balance-purchased-points')
            ? { purchased_points: value(totalPoints), platform_points: value('0') }
            : {}),
          // Fault platform-points-number: the platform points as a JSON number.
          ...(ctx.fault === 'platform-points-number' ? { platform_points: 0 } : {}),
        };
    if (ctx.fault === 'balance-text-plain')
      return reply.type('text/plain; charset=utf-8').send(JSON.stringify(body));
    return sendJson(ctx, request, reply, body);
  });
}
