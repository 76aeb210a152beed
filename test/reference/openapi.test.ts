import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, test } from 'vitest';
import { ENDPOINTS } from '../../reference/fixtures.ts';
import { FAULTS, type ReferenceOptions, VARIANTS } from '../../reference/start.ts';
import { call, describedProblems, referencePool } from './helpers.ts';

const start = referencePool();
const validator = new Validator();

// biome-ignore lint/suspicious/noExplicitAny: the document is walked generically
type Doc = any;

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

const SETUPS: { name: string; opts: ReferenceOptions }[] = [
  { name: 'plain', opts: {} },
  ...VARIANTS.map((v) => ({ name: `variant ${v.name}`, opts: { variant: v.name } })),
  ...FAULTS.filter((f) => f.name !== 'openapi-invalid').map((f) => ({
    name: `fault ${f.name}`,
    opts: { fault: f.name },
  })),
];

describe('/openapi.json', () => {
  test.for(SETUPS)('is valid OpenAPI 3.1 with resolvable refs: $name', async ({ opts }) => {
    const doc = await description(opts);
    const result = await validator.validate(doc);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(unresolvedRefs(doc)).toEqual([]);
  });

  test('is invalid under fault openapi-invalid', async () => {
    const result = await validator.validate(await description({ fault: 'openapi-invalid' }));
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
const NONCONFORMING = new Set(['models-undocumented-shape', 'balance-text-plain', 'openapi-undeclared-401']);

const PROBES: { method: string; path: string; role?: string }[] = [
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/status' },
  { method: 'GET', path: '/v1/models', role: 'primary' },
  { method: 'GET', path: '/v1/models', role: 'enterprise' },
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: '/v1/balance', role: 'primary' },
  { method: 'GET', path: '/v1/balance', role: 'restricted_models' },
  { method: 'POST', path: '/v1/embeddings' },
];

describe('live responses against the live description', () => {
  test.for(SETUPS)('conform for every probe: $name', async ({ opts }) => {
    const ref = await start(opts);
    const doc = (await call(ref, '/openapi.json')).body;
    const problems: string[] = [];
    for (const probe of PROBES) {
      if (!doc.paths[probe.path]) continue;
      const exchange = await call(ref, probe.path, { method: probe.method, role: probe.role });
      for (const p of describedProblems(doc, probe.method, probe.path, exchange)) {
        problems.push(`${probe.method} ${probe.path} as ${probe.role ?? 'anonymous'}: ${p}`);
      }
    }
    if (opts.fault && NONCONFORMING.has(opts.fault)) expect(problems).not.toEqual([]);
    else expect(problems).toEqual([]);
  });
});
