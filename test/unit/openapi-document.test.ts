import { describe, expect, it } from 'vitest';
import {
  BOUNDS,
  type BodySide,
  HTTP_METHODS,
  LOWER_BOUNDS,
  OpenApiDocument,
  resolveRef,
  templateRegex,
  UPPER_BOUNDS,
  valueAt,
} from '../../src/openapi/document.ts';
import { Documented } from '../../src/openapi/documented.ts';
import { DriftComparer } from '../../src/openapi/drift.ts';
import { LiveDescription } from '../../src/openapi/live.ts';

type Json = Record<string, unknown>;

const root = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things/{id}': { get: { responses: { 200: { $ref: '#/components/responses/Thing' } } } },
    '/v1/shared': { $ref: '#/components/pathItems/Shared' },
    '/v1/loop': { $ref: '#/components/pathItems/Loop' },
  },
  components: {
    schemas: {
      'a/b': { type: 'string' },
      'c~d': { type: 'integer' },
      'e f': { type: 'boolean' },
      list: { prefixItems: [{ type: 'null' }] },
    },
    responses: { Thing: { $ref: '#/components/responses/Plain' }, Plain: { description: 'ok' } },
    pathItems: {
      Shared: { post: { responses: {} }, parameters: [], summary: 'not an operation' },
      Loop: { $ref: '#/components/pathItems/Loop' },
    },
  },
};

describe('the OpenAPI document layer: pointers and references', () => {
  it('resolves local references with JSON Pointer escapes, percent-encoding and array indexes', () => {
    expect(resolveRef(root, '#/components/schemas/a~1b')).toEqual({ type: 'string' });
    expect(resolveRef(root, '#/components/schemas/c~0d')).toEqual({ type: 'integer' });
    expect(resolveRef(root, '#/components/schemas/e%20f')).toEqual({ type: 'boolean' });
    expect(resolveRef(root, '#/components/schemas/list/prefixItems/0')).toEqual({ type: 'null' });
    expect(resolveRef(root, '#')).toBe(root);
  });

  it('resolves nothing for an external, anchored, missing, inherited or malformed reference', () => {
    for (const ref of [
      'other.json#/x',
      '#anchor',
      '#/components/schemas/none',
      '#/components/__proto__',
      '#/components/schemas/%zz',
    ])
      expect(resolveRef(root, ref), ref).toBeUndefined();
  });

  it('reads an instance path without percent-decoding (ajv instance paths are plain pointers)', () => {
    expect(valueAt({ 'a%20b': [1, { '/': 2 }] }, '/a%20b/1/~1')).toBe(2);
    expect(valueAt({ a: 1 }, '')).toEqual({ a: 1 });
    expect(valueAt({ a: 1 }, '/b/c')).toBeUndefined();
  });

  it('follows a chain of references to its object and its pointer; a loop resolves to nothing', () => {
    const d = new OpenApiDocument(root);
    expect(d.locate({ $ref: '#/components/responses/Thing' })).toEqual({
      node: { description: 'ok' },
      pointer: '/components/responses/Plain',
    });
    expect(d.deref({ $ref: '#/components/pathItems/Loop' })).toBeUndefined();
    expect(d.deref('not an object')).toBeUndefined();
  });

  it('lists the operations, a path item behind a reference at the pointer it resolves to', () => {
    const ops = new OpenApiDocument(root).operations();
    expect(ops.map((o) => `${o.method} ${o.template} ${o.pointer}`)).toEqual([
      'GET /v1/things/{id} /paths/~1v1~1things~1{id}/get',
      'POST /v1/shared /components/pathItems/Shared/post',
    ]);
  });

  it('matches a path against a template: a parameter is one segment, literal characters are literal', () => {
    const re = templateRegex('/v1/media/{id}.json');
    expect(re.test('/v1/media/job_1.json')).toBe(true);
    expect(re.test('/v1/media/job_1.json/')).toBe(true);
    expect(re.test('/v1/media/job_1xjson')).toBe(false);
    expect(re.test('/v1/media/a/b.json')).toBe(false);
  });

  it('has one list of methods and one of bounds, each lower bound beside its upper one', () => {
    expect(HTTP_METHODS).toHaveLength(9);
    expect(HTTP_METHODS).toContain('query');
    expect([...BOUNDS].sort()).toEqual([...LOWER_BOUNDS, ...UPPER_BOUNDS].sort());
    expect(LOWER_BOUNDS.map((k) => k.replace(/min/i, ''))).toEqual(
      UPPER_BOUNDS.map((k) => k.replace(/max/i, '')),
    );
  });
});

describe('the OpenAPI document layer: the JSON body schema of an operation', () => {
  const bodies = new OpenApiDocument({
    paths: {
      '/v1/jobs/{job}': {
        post: {
          requestBody: { $ref: '#/components/requestBodies/Job' },
          responses: {
            default: { content: { 'application/json': { schema: { title: 'default' } } } },
            '2XX': { content: { 'application/json': { schema: { title: 'range' } } } },
            204: { description: 'no content' },
            202: { content: { 'text/plain': { schema: { title: 'text' } } } },
            201: { $ref: '#/components/responses/Created' },
          },
        },
        get: {
          requestBody: {
            content: {
              'text/plain': { schema: { title: 'text' } },
              'application/json; charset=utf-8': { schema: { $ref: '#/components/schemas/Job' } },
            },
          },
          responses: {
            200: { content: { 'application/json': {} } },
            '2XX': { content: { 'application/json': { schema: { title: 'range' } } } },
          },
        },
        put: {
          requestBody: { content: { 'application/json': {}, 'application/json; v=2': { schema: {} } } },
          responses: { default: { content: { 'application/json': { schema: { title: 'default' } } } } },
        },
      },
    },
    components: {
      schemas: { Job: { type: 'object' } },
      requestBodies: { Job: { content: { 'application/json': { schema: { title: 'job' } } } } },
      responses: { Created: { content: { 'application/json': { schema: { title: 'created' } } } } },
    },
  });
  const body = (method: string, side: BodySide) => {
    const op = bodies.operationFor(method, '/v1/jobs/{id}');
    return op && bodies.jsonBody(op, side);
  };

  it('finds the operation of a contract template whatever its parameters are named', () => {
    expect(bodies.operationFor('post', '/v1/jobs/{id}')?.pointer).toBe('/paths/~1v1~1jobs~1{job}/post');
    expect(bodies.operationFor('POST', '/v1/jobs/x')).toBeUndefined();
    expect(bodies.operationFor('DELETE', '/v1/jobs/{id}')).toBeUndefined();
  });

  it('reads a request body behind a $ref, at the pointer where the operation holds it', () => {
    expect(body('POST', 'request')).toEqual({
      schema: { title: 'job' },
      at: '/paths/~1v1~1jobs~1{job}/post/requestBody',
    });
  });

  it('takes the first application/json media type, parameters allowed, its schema as written', () => {
    expect(body('GET', 'request')?.schema).toEqual({ $ref: '#/components/schemas/Job' });
    // The first JSON media type declares no schema: no body, the later one is not consulted.
    expect(body('PUT', 'request')).toBeUndefined();
  });

  it('takes the first 2xx response declaring a JSON schema: codes in order, then ranges; never default', () => {
    expect(body('POST', 'response')).toEqual({
      schema: { title: 'created' },
      at: '/paths/~1v1~1jobs~1{job}/post/responses/201',
    });
    expect(body('GET', 'response')).toEqual({
      schema: { title: 'range' },
      at: '/paths/~1v1~1jobs~1{job}/get/responses/2XX',
    });
    expect(body('PUT', 'response')).toBeUndefined();
  });

  it('lists the responses in the order of the object, behind their $ref, each with its content map', () => {
    const op = bodies.operationFor('POST', '/v1/jobs/{id}')!;
    expect(
      bodies.responses(op).map((r) => [r.status, Object.keys(r.content), r.at.split('/').at(-1)]),
    ).toEqual([
      ['201', ['application/json'], '201'],
      ['202', ['text/plain'], '202'],
      ['204', [], '204'],
      ['default', ['application/json'], 'default'],
      ['2XX', ['application/json'], '2XX'],
    ]);
  });
});

describe('the OpenAPI document layer: allOf merged once, for drift and diff', () => {
  const schemas: Json = {
    Base: {
      type: 'object',
      properties: { input: { type: 'integer' }, encoding_format: { enum: ['float', 'base64'] } },
    },
  };
  const d = new OpenApiDocument({ components: { schemas } });

  it('intersects what the branches admit: types, enums, bounds, properties and required', () => {
    const n = d.normalize({
      allOf: [
        { $ref: '#/components/schemas/Base' },
        {
          type: ['object', 'null'],
          required: ['input'],
          minProperties: 1,
          properties: { encoding_format: { const: 'float' } },
        },
      ],
    });
    expect(n.types).toEqual(['object']);
    expect([...n.required]).toEqual(['input']);
    const format = d.normalize(d.schema(n.properties.get('encoding_format')));
    expect(format).toMatchObject({ enum: ['float'], constant: true, types: ['string'] });
  });

  it('takes the tighter bound of two branches', () => {
    const n = d.normalize({
      allOf: [
        { minLength: 1, maxLength: 9 },
        { minLength: 3, maxLength: 20 },
      ],
    });
    expect(Object.fromEntries(n.bounds)).toEqual({ minLength: 3, maxLength: 9 });
  });

  const drift = (schema: unknown) =>
    new DriftComparer(
      new Documented(),
      new LiveDescription({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {},
        components: { schemas },
      }),
    ).compare('embedding-request.json', schema, 'request');

  it('drift sees a contradiction in an earlier branch that a later branch only mentions', () => {
    // The later branch says nothing about the type of `input`: the earlier one's integer still applies.
    const f = drift({
      allOf: [
        { $ref: '#/components/schemas/Base' },
        { type: 'object', properties: { input: { description: 'the text' } } },
      ],
    });
    expect(f.filter((x) => x.id === 'OAS-003').map((x) => [x.path, x.message])).toEqual([
      ['/input', 'type integer contradicts the documented string'],
      ['/encoding_format', 'enum allows more than the documented constant'],
    ]);
  });
});
