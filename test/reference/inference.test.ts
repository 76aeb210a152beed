import { Decimal } from 'decimal.js';
import { describe, expect, test } from 'vitest';
import type { ReferenceHandle } from '../../reference/start.ts';
import { type CallOptions, call, isApiError, parseSse, referencePool } from './helpers.ts';

const start = referencePool();
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const MEDIA_IDS = [
  ...['10', '11', '12', '13', '14', '15', '16', '17', '18', '19'],
  ...['31', '32', '33', '34', '40', '41'],
].map((n) => `wc-1000${n}`);

const post = (ref: ReferenceHandle, path: string, json: unknown, opts: CallOptions = {}) =>
  call(ref, path, { method: 'POST', role: 'primary', json, ...opts });
const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: 'tx-chat-1',
  messages: [{ role: 'user', content: 'Say ok.' }],
  ...extra,
});
const chat = (ref: ReferenceHandle, extra: Record<string, unknown> = {}, opts: CallOptions = {}) =>
  post(ref, '/v1/chat/completions', chatBody(extra), opts);
const total = async (ref: ReferenceHandle, role = 'primary') =>
  (await call(ref, '/v1/balance', { role })).body.total_points as string;
/** (prompt × 0.75 + completion × 2.5) / 1e6: the plain prices of tx-chat-1. */
const chatCharge = (prompt: number, completion: number) =>
  new Decimal(prompt).times('0.75').plus(new Decimal(completion).times('2.5')).div(1e6).toFixed();

describe('POST /v1/chat/completions', () => {
  test('answers a ChatCompletion with usage and billing, and settles it', async () => {
    const ref = await start();
    const before = await total(ref);
    const res = await chat(ref, { max_tokens: 3 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    // "Say ok." is 7 characters: ceil(7/4) + 4 = 6 prompt tokens; 3 completion tokens.
    expect(res.body).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{24}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'tx-chat-1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'This is a' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 },
      billing: { unit: 'service_points', charged_points: '0.000012', released_points: '0' },
    });
    expect(chatCharge(6, 3)).toBe('0.000012');
    expect(new Decimal(before).minus(await total(ref)).toFixed()).toBe('0.000012');
  });

  test('writes at most 16 tokens, stops on its own, and releases the unused hold', async () => {
    const ref = await start();
    const plain = await chat(ref);
    expect(plain.body.usage).toEqual({ prompt_tokens: 6, completion_tokens: 16, total_tokens: 22 });
    expect(plain.body.choices[0].finish_reason).toBe('stop');
    expect(plain.body.choices[0].message.content.split(' ')).toHaveLength(16);
    const wide = await chat(ref, { max_tokens: 100 });
    expect(wide.body.usage.completion_tokens).toBe(16);
    // Held for 100 completion tokens, charged for 16: 84 × 2.5 / 1e6 released.
    expect(wide.body.billing).toEqual({
      unit: 'service_points',
      charged_points: chatCharge(6, 16),
      released_points: '0.00021',
    });
    const none = await chat(ref, { max_tokens: 0 });
    expect(none.body.choices[0].message.content).toBe('');
    expect(none.body.usage.completion_tokens).toBe(0);
  });

  test('counts prompt tokens per message: ceil(chars / 4) + 4', async () => {
    const ref = await start();
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: '' },
      { role: 'user', content: 'héllo wörld 🙂' },
      { role: 'assistant', content: 'Hi.' },
    ];
    const res = await chat(ref, { messages, max_tokens: 1 });
    expect(res.body.usage.prompt_tokens).toBe(3 + 4 + (0 + 4) + (4 + 4) + (1 + 4));
  });

  const VALID: [string, Record<string, unknown>][] = [
    ['temperature 0', { temperature: 0 }],
    ['temperature 2', { temperature: 2 }],
    ['temperature 1.5', { temperature: 1.5 }],
    ['top_p 0', { top_p: 0 }],
    ['top_p 1', { top_p: 1 }],
    ['max_tokens 0', { max_tokens: 0 }],
    ['max_tokens 2.0 (an integer in JSON)', { max_tokens: 2.0 }],
    ['stream false', { stream: false }],
    ['a user', { user: 'someone' }],
    ['an unknown top-level field', { presence_penalty: 0.5, tools: [] }],
    ['a developer message', { messages: [{ role: 'developer', content: 'x' }] }],
    ['extra message fields', { messages: [{ role: 'user', content: 'x', name: 'me' }] }],
  ];
  test.for(VALID)('accepts %s', async ([, extra]) => {
    const ref = await start();
    expect((await chat(ref, { max_tokens: 1, ...extra })).status).toBe(200);
  });

  const INVALID: [string, unknown][] = [
    ['no model', { messages: [{ role: 'user', content: 'x' }] }],
    ['a numeric model', chatBody({ model: 7 })],
    ['no messages', { model: 'tx-chat-1' }],
    ['empty messages', chatBody({ messages: [] })],
    ['messages as a string', chatBody({ messages: 'hi' })],
    ['a message that is a string', chatBody({ messages: ['hi'] })],
    ['a message without content', chatBody({ messages: [{ role: 'user' }] })],
    ['a message without role', chatBody({ messages: [{ content: 'x' }] })],
    ['numeric content', chatBody({ messages: [{ role: 'user', content: 42 }] })],
    ['null content', chatBody({ messages: [{ role: 'user', content: null }] })],
    ['the role tool', chatBody({ messages: [{ role: 'tool', content: 'x' }] })],
    ['the role USER', chatBody({ messages: [{ role: 'USER', content: 'x' }] })],
    ['max_tokens -1', chatBody({ max_tokens: -1 })],
    ['max_tokens 1.5', chatBody({ max_tokens: 1.5 })],
    ['max_tokens "2"', chatBody({ max_tokens: '2' })],
    ['temperature 2.01', chatBody({ temperature: 2.01 })],
    ['temperature -0.01', chatBody({ temperature: -0.01 })],
    ['temperature "1"', chatBody({ temperature: '1' })],
    ['temperature null', chatBody({ temperature: null })],
    ['top_p 1.01', chatBody({ top_p: 1.01 })],
    ['top_p -0.5', chatBody({ top_p: -0.5 })],
    ['stream "yes"', chatBody({ stream: 'yes' })],
    ['a numeric user', chatBody({ user: 1 })],
    ['an array body', [chatBody()]],
  ];
  test.for(INVALID)('refuses %s with 400 invalid_request and charges nothing', async ([, body]) => {
    const ref = await start();
    const before = await total(ref);
    const res = await post(ref, '/v1/chat/completions', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(isApiError(res.body)).toBe(true);
    expect(await total(ref)).toBe(before);
  });

  test('refuses models it cannot call, without charging', async () => {
    const ref = await start();
    const before = await total(ref);
    const status = async (model: string) => {
      const res = await chat(ref, { model });
      expect(isApiError(res.body), model).toBe(true);
      return [res.status, res.body.error.code];
    };
    expect(await status('no-such-model')).toEqual([404, 'model_not_found']);
    expect(await status('tx-chat-premium')).toEqual([403, 'model_not_allowed']);
    expect(await status('tx-embed-1')).toEqual([404, 'wrong_endpoint_type']);
    expect(await status('tx-chat-unpriced')).toEqual([503, 'points_not_configured']);
    for (const id of MEDIA_IDS) expect(await status(id), id).toEqual([404, 'wrong_endpoint_type']);
    expect(await total(ref)).toBe(before);
    expect((await call(ref, '/v1/usage', { role: 'primary' })).body.data).toEqual([]);
  });

  test('lets the enterprise call its premium model', async () => {
    const ref = await start();
    const res = await chat(ref, { model: 'tx-chat-premium', max_tokens: 1 }, { role: 'enterprise' });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('tx-chat-premium');
    // (6 × 12 + 1 × 36) / 1e6
    expect(res.body.billing.charged_points).toBe('0.000108');
  });

  test('refuses a call the available points cannot cover with 429, charging nothing', async () => {
    const ref = await start();
    const big = 'x'.repeat(100_000);
    const res = await chat(ref, { messages: [{ role: 'user', content: big }] }, { role: 'poor' });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('insufficient_points');
    expect(await total(ref, 'poor')).toBe('0.01');
    expect((await chat(ref, { max_tokens: 1 }, { role: 'poor' })).status).toBe(200);
  });

  test('streams SSE chunks ending with [DONE], billed like the plain reply', async () => {
    const ref = await start();
    const before = await total(ref);
    const res = await chat(ref, { max_tokens: 3, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(res.text);
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    for (const chunk of chunks)
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: 'tx-chat-1' });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    expect(text).toBe('This is a');
    const last = chunks.at(-1);
    expect(last.choices[0].finish_reason).toBe('length');
    expect(last.usage).toEqual({ prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 });
    expect(last.billing.charged_points).toBe('0.000012');
    expect(new Decimal(before).minus(await total(ref)).toFixed()).toBe('0.000012');
  });

  test('streams NDJSON lines under variant chat-stream-ndjson', async () => {
    const ref = await start({ variant: 'chat-stream-ndjson' });
    const res = await chat(ref, { max_tokens: 2, stream: true });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.text).not.toContain('data:');
    const lines = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.choices[0].delta.content ?? '').join('')).toBe('This is');
    expect(lines.at(-1).usage.total_tokens).toBe(8);
  });

  test('omits billing under variant no-billing, still settling the call', async () => {
    const ref = await start({ variant: 'no-billing' });
    const res = await chat(ref, { max_tokens: 1 });
    expect(res.body).not.toHaveProperty('billing');
    expect(await total(ref)).not.toBe('1000.50');
    const responses = await post(ref, '/v1/responses', { model: 'tx-chat-1', input: 'x' });
    expect(responses.body).not.toHaveProperty('billing');
    const embedding = await post(ref, '/v1/embeddings', { model: 'tx-embed-1', input: 'x' });
    expect(embedding.body).not.toHaveProperty('billing');
  });

  test('answers 403 for a globally unknown model under variant unknown-model-403', async () => {
    const ref = await start({ variant: 'unknown-model-403' });
    expect((await chat(ref, { model: 'no-such-model' })).status).toBe(403);
    expect((await chat(ref, { model: 'wc-100010' })).status).toBe(404);
  });
});

describe('POST /v1/responses', () => {
  const responses = (ref: ReferenceHandle, extra: Record<string, unknown> = {}, opts: CallOptions = {}) =>
    post(
      ref,
      '/v1/responses',
      { model: 'tx-chat-1', input: 'Say ok.', max_output_tokens: 3, ...extra },
      opts,
    );

  test('answers a response object with usage and billing', async () => {
    const ref = await start();
    const res = await responses(ref, { store: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^resp_[0-9a-f]{24}$/),
      object: 'response',
      created_at: expect.any(Number),
      model: 'tx-chat-1',
      status: 'completed',
      output: [
        {
          type: 'message',
          id: expect.stringMatching(/^msg_/),
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'This is a', annotations: [] }],
        },
      ],
      usage: { input_tokens: 6, output_tokens: 3, total_tokens: 9 },
      billing: { unit: 'service_points', charged_points: '0.000012', released_points: '0' },
    });
    const usage = (await call(ref, '/v1/usage', { role: 'primary' })).body.data;
    expect(usage[0]).toMatchObject({ endpoint: '/v1/responses', model: 'tx-chat-1', total_tokens: 9 });
  });

  test('accepts message-like input items and counts them like chat messages', async () => {
    const ref = await start();
    const input = [
      { role: 'user', content: 'Say ok.' },
      { role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
      { type: 'function_call_output', call_id: 'c1', output: 'done' },
    ];
    const res = await responses(ref, { input });
    expect(res.status).toBe(200);
    expect(res.body.usage.input_tokens).toBe(6 + (1 + 4) + (1 + 4));
  });

  test('refuses a model without native responses support with 400 unsupported_endpoint', async () => {
    const ref = await start();
    const res = await responses(ref, { model: 'tx-chat-2' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unsupported_endpoint');
    expect((await responses(ref, { model: 'tx-embed-1' })).status).toBe(404);
    expect((await responses(ref, { model: 'tx-chat-premium' })).status).toBe(403);
    expect((await responses(ref, { model: 'wc-100014' })).status).toBe(404);
    expect((await call(ref, '/v1/usage', { role: 'primary' })).body.data).toEqual([]);
  });

  test.for([
    ['an empty input', { input: '' }],
    ['an empty input array', { input: [] }],
    ['a numeric input', { input: 3 }],
    ['an input item without role or type', { input: [{ content: 'x' }] }],
    ['an input item with an unknown role', { input: [{ role: 'tool', content: 'x' }] }],
    ['no input', { input: undefined }],
    ['no model', { model: undefined }],
    ['max_output_tokens -1', { max_output_tokens: -1 }],
    ['store "no"', { store: 'no' }],
    ['stream 1', { stream: 1 }],
  ] as [string, Record<string, unknown>][])('refuses %s with 400', async ([, extra]) => {
    const ref = await start();
    const res = await responses(ref, extra);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  test('streams named events: created, deltas, then exactly one terminal event, last', async () => {
    const ref = await start();
    // Cut by its cap of 3 tokens (the stand-in replies 16): response.incomplete.
    const res = await responses(ref, { stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(res.text);
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.incomplete',
    ]);
    const data = events.map((e) => JSON.parse(e.data));
    for (const [i, d] of data.entries()) expect(d.type).toBe(events[i]?.event);
    const deltas = data.filter((d) => d.type === 'response.output_text.delta').map((d) => d.delta);
    expect(deltas.every((d) => typeof d === 'string' && d.length > 0)).toBe(true);
    const final = data.at(-1).response;
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.output[0].content[0].text).toBe(deltas.join(''));
    expect(final.billing.charged_points).toBe('0.000012');
    // A cap above the reply: it ends on its own, response.completed.
    const natural = parseSse((await responses(ref, { stream: true, max_output_tokens: 64 })).text);
    expect(natural.at(-1)?.event).toBe('response.completed');
    expect(JSON.parse(natural.at(-1)!.data).response.status).toBe('completed');
  });

  test('adds other events between the deltas under variant responses-extra-events', async () => {
    const ref = await start({ variant: 'responses-extra-events' });
    const events = parseSse((await responses(ref, { stream: true, max_output_tokens: 64 })).text).map(
      (e) => e.event,
    );
    expect(events[0]).toBe('response.created');
    expect(events.at(-1)).toBe('response.completed');
    expect(events.filter((e) => e === 'response.completed')).toHaveLength(1);
    const first = events.indexOf('response.output_text.delta');
    expect(events.slice(first, events.lastIndexOf('response.output_text.delta'))).toContain(
      'response.in_progress',
    );
  });
});

describe('POST /v1/embeddings', () => {
  const embed = (ref: ReferenceHandle, body: unknown, role = 'primary') =>
    post(ref, '/v1/embeddings', body, { role });

  test('answers 1024 deterministic floats with usage and billing', async () => {
    const ref = await start();
    const res = await embed(ref, {
      model: 'tx-embed-1',
      input: 'hello world',
      dimensions: 1024,
      encoding_format: 'float',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: expect.any(Array) }],
      model: 'tx-embed-1',
      usage: { prompt_tokens: 3, total_tokens: 3 },
      // 3 × 0.02 / 1e6
      billing: { unit: 'service_points', charged_points: '0.00000006', released_points: '0' },
    });
    const vector: number[] = res.body.data[0].embedding;
    expect(vector).toHaveLength(1024);
    expect(vector.every((x) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
    const again = await embed(ref, { model: 'tx-embed-1', input: 'hello world' });
    expect(again.body.data[0].embedding).toEqual(vector);
    const other = await embed(ref, { model: 'tx-embed-1', input: 'hello there' });
    expect(other.body.data[0].embedding).not.toEqual(vector);
    const elsewhere = await embed(await start(), { model: 'tx-embed-1', input: 'hello world' });
    expect(elsewhere.body.data[0].embedding).toEqual(vector);
  });

  test.for([
    ['an unknown field', { model: 'tx-embed-1', input: 'x', extra: 1 }],
    ['no model', { input: 'x' }],
    ['no input', { model: 'tx-embed-1' }],
    ['an empty input', { model: 'tx-embed-1', input: '' }],
    ['an array input', { model: 'tx-embed-1', input: ['x'] }],
    ['a token array input', { model: 'tx-embed-1', input: [1, 2] }],
    ['a numeric input', { model: 'tx-embed-1', input: 42 }],
    ['a null input', { model: 'tx-embed-1', input: null }],
    ['an object input', { model: 'tx-embed-1', input: { text: 'x' } }],
    ['dimensions 512', { model: 'tx-embed-1', input: 'x', dimensions: 512 }],
    ['dimensions "1024"', { model: 'tx-embed-1', input: 'x', dimensions: '1024' }],
    ['encoding_format base64', { model: 'tx-embed-1', input: 'x', encoding_format: 'base64' }],
    ['a numeric user', { model: 'tx-embed-1', input: 'x', user: 5 }],
  ] as [string, unknown][])('refuses %s with 400 invalid_request', async ([, body]) => {
    const ref = await start();
    const res = await embed(ref, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  test('refuses models of other types and models outside the catalog', async () => {
    const ref = await start();
    const code = async (model: string) => {
      const res = await embed(ref, { model, input: 'x' });
      return [res.status, res.body.error?.code];
    };
    expect(await code('tx-chat-1')).toEqual([404, 'wrong_endpoint_type']);
    expect(await code('wc-100040')).toEqual([404, 'wrong_endpoint_type']);
    expect(await code('nope')).toEqual([404, 'model_not_found']);
    expect(await code('tx-chat-premium')).toEqual([403, 'model_not_allowed']);
  });

  test('ignores Idempotency-Key (not listed for embeddings)', async () => {
    const ref = await start();
    const headers = { 'idempotency-key': 'emb-1' };
    await embed(ref, { model: 'tx-embed-1', input: 'x' });
    const a = await post(ref, '/v1/embeddings', { model: 'tx-embed-1', input: 'x' }, { headers });
    const b = await post(ref, '/v1/embeddings', { model: 'tx-embed-1', input: 'y' }, { headers });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect((await call(ref, '/v1/usage', { role: 'primary' })).body.data).toHaveLength(3);
  });

  test('bills with many decimals under variant fractional-prices', async () => {
    const ref = await start({ variant: 'fractional-prices' });
    const res = await embed(ref, { model: 'tx-embed-1', input: 'hello world' });
    // 3 × 0.000000021234567891 / 1e6
    expect(res.body.billing.charged_points).toBe('0.000000000000063703703673');
    expect(res.body.billing.charged_points).toMatch(DECIMAL);
  });
});
