import { Decimal } from 'decimal.js';
import { describe, expect, test } from 'vitest';
import { call, referencePool } from './helpers.ts';

const start = referencePool();
const Exact = Decimal.clone({ precision: 100 });
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

describe('GET /v1/models', () => {
  test('lists the primary catalog with decimal-string prices', async () => {
    const ref = await start();
    const { status, body } = await call(ref, '/v1/models', { role: 'primary' });
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    const byId = Object.fromEntries(body.data.map((m: { id: string }) => [m.id, m]));
    expect(Object.keys(byId).sort()).toEqual(['tx-chat-1', 'tx-chat-2', 'tx-chat-unpriced', 'tx-embed-1']);
    expect(byId['tx-chat-1']).toEqual({
      id: 'tx-chat-1',
      object: 'model',
      owned_by: 'service',
      capabilities: ['chat', 'responses'],
      context_length: 128000,
      request_points_per_million_tokens: '0.75',
      response_points_per_million_tokens: '2.5',
      points_configured: true,
    });
    expect(byId['tx-chat-2'].capabilities).toEqual(['chat']);
    expect(byId['tx-embed-1']).toMatchObject({ capabilities: ['embedding'], context_length: 8192 });
    for (const m of body.data.filter((x: { points_configured: boolean }) => x.points_configured)) {
      expect(m.request_points_per_million_tokens).toMatch(DECIMAL);
      expect(m.response_points_per_million_tokens).toMatch(DECIMAL);
    }
  });

  test('shows the unpriced model without an invented quote', async () => {
    const ref = await start();
    const { body } = await call(ref, '/v1/models', { role: 'primary' });
    const entry = body.data.find((m: { id: string }) => m.id === 'tx-chat-unpriced');
    expect(entry.points_configured).toBe(false);
    expect(entry).not.toHaveProperty('request_points_per_million_tokens');
    expect(entry).not.toHaveProperty('response_points_per_million_tokens');
  });

  test('lists the forbidden hint for the enterprise only', async () => {
    const ref = await start();
    const ids = async (role: string) =>
      (await call(ref, '/v1/models', { role })).body.data.map((m: { id: string }) => m.id);
    expect(await ids('primary')).not.toContain(ref.hints.forbidden);
    expect(await ids('enterprise')).toContain(ref.hints.forbidden);
  });

  test('answers an empty list to the no_models account', async () => {
    const ref = await start();
    expect((await call(ref, '/v1/models', { role: 'no_models' })).body).toEqual({ object: 'list', data: [] });
  });

  test('keeps hints in the catalog under long ids', async () => {
    const ref = await start({ variant: 'long-ids' });
    const ids = (await call(ref, '/v1/models', { role: 'enterprise' })).body.data.map(
      (m: { id: string }) => m.id,
    );
    for (const hint of Object.values(ref.hints)) expect(ids).toContain(hint);
  });
});

describe('GET /v1/balance', () => {
  test('answers points as decimal strings', async () => {
    const ref = await start();
    const { status, body } = await call(ref, '/v1/balance', { role: 'primary' });
    expect(status).toBe(200);
    expect(body).toEqual({
      object: 'balance',
      unit: 'service_points',
      total_points: '1000.50',
      held_points: '12.25',
      available_points: '988.25',
    });
  });

  test.for([
    { variant: undefined, role: 'enterprise' },
    { variant: undefined, role: 'poor' },
    { variant: 'fractional-prices', role: 'primary' },
  ])('keeps available = total - held ($role, $variant)', async ({ variant, role }) => {
    const ref = await start({ variant });
    const { body } = await call(ref, '/v1/balance', { role });
    for (const field of ['total_points', 'held_points', 'available_points'])
      expect(body[field]).toMatch(DECIMAL);
    expect(new Exact(body.total_points).minus(body.held_points).eq(body.available_points)).toBe(true);
  });

  test('is shared by the keys of one enterprise account', async () => {
    const ref = await start();
    const a = await call(ref, '/v1/balance', { role: 'enterprise' });
    const b = await call(ref, '/v1/balance', { role: 'restricted_balance' });
    expect(a.body).toEqual(b.body);
  });
});
