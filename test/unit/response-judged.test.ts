/**
 * A response is judged by the description ids (RESP-001..004) only where there was something to hold it
 * to (src/openapi/live.ts judgeResponse, src/openapi/fallback.ts documentedFallback): an operation the
 * live description has, a body of a declared status, a schema the body was validated against, declared
 * headers; without a usable description, a 2xx body the documented schemas show. Otherwise the id is
 * not judged on it, never passed: a capture of endpoints nothing describes does not pass RESP-003.
 */
import { describe, expect, it } from 'vitest';
import { genericChecks } from '../../src/checks/exchange.ts';
import type { HttpResponse } from '../../src/http/client.ts';
import { documentedFallback } from '../../src/openapi/fallback.ts';
import { LiveDescription } from '../../src/openapi/live.ts';

const live = new LiveDescription({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            headers: { 'X-Request-ID': { required: true, schema: { type: 'string' } } },
            content: { 'application/json': { schema: { type: 'object', required: ['id'] } } },
          },
          '204': { description: 'nothing' },
          '202': { description: 'text', content: { 'text/plain': {} } },
        },
      },
    },
  },
});

function response(
  status: number,
  body: string,
  path = '/v1/things',
  method = 'GET',
  type = 'application/json',
): HttpResponse {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return {
    exchange: { id: 'x', startedAt: '', method, path, requestHeaders: {}, durationMs: 0 },
    method,
    rawPath: path,
    status,
    headers: { 'content-type': type, 'x-request-id': 'r1' },
    body: Buffer.from(body),
    text: body,
    json,
    ...(body ? { mediaType: type } : {}),
    ...(body && json === undefined && type.includes('json') ? { jsonError: 'Unexpected token' } : {}),
  };
}

const judged = (
  r: HttpResponse,
  by: { judgeResponse(r: HttpResponse): { judged: readonly string[] } } = live,
) => [...by.judgeResponse(r).judged].sort();

describe('the description ids a response is judged on', () => {
  it('judges every id on a body of a declared status with a schema and declared headers', () => {
    expect(judged(response(200, '{"id":1}'))).toEqual(['RESP-001', 'RESP-002', 'RESP-003', 'RESP-004']);
    // Judged and failed alike: a body that breaks the schema, and one that is no JSON.
    expect(live.judgeResponse(response(200, '{}')).findings.map((f) => f.id)).toEqual(['RESP-003']);
    expect(judged(response(200, 'not json{'))).toContain('RESP-003');
    expect(live.judgeResponse(response(200, 'not json{')).findings.map((f) => f.id)).toEqual(['RESP-003']);
  });

  it('judges no schema where none is declared, no media type without a body, no headers none declare', () => {
    expect(judged(response(202, 'plain text', undefined, undefined, 'text/plain'))).toEqual([
      'RESP-001',
      'RESP-002',
    ]);
    expect(judged(response(204, ''))).toEqual(['RESP-001']);
  });

  it('judges only the status where it is not declared, and nothing on a path the description lacks', () => {
    expect(judged(response(418, '{"id":1}'))).toEqual(['RESP-001']);
    expect(live.judgeResponse(response(418, '{"id":1}')).findings.map((f) => f.id)).toEqual(['RESP-001']);
    expect(judged(response(200, '{"id":1}', '/v1/other'))).toEqual([]);
  });

  it('RESP-001: an undeclared 502, 503 or 504 is advisory ("a 502/503/504" is never promoted); a 500 or 418 fails', () => {
    const level = (status: number) =>
      live
        .judgeResponse(response(status, '{"error":{"code":"x","message":"m","type":"t"}}'))
        .findings.map((f) => `${f.id}:${f.level ?? 'failure'}`);
    for (const status of [502, 503, 504]) expect(level(status)).toEqual(['RESP-001:notable']);
    for (const status of [500, 501, 505, 418, 429]) expect(level(status)).toEqual(['RESP-001:failure']);
  });

  it('without a usable description, judges only a 2xx body the documented schemas show (RESP-003)', () => {
    const fallback = documentedFallback({ errors: ['not in the capture'] });
    const chat = response(200, '{"id":7}', '/v1/chat/completions', 'POST');
    expect(judged(chat, fallback)).toEqual(['RESP-003']);
    expect(fallback.judgeResponse(chat).findings.length).toBeGreaterThan(0);
    // GET /v1/models: the contract shows no body schema of it; a refusal is no body of a schema.
    expect(judged(response(200, '{"object":"list","data":5}', '/v1/models'), fallback)).toEqual([]);
    expect(judged(response(404, '{"error":{}}', '/v1/chat/completions', 'POST'), fallback)).toEqual([]);
    // A JSON body that does not parse where the contract shows one fails, as against a live schema.
    const broken = response(200, '{"id": "chat_1", "choices": [', '/v1/chat/completions', 'POST');
    expect(judged(broken, fallback)).toEqual(['RESP-003']);
    expect(fallback.judgeResponse(broken).findings.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /POST \/v1\/chat\/completions 200: the body is not valid JSON .*chat-completion\.json/,
      ),
    ]);
    expect(judged(response(200, 'not json{', '/v1/models'), fallback)).toEqual([]);
    // No body at all where the contract shows one is no JSON either; an empty event stream is not judged here.
    const empty = response(200, '', '/v1/chat/completions', 'POST');
    expect(fallback.judgeResponse(empty).findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/POST \/v1\/chat\/completions 200: an empty body where the contract shows one/),
    ]);
    const emptyStream = { ...empty, mediaType: 'text/event-stream' };
    expect(judged(emptyStream, fallback)).toEqual([]);
    expect(judged(response(200, '', '/v1/models'), fallback)).toEqual([]);
    // A created payment order in an envelope (not shown, judging.md) is judged as the order it holds.
    const order = {
      id: 'o',
      tenant_id: 't',
      amount_credits: 100000000,
      points: 0,
      status: 'pending_admin_review',
      has_qr_code: false,
      created_at: '2026-01-01T00:00:00Z',
    };
    const created = (body: unknown) =>
      fallback.judgeResponse(response(201, JSON.stringify(body), '/v1/payment-orders', 'POST')).findings;
    expect(created(order)).toEqual([]);
    expect(created({ object: 'payment_order', order })).toEqual([]);
    expect(created({ object: 'payment_order', order: { ...order, points: '0' } }).length).toBeGreaterThan(0);
    expect(created({ ...order, created_at: 'yesterday' }).length).toBeGreaterThan(0);
  });
});

// judging.md: "a 502/503/504" is advisory, never promoted. Such a status whose body is no JSON is the page of
// a proxy or load balancer in front of the service (variant proxy-502-page): its content type and its
// APIError shape are advisory as the status is; the same page at another status, or a JSON body at 503,
// is the service's and judged as any.
describe("a proxy's page at 502/503/504", () => {
  const errors = new LiveDescription({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/v1/things': {
        post: {
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
            default: {
              description: 'error',
              content: { 'application/json': { schema: { type: 'object' } } },
            },
          },
        },
      },
    },
  });
  const page = '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';
  const levels = (r: HttpResponse) =>
    errors.judgeResponse(r).findings.map((f) => [f.id, f.level ?? 'failure']);
  const shape = (r: HttpResponse) =>
    genericChecks(r)
      .filter((f) => f.id === 'ERR-001')
      .map((f) => f.level ?? 'failure');

  it('takes an HTML 502 or 504 as advisory: its content type (RESP-002) and its APIError shape (ERR-001)', () => {
    for (const status of [502, 504]) {
      const r = response(status, page, '/v1/things', 'POST', 'text/html');
      expect(levels(r)).toEqual([['RESP-002', 'notable']]);
      expect(shape(r)).toEqual(['notable']);
    }
  });

  it('fails the same page at 400 or 500, and a JSON body at 503 without the APIError shape', () => {
    for (const status of [400, 500]) {
      const r = response(status, page, '/v1/things', 'POST', 'text/html');
      expect(levels(r)).toEqual([['RESP-002', 'failure']]);
      expect(shape(r)).toEqual(['failure']);
    }
    expect(shape(response(503, '{"detail":"down"}', '/v1/things', 'POST'))).toEqual(['failure']);
  });
});
