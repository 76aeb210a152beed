/** Root causes, not floods: the grouping of violations and not-run causes (src/report/groups.ts). */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { runConfigOf } from '../../src/app/run-options.ts';
import type { TargetConfig } from '../../src/config/targets.ts';
import type { Exchange } from '../../src/http/client.ts';
import { withoutBranchSummaries } from '../../src/openapi/fallback.ts';
import { oneErrorPerCause } from '../../src/openapi/live.ts';
import { groupLines } from '../../src/report/console.ts';
import {
  groupFindings,
  groupNotRun,
  isFramework404,
  normaliseMessage,
  pathTemplate,
} from '../../src/report/groups.ts';
import { renderHtmlReport } from '../../src/report/html.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { Progress, useColour } from '../../src/report/progress.ts';
import { aggregate, type Summary } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import { JOBS_FILE, jobsInFlight, noteJobsInFlight } from '../../src/runtime/liveness.ts';
import { Poller } from '../../src/runtime/poller.ts';
import type { Violation } from '../../src/vocabulary.ts';

const ex = (id: string, method: string, path: string, status: number, preview = '{}'): Exchange => ({
  id,
  startedAt: '2026-01-01T00:00:00Z',
  method,
  path,
  requestHeaders: {},
  status,
  responseBody: { bytes: preview.length, sha256: '', preview },
  durationMs: 1,
});

const v = (id: string, message: string, extra: Partial<Violation> = {}): Violation & { count: number } => ({
  id,
  level: 'failure',
  severity: 'failure',
  message,
  count: 1,
  ...extra,
});

const test = (
  title: string,
  ids: string[],
  violations: TestResultRecord['violations'],
  exchanges: Exchange[],
) =>
  ({
    title,
    file: 'suites/x.test.ts',
    ids,
    outcome: violations.some((x) => x.severity === 'failure') ? 'failed' : 'passed',
    durationMs: 1,
    violations,
    exchanges,
    exchangeCount: exchanges.length,
  }) as TestResultRecord;

/** A failed run of these tests as the report writers read it. */
const failedRun = (tests: TestResultRecord[]) =>
  ({
    ...aggregate(tests, []),
    tests,
    target: { name: 't', baseUrl: 'http://t' },
    suite: { name: 'gateway-conformance', version: '0' },
    startedAt: '2026-01-01T00:00:00Z',
    verdict: 'failed',
    openapi: { valid: true, errors: [] },
  }) as unknown as Summary;

const FRAMEWORK_404 = '{"message":"Route GET:/v1/usage not found","error":"Not Found","statusCode":404}';

describe('grouping violations by root cause', () => {
  it('folds ids and array indices out of endpoints, pointers and messages', () => {
    expect(pathTemplate('/v1/media/jobs/job_123?x=1')).toBe('/v1/media/jobs/{id}');
    expect(pathTemplate('/v1/models/tx-chat-1')).toBe('/v1/models/{id}');
    expect(pathTemplate('/v1/media/models')).toBe('/v1/media/models');
    expect(
      normaliseMessage(
        "GET /v1/models 200: body /data/3 must have required property 'owned_by' (schema #/allOf/1/required)",
      ),
    ).toBe("GET /v1/models 200: body /data/* must have required property 'owned_by'");
    expect(normaliseMessage('charged "0.0012" for 12345 tokens')).toBe('charged "…" for # tokens');
  });

  it('tells the framework 404 from an APIError 404', () => {
    expect(isFramework404(ex('e', 'GET', '/v1/usage', 404, FRAMEWORK_404))).toBe(true);
    expect(isFramework404(ex('e', 'GET', '/v1/usage', 404, '{"error":{"code":"not_found"}}'))).toBe(false);
    expect(isFramework404(ex('e', 'GET', '/v1/usage', 200, FRAMEWORK_404))).toBe(false);
  });

  it('one missing field across tests and replies is one group; a framework 404 is one "not implemented" group', () => {
    const tests: TestResultRecord[] = [];
    for (let i = 0; i < 5; i++) {
      const models = ex(`m${i}`, 'GET', '/v1/models', 200);
      const usage = ex(`u${i}`, 'GET', '/v1/usage', 404, FRAMEWORK_404);
      tests.push(
        test(
          `AUTH-001 probe ${i}`,
          ['AUTH-001'],
          [
            v('AUTH-001', 'GET /v1/usage: did not refuse a request without a key', { exchangeId: usage.id }),
            v('ERR-001', 'GET /v1/usage answered 404 without the APIError shape', {
              exchangeId: usage.id,
              scope: 'exchange',
            }),
            ...[0, 1, 2].map((n) =>
              v(
                'RESP-003',
                `GET /v1/models 200: body /data/${n} must have required property 'owned_by' (schema #/x)`,
                {
                  exchangeId: models.id,
                  pointer: `/data/${n}`,
                  scope: 'exchange',
                },
              ),
            ),
          ],
          [models, usage],
        ),
      );
    }
    tests.push({
      ...test('USAGE-002 lists usage', ['USAGE-002'], [], []),
      outcome: 'not_run',
      reason: 'GET /v1/usage answered 404',
      cause: {
        kind: 'endpoint',
        subject: 'GET /v1/usage answered 404',
        endpoint: { method: 'GET', path: '/v1/usage', status: 404 },
      },
    });
    const groups = groupFindings(tests);
    expect(groups.map((g) => g.kind)).toEqual(['not_implemented', 'exchange']);
    const [missing, field] = groups;
    expect(missing).toMatchObject({ endpoint: 'GET /v1/usage', count: 10, ids: ['AUTH-001', 'ERR-001'] });
    expect(missing!.tests).toHaveLength(5);
    expect(missing!.notRun).toEqual(['USAGE-002 lists usage']);
    expect(field).toMatchObject({
      ids: ['RESP-003'],
      pointer: '/data/*',
      count: 15,
      endpoint: 'GET /v1/models',
    });
    expect(field!.example.message).toContain('/data/0');
    const notRun = groupNotRun(tests, groups);
    expect(notRun).toEqual([expect.objectContaining({ count: 1, notImplemented: 'GET /v1/usage' })]);
  });

  it('keeps a version segment, and a framework 404 on a path that is no endpoint is a right answer', () => {
    expect(pathTemplate('/v1/v1/models')).toBe('/v1/v1/models');
    expect(isFramework404(ex('e', 'GET', '/v1/v1/models', 404, FRAMEWORK_404))).toBe(false);
    expect(isFramework404(ex('e', 'GET', '/v1/media/jobs/job_9', 404, FRAMEWORK_404))).toBe(true);
    const e404 = ex('n', 'GET', '/v1/v1/models', 404, FRAMEWORK_404);
    const groups = groupFindings([
      test(
        'ERR-001 a doubled /v1 is refused',
        ['ERR-001'],
        [v('ERR-001', 'no APIError shape', { exchangeId: 'n' })],
        [e404],
      ),
    ]);
    expect(groups.map((g) => [g.kind, g.endpoint])).toEqual([['finding', 'GET /v1/v1/models']]);
  });

  it("a wrong-method probe's framework 404 joins its path's not-implemented group", () => {
    const groups = groupFindings([
      test(
        'USAGE-001 lists',
        ['USAGE-001'],
        [v('USAGE-001', 'no list', { exchangeId: 'g' })],
        [ex('g', 'GET', '/v1/usage', 404, FRAMEWORK_404)],
      ),
      test(
        'ERR-070 PUT',
        ['ERR-070'],
        [v('ERR-001', 'no APIError', { exchangeId: 'p', scope: 'exchange' })],
        [ex('p', 'PUT', '/v1/usage', 404, FRAMEWORK_404)],
      ),
    ]);
    expect(groups.map((g) => [g.kind, g.endpoint, g.tests.length])).toEqual([
      ['not_implemented', 'GET /v1/usage', 2],
    ]);
  });

  it("a path that answers 2xx to its own method is implemented: a wrong-method probe's 404 is the probe's finding", () => {
    const groups = groupFindings([
      test('CHAT-001 answers', ['CHAT-001'], [], [ex('c', 'POST', '/v1/chat/completions', 200)]),
      test(
        'ERR-070 PUT',
        ['ERR-070'],
        [v('ERR-001', 'no APIError', { exchangeId: 'p', scope: 'exchange' })],
        [ex('p', 'PUT', '/v1/chat/completions', 404, FRAMEWORK_404)],
      ),
      test(
        'MODELS-001 lists',
        ['MODELS-001'],
        [v('MODELS-001', 'no list', { exchangeId: 'g' })],
        [ex('g', 'GET', '/v1/models', 404, FRAMEWORK_404), ex('h', 'GET', '/v1/models', 200)],
      ),
    ]);
    expect(groups.map((g) => [g.kind, g.endpoint])).toEqual([
      ['finding', 'GET /v1/models'],
      ['exchange', 'PUT /v1/chat/completions'],
    ]);
    // Nothing but 404 and 405 to the path's own methods: not implemented, the probe's 404 with it.
    const missing = groupFindings([
      test(
        'CHAT-001 answers',
        ['CHAT-001'],
        [v('CHAT-001', 'no answer', { exchangeId: 'c' })],
        [
          ex('c', 'POST', '/v1/chat/completions', 405),
          ex('d', 'POST', '/v1/chat/completions', 404, FRAMEWORK_404),
        ],
      ),
      test(
        'ERR-070 PUT',
        ['ERR-070'],
        [v('ERR-001', 'no APIError', { exchangeId: 'p', scope: 'exchange' })],
        [ex('p', 'PUT', '/v1/chat/completions', 404, FRAMEWORK_404)],
      ),
    ]);
    expect(missing.map((g) => [g.kind, g.endpoint])).toEqual([
      ['not_implemented', 'POST /v1/chat/completions'],
      ['finding', 'POST /v1/chat/completions'],
    ]);
  });

  it('one wrong error code is one group across endpoints and cases; the unlisted count joins its group', () => {
    const refusal = (id: string, path: string) =>
      ex(id, 'GET', path, 401, '{"error":{"code":"unauthorized"}}');
    const wrongCode = (what: string, exchangeId: string) =>
      v('AUTH-009', `${what} was refused with code "unauthorized", not invalid_api_key`, {
        exchangeId,
        pointer: '/error/code',
        received: 'unauthorized',
        expected: 'invalid_api_key',
        verdictCase: { wrong: 'code', what },
      });
    const groups = groupFindings([
      test(
        'AUTH-009 a',
        ['AUTH-009'],
        [wrongCode('GET /v1/models without a key', 'a')],
        [refusal('a', '/v1/models')],
      ),
      test(
        'AUTH-009 b',
        ['AUTH-009'],
        [
          wrongCode('GET /v1/usage without a key', 'b'),
          {
            ...v('AUTH-009', 'AUTH-009: more violations like the 25 above, counted here but not listed'),
            count: 4,
            unlisted: true,
          },
        ],
        [refusal('b', '/v1/usage')],
      ),
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({
      count: 6,
      cause:
        'refusals carried error code "unauthorized", not the code the contract gives them (2 cases: GET /v1/models without a key; GET /v1/usage without a key)',
      endpoints: ['GET /v1/models', 'GET /v1/usage'],
    });
    expect(groups[0]!.endpoint).toBeUndefined();
  });

  it('the error shape every exchange is checked for is one group across endpoints; resource ids are folded', () => {
    const plain = (id: string, method: string, path: string) =>
      ex(id, method, path, 405, 'Method Not Allowed');
    const groups = groupFindings(
      [
        ['p', 'POST', '/healthz'],
        ['q', 'PUT', '/status'],
      ].map(([id, method, path]) =>
        test(
          `ERR-070 ${method} ${path}`,
          ['ERR-070'],
          [
            v('ERR-001', `${method} ${path} answered 405 without the APIError shape: the body is not JSON`, {
              exchangeId: id,
              scope: 'exchange',
            }),
          ],
          [plain(id!, method!, path!)],
        ),
      ),
    );
    expect(groups.map((g) => [g.cause, g.endpoint, g.endpoints])).toEqual([
      [
        'answered 4xx without the APIError shape: the body is not JSON',
        undefined,
        ['POST /healthz', 'PUT /status'],
      ],
    ]);
    expect(normaliseMessage('a read of job job_7d265ba544dd25617121d444 reports model undefined')).toBe(
      'a read of job <id> reports model undefined',
    );
    expect(normaliseMessage('moved by -2e-7 more than charged (0.0000002)')).toBe(
      'moved by -# more than charged (#)',
    );
    expect(normaliseMessage('refused with invalid_request, not points_configured')).toBe(
      'refused with invalid_request, not points_configured',
    );
  });

  it('a fixed-path GET that never answered 2xx to a plain GET with the primary key is one group: it does not answer', () => {
    const get = (id: string, path: string, status: number) => ({
      ...ex(id, 'GET', path, status, '{"error":{"message":"Unknown route","type":"invalid_request_error"}}'),
      requestHeaders: { authorization: 'Bearer [REDACTED:primary]' },
    });
    const tests = (okStatus: number) => [
      test(
        'BAL-001 reads',
        ['BAL-001'],
        [v('BAL-001', 'GET /v1/balance did not answer 2xx JSON', { exchangeId: 'b' })],
        [get('b', '/v1/balance', 400)],
      ),
      test(
        'LEGACY-001 legacy',
        ['LEGACY-001'],
        [v('LEGACY-001', 'GET /v1/balance with the legacy header was answered 400', { exchangeId: 'l' })],
        [get('l', '/v1/balance', okStatus)],
      ),
      // A wrong-method probe with the primary key: POST-only, its 405 is right, no endpoint of GET.
      test(
        'ERR-070 GET',
        ['ERR-070'],
        [
          v('ERR-001', 'GET /v1/embeddings answered 405 without the APIError shape', {
            exchangeId: 'w',
            scope: 'exchange',
          }),
        ],
        [get('w', '/v1/embeddings', 405)],
      ),
      test(
        'MJOB-020 reads',
        ['MJOB-020'],
        [v('MJOB-020', 'no such job', { exchangeId: 'j' })],
        [get('j', '/v1/media/jobs/job_x', 404)],
      ),
    ];
    const dead = groupFindings(tests(400));
    expect(dead.map((g) => [g.kind, g.endpoint, g.ids])).toEqual([
      ['not_implemented', 'GET /v1/balance', ['BAL-001', 'LEGACY-001']],
      ['finding', 'GET /v1/media/jobs/{id}', ['MJOB-020']],
      ['exchange', 'GET /v1/embeddings', ['ERR-001']],
    ]);
    expect(dead[0]!.cause).toBe('GET /v1/balance never answers 2xx: 400 to a plain GET with the primary key');
    // The control: one 2xx on the endpoint, and its findings are causes of their own.
    expect(groupFindings(tests(200)).map((g) => g.kind)).toEqual([
      'finding',
      'finding',
      'finding',
      'exchange',
    ]);
  });

  it("folds sample file names into one cause, and shows the first member's words, not a template", () => {
    const up = (n: number) => ex(`u${n}`, 'POST', '/v1/media/inputs', 201);
    const files = ['png-64x48.png', 'jpeg-64x48.jpg', 'webp-64x48.webp', 'h264-2s.mp4'];
    const groups = groupFindings(
      files.map((f, i) =>
        test(
          `MIN-003 ${f}`,
          ['MIN-003'],
          [v('MIN-003', `${f}: input.size_bytes is 1, the file has more bytes`, { exchangeId: `u${i}` })],
          [up(i)],
        ),
      ),
    );
    expect(groups).toHaveLength(1);
    expect(groups[0]!.cause).toBe(
      'png-64x48.png: input.size_bytes is 1, the file has more bytes, and 3 more like it',
    );
    const one = groupFindings([
      test('OAS-001 x', ['OAS-001'], [v('OAS-001', 'openapi is "3.0.3", expected 3.1.x')], []),
      test('OAS-001 y', ['OAS-001'], [v('OAS-001', 'openapi is "3.0.3", expected 3.1.x')], []),
    ]);
    expect(one[0]!.cause).toBe('openapi is "3.0.3", expected 3.1.x');
  });

  it('the cases of one rule answered the wrong way on one endpoint are one root cause', () => {
    const whats = [
      'temperature just above 2',
      'a negative temperature',
      'temperature 2.5',
      'temperature as a string',
    ];
    const groups = groupFindings(
      whats.map((what, i) =>
        test(
          `CHAT-005 refuses ${what}`,
          ['CHAT-005'],
          [
            v(
              'CHAT-005',
              `${what} is invalid per the contract but was answered 200 (expected a 4xx refusal)`,
              {
                exchangeId: `c${i}`,
                verdictCase: { wrong: 'accepted', what },
              },
            ),
          ],
          [ex(`c${i}`, 'POST', '/v1/chat/completions', 200)],
        ),
      ),
    );
    expect(groups).toHaveLength(1);
    expect(groups[0]!.tests).toHaveLength(4);
    expect(groups[0]!.cause).toBe(
      `requests the contract refuses were answered without a 4xx refusal (4 cases: ${whats.join('; ')})`,
    );
  });

  it('every key probe answered 2xx on every endpoint is one root cause: no authentication', () => {
    const probes = [
      ['AUTH-001', 'a request without a key'],
      ['AUTH-002', 'a well-formed key that does not exist'],
      ['AUTH-003', 'the key under the Token scheme'],
    ] as const;
    const tests = ['/v1/models', '/v1/balance'].flatMap((path, i) =>
      probes.map(([id, what], j) =>
        test(
          `${id} refuses ${what}: GET ${path}`,
          [id],
          [
            v(id, `GET ${path}: did not refuse ${what}`, {
              exchangeId: `a${i}${j}`,
              verdictCase: { wrong: 'accepted', what, family: 'authentication' },
            }),
          ],
          [ex(`a${i}${j}`, 'GET', path, 200)],
        ),
      ),
    );
    const groups = groupFindings(tests);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.ids).toEqual(['AUTH-001', 'AUTH-002', 'AUTH-003']);
    expect(groups[0]!.endpoint).toBeUndefined();
    expect(groups[0]!.cause).toBe(
      `authentication is not enforced: requests without a valid key were answered 2xx (3 cases: ${probes.map((p) => p[1]).join('; ')})`,
    );
    expect(groups[0]!.endpoints).toHaveLength(2);
  });

  it('one requirement and cause on several endpoints is one group listing them, the same for every report', () => {
    const tests = ['/v1/models', '/v1/balance'].map((path, i) =>
      test(
        `AUTH-004 ${path}`,
        ['AUTH-004'],
        [v('AUTH-004', `GET ${path}: did not refuse a truncated key`, { exchangeId: `x${i}` })],
        [ex(`x${i}`, 'GET', path, 500)],
      ),
    );
    const groups = groupFindings(tests);
    expect(groups.map((g) => [g.cause, g.endpoint, g.endpoints, g.tests.length, g.count])).toEqual([
      ['did not refuse a truncated key', undefined, ['GET /v1/models', 'GET /v1/balance'], 2, 2],
    ]);
  });

  it("the account's figures disagreeing with the charges, wherever a test compared them, are one group (family balance)", () => {
    const tests = [
      test(
        'BAL-004 after a chat call',
        ['BAL-004', 'LEDGER-003'],
        [
          v('BAL-004', 'total_points is 1000.5, but after POST /v1/chat/completions it should be 1000.4', {
            exchangeId: 'c1',
          }),
          v('LEDGER-003', 'the 1 ledger entries added meanwhile sum to -0.1, but total_points moved by 0', {
            exchangeId: 'l1',
          }),
        ],
        [ex('c1', 'POST', '/v1/chat/completions', 200), ex('l1', 'GET', '/v1/ledger', 200)],
      ),
      test(
        'BAL-004 a media hold',
        ['BAL-004'],
        [v('BAL-004', 'while job job_1 is queued with pending_points 0.75, held_points moved by 0')],
        [],
      ),
      // Another rule of the same test stays its own group; so does an exchange check of BAL-004's id.
      test('USAGE-080 a usage record', ['USAGE-080'], [v('USAGE-080', 'the usage record says 0.2')], []),
    ];
    const groups = groupFindings(tests);
    expect(groups.map((g) => [g.ids, g.cause, g.tests.length, g.count])).toEqual([
      [
        ['BAL-004', 'LEDGER-003'],
        "the account's figures (balance, ledger, usage records) disagree with the charges its replies report (2 cases: BAL-004: total_points or held_points moved by another amount than the replies charged or held; LEDGER-003: the ledger does not add up to the balance)",
        2,
        3,
      ],
      [['USAGE-080'], 'the usage record says 0.2', 1, 1],
    ]);
  });

  it('one requirement broken several ways with no exchange to place them is one group, the others listed', () => {
    const groups = groupFindings([
      test('MJOB-010 a', ['MJOB-010'], [v('MJOB-010', 'wc-100011: 11 references was answered 201')], []),
      test(
        'MJOB-010 b',
        ['MJOB-010'],
        [v('MJOB-010', 'wc-100015: 3 references under studio_asset_ids was answered 201')],
        [],
      ),
      test('MJOB-020 c', ['MJOB-020'], [v('MJOB-020', 'a job read without its model')], []),
    ]);
    expect(groups.map((g) => [g.ids, g.cause, g.tests.length])).toEqual([
      [
        ['MJOB-010'],
        'wc-100011: 11 references was answered 201 (also: wc-100015: 3 references under studio_asset_ids was answered 201)',
        2,
      ],
      [['MJOB-020'], 'a job read without its model', 1],
    ]);
  });

  it("one fact found by a test's own check and by every exchange's check is one group, the test's", () => {
    const e = ex('p', 'POST', '/v1/chat/completions', 200);
    const groups = groupFindings([
      test(
        'PTS-001 chat billing',
        ['PTS-001'],
        [
          v('PTS-001', 'billing.charged_points is the number 0.5, not a decimal string', {
            exchangeId: 'p',
            pointer: '/billing/charged_points',
          }),
          v('PTS-001', 'points field /billing/charged_points is a number', {
            exchangeId: 'p',
            pointer: '/billing/charged_points',
            scope: 'exchange',
          }),
        ],
        [e],
      ),
      test(
        'CHAT-001 a reply',
        ['CHAT-001'],
        [
          v('PTS-001', 'points field /billing/charged_points is a number', {
            exchangeId: 'p',
            pointer: '/billing/charged_points',
            scope: 'exchange',
          }),
        ],
        [e],
      ),
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ kind: 'finding', ids: ['PTS-001'], count: 3 });
    expect(groups[0]!.tests).toEqual(['PTS-001 chat billing', 'CHAT-001 a reply']);
  });

  // Issue 39: one seeded fault, one group (the fault matrix's distribution, docs/mutation-matrix.md).
  it("a 404 body naming the id looked up, not its path, is the endpoint's own answer, not a framework's", () => {
    const own = '{"error":"No media job job_conformance_unknown_1."}';
    expect(isFramework404(ex('e', 'GET', '/v1/media/jobs/job_conformance_unknown_1', 404, own))).toBe(false);
    const fastify =
      '{"message":"Route GET:/v1/media/jobs/job_x not found","error":"Not Found","statusCode":404}';
    expect(isFramework404(ex('e', 'GET', '/v1/media/jobs/job_x', 404, fastify))).toBe(true);
    expect(isFramework404(ex('e', 'GET', '/v1/media/jobs/job_x', 404, '404 Not Found'))).toBe(true);
    // Three resources answering their own flat "not found": one error-shape group, no "not implemented".
    const paths = ['/v1/media/jobs/job_u1', '/v1/media/assets/asset_u1', '/v1/media/inputs/in_u1'];
    const groups = groupFindings(
      paths.map((path, i) =>
        test(
          `ERR-001 ${path}`,
          ['ERR-001'],
          [
            v('ERR-001', `GET ${path} answered 404 without the APIError shape: no \`error\` object`, {
              exchangeId: `n${i}`,
              scope: 'exchange',
            }),
          ],
          [ex(`n${i}`, 'GET', path, 404, `{"error":"No such resource ${path.split('/').at(-1)}."}`)],
        ),
      ),
    );
    expect(groups.map((g) => [g.kind, g.ids, g.endpoints?.length])).toEqual([['exchange', ['ERR-001'], 3]]);
  });

  it('a key probe answered 2xx on some endpoints and refused with another status elsewhere is one cause', () => {
    const what = 'the key in the query string';
    const at = (path: string, status: number, i: number) =>
      test(
        `AUTH-005 refuses ${what}: GET ${path}`,
        ['AUTH-005'],
        [
          v(
            'AUTH-005',
            `GET ${path}: ${status < 300 ? 'did not refuse' : `refused with ${status}, not 401:`} ${what}`,
            {
              exchangeId: `q${i}`,
              verdictCase: { wrong: status < 300 ? 'accepted' : 'status', what, family: 'authentication' },
            },
          ),
        ],
        [ex(`q${i}`, 'GET', path, status, status < 300 ? '{}' : '{"error":{"code":"not_found"}}')],
      );
    const groups = groupFindings([
      at('/v1/models', 200, 0),
      at('/v1/balance', 200, 1),
      at('/v1/media/jobs/job_conformance_probe', 404, 2),
    ]);
    expect(groups.map((g) => [g.ids, g.cause, g.endpoints?.length])).toEqual([
      [
        ['AUTH-005'],
        `authentication is not enforced: requests without a valid key were answered 2xx, or went past the key check to another refusal (1 case: ${what})`,
        3,
      ],
    ]);
    // A probe refused with a wrong status everywhere stays its own cause (the status of the refusal).
    const only = groupFindings([at('/v1/media/jobs/job_conformance_probe', 404, 2)]);
    expect(only[0]!.cause).toMatch(/^requests without a valid key were refused with a status/);
  });

  it('the cases of several rules of one endpoint answered the same wrong way are one group naming each id', () => {
    const cases = [
      ['CHAT-005', 'temperature 2.5 streamed'],
      ['CHAT-006', 'top_p 1.5 streamed'],
      ['CHAT-007', 'max_tokens -1 streamed'],
    ] as const;
    const groups = groupFindings([
      ...cases.map(([id, what], i) =>
        test(
          `${id} refuses ${what}`,
          [id],
          [
            v(id, `${what} is invalid per the contract but was answered 200 (expected a 4xx refusal)`, {
              exchangeId: `s${i}`,
              verdictCase: { wrong: 'accepted', what },
            }),
          ],
          [ex(`s${i}`, 'POST', '/v1/chat/completions', 200)],
        ),
      ),
      // A valid request refused on the same endpoint is another way wrong: its own group.
      test(
        'CHAT-001 answers',
        ['CHAT-001'],
        [
          v('CHAT-001', 'a plain request is valid per the contract but was answered 400', {
            exchangeId: 'r',
            verdictCase: { wrong: 'refused', what: 'a plain request' },
          }),
        ],
        [ex('r', 'POST', '/v1/chat/completions', 400)],
      ),
    ]);
    expect(groups.map((g) => [g.ids, g.cause])).toEqual([
      [
        ['CHAT-005', 'CHAT-006', 'CHAT-007'],
        `requests the contract refuses were answered without a 4xx refusal (3 cases: ${cases.map(([id, w]) => `${id}: ${w}`).join('; ')})`,
      ],
      [['CHAT-001'], 'a plain request is valid per the contract but was answered 400'],
    ]);
  });

  it('one fact found by checks of different ids (the same exchange and location, or status) is one group naming both', () => {
    const reply = ex('p', 'POST', '/v1/chat/completions', 200);
    const status = ex('h', 'GET', '/status', 500);
    const groups = groupFindings([
      test(
        'CHAT-001 a reply',
        ['CHAT-001'],
        [
          v('CHAT-001', "POST /v1/chat/completions: / must have required property 'id'", {
            exchangeId: 'p',
            pointer: '/',
          }),
          v('RESP-003', "POST /v1/chat/completions 200: body / must have required property 'id'", {
            exchangeId: 'p',
            pointer: '/',
            scope: 'exchange',
          }),
        ],
        [reply],
      ),
      test(
        'HEALTH-002 status',
        ['HEALTH-002'],
        [
          v('HEALTH-002', 'GET /status without a key is valid per the contract but was answered 500', {
            exchangeId: 'h',
            received: 500,
          }),
          v('ERR-002', 'GET /status answered 500 (a server fault; no known condition maps to 500)', {
            exchangeId: 'h',
            received: 500,
            scope: 'exchange',
          }),
        ],
        [status],
      ),
    ]);
    expect(groups.map((g) => [g.ids, g.cause])).toEqual([
      [
        ['CHAT-001', 'RESP-003'],
        "POST /v1/chat/completions: / must have required property 'id' (also: RESP-003: body / must have required property 'id')",
      ],
      [
        ['HEALTH-002', 'ERR-002'],
        'GET /status without a key is valid per the contract but was answered 500 (also: ERR-002: answered 500 (a server fault; no known condition maps to 500))',
      ],
    ]);
  });

  it("a schema's missing property is a fact at the property: one missing field, not every one at /", () => {
    const job = ex('j', 'GET', '/v1/media/jobs/job_1', 200);
    const schema = (missing: string) =>
      v('RESP-003', `GET /v1/media/jobs/{job_id} 200: body / must have required property '${missing}'`, {
        exchangeId: 'j',
        pointer: '/',
        expected: { missingProperty: missing },
        scope: 'exchange',
      });
    const groups = groupFindings([
      test(
        'MJOB-021 a succeeded job',
        ['MJOB-021'],
        [
          v('MJOB-021', 'a succeeded job carries no asset_id', { exchangeId: 'j', pointer: '/asset_id' }),
          schema('asset_id'),
          schema('created_at'),
        ],
        [job],
      ),
    ]);
    expect(groups.map((g) => [g.kind, g.ids])).toEqual([
      ['finding', ['MJOB-021', 'RESP-003']],
      ['exchange', ['RESP-003']],
    ]);
    expect(groups[1]!.cause).toContain("'created_at'");
    // The other check's words without its endpoint, however the contract names the path's parameter.
    expect(groups[0]!.cause).toBe(
      "a succeeded job carries no asset_id (also: RESP-003: body / must have required property 'asset_id')",
    );
  });

  it('two groups that each took in a finding of one broad id (RESP-003) stay two causes', () => {
    const found = (x: string, method: string, path: string, id: string, own: string, missing: string) =>
      test(
        `${id} a reply`,
        [id],
        [
          v(id, own, { exchangeId: x, pointer: `/${missing}` }),
          v('RESP-003', `${method} ${path} 200: body / must have required property '${missing}'`, {
            exchangeId: x,
            pointer: '/',
            expected: { missingProperty: missing },
            scope: 'exchange',
          }),
        ],
        [ex(x, method, path, 200)],
      );
    const groups = groupFindings([
      found('c', 'POST', '/v1/chat/completions', 'CHAT-003', 'the reply has no usage', 'usage'),
      found('m', 'GET', '/v1/models', 'MODELS-002', 'an entry has no price fields', 'price'),
    ]);
    expect(groups.map((g) => g.ids)).toEqual([
      ['CHAT-003', 'RESP-003'],
      ['MODELS-002', 'RESP-003'],
    ]);
  });

  it('one location of one endpoint found by two tests, each on its own call, is one fact', () => {
    const at = (title: string, id: string, message: string, x: string) =>
      test(
        title,
        [id],
        [v(id, message, { exchangeId: x, pointer: '/usage/prompt_tokens' })],
        [ex(x, 'POST', '/v1/chat/completions', 200)],
      );
    const groups = groupFindings([
      at('CHAT-003 a reply', 'CHAT-003', '/usage/prompt_tokens must be integer', 'a'),
      at('PTS-005 token counts', 'PTS-005', 'usage.prompt_tokens is "6", not an integer token count', 'b'),
      // Another location of the endpoint is another fact.
      test(
        'CHAT-002 role',
        ['CHAT-002'],
        [
          v('CHAT-002', '/choices/0/message/role must be equal to one of the allowed values', {
            exchangeId: 'c',
            pointer: '/choices/0/message/role',
          }),
        ],
        [ex('c', 'POST', '/v1/chat/completions', 200)],
      ),
    ]);
    expect(groups.map((g) => g.ids)).toEqual([['CHAT-003', 'PTS-005'], ['CHAT-002']]);
  });

  it('one rule broken several ways on several endpoints and where no exchange places it is one group', () => {
    const groups = groupFindings([
      test(
        'LEGACY-002 chat',
        ['LEGACY-002'],
        [
          v('LEGACY-002', 'the chat reply in the legacy currency format names the model "legacy:tx-chat-1"', {
            exchangeId: 'c',
          }),
        ],
        [ex('c', 'POST', '/v1/chat/completions', 200)],
      ),
      test(
        'LEGACY-002 embeddings',
        ['LEGACY-002'],
        [
          v(
            'LEGACY-002',
            'the reply of POST /v1/embeddings in the legacy currency format names "legacy:tx-embed-1"',
            { exchangeId: 'e' },
          ),
        ],
        [ex('e', 'POST', '/v1/embeddings', 200)],
      ),
      test('ENT-001 figures', ['LEGACY-002'], [v('LEGACY-002', 'a sequence saw the model renamed')], []),
      // Another rule stays its own group.
      test(
        'MODEL-001 a model',
        ['MODEL-001'],
        [v('MODEL-001', 'the model is unknown', { exchangeId: 'm' })],
        [ex('m', 'POST', '/v1/responses', 200)],
      ),
    ]);
    expect(groups.map((g) => [g.ids, g.endpoints ?? g.endpoint, g.cause, g.tests.length])).toEqual([
      [
        ['LEGACY-002'],
        ['POST /v1/chat/completions', 'POST /v1/embeddings'],
        'the chat reply in the legacy currency format names the model "legacy:tx-chat-1" (also: the reply of POST /v1/embeddings in the legacy currency format names "legacy:tx-embed-1"; a sequence saw the model renamed)',
        3,
      ],
      [['MODEL-001'], 'POST /v1/responses', 'the model is unknown', 1],
    ]);
  });

  it("what the reply to a request let through says is the acceptance's finding, not a second cause", () => {
    const groups = groupFindings([
      test(
        'PAY-006 refuses an amount of 0',
        ['PAY-006'],
        [
          v(
            'PAY-006',
            'an amount of 0 is invalid per the contract but was answered 201 (expected a 4xx refusal)',
            {
              exchangeId: 'o',
              received: 201,
              verdictCase: { wrong: 'accepted', what: 'an amount of 0' },
            },
          ),
          v('RESP-003', 'POST /v1/payment-orders 201: body /amount_credits must be >= 1', {
            exchangeId: 'o',
            pointer: '/amount_credits',
            scope: 'exchange',
          }),
        ],
        [ex('o', 'POST', '/v1/payment-orders', 201)],
      ),
      // The same check on a reply to a request the contract accepts stays its own cause.
      test(
        'PAY-001 an order',
        ['PAY-001'],
        [
          v('RESP-003', 'POST /v1/payment-orders 201: body /points must be string', {
            exchangeId: 'k',
            pointer: '/points',
            scope: 'exchange',
          }),
        ],
        [ex('k', 'POST', '/v1/payment-orders', 201)],
      ),
    ]);
    expect(groups.map((g) => [g.kind, g.ids, g.cause])).toEqual([
      [
        'finding',
        ['PAY-006', 'RESP-003'],
        'an amount of 0 is invalid per the contract but was answered 201 (expected a 4xx refusal) (also: RESP-003: body /amount_credits must be >= 1)',
      ],
      ['exchange', ['RESP-003'], 'POST /v1/payment-orders 201: body /points must be string'],
    ]);
  });

  it("a usage record charging another amount than the reply joins the account's figures (family balance); a missing record does not", () => {
    const groups = groupFindings([
      test(
        'BAL-004 after a chat call',
        ['BAL-004'],
        [v('BAL-004', 'total_points moved by 0.1, the reply charged 0.01', { exchangeId: 'c' })],
        [ex('c', 'POST', '/v1/chat/completions', 200)],
      ),
      test(
        'USAGE-080 the records',
        ['USAGE-080'],
        [
          v('USAGE-080', 'billing.charged_points is 0.01, but the 1 usage record(s) state 0.1', {
            expected: 'a record with charged_points 0.01',
          }),
          v('USAGE-080', 'no usage record of the embeddings call appeared within 30 s', {
            expected: 'a usage record of the call',
          }),
        ],
        [],
      ),
    ]);
    expect(groups.map((g) => [g.ids, g.cause])).toEqual([
      [
        ['BAL-004', 'USAGE-080'],
        "the account's figures (balance, ledger, usage records) disagree with the charges its replies report (2 cases: BAL-004: total_points or held_points moved by another amount than the replies charged or held; USAGE-080: the usage records state another charge than the replies)",
      ],
      [['USAGE-080'], 'no usage record of the embeddings call appeared within 30 s'],
    ]);
  });

  it("a path parameter's contract name and the endpoint's statuses do not split one cause", () => {
    const miss = (x: string, method: string, path: string, status: number, named: string) =>
      test(
        `RESP-004 ${x}`,
        ['RESP-004'],
        [
          v('RESP-004', `${method} ${named} ${status}: required header X-Request-ID is missing`, {
            exchangeId: x,
            pointer: `/paths/${named.replaceAll('/', '~1')}/${method.toLowerCase()}/responses/${status}/headers/X-Request-ID`,
            scope: 'exchange',
          }),
        ],
        [ex(x, method, path, status)],
      );
    const groups = groupFindings([
      miss('a', 'GET', '/v1/models', 200, '/v1/models'),
      miss('b', 'GET', '/v1/models', 401, '/v1/models'),
      miss('c', 'DELETE', '/v1/media/inputs/in_1', 204, '/v1/media/inputs/{input_id}'),
      miss('d', 'GET', '/v1/balance', 200, '/v1/balance'),
    ]);
    expect(groups.map((g) => [g.ids, g.cause, g.endpoints])).toEqual([
      [
        ['RESP-004'],
        'required header X-Request-ID is missing',
        ['GET /v1/models', 'DELETE /v1/media/inputs/{id}', 'GET /v1/balance'],
      ],
    ]);
  });

  it("puts the tests' own findings before per-exchange checks, and not-run causes carry their remedy", () => {
    const e = ex('a', 'GET', '/v1/balance', 200);
    const tests = [
      test(
        'BAL-001 x',
        ['BAL-001'],
        [v('RESP-003', 'GET /v1/balance 200: body / bad', { exchangeId: 'a', scope: 'exchange' })],
        [e],
      ),
      test('BAL-002 y', ['BAL-002'], [v('BAL-002', 'the total is not the sum', { exchangeId: 'a' })], [e]),
      ...[1, 2, 3].map(
        (n) =>
          ({
            ...test(`REVOKE-00${n}`, [], [], []),
            outcome: 'not_run',
            reason: "role 'revoked' is not configured for target 'x'",
            cause: { kind: 'role', subject: 'revoked', remedy: 'set CONFORMANCE_KEY_REVOKED' },
          }) as TestResultRecord,
      ),
    ];
    const s = { ...aggregate(tests, []), tests } as unknown as Summary;
    expect(s.groups!.map((g) => g.kind)).toEqual(['finding', 'exchange']);
    const lines = groupLines(s, false);
    const own = lines.findIndex((l) => l.includes('[BAL-002]'));
    const generic = lines.findIndex((l) => l.includes('[RESP-003]'));
    expect(own).toBeGreaterThan(-1);
    expect(own).toBeLessThan(generic);
    expect(lines.filter((l) => l.startsWith('  not run'))).toEqual([
      "  not run (3): role 'revoked' is not configured for target 'x' — to run: set CONFORMANCE_KEY_REVOKED",
    ]);
  });

  it('the header counts the groups listed: console and summary.md show the same groups, the rest counted', () => {
    // 40 causes on one endpoint each (different ids), and one cause on 3 endpoints.
    const tests: TestResultRecord[] = [];
    for (let n = 0; n < 40; n++)
      tests.push(
        test(
          `X-${n}`,
          [`CHAT-0${n}`],
          [v(`CHAT-0${n}`, `cause ${n}`, { exchangeId: `e${n}` })],
          [ex(`e${n}`, 'POST', '/v1/chat/completions', 400)],
        ),
      );
    for (const [i, path] of ['/v1/models', '/v1/balance', '/v1/usage'].entries())
      tests.push(
        test(
          `AUTH-004 ${path}`,
          ['AUTH-004'],
          [v('AUTH-004', `GET ${path}: did not refuse a truncated key`, { exchangeId: `a${i}` })],
          [ex(`a${i}`, 'GET', path, 500)],
        ),
      );
    const s = failedRun(tests);
    const failures = s.groups!.filter((g) => g.severity === 'failure');
    expect(failures).toHaveLength(41);
    const lines = groupLines(s, false);
    const header = Number(/^ {2}(\d+) groups of failures/.exec(lines[0]!)?.[1]);
    const listed = lines.filter((l) => l.startsWith('  ✗ ')).length;
    const more = lines
      .map((l) => /^ {4}… (\d+) more in report\.html/.exec(l)?.[1])
      .filter(Boolean)
      .reduce((a, n) => a + Number(n), 0);
    expect(header).toBe(41);
    expect(listed + more).toBe(header);
    const md = renderMarkdown(s);
    const rows = md.split('\n').filter((l) => /^\| [A-Z]+-\d+/.test(l)).length;
    const mdMore = Number(/… (\d+) more groups in report\.html/.exec(md)?.[1] ?? 0);
    expect(rows + mdMore).toBe(header);
  });

  it("the HTML's root-cause heading counts the rows it lists: failure groups, and advisory groups beside", () => {
    // Prism measured: the heading said 12 and the table listed 15 rows (3 advisory groups not counted).
    const tests = [
      test(
        'AUTH-004 x',
        ['AUTH-004'],
        [v('AUTH-004', 'GET /v1/models: did not refuse a truncated key', { exchangeId: 'a' })],
        [ex('a', 'GET', '/v1/models', 200)],
      ),
      test(
        'PAY-006 y',
        ['PAY-006'],
        [v('PAY-006', 'an amount of 0 was answered 201', { exchangeId: 'b' })],
        [ex('b', 'POST', '/v1/payment-orders', 201)],
      ),
      test(
        'IDEM-004 z',
        ['IDEM-004'],
        [
          v('IDEM-004', '4 uploads, 1 distinct input', {
            exchangeId: 'c',
            level: 'notable',
            severity: 'advisory',
          }),
        ],
        [ex('c', 'POST', '/v1/media/inputs', 201)],
      ),
    ];
    const s = failedRun(tests);
    const html = renderHtmlReport({ summary: s, requirements: [], generatedAt: '2026-01-01T00:00:00Z' });
    const section = /<section id="causes">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    const heading = /<h2>[\s\S]*?<\/h2>/.exec(section)?.[0] ?? '';
    const count = (cls: string) =>
      Number(new RegExp(`class="count ${cls}"[^>]*>(\\d+)<`).exec(heading)?.[1] ?? 0);
    const rows = (cls: string) => section.split(`<tr class="${cls}">`).length - 1;
    expect([count('c-failed'), count('c-advisory')]).toEqual([2, 1]);
    expect([rows('c-failed'), rows('c-advisory')]).toEqual([2, 1]);
    expect(html).toMatch(/href="#causes">Root causes<span class="nb">3</);
    expect(groupLines(s, false)[0]).toMatch(/^ {2}2 groups of failures/);
  });

  it("drops ajv's `if` error beside its branch's own errors (one fact, one error), keeps a lone one", () => {
    const required = {
      keyword: 'required',
      instancePath: '',
      schemaPath: '#/then/required',
      params: { missingProperty: 'asset_id' },
    };
    const branch = {
      keyword: 'if',
      instancePath: '',
      schemaPath: '#/if',
      params: { failingKeyword: 'then' },
    };
    expect(withoutBranchSummaries([required, branch] as ErrorObject[])).toEqual([required]);
    expect(withoutBranchSummaries([branch] as ErrorObject[])).toEqual([branch]);
  });

  it('one error per missing property however many schema paths require it', () => {
    const err = (schemaPath: string, missingProperty: string, instancePath = '') =>
      ({ keyword: 'required', instancePath, schemaPath, params: { missingProperty } }) as ErrorObject;
    const out = oneErrorPerCause([
      err('#/components/schemas/ChatCompletion/required', 'usage'),
      err('#/allOf/1/required', 'usage'),
      err('#/allOf/1/required', 'created'),
      err('#/allOf/1/required', 'usage', '/x'),
    ]);
    expect(
      out.map((e) => `${e.instancePath}:${(e.params as { missingProperty: string }).missingProperty}`),
    ).toEqual([':usage', ':created', '/x:usage']);
  });

  it('colours only on a TTY, NO_COLOR and FORCE_COLOR respected', () => {
    const tty = { write: () => true, isTTY: true };
    const pipe = { write: () => true };
    expect(useColour(tty, {})).toBe(true);
    expect(useColour(pipe, {})).toBe(false);
    expect(useColour(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColour(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColour(tty, { FORCE_COLOR: '0' })).toBe(false);
  });
});

describe('progress of a run', () => {
  it("says how many media jobs the run waits for, read from each worker thread's latest count", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-progress-'));
    expect(jobsInFlight(dir)).toBe(0);
    noteJobsInFlight(dir, 1, 3);
    noteJobsInFlight(dir, 2, 4);
    noteJobsInFlight(dir, 1, 1);
    expect(jobsInFlight(dir)).toBe(5);
    // One small file per thread, overwritten: nothing grows with the number of changes.
    for (let i = 0; i < 1000; i++) noteJobsInFlight(dir, 2, i % 7);
    expect(readdirSync(join(dir, JOBS_FILE))).toHaveLength(2);
    expect(jobsInFlight(dir)).toBe(1 + (999 % 7));
    noteJobsInFlight(dir, 2, 4);
    const written: string[] = [];
    const p = new Progress({ write: (s) => written.push(s) > 0 }, () => jobsInFlight(dir));
    p.collected(10);
    p.started('MJOB-001 a job');
    p.finished('x', 'failed');
    expect(p.status()).toMatch(
      /1\/10 tests done, 1 failed, 0 not run; waiting for 5 media jobs; waiting for 1 running test/,
    );
  });

  it('has its workers count media jobs only when a progress line reads them (not --quiet, not a dry run)', () => {
    const target = {} as TargetConfig;
    const at = { reportDir: '/r', exchangesFile: '/r/x' };
    expect(runConfigOf({ target }, at).progress).toBe(true);
    expect(runConfigOf({ target, quiet: true }, at).progress).toBeUndefined();
    expect(runConfigOf({ target, dryRun: true }, at).progress).toBeUndefined();
  });

  it('never shows a total that grows: until every file is collected, the tests collected so far', () => {
    const p = new Progress({ write: () => true }, () => 0);
    p.files(3);
    p.collected(4);
    p.finished('a', 'passed');
    expect(p.status()).toMatch(/1 tests done of 4 collected so far \(1\/3 files\), 0 failed/);
    p.collected(5);
    p.collected(1);
    expect(p.status()).toMatch(/1\/10 tests done, 0 failed, 0 not run/);
  });

  it('non-TTY: a heartbeat line when the log was silent; TTY: one live line rewritten in place', async () => {
    const pipe: string[] = [];
    const beat = new Progress({ write: (s) => pipe.push(s) > 0 }, () => 0, 600);
    beat.start();
    await new Promise((r) => setTimeout(r, 1_000));
    beat.stop();
    expect(pipe.some((l) => /^… \[\d+ s\] .*\n$/.test(l))).toBe(true);
    expect(pipe.join('')).not.toContain('\r');
    const tty: string[] = [];
    const live = new Progress({ write: (s) => tty.push(s) > 0, isTTY: true }, () => 0);
    live.collected(2);
    live.finished('a', 'passed');
    live.line('a line of the run');
    expect(tty[0]?.startsWith('\r\u001b[2K')).toBe(true);
    expect(tty[0]?.slice(5)).toMatch(/^\[\d+ s\] 1\/2 tests done/);
    // The live line is cleared before other output, which then stands on its own line.
    expect(tty.slice(1)).toEqual(['\r\u001b[2K', 'a line of the run\n']);
  });

  it('the poller says how many jobs it watches whenever that changes', async () => {
    const seen: number[] = [];
    const poller = new Poller<{ headers: Record<string, string> }>(Date.now, (n) => seen.push(n));
    const read = async () => ({ headers: {} });
    await Promise.all([
      poller.wait({ key: 'a', read, onResult: () => true, cap: 3, intervalMs: 1 }),
      poller.wait({ key: 'b', read, onResult: () => true, cap: 3, intervalMs: 1 }),
    ]);
    expect(seen).toEqual([1, 2, 1, 0]);
  });
});
