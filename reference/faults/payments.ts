// Faults and variants of payment orders and methods (routes/payments.ts).
import { type Fault, req, type Variant } from './probe.ts';

export const PAYMENTS_FAULTS = [
  // routes/payments.ts: the configured minimum itself accepted
  {
    name: 'order-min-inclusive',
    description: 'payment orders accept the configured minimum itself',
    breaks: ['PAY-006'],
    probe: { request: req.payOrder({ amount_cny: '1.00' }), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: a note of exactly 120 characters refused
  {
    name: 'order-note-119',
    description: 'payment orders refuse a note of 120 characters',
    breaks: ['PAY-007'],
    probe: { request: req.payOrder({ note: 'n'.repeat(120) }), holds: (r) => r.status !== 201 },
  },
  // routes/payments.ts: an amount of 0 passes the minimum (a floor check that lets zero through)
  {
    name: 'order-zero-accepted',
    description:
      'payment orders accept an amount of 0 (a floor check that lets zero through); the order of 0 credits also breaks its own description (amount_credits minimum 1)',
    breaks: ['PAY-006', 'RESP-003'],
    probe: { request: req.payOrder({ amount_cny: '0.00' }), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: "| points | integer | required; legacy snapshot": sent as a decimal string, and the
  // deployment's own description leaves it untyped (only the documented schema tells)
  {
    name: 'order-points-text',
    description:
      'a payment order\'s points snapshot is a decimal string ("10005"), not an integer; the live description leaves points untyped',
    breaks: ['PAY-003'],
    probe: { request: req.payOrder({}), holds: (r) => r.status === 201 && typeof r.body.points === 'string' },
    openapi: ({ schemas }) => {
      delete schemas.CompatibilityRechargeOrder.properties.points.type;
    },
  },
  // routes/payments.ts: enterprise keys may create payment orders
  {
    name: 'enterprise-payment-allowed',
    description: 'an enterprise key may create payment orders',
    breaks: ['PAY-002'],
    probe: { request: req.payOrder({}, 'enterprise'), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: the enterprise's second named key may create payment orders
  {
    name: 'payment-second-key-allowed',
    description: "an enterprise's second named key (enterprise_second) may create payment orders",
    breaks: ['PAY-002'],
    probe: { request: req.payOrder({}, 'enterprise_second'), holds: (r) => r.status === 201 },
  },
  // auth.ts, routes/payments.ts: the payment API open to restricted keys, its enterprise check on
  // full-scope keys only
  {
    name: 'payment-restricted-key-allowed',
    description: "an enterprise's keys restricted by scope (restricted_*) may create payment orders",
    breaks: ['PAY-002'],
    probe: { request: req.payOrder({}, 'restricted_usage'), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: the order's points are added to the balance
  {
    name: 'order-credits-wallet',
    description: 'creating a payment order adds its points to the balance',
    breaks: ['PAY-004'],
    probe: {
      run: async ({ ref, balance, payOrder }) => {
        const before = (await balance(ref)).body.total_points;
        await payOrder(ref, {});
        return (await balance(ref)).body.total_points !== before;
      },
    },
  },
  // routes/payments.ts: three decimals accepted
  {
    name: 'order-three-decimals',
    description: 'the amount "10.005" is accepted',
    breaks: ['PAY-006'],
    probe: { request: req.payOrder({ amount_cny: '10.005' }), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: the maximum is 1000000
  {
    name: 'order-over-max',
    description: 'the amount "100000.01" is accepted',
    breaks: ['PAY-006'],
    probe: { request: req.payOrder({ amount_cny: '100000.01' }), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: any method accepted (the order then names none)
  {
    name: 'order-method-lax',
    description: 'the payment method "paypal" is accepted',
    breaks: ['PAY-005'],
    probe: { request: req.payOrder({ method: 'paypal' }), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: a note with a line feed accepted
  {
    name: 'order-note-newline',
    description: 'a payment order note with \\n is accepted',
    breaks: ['PAY-007'],
    probe: { request: req.payOrder({ note: 'a\nb' }), holds: (r) => r.status === 201 },
  },
  // routes/payments.ts: amount_credits = amount_cny x 100000
  {
    name: 'order-credits-mismatch',
    description: 'amount_credits is amount_cny x 100000 instead of x 1000000',
    breaks: ['PAY-008'],
    probe: { request: req.payOrder({}), holds: (r) => r.body.amount_credits !== 100_000_000 },
  },
  // routes/payments.ts + openapi.ts: a new order is approved with a QR code (described so)
  {
    name: 'order-approved',
    description: 'a new order is reported approved, with has_qr_code true and a qr_code',
    breaks: ['PAY-003'],
    probe: { request: req.payOrder({}), holds: (r) => r.body.status === 'approved' },
  },
  // routes/payments.ts: personal tenants are refused the method list
  {
    name: 'payment-methods-personal-refused',
    description: 'GET /v1/payment-methods answers 403 to personal tenants',
    breaks: ['PAY-001'],
    probe: { request: req.call('/v1/payment-methods', { role: 'primary' }), holds: (r) => r.status === 403 },
  },
  // routes/payments.ts: an enterprise's listing is refused as if its key were unknown (401), neither of
  // the two readings (2xx, or the 403 "an enterprise request returns")
  {
    name: 'enterprise-methods-401',
    description: 'GET /v1/payment-methods answers 401 invalid_api_key to enterprise tenants',
    breaks: ['PAY-001'],
    probe: {
      request: req.call('/v1/payment-methods', { role: 'enterprise' }),
      holds: (r) => r.status === 401,
    },
  },
  // routes/payments.ts: the method matched whatever its case
  {
    name: 'order-method-case',
    description: 'the payment method ALIPAY (capitals) is accepted as alipay',
    breaks: ['PAY-005'],
    probe: { request: req.payOrder({ method: 'ALIPAY' }), holds: (r) => r.status === 201 },
  },
] as const satisfies readonly Fault[];

export const PAYMENTS_VARIANTS = [
  // routes/payments.ts: enterprise tenants may list the payment methods (creation stays refused)
  {
    name: 'enterprise-methods-allowed',
    readings: ['PAY-001'],
    description: 'GET /v1/payment-methods answers 200 to enterprise tenants too',
    probe: {
      request: req.call('/v1/payment-methods', { role: 'enterprise' }),
      holds: (r) => r.status === 200,
    },
  },
  // routes/payments.ts + openapi.ts: the created order in an envelope
  {
    name: 'order-envelope',
    readings: ['PAY-003', 'PAY-008'],
    description:
      'a created payment order is answered {object: "payment_order", order: {...}} (and described so): the envelope is not shown',
    probe: { request: req.payOrder({}), holds: (r) => r.body.order?.has_qr_code === false },
  },
  // routes/payments.ts: "payment_reference, admin_note, customer_note, qr_code_note | string | optional",
  // "qr_code_set_at, reviewed_at | date-time | optional", and a new order "with `qr_code` null"
  {
    name: 'order-optional-null',
    readings: ['PAY-003'],
    description:
      'a created payment order carries its optional fields not set yet as null (payment_reference, admin_note, qr_code_note, qr_code_set_at, reviewed_at)',
    probe: { request: req.payOrder({}), holds: (r) => r.status === 201 && r.body.reviewed_at === null },
  },
  // routes/payments.ts + openapi.ts
  {
    name: 'order-status-pending',
    readings: ['PAY-003'],
    description: 'a new payment order reports status "pending" and omits qr_code',
    probe: { request: req.payOrder({}), holds: (r) => r.body.status === 'pending' },
  },
  // routes/payments.ts + start.ts: "above a configured minimum", not shown (judging.md)
  {
    name: 'payment-min-unstated',
    readings: ['PAY-003', 'PAY-006'],
    description:
      'payment orders need more than 2000.00 CNY, a minimum the suite is not told (no limits.payment_min_cny), and the body is validated before the account kind',
    probe: {
      run: async ({ ref, payOrder }) =>
        ref.limits.payment_min_cny === undefined &&
        (await payOrder(ref, { amount_cny: '1500.00' })).status === 400 &&
        (await payOrder(ref, { amount_cny: '1500.00' }, 'enterprise')).status === 400,
    },
  },
] as const satisfies readonly Variant[];
