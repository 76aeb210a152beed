import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretMatcher, secretLeaks } from '../../src/checks/exchange.ts';
import { pointsChecks } from '../../src/checks/exchange-points.ts';
import { suspiciousFields } from '../../src/checks/leaks.ts';
import { exchangeFindings } from '../../src/checks/per-exchange.ts';
import { parseSse, TERMINAL_EVENTS } from '../../src/checks/sse.ts';
import type { HttpResponse } from '../../src/http/client.ts';
import { Documented } from '../../src/openapi/documented.ts';
import { DriftComparer } from '../../src/openapi/drift.ts';
import { LiveDescription } from '../../src/openapi/live.ts';

function response(over: Partial<HttpResponse> & { json?: unknown }): HttpResponse {
  const text = over.text ?? (over.json !== undefined ? JSON.stringify(over.json) : '');
  return {
    exchange: {
      id: 'x',
      startedAt: '',
      method: over.method ?? 'GET',
      path: over.rawPath ?? '/v1/x',
      requestHeaders: {},
      durationMs: 0,
    },
    method: 'GET',
    rawPath: '/v1/x',
    status: 200,
    headers: {},
    body: Buffer.from(text),
    text,
    mediaType: 'application/json',
    ...over,
  } as HttpResponse;
}

describe('SSE parsing', () => {
  it('parses named events and data, including a last event without its blank line', () => {
    const events = parseSse('event: a\ndata: {"x":1}\n\n: comment\nevent: response.completed\ndata: done');
    expect(events).toEqual([
      { event: 'a', data: '{"x":1}' },
      { event: 'response.completed', data: 'done' },
    ]);
    expect(TERMINAL_EVENTS).toContain(events[1]!.event);
  });

  it('keeps unnamed events unnamed', () => {
    expect(parseSse('data: hi\n\n')).toEqual([{ data: 'hi' }]);
  });
});

describe('the per-exchange checks say which ids an exchange showed the form of', () => {
  const ctx = {
    secrets: [{ label: 'primary key', value: 'sk-x' }],
    responses: { judgeResponse: () => ({ findings: [], judged: [] }) },
  };
  const observed = (r: HttpResponse) => [...exchangeFindings(r, ctx).observed].sort();

  it('judges the points rules only where a points field stands, the error shape only on an error', () => {
    const plain = observed(response({ rawPath: '/v1/models', json: { data: [{ id: 'm' }] } }));
    expect(plain).not.toContain('PTS-001');
    expect(plain).not.toContain('ERR-001');
    expect(plain).toEqual(expect.arrayContaining(['PTS-004', 'SEC-001', 'ERR-002']));
    const priced = observed(
      response({ rawPath: '/v1/balance', json: { total_points: '1', unit: 'service_points' } }),
    );
    expect(priced).toEqual(expect.arrayContaining(['PTS-001', 'PTS-002', 'PTS-003']));
    const refused = observed(response({ status: 401, json: { error: { code: 'invalid_api_key' } } }));
    expect(refused).toContain('ERR-001');
    expect(refused).not.toContain('PTS-001');
  });

  it('judges the description ids only where the description (or the documented schemas) judged them', () => {
    const reply = response({ rawPath: '/v1/models', json: { data: [{ id: 'm' }] } });
    const by = (judged: Array<'RESP-001' | 'RESP-002' | 'RESP-003' | 'RESP-004'>) =>
      [
        ...exchangeFindings(reply, { ...ctx, responses: { judgeResponse: () => ({ findings: [], judged }) } })
          .observed,
      ]
        .filter((id) => id.startsWith('RESP-'))
        .sort();
    expect(by([])).toEqual([]);
    expect(by(['RESP-001', 'RESP-003'])).toEqual(['RESP-001', 'RESP-003']);
  });
});

describe('points checks on every reply', () => {
  it('fails a JSON number, advises on exponent notation, ignores the legacy format and the description', () => {
    const ids = (r: HttpResponse) => pointsChecks(r).map((f) => f.id);
    expect(ids(response({ json: { billing: { charged_points: 1.5 } } }))).toEqual(['PTS-001']);
    expect(ids(response({ json: { total_points: '1e3' } }))).toEqual(['PTS-002']);
    expect(
      ids(response({ json: { total_points: 3 }, mediaType: 'application/vnd.service.currency.v1+json' })),
    ).toEqual([]);
    expect(ids(response({ json: { total_points: { type: 'string' } }, rawPath: '/openapi.json' }))).toEqual(
      [],
    );
    expect(
      ids(response({ json: { billing: { charged_credits: '1' } }, rawPath: '/v1/chat/completions' })),
    ).toEqual(['PTS-004']);
  });

  it("allows *_credits in a media job's usage record, fails them in a conversation call's, advises where the record does not say", () => {
    const found = (record: Record<string, unknown>) =>
      pointsChecks(
        response({
          json: { object: 'list', data: [{ id: 'u0', charged_points: '1' }, record] },
          rawPath: '/v1/usage',
        }),
      ).map((f) => [f.id, f.pointer, f.level ?? 'failure']);
    // "Studio metering fields keep the older `*_credits` names": a media job's record, by its path or its job.
    expect(found({ id: 'u1', endpoint: '/v1/media/jobs', charged_credits: '2' })).toEqual([]);
    expect(found({ id: 'u1', job_id: 'job_1', charged_credits: '2' })).toEqual([]);
    // "new conversation interfaces return `*_points`"
    expect(found({ id: 'u1', endpoint: '/v1/chat/completions', charged_credits: '2' })).toEqual([
      ['PTS-004', '/data/1/charged_credits', 'failure'],
    ]);
    expect(found({ id: 'u1', charged_credits: '2' })).toEqual([
      ['PTS-004', '/data/1/charged_credits', 'notable'],
    ]);
    // Outside usage records (the ledger, a chat reply) the record's kind is not asked.
    const ledger = response({
      json: { data: [{ job_id: 'job_1', amount_credits: '-2' }] },
      rawPath: '/v1/ledger',
    });
    expect(pointsChecks(ledger).map((f) => [f.id, f.level ?? 'failure'])).toEqual([['PTS-004', 'failure']]);
  });

  it('judges a *_points field beyond the table as a points value (advisory), null or an object under such a name not', () => {
    const found = (json: unknown) =>
      pointsChecks(response({ json, rawPath: '/v1/balance' })).map((f) => [
        f.id,
        f.pointer,
        f.level ?? 'failure',
      ]);
    // "GET | /v1/balance | balance, held points, platform points"; "A points value is an exact decimal
    // string", which judging.md applies to the points fields of the points table: beyond it, advisory.
    expect(found({ total_points: '1', platform_points: 0 })).toEqual([
      ['PTS-001', '/platform_points', 'notable'],
    ]);
    expect(found({ total_points: '1', platform_points: 'none' })).toEqual([
      ['PTS-001', '/platform_points', 'notable'],
    ]);
    expect(found({ total_points: 1, platform_points: '0' })).toEqual([
      ['PTS-001', '/total_points', 'failure'],
    ]);
    expect(found({ total_points: '1', platform_points: '0', purchased_points: '1' })).toEqual([]);
    expect(found({ total_points: '1', platform_points: null, bonus_points: { expires_at: 'x' } })).toEqual(
      [],
    );
  });

  it('knows a legacy reply by the Accept header its request sent, whatever its media type', () => {
    const legacy = response({ json: { total_credits: '3', charged_credits: 1 }, rawPath: '/v1/balance' });
    legacy.exchange.requestHeaders = { accept: 'application/vnd.service.currency.v1+json' };
    expect(pointsChecks(legacy)).toEqual([]);
  });

  it('fails a unit beside points fields other than service_points, and leaves other units alone', () => {
    const ids = (json: unknown) => pointsChecks(response({ json })).map((f) => [f.id, f.pointer]);
    expect(ids({ billing: { unit: 'credits', charged_points: '1', released_points: '0' } })).toEqual([
      ['PTS-003', '/billing/unit'],
    ]);
    expect(ids({ unit: 'service_points', total_points: '1', storage: { limit: 10, unit: 'bytes' } })).toEqual(
      [],
    );
  });
});

describe('suspicious names (SEC-002)', () => {
  it('fails on evidence and advises on suspicion', () => {
    const f = suspiciousFields(
      response({
        headers: { 'x-upstream-key': 'sk-abcdef0123456789', server: 'nginx' },
        json: {
          data: [
            { id: 'm', purchase_cost: '0.0021', upstream_endpoint: '10.2.3.4:8443', route: 'primary' },
            { id: 'n', modelPurchasePrice: 0.002, purchase: '0.0019' },
          ],
        },
      }),
    );
    expect(f.map((x) => [x.id, x.level ?? 'failure', x.message.split(' is named')[0]])).toEqual([
      ['SEC-002', 'failure', 'GET /v1/x: header x-upstream-key'],
      ['SEC-002', 'failure', 'GET /v1/x: field /data/0/purchase_cost'],
      ['SEC-002', 'failure', 'GET /v1/x: field /data/0/upstream_endpoint'],
      ['SEC-002', 'notable', 'GET /v1/x: field /data/0/route'],
      ['SEC-002', 'failure', 'GET /v1/x: field /data/1/modelPurchasePrice'],
      ['SEC-002', 'failure', 'GET /v1/x: field /data/1/purchase'],
    ]);
  });

  it('leaves ordinary fields alone', () => {
    expect(
      suspiciousFields(
        response({
          json: {
            id: 'a',
            model: 'm',
            owned_by: 'service',
            endpoint: '/v1/chat/completions',
            usage: { total_tokens: 3 },
            // What the customer is charged is the customer's own bill (judging.md), not a secret.
            cost: '0.75',
            cost_points: '0.75',
            unit_cost: '1.5',
            price: '2',
            charge: '0.1',
            // What the customer bought: "balance, held points, platform points"; a top-up's id.
            purchased_points: '100',
            platform_points: '50',
            purchase_id: 98765,
          },
        }),
      ),
    ).toEqual([]);
  });
});

const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things/{id}': {
      get: {
        responses: {
          '200': {
            description: 'ok',
            headers: { 'X-Trace': { required: true, schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '4XX': { description: 'err', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/v1/things/special': { get: { responses: { '204': { description: 'none' } } } },
  },
  components: {
    schemas: { Thing: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
  },
};

describe('live description checks (RESP-001..004)', () => {
  const live = new LiveDescription(doc);
  const res = (o: Partial<HttpResponse> & { json?: unknown }) => response({ rawPath: '/v1/things/1', ...o });

  it('accepts a declared response and prefers literal paths over templates', () => {
    expect(live.checkResponse(res({ json: { id: 'a' }, headers: { 'x-trace': 't' } }))).toEqual([]);
    expect(live.findOperation('GET', '/v1/things/special')?.template).toBe('/v1/things/special');
  });

  it('reports an undeclared status, content type, body and header', () => {
    const ids = (r: HttpResponse) => live.checkResponse(r).map((f) => f.id);
    expect(ids(res({ status: 302 }))).toEqual(['RESP-001']);
    expect(ids(res({ status: 404, json: { error: {} } }))).toEqual([]);
    expect(ids(res({ json: { id: 'a' }, mediaType: 'text/plain', headers: { 'x-trace': 't' } }))).toEqual([
      'RESP-002',
    ]);
    expect(ids(res({ json: { id: 1 }, headers: { 'x-trace': 't' } }))).toEqual(['RESP-003']);
    expect(ids(res({ json: { id: 'a' } }))).toEqual(['RESP-004']);
    expect(ids(response({ rawPath: '/v1/things/special', status: 204, json: { a: 1 } }))).toEqual([
      'RESP-002',
    ]);
  });

  /** A description of one operation, GET `path`, whose 200 reply declares `content`. */
  const oneGet = (path: string, content: Record<string, unknown>) =>
    new LiveDescription({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { [path]: { get: { responses: { '200': { description: 'ok', content } } } } },
    });

  it('judges a body by the most specific media range declared, whatever their order (OpenAPI 3.1)', () => {
    const ranged = oneGet('/v1/r', {
      '*/*': { schema: { type: 'string' } },
      'application/*': { schema: { type: 'object', required: ['data'] } },
      'application/json': { schema: { type: 'object', required: ['json'] } },
    });
    const ids = (mediaType: string, json: unknown) =>
      ranged.checkResponse(response({ rawPath: '/v1/r', mediaType, json })).map((f) => f.id);
    expect(ids('application/json', { json: 1 })).toEqual([]);
    expect(ids('application/json', { data: [] })).toEqual(['RESP-003']);
    expect(ids('application/problem+json', { data: [] })).toEqual([]);
    expect(ids('application/problem+json', 'text')).toEqual(['RESP-003']);
  });

  it('takes a decimal multipleOf as the decimal it says (19.99 is a multiple of 0.01)', () => {
    const priced = oneGet('/v1/p', {
      'application/json': {
        schema: { type: 'object', properties: { amount: { type: 'number', multipleOf: 0.01 } } },
      },
    });
    const ids = (amount: number) =>
      priced.checkResponse(response({ rawPath: '/v1/p', json: { amount } })).map((f) => f.id);
    for (const amount of [19.99, 0.07, 0.29, 1234567.89]) expect(ids(amount)).toEqual([]);
    for (const amount of [19.995, 0.071]) expect(ids(amount)).toEqual(['RESP-003']);
  });

  it('advises on a body where no content is declared: undescribed, not declared absent', () => {
    const [f] = live.checkResponse(response({ rawPath: '/v1/things/special', status: 204, json: { a: 1 } }));
    expect([f?.id, f?.level]).toEqual(['RESP-002', 'notable']);
  });
});

describe('drift of the live description from the contract (OAS-003, OAS-004)', () => {
  const docs = new Documented();
  const compare = (schema: unknown, side: 'request' | 'response' = 'request') =>
    new DriftComparer(
      docs,
      new LiveDescription({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }),
    ).compare('embedding-request.json', schema, side);

  it('finds a contradicted constant and bound, and a field required against the contract', () => {
    const f = compare({
      type: 'object',
      required: ['model', 'input', 'user'],
      properties: {
        model: { type: 'string' },
        input: { type: 'string', minLength: 2 },
        dimensions: { type: 'integer', enum: [512, 1024] },
        user: { type: 'string' },
      },
    });
    expect(
      f
        .filter((x) => x.id === 'OAS-003')
        .map((x) => x.path)
        .sort(),
    ).toEqual(['/dimensions', '/input', '/user']);
  });

  it('does not call a description that says less a contradiction', () => {
    expect(compare({ type: 'object' }).filter((x) => x.id === 'OAS-003')).toEqual([]);
    expect(
      compare({
        oneOf: [{ type: 'string' }, { type: 'object', properties: { model: { type: 'string' } } }],
      }).filter((x) => x.id === 'OAS-003'),
    ).toEqual([]);
  });

  it('advises on a response that promises less than the contract: a narrower enum or bound', () => {
    const comparer = new DriftComparer(
      docs,
      new LiveDescription({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }),
    );
    const usage = {
      type: 'object',
      properties: {
        usage: { type: 'object', properties: { prompt_tokens: { type: 'integer', minimum: 1 } } },
      },
    };
    const role = {
      type: 'object',
      properties: {
        choices: {
          type: 'array',
          items: {
            type: 'object',
            properties: { message: { properties: { role: { enum: ['assistant'] } } } },
          },
        },
      },
    };
    // Only the compared paths: the fields these sketches omit are OAS-004 findings of their own.
    const ids = (name: string, schema: unknown, side: 'request' | 'response') =>
      comparer
        .compare(name, schema, side)
        .filter((f) => f.path.endsWith('/prompt_tokens') || f.path.endsWith('/role'))
        .map((f) => [f.id, f.path]);
    // The narrower bound, and the count the contract requires left optional: both advisories (OAS-004).
    expect(ids('embedding-list.json', usage, 'response')).toEqual([
      ['OAS-004', '/usage/prompt_tokens'],
      ['OAS-004', '/usage/prompt_tokens'],
    ]);
    expect(ids('chat-completion.json', role, 'response')).toContainEqual([
      'OAS-004',
      '/choices/[]/message/role',
    ]);
    expect(ids('chat-completion.json', role, 'response').map(([id]) => id)).not.toContain('OAS-003');
    expect(ids('embedding-list.json', { ...usage, type: 'object' }, 'request')).toContainEqual([
      'OAS-003',
      '/usage/prompt_tokens',
    ]);
  });
});

describe('SEC-001 secrets in a reply (secretLeaks)', () => {
  it('sees a key added to the list it was given before (a followed log learns keys as it goes)', () => {
    const res = response({ json: { echo: 'sk-late-learnt-0123456789' } });
    const secrets = [{ label: 'captured key', value: 'sk-first-0000000000000' }];
    expect(secretLeaks(res, secrets)).toEqual([]);
    secrets.push({ label: 'captured key', value: 'sk-late-learnt-0123456789' });
    expect(secretLeaks(res, secrets).map((f) => f.id)).toEqual(['SEC-001']);
    // Thousands of keys: each reply is still read for all of them.
    const many = Array.from({ length: 5000 }, (_, i) => ({
      label: 'captured key',
      value: `sk-${i}-abcdefghij`,
    }));
    expect(secretLeaks(response({ json: { x: 'sk-4999-abcdefghij' } }), many)).toHaveLength(1);
    expect(secretLeaks(response({ json: { x: 'sk-5000-abcdefghij' } }), many)).toEqual([]);
  });

  it('a list that grows one key at a time compiles each key into about log2(n) patterns, not n', () => {
    const list: Array<{ value: string }> = [];
    const matcher = new SecretMatcher(list);
    const n = 4096;
    for (let i = 0; i < n; i++) {
      list.push({ value: `sk-grow-${i}-${(i * 7919).toString(36)}` });
      matcher.extend(list);
    }
    // A pattern of the whole list made again for each key added compiles n (n + 1) / 2 = 8.4 million.
    expect(matcher.compiled).toBeLessThanOrEqual(n * (Math.log2(n) + 1));
    expect(matcher.found(`x ${list[0]!.value} y`).size > 0).toBe(true);
    expect(matcher.found(`x ${list[n - 1]!.value} y`).size > 0).toBe(true);
    expect(matcher.found('x sk-grow-4096-zz y').size > 0).toBe(false);
  });

  it('says what each secret in a reply looked for in turn would say, in the list order, labels repeated', () => {
    // The model: every secret of the list looked for in every header, then in the body.
    const model = (res: HttpResponse, secrets: Array<{ label: string; value: string }>) =>
      secrets.flatMap(({ label, value }) => [
        ...Object.entries(res.headers)
          .filter(([, v]) => v.includes(value))
          .map(([name]) => `GET /v1/x: response header ${name} contains the ${label} secret`),
        ...(res.text.includes(value)
          ? [
              `GET /v1/x: response body contains the ${label} secret at byte offset ${res.text.indexOf(value)}`,
            ]
          : []),
      ]);
    const value = fc.string({ unit: fc.constantFrom('a', 'b', 'k', '-'), minLength: 2, maxLength: 6 });
    const piece = fc.string({ unit: fc.constantFrom('a', 'b', 'k', '-', ' '), maxLength: 14 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ label: fc.constantFrom('primary', 'other', 'captured key'), value }), {
          maxLength: 10,
        }),
        piece,
        fc.dictionary(fc.constantFrom('x-a', 'x-b', 'set-cookie'), piece),
        (secrets, body, headers) => {
          const res = response({ text: body, headers });
          expect(secretLeaks(res, secrets).map((f) => f.message)).toEqual(model(res, secrets));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds each value where values overlap or one holds another', () => {
    const matcher = new SecretMatcher(['abab', 'baba', 'bab|', 'abababab'].map((value) => ({ value })));
    expect([...matcher.found('xababa|')].sort()).toEqual(['abab', 'baba']);
    expect([...matcher.found('abababab')].sort()).toEqual(['abab', 'abababab', 'baba']);
    expect([...matcher.found('abab|')].sort()).toEqual(['abab', 'bab|']);
  });

  it('finds a value of the list in a text exactly when one stands in it, and which, however the list grew', () => {
    // Short values (looked for one by one) and long ones of few characters: they overlap, nest and repeat.
    const value = fc.oneof(
      fc.string({
        unit: fc.constantFrom('a', 'b', '.', '*', '(', '|', '\\', '$'),
        minLength: 1,
        maxLength: 3,
      }),
      fc.string({ unit: fc.constantFrom('a', 'b', '|'), minLength: 4, maxLength: 6 }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { maxLength: 4 }), { maxLength: 8 }),
        fc.array(
          fc.oneof(
            fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', '(', '|', '\\', '$', 'x'), maxLength: 12 }),
            fc.string({ unit: fc.constantFrom('a', 'b', '|'), maxLength: 20 }),
          ),
        ),
        (batches, texts) => {
          const list: Array<{ value: string }> = [];
          const matcher = new SecretMatcher(list);
          for (const batch of batches) {
            list.push(...batch.map((v) => ({ value: v })));
            matcher.extend(list);
            for (const t of texts) {
              const standing = new Set(list.filter((s) => t.includes(s.value)).map((s) => s.value));
              expect(matcher.found(t).size > 0, t).toBe(standing.size > 0);
              // Which ones, overlapping, nested or repeated: every one.
              expect([...matcher.found(t)].sort(), t).toEqual([...standing].sort());
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
