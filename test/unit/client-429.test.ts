import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpClient, NO_RETRY_AFTER_WAIT_MS, repeatAfter429, safeToRepeat } from '../../src/http/client.ts';
import { Redactor } from '../../src/http/redact.ts';
import { RequestGate } from '../../src/runtime/gate.ts';

/**
 * A target that answers the first request of each path 429 with Retry-After: 0 (/wait*: 1; /bare-limit*:
 * none; /bad-limit*: -5), then 200.
 */
let server: Server;
let baseUrl = '';
const seen = new Map<string, number>();
beforeAll(async () => {
  server = createServer((req, res) => {
    const n = (seen.get(req.url ?? '') ?? 0) + 1;
    seen.set(req.url ?? '', n);
    req.resume();
    req.on('end', () => {
      if (n === 1) {
        const wait = req.url?.startsWith('/wait') ? '1' : req.url?.startsWith('/bad-limit') ? '-5' : '0';
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (!req.url?.startsWith('/bare-limit')) headers['retry-after'] = wait;
        res.writeHead(429, headers);
        res.end('{"error":{"code":"rate_limited","message":"slow down"}}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const client = () => new HttpClient({ baseUrl, timeoutMs: 5_000, redactor: new Redactor({}) });

describe('HttpClient and 429 + Retry-After ("wait for the limit window")', () => {
  it('sends nothing after the run deadline: a Retry-After wait it cuts is followed by no attempt', async () => {
    // /wait-deadline answers 429 with Retry-After: 1; the deadline comes first, and no stop signal is
    // given (the run's own stop may come late on a loaded machine): the clock alone refuses the repeat.
    const c = new HttpClient({
      baseUrl,
      timeoutMs: 5_000,
      redactor: new Redactor({}),
      deadlineAt: Date.now() + 300,
    });
    const res = await c.send({ method: 'GET', path: '/wait-deadline' });
    expect(res.status).toBe(429);
    expect(seen.get('/wait-deadline')).toBe(1);
  });

  it('a wait the deadline cut is followed by no attempt, whatever the wall clock reads when it ends', async () => {
    // The wait is a timer (monotonic clock), the deadline a wall-clock time: here the wall clock runs at
    // half speed, so when the wait ends it still reads before the deadline.
    const real = Date.now.bind(Date);
    const t0 = real();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => t0 + (real() - t0) / 2);
    try {
      const c = new HttpClient({
        baseUrl,
        timeoutMs: 5_000,
        redactor: new Redactor({}),
        deadlineAt: t0 + 300,
      });
      const res = await c.send({ method: 'GET', path: '/wait-slow-clock' });
      expect(res.status).toBe(429);
      expect(seen.get('/wait-slow-clock')).toBe(1);
    } finally {
      clock.mockRestore();
    }
  });

  it('waits out a 429 and repeats a GET', async () => {
    const res = await client().send({ method: 'GET', path: '/get' });
    expect(res.status).toBe(200);
    expect(seen.get('/get')).toBe(2);
  });

  it('repeats a GET answered 429 without a valid Retry-After after a short pause (a needed read is not lost)', async () => {
    for (const path of ['/bare-limit', '/bad-limit']) {
      const started = Date.now();
      const res = await client().send({ method: 'GET', path });
      expect(res.status).toBe(200);
      expect(seen.get(path)).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    }
  });

  it('does not repeat a keyed POST answered 429 without a Retry-After (a quota is no time window)', async () => {
    const res = await client().send({
      method: 'POST',
      path: '/bare-limit-upload',
      headers: { 'idempotency-key': 'k-bare' },
      body: 'x',
    });
    expect(res.status).toBe(429);
    expect(seen.get('/bare-limit-upload')).toBe(1);
  });

  it("holds the request gate's slot for each round trip, not while it waits out the 429", async () => {
    const gate = new RequestGate({ start: 1 });
    const c = new HttpClient({ baseUrl, timeoutMs: 5_000, redactor: new Redactor({}), gate });
    const done: string[] = [];
    const waiting = c.send({ method: 'GET', path: '/wait-gated' }).then(() => done.push('waiting'));
    await new Promise((r) => setTimeout(r, 200));
    await c.send({ method: 'GET', path: '/other-gated' }).then(() => done.push('other'));
    await waiting;
    // One slot: the other request went through while the first one waited out its Retry-After: 1.
    expect(done).toEqual(['other', 'waiting']);
    expect(seen.get('/wait-gated')).toBe(2);
    expect(gate.active).toBe(0);
    expect(gate.peak).toBe(1);
  });

  it('waits out a 429 and repeats a POST carrying an Idempotency-Key (the same key cannot create twice)', async () => {
    const res = await client().send({
      method: 'POST',
      path: '/keyed',
      json: { a: 1 },
      headers: { 'Idempotency-Key': 'k-1' },
    });
    expect(res.status).toBe(200);
    expect(seen.get('/keyed')).toBe(2);
  });

  it('never repeats a POST without a key, nor a request that asks not to be repeated', async () => {
    expect((await client().send({ method: 'POST', path: '/bare', json: {} })).status).toBe(429);
    expect(seen.get('/bare')).toBe(1);
    const res = await client().send({
      method: 'GET',
      path: '/probe',
      retry429: false,
    });
    expect(res.status).toBe(429);
    expect(seen.get('/probe')).toBe(1);
  });

  it('repeatAfter429: what is safe to repeat, and after how long', () => {
    const keyed = { method: 'POST', headers: { 'Idempotency-Key': 'k' } };
    // A stated window, for every request safe to repeat.
    expect(repeatAfter429({ method: 'GET' }, '2', 0)).toBe(2_000);
    expect(repeatAfter429(keyed, '3', 0)).toBe(3_000);
    // No valid Retry-After: a read after a growing pause, a keyed POST not at all.
    expect(repeatAfter429({ method: 'GET' }, undefined, 0)).toBe(NO_RETRY_AFTER_WAIT_MS);
    expect(repeatAfter429({ method: 'head' }, '-1', 2)).toBe(4 * NO_RETRY_AFTER_WAIT_MS);
    expect(repeatAfter429(keyed, undefined, 0)).toBeUndefined();
    expect(repeatAfter429({ method: 'DELETE' }, 'soon', 0)).toBeUndefined();
    // Never what is not safe to repeat, nor what asks not to be.
    expect(repeatAfter429({ method: 'POST' }, '1', 0)).toBeUndefined();
    expect(repeatAfter429({ method: 'GET', retry429: false }, '1', 0)).toBeUndefined();
  });

  it('safeToRepeat: idempotent methods and keyed POSTs only', () => {
    expect(safeToRepeat({ method: 'get' })).toBe(true);
    expect(safeToRepeat({ method: 'DELETE' })).toBe(true);
    expect(safeToRepeat({ method: 'POST' })).toBe(false);
    expect(safeToRepeat({ method: 'POST', headers: { 'idempotency-key': '' } })).toBe(false);
    expect(safeToRepeat({ method: 'POST', headers: { 'IDEMPOTENCY-KEY': 'x' } })).toBe(true);
  });
});
