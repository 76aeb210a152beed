/**
 * tools/mutation/variant-plan.ts: which operations a variant's own description changes. Only a change of
 * responses or an operation's parameters (directly, or through components that no request body or
 * parameter shares) names operations; any other change counts as everywhere, so that variant's row runs
 * the whole suite.
 */
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/openapi/document.ts';
import { changedOperations, titlesFilter } from '../../tools/mutation/variant-plan.ts';

const ok = (ref: string) => ({ '200': { content: { 'application/json': { schema: { $ref: ref } } } } });
function doc(): Json {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/v1/models': { get: { responses: ok('#/components/schemas/ModelList') } },
      '/v1/jobs/{id}': { get: { responses: ok('#/components/schemas/Job') } },
      '/v1/jobs': {
        post: {
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/JobCreate' } } },
          },
          responses: {
            '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Job' } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        ModelList: {
          type: 'object',
          properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Model' } } },
        },
        Model: { type: 'object', properties: { id: { type: 'string' } } },
        Job: { type: 'object', properties: { status: { type: 'string' } } },
        JobCreate: { type: 'object', properties: { model: { $ref: '#/components/schemas/ModelId' } } },
        ModelId: { type: 'string' },
      },
    },
  };
}

describe('changedOperations', () => {
  it('names nothing for the same description', () => {
    expect(changedOperations(doc(), doc())).toEqual([]);
  });

  it('names the operation whose response changed', () => {
    const other = doc();
    const op = ((other.paths as Json)['/v1/models'] as Json).get as Json;
    (op.responses as Json)['404'] = { description: 'not found' };
    expect(changedOperations(doc(), other)).toEqual([{ method: 'GET', path: '/v1/models' }]);
  });

  it('names every operation whose responses reach a changed component, through other components', () => {
    const other = doc();
    (((other.components as Json).schemas as Json).Model as Json).required = ['id'];
    expect(changedOperations(doc(), other)).toEqual([{ method: 'GET', path: '/v1/models' }]);
    const job = doc();
    (((job.components as Json).schemas as Json).Job as Json).properties = { stage: { type: 'string' } };
    expect(changedOperations(doc(), job)).toEqual([
      { method: 'GET', path: '/v1/jobs/{id}' },
      { method: 'POST', path: '/v1/jobs' },
    ]);
  });

  it('names the operation whose parameters changed, and every operation of a path whose own parameters did', () => {
    const paged = doc();
    ((paged.paths as Json)['/v1/models'] as Json).get = {
      ...(((paged.paths as Json)['/v1/models'] as Json).get as Json),
      parameters: [{ name: 'page', in: 'query', schema: { type: 'integer' } }],
    };
    expect(changedOperations(doc(), paged)).toEqual([{ method: 'GET', path: '/v1/models' }]);
    const shared = doc();
    ((shared.paths as Json)['/v1/jobs'] as Json).parameters = [{ name: 'x', in: 'header', schema: {} }];
    expect(changedOperations(doc(), shared)).toEqual([{ method: 'POST', path: '/v1/jobs' }]);
  });

  it('counts a component a request body reaches, an added operation, or any other change as everywhere', () => {
    const request = doc();
    ((request.components as Json).schemas as Json).ModelId = { type: 'string', enum: ['a'] };
    expect(changedOperations(doc(), request)).toBe('everywhere');
    const added = doc();
    (added.paths as Json)['/v1/new'] = { get: { responses: ok('#/components/schemas/Job') } };
    expect(changedOperations(doc(), added)).toBe('everywhere');
    const method = doc();
    ((method.paths as Json)['/v1/models'] as Json).post = { responses: ok('#/components/schemas/Job') };
    expect(changedOperations(doc(), method)).toBe('everywhere');
    const info = doc();
    (info.info as Json).version = '2';
    expect(changedOperations(doc(), info)).toBe('everywhere');
    const deprecated = doc();
    (((deprecated.paths as Json)['/v1/models'] as Json).get as Json).deprecated = true;
    expect(changedOperations(doc(), deprecated)).toBe('everywhere');
    const security = doc();
    (security.components as Json).securitySchemes = { bearer: { type: 'http', scheme: 'bearer' } };
    expect(changedOperations(doc(), security)).toBe('everywhere');
  });
});

describe('titlesFilter', () => {
  it('selects the tests of the titles it names, whatever characters they hold, and no other', () => {
    const titles = [
      'MJOB-009 accepts size 1024*1024 (a square) [wc-100010]',
      'IDEM-005 takes an Idempotency-Key of 128 characters? yes: $name | ^caret \\ back/slash',
      'AUTH-001 refuses a request without a key',
    ];
    const re = new RegExp(titlesFilter(titles));
    for (const t of titles) expect(re.test(t), t).toBe(true);
    // Inside describe blocks: the full name vitest matches starts with their names.
    expect(re.test('GET /v1/models AUTH-001 refuses a request without a key')).toBe(true);
    for (const other of [
      'AUTH-001 refuses a request without a key, twice',
      'xMJOB-009 accepts size 1024*1024 (a square) [wc-100010]',
      'MJOB-009 accepts size 10241024 (a square) [wc-100010]',
      'AUTH-001',
    ])
      expect(re.test(other), other).toBe(false);
  });
});
