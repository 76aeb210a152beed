// Transport faults (transport.ts). Each fault hits one read endpoint. A request that gets no complete
// response is reported under GEN-001 (the suite's client turns a timeout, reset or short body into a
// TransportError, the test into a GEN-001 failure), whatever the test checks; `breaks` also names the
// endpoint's own id so that the filtered run selects the tests requesting it (GEN-001 alone selects only
// the response-conformance test).
import { type Fault, req, type Variant } from './probe.ts';

/**
 * Variant keepalive-close-on-reuse: every how many requests on a reused connection one is dropped. Owned
 * by the variant's entry (its probe counts to it) and read by the server (reference/transport.ts): the
 * fault table stays a leaf the server imports, never the other way (the import circle through
 * transport.ts, context.ts and state.ts back to faults.ts).
 */
export const REUSE_CLOSE_EVERY = 4;

export const TRANSPORT_FAULTS = [
  // transport.ts: GET /v1/balance holds the socket without answering (dropped by the server after 120 s)
  {
    name: 'transport-hang',
    description: 'GET /v1/balance never answers: no status line, the connection stays open (120 s)',
    breaks: ['GEN-001', 'BAL-001'],
    requestMs: 2000,
    probe: {
      run: async ({ ref, fetchWithin, errorCode }) =>
        fetchWithin(ref, '/v1/balance', { role: 'primary', ms: 300 }).then(
          () => false,
          (e) => errorCode(e) === 'TIMEOUT',
        ),
    },
  },
  // transport.ts: GET /v1/usage resets the connection
  {
    name: 'transport-reset',
    description: 'GET /v1/usage resets the connection (TCP RST) without a response',
    breaks: ['GEN-001', 'USAGE-001'],
    probe: {
      run: async ({ ref, fetchWithin, errorCode }) =>
        fetchWithin(ref, '/v1/usage', { role: 'primary' }).then(
          () => false,
          (e) => errorCode(e) === 'ECONNRESET',
        ),
    },
  },
  // transport.ts: GET /v1/ledger answers 500 (not described)
  {
    name: 'transport-500',
    description: 'GET /v1/ledger answers 500 with an APIError body',
    breaks: ['ERR-002', 'LEDGER-001', 'RESP-001'],
    probe: { request: req.call('/v1/ledger', { role: 'primary' }), holds: (r) => r.status === 500 },
  },
  // transport.ts: GET /v1/models announces its whole length, sends half the body, then closes
  {
    name: 'transport-truncated',
    description: 'GET /v1/models sends half its body under a Content-Length of the whole, then closes',
    breaks: ['GEN-001', 'MODELS-001'],
    probe: {
      run: async ({ ref, fetchWithin, errorCode }) =>
        fetchWithin(ref, '/v1/models', { role: 'primary' }).then(
          () => false,
          (e) => errorCode(e) === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
        ),
    },
  },
  // transport.ts: GET /v1/support/tickets answers 200 application/json with `{"data": [`
  {
    name: 'transport-invalid-json',
    description: 'GET /v1/support/tickets answers 200 application/json with a body that is not JSON',
    breaks: ['RESP-003', 'TICKET-002'],
    probe: {
      run: async ({ ref, call }) => {
        const res = await call(ref, '/v1/support/tickets', { role: 'primary' });
        const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
        return res.status === 200 && json && res.body === undefined;
      },
    },
  },
] as const satisfies readonly Fault[];

export const TRANSPORT_VARIANTS = [
  // transport.ts: a load balancer that drops an idle kept-alive connection just as the client reuses it
  {
    name: 'keepalive-close-on-reuse',
    readings: ['GEN-001'],
    description:
      'every 4th request that arrives on a reused kept-alive connection is read, then its socket is closed without a byte of reply',
    // One kept-alive connection reused REUSE_CLOSE_EVERY times: the last reuse is closed without a reply.
    probe: {
      run: async ({ ref, errorCode }) => {
        // Loaded here, not with the reference: every embedded run would pay for undici's whole index.
        const { Client } = await import('undici');
        const client = new Client(ref.url, { keepAliveTimeout: 10_000 });
        try {
          for (let i = 0; i <= REUSE_CLOSE_EVERY; i++) {
            const res = await client
              .request({ path: '/healthz', method: 'GET', headersTimeout: 2_000, bodyTimeout: 2_000 })
              .catch((e: unknown) => e as Error);
            if (res instanceof Error) return errorCode(res) === 'UND_ERR_SOCKET';
            await res.body.dump();
          }
          return false;
        } finally {
          await client.destroy();
        }
      },
    },
  },
] as const satisfies readonly Variant[];
