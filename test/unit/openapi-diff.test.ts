import { describe, expect, it } from 'vitest';
import { startReference } from '../../reference/start.ts';
import {
  type DescriptionChange,
  diffDescriptions,
  formatChanges,
  MAX_DESCRIPTION_CHANGES,
} from '../../src/openapi/diff.ts';

type Json = Record<string, unknown>;

const doc = (paths: Json, schemas: Json = {}, extra: Json = {}): Json => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths,
  components: { schemas, ...extra },
});

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

/** POST /things with `schema` as its JSON request body. */
const requestDoc = (schema: unknown, schemas: Json = {}) =>
  doc(
    { '/things': { post: { requestBody: { required: true, ...json(schema) }, responses: { 201: {} } } } },
    schemas,
  );

/** GET /things answering `schema` in its 200 JSON response. */
const responseDoc = (schema: unknown, schemas: Json = {}) =>
  doc({ '/things': { get: { responses: { 200: { description: 'ok', ...json(schema) } } } } }, schemas);

const REQ = 'POST /things request body';
const RES = 'GET /things 200 response';

/** The changes as [kind, path, breaking] triples. */
const brief = (changes: DescriptionChange[]) => changes.map((c) => [c.kind, c.path, c.breaking]);

/** Diff of the same schema change, once in a request body and once in a response. */
function both(before: unknown, after: unknown, schemas: Json = {}) {
  return {
    request: diffDescriptions(requestDoc(before, schemas), requestDoc(after, schemas)).changes,
    response: diffDescriptions(responseDoc(before, schemas), responseDoc(after, schemas)).changes,
  };
}

const obj = (properties: Json, required: string[] = []) => ({ type: 'object', properties, required });

describe('identical descriptions', () => {
  it('have no changes, refs and cycles included', () => {
    const schemas = {
      Node: obj({
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
      }),
    };
    const d = requestDoc({ $ref: '#/components/schemas/Node' }, schemas);
    expect(diffDescriptions(d, structuredClone(d))).toEqual({ changes: [], breaking: 0 });
    expect(diffDescriptions(d, d)).toEqual({ changes: [], breaking: 0 });
  });

  it('ignore annotations, key order, a $ref against its inlined target and a renamed path parameter', () => {
    const a = doc(
      {
        '/jobs/{id}': {
          get: {
            summary: 'a',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { 200: json({ $ref: '#/components/schemas/Job' }) },
          },
        },
      },
      { Job: obj({ id: { type: 'string', description: 'the id' } }, ['id']) },
    );
    const b = doc({
      '/jobs/{job_id}': {
        get: {
          responses: {
            200: json({ required: ['id'], properties: { id: { type: 'string' } }, type: 'object' }),
          },
          parameters: [{ in: 'path', name: 'job_id', schema: { type: 'string' }, required: true }],
          summary: 'b',
        },
      },
    });
    expect(diffDescriptions(a, b).changes).toEqual([]);
  });

  it('do not throw on inputs that are not descriptions', () => {
    expect(diffDescriptions(undefined, null)).toEqual({ changes: [], breaking: 0 });
    expect(diffDescriptions('x', { paths: 3 })).toEqual({ changes: [], breaking: 0 });
  });
});

describe('endpoints, responses and media types', () => {
  const base = () =>
    doc({
      '/a': {
        get: {
          responses: {
            200: { content: { 'application/json': { schema: {} }, 'text/csv': { schema: {} } } },
            404: json({}),
          },
        },
        post: {
          requestBody: { content: { 'application/json': { schema: {} }, 'image/png': {} } },
          responses: {},
        },
      },
    });

  it('an endpoint removed is breaking, one added is not', () => {
    const a = base();
    const b = base() as { paths: Record<string, Json> };
    delete b.paths['/a']!.post;
    b.paths['/b'] = { delete: { responses: { 204: {} } } };
    expect(brief(diffDescriptions(a, b).changes)).toEqual([
      ['endpoint-added', 'DELETE /b', false],
      ['endpoint-removed', 'POST /a', true],
    ]);
    expect(diffDescriptions(a, b).breaking).toBe(1);
  });

  it('a removed 2xx response is breaking, a removed error response or an added one is not', () => {
    const a = base();
    const b = base() as { paths: { '/a': { get: { responses: Json } } } };
    const responses = b.paths['/a'].get.responses;
    delete responses[200];
    delete responses[404];
    responses[201] = json({});
    expect(brief(diffDescriptions(a, b).changes)).toEqual([
      ['response-removed', 'GET /a 200 response', true],
      ['response-added', 'GET /a 201 response', false],
      ['response-removed', 'GET /a 404 response', false],
    ]);
  });

  it('a removed media type is breaking in requests and responses, an added one is not', () => {
    const a = base();
    const b = base() as { paths: { '/a': { get: { responses: Record<string, Json> }; post: Json } } };
    b.paths['/a'].get.responses[200] = { content: { 'application/json': { schema: {} }, 'text/plain': {} } };
    b.paths['/a'].post.requestBody = { content: { 'application/json': { schema: {} }, 'image/webp': {} } };
    const changes = diffDescriptions(a, b).changes;
    expect(brief(changes)).toEqual([
      ['content-type-removed', 'GET /a 200 response (text/csv)', true],
      ['content-type-added', 'GET /a 200 response (text/plain)', false],
      ['content-type-removed', 'POST /a request body (image/png)', true],
      ['content-type-added', 'POST /a request body (image/webp)', false],
    ]);
    expect(changes[0]!.detail).toBe('text/csv no longer returned');
    expect(changes[2]!.detail).toBe('image/png no longer accepted');
  });

  it('a request body that becomes required is breaking; one that becomes optional is not', () => {
    const a = requestDoc({});
    const b = structuredClone(a) as { paths: { '/things': { post: { requestBody: Json } } } };
    b.paths['/things'].post.requestBody.required = false;
    expect(brief(diffDescriptions(a, b).changes)).toEqual([['required-removed', REQ, false]]);
    expect(brief(diffDescriptions(b, a).changes)).toEqual([['required-added', REQ, true]]);
  });
});

describe('parameters', () => {
  const op = (parameters: unknown[], pathLevel: unknown[] = []) =>
    doc({ '/p/{id}': { parameters: pathLevel, get: { parameters, responses: { 200: {} } } } });
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  const limit = { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } };

  it('removed: breaking; added: breaking only if required', () => {
    expect(brief(diffDescriptions(op([id, limit]), op([id])).changes)).toEqual([
      ['parameter-removed', 'GET /p/{id} query parameter limit', true],
    ]);
    expect(brief(diffDescriptions(op([id]), op([id, limit])).changes)).toEqual([
      ['parameter-added', 'GET /p/{id} query parameter limit', false],
    ]);
    const trace = { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string' } };
    expect(brief(diffDescriptions(op([id]), op([id, trace])).changes)).toEqual([
      ['parameter-added', 'GET /p/{id} header parameter X-Trace', true],
    ]);
  });

  it('newly required is breaking; no longer required is not', () => {
    const required = { ...limit, required: true };
    expect(brief(diffDescriptions(op([id, limit]), op([id, required])).changes)).toEqual([
      ['parameter-required-added', 'GET /p/{id} query parameter limit', true],
    ]);
    expect(brief(diffDescriptions(op([id, required]), op([id, limit])).changes)).toEqual([
      ['required-removed', 'GET /p/{id} query parameter limit', false],
    ]);
  });

  it('schemas compare as requests; path-level and $ref parameters count, header names ignore case', () => {
    const tighter = { ...limit, schema: { type: 'integer', maximum: 50 } };
    const a = op([id], [limit]);
    const b = doc(
      {
        '/p/{id}': {
          get: { parameters: [id, { $ref: '#/components/parameters/Limit' }], responses: { 200: {} } },
        },
      },
      {},
      { parameters: { Limit: tighter } },
    );
    const changes = diffDescriptions(a, b).changes;
    expect(brief(changes)).toEqual([['bound-tightened', 'GET /p/{id} query parameter limit', true]]);
    expect(changes[0]!.detail).toBe('maximum 100 -> 50');
    const h = (name: string) => op([id, { name, in: 'header', schema: { type: 'string' } }]);
    expect(diffDescriptions(h('Idempotency-Key'), h('idempotency-key')).changes).toEqual([]);
  });
});

describe('fields and required', () => {
  const before = obj({ a: { type: 'string' }, b: { type: 'string' } }, ['a']);

  it('a removed field is breaking in requests and responses', () => {
    const { request, response } = both(before, obj({ b: { type: 'string' } }));
    expect(brief(request)).toEqual([['field-removed', `${REQ}: a`, true]]);
    expect(brief(response)).toEqual([['field-removed', `${RES}: a`, true]]);
    expect(request[0]!.detail).toBe('field removed (was required)');
  });

  it('an added field breaks requests only if it is required, and never responses', () => {
    const optional = both(before, obj({ ...before.properties, c: { type: 'string' } }, ['a']));
    expect(brief(optional.request)).toEqual([['field-added', `${REQ}: c`, false]]);
    expect(brief(optional.response)).toEqual([['field-added', `${RES}: c`, false]]);
    const required = both(before, obj({ ...before.properties, c: { type: 'string' } }, ['a', 'c']));
    expect(brief(required.request)).toEqual([['field-added', `${REQ}: c`, true]]);
    expect(brief(required.response)).toEqual([['field-added', `${RES}: c`, false]]);
    expect(required.request[0]!.detail).toBe('new required field');
  });

  it('newly required breaks requests; no longer required breaks responses', () => {
    const added = both(before, obj(before.properties, ['a', 'b']));
    expect(brief(added.request)).toEqual([['required-added', `${REQ}: b`, true]]);
    expect(brief(added.response)).toEqual([['required-added', `${RES}: b`, false]]);
    const removed = both(before, obj(before.properties, []));
    expect(brief(removed.request)).toEqual([['required-removed', `${REQ}: a`, false]]);
    expect(brief(removed.response)).toEqual([['required-removed', `${RES}: a`, true]]);
  });

  it('nested paths: properties, items [], prefixItems [n], additionalProperties *', () => {
    const shape = (leaf: Json) =>
      obj({
        data: { type: 'array', items: obj({ id: leaf }) },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, leaf] },
        meta: { type: 'object', additionalProperties: leaf },
        deep: obj({ inner: obj({ id: leaf }) }),
      });
    const { response } = both(shape({ type: 'string' }), shape({ type: 'integer' }));
    expect(response.map((c) => c.path)).toEqual([
      `${RES}: data[].id`,
      `${RES}: deep.inner.id`,
      `${RES}: meta.*`,
      `${RES}: pair[1]`,
    ]);
    expect(
      response.every((c) => c.kind === 'type-changed' && c.breaking && c.detail === 'string -> integer'),
    ).toBe(true);
  });
});

describe('types', () => {
  it('a narrower type breaks requests, a wider one breaks responses, an unrelated one both', () => {
    const narrower = both({ type: ['string', 'null'] }, { type: 'string' });
    expect(brief(narrower.request)).toEqual([['type-changed', REQ, true]]);
    expect(brief(narrower.response)).toEqual([['type-changed', RES, false]]);
    expect(narrower.request[0]!.detail).toBe('null | string -> string');
    const wider = both({ type: 'integer' }, { type: 'number' });
    expect(brief(wider.request)).toEqual([['type-changed', REQ, false]]);
    expect(brief(wider.response)).toEqual([['type-changed', RES, true]]);
    const nullable = both({ type: 'string' }, { type: 'string', nullable: true });
    expect(brief(nullable.response)).toEqual([['type-changed', RES, true]]);
    const unrelated = both(obj({ a: { type: 'string' } }), { type: 'string' });
    // Nothing in common: the fields below are not compared (no field-removed for `a`).
    expect(brief(unrelated.request)).toEqual([['type-changed', REQ, true]]);
    expect(brief(unrelated.response)).toEqual([['type-changed', RES, true]]);
  });

  it('integer and number written differently, or a const and its type, are not changes', () => {
    expect(both({ type: ['integer', 'number'] }, { type: 'number' }).response).toEqual([]);
    expect(both({ const: 'x' }, { type: 'string', const: 'x' }).response).toEqual([]);
    expect(both({ type: 'string' }, { type: ['string'] }).request).toEqual([]);
  });
});

describe('enums', () => {
  const e = (...values: unknown[]) => ({ type: 'string', enum: values });

  it('a removed value breaks requests, an added one breaks responses', () => {
    const removed = both(e('a', 'b'), e('a'));
    expect(brief(removed.request)).toEqual([['enum-value-removed', REQ, true]]);
    expect(brief(removed.response)).toEqual([['enum-value-removed', RES, false]]);
    expect(removed.request[0]!.detail).toBe('"b" removed');
    const added = both(e('a'), e('a', 'b', 'c'));
    expect(brief(added.request)).toEqual([
      ['enum-value-added', REQ, false],
      ['enum-value-added', REQ, false],
    ]);
    expect(brief(added.response)).toEqual([
      ['enum-value-added', RES, true],
      ['enum-value-added', RES, true],
    ]);
    expect(added.response.map((c) => c.detail)).toEqual(['"b" added', '"c" added']);
  });

  it('const is a one-value enum; an enum dropped or introduced counts as values added or removed', () => {
    const changed = both({ const: 'balance' }, { const: 'wallet' });
    expect(brief(changed.response)).toEqual([
      ['enum-value-added', RES, true],
      ['enum-value-removed', RES, false],
    ]);
    const dropped = both(e('a'), { type: 'string' });
    expect(brief(dropped.request)).toEqual([['enum-value-added', REQ, false]]);
    expect(brief(dropped.response)).toEqual([['enum-value-added', RES, true]]);
    const introduced = both({ type: 'string' }, e('a'));
    expect(brief(introduced.request)).toEqual([['enum-value-removed', REQ, true]]);
    expect(brief(introduced.response)).toEqual([['enum-value-removed', RES, false]]);
  });
});

describe('bounds', () => {
  const cases: [string, Json, Json][] = [
    ['minimum', { minimum: 1 }, { minimum: 2 }],
    ['maximum', { maximum: 10 }, { maximum: 9 }],
    ['exclusiveMinimum', { exclusiveMinimum: 0 }, { exclusiveMinimum: 1 }],
    ['exclusiveMaximum', { exclusiveMaximum: 10 }, { exclusiveMaximum: 5 }],
    ['minLength', { minLength: 1 }, { minLength: 3 }],
    ['maxLength', { maxLength: 160 }, { maxLength: 80 }],
    ['minItems', { minItems: 0 }, { minItems: 1 }],
    ['maxItems', { maxItems: 16 }, { maxItems: 4 }],
    ['multipleOf', { multipleOf: 2 }, { multipleOf: 4 }],
    ['maxLength added', {}, { maxLength: 5 }],
    ['pattern added', {}, { pattern: '^a' }],
  ];

  for (const [name, loose, tight] of cases) {
    it(`${name}: tightened breaks requests, loosened breaks responses`, () => {
      const tighten = both(loose, tight);
      expect(brief(tighten.request)).toEqual([['bound-tightened', REQ, true]]);
      expect(brief(tighten.response)).toEqual([['bound-tightened', RES, false]]);
      const loosen = both(tight, loose);
      expect(brief(loosen.request)).toEqual([['bound-loosened', REQ, false]]);
      expect(brief(loosen.response)).toEqual([['bound-loosened', RES, true]]);
    });
  }

  it('details name the bound and both values', () => {
    expect(both({ maxLength: 160 }, { maxLength: 80 }).request[0]!.detail).toBe('maxLength 160 -> 80');
    expect(both({}, { maxLength: 5 }).request[0]!.detail).toBe('maxLength 5 added');
    expect(both({ maxLength: 5 }, {}).request[0]!.detail).toBe('maxLength 5 removed');
  });

  it('a changed pattern or an unrelated multipleOf is breaking both ways', () => {
    const pattern = both({ pattern: '^a' }, { pattern: '^b' });
    expect(brief(pattern.request)).toEqual([['bound-tightened', REQ, true]]);
    expect(brief(pattern.response)).toEqual([['bound-tightened', RES, true]]);
    expect(pattern.request[0]!.detail).toBe('pattern "^a" -> "^b"');
    const multiple = both({ multipleOf: 3 }, { multipleOf: 2 });
    expect(brief(multiple.request)).toEqual([['bound-tightened', REQ, true]]);
    expect(brief(multiple.response)).toEqual([['bound-tightened', RES, true]]);
  });

  it('OpenAPI 3.0 boolean exclusiveMinimum reads as the 3.1 number', () => {
    expect(both({ minimum: 0, exclusiveMinimum: true }, { exclusiveMinimum: 0 }).request).toEqual([]);
  });

  it('additionalProperties: false added tightens, removed loosens', () => {
    const open = obj({ a: { type: 'string' } });
    const closed = { ...open, additionalProperties: false };
    expect(brief(both(open, closed).request)).toEqual([['bound-tightened', REQ, true]]);
    expect(brief(both(closed, open).response)).toEqual([['bound-loosened', RES, true]]);
  });
});

describe('allOf, anyOf and oneOf', () => {
  it('allOf branches merge: a field moved between branches is no change, a change inside one is', () => {
    const a = { allOf: [obj({ a: { type: 'string' } }, ['a']), obj({ b: { type: 'integer' } })] };
    const b = { allOf: [obj({ a: { type: 'string' }, b: { type: 'integer' } }), { required: ['a'] }] };
    expect(both(a, b).response).toEqual([]);
    const c = { allOf: [obj({ a: { type: 'string' } }, ['a']), obj({ b: { type: 'integer', maximum: 3 } })] };
    expect(brief(both(a, c).response)).toEqual([['bound-tightened', `${RES}: b`, false]]);
    // The same field in two branches: both constraints hold.
    const d = { allOf: [obj({ a: { type: 'string', maxLength: 9 } }), obj({ a: { minLength: 1 } })] };
    const e = { allOf: [obj({ a: { type: 'string', maxLength: 9 } }), obj({ a: { minLength: 2 } })] };
    expect(brief(both(d, e).request)).toEqual([['bound-tightened', `${REQ}: a`, true]]);
  });

  it('same number of branches: compared branch by branch', () => {
    const a = { oneOf: [{ type: 'string' }, obj({ id: { type: 'string', maxLength: 9 } })] };
    const b = { oneOf: [{ type: 'string' }, obj({ id: { type: 'string', maxLength: 5 } })] };
    const { request } = both(a, b);
    expect(brief(request)).toEqual([['bound-tightened', `${REQ}: oneOf[1].id`, true]]);
  });

  it('another number of branches: one type-changed, breaking by direction', () => {
    const two = { anyOf: [{ type: 'string' }, { type: 'integer' }] };
    const three = { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] };
    // A branch added: requests still pass, responses may carry the new branch.
    const added = both(two, three);
    expect(brief(added.request)).toEqual([['type-changed', REQ, false]]);
    expect(brief(added.response)).toEqual([['type-changed', RES, true]]);
    expect(added.request[0]!.detail).toBe(
      'anyOf of 2 -> anyOf of 3 (0 branches without an equal now, 1 new)',
    );
    // A branch removed: a previous branch has no equal now.
    const removed = both(three, two);
    expect(brief(removed.request)).toEqual([['type-changed', REQ, true]]);
    expect(brief(removed.response)).toEqual([['type-changed', RES, false]]);
    // Branches equal through a $ref count as equal.
    const schemas = { S: { type: 'string' } };
    const viaRef = both(three, { anyOf: [{ $ref: '#/components/schemas/S' }, { type: 'integer' }] }, schemas);
    expect(brief(viaRef.request)).toEqual([['type-changed', REQ, true]]);
    expect(viaRef.request[0]!.detail).toContain('(1 branches without an equal now, 0 new)');
  });
});

describe('$ref resolution', () => {
  it('follows refs to schemas, $defs, request bodies, responses and escaped names', () => {
    const make = (max: number) =>
      doc(
        {
          '/r': {
            post: {
              requestBody: { $ref: '#/components/requestBodies/Create' },
              responses: { 200: { $ref: '#/components/responses/Ok' } },
            },
          },
        },
        {
          'a/b': obj({ v: { $ref: '#/components/schemas/Defs/$defs/short' } }),
          Defs: { $defs: { short: { type: 'string', maxLength: max } } },
        },
        {
          requestBodies: { Create: json({ $ref: '#/components/schemas/a~1b' }) },
          responses: { Ok: json({ $ref: '#/components/schemas/a~1b' }) },
        },
      );
    expect(brief(diffDescriptions(make(10), make(20)).changes)).toEqual([
      ['bound-loosened', 'POST /r 200 response: v', true],
      ['bound-loosened', 'POST /r request body: v', false],
    ]);
  });

  it('terminates on cyclic schemas and reports a change once per location reached', () => {
    const schemas = (max: number) => ({
      Node: obj({
        name: { type: 'string', maxLength: max },
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        parent: { $ref: '#/components/schemas/Node' },
      }),
    });
    const a = responseDoc({ $ref: '#/components/schemas/Node' }, schemas(10));
    const b = responseDoc({ $ref: '#/components/schemas/Node' }, schemas(5));
    expect(brief(diffDescriptions(a, b).changes)).toEqual([['bound-tightened', `${RES}: name`, false]]);
  });

  it('terminates on cycles through allOf, through merged fields and through $ref chains', () => {
    const loops = (max: number) => ({
      A: { allOf: [{ $ref: '#/components/schemas/A' }, obj({ n: { type: 'string', maxLength: max } })] },
      // T and U: mutually recursive, with the same field in two allOf branches (merged as allOf).
      T: {
        allOf: [
          obj({ next: { $ref: '#/components/schemas/T' }, n: { type: 'string', maxLength: max } }),
          obj({ next: { $ref: '#/components/schemas/U' } }),
        ],
      },
      U: {
        allOf: [
          obj({ next: { $ref: '#/components/schemas/T' } }),
          obj({ next: { $ref: '#/components/schemas/U' }, m: { type: 'string', maxLength: max } }),
        ],
      },
      R: { $ref: '#/components/schemas/R' },
      Missing: { $ref: '#/components/schemas/Nowhere' },
    });
    const schema = obj(
      Object.fromEntries(['A', 'T', 'R', 'Missing'].map((k) => [k, { $ref: `#/components/schemas/${k}` }])),
    );
    const a = responseDoc(schema, loops(10));
    expect(diffDescriptions(a, structuredClone(a)).changes).toEqual([]);
    const b = responseDoc(schema, loops(20));
    expect(brief(diffDescriptions(a, b).changes)).toEqual([
      ['bound-loosened', `${RES}: A.n`, true],
      ['bound-loosened', `${RES}: T.n`, true],
      ['bound-loosened', `${RES}: T.next.m`, true],
      ['bound-loosened', `${RES}: T.next.n`, true],
    ]);
  });

  it('a schema inside a cycle is compared in its own right wherever it is reached again', () => {
    // B's content is the same in both, but what it references (A) is not.
    const schemas = (max: number) => ({
      A: obj({ b: { $ref: '#/components/schemas/B' }, x: { type: 'string', maxLength: max } }),
      B: obj({ a: { $ref: '#/components/schemas/A' } }),
    });
    const root = obj({
      first: { $ref: '#/components/schemas/A' },
      second: { $ref: '#/components/schemas/B' },
    });
    const changes = diffDescriptions(responseDoc(root, schemas(1)), responseDoc(root, schemas(2))).changes;
    expect(brief(changes)).toEqual([
      ['bound-loosened', `${RES}: first.x`, true],
      ['bound-loosened', `${RES}: second.a.x`, true],
    ]);
  });

  it('an unresolvable $ref compares by its text', () => {
    const { response } = both({ $ref: 'other.json#/A' }, { $ref: 'other.json#/B' });
    expect(brief(response)).toEqual([['type-changed', RES, true]]);
    expect(both({ $ref: 'other.json#/A' }, { $ref: 'other.json#/A' }).response).toEqual([]);
  });
});

describe('output', () => {
  const many = (n: number, offset = 0) =>
    doc(
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`/e${i + offset}`, { get: { responses: {} } }]),
      ),
    );

  it('is sorted by path then kind and does not depend on key order', () => {
    const a = responseDoc(
      obj({ b: { type: 'string' }, a: { enum: ['x', 'y'] }, c: { type: 'string' } }, ['c']),
    );
    const b = responseDoc(obj({ a: { enum: ['y', 'z'] }, d: { type: 'string' } }));
    const reversed = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reversed)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reversed(x)]),
            )
          : v;
    const first = diffDescriptions(a, b);
    expect(diffDescriptions(reversed(a), reversed(b))).toEqual(first);
    expect(brief(first.changes)).toEqual([
      ['enum-value-added', `${RES}: a`, true],
      ['enum-value-removed', `${RES}: a`, false],
      ['field-removed', `${RES}: b`, true],
      ['field-removed', `${RES}: c`, true],
      ['field-added', `${RES}: d`, false],
    ]);
    const paths = first.changes.map((c) => `${c.path}\u0000${c.kind}`);
    expect(paths).toEqual([...paths].sort());
  });

  it('stops after the limit with a final truncated entry', () => {
    const result = diffDescriptions(many(MAX_DESCRIPTION_CHANGES + 100), many(0));
    expect(result.changes).toHaveLength(MAX_DESCRIPTION_CHANGES + 1);
    expect(result.changes.at(-1)!.kind).toBe('truncated');
    expect(result.breaking).toBe(MAX_DESCRIPTION_CHANGES);
    expect(result.changes.slice(0, -1).every((c) => c.kind === 'endpoint-removed')).toBe(true);
    const exact = diffDescriptions(many(MAX_DESCRIPTION_CHANGES), many(0));
    expect(exact.changes).toHaveLength(MAX_DESCRIPTION_CHANGES);
    expect(exact.changes.some((c) => c.kind === 'truncated')).toBe(false);
    // The same documents keep the same entries.
    expect(diffDescriptions(many(MAX_DESCRIPTION_CHANGES + 100), many(0))).toEqual(result);
  });

  it('formats one line each, breaking first', () => {
    const a = doc({ '/a': { get: { responses: { 200: {} } } } });
    const b = doc({ '/a': { get: { responses: { 200: {}, 404: {} } } }, '/b': { get: { responses: {} } } });
    const { changes } = diffDescriptions(b, a);
    expect(formatChanges([...changes, ...diffDescriptions(a, b).changes])).toEqual([
      'BREAKING endpoint-removed: GET /b — endpoint removed',
      'non-breaking response-removed: GET /a 404 response — status 404 removed',
      'non-breaking response-added: GET /a 404 response — new status 404',
      'non-breaking endpoint-added: GET /b — new endpoint',
    ]);
  });
});

describe('the reference server description', () => {
  it('diffs against itself and against an edited copy', async () => {
    const ref = await startReference({ port: 0 });
    let live: {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties: Record<string, Json> }> };
    };
    try {
      const res = await fetch(`${ref.url}/openapi.json`);
      expect(res.status).toBe(200);
      live = (await res.json()) as typeof live;
    } finally {
      await ref.close();
    }
    expect(diffDescriptions(live, structuredClone(live))).toEqual({ changes: [], breaking: 0 });

    const edited = structuredClone(live);
    const endpoint = edited.paths['/v1/media/inputs/{input_id}']!;
    expect(endpoint.delete).toBeDefined();
    delete endpoint.delete;
    const category = edited.components.schemas.SupportTicketCreate!.properties.category!;
    expect(category.enum).toContain('technical');
    category.enum = (category.enum as string[]).filter((v) => v !== 'technical');
    const width = edited.components.schemas.MediaInput!.properties.width_pixels!;
    expect(width.maximum).toBe(8192);
    width.maximum = 4096; // a response bound tightened
    const subject = edited.components.schemas.SupportTicket!.properties.subject!;
    expect(subject.maxLength).toBeUndefined();
    subject.maxLength = 100; // a response field's maxLength tightened (absent before)
    const size = edited.components.schemas.MediaInput!.properties.size_bytes!;
    size.minimum = 0; // a response bound loosened

    const { changes, breaking } = diffDescriptions(live, edited);
    expect(brief(changes)).toEqual([
      ['endpoint-removed', 'DELETE /v1/media/inputs/{input_id}', true],
      ['bound-tightened', 'GET /v1/support/tickets 200 response: data[].subject', false],
      ['bound-loosened', 'POST /v1/media/inputs 201 response: input.size_bytes', true],
      ['bound-tightened', 'POST /v1/media/inputs 201 response: input.width_pixels', false],
      ['bound-tightened', 'POST /v1/support/tickets 201 response: ticket.subject', false],
      ['enum-value-removed', 'POST /v1/support/tickets request body: category', true],
    ]);
    expect(breaking).toBe(3);
    expect(changes.find((c) => c.kind === 'enum-value-removed')!.detail).toBe('"technical" removed');
    expect(changes.find((c) => c.path.endsWith('width_pixels'))!.detail).toBe('maximum 8192 -> 4096');
    expect(formatChanges(changes).slice(0, 3)).toEqual([
      'BREAKING endpoint-removed: DELETE /v1/media/inputs/{input_id} — endpoint removed',
      'BREAKING bound-loosened: POST /v1/media/inputs 201 response: input.size_bytes — minimum 1 -> 0',
      'BREAKING enum-value-removed: POST /v1/support/tickets request body: category — "technical" removed',
    ]);
  });
});
