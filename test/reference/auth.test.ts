import { describe, expect, test } from 'vitest';
import { ENDPOINTS, ROLE_NAMES } from '../../reference/fixtures.ts';
import { call, isApiError, referencePool } from './helpers.ts';

const start = referencePool();

const BUSINESS = ENDPOINTS.filter((e) => !e.public).map((e) => ({
  method: e.method,
  path: e.path.replace(/\{(\w+)\}/g, 'probe_$1'),
}));

describe('keys', () => {
  test('one distinct random key per role of fixtures/roles.yaml', async () => {
    const a = await start();
    const b = await start();
    expect(Object.keys(a.keys).sort()).toEqual([...ROLE_NAMES].sort());
    const values = Object.values(a.keys);
    expect(new Set(values).size).toBe(values.length);
    for (const key of values) expect(key).toMatch(/^sk-ref-[0-9a-f]{40}$/);
    expect(a.keys.primary).not.toBe(b.keys.primary);
  });

  test('hints name the catalog models', async () => {
    const ref = await start();
    expect(ref.hints).toEqual({
      chat: 'tx-chat-1',
      embedding: 'tx-embed-1',
      responses: 'tx-chat-1',
      no_responses: 'tx-chat-2',
      forbidden: 'tx-chat-premium',
      forbidden_embedding: 'tx-embed-premium',
      forbidden_responses: 'tx-chat-premium',
    });
  });
});

describe('authentication', () => {
  test('public endpoints answer without a key', async () => {
    const ref = await start();
    for (const path of ['/healthz', '/status', '/openapi.json']) {
      expect((await call(ref, path)).status, path).toBe(200);
    }
    expect((await call(ref, '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(ref, '/status')).body).toEqual({ status: 'operational', incidents: [] });
  });

  test.for(BUSINESS)(
    '$method $path refuses a missing key with 401 invalid_api_key',
    async ({ method, path }) => {
      const ref = await start();
      const res = await call(ref, path, { method });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'invalid_api_key', type: 'authentication_error' });
      expect(isApiError(res.body)).toBe(true);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    },
  );

  const MALFORMED: {
    name: string;
    headers: (key: string) => Record<string, string>;
    query?: (key: string) => string;
  }[] = [
    { name: 'lower-case scheme', headers: (k) => ({ authorization: `bearer ${k}` }) },
    { name: 'other scheme', headers: (k) => ({ authorization: `Token ${k}` }) },
    { name: 'Basic scheme', headers: (k) => ({ authorization: `Basic ${k}` }) },
    { name: 'double space', headers: (k) => ({ authorization: `Bearer  ${k}` }) },
    { name: 'bare key', headers: (k) => ({ authorization: k }) },
    { name: 'trailing word', headers: (k) => ({ authorization: `Bearer ${k} x` }) },
    { name: 'truncated key', headers: (k) => ({ authorization: `Bearer ${k.slice(0, 20)}` }) },
    { name: 'extended key', headers: (k) => ({ authorization: `Bearer ${k}0` }) },
    { name: 'key in a cookie', headers: (k) => ({ cookie: `session=${k}; api_key=${k}` }) },
    { name: 'key in the query', headers: () => ({}), query: (k) => `?api_key=${k}&key=${k}` },
  ];

  test.for(MALFORMED)('refuses a $name with 401', async ({ headers, query }) => {
    const ref = await start();
    const key = ref.keys.primary as string;
    const res = await call(ref, `/v1/models${query?.(key) ?? ''}`, { headers: headers(key) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  test('refuses revoked and expired keys with 401', async () => {
    const ref = await start();
    for (const role of ['revoked', 'expired']) {
      const res = await call(ref, '/v1/models', { role });
      expect(res.status, role).toBe(401);
      expect(res.body.error.code, role).toBe('invalid_api_key');
    }
  });

  test('refuses a key whose IP allowlist excludes the caller with 403', async () => {
    const ref = await start();
    const res = await call(ref, '/v1/models', { role: 'ip_blocked' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ip_not_allowed');
  });

  test('accepts every other role with the models scope', async () => {
    const ref = await start();
    const otherScopes = ROLE_NAMES.filter((r) => r.startsWith('restricted_') && r !== 'restricted_models');
    const refused = new Set(['revoked', 'expired', 'ip_blocked', ...otherScopes]);
    for (const role of ROLE_NAMES.filter((r) => !refused.has(r))) {
      expect((await call(ref, '/v1/models', { role })).status, role).toBe(200);
    }
  });

  test('checks the key before the body', async () => {
    const ref = await start();
    const res = await call(ref, '/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
    const bad = await fetch(`${ref.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(bad.status).toBe(401);
  });

  test('answers unknown /v1 paths with 401 without a key and 404 with one', async () => {
    const ref = await start();
    expect((await call(ref, '/v1/v1/models')).status).toBe(401);
    const res = await call(ref, '/v1/v1/models', { role: 'primary' });
    expect(res.status).toBe(404);
    expect(isApiError(res.body)).toBe(true);
    expect((await call(ref, '/nowhere')).status).toBe(404);
  });
});

describe('scopes', () => {
  const CASES = [
    { role: 'restricted_models', allowed: '/v1/models', refused: '/v1/balance' },
    { role: 'restricted_balance', allowed: '/v1/balance', refused: '/v1/models' },
    { role: 'restricted_usage', allowed: '/v1/usage', refused: '/v1/balance' },
    { role: 'restricted_support', allowed: '/v1/support/tickets', refused: '/v1/models' },
    { role: 'restricted_media', allowed: '/v1/media/models', refused: '/v1/usage' },
    { role: 'restricted_inference', allowed: '/v1/embeddings', refused: '/v1/media/models' },
  ];

  test.for(CASES)(
    '$role reaches $allowed and is refused $refused with 403',
    async ({ role, allowed, refused }) => {
      const ref = await start();
      const method = allowed === '/v1/embeddings' ? 'POST' : 'GET';
      const ok = await call(ref, allowed, { role, method, json: method === 'POST' ? {} : undefined });
      expect(ok.status).not.toBe(401);
      expect(ok.status).not.toBe(403);
      const res = await call(ref, refused, { role });
      expect(res.status).toBe(403);
      expect(isApiError(res.body)).toBe(true);
    },
  );

  test('restricted keys cannot use the deprecated payment API', async () => {
    const ref = await start();
    expect((await call(ref, '/v1/payment-methods', { role: 'restricted_balance' })).status).toBe(403);
  });
});

describe('cross-cutting', () => {
  test('every response carries a unique X-Request-ID', async () => {
    const ref = await start();
    const ids = [];
    for (const path of ['/healthz', '/v1/models', '/nowhere', '/v1/usage']) {
      ids.push((await call(ref, path, { role: 'primary' })).headers.get('x-request-id'));
    }
    for (const id of ids) expect(id).toMatch(/^req_/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('no endpoint is left pending: none answers or is described with 501', async () => {
    const ref = await start();
    expect((await call(ref, '/v1/media/models')).status).toBe(401);
    expect((await call(ref, '/v1/media/models', { role: 'primary' })).status).toBe(200);
    const doc = (await call(ref, '/openapi.json')).body;
    const statuses = Object.values(doc.paths).flatMap((item) =>
      Object.values(item as Record<string, { responses: object }>).flatMap((op) => Object.keys(op.responses)),
    );
    expect(statuses).not.toContain('501');
  });

  test('framework errors use the APIError shape', async () => {
    const ref = await start();
    const cases = [
      await call(ref, '/v1/%E0%A4%A', { role: 'primary' }),
      await call(ref, '/v1/chat/completions', {
        method: 'POST',
        role: 'primary',
        headers: { 'content-type': 'application/xml' },
        json: {},
      }),
    ];
    expect(cases.map((c) => c.status)).toEqual([400, 415]);
    for (const c of cases) expect(isApiError(c.body)).toBe(true);
    const parse = await fetch(`${ref.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.keys.primary}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(parse.status).toBe(400);
    expect(isApiError(await parse.json())).toBe(true);
  });

  test('--latency-ms delays responses', async () => {
    const ref = await start({ latencyMs: 150 });
    const t0 = performance.now();
    await call(ref, '/healthz');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });
});
