import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { FAULTS, type ReferenceHandle, type ReferenceOptions, VARIANTS } from '../../reference/start.ts';
import { call, describedProblems, type Exchange, isApiError, referencePool } from './helpers.ts';

const start = referencePool();
const validator = new Validator();

afterEach(() => {
  vi.restoreAllMocks();
});

const balance = (ref: ReferenceHandle, role = 'ratelimited') => call(ref, '/v1/balance', { role });
/** `n` requests of the rate-limited key, in order. */
async function burst(ref: ReferenceHandle, n: number, path = '/v1/balance'): Promise<Exchange[]> {
  const out: Exchange[] = [];
  for (let i = 0; i < n; i++) out.push(await call(ref, path, { role: 'ratelimited' }));
  return out;
}

describe('the requests-per-minute guard', () => {
  test('answers the 6th request in a minute with 429 rate_limited and Retry-After', async () => {
    const ref = await start();
    const answers = await burst(ref, 6);
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const limited = answers[5] as Exchange;
    expect(limited.status).toBe(429);
    expect(isApiError(limited.body)).toBe(true);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  test('counts every path of the account, refused ones not', async () => {
    const ref = await start();
    const answers = [
      await call(ref, '/v1/models', { role: 'ratelimited' }),
      await call(ref, '/v1/support/tickets', { role: 'ratelimited' }),
      await call(ref, '/v1/nowhere', { role: 'ratelimited' }),
      ...(await burst(ref, 4)),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 200, 200, 429, 429]);
  });

  test('accepts requests again once the oldest leaves the 60-second window', async () => {
    const ref = await start();
    const t0 = Date.now();
    const now = vi.spyOn(Date, 'now').mockReturnValue(t0);
    await burst(ref, 5);
    now.mockReturnValue(t0 + 30_000);
    const limited = (await burst(ref, 1))[0] as Exchange;
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    now.mockReturnValue(t0 + 60_001);
    expect((await burst(ref, 5)).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await burst(ref, 1))[0]?.status).toBe(429);
  });

  test('does not limit other keys', async () => {
    const ref = await start();
    for (let i = 0; i < 30; i++) expect((await balance(ref, 'primary')).status).toBe(200);
  });

  test('does not count requests without a valid key', async () => {
    const ref = await start();
    for (let i = 0; i < 10; i++) expect((await call(ref, '/v1/balance')).status).toBe(401);
    expect((await burst(ref, 5)).every((a) => a.status === 200)).toBe(true);
  });
});

/** One cheap chat call of `role` (about 10 prompt and 16 completion tokens). */
const chatAs = (ref: ReferenceHandle, role: string) =>
  call(ref, '/v1/chat/completions', {
    method: 'POST',
    role,
    json: { model: ref.hints.chat, messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 16 },
  });

describe('the tokens-per-minute, spend and concurrency guards', () => {
  test('tokens_limited: calls are refused 429 with Retry-After once a minute holds 100 tokens', async () => {
    const ref = await start();
    const statuses: number[] = [];
    let limited: Exchange | undefined;
    for (let i = 0; i < 8 && !limited; i++) {
      const a = await chatAs(ref, 'tokens_limited');
      statuses.push(a.status);
      if (a.status === 429) limited = a;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(limited?.body.error.code).toBe('rate_limited');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Other accounts have no such guard.
    for (let i = 0; i < 8; i++) expect((await chatAs(ref, 'primary')).status).toBe(200);
  });

  test('spend_limited: calls are refused 429 spend_limit_reached once the guard is reached', async () => {
    const ref = await start();
    const statuses: number[] = [];
    for (let i = 0; i < 12 && statuses.at(-1) !== 429; i++)
      statuses.push((await chatAs(ref, 'spend_limited')).status);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.at(-1)).toBe(429);
    const refused = await chatAs(ref, 'spend_limited');
    expect(isApiError(refused.body)).toBe(true);
    expect(refused.body.error.code).toBe('spend_limit_reached');
  });

  test('concurrency_limited: of 6 calls at once, 2 are answered and the others refused 429', async () => {
    const ref = await start();
    const answers = await Promise.all(Array.from({ length: 6 }, () => chatAs(ref, 'concurrency_limited')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(4);
    // Once they end, calls are accepted again.
    expect((await chatAs(ref, 'concurrency_limited')).status).toBe(200);
  });
});

describe('protection faults and variants', () => {
  test('ratelimit-missing never limits the key', async () => {
    const ref = await start({ fault: 'ratelimit-missing' });
    expect((await burst(ref, 20)).every((a) => a.status === 200)).toBe(true);
  });

  test('ratelimit-plain answers text/plain "slow down"', async () => {
    const ref = await start({ fault: 'ratelimit-plain' });
    const limited = (await burst(ref, 6))[5] as Exchange;
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(limited.text).toBe('slow down');
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });

  test('ratelimit-no-retry-after answers the APIError without Retry-After', async () => {
    const ref = await start({ variant: 'ratelimit-no-retry-after' });
    const limited = (await burst(ref, 6))[5] as Exchange;
    expect(limited.status).toBe(429);
    expect(isApiError(limited.body)).toBe(true);
    expect(limited.headers.get('retry-after')).toBeNull();
  });
});

describe('scope faults', () => {
  test('scope-ignored: a models-only key reads the balance and the usage', async () => {
    const faulty = await start({ fault: 'scope-ignored' });
    const plain = await start();
    for (const path of ['/v1/balance', '/v1/usage']) {
      expect((await call(faulty, path, { role: 'restricted_models' })).status, path).toBe(200);
      expect((await call(plain, path, { role: 'restricted_models' })).status, path).toBe(403);
    }
    expect((await call(faulty, '/v1/media/models', { role: 'restricted_models' })).status).toBe(403);
  });

  test('scope-too-strict: a balance-only key is refused the balance', async () => {
    const faulty = await start({ fault: 'scope-too-strict' });
    const plain = await start();
    expect((await balance(faulty, 'restricted_balance')).status).toBe(403);
    expect((await balance(plain, 'restricted_balance')).status).toBe(200);
    expect((await balance(faulty, 'enterprise')).status).toBe(200);
  });
});

describe('enterprise accounts', () => {
  test('every key of the enterprise reads one balance', async () => {
    const ref = await start();
    const first = (await balance(ref, 'enterprise')).body;
    expect((await balance(ref, 'enterprise_second')).body).toEqual(first);
    expect((await balance(ref, 'restricted_balance')).body).toEqual(first);
  });

  test('enterprise-balance-split: enterprise_second reads its own balance', async () => {
    const ref = await start({ fault: 'enterprise-balance-split' });
    const first = (await balance(ref, 'enterprise')).body;
    const second = (await balance(ref, 'enterprise_second')).body;
    expect(first.total_points).toBe('250000.00');
    expect(second.total_points).toBe('5000');
    expect((await balance(ref, 'restricted_balance')).body).toEqual(first);
  });
});

describe('internal routing data', () => {
  const CANARIES = ['sk-upstream-', 'node-internal-'];

  /** Everything a client can see of a few answers: status line, headers and body text. */
  async function visible(ref: ReferenceHandle): Promise<string> {
    const exchanges = [
      await call(ref, '/healthz'),
      await call(ref, '/status'),
      await call(ref, '/openapi.json'),
      await call(ref, '/v1/models', { role: 'primary' }),
      await call(ref, '/v1/models', { role: 'enterprise' }),
      await call(ref, '/v1/balance', { role: 'primary' }),
      await call(ref, '/v1/models'),
      await call(ref, '/v1/nowhere', { role: 'primary' }),
      await call(ref, '/v1/embeddings', { method: 'POST', role: 'primary', json: { model: 'tx-embed-1' } }),
    ];
    return exchanges.map((e) => `${e.status}\n${JSON.stringify([...e.headers])}\n${e.text}`).join('\n');
  }

  test('publishes the canaries through the handle', async () => {
    expect((await start()).canaries).toEqual(CANARIES);
  });

  test('never leaves the conformant server', async () => {
    const text = await visible(await start());
    for (const canary of CANARIES) expect(text).not.toContain(canary);
    for (const word of ['purchase_cost', 'upstream_endpoint', '10.2.3.', 'x-upstream']) {
      expect(text.toLowerCase()).not.toContain(word);
    }
  });

  test('upstream-key-header: authenticated answers carry the model’s upstream key', async () => {
    const ref = await start({ fault: 'upstream-key-header' });
    const models = await call(ref, '/v1/models', { role: 'primary' });
    const chatKey = models.headers.get('x-upstream-key');
    expect(chatKey).toMatch(/^sk-upstream-[0-9a-f]{32}$/);
    const embed = await call(ref, '/v1/embeddings', {
      method: 'POST',
      role: 'primary',
      json: { model: 'tx-embed-1', extra: true },
    });
    expect(embed.headers.get('x-upstream-key')).toMatch(/^sk-upstream-/);
    expect(embed.headers.get('x-upstream-key')).not.toBe(chatKey);
    expect((await call(ref, '/v1/models')).headers.get('x-upstream-key')).toBeNull();
    expect((await call(ref, '/healthz')).headers.get('x-upstream-key')).toBeNull();
  });

  test('node-header: every answer names its internal node', async () => {
    const ref = await start({ fault: 'node-header' });
    for (const exchange of [
      await call(ref, '/healthz'),
      await call(ref, '/v1/models', { role: 'primary' }),
    ]) {
      expect(exchange.headers.get('x-upstream-node')).toBe('node-internal-7');
    }
  });

  test.for([
    { fault: 'purchase-cost-field', field: 'purchase_cost', value: '0.0021' },
    { fault: 'routing-field-host', field: 'upstream_endpoint', value: '10.2.3.4:8443' },
  ])('$fault: each /v1/models entry carries $field', async ({ fault, field, value }) => {
    const ref = await start({ fault });
    for (const role of ['primary', 'enterprise']) {
      const { body } = await call(ref, '/v1/models', { role });
      for (const entry of body.data) expect(entry[field], `${role} ${entry.id}`).toEqual(expect.any(String));
      expect(body.data.find((m: { id: string }) => m.id === 'tx-chat-1')[field]).toBe(value);
    }
    const models = await start({ fault, variant: 'models-envelope' });
    const { body } = await call(models, '/v1/models', { role: 'primary' });
    expect(body.models.every((m: Record<string, unknown>) => typeof m[field] === 'string')).toBe(true);
  });
});

const MINE = [
  'ratelimit-missing',
  'ratelimit-plain',
  'ratelimit-no-retry-after',
  'retry-after-unit',
  'scope-ignored',
  'scope-too-strict',
  'support-scope-ignored',
  'enterprise-balance-split',
  'upstream-key-header',
  'node-header',
  'purchase-cost-field',
  'routing-field-host',
];
const SETUPS: { name: string; opts: ReferenceOptions }[] = [
  { name: 'plain', opts: {} },
  ...FAULTS.filter((f) => MINE.includes(f.name)).map((f) => ({
    name: `fault ${f.name}`,
    opts: { fault: f.name },
  })),
  ...VARIANTS.filter((v) => MINE.includes(v.name)).map((v) => ({
    name: `variant ${v.name}`,
    opts: { variant: v.name },
  })),
];

describe('the description', () => {
  test('lists every protection toggle here', () => {
    expect(SETUPS).toHaveLength(MINE.length + 1);
  });

  test.for(SETUPS)('is valid and describes every answer: $name', async ({ opts }) => {
    const ref = await start(opts);
    const doc = (await call(ref, '/openapi.json')).body;
    const result = await validator.validate(doc);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const exchanges: [string, Exchange][] = [
      ['/v1/models', await call(ref, '/v1/models', { role: 'primary' })],
      ['/v1/models', await call(ref, '/v1/models', { role: 'restricted_usage' })],
      ['/v1/balance', await balance(ref, 'restricted_models')],
      ['/v1/balance', await balance(ref, 'restricted_balance')],
      ['/v1/balance', await balance(ref, 'enterprise_second')],
      ...(await burst(ref, 7)).map((e): [string, Exchange] => ['/v1/balance', e]),
    ];
    const problems = exchanges.flatMap(([path, exchange]) =>
      describedProblems(doc, 'GET', path, exchange).map((p) => `GET ${path} ${exchange.status}: ${p}`),
    );
    expect(problems).toEqual([]);
    const tooMany = doc.paths['/v1/balance'].get.responses['429'];
    expect(tooMany.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/APIError' });
    expect(tooMany.headers['Retry-After'] === undefined).toBe(opts.variant === 'ratelimit-no-retry-after');
  });
});
