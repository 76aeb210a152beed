/**
 * A partial target for acceptance tests of the console: a loopback proxy in front of a fresh reference
 * server that behaves like a thin OpenAI-compatible mock with about five root causes, each pervasive:
 * - no auth: a request without a known key (or with a broken one) acts as the primary account;
 * - not implemented: usage, ledger, responses, embeddings, media, support and payments answer the web
 *   framework's 404 to everything (`{"message":"Route GET:/v1/usage not found",...}`);
 * - model entries lack `owned_by`, `context_length` and `points_configured`;
 * - chat replies lack `usage`, `created` and `billing`;
 * - no request validation: a chat request the reference refuses (400/422) is answered 200 with a reply.
 * Its /openapi.json is the reference's own (valid). Loopback only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReference } from '../../reference/start.ts';
import { POINTS_FIELDS } from '../../src/checks/points.ts';
import type { TargetFacts } from '../../tools/ref-target.ts';

export interface PartialServer extends TargetFacts {
  close(): Promise<void>;
}

/** Path prefixes the partial server does not implement (the framework's 404). */
const NOT_IMPLEMENTED = [
  '/v1/usage',
  '/v1/ledger',
  '/v1/responses',
  '/v1/embeddings',
  '/v1/media',
  '/v1/support',
  '/v1/payment-methods',
  '/v1/payment-orders',
];

const MODEL_FIELDS_MISSING = ['owned_by', 'context_length', 'points_configured'];
const CHAT_FIELDS_MISSING = ['usage', 'created', 'billing'];

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A JSON value without the fields of the points table, at any depth. */
function withoutPoints(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutPoints);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !(POINTS_FIELDS as readonly string[]).includes(k))
      .map(([k, x]) => [k, withoutPoints(x)]),
  );
}

function omit(o: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !fields.includes(k)));
}

/**
 * `anyKey`: no authentication at all (a revoked or unknown key acts as the primary account too, so no
 * 401 is ever answered); `noPoints`: every field of the points table is dropped from JSON replies and stream events.
 */
export async function startPartial(
  o: { delayMs?: number; anyKey?: boolean; noPoints?: boolean } = {},
): Promise<PartialServer> {
  const ref = await startReference({ port: 0, mediaStepMs: 20 });
  const known = new Set(Object.values(ref.keys));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    if (o.delayMs && path !== '/openapi.json') await new Promise((r) => setTimeout(r, o.delayMs));
    if (NOT_IMPLEMENTED.some((p) => path === p || path.startsWith(`${p}/`))) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(
        JSON.stringify({ message: `Route ${method}:${path} not found`, error: 'Not Found', statusCode: 404 }),
      );
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    // No auth: whatever is presented, the primary account answers.
    if (o.anyKey || !known.has((headers.authorization ?? '').replace(/^Bearer /, '')))
      headers.authorization = `Bearer ${ref.keys.primary}`;
    const isChat = method === 'POST' && path === '/v1/chat/completions';
    let upstream = await fetch(`${ref.url}${url}`, {
      method,
      headers,
      ...(body.length > 0 ? { body } : {}),
      redirect: 'manual',
    });
    // No request validation: a refused chat request gets a reply all the same.
    if (isChat && (upstream.status === 400 || upstream.status === 422)) {
      upstream = await fetch(`${ref.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ref.keys.primary}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: ref.hints.chat, messages: [{ role: 'user', content: 'hi' }] }),
      });
    }
    let out = Buffer.from(await upstream.arrayBuffer());
    const outHeaders: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))
        outHeaders[k] = v;
    });
    if (/json/.test(outHeaders['content-type'] ?? '') && upstream.status < 300) {
      const j = JSON.parse(out.toString('utf8')) as Record<string, unknown>;
      if (method === 'GET' && path === '/v1/models' && Array.isArray(j.data))
        j.data = (j.data as Array<Record<string, unknown>>).map((e) => omit(e, MODEL_FIELDS_MISSING));
      const edited =
        method === 'GET' && path.startsWith('/v1/models/')
          ? omit(j, MODEL_FIELDS_MISSING)
          : isChat
            ? omit(j, CHAT_FIELDS_MISSING)
            : j;
      out = Buffer.from(JSON.stringify(o.noPoints ? withoutPoints(edited) : edited));
    } else if (o.noPoints && /event-stream/.test(outHeaders['content-type'] ?? '')) {
      // A stream's events carry JSON data too (a chat chunk's billing): the points fields dropped there.
      out = Buffer.from(
        out
          .toString('utf8')
          .replace(
            /^data: ?(\{.*\})$/gm,
            (_, d: string) => `data: ${JSON.stringify(withoutPoints(JSON.parse(d)))}`,
          ),
      );
    }
    res.writeHead(upstream.status, outHeaders);
    res.end(out);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`partial server: ${err.message}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    keys: ref.keys,
    hints: ref.hints,
    capabilities: [],
    canaries: ref.canaries,
    limits: ref.limits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await ref.close();
    },
  };
}
