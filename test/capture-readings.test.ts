// Captured traffic a conformant deployment may show, where the contract leaves the reading open: each must
// pass check-traffic (no false alarm), beside a control that the same rule fails.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMasked } from '../src/traffic/capture.ts';
import { checkTraffic, type TrafficOptions } from '../src/traffic/judge.ts';
import { runCli } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'capture-readings-'));
const KEY = 'sk-capture-READINGS-0123456789abcdefABCDEF';
const auth = [{ name: 'authorization', value: `Bearer ${KEY}` }];

interface Spec {
  method: string;
  path: string;
  headers?: Array<{ name: string; value: string }>;
  json?: unknown;
  status: number;
  reply?: unknown;
  /** The reply's media type and text as they stand (a stream), instead of `reply` as JSON. */
  mime?: string;
  text?: string;
  /** The entry's start, in seconds after the capture's first (default: its index). */
  at?: number;
  /** How long it took, in ms (default 5). */
  time?: number;
  /** Members of the entry beside request and response (a gateway log's `_credential`). */
  extra?: Record<string, unknown>;
  /** The request's origin (default `https://gw.example`). */
  origin?: string;
  /** The response content's `size` (default: the text's length). */
  size?: number;
}

function entry(s: Spec, n: number): Record<string, unknown> {
  const text = s.text ?? (s.reply === undefined ? '' : JSON.stringify(s.reply));
  const mime = s.mime ?? (text ? 'application/json' : '');
  return {
    ...s.extra,
    startedDateTime: new Date(Date.UTC(2026, 10, 30, 12, 0, s.at ?? n)).toISOString(),
    time: s.time ?? 5,
    request: {
      method: s.method,
      url: `${s.origin ?? 'https://gw.example'}${s.path}`,
      httpVersion: 'HTTP/1.1',
      headers: [
        ...(s.headers ?? []),
        ...(s.json ? [{ name: 'content-type', value: 'application/json' }] : []),
      ],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: -1,
      ...(s.json ? { postData: { mimeType: 'application/json', text: JSON.stringify(s.json) } } : {}),
    },
    response: {
      status: s.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: mime ? [{ name: 'content-type', value: mime }] : [],
      cookies: [],
      content: { size: s.size ?? text.length, mimeType: mime, text },
      redirectURL: '',
      headersSize: -1,
      bodySize: text.length,
    },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
  };
}

async function judge(name: string, specs: Spec[], opts: Partial<TrafficOptions> = {}) {
  const file = join(dir, `${name}.har`);
  const doc = { log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: specs.map(entry) } };
  writeFileSync(file, JSON.stringify(doc));
  const lines: string[] = [];
  const r = await checkTraffic(
    { files: [file], reportDir: join(dir, `report-${name}`), threads: 0, ...opts },
    (s) => lines.push(s),
  );
  return { failed: r.summary?.failedRequirements ?? {}, lines: lines.join('\n'), summary: r.summary };
}

const chat = (model: string) => ({
  method: 'POST',
  path: '/v1/chat/completions',
  headers: auth,
  json: { model, messages: [{ role: 'user', content: 'Say ok.' }] },
  status: 200,
  reply: {
    id: `chatcmpl-${model}`,
    object: 'chat.completion',
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  },
});
const catalog = (path: string, ids: string[], extra: Record<string, unknown> = {}) => ({
  method: 'GET',
  path,
  headers: auth,
  status: 200,
  reply: { object: 'list', data: ids.map((id) => ({ id, object: 'model' })), ...extra },
});

describe('check-traffic: readings the contract allows pass, their controls fail', () => {
  it('AUTH-001: a CORS preflight or a route the contract does not list, without a key, is not judged', async () => {
    const ok = await judge('auth-preflight', [
      chat('tx-chat-1'),
      { method: 'OPTIONS', path: '/v1/chat/completions', status: 204 },
      { method: 'GET', path: '/v1/studio/session', status: 200, reply: { user: 'x' } },
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('auth-control', [
      chat('tx-chat-1'),
      { method: 'GET', path: '/v1/balance', status: 200, reply: { total_points: '1' } },
    ]);
    expect(control.failed, control.lines).toMatchObject({ 'AUTH-001': 1 });
  });

  it('MODELS-004: a catalog read with a query, or one page of several, is not the whole catalog', async () => {
    const ok = await judge('catalog-partial', [
      catalog('/v1/models?capability=embeddings', ['tx-embed-1']),
      chat('tx-chat-1'),
      catalog('/v1/models', ['tx-embed-1'], { has_more: true, next: '/v1/models?after=tx-embed-1' }),
      chat('tx-chat-1'),
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('catalog-control', [
      catalog('/v1/models', ['tx-embed-1']),
      chat('tx-chat-1'),
    ]);
    expect(control.failed, control.lines).toMatchObject({ 'MODELS-004': 1 });
  });

  it('IDEM-001: an embeddings request repeated with the same Idempotency-Key may run again', async () => {
    const embed = (id: string, path = '/v1/embeddings') => ({
      method: 'POST',
      path,
      headers: [...auth, { name: 'idempotency-key', value: 'k-1' }],
      json: { model: 'tx-embed-1', input: 'hi' },
      status: 200,
      reply: {
        id,
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: new Array(1024).fill(0.5) }],
        model: 'tx-embed-1',
        usage: { prompt_tokens: 1, total_tokens: 1 },
        billing: { unit: 'service_points', charged_points: '0.01' },
      },
    });
    const ok = await judge('embed-replay', [embed('e-1'), embed('e-2')]);
    expect(ok.failed, ok.lines).toEqual({});
    // The same replay on /v1/responses (its Idempotency-Key is listed) executed again: a failure.
    const control = await judge('responses-replay', [
      embed('r-1', '/v1/responses'),
      embed('r-2', '/v1/responses'),
    ]);
    expect(control.failed, control.lines).toMatchObject({ 'IDEM-001': 1 });
  });

  it('ERR-001: the answer to a HEAD has no body by definition', async () => {
    const ok = await judge('head-401', [
      chat('tx-chat-1'),
      { method: 'HEAD', path: '/v1/models', headers: auth, status: 401 },
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('get-401-bodiless', [
      chat('tx-chat-1'),
      { method: 'GET', path: '/v1/models', headers: auth, status: 401 },
    ]);
    expect(control.failed, control.lines).toMatchObject({ 'ERR-001': 1 });
  });

  it('AUTH-001: a request whose credential the gateway logged (`_credential`) carried one', async () => {
    const balance = (extra?: Record<string, unknown>) => ({
      method: 'GET',
      path: '/v1/balance',
      status: 200,
      reply: { total_points: '1', held_points: '0', available_points: '1' },
      ...(extra ? { extra } : {}),
    });
    const ok = await judge('auth-logged', [chat('tx-chat-1'), balance({ _credential: 'key_7' })]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('auth-unlogged', [chat('tx-chat-1'), balance()]);
    expect(control.failed, control.lines).toMatchObject({ 'AUTH-001': 1 });
  });

  it('RSP-006: a stream without a terminal event may be one the client closed; an empty one shows nothing', async () => {
    const stream = (text: string) => ({
      method: 'POST',
      path: '/v1/responses',
      headers: auth,
      json: { model: 'tx-chat-1', input: 'Say ok.', stream: true },
      status: 200,
      mime: 'text/event-stream',
      text,
    });
    const delta = 'event: response.output_text.delta\ndata: {"delta":"ok"}\n\n';
    const completed = 'event: response.completed\ndata: {"response":{"status":"completed"}}\n\n';
    const ok = await judge('stream-cut', [stream(delta + delta), stream('')]);
    expect(ok.failed, ok.lines).toEqual({});
    // A terminal event that is not the last: the server sent it so.
    const control = await judge('stream-terminal-early', [stream(completed + delta)]);
    expect(control.failed, control.lines).toMatchObject({ 'RSP-006': 1 });
  });

  it('MODELS-004: a call a day after the catalog read, or one started before the read ended, is not judged by it ("the catalog is extended over time")', async () => {
    const ok = await judge('catalog-stale', [
      catalog('/v1/models', ['tx-embed-1']),
      // A day later: the model may have been added since.
      { ...chat('tx-chat-1'), at: 86_400 },
      { ...catalog('/v1/models', ['tx-embed-1']), at: 100_000, time: 3000 },
      // Started while that read was still running (it ended 3 s after it started).
      { ...chat('tx-chat-1'), at: 100_001 },
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('catalog-fresh', [
      catalog('/v1/models', ['tx-embed-1']),
      { ...chat('tx-chat-1'), at: 60 },
    ]);
    expect(control.failed, control.lines).toMatchObject({ 'MODELS-004': 1 });
  });

  it('MODELS-004: a reply holding no list is no catalog; a list beside other arrays (links) is the catalog', async () => {
    const ok = await judge('catalog-unread', [
      {
        method: 'GET',
        path: '/v1/models',
        headers: auth,
        status: 200,
        reply: { models: { 'tx-chat-1': {} } },
      },
      chat('tx-chat-1'),
      catalog('/v1/models', ['tx-chat-1'], { links: [{ rel: 'self', href: '/v1/models' }] }),
      chat('tx-chat-1'),
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('catalog-links-control', [
      {
        ...catalog('/v1/models', ['tx-embed-1']),
        reply: { links: [{ rel: 'self' }], data: [{ id: 'tx-embed-1' }] },
      },
      chat('tx-chat-1'),
    ]);
    expect(control.failed, control.lines).toMatchObject({ 'MODELS-004': 1 });
  });

  it('MJOB-025: job ids are per tenant, and a read that started earlier is no later step', async () => {
    const other = [{ name: 'authorization', value: 'Bearer sk-capture-OTHER-0123456789abcdefABCDEF' }];
    const read = (status: string, headers = auth, at?: number) => ({
      method: 'GET',
      path: '/v1/media/jobs/job_1',
      headers,
      status: 200,
      reply: { id: 'job_1', object: 'media.job', model: 'wc-100010', status },
      ...(at !== undefined ? { at } : {}),
    });
    const ok = await judge('jobs-per-tenant', [
      read('failed'),
      read('running', other),
      // Merged logs: read at second 30, then one that started at second 20.
      read('cancelled', other, 30),
      read('running', other, 20),
    ]);
    // (The replies are no whole job, which the documented schema judges: only the job's statuses matter.)
    expect(ok.failed['MJOB-025'], ok.lines).toBeUndefined();
    const control = await judge('jobs-one-tenant', [read('failed'), read('running')]);
    expect(control.failed, control.lines).toMatchObject({ 'MJOB-025': 1 });
  });

  it("SEC-001: a reply repeating the key the request's own body carried is an echo (advisory)", async () => {
    const quoting = (quoted: boolean) => {
      const call = chat('tx-chat-1');
      return {
        ...call,
        json: {
          model: 'tx-chat-1',
          messages: [{ role: 'user', content: quoted ? `why does ${KEY} fail?` : 'hi' }],
        },
        reply: {
          ...call.reply,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: `The key ${KEY} is fine.` },
              finish_reason: 'stop',
            },
          ],
        },
      };
    };
    const ok = await judge('key-quoted', [quoting(true)]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('key-leaked', [quoting(false)]);
    expect(control.failed, control.lines).toMatchObject({ 'SEC-001': 1 });
  });

  it("MODEL-001: under a key another body used before, the reply may be that body's stored one (IDEM-002)", async () => {
    const keyed = (model: string, key?: string) => {
      const call = chat(model);
      return {
        ...call,
        headers: [...auth, ...(key ? [{ name: 'idempotency-key', value: key }] : [])],
        // The stored reply of the first request: it names the first model.
        reply: { ...call.reply, id: 'chatcmpl-first', model: 'tx-chat-1' },
      };
    };
    const ok = await judge('key-reused', [keyed('tx-chat-1', 'app'), keyed('tx-chat-2', 'app')]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('key-not-reused', [keyed('tx-chat-1'), keyed('tx-chat-2')]);
    expect(control.failed, control.lines).toMatchObject({ 'MODEL-001': 1 });
  });

  it("ERR-001, ERR-002: only the API's origins are judged; a page's other hosts are left out, counted", async () => {
    const favicon = {
      method: 'GET',
      path: '/favicon.ico',
      status: 404,
      mime: 'text/html',
      text: '<html>no</html>',
    };
    const ok = await judge('other-origins', [
      chat('tx-chat-1'),
      { ...favicon, origin: 'https://cdn.other.example' },
      {
        method: 'GET',
        path: '/api/session',
        status: 500,
        mime: 'text/plain',
        text: 'oops',
        origin: 'https://app.example',
      },
      // Another host's description is not the API's: not taken (an invalid one would fail OAS-001).
      {
        method: 'GET',
        path: '/openapi.json',
        status: 200,
        reply: { not: 'a description' },
        origin: 'https://cdn.other.example',
      },
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    expect(ok.summary?.capture?.otherOrigins).toEqual({
      'https://cdn.other.example': 2,
      'https://app.example': 1,
    });
    expect(ok.summary?.capture?.description).toMatch(/the capture holds no GET \/openapi\.json/);
    expect(ok.lines).toContain("left out, not the API's origin: 3 exchange(s)");
    const control = await judge('api-origin-favicon', [chat('tx-chat-1'), favicon]);
    expect(control.failed, control.lines).toMatchObject({ 'ERR-001': 1 });
  });

  it('MODELS-004, SEC-001: a masked key (`Bearer ****`, `[REDACTED]`) names no one key and is no secret', async () => {
    const masked = (mask: string) => [{ name: 'authorization', value: `Bearer ${mask}` }];
    const session = (headers: Array<{ name: string; value: string }>) => [
      // Two tenants' catalogs, then a call of the first's model: under one mask they read as one key.
      { ...catalog('/v1/models', ['tx-chat-1']), headers },
      { ...catalog('/v1/models', ['tx-chat-2']), headers },
      { ...chat('tx-chat-1'), headers },
    ];
    const ok = await judge('masked-keys', [
      ...session(masked('****')),
      {
        method: 'GET',
        path: '/v1/support/tickets',
        headers: masked('[REDACTED]'),
        status: 200,
        reply: { object: 'list', data: [{ id: 'tk_1', preferred_contact: '[REDACTED] ****' }] },
      },
      // A key was sent, masked: no download without a key (MASSET-002).
      {
        method: 'GET',
        path: '/v1/media/assets/asset_1',
        headers: masked('****'),
        status: 200,
        mime: 'image/png',
        text: 'png',
      },
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    const control = await judge('one-key-two-catalogs', session(auth));
    expect(control.failed, control.lines).toMatchObject({ 'MODELS-004': 1 });
  });

  it('ERR-001, ERR-002: a 499 (the client closed the request) and a CORS preflight are no API answers', async () => {
    const preflight = (headers: Array<{ name: string; value: string }>, status = 403) => ({
      method: 'OPTIONS',
      path: '/v1/chat/completions',
      headers: [{ name: 'origin', value: 'https://app.example' }, ...headers],
      status,
      ...(status === 500 ? { mime: 'text/plain', text: 'cors' } : {}),
    });
    const asks = [{ name: 'access-control-request-method', value: 'POST' }];
    const closed = (status: number) => ({ ...chat('tx-chat-1'), status, reply: undefined });
    const ok = await judge('preflight-499', [
      chat('tx-chat-1'),
      preflight(asks),
      preflight(asks, 500),
      closed(499),
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    // An OPTIONS that asks nothing of CORS, and a 400 with no body: API answers, which break ERR-001.
    const notPreflight = await judge('options-plain', [chat('tx-chat-1'), preflight([])]);
    expect(notPreflight.failed, notPreflight.lines).toMatchObject({ 'ERR-001': 1 });
    const refused = await judge('refused-bodiless', [chat('tx-chat-1'), closed(400)]);
    expect(refused.failed, refused.lines).toMatchObject({ 'ERR-001': 1 });
  });

  it('MJOB-025: a create replayed from before the capture, and a poll that overlaps another, are no later steps', async () => {
    const job = (status: string) => ({ id: 'job_1', object: 'media.job', model: 'wc-100010', status });
    const read = (status: string, at: number, time = 5) => ({
      method: 'GET',
      path: '/v1/media/jobs/job_1',
      headers: auth,
      status: 200,
      reply: job(status),
      at,
      time,
    });
    const create = (at: number, key = 'task-1') => ({
      method: 'POST',
      path: '/v1/media/jobs',
      headers: [...auth, { name: 'idempotency-key', value: key }],
      json: { model: 'wc-100010', prompt: 'a cat', parameters: { provider_processing_acknowledged: true } },
      status: 200,
      reply: job('queued'),
      at,
    });
    const ok = await judge('jobs-replay-overlap', [
      // Polls, then the create repeated with its key: its first create came before the capture.
      read('running', 0),
      read('succeeded', 5),
      create(10),
      // A poll of 5 s answered failed, and one that started during it answered running.
      { ...read('failed', 20, 5000), path: '/v1/media/jobs/job_2', reply: { ...job('failed'), id: 'job_2' } },
      { ...read('running', 21), path: '/v1/media/jobs/job_2', reply: { ...job('running'), id: 'job_2' } },
    ]);
    expect(ok.failed['MJOB-025'], ok.lines).toBeUndefined();
    // The key's first create in the capture answered queued: its replay after succeeded may say queued,
    // a poll that started after the failed one ended may not say running.
    const control = await judge('jobs-replay-overlap-control', [
      create(0),
      read('running', 5),
      read('succeeded', 10),
      create(15),
      { ...read('failed', 20, 500), path: '/v1/media/jobs/job_2', reply: { ...job('failed'), id: 'job_2' } },
      { ...read('running', 21), path: '/v1/media/jobs/job_2', reply: { ...job('running'), id: 'job_2' } },
    ]);
    expect(control.failed, control.lines).toMatchObject({ 'MJOB-025': 1 });
    expect(control.lines).toMatch(/job job_2 read running after failed/);
    expect(control.lines).not.toMatch(/job job_1 read/);
  });

  it('SEC-001: a console route showing a key again is advisory ("a newly created key can be viewed again"); a canary there still fails', async () => {
    const reveal = (path: string, secret: string) => ({
      method: 'GET',
      path,
      headers: [{ name: 'cookie', value: 'session=s1' }],
      status: 200,
      reply: { key: secret },
    });
    const shown = await judge('console-reveal', [
      chat('tx-chat-1'),
      reveal('/console/api/keys/1/reveal', KEY),
    ]);
    expect(shown.failed, shown.lines).toEqual({});
    const control = await judge('api-reveal', [chat('tx-chat-1'), reveal('/v1/balance', KEY)]);
    expect(control.failed, control.lines).toMatchObject({ 'SEC-001': 1 });
    const canary = await judge(
      'console-canary',
      [chat('tx-chat-1'), reveal('/console/api/nodes', 'node-internal-7')],
      {
        canaries: ['node-internal-'],
      },
    );
    expect(canary.failed, canary.lines).toMatchObject({ 'SEC-001': 1 });
  });

  it('RESP-003: an empty text beside a size above 0 is a body left out of the capture, not an empty body', async () => {
    // A chat reply: its body is shown (ChatCompletion), so an empty one fails without a description.
    const leftOut = (size: number) => ({ ...chat('tx-chat-2'), mime: 'application/json', text: '', size });
    const ok = await judge('body-left-out', [chat('tx-chat-1'), leftOut(119)]);
    expect(ok.failed, ok.lines).toEqual({});
    expect(ok.lines).toMatch(/the response body \(119 bytes\) is not in the capture/);
    const control = await judge('body-empty', [chat('tx-chat-1'), leftOut(0)]);
    expect(control.failed, control.lines).toMatchObject({ 'RESP-003': 1 });
  });

  it('RESP-001: a 304 answers a conditional request (HTTP caching the client asked for); unasked, it is undeclared', async () => {
    const description = {
      method: 'GET',
      path: '/openapi.json',
      status: 200,
      reply: {
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/v1/models': {
            get: {
              responses: {
                '200': {
                  description: 'the catalog',
                  content: { 'application/json': { schema: { type: 'object' } } },
                },
              },
            },
          },
        },
      },
    };
    const models = (status: number, headers: Array<{ name: string; value: string }> = []) => ({
      method: 'GET',
      path: '/v1/models',
      headers: [...auth, ...headers],
      status,
      ...(status === 200 ? { reply: { object: 'list', data: [{ id: 'tx-chat-1' }] } } : {}),
    });
    const ok = await judge('not-modified', [
      description,
      models(200),
      models(304, [{ name: 'If-None-Match', value: '"v1"' }]),
      models(304, [{ name: 'if-modified-since', value: 'Mon, 30 Nov 2026 12:00:00 GMT' }]),
    ]);
    expect(ok.failed, ok.lines).toEqual({});
    expect(ok.lines).toMatch(/validated against the capture's own GET \/openapi\.json/);
    const control = await judge('not-modified-unasked', [description, models(200), models(304)]);
    expect(control.failed, control.lines).toMatchObject({ 'RESP-001': 1 });
  });

  it('SEC-001: a canary given (--canary) that a reply holds fails; the report never shows it', async () => {
    const canary = 'node-internal-';
    const call = chat('tx-chat-1');
    const leaky = {
      ...call,
      reply: {
        ...call.reply,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: `served by ${canary}7` },
            finish_reason: 'stop',
          },
        ],
      },
    };
    // Without the canary, the capture says nothing of it.
    const plain = await judge('canary-unknown', [leaky]);
    expect(plain.failed, plain.lines).toEqual({});
    const given = await judge('canary-given', [leaky], { canaries: [canary] });
    expect(given.failed, given.lines).toMatchObject({ 'SEC-001': 1 });
    expect(given.lines).toMatch(/response body contains the canary #1 secret/);
    const reportDir = join(dir, 'report-canary-given');
    for (const f of readdirSync(reportDir))
      expect(readFileSync(join(reportDir, f), 'utf8'), f).not.toContain(canary);
    // On the command line: repeatable; one too short to be told from ordinary text is refused.
    const har = join(dir, 'canary-given.har');
    const cli = await runCli([
      'check-traffic',
      '--quiet',
      '--report-dir',
      join(dir, 'canary-cli'),
      '--canary',
      'sk-upstream-',
      '--canary',
      canary,
      har,
    ]);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toMatch(/VERDICT: FAILED/);
    const short = await runCli(['check-traffic', '--canary', 'abc', har]);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/--canary: "abc" is shorter than 4 characters/);
  });
});

describe('masks of a key (capture.ts isMasked)', () => {
  it.each([
    'Bearer ****',
    'Bearer [REDACTED]',
    'Bearer <redacted>',
    'Bearer <API_KEY>',
    'Bearer sk-abc…wxyz',
    'Bearer sk-****wxyz',
    'Bearer xxxx',
    'Bearer sk-live-xxxxxxxxxxxx',
    'Bearer',
    'FILTERED',
  ])('%s is a mask', (value) => expect(isMasked(value)).toBe(true));
  it.each([`Bearer ${KEY}`, 'Bearer [REDACTED:primary]', 'Bearer sk-k1xxxxxxxxxxxxxxxx', 'key-credits-1'])(
    '%s is a key',
    (value) => expect(isMasked(value)).toBe(false),
  );
});
