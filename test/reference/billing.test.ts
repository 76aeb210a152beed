import { Decimal as BaseDecimal } from 'decimal.js';
import { describe, expect, test } from 'vitest';
import type { ReferenceHandle } from '../../reference/start.ts';
import { type CallOptions, call, parseSse, referencePool } from './helpers.ts';

const start = referencePool();
const Decimal = BaseDecimal.clone({ precision: 100 });
const LEGACY_TYPE = 'application/vnd.service.currency.v1+json';
const LEGACY = { accept: LEGACY_TYPE };
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: 'tx-chat-1',
  messages: [{ role: 'user', content: 'Say ok.' }],
  max_tokens: 3,
  ...extra,
});
const chat = (ref: ReferenceHandle, opts: CallOptions = {}, extra: Record<string, unknown> = {}) =>
  call(ref, '/v1/chat/completions', { method: 'POST', role: 'primary', json: chatBody(extra), ...opts });
const get = (ref: ReferenceHandle, path: string, opts: CallOptions = {}) =>
  call(ref, path, { role: 'primary', ...opts });
const total = async (ref: ReferenceHandle, role = 'primary') =>
  (await get(ref, '/v1/balance', { role })).body.total_points as string;

/** Every key of a JSON value, at any depth. */
function keysOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(keysOf);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => [k, ...keysOf(v)]);
}

describe('GET /v1/usage', () => {
  test('lists one record per settled call, newest first', async () => {
    const ref = await start();
    expect((await get(ref, '/v1/usage')).body).toEqual({ object: 'list', data: [] });
    const a = await chat(ref);
    await call(ref, '/v1/embeddings', {
      method: 'POST',
      role: 'primary',
      json: { model: 'tx-embed-1', input: 'x' },
    });
    const { status, body } = await get(ref, '/v1/usage');
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    expect(body.data.map((r: { endpoint: string }) => r.endpoint)).toEqual([
      '/v1/embeddings',
      '/v1/chat/completions',
    ]);
    expect(body.data[1]).toEqual({
      id: expect.stringMatching(/^usage_/),
      request_id: a.headers.get('x-request-id'),
      endpoint: '/v1/chat/completions',
      model: 'tx-chat-1',
      prompt_tokens: 6,
      completion_tokens: 3,
      total_tokens: 9,
      charged_points: a.body.billing.charged_points,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  test('is per account: shared by enterprise keys, never shown to another tenant', async () => {
    const ref = await start();
    await chat(ref, { role: 'enterprise' });
    await chat(ref, { role: 'enterprise_second' });
    expect((await get(ref, '/v1/usage', { role: 'restricted_usage' })).body.data).toHaveLength(2);
    expect((await get(ref, '/v1/usage', { role: 'primary' })).body.data).toEqual([]);
    expect((await get(ref, '/v1/ledger', { role: 'other_tenant' })).body.data).toHaveLength(1);
  });

  test('renames record fields under variant usage-envelope', async () => {
    const ref = await start({ variant: 'usage-envelope' });
    await chat(ref);
    const { body } = await get(ref, '/v1/usage');
    expect(Object.keys(body)).toEqual(['records']);
    expect(Object.keys(body.records[0]).sort()).toEqual(
      [
        'usage_id',
        'request_ref',
        'path',
        'model',
        'input_tokens',
        'output_tokens',
        'tokens',
        'charged_points',
        'timestamp',
      ].sort(),
    );
  });
});

describe('GET /v1/ledger', () => {
  test('opens with the top-up and hold that explain the seeded balance', async () => {
    const ref = await start();
    const { status, body } = await get(ref, '/v1/ledger');
    expect(status).toBe(200);
    expect(body.data).toEqual([
      expect.objectContaining({
        type: 'hold',
        amount_points: '0',
        held_change_points: '12.25',
        balance_after_points: '1000.50',
        usage_id: null,
      }),
      expect.objectContaining({
        type: 'top_up',
        amount_points: '1000.50',
        held_change_points: '0',
        balance_after_points: '1000.50',
        usage_id: null,
      }),
    ]);
    const other = (await get(ref, '/v1/ledger', { role: 'other_tenant' })).body.data;
    expect(other.map((e: { type: string }) => e.type)).toEqual(['top_up']);
  });

  test.for([undefined, 'fractional-prices'])(
    'keeps running balances consistent with the balance (variant %s)',
    async (variant) => {
      const ref = await start({ variant });
      const charges: string[] = [];
      for (const max of [1, 5, 16])
        charges.push((await chat(ref, {}, { max_tokens: max })).body.billing.charged_points);
      await call(ref, '/v1/responses', {
        method: 'POST',
        role: 'primary',
        json: { model: 'tx-chat-1', input: 'x' },
      });
      const entries = (await get(ref, '/v1/ledger')).body.data.slice().reverse();
      let running = new Decimal(0);
      let held = new Decimal(0);
      for (const e of entries) {
        for (const f of ['amount_points', 'held_change_points', 'balance_after_points'])
          expect(e[f]).toMatch(DECIMAL);
        running = running.plus(e.amount_points);
        held = held.plus(e.held_change_points);
        expect(running.eq(e.balance_after_points), JSON.stringify(e)).toBe(true);
      }
      const balance = (await get(ref, '/v1/balance')).body;
      expect(entries.at(-1).balance_after_points).toBe(balance.total_points);
      expect(held.eq(balance.held_points)).toBe(true);
      const charged = entries.filter((e: { type: string }) => e.type === 'charge');
      expect(charged.slice(0, 3).map((e: { amount_points: string }) => e.amount_points)).toEqual(
        charges.map((c) => `-${c}`),
      );
      const usage = (await get(ref, '/v1/usage')).body.data;
      expect(charged.map((e: { usage_id: string }) => e.usage_id).reverse()).toEqual(
        usage.map((u: { id: string }) => u.id),
      );
    },
  );

  test('lists oldest first in {entries, has_more} under variant ledger-ascending', async () => {
    const ref = await start({ variant: 'ledger-ascending' });
    await chat(ref);
    const { body } = await get(ref, '/v1/ledger');
    expect(body.has_more).toBe(false);
    expect(body.entries.map((e: { type: string }) => e.type)).toEqual(['top_up', 'hold', 'charge']);
  });
});

describe('price snapshots', () => {
  test('a later price change does not alter settled records, only later charges', async () => {
    const ref = await start();
    const first = await chat(ref);
    expect(first.body.billing.charged_points).toBe('0.000012');
    ref.setPrice('tx-chat-1', { request: '7.5', response: '25' });
    const models = (await get(ref, '/v1/models')).body.data;
    expect(models[0].request_points_per_million_tokens).toBe('7.5');
    const second = await chat(ref);
    expect(second.body.billing.charged_points).toBe('0.00012');
    const usage = (await get(ref, '/v1/usage')).body.data;
    expect(usage.map((u: { charged_points: string }) => u.charged_points)).toEqual(['0.00012', '0.000012']);
    expect(() => ref.setPrice('tx-chat-1', { request: '1e3', response: '1' })).toThrow(/bad price/);
  });

  test('charges exact decimals with many places under variant fractional-prices', async () => {
    const ref = await start({ variant: 'fractional-prices' });
    const before = await total(ref);
    const res = await chat(ref);
    // (6 × 0.000001234567891234 + 3 × 0.000003703703673702) / 1e6
    const expected = new Decimal('0.000001234567891234')
      .times(6)
      .plus(new Decimal('0.000003703703673702').times(3))
      .div(1e6)
      .toFixed();
    expect(res.body.billing.charged_points).toBe(expected);
    expect(expected).toBe('0.00000000001851851836851');
    expect(new Decimal(before).minus(res.body.billing.charged_points).toFixed()).toBe(await total(ref));
  });
});

describe('legacy currency format', () => {
  const POINTS_KEY = /_points($|_per_million_tokens$)/;

  test.for([
    ['/v1/models', undefined],
    ['/v1/balance', undefined],
    ['/v1/usage', undefined],
    ['/v1/ledger', undefined],
    ['/v1/chat/completions', chatBody()],
    ['/v1/responses', { model: 'tx-chat-1', input: 'x' }],
    ['/v1/embeddings', { model: 'tx-embed-1', input: 'x' }],
  ] as [string, unknown][])('%s answers legacy fields in place of points fields', async ([path, json]) => {
    const ref = await start();
    await chat(ref);
    const method = json ? 'POST' : 'GET';
    const legacy = await call(ref, path, { method, role: 'primary', json, headers: LEGACY });
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('content-type')).toBe(`${LEGACY_TYPE}; charset=utf-8`);
    expect(keysOf(legacy.body).filter((k) => POINTS_KEY.test(k))).toEqual([]);
    expect(keysOf(legacy.body).some((k) => /_amount($|_per_million_tokens$)|^amount$/.test(k))).toBe(true);
    if (method === 'GET') {
      // Same values under other names: rename back and compare.
      const plain = await call(ref, path, { role: 'primary' });
      const back = JSON.stringify(legacy.body)
        .replaceAll('_amount_per_million_tokens"', '_points_per_million_tokens"')
        .replaceAll('"amount"', '"amount_points"')
        .replaceAll(/_amount"/g, '_points"');
      expect(JSON.parse(back)).toEqual(plain.body);
    }
  });

  test('keeps model ids and token usage, and accepts the type among others', async () => {
    const ref = await start();
    const ids = async (accept?: string) =>
      (await get(ref, '/v1/models', { headers: accept ? { accept } : {} })).body.data.map(
        (m: { id: string }) => m.id,
      );
    expect(await ids(`application/json;q=0.5, ${LEGACY_TYPE}`)).toEqual(await ids());
    const res = await chat(ref, { headers: LEGACY });
    expect(res.body.model).toBe('tx-chat-1');
    expect(res.body.usage).toEqual({ prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 });
    expect(res.body.billing).toEqual({
      unit: 'service_points',
      charged_amount: '0.000012',
      released_amount: '0',
    });
    const refused = await get(ref, '/v1/balance', { headers: { accept: `${LEGACY_TYPE};q=0` } });
    expect(refused.body).toHaveProperty('total_points');
  });

  test('renames the billing of streamed chunks and events too', async () => {
    const ref = await start();
    const res = await chat(ref, { headers: LEGACY }, { stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.text).toContain('"charged_amount"');
    expect(res.text).not.toMatch(/_points"\s*:/);
    const events = await call(ref, '/v1/responses', {
      method: 'POST',
      role: 'primary',
      headers: LEGACY,
      json: { model: 'tx-chat-1', input: 'x', stream: true },
    });
    expect(parseSse(events.text).at(-1)?.data).toContain('"charged_amount"');
  });

  test('errors stay APIError in application/json', async () => {
    const ref = await start();
    const res = await chat(ref, { headers: LEGACY }, { model: 'nope' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});

describe('Idempotency-Key', () => {
  const key = (k: string, extra: Record<string, string> = {}) => ({
    headers: { 'idempotency-key': k, ...extra },
  });

  test('replays the stored result without a new charge, usage record or ledger entry', async () => {
    const ref = await start();
    const first = await chat(ref, key('task-1'));
    const after = await total(ref);
    const replay = await chat(ref, key('task-1'));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(replay.body).toEqual(first.body);
    // Key order of the body does not matter: canonical JSON.
    const reordered = await call(ref, '/v1/chat/completions', {
      method: 'POST',
      role: 'primary',
      headers: { 'idempotency-key': 'task-1' },
      json: { max_tokens: 3, messages: [{ content: 'Say ok.', role: 'user' }], model: 'tx-chat-1' },
    });
    expect(reordered.body.id).toBe(first.body.id);
    expect(await total(ref)).toBe(after);
    expect((await get(ref, '/v1/usage')).body.data).toHaveLength(1);
    expect((await get(ref, '/v1/ledger')).body.data).toHaveLength(3);
  });

  test('renders a replay in the legacy format without executing again', async () => {
    const ref = await start();
    const first = await chat(ref, key('task-2'));
    const after = await total(ref);
    const replay = await chat(ref, key('task-2', LEGACY));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('content-type')).toBe(`${LEGACY_TYPE}; charset=utf-8`);
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.billing.charged_amount).toBe(first.body.billing.charged_points);
    expect(await total(ref)).toBe(after);
  });

  test('refuses the same key with another request: 409, or 422 under variant idem-conflict-422', async () => {
    for (const [variant, status] of [
      [undefined, 409],
      ['idem-conflict-422', 422],
    ] as const) {
      const ref = await start({ variant });
      await chat(ref, key('task-3'));
      const after = await total(ref);
      const res = await chat(ref, key('task-3'), { max_tokens: 4 });
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe('idempotency_conflict');
      expect(await total(ref)).toBe(after);
      // Another endpoint is another request too.
      const other = await call(ref, '/v1/responses', {
        method: 'POST',
        role: 'primary',
        json: { model: 'tx-chat-1', input: 'x' },
        ...key('task-3'),
      });
      expect(other.status).toBe(status);
    }
  });

  test('keys are per account; enterprise keys share one account', async () => {
    const ref = await start();
    const a = await chat(ref, { role: 'primary', ...key('shared') });
    const b = await chat(ref, { role: 'other_tenant', ...key('shared') });
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    const e1 = await chat(ref, { role: 'enterprise', ...key('team') });
    const e2 = await chat(ref, { role: 'enterprise_second', ...key('team') });
    expect(e2.body.id).toBe(e1.body.id);
  });

  test('replays responses calls and streams', async () => {
    const ref = await start();
    const body = { model: 'tx-chat-1', input: 'x', stream: true };
    const opts = { method: 'POST', role: 'primary', json: body, ...key('stream-1') };
    const first = await call(ref, '/v1/responses', opts);
    const after = await total(ref);
    const replay = await call(ref, '/v1/responses', opts);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await total(ref)).toBe(after);
  });

  test('refuses an empty or over-long key', async () => {
    const ref = await start();
    expect((await chat(ref, key(''))).status).toBe(400);
    expect((await chat(ref, key('k'.repeat(129)))).status).toBe(400);
    expect((await chat(ref, key('k'.repeat(128)))).status).toBe(200);
  });
});
