import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/http/client.ts';
import { nestingDepth } from '../../src/http/nesting.ts';
import { documentedFallback } from '../../src/openapi/fallback.ts';
import { capEvidence, DESCRIPTION_LIMITS, screenDescription } from '../../src/openapi/guard.ts';
import {
  checkOpenApi31,
  checkOpenApi31Once,
  judgeDescription,
  LiveDescription,
  VERDICT_CACHE_DIR,
  verdictCacheName,
} from '../../src/openapi/live.ts';
import { writeCached } from '../../src/yaml-cache.ts';

const doc = (schema: unknown, schemas: Record<string, unknown> = {}) => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things': {
      get: {
        responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } },
      },
    },
  },
  components: { schemas },
});

const response = (json: unknown, path = '/v1/things', method = 'GET'): HttpResponse => {
  const text = JSON.stringify(json);
  return {
    exchange: { id: 'x', startedAt: '', method, path, requestHeaders: {}, durationMs: 0 },
    method,
    rawPath: path,
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(text),
    text,
    json,
    mediaType: 'application/json',
  };
};

describe('the target description cannot hurt the harness', () => {
  it('runs patterns on a linear-time engine: ^(a+)+$ against 40 a and a ! answers at once', () => {
    const live = new LiveDescription(
      doc({
        type: 'object',
        properties: { a: { type: 'string', pattern: '^(a+)+$' }, b: { type: 'string', pattern: '^b+$' } },
      }),
    );
    // A backtracking engine would take about 2^40 steps (it would not end); this one answers.
    const findings = live.checkResponse(response({ a: `${'a'.repeat(40)}!`, b: 'bbb' }));
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/\/a must match pattern "\^\(a\+\)\+\$"/),
    ]);
    // Each pattern is its own (ajv shares compiled patterns by their name).
    expect(live.checkResponse(response({ a: 'aaa', b: 'a' })).map((f) => f.pointer)).toEqual(['/b']);
  });

  it('finds an allOf cycle, a $ref cycle and an anyOf cycle, but not a recursion through properties', () => {
    const loop = (k: string, s: unknown) =>
      screenDescription(doc({ $ref: `#/components/schemas/${k}` }, { [k]: s }));
    expect(loop('L', { allOf: [{ $ref: '#/components/schemas/L' }] })).toEqual([
      { kind: 'invalid', message: expect.stringMatching(/cycle/) },
    ]);
    expect(
      screenDescription(
        doc(
          { $ref: '#/components/schemas/A' },
          { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } },
        ),
      ),
    ).toEqual([{ kind: 'invalid', message: expect.stringMatching(/cycle/) }]);
    expect(loop('N', { anyOf: [{ type: 'string' }, { $ref: '#/components/schemas/N' }] })).toEqual([
      { kind: 'invalid', message: expect.stringMatching(/cycle/) },
    ]);
    expect(
      loop('T', {
        type: 'object',
        properties: { children: { type: 'array', items: { $ref: '#/components/schemas/T' } } },
      }),
    ).toEqual([]);
  });

  it('bounds depth, enums and patterns, naming where, without recursion (200,000 levels)', () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const d = { ...doc({ type: 'object' }), 'x-deep': deep };
    expect(screenDescription(d)).toEqual([
      {
        kind: 'too-large',
        message: expect.stringMatching(/^\/x-deep(\/0)+: nested deeper than 128 levels$/),
      },
    ]);
    const many = Array.from({ length: DESCRIPTION_LIMITS.enumValues + 1 }, (_, i) => `v${i}`);
    expect(screenDescription(doc({ enum: many }))).toEqual([
      { kind: 'too-large', message: expect.stringMatching(/\/schema\/enum: 2001 values/) },
    ]);
    expect(screenDescription(doc({ type: 'string', pattern: '([a-z' }))).toEqual([
      {
        kind: 'invalid',
        message: expect.stringMatching(/\/schema\/pattern: not a valid regular expression/),
      },
    ]);
    expect(screenDescription(doc({ type: 'string', pattern: '^(?=a)a$' }))).toEqual([]);
  });

  it('a cycle makes a description invalid (the target fails OAS-001), not an exception', async () => {
    const check = await checkOpenApi31(
      doc(
        { allOf: [{ $ref: '#/components/schemas/L' }] },
        { L: { allOf: [{ $ref: '#/components/schemas/L' }] } },
      ),
    );
    expect(check.valid).toBe(false);
    expect(check.errors.join()).toMatch(/cycle/);
    expect(check.tooLarge).toBeUndefined();
  });

  it('a description over a size bound is not examined and not invalid (OAS-006, not OAS-001)', async () => {
    const many = Array.from({ length: DESCRIPTION_LIMITS.enumValues + 500 }, (_, i) => `v${i}`);
    const check = await checkOpenApi31(doc({ type: 'string', enum: many }));
    expect(check).toEqual({
      valid: false,
      version: '3.1.0',
      errors: [],
      tooLarge: [expect.stringMatching(/\/schema\/enum: 2500 values \(at most 2000\)/)],
    });
    // Both: the invalid pattern stays the target's failure, whatever else is too large.
    const both = await checkOpenApi31(
      doc({ type: 'object', properties: { a: { enum: many }, b: { type: 'string', pattern: '([a-z' } } }),
    );
    expect(both.errors).toEqual([expect.stringMatching(/\/b\/pattern: not a valid regular expression/)]);
    expect(both.tooLarge).toEqual([expect.stringMatching(/\/a\/enum: 2500 values/)]);
  });

  it("the description's verdict is the preflight's for the very bytes it judged, judged anew for others", async () => {
    const invalid = doc(
      { allOf: [{ $ref: '#/components/schemas/L' }] },
      { L: { allOf: [{ $ref: '#/components/schemas/L' }] } },
    );
    const body = Buffer.from(JSON.stringify(invalid));
    const sha256 = createHash('sha256').update(body).digest('hex');
    // A verdict only the preflight could have given: the bytes it judged are not judged again.
    const judged = { sha256, valid: true, version: '3.1.0', errors: [] };
    expect(await checkOpenApi31Once(body, invalid, judged)).toEqual({
      valid: true,
      version: '3.1.0',
      errors: [],
    });
    // Other bytes (one more space, or no preflight at all): judged here.
    const other = Buffer.concat([body, Buffer.from(' ')]);
    expect((await checkOpenApi31Once(other, invalid, judged)).errors.join()).toMatch(/cycle/);
    expect((await checkOpenApi31Once(body, invalid, undefined)).errors.join()).toMatch(/cycle/);
  });

  it('a verdict is kept per bytes and judging code: read back for the same bytes, judged anew for others or a spoilt entry', async () => {
    const invalid = doc(
      { allOf: [{ $ref: '#/components/schemas/L' }] },
      { L: { allOf: [{ $ref: '#/components/schemas/L' }] }, nonce: { const: Math.random() } },
    );
    const body = Buffer.from(JSON.stringify(invalid));
    const sha256 = createHash('sha256').update(body).digest('hex');
    const name = verdictCacheName(sha256);
    expect(name).toMatch(/^[0-9a-f]{64}\.json$/);
    const file = join(VERDICT_CACHE_DIR, name!);
    expect(existsSync(file)).toBe(false);
    // Judged, and kept.
    const first = await judgeDescription(body, invalid);
    expect(first).toMatchObject({ sha256, valid: false });
    expect(first.errors.join()).toMatch(/cycle/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ...first, sha256: undefined });
    // Read back: a kept verdict (planted here) is what the same bytes get, without judging them.
    writeCached(VERDICT_CACHE_DIR, name!, JSON.stringify({ valid: true, version: '3.1.0', errors: [] }));
    expect(await judgeDescription(body, invalid)).toEqual({
      sha256,
      valid: true,
      version: '3.1.0',
      errors: [],
    });
    // Other bytes: another entry, judged.
    const other = Buffer.concat([body, Buffer.from(' ')]);
    expect((await judgeDescription(other, invalid)).errors.join()).toMatch(/cycle/);
    // A spoilt entry is judged anew and replaced.
    writeCached(VERDICT_CACHE_DIR, name!, '{"valid":');
    expect((await judgeDescription(body, invalid)).errors.join()).toMatch(/cycle/);
    expect(JSON.parse(readFileSync(file, 'utf8')).valid).toBe(false);
    // Bytes that are no JSON are not kept.
    expect((await judgeDescription(Buffer.from('{'), undefined)).errors).toEqual(['not a JSON object']);
  });

  it('a count of one kind of hazard never hides the other', () => {
    const big = Array.from({ length: DESCRIPTION_LIMITS.enumValues + 1 }, (_, i) => `v${i}`);
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 12; i++) properties[`e${i}`] = { enum: big };
    properties.z = { type: 'string', pattern: '([a-z' };
    const found = screenDescription(doc({ type: 'object', properties }));
    expect(found.filter((h) => h.kind === 'too-large')).toHaveLength(10);
    expect(found.filter((h) => h.kind === 'invalid')).toHaveLength(1);
  });

  it('without a usable description, bodies are still checked against the documented schemas', () => {
    const res = response({ id: 7 }, '/v1/chat/completions', 'POST');
    const findings = documentedFallback({ errors: ['/ must have property info'] }).judgeResponse(
      res,
    ).findings;
    expect(findings.length).toBeGreaterThan(0);
    expect(findings[0]!.id).toBe('RESP-003');
    expect(findings[0]!.message).toMatch(
      /documented schema chat-completion\.json; the live description is not usable, see OAS-001/,
    );
    const beyond = documentedFallback({ errors: [], tooLarge: ['/x/enum: 2500 values (at most 2000)'] });
    expect(beyond.judgeResponse(res).findings[0]!.message).toMatch(
      /beyond what the suite examines, see OAS-006/,
    );
  });

  it('a 40,000-entry list with an error in every entry is judged without quadratic work', () => {
    const live = new LiveDescription(
      doc(
        { type: 'array', items: { $ref: '#/components/schemas/E' } },
        { E: { type: 'object', properties: { p: { type: 'string' } } } },
      ),
    );
    const list = Array.from({ length: 40_000 }, (_, i) => ({ p: i, pad: 'x'.repeat(30) }));
    const started = performance.now();
    const findings = live.checkResponse(response(list));
    // A quadratic collection of 40,000 errors took 15 s here; a linear pass takes milliseconds: 5 s is a
    // thousand times that. (Growth from 5,000 to 40,000 entries is no measure here: a large body is not
    // searched past its first error, a small one is.)
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toMatch(
      /\/0\/p must be string .*the first error; a \d+-byte body is not searched for more/,
    );
    // A small body still gets every error (up to 8 listed).
    expect(live.checkResponse(response([{ p: 1 }, { p: 2 }]))).toHaveLength(2);
  });

  it('caps evidence: a 1 MB enum or a 40,000-item list is counted, not copied', () => {
    const big = Array.from({ length: 40_000 }, (_, i) => `value-${i}`);
    const capped = capEvidence({ allowedValues: big }) as { allowedValues: { of: number; omitted: number } };
    expect(JSON.stringify(capped).length).toBeLessThan(4_000);
    expect(JSON.stringify(capEvidence(big)).length).toBeLessThan(4_000);
    expect((capEvidence(big) as { of: number }).of).toBe(40_000);
    expect(capEvidence({ a: 1, b: ['x'] })).toEqual({ a: 1, b: ['x'] });
    expect(nestingDepth([[[1]]], 10)).toBe(3);
  });
});
