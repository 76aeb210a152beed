// The transport faults at the HTTP level: what reaches the wire (raw sockets) and what the suite's
// client (undici) makes of it; each fault touches one endpoint only, and nothing outlives the server.
import { connect } from 'node:net';
import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { FAULTS, type ReferenceHandle, startReference } from '../../reference/start.ts';
import { INVALID_JSON_BODY, TRANSPORT_PATHS } from '../../reference/transport.ts';
import { call, errorCode, fetchWithin, isApiError, referencePool } from './helpers.ts';

const start = referencePool();

interface Wire {
  /** Everything the server sent. */
  bytes: Buffer;
  /** How the exchange ended: the server's FIN, an error (code), or our deadline with the socket open. */
  ended: 'end' | 'deadline' | string;
  ms: number;
}

/** A raw HTTP/1.1 GET: the bytes the server writes until it closes, resets, or `ms` pass. */
function wire(ref: ReferenceHandle, path: string, role: string | undefined, ms: number): Promise<Wire> {
  const url = new URL(ref.url);
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname);
    let done = false;
    const finish = (ended: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks), ended, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish('deadline'), ms);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish('end'));
    socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.on('close', () => finish('end'));
    const auth = role ? `Authorization: Bearer ${ref.keys[role]}\r\n` : '';
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${auth}Accept: application/json\r\n\r\n`);
  });
}

/** Status, lower-cased headers and body bytes of a raw response. */
function parse(bytes: Buffer): { status: number; headers: Record<string, string>; body: Buffer } {
  const split = bytes.indexOf('\r\n\r\n');
  const head = bytes.subarray(0, split).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(head[0]?.split(' ')[1]), headers, body: bytes.subarray(split + 4) };
}

const TRANSPORT = Object.entries(TRANSPORT_PATHS) as [keyof typeof TRANSPORT_PATHS, string][];

describe('transport faults', () => {
  test('each is a listed fault on one read endpoint; the hang asks the matrix for a short timeout', () => {
    for (const [name] of TRANSPORT) expect(FAULTS.map((f) => f.name)).toContain(name);
    expect(new Set(Object.values(TRANSPORT_PATHS)).size).toBe(TRANSPORT.length);
    const hang = FAULTS.find((f) => f.name === 'transport-hang');
    expect(hang?.requestMs).toBeGreaterThan(0);
    expect(hang?.requestMs).toBeLessThanOrEqual(5000);
  });

  test('transport-hang: no byte is sent and the socket stays open; the client times out', async () => {
    const ref = await start({ fault: 'transport-hang' });
    const raw = await wire(ref, '/v1/balance', 'primary', 500);
    expect(raw.ended).toBe('deadline');
    expect(raw.bytes.length).toBe(0);
    // The client's own 300 ms deadline ended it (TIMEOUT), not an answer nor a closed socket.
    const error = await fetchWithin(ref, '/v1/balance', { role: 'primary', ms: 300 }).catch((e) => e);
    expect(errorCode(error)).toBe('TIMEOUT');
  });

  test('transport-hang: the server drops a hanging socket after its limit', async () => {
    const ref = await start({ fault: 'transport-hang', hangLimitMs: 300 });
    const raw = await wire(ref, '/v1/balance', 'primary', 5000);
    // The server ended it (not the reader's 5 s deadline), and not before its 300 ms limit.
    expect(raw.ended).not.toBe('deadline');
    expect(raw.bytes.length).toBe(0);
    expect(raw.ms).toBeGreaterThanOrEqual(250);
  });

  test('transport-hang: close() ends promptly with a hanging request in flight', async () => {
    const ref = await startReference({ fault: 'transport-hang' });
    const pending = request(`${ref.url}/v1/balance`, {
      headers: { authorization: `Bearer ${ref.keys.primary}` },
      signal: AbortSignal.timeout(10_000),
    }).then(
      () => 'answered',
      (e) => errorCode(e),
    );
    // The request has reached the hook once the server holds it for a while.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await ref.close();
    // The client learns that the connection is gone (a socket error), not from its own 10 s deadline
    // (that would be a timeout): close() did not wait for the hanging request.
    expect(await pending).toBe('UND_ERR_SOCKET');
  });

  test('transport-reset: the connection is reset without a byte of response', async () => {
    const ref = await start({ fault: 'transport-reset' });
    const raw = await wire(ref, '/v1/usage', 'primary', 2000);
    expect(raw.bytes.length).toBe(0);
    expect(raw.ended).toBe('ECONNRESET');
    const error = await fetchWithin(ref, '/v1/usage', { role: 'primary' }).catch((e) => e);
    expect(errorCode(error)).toBe('ECONNRESET');
  });

  test('transport-500: GET /v1/ledger answers 500 with an APIError body', async () => {
    const ref = await start({ fault: 'transport-500' });
    const res = await call(ref, '/v1/ledger', { role: 'primary' });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(isApiError(res.body)).toBe(true);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  test('transport-truncated: a Content-Length larger than the body, then the server closes', async () => {
    const ref = await start({ fault: 'transport-truncated' });
    const raw = await wire(ref, '/v1/models', 'primary', 2000);
    expect(raw.ended).toBe('end');
    const { status, headers, body } = parse(raw.bytes);
    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(headers['transfer-encoding']).toBeUndefined();
    const announced = Number(headers['content-length']);
    expect(body.length).toBeGreaterThan(0);
    expect(body.length).toBeLessThan(announced);
    // What was sent is the start of the real catalog.
    const plain = await call(await start(), '/v1/models', { role: 'primary' });
    expect(Buffer.byteLength(plain.text)).toBe(announced);
    expect(() => JSON.parse(body.toString('utf8'))).toThrow();
    const error = await fetchWithin(ref, '/v1/models', { role: 'primary' }).catch((e) => e);
    expect(errorCode(error)).toBe('UND_ERR_RES_CONTENT_LENGTH_MISMATCH');
  });

  test('transport-invalid-json: 200 application/json whose body is not JSON', async () => {
    const ref = await start({ fault: 'transport-invalid-json' });
    const res = await fetchWithin(ref, '/v1/support/tickets', { role: 'primary' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.text).toBe(INVALID_JSON_BODY);
    expect(() => JSON.parse(res.text)).toThrow();
    // Creating a ticket is untouched: only the list is broken.
    const created = await call(ref, '/v1/support/tickets', {
      method: 'POST',
      role: 'primary',
      json: { category: 'technical', subject: 'Probe', message: 'Probe; please ignore.' },
    });
    expect(created.status).toBe(201);
  });

  test.for(TRANSPORT)(
    '%s leaves every other endpoint, and a refused key on its own, answering normally',
    async ([fault, path]) => {
      const ref = await start({ fault });
      // Authentication comes first: a request without a key is refused as usual.
      const refused = await fetchWithin(ref, path, { ms: 2000 });
      expect(refused.status).toBe(401);
      for (const [, other] of TRANSPORT.filter(([name]) => name !== fault)) {
        const res = await fetchWithin(ref, other, { role: 'primary', ms: 2000 });
        expect(res.status, other).toBe(200);
        expect(() => JSON.parse(res.text), other).not.toThrow();
      }
    },
  );
});
