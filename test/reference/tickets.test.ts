import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
import { FAULTS, type ReferenceHandle, type ReferenceOptions, VARIANTS } from '../../reference/start.ts';
import { call, describedProblems, type Exchange, isApiError, referencePool } from './helpers.ts';

const start = referencePool();
const validator = new Validator();
const PATH = '/v1/support/tickets';
const BASE = {
  category: 'technical',
  subject: 'Conformance probe',
  message: 'Automated probe; please ignore.',
};

const create = (ref: ReferenceHandle, json: unknown, role = 'primary') =>
  call(ref, PATH, { method: 'POST', role, json });
const list = (ref: ReferenceHandle, role = 'primary') => call(ref, PATH, { role });
const with_ = (patch: Record<string, unknown>, remove: string[] = []) => {
  const body: Record<string, unknown> = { ...BASE, ...patch };
  for (const field of remove) delete body[field];
  return body;
};

describe('POST /v1/support/tickets', () => {
  test('creates an open ticket: 201 {object: "support_ticket", ticket}', async () => {
    const ref = await start();
    const res = await create(ref, with_({ preferred_contact: 'ops@example.com' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body.object).toBe('support_ticket');
    expect(res.body.ticket).toEqual({
      id: expect.stringMatching(/^tkt_[0-9a-f]{24}$/),
      status: 'open',
      category: 'technical',
      subject: 'Conformance probe',
      message: 'Automated probe; please ignore.',
      preferred_contact: 'ops@example.com',
      created_at: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(res.body.ticket.created_at))).toBe(false);
    expect(Object.keys(res.body)).toEqual(['object', 'ticket']);
  });

  test('omits preferred_contact when none is given', async () => {
    const ref = await start();
    const res = await create(ref, BASE);
    expect(res.status).toBe(201);
    expect(res.body.ticket).not.toHaveProperty('preferred_contact');
  });

  const VALID: { name: string; body: Record<string, unknown> }[] = [
    ...['enterprise_onboarding', 'billing', 'api_access', 'technical'].map((category) => ({
      name: `the category ${category}`,
      body: with_({ category }),
    })),
    { name: 'a subject of 120 characters', body: with_({ subject: 's'.repeat(120) }) },
    { name: 'a subject of 120 CJK characters', body: with_({ subject: '票'.repeat(120) }) },
    {
      name: 'a subject of 120 astral characters (240 UTF-16 units)',
      body: with_({ subject: '😀'.repeat(120) }),
    },
    { name: 'an empty subject', body: with_({ subject: '' }) },
    { name: 'a message of 2000 characters', body: with_({ message: 'm'.repeat(2000) }) },
    { name: 'a message of several lines', body: with_({ message: 'line one\nline two\r\nline three' }) },
    { name: 'a preferred_contact of 160 characters', body: with_({ preferred_contact: 'c'.repeat(160) }) },
  ];

  test.for(VALID)('accepts $name', async ({ body }) => {
    const ref = await start();
    const res = await create(ref, body);
    expect(res.status, res.text).toBe(201);
    expect(res.body.ticket.subject).toBe(body.subject);
  });

  const INVALID: { name: string; body: unknown }[] = [
    { name: 'the category sales', body: with_({ category: 'sales' }) },
    { name: 'the category in capitals', body: with_({ category: 'TECHNICAL' }) },
    { name: 'a category that is not a string', body: with_({ category: 1 }) },
    { name: 'no category', body: with_({}, ['category']) },
    { name: 'a subject of 121 characters', body: with_({ subject: 's'.repeat(121) }) },
    { name: 'a subject of 121 CJK characters', body: with_({ subject: '票'.repeat(121) }) },
    { name: 'a subject with a line feed', body: with_({ subject: 'Conformance\nprobe' }) },
    { name: 'a subject with a carriage return', body: with_({ subject: 'Conformance\rprobe' }) },
    { name: 'a subject that is not a string', body: with_({ subject: null }) },
    { name: 'no subject', body: with_({}, ['subject']) },
    { name: 'a message of 2001 characters', body: with_({ message: 'm'.repeat(2001) }) },
    { name: 'a message that is not a string', body: with_({ message: ['m'] }) },
    { name: 'no message', body: with_({}, ['message']) },
    { name: 'a preferred_contact of 161 characters', body: with_({ preferred_contact: 'c'.repeat(161) }) },
    { name: 'a preferred_contact with a line feed', body: with_({ preferred_contact: 'a@example.com\nb' }) },
    { name: 'a preferred_contact that is null', body: with_({ preferred_contact: null }) },
    { name: 'an unknown field', body: with_({ priority: 'high' }) },
    { name: 'an unknown field named like an id', body: with_({ tenant_id: 'other' }) },
    { name: 'a JSON array', body: [BASE] },
    { name: 'a JSON string', body: 'ticket' },
  ];

  test.for(INVALID)('refuses $name with 400 invalid_request', async ({ body }) => {
    const ref = await start();
    const res = await create(ref, body);
    expect(res.status).toBe(400);
    expect(isApiError(res.body)).toBe(true);
    expect(res.body.error.code).toBe('invalid_request');
    expect((await list(ref)).body.data).toEqual([]);
  });

  test('refuses the 11th unresolved ticket with 429 ticket_limit_reached', async () => {
    const ref = await start();
    for (let i = 1; i <= 10; i++)
      expect((await create(ref, BASE, 'ticket_limit')).status, `ticket ${i}`).toBe(201);
    const res = await create(ref, BASE, 'ticket_limit');
    expect(res.status).toBe(429);
    expect(isApiError(res.body)).toBe(true);
    expect(res.body.error.code).toBe('ticket_limit_reached');
    expect((await list(ref, 'ticket_limit')).body.data).toHaveLength(10);
    // Validation still comes first, and other tenants are not limited.
    expect((await create(ref, with_({ category: 'sales' }), 'ticket_limit')).status).toBe(400);
    expect((await create(ref, BASE)).status).toBe(201);
  });

  test('counts the limit per account: enterprise keys share it', async () => {
    const ref = await start();
    for (let i = 0; i < 10; i++) {
      const role = i % 2 === 0 ? 'enterprise' : 'enterprise_second';
      expect((await create(ref, BASE, role)).status).toBe(201);
    }
    expect((await create(ref, BASE, 'restricted_support')).status).toBe(429);
  });

  test('refuses a body that is not JSON with 400', async () => {
    const ref = await start();
    const res = await fetch(ref.url + PATH, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.keys.primary}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect(isApiError(await res.json())).toBe(true);
  });
});

describe('GET /v1/support/tickets', () => {
  test('lists the tenant’s tickets, oldest first, as {object: "list", data}', async () => {
    const ref = await start();
    expect((await list(ref)).body).toEqual({ object: 'list', data: [] });
    const a = (await create(ref, with_({ subject: 'first' }))).body.ticket;
    const b = (await create(ref, with_({ subject: 'second' }))).body.ticket;
    const res = await list(ref);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'list', data: [a, b] });
  });

  test('never shows one tenant’s tickets to another', async () => {
    const ref = await start();
    await create(ref, with_({ subject: 'primary only' }));
    await create(ref, with_({ subject: 'enterprise only' }), 'enterprise');
    expect((await list(ref, 'other_tenant')).body.data).toEqual([]);
    expect((await list(ref)).body.data.map((t: { subject: string }) => t.subject)).toEqual(['primary only']);
  });

  test('shows an enterprise account’s tickets to every key of it', async () => {
    const ref = await start();
    const ticket = (await create(ref, BASE, 'enterprise_second')).body.ticket;
    for (const role of ['enterprise', 'enterprise_second', 'restricted_support']) {
      expect((await list(ref, role)).body.data, role).toEqual([ticket]);
    }
  });
});

describe('the support scope', () => {
  const OTHERS = [
    'restricted_models',
    'restricted_inference',
    'restricted_media',
    'restricted_usage',
    'restricted_balance',
  ];

  test.for(OTHERS)('refuses %s with 403 on both methods', async (role) => {
    const ref = await start();
    for (const res of [await list(ref, role), await create(ref, BASE, role)]) {
      expect(res.status).toBe(403);
      expect(isApiError(res.body)).toBe(true);
    }
    expect((await list(ref, 'enterprise')).body.data).toEqual([]);
  });

  test('accepts restricted_support on both methods', async () => {
    const ref = await start();
    expect((await create(ref, BASE, 'restricted_support')).status).toBe(201);
    expect((await list(ref, 'restricted_support')).status).toBe(200);
  });

  test('refuses a missing key with 401 before the body', async () => {
    const ref = await start();
    const res = await call(ref, PATH, { method: 'POST', json: { nonsense: true } });
    expect(res.status).toBe(401);
  });
});

/** Per fault: true when the deviation shows (and false on the plain server). */
const FAULT_PROBES: Record<string, (ref: ReferenceHandle) => Promise<boolean>> = {
  'tickets-cross-tenant': async (ref) => {
    await create(ref, BASE);
    return (await list(ref, 'other_tenant')).body.data.length === 1;
  },
  'ticket-limit-ignored': async (ref) => {
    for (let i = 0; i < 10; i++) await create(ref, BASE, 'ticket_limit');
    return (await create(ref, BASE, 'ticket_limit')).status === 201;
  },
  'ticket-subject-newline': async (ref) => (await create(ref, with_({ subject: 'a\nb' }))).status === 201,
  'ticket-subject-121': async (ref) =>
    (await create(ref, with_({ subject: 's'.repeat(121) }))).status === 201,
  'ticket-message-2001': async (ref) =>
    (await create(ref, with_({ message: 'm'.repeat(2001) }))).status === 201,
  'ticket-contact-161': async (ref) =>
    (await create(ref, with_({ preferred_contact: 'c'.repeat(161) }))).status === 201,
  'ticket-unknown-field': async (ref) => (await create(ref, with_({ priority: 'high' }))).status === 201,
  'ticket-category-lax': async (ref) => (await create(ref, with_({ category: 'sales' }))).status === 201,
  'ticket-200': async (ref) => (await create(ref, BASE)).status === 200,
  'ticket-list-envelope': async (ref) => Array.isArray((await list(ref)).body),
  'support-scope-ignored': async (ref) =>
    (await list(ref, 'restricted_models')).status === 200 &&
    (await create(ref, BASE, 'restricted_balance')).status === 201,
};

describe('faults', () => {
  test.for(Object.keys(FAULT_PROBES))('%s shows only when seeded', async (name) => {
    expect(FAULTS.map((f) => f.name)).toContain(name);
    expect(await FAULT_PROBES[name]?.(await start({ fault: name }))).toBe(true);
    expect(await FAULT_PROBES[name]?.(await start())).toBe(false);
  });

  test('the near faults keep the other bounds', async () => {
    const subject = await start({ fault: 'ticket-subject-121' });
    expect((await create(subject, with_({ subject: 's'.repeat(122) }))).status).toBe(400);
    expect((await create(subject, with_({ subject: 'a\nb' }))).status).toBe(400);
    const newline = await start({ fault: 'ticket-subject-newline' });
    expect((await create(newline, with_({ subject: 's'.repeat(121) }))).status).toBe(400);
    expect((await create(newline, with_({ preferred_contact: 'a\nb' }))).status).toBe(400);
    const lax = await start({ fault: 'ticket-category-lax' });
    expect((await create(lax, with_({}, ['category']))).status).toBe(400);
  });
});

describe('variant ticket-shape', () => {
  test('names the ticket fields ticket_id, state, topic and body', async () => {
    const ref = await start({ variant: 'ticket-shape' });
    const res = await create(ref, with_({ preferred_contact: 'ops@example.com' }));
    expect(res.status).toBe(201);
    expect(res.body.object).toBe('support_ticket');
    expect(Object.keys(res.body.ticket).sort()).toEqual(
      ['body', 'category', 'created_at', 'preferred_contact', 'state', 'ticket_id', 'topic'].sort(),
    );
    expect(res.body.ticket).toMatchObject({ state: 'open', topic: BASE.subject, body: BASE.message });
    expect((await list(ref)).body).toEqual({ object: 'list', data: [res.body.ticket] });
  });
});

const MINE = new Set([...Object.keys(FAULT_PROBES), 'ticket-shape']);
const SETUPS: { name: string; opts: ReferenceOptions }[] = [
  { name: 'plain', opts: {} },
  ...FAULTS.filter((f) => MINE.has(f.name)).map((f) => ({
    name: `fault ${f.name}`,
    opts: { fault: f.name },
  })),
  ...VARIANTS.filter((v) => MINE.has(v.name)).map((v) => ({
    name: `variant ${v.name}`,
    opts: { variant: v.name },
  })),
];

describe('the description', () => {
  test.for(SETUPS)('is valid and describes every ticket answer: $name', async ({ opts }) => {
    const ref = await start(opts);
    const doc = (await call(ref, '/openapi.json')).body;
    const result = await validator.validate(doc);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const exchanges: [string, Exchange][] = [
      ['GET', await list(ref)],
      ['POST', await create(ref, with_({ preferred_contact: 'ops@example.com' }))],
      ['POST', await create(ref, BASE)],
      ['GET', await list(ref)],
      ['GET', await list(ref, 'other_tenant')],
      ['POST', await create(ref, with_({ category: 'sales', subject: 'a\nb' }))],
      ['POST', await create(ref, BASE, 'restricted_models')],
      ['GET', await list(ref, 'restricted_media')],
      ['GET', await call(ref, PATH)],
    ];
    for (let i = 0; i <= 10; i++) exchanges.push(['POST', await create(ref, BASE, 'ticket_limit')]);
    const problems = exchanges.flatMap(([method, exchange]) =>
      describedProblems(doc, method, PATH, exchange).map((p) => `${method} ${exchange.status}: ${p}`),
    );
    expect(problems).toEqual([]);
    expect(doc.paths[PATH].post.responses['501']).toBeUndefined();
  });
});
