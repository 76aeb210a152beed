import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
import { ENDPOINTS } from '../../reference/fixtures.ts';
import type { ReferenceHandle, ReferenceOptions } from '../../reference/start.ts';
import { screenDescription } from '../../src/openapi/guard.ts';
import { call, describedProblems, describedSetups, referencePool } from './helpers.ts';

const start = referencePool();

// biome-ignore lint/suspicious/noExplicitAny: the document is walked generically
type Doc = any;

/**
 * The OpenAPI 3.1 verdict on a description, by its JSON text: most setups describe themselves alike, and
 * validity is a function of the document, so each distinct document is validated once.
 */
const validator = new Validator();
const verdicts = new Map<string, ReturnType<Validator['validate']>>();
function validate(doc: Doc): ReturnType<Validator['validate']> {
  const text = JSON.stringify(doc);
  let verdict = verdicts.get(text);
  if (!verdict) {
    verdict = validator.validate(doc);
    verdicts.set(text, verdict);
  }
  return verdict;
}

async function description(opts: ReferenceOptions = {}): Promise<Doc> {
  const ref = await start(opts);
  return (await call(ref, '/openapi.json')).body;
}

function unresolvedRefs(doc: Doc): string[] {
  const missing: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const target = value
          .slice(2)
          .split('/')
          .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], doc);
        if (!value.startsWith('#/') || target === undefined) missing.push(value);
      } else walk(value);
    }
  };
  walk(doc);
  return missing;
}

const SETUPS = describedSetups();

/** Faults whose description no validator may compile (the suite's guard refuses it, OAS-001). */
const UNCOMPILABLE = ['openapi-schema-cycle', 'openapi-invalid-pattern'];

describe('/openapi.json', () => {
  test.for(UNCOMPILABLE)('is refused by the description guard under fault %s', async (fault) => {
    expect(screenDescription(await description({ fault })).map((h) => h.kind)).toContain('invalid');
  });

  // The model entry and its legacy twin each carry the 2,500-value enum, or the metadata schema inlined
  // 80 levels deep (OAS-006: beyond what the suite examines, advisory).
  test.for([
    {
      name: 'variant openapi-large-enum',
      opts: { variant: 'openapi-large-enum' },
      message: /ModelEntry\/.*\/languages\/items\/enum: 2500 values \(at most 2000\)$/,
    },
    {
      name: 'fault openapi-deep-inline',
      opts: { fault: 'openapi-deep-inline' },
      message: /ModelEntry\/allOf\/\d+\/properties\/metadata\/.*: nested deeper than 128 levels$/,
    },
  ])("is beyond the guard's bounds, and not invalid, under $name", async ({ opts, message }) => {
    const found = screenDescription(await description(opts));
    expect(found.length).toBeGreaterThan(0);
    for (const h of found) expect(h).toEqual({ kind: 'too-large', message: expect.stringMatching(message) });
  });

  test.for(SETUPS)(
    'is valid OpenAPI (3.1, or 3.2 where it says so) with resolvable refs: $name',
    async ({ opts }) => {
      const doc = await description(opts);
      const result = await validate(doc);
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      expect(result.valid).toBe(true);
      // 3.2 only where a setup describes its streams so (its itemSchema); 3.1 everywhere else.
      const v32 = JSON.stringify(doc.paths).includes('"itemSchema"');
      expect(doc.openapi).toBe(v32 ? '3.2.0' : '3.1.0');
      expect(unresolvedRefs(doc)).toEqual([]);
    },
  );

  test('is invalid under fault openapi-invalid', async () => {
    const result = await validate(await description({ fault: 'openapi-invalid' }));
    expect(result.valid).toBe(false);
  });

  test('describes every endpoint of the contract', async () => {
    const doc = await description();
    const described = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual(ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
  });

  test('declares security and explicit error statuses per operation', async () => {
    const doc = await description();
    for (const endpoint of ENDPOINTS) {
      const op = doc.paths[endpoint.path][endpoint.method.toLowerCase()];
      const where = `${endpoint.method} ${endpoint.path}`;
      if (endpoint.public) {
        expect(op.security, where).toEqual([]);
        continue;
      }
      expect(op.security, where).toEqual([{ bearerAuth: [] }]);
      const expected = ['401', '403', '404', '429', ...(op.requestBody ? ['400'] : [])];
      for (const status of expected) {
        expect(op.responses[status]?.content?.['application/json']?.schema, `${where} ${status}`).toEqual({
          $ref: '#/components/schemas/APIError',
        });
      }
      expect(op.responses.default, where).toBeUndefined();
      expect(
        op.responses[Object.keys(op.responses)[0] as string].headers?.['X-Request-ID'],
        where,
      ).toBeDefined();
    }
    expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });
  });

  test('marks the payment endpoints deprecated', async () => {
    const doc = await description();
    expect(doc.paths['/v1/payment-methods'].get.deprecated).toBe(true);
    expect(doc.paths['/v1/payment-orders'].post.deprecated).toBe(true);
    expect(doc.paths['/v1/models'].get.deprecated).toBeUndefined();
  });

  test('carries the contract schemas without $id or $schema', async () => {
    const doc = await description();
    for (const name of [
      'APIError',
      'ChatCompletionRequest',
      'EmbeddingRequest',
      'MediaInputEnvelope',
      'Points',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
      expect(doc.components.schemas[name].$id, name).toBeUndefined();
      expect(doc.components.schemas[name].$schema, name).toBeUndefined();
    }
    expect(doc.components.schemas.MediaInputEnvelope.properties.input).toEqual({
      $ref: '#/components/schemas/MediaInput',
    });
  });

  test('uses `default` for errors under variant openapi-default-errors', async () => {
    const doc = await description({ variant: 'openapi-default-errors' });
    expect(Object.keys(doc.paths['/v1/models'].get.responses)).toEqual(['200', 'default']);
  });
});

// Faults meant to be caught by the description-conformance checks; every other setup must conform.
// responses-json-stream labels an event stream application/json: a body that is not JSON, which no
// description can declare.
const NONCONFORMING = new Set([
  'models-undocumented-shape',
  'balance-text-plain',
  'openapi-undeclared-401',
  'responses-json-stream',
  // An undeclared 500 on GET /v1/ledger (caught as ERR-002 and RESP-001).
  'transport-500',
  // A chat reply without id, or with the role `model`, against a description that requires id and says assistant (RESP-003).
  'chat-no-id',
  'chat-role-model',
  // A 503 (an upstream down) its description does not declare: the suite reports it, advisory (RESP-001).
  'upstream-unavailable-undeclared',
]);

const LEGACY = { accept: 'application/vnd.service.currency.v1+json' };
const chatBody = (ref: ReferenceHandle, extra: Record<string, unknown> = {}) => ({
  model: ref.hints.chat,
  messages: [{ role: 'user', content: 'Say ok.' }],
  max_tokens: 2,
  ...extra,
});
const responsesBody = (ref: ReferenceHandle, extra: Record<string, unknown> = {}) => ({
  model: ref.hints.responses,
  input: 'Say ok.',
  max_output_tokens: 2,
  ...extra,
});

interface Probe {
  method: string;
  path: string;
  role?: string;
  headers?: Record<string, string>;
  json?: (ref: ReferenceHandle) => unknown;
  /**
   * Faults under which the probe would never complete (they have their own probe): an endless stream,
   * or a transport fault that hangs, resets or truncates the answer (transport.test.ts).
   */
  skip?: string[];
}

const CHAT = '/v1/chat/completions';
const PROBES: Probe[] = [
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/status' },
  { method: 'GET', path: '/v1/models', role: 'primary', skip: ['transport-truncated'] },
  { method: 'GET', path: '/v1/models', role: 'enterprise', skip: ['transport-truncated'] },
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: '/v1/models', role: 'primary', headers: LEGACY, skip: ['transport-truncated'] },
  { method: 'GET', path: '/v1/balance', role: 'primary', skip: ['transport-hang'] },
  { method: 'GET', path: '/v1/balance', role: 'restricted_models' },
  { method: 'GET', path: '/v1/balance', role: 'primary', headers: LEGACY, skip: ['transport-hang'] },
  { method: 'POST', path: '/v1/embeddings' },
  { method: 'POST', path: CHAT, role: 'primary', json: (r) => chatBody(r) },
  {
    method: 'POST',
    path: CHAT,
    role: 'primary',
    json: (r) => chatBody(r, { stream: true }),
    skip: ['chat-stream-never-ends'],
  },
  {
    method: 'POST',
    path: CHAT,
    role: 'primary',
    headers: { 'idempotency-key': 'p1', ...LEGACY },
    json: (r) => chatBody(r),
  },
  {
    method: 'POST',
    path: CHAT,
    role: 'primary',
    headers: { 'idempotency-key': 'p1' },
    json: (r) => chatBody(r),
  },
  {
    method: 'POST',
    path: CHAT,
    role: 'primary',
    headers: { 'idempotency-key': 'p1' },
    json: (r) => chatBody(r, { max_tokens: 1 }),
  },
  { method: 'POST', path: CHAT, role: 'primary', json: (r) => chatBody(r, { temperature: 3 }) },
  { method: 'POST', path: CHAT, role: 'primary', json: (r) => chatBody(r, { model: 'no-such-model' }) },
  { method: 'POST', path: CHAT, role: 'primary', json: (r) => chatBody(r, { model: r.hints.forbidden }) },
  { method: 'POST', path: CHAT, role: 'primary', json: (r) => chatBody(r, { model: 'wc-100010' }) },
  { method: 'POST', path: CHAT, role: 'primary', json: (r) => chatBody(r, { model: 'tx-chat-unpriced' }) },
  {
    method: 'POST',
    path: CHAT,
    role: 'poor',
    json: (r) => chatBody(r, { messages: [{ role: 'user', content: 'x'.repeat(100_000) }] }),
  },
  { method: 'POST', path: '/v1/responses', role: 'primary', json: (r) => responsesBody(r) },
  { method: 'POST', path: '/v1/responses', role: 'primary', json: (r) => responsesBody(r, { stream: true }) },
  { method: 'POST', path: '/v1/responses', role: 'primary', headers: LEGACY, json: (r) => responsesBody(r) },
  {
    method: 'POST',
    path: '/v1/responses',
    role: 'primary',
    json: (r) => responsesBody(r, { model: r.hints.no_responses }),
  },
  {
    method: 'POST',
    path: '/v1/embeddings',
    role: 'primary',
    json: (r) => ({ model: r.hints.embedding, input: 'ok' }),
  },
  {
    method: 'POST',
    path: '/v1/embeddings',
    role: 'primary',
    headers: LEGACY,
    json: (r) => ({ model: r.hints.embedding, input: 'ok' }),
  },
  {
    method: 'POST',
    path: '/v1/embeddings',
    role: 'primary',
    json: (r) => ({ model: r.hints.embedding, input: ['ok'] }),
  },
  { method: 'GET', path: '/v1/usage', role: 'primary', skip: ['transport-reset'] },
  { method: 'GET', path: '/v1/usage', role: 'primary', headers: LEGACY, skip: ['transport-reset'] },
  { method: 'GET', path: '/v1/ledger', role: 'primary' },
  { method: 'GET', path: '/v1/ledger', role: 'primary', headers: LEGACY },
];

describe('the described inference, usage, ledger and legacy format', () => {
  const LEGACY_TYPE = 'application/vnd.service.currency.v1+json';
  const LEGACY_OPS: [string, string][] = [
    ['get', '/v1/models'],
    ['get', '/v1/balance'],
    ['get', '/v1/usage'],
    ['get', '/v1/ledger'],
    ['post', '/v1/chat/completions'],
    ['post', '/v1/responses'],
    ['post', '/v1/embeddings'],
  ];

  test('declares the legacy media type with a twin schema free of points names', async () => {
    const doc = await description();
    for (const [method, path] of LEGACY_OPS) {
      const content = doc.paths[path][method].responses['200'].content;
      const twin = content[LEGACY_TYPE]?.schema.$ref as string;
      expect(twin, `${method} ${path}`).toMatch(/^#\/components\/schemas\/Legacy/);
      expect(content['application/json'].schema.$ref.replace('schemas/', 'schemas/Legacy')).toBe(twin);
      expect(doc.paths[path][method].responses['501'], `${method} ${path}`).toBeUndefined();
    }
    const legacy = Object.entries(doc.components.schemas).filter(([name]) => name.startsWith('Legacy'));
    expect(legacy.length).toBeGreaterThan(LEGACY_OPS.length);
    const names: string[] = [];
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        node.forEach(walk);
        return;
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties') names.push(...Object.keys(value as object));
        if (key === 'required') names.push(...(value as string[]));
        walk(value);
      }
    };
    walk(legacy.map(([, schema]) => schema));
    expect(names).toContain('charged_amount');
    expect(names.filter((n) => /_points($|_per_million_tokens$)/.test(n))).toEqual([]);
    expect(doc.components.schemas.LegacyBalance.required).toEqual([
      'total_amount',
      'held_amount',
      'available_amount',
    ]);
  });

  test('keeps both names in the twins under fault legacy-added', async () => {
    const doc = await description({ fault: 'legacy-added' });
    expect(doc.components.schemas.LegacyBalance.required).toEqual([
      'total_points',
      'held_points',
      'available_points',
      'total_amount',
      'held_amount',
      'available_amount',
    ]);
  });

  test('declares the statuses inference can answer, and the replay header', async () => {
    const doc = await description();
    const statuses = (path: string) => Object.keys(doc.paths[path].post.responses);
    expect(statuses('/v1/chat/completions')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '503',
    ]);
    expect(statuses('/v1/responses')).toEqual(statuses('/v1/chat/completions'));
    expect(statuses('/v1/embeddings')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '429',
      '503',
    ]);
    expect(
      doc.paths['/v1/chat/completions'].post.responses['200'].headers['Idempotent-Replayed'],
    ).toBeDefined();
    expect(Object.keys(doc.paths['/v1/chat/completions'].post.responses['200'].content)).toEqual([
      'application/json',
      LEGACY_TYPE,
      'text/event-stream',
    ]);
    const conflict = await description({ variant: 'idem-conflict-422' });
    expect(Object.keys(conflict.paths['/v1/responses'].post.responses)).toContain('422');
    expect(Object.keys(conflict.paths['/v1/responses'].post.responses)).not.toContain('409');
    const usage = await description({ fault: 'usage-unavailable' });
    expect(Object.keys(usage.paths['/v1/usage'].get.responses)).toContain('500');
  });

  test('follows the stream format and the faults described so', async () => {
    const ndjson = await description({ variant: 'chat-stream-ndjson' });
    expect(Object.keys(ndjson.paths['/v1/chat/completions'].post.responses['200'].content)).toContain(
      'application/x-ndjson',
    );
    const json = await description({ fault: 'responses-json-stream' });
    expect(Object.keys(json.paths['/v1/responses'].post.responses['200'].content)).not.toContain(
      'text/event-stream',
    );
    const numbers = await description({ fault: 'chat-billing-numbers' });
    expect(numbers.components.schemas.Billing.properties.charged_points).toEqual({ type: 'number' });
    const credits = await description({ fault: 'chat-credits-names' });
    expect(credits.components.schemas.Billing.required).toContain('charged_credits');
    const embed = await description({ fault: 'embed-1023' });
    expect(embed.components.schemas.EmbeddingList.properties.data.items.properties.embedding.maxItems).toBe(
      1023,
    );
    const noBilling = await description({ variant: 'no-billing' });
    expect(noBilling.components.schemas.Billing).toBeUndefined();
  });
});

describe('live responses against the live description', () => {
  test('the probes reach every status and content type they are meant to', async () => {
    const ref = await start();
    const seen = new Set<string>();
    for (const probe of PROBES) {
      const { method, path, role, headers } = probe;
      const exchange = await call(ref, path, { method, role, headers, json: probe.json?.(ref) });
      seen.add(String(exchange.status));
      seen.add((exchange.headers.get('content-type') ?? '').split(';')[0] as string);
    }
    expect([...seen].sort()).toEqual(
      [
        '200',
        '400',
        '401',
        '403',
        '404',
        '409',
        '429',
        '503',
        'application/json',
        'application/vnd.service.currency.v1+json',
        'text/event-stream',
      ].sort(),
    );
  });

  test.for(SETUPS.filter((s) => !UNCOMPILABLE.includes(s.opts.fault ?? '')))(
    'conform for every probe: $name',
    async ({ opts }) => {
      const ref = await start(opts);
      const doc = (await call(ref, '/openapi.json')).body;
      const problems: string[] = [];
      for (const probe of PROBES) {
        if (!doc.paths[probe.path] || (opts.fault && probe.skip?.includes(opts.fault))) continue;
        const { method, path, role, headers } = probe;
        const exchange = await call(ref, path, { method, role, headers, json: probe.json?.(ref) });
        for (const p of describedProblems(doc, method, path, exchange)) {
          problems.push(`${method} ${path} as ${role ?? 'anonymous'} (${exchange.status}): ${p}`);
        }
      }
      const setup = opts.fault ?? opts.variant;
      if (setup && NONCONFORMING.has(setup)) expect(problems).not.toEqual([]);
      else expect(problems).toEqual([]);
    },
  );
});
