/**
 * The live description's validators: a schema behind a `$ref`'d response or header is compiled from where
 * the reference leads, and each validator's code is kept (VALIDATOR_CACHE_DIR) and loaded back with the
 * same findings, so that threads and runs reading the same description do not compile it again.
 */
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/http/client.ts';
import { LiveDescription, VALIDATOR_CACHE_DIR } from '../../src/openapi/live.ts';
import { readCached, writeCached } from '../../src/yaml-cache.ts';

const reply = (json: unknown, headers: Record<string, string> = {}): HttpResponse => {
  const text = JSON.stringify(json);
  return {
    exchange: {
      id: 'x',
      startedAt: '',
      method: 'GET',
      path: '/v1/things',
      requestHeaders: {},
      durationMs: 0,
    },
    method: 'GET',
    rawPath: '/v1/things',
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(text),
    text,
    json,
    mediaType: 'application/json',
  };
};

/** A description whose one response and header are `$ref`s, with what ajv generates helpers for. */
const description = () => ({
  openapi: '3.1.0',
  info: { title: 't', version: String(Math.random()) },
  paths: { '/v1/things': { get: { responses: { '200': { $ref: '#/components/responses/Things' } } } } },
  components: {
    responses: {
      Things: {
        description: 'ok',
        headers: { 'X-Count': { $ref: '#/components/headers/Count' } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Things' } } },
      },
    },
    headers: { Count: { schema: { type: 'integer', maximum: 5 } } },
    schemas: {
      Things: {
        type: 'object',
        required: ['id', 'at', 'n', 'name'],
        properties: {
          id: { type: 'string', pattern: '^th_[a-z0-9]+$' },
          at: { type: 'string', format: 'date-time' },
          n: { type: 'integer', format: 'int32' },
          name: { type: 'string', minLength: 2 },
          tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true },
        },
      },
    },
  },
});

const BODIES: Array<[unknown, Record<string, string>]> = [
  [{ id: 'th_1', at: '2026-01-02T03:04:05Z', n: 3, name: 'ab', tags: ['a', 'b'] }, { 'x-count': '4' }],
  [{ id: 'TH-1', at: 'yesterday', n: 2 ** 31, name: '😀', tags: ['a', 'a', 'c'] }, { 'x-count': '9' }],
  [{ at: '2026-01-02T03:04:05Z' }, { 'x-count': 'many' }],
];
const findings = (live: LiveDescription) =>
  BODIES.map(([body, headers]) => live.checkResponse(reply(body, headers)).map((f) => [f.id, f.message]));

describe('the live description’s validators', () => {
  it('compile a response’s and a header’s schema from where their $ref leads', () => {
    const live = new LiveDescription(description());
    const [valid, wrong, missing] = findings(live);
    expect(valid).toEqual([]);
    const messages = wrong!.map(([, m]) => m).join('\n');
    expect(messages).toMatch(/\/id must match pattern/);
    expect(messages).toMatch(/\/at must match format "date-time"/);
    expect(messages).toMatch(/\/n must match format "int32"/);
    expect(messages).toMatch(/\/name must NOT have fewer than 2 characters/);
    expect(messages).toMatch(/header X-Count does not match its schema/);
    expect(missing!.map(([id]) => id)).toEqual(expect.arrayContaining(['RESP-003', 'RESP-004']));
    expect(messages).not.toMatch(/does not compile/);
  });

  it('read a header as its schema does: numbers, booleans and lists from their text', () => {
    const doc = description();
    const things = doc.components.responses.Things as { headers: Record<string, unknown> };
    things.headers['X-Replayed'] = { schema: { type: 'boolean' } };
    things.headers['X-Sizes'] = { schema: { type: 'array', items: { type: 'integer', minimum: 1 } } };
    things.headers['X-Mode'] = { schema: { enum: ['fast', 'slow'] } };
    const live = new LiveDescription(doc);
    const headerFindings = (headers: Record<string, string>) =>
      live
        .checkResponse(reply(BODIES[0]![0], headers))
        .map((f) => f.message)
        .filter((m) => /header/.test(m));
    expect(
      headerFindings({ 'x-count': '5', 'x-replayed': 'true', 'x-sizes': '1, 2,3', 'x-mode': 'fast' }),
    ).toEqual([]);
    expect(headerFindings({ 'x-replayed': 'false', 'x-sizes': '7' })).toEqual([]);
    const wrong = headerFindings({ 'x-count': '', 'x-replayed': 'yes', 'x-sizes': '1,0', 'x-mode': 'quick' });
    for (const name of ['X-Count', 'X-Replayed', 'X-Sizes', 'X-Mode'])
      expect(wrong.some((m) => m.includes(`header ${name} does not match its schema`))).toBe(true);
  });

  it('are kept as code and loaded back with the same findings; kept code is what runs; spoilt code is compiled again', () => {
    const doc = description();
    const first = new LiveDescription(doc);
    const compiled = findings(first);
    const pointer = '/components/responses/Things/content/application~1json/schema';
    const name = first.validatorCacheName(`first:${pointer}`);
    expect(name).toMatch(/^[0-9a-f]{64}\.js$/);
    expect(readCached(VALIDATOR_CACHE_DIR, name!)).toMatch(/^"use strict";/);
    // Another thread (a new instance) of the same description loads the kept code: the same findings.
    expect(findings(new LiveDescription(doc))).toEqual(compiled);
    // What runs is the kept code (planted here: it refuses everything under its own name).
    writeCached(
      VALIDATOR_CACHE_DIR,
      name!,
      '"use strict";module.exports = function v(d) { v.errors = [{ instancePath: "", schemaPath: "#/planted", keyword: "planted", params: {}, message: "planted" }]; return false; };',
    );
    const planted = new LiveDescription(doc).checkResponse(reply(BODIES[0]![0], BODIES[0]![1]));
    expect(planted.map((f) => f.message).join()).toMatch(/planted/);
    // Code that does not load (or requires what validators never need) is compiled again and replaced.
    for (const spoilt of ['this is no code(', '"use strict";module.exports = require("node:fs");']) {
      writeCached(VALIDATOR_CACHE_DIR, name!, spoilt);
      expect(findings(new LiveDescription(doc))).toEqual(compiled);
      expect(readCached(VALIDATOR_CACHE_DIR, name!)).toMatch(/^"use strict";.*function validate/s);
    }
    // Another description is another entry.
    expect(new LiveDescription(description()).validatorCacheName(`first:${pointer}`)).not.toBe(name);
  });

  it('make no ajv in a thread whose validators are all kept; a description ajv cannot register reads as one that does not compile', () => {
    const doc = description();
    const ajvsOf = (live: LiveDescription) => (live as unknown as { ajvs: object }).ajvs;
    const first = new LiveDescription(doc);
    expect(ajvsOf(first)).toEqual({});
    const compiled = findings(first);
    expect(Object.keys(ajvsOf(first)).sort()).toEqual(['all', 'first']);
    const again = new LiveDescription(doc);
    expect(findings(again)).toEqual(compiled);
    expect(ajvsOf(again)).toEqual({});
    // Two schemas of one `$id`: ajv refuses to register the description. The thread still starts (the
    // ajv was made with the description: every test of the thread failed), and the schema reads as one
    // that does not compile: each body is checked against the documented schemas instead, saying why.
    const twice = {
      openapi: '3.1.0',
      info: { title: 't', version: String(Math.random()) },
      paths: {
        '/v1/things': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Things' } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Things: { $id: 'https://example.test/one', type: 'object' },
          Other: { $id: 'https://example.test/one', type: 'string' },
        },
      },
    };
    const live = new LiveDescription(twice);
    expect(live.checkResponse(reply(BODIES[0]![0]))).toEqual([]);
    const validator = (live as unknown as { validator(p: string, all?: boolean): unknown }).validator(
      '/paths/~1v1~1things/get/responses/200/content/application~1json/schema',
      false,
    );
    expect(validator).toBeInstanceOf(Error);
    expect((validator as Error).message).toMatch(/resolves to more than one schema/);
  });
});
