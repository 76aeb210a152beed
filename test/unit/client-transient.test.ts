/**
 * A connection that fails before any byte of a response says nothing about the contract until it fails
 * again on a fresh connection (judging.md, GEN-001): the retry decision, and the client's repeat.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors.ts';
import { type Exchange, HttpClient, transientRetry } from '../../src/http/client.ts';
import { Redactor } from '../../src/http/redact.ts';

describe('transientRetry: which failures are repeated once on a fresh connection', () => {
  const get = { method: 'GET' };
  const keyed = { method: 'POST', headers: { 'Idempotency-Key': 'k-1' } };
  const bare = { method: 'POST', headers: { 'content-type': 'application/json' } };
  const early = (code: string) => ({ code, beforeResponse: true });

  it('repeats a connection failure before any response byte of a request safe to repeat', () => {
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'ECONNREFUSED', 'EPIPE']) {
      expect(transientRetry(get, early(code), false), code).toBe('retry');
      expect(transientRetry(keyed, early(code), false), code).toBe('retry');
      for (const method of ['HEAD', 'OPTIONS', 'PUT', 'DELETE'])
        expect(transientRetry({ method }, early(code), false), `${method} ${code}`).toBe('retry');
    }
  });

  it('leaves a request that is not safe to repeat inconclusive, never failed', () => {
    expect(transientRetry(bare, early('UND_ERR_SOCKET'), false)).toBe('inconclusive');
    expect(transientRetry({ method: 'PATCH' }, early('ECONNRESET'), false)).toBe('inconclusive');
    expect(
      transientRetry({ method: 'POST', headers: { 'idempotency-key': '' } }, early('EPIPE'), false),
    ).toBe('inconclusive');
  });

  it('fails what repeated on the retry, what came after a response began, and what is no connection failure', () => {
    expect(transientRetry(get, early('UND_ERR_SOCKET'), true)).toBe('failure');
    expect(transientRetry(bare, early('ECONNRESET'), true)).toBe('failure');
    expect(transientRetry(get, { code: 'UND_ERR_SOCKET', beforeResponse: false }, false)).toBe('failure');
    for (const code of [
      'TIMEOUT',
      'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
      'BODY_TOO_LARGE',
      'UND_ERR_CONNECT_TIMEOUT',
    ])
      expect(transientRetry(get, early(code), false), code).toBe('failure');
  });
});

/**
 * /flaky: the second request on any connection has its socket closed without a byte (a load balancer's
 * idle close meeting the client's reuse); /dead: every request's socket is closed; /half: the head and
 * a part of the body are sent, then the socket is closed. Each socket's requests are counted.
 */
let server: Server;
let baseUrl = '';
const sockets = new Map<Socket, number>();
const hits = new Map<string, number>();
const fresh = { count: 0 };
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const n = (sockets.get(req.socket) ?? 0) + 1;
    sockets.set(req.socket, n);
    if (n === 1) fresh.count++;
    req.resume();
    req.on('end', () => {
      if (path === '/dead' || (path === '/flaky' && n === 2)) return void req.socket.destroy();
      if (path === '/half') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"ok":');
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function client(more: { pooledUnrepeatable?: boolean } = {}) {
  const exchanges: Exchange[] = [];
  const c = new HttpClient({
    baseUrl,
    timeoutMs: 5_000,
    redactor: new Redactor({}),
    onExchange: (ex) => void exchanges.push(ex),
    ...more,
  });
  return { c, exchanges };
}

describe('HttpClient: a connection closed before any byte of a response', () => {
  it('repeats a GET once on a fresh connection and records both attempts', async () => {
    const { c, exchanges } = client();
    // One connection served /ok; its reuse by /flaky is closed; the repeat opens another.
    await c.send({ method: 'GET', path: '/ok' });
    // undici frees the connection for the next request once the response is complete (a tick later).
    await new Promise((r) => setImmediate(r));
    const res = await c.send({ method: 'GET', path: '/flaky' });
    expect(res.status).toBe(200);
    const [, lost, repeat] = exchanges;
    expect(lost?.error?.code).toBe('UND_ERR_SOCKET');
    expect(repeat?.retryOf).toEqual({ exchangeId: lost?.id, code: 'UND_ERR_SOCKET' });
    // The lost attempt is marked repeated (no answer yet: the dead-target streak waits for its repeat).
    expect([lost?.repeated, repeat?.repeated]).toEqual([true, undefined]);
    expect(exchanges).toHaveLength(3);
  });

  it('fails a request whose repeat fails again (GEN-001), saying so', async () => {
    const { c, exchanges } = client();
    const err = await c.send({ method: 'GET', path: '/dead' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).inconclusive).toBeUndefined();
    expect((err as TransportError).message).toMatch(/again on a fresh connection/);
    expect(exchanges.map((e) => e.repeated)).toEqual([true, undefined]);
  });

  it('never repeats a request that is not safe to repeat: inconclusive, sent on a connection of its own', async () => {
    const { c, exchanges } = client();
    const before = hits.get('/dead') ?? 0;
    const opened = fresh.count;
    const err = await c
      .send({ method: 'POST', path: '/dead', json: { a: 1 } })
      .catch((e: unknown) => e as TransportError);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).inconclusive).toMatch(/not safe to repeat/);
    expect(hits.get('/dead')).toBe(before + 1);
    expect(exchanges).toHaveLength(1);
    // A POST without an Idempotency-Key never reuses an idle connection: each opens its own.
    await c.send({ method: 'POST', path: '/ok', json: {} });
    await c.send({ method: 'POST', path: '/ok', json: {} });
    expect(fresh.count - opened).toBe(3);
  });

  it('on a target whose idle connections are never closed under a request (the embedded one), those go kept-alive', async () => {
    const { c } = client({ pooledUnrepeatable: true });
    // A connection opened and kept by a first request...
    await c.send({ method: 'POST', path: '/ok', json: {} });
    await new Promise((r) => setImmediate(r));
    const opened = fresh.count;
    // ...carries the next unrepeatable ones: none opens its own.
    for (let i = 0; i < 3; i++) {
      await c.send({ method: 'POST', path: '/ok', json: { i } });
      await new Promise((r) => setImmediate(r));
    }
    expect(fresh.count - opened).toBe(0);
    // Still never repeated: a cut one is inconclusive as before.
    const err = await c
      .send({ method: 'POST', path: '/dead', json: { a: 1 } })
      .catch((e: unknown) => e as TransportError);
    expect((err as TransportError).inconclusive).toMatch(/not safe to repeat/);
  });

  it('does not repeat a request whose response had begun', async () => {
    const { c, exchanges } = client();
    const err = await c.send({ method: 'GET', path: '/half' }).catch((e: unknown) => e as TransportError);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).beforeResponse).toBe(false);
    expect((err as TransportError).inconclusive).toBeUndefined();
    expect(hits.get('/half')).toBe(1);
    expect(exchanges).toHaveLength(1);
  });
});
