import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
import { FAULTS, type ReferenceHandle, type ReferenceOptions, VARIANTS } from '../../reference/start.ts';
import { call, describedProblems, type Exchange, isApiError, referencePool } from './helpers.ts';

const start = referencePool();
const validator = new Validator();
const METHODS = '/v1/payment-methods';
const ORDERS = '/v1/payment-orders';
const BASE = { method: 'alipay', amount_cny: '100.00', note: 'conformance probe' };

const order = (ref: ReferenceHandle, json: unknown, role = 'primary') =>
  call(ref, ORDERS, { method: 'POST', role, json });
const methods = (ref: ReferenceHandle, role = 'primary') => call(ref, METHODS, { role });
const balance = async (ref: ReferenceHandle, role = 'primary') =>
  (await call(ref, '/v1/balance', { role })).body;
const with_ = (patch: Record<string, unknown>, remove: string[] = []) => {
  const body: Record<string, unknown> = { ...BASE, ...patch };
  for (const field of remove) delete body[field];
  return body;
};

describe('GET /v1/payment-methods', () => {
  test('lists alipay and wechat_pay to a personal tenant, marked deprecated', async () => {
    const ref = await start();
    const res = await methods(ref);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      data: [{ method: 'alipay' }, { method: 'wechat_pay' }],
      deprecated: true,
    });
  });

  test('refuses enterprise keys with 403', async () => {
    const ref = await start();
    for (const role of ['enterprise', 'enterprise_second']) {
      const res = await methods(ref, role);
      expect(res.status, role).toBe(403);
      expect(isApiError(res.body)).toBe(true);
    }
  });

  test('refuses restricted keys with 403 and a missing key with 401', async () => {
    const ref = await start();
    expect((await methods(ref, 'restricted_balance')).status).toBe(403);
    expect((await call(ref, METHODS)).status).toBe(401);
  });
});

describe('POST /v1/payment-orders', () => {
  test('creates a pending_admin_review order with qr_code null: 201 CompatibilityRechargeOrder', async () => {
    const ref = await start();
    const res = await order(ref, BASE);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^po_[0-9a-f]{24}$/),
      tenant_id: 'acct_primary',
      amount_credits: 100_000_000,
      points: 1000,
      status: 'pending_admin_review',
      has_qr_code: false,
      qr_code: null,
      created_at: expect.any(String),
      payment_method: 'alipay',
      customer_note: 'conformance probe',
    });
    expect(Number.isNaN(Date.parse(res.body.created_at))).toBe(false);
  });

  test('omits customer_note without a note', async () => {
    const ref = await start();
    const res = await order(ref, with_({ method: 'wechat_pay' }, ['note']));
    expect(res.status).toBe(201);
    expect(res.body.payment_method).toBe('wechat_pay');
    expect(res.body).not.toHaveProperty('customer_note');
  });

  test('adds no points: the balance stays as it was', async () => {
    const ref = await start();
    const before = await balance(ref);
    expect((await order(ref, with_({ amount_cny: '100000' }))).status).toBe(201);
    expect(await balance(ref)).toEqual(before);
  });

  test('publishes the configured minimum through the handle', async () => {
    const ref = await start();
    expect(ref.limits).toEqual({ payment_min_cny: '1.00', quota_nearly_full_bytes: '4096' });
  });

  const AMOUNTS: { amount: string; credits: number; points: number }[] = [
    { amount: '1.01', credits: 1_010_000, points: 10 },
    { amount: '1.05', credits: 1_050_000, points: 11 },
    { amount: '2', credits: 2_000_000, points: 20 },
    { amount: '2.5', credits: 2_500_000, points: 25 },
    { amount: '1000.50', credits: 1_000_500_000, points: 10005 },
    { amount: '99999.99', credits: 99_999_990_000, points: 1_000_000 },
    { amount: '100000', credits: 100_000_000_000, points: 1_000_000 },
    { amount: '100000.00', credits: 100_000_000_000, points: 1_000_000 },
  ];

  test.for(AMOUNTS)('accepts $amount: amount_credits $credits, points $points', async (c) => {
    const ref = await start();
    const res = await order(ref, with_({ amount_cny: c.amount }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.amount_credits).toBe(c.credits);
    expect(res.body.points).toBe(c.points);
  });

  const INVALID: { name: string; body: unknown }[] = [
    { name: 'the method paypal', body: with_({ method: 'paypal' }) },
    { name: 'the method in capitals', body: with_({ method: 'ALIPAY' }) },
    { name: 'no method', body: with_({}, ['method']) },
    { name: 'an amount with three decimals', body: with_({ amount_cny: '10.005' }) },
    { name: 'an amount above 100000', body: with_({ amount_cny: '100000.01' }) },
    { name: 'an amount of 100001', body: with_({ amount_cny: '100001' }) },
    { name: 'the minimum itself (exclusive)', body: with_({ amount_cny: '1.00' }) },
    { name: 'an amount below the minimum', body: with_({ amount_cny: '0.50' }) },
    { name: 'an amount of 0', body: with_({ amount_cny: '0' }) },
    { name: 'an amount as a JSON number', body: with_({ amount_cny: 100 }) },
    { name: 'an amount that is not a number', body: with_({ amount_cny: 'ten' }) },
    { name: 'a negative amount', body: with_({ amount_cny: '-5.00' }) },
    { name: 'an amount with a leading zero', body: with_({ amount_cny: '010.00' }) },
    { name: 'an amount with a trailing dot', body: with_({ amount_cny: '10.' }) },
    { name: 'an amount in exponent notation', body: with_({ amount_cny: '1e3' }) },
    { name: 'an amount with spaces', body: with_({ amount_cny: ' 10.00' }) },
    { name: 'a huge amount', body: with_({ amount_cny: '9'.repeat(40) }) },
    { name: 'no amount', body: with_({}, ['amount_cny']) },
    { name: 'a note of 121 characters', body: with_({ note: 'n'.repeat(121) }) },
    { name: 'a note with a line feed', body: with_({ note: 'conformance\nprobe' }) },
    { name: 'a note with a carriage return', body: with_({ note: 'conformance\rprobe' }) },
    { name: 'a note that is not a string', body: with_({ note: 5 }) },
    { name: 'an unknown field', body: with_({ currency: 'CNY' }) },
    { name: 'a JSON array', body: [BASE] },
  ];

  test.for(INVALID)('refuses $name with 400 invalid_request', async ({ body }) => {
    const ref = await start();
    const res = await order(ref, body);
    expect(res.status).toBe(400);
    expect(isApiError(res.body)).toBe(true);
    expect(res.body.error.code).toBe('invalid_request');
  });

  test('accepts a note of 120 characters, counted as code points', async () => {
    const ref = await start();
    const res = await order(ref, with_({ note: '😀'.repeat(120) }));
    expect(res.status).toBe(201);
    expect(res.body.customer_note).toBe('😀'.repeat(120));
  });

  test('refuses enterprise keys with 403 before the body', async () => {
    const ref = await start();
    for (const [role, body] of [
      ['enterprise', BASE],
      ['enterprise_second', { nonsense: true }],
    ] as const) {
      const res = await order(ref, body, role);
      expect(res.status, role).toBe(403);
      expect(isApiError(res.body)).toBe(true);
      expect(res.body.error.code).toBe('payment_not_allowed');
    }
  });

  test('refuses restricted keys with 403 and a missing key with 401', async () => {
    const ref = await start();
    expect((await order(ref, BASE, 'restricted_balance')).status).toBe(403);
    expect((await call(ref, ORDERS, { method: 'POST', json: BASE })).status).toBe(401);
  });
});

/** Per fault or variant: true when the deviation shows (and false on the plain server). */
const PROBES: Record<string, (ref: ReferenceHandle) => Promise<boolean>> = {
  'enterprise-payment-allowed': async (ref) => (await order(ref, BASE, 'enterprise')).status === 201,
  'order-credits-wallet': async (ref) => {
    const before = (await balance(ref)).total_points;
    await order(ref, BASE);
    return (await balance(ref)).total_points === String(Number(before) + 1000);
  },
  'order-three-decimals': async (ref) => {
    const res = await order(ref, with_({ amount_cny: '10.005' }));
    return res.status === 201 && res.body.amount_credits === 10_005_000;
  },
  'order-over-max': async (ref) => (await order(ref, with_({ amount_cny: '100000.01' }))).status === 201,
  'order-method-lax': async (ref) => (await order(ref, with_({ method: 'paypal' }))).status === 201,
  'order-note-newline': async (ref) => (await order(ref, with_({ note: 'a\nb' }))).status === 201,
  'order-credits-mismatch': async (ref) => (await order(ref, BASE)).body.amount_credits === 10_000_000,
  'order-approved': async (ref) => {
    const { body } = await order(ref, BASE);
    return body.status === 'approved' && body.has_qr_code === true && typeof body.qr_code === 'string';
  },
  'payment-methods-personal-refused': async (ref) => (await methods(ref)).status === 403,
  'enterprise-methods-allowed': async (ref) => (await methods(ref, 'enterprise')).status === 200,
  'order-status-pending': async (ref) => {
    const { body } = await order(ref, BASE);
    return body.status === 'pending' && !('qr_code' in body) && body.has_qr_code === false;
  },
};
const VARIANT_NAMES = new Set(VARIANTS.map((v) => v.name));

describe('faults and variants', () => {
  test.for(Object.keys(PROBES))('%s shows only when chosen', async (name) => {
    const opts = VARIANT_NAMES.has(name) ? { variant: name } : { fault: name };
    expect([...FAULTS, ...VARIANTS].map((t) => t.name)).toContain(name);
    expect(await PROBES[name]?.(await start(opts))).toBe(true);
    expect(await PROBES[name]?.(await start())).toBe(false);
  });

  test('enterprise-methods-allowed still refuses enterprise orders', async () => {
    const ref = await start({ variant: 'enterprise-methods-allowed' });
    expect((await order(ref, BASE, 'enterprise')).status).toBe(403);
  });

  test('order-method-lax names no payment method on the order', async () => {
    const ref = await start({ fault: 'order-method-lax' });
    expect((await order(ref, with_({ method: 'paypal' }))).body).not.toHaveProperty('payment_method');
    expect((await order(ref, with_({ method: '' }))).status).toBe(400);
  });

  test('order-over-max keeps two decimals and a (higher) maximum', async () => {
    const ref = await start({ fault: 'order-over-max' });
    expect((await order(ref, with_({ amount_cny: '100000.011' }))).status).toBe(400);
    expect((await order(ref, with_({ amount_cny: '1000000.01' }))).status).toBe(400);
  });
});

const SETUPS: { name: string; opts: ReferenceOptions }[] = [
  { name: 'plain', opts: {} },
  ...FAULTS.filter((f) => f.name in PROBES).map((f) => ({
    name: `fault ${f.name}`,
    opts: { fault: f.name },
  })),
  ...VARIANTS.filter((v) => v.name in PROBES).map((v) => ({
    name: `variant ${v.name}`,
    opts: { variant: v.name },
  })),
];

describe('the description', () => {
  test.for(SETUPS)('is valid and describes every payment answer: $name', async ({ opts }) => {
    const ref = await start(opts);
    const doc = (await call(ref, '/openapi.json')).body;
    const result = await validator.validate(doc);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const exchanges: [string, string, Exchange][] = [
      ['GET', METHODS, await methods(ref)],
      ['GET', METHODS, await methods(ref, 'enterprise')],
      ['GET', METHODS, await methods(ref, 'restricted_support')],
      ['GET', METHODS, await call(ref, METHODS)],
      ['POST', ORDERS, await order(ref, BASE)],
      ['POST', ORDERS, await order(ref, with_({ method: 'wechat_pay' }, ['note']))],
      ['POST', ORDERS, await order(ref, with_({ method: 'paypal', amount_cny: '10.005', note: 'a\nb' }))],
      ['POST', ORDERS, await order(ref, with_({ amount_cny: '100000.01' }))],
      ['POST', ORDERS, await order(ref, BASE, 'enterprise')],
      ['POST', ORDERS, await order(ref, BASE, 'restricted_balance')],
      ['POST', ORDERS, await call(ref, ORDERS, { method: 'POST', json: BASE })],
    ];
    const problems = exchanges.flatMap(([method, path, exchange]) =>
      describedProblems(doc, method, path, exchange).map((p) => `${method} ${path} ${exchange.status}: ${p}`),
    );
    expect(problems).toEqual([]);
    for (const [path, method] of [
      [METHODS, 'get'],
      [ORDERS, 'post'],
    ] as const) {
      expect(doc.paths[path][method].deprecated).toBe(true);
      expect(doc.paths[path][method].responses['501']).toBeUndefined();
    }
  });
});
