// Captured traffic a conformant deployment may show, where the contract leaves the reading open: each must
// pass check-traffic (no false alarm), beside a control that the same rule fails.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTraffic } from '../src/traffic/judge.ts';

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
}

function entry(s: Spec, n: number): Record<string, unknown> {
  const text = s.reply === undefined ? '' : JSON.stringify(s.reply);
  return {
    startedDateTime: new Date(Date.UTC(2026, 10, 30, 12, 0, n)).toISOString(),
    time: 5,
    request: {
      method: s.method,
      url: `https://gw.example${s.path}`,
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
      headers: text ? [{ name: 'content-type', value: 'application/json' }] : [],
      cookies: [],
      content: { size: text.length, mimeType: text ? 'application/json' : '', text },
      redirectURL: '',
      headersSize: -1,
      bodySize: text.length,
    },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
  };
}

async function judge(name: string, specs: Spec[]) {
  const file = join(dir, `${name}.har`);
  const doc = { log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: specs.map(entry) } };
  writeFileSync(file, JSON.stringify(doc));
  const lines: string[] = [];
  const r = await checkTraffic({ files: [file], reportDir: join(dir, `report-${name}`), threads: 0 }, (s) =>
    lines.push(s),
  );
  return { failed: r.summary?.failedRequirements ?? {}, lines: lines.join('\n') };
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
});
