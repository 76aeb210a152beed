// The deprecated payment interface: GET /v1/payment-methods and POST /v1/payment-orders. "creation is
// permitted only to personal tenants; an enterprise request returns 403" (the reference refuses the
// method list to enterprises too; a variant allows it). Create body: `method` (alipay or wechat_pay),
// `amount_cny` (string amount in CNY with at most two decimals; above a configured minimum and at
// most 100000), optional `note` (max 120 characters, single line); the reference also rejects
// unknown fields. "Success is 201 and only means a `pending_admin_review` application exists with
// `qr_code` null; it is not a payment and adds no points."
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { FastifyInstance } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { isVariant } from '../reach.ts';
import type { JsonObject } from '../schemas.ts';
import { callerOf } from './caller.ts';

export const METHODS = ['alipay', 'wechat_pay'];
/** The configured minimum (exclusive), published through the handle's `limits.payment_min_cny`. */
export const PAYMENT_MIN_CNY = '1.00';
/** Variant payment-min-unstated: a minimum the deployment does not publish, above the suite's guesses. */
const UNSTATED_MIN_CNY = '2000.00';
export const PAYMENT_MAX_CNY = '100000';
const FIELDS = ['method', 'amount_cny', 'note'];
/** amount_credits: "legacy cash accounting units, 1000000 per CNY". */
const CREDITS_PER_CNY = 1_000_000n;
/** points: the legacy snapshot, 10 per CNY, rounded to an integer. */
const POINTS_PER_CNY = 10;
const Exact = Decimal.clone({ precision: 200 });

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An amount string in thousandths of a CNY, or undefined when it is not a plain decimal. */
function milliCny(amount: string, decimals: number): bigint | undefined {
  const match = new RegExp(`^(0|[1-9][0-9]*)(?:\\.([0-9]{1,${decimals}}))?$`).exec(amount);
  if (!match) return undefined;
  return BigInt(match[1] as string) * 1000n + BigInt((match[2] ?? '').padEnd(3, '0'));
}

interface Order {
  method: string;
  milli: bigint;
  note?: string;
}

/** The order a body asks for, or the first violation of the create body. */
function orderOf(ctx: RefContext, body: unknown): Order | { problem: string } {
  if (!isObject(body)) return { problem: 'The body must be a JSON object.' };
  const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) return { problem: `Unknown field(s): ${unknown.join(', ')}.` };
  const { method, amount_cny: amount, note } = body;
  const laxMethod = ctx.fault === 'order-method-lax' && typeof method === 'string' && method !== '';
  // Fault order-method-case: a method is matched whatever its case (ALIPAY, WeChat_Pay).
  const anyCase =
    ctx.fault === 'order-method-case' && typeof method === 'string' && METHODS.includes(method.toLowerCase());
  if (typeof method !== 'string' || !(METHODS.includes(method) || laxMethod || anyCase))
    return { problem: `\`method\` is required, one of ${METHODS.join(', ')}.` };
  if (typeof amount !== 'string')
    return { problem: '`amount_cny` is required: a string amount in CNY, e.g. "100.00".' };
  const milli = milliCny(amount, ctx.fault === 'order-three-decimals' ? 3 : 2);
  if (milli === undefined)
    return { problem: '`amount_cny` must be a decimal string with at most two decimals, e.g. "100.00".' };
  // Fault order-over-max: the maximum is 1000000 instead of 100000.
  const max = (milliCny(PAYMENT_MAX_CNY, 2) as bigint) * (ctx.fault === 'order-over-max' ? 10n : 1n);
  const min = isVariant(ctx, 'payment-min-unstated') ? UNSTATED_MIN_CNY : PAYMENT_MIN_CNY;
  // Fault order-min-inclusive: the minimum itself is accepted.
  const floor = milliCny(min, 2) as bigint;
  // Fault order-zero-accepted: an amount of 0 is let through.
  const zeroLetThrough = ctx.fault === 'order-zero-accepted' && milli === 0n;
  if (
    !zeroLetThrough &&
    (milli < floor || (milli === floor && ctx.fault !== 'order-min-inclusive') || milli > max)
  )
    return { problem: `\`amount_cny\` must be above ${min} and at most ${PAYMENT_MAX_CNY}.` };
  if (note !== undefined) {
    if (typeof note !== 'string') return { problem: '`note` must be a string.' };
    const noteMax = ctx.fault === 'order-note-119' ? 119 : 120;
    if ([...note].length > noteMax) return { problem: '`note` must be at most 120 characters.' };
    if (/[\r\n]/.test(note) && ctx.fault !== 'order-note-newline')
      return { problem: '`note` must be a single line.' };
  }
  return { method: anyCase ? method.toLowerCase() : method, milli, ...(note === undefined ? {} : { note }) };
}

export function registerPayments(app: FastifyInstance, ctx: RefContext): void {
  app.get('/v1/payment-methods', async (request, reply) => {
    const enterprise = callerOf(request).account.kind === 'enterprise';
    const refused = enterprise
      ? !isVariant(ctx, 'enterprise-methods-allowed')
      : ctx.fault === 'payment-methods-personal-refused';
    // Fault enterprise-methods-401: an enterprise's listing refused as if its key were unknown.
    if (enterprise && ctx.fault === 'enterprise-methods-401')
      return sendError(reply, ctx, 'invalid_api_key', 'The API key is not valid.');
    if (refused) {
      return sendError(
        reply,
        ctx,
        'payment_not_allowed',
        'The deprecated payment interface is not available to this account.',
      );
    }
    return reply
      .type('application/json; charset=utf-8')
      .send({ object: 'list', data: METHODS.map((method) => ({ method })), deprecated: true });
  });

  app.post('/v1/payment-orders', async (request, reply) => {
    const caller = callerOf(request);
    const account = caller.account;
    // Fault payment-second-key-allowed: the enterprise's second named key may create orders.
    // Fault payment-restricted-key-allowed: the check looks at full-scope keys only, so an enterprise's key
    // restricted by scope may create orders.
    const secondKey =
      (ctx.fault === 'payment-second-key-allowed' && caller.role === 'enterprise_second') ||
      (ctx.fault === 'payment-restricted-key-allowed' && caller.scopes !== undefined);
    // Variant payment-min-unstated: the body is validated before the account kind (the order of checks
    // is not shown).
    const early = isVariant(ctx, 'payment-min-unstated') ? orderOf(ctx, request.body) : undefined;
    if (early && 'problem' in early) return sendError(reply, ctx, 'invalid_request', early.problem);
    if (account.kind === 'enterprise' && ctx.fault !== 'enterprise-payment-allowed' && !secondKey) {
      return sendError(
        reply,
        ctx,
        'payment_not_allowed',
        'Payment orders can be created only by personal accounts.',
      );
    }
    const order = orderOf(ctx, request.body);
    if ('problem' in order) return sendError(reply, ctx, 'invalid_request', order.problem);

    // Fault order-credits-mismatch: 100000 credits per CNY.
    const creditsPerMilli =
      (ctx.fault === 'order-credits-mismatch' ? CREDITS_PER_CNY / 10n : CREDITS_PER_CNY) / 1000n;
    const points = Math.round((Number(order.milli) * POINTS_PER_CNY) / 1000);
    // Fault order-credits-wallet: the order's points are added to the balance at once.
    if (ctx.fault === 'order-credits-wallet') {
      account.totalPoints = new Exact(account.totalPoints).plus(points).toFixed();
    }
    const id = `po_${randomBytes(12).toString('hex')}`;
    const approved = ctx.fault === 'order-approved';
    const status = approved
      ? 'approved'
      : isVariant(ctx, 'order-status-pending')
        ? 'pending'
        : 'pending_admin_review';
    const created = {
      id,
      tenant_id: account.id,
      amount_credits: Number(order.milli * creditsPerMilli),
      // Fault order-points-text: the points snapshot as a decimal string, as the points table's are.
      points: ctx.fault === 'order-points-text' ? String(points) : points,
      status,
      has_qr_code: approved,
      ...(isVariant(ctx, 'order-status-pending')
        ? {}
        : { qr_code: approved ? `https://pay.invalid/qr/${id}` : null }),
      created_at: new Date().toISOString(),
      // Fault order-method-lax: an unknown method is accepted, and the order names none.
      ...(METHODS.includes(order.method) ? { payment_method: order.method } : {}),
      ...(order.note === undefined ? {} : { customer_note: order.note }),
      // Variant order-optional-null: the optional fields not set yet are sent as null, not left out.
      ...(isVariant(ctx, 'order-optional-null')
        ? {
            payment_reference: null,
            admin_note: null,
            qr_code_note: null,
            qr_code_set_at: null,
            reviewed_at: null,
            ...(order.note === undefined ? { customer_note: null } : {}),
          }
        : {}),
    };
    // Variant order-envelope: the order in an envelope (the reply's envelope is not shown).
    return reply
      .code(201)
      .type('application/json; charset=utf-8')
      .send(isVariant(ctx, 'order-envelope') ? { object: 'payment_order', order: created } : created);
  });
}

/** Reference shapes of the payment interface, next to the contract's CompatibilityRechargeOrder. */
export function paymentSchemas(ctx: RefContext): Record<string, JsonObject> {
  const approved = ctx.fault === 'order-approved';
  const pending = isVariant(ctx, 'order-status-pending');
  const status = approved ? 'approved' : pending ? 'pending' : 'pending_admin_review';
  const qrCode = pending ? {} : { qr_code: approved ? { type: 'string' } : { type: 'null' } };
  return {
    PaymentMethodList: {
      type: 'object',
      description: 'The legacy payment methods (deprecated).',
      required: ['object', 'data', 'deprecated'],
      properties: {
        object: { const: 'list' },
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['method'],
            properties: { method: { enum: METHODS } },
          },
        },
        deprecated: { const: true },
      },
    },
    ...(isVariant(ctx, 'order-envelope')
      ? {
          PaymentOrderEnvelope: {
            type: 'object',
            required: ['object', 'order'],
            properties: {
              object: { const: 'payment_order' },
              order: { $ref: '#/components/schemas/PaymentOrder' },
            },
          },
        }
      : {}),
    PaymentOrder: {
      description: 'A legacy order awaiting admin review: not a payment, and it adds no points.',
      allOf: [
        { $ref: '#/components/schemas/CompatibilityRechargeOrder' },
        {
          type: 'object',
          required: [...Object.keys(qrCode), ...(ctx.fault === 'order-method-lax' ? [] : ['payment_method'])],
          properties: {
            status: { const: status },
            has_qr_code: { const: approved },
            ...qrCode,
            amount_credits: { minimum: 1 },
            points: { minimum: 0 },
          },
        },
      ],
    },
  };
}
