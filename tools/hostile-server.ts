/**
 * A hostile target for acceptance tests: a loopback proxy in front of a fresh reference server that
 * turns it into one hostile case per mode. Keys are its own (36 characters with `+`, `/`, `=`, one per
 * role), mapped to the reference's keys on the way in; what comes back is made hostile on the way out.
 * Loopback only; every loop is bounded; hanging requests are released by close().
 *
 * Modes:
 * - echo: every reply reflects the Authorization header, query string and cookies (headers and body;
 *   a 401's message says "Incorrect API key provided: <what was presented>").
 * - regex: the description gives the catalog a field with pattern ^(a+)+$; replies carry a value that
 *   makes a backtracking engine run for ever.
 * - biglist: GET /v1/models answers a valid list of `items` entries.
 * - enums: the description gives the catalog a field with `enumBytes` of enum values; replies miss it.
 * - deep: the description holds an `x-deep` extension nested `depth` levels.
 * - allof-cycle, ref-cycle: the catalog's schema is a cycle through allOf / plain $ref.
 * - bad-regex: a pattern that is not a regular expression.
 * - hang: every request but GET /openapi.json, /v1/models and /v1/balance (what the preflight reads) is
 *   accepted and never answered.
 * - hang-all: every request, the description included, is accepted and never answered.
 * - reset: every request but what the preflight reads (as for hang) is read, then its connection reset
 *   (TCP RST) without a byte of reply: a target that refuses everything, on every connection.
 * - slow: every request but the description is answered `delayMs` late (default 2 s): a run takes long.
 * - bypass: an auth bypass: a request without a valid key acts as the primary account.
 * - ids: every input, job and asset id the reference hands out is replaced by `id` (with a counter
 *   appended unless it is `.`, `..` or empty); requests naming such an id are mapped back.
 * - inject: what the target controls carries CI workflow commands, escape sequences and `]]>`: every
 *   error's message and code, a media model id in the catalog, every job status read.
 * - drip: a reply that drips two bytes a second and never ends: the preflight's reads (`dripReads`), or
 *   every other request.
 * - bigmedia: the media catalog lists `items` extra undocumented models (copies of the reference's own,
 *   mapped back to it on the way in, so jobs naming them are accepted).
 * - garble: for each of `garble`, the replies its `match` picks, after the first `after` of them, have
 *   their JSON edited by its `edit`: one kind of reply of the contract broken in one place.
 * - chaos: a reply in `rate` (default 1 in 4) is mangled one way, chosen by a generator seeded with
 *   `seed` and the request's number: a value of its JSON of another type, a member dropped, the whole
 *   body another value, another status, another or no content type, a body that is no JSON, a header
 *   with garbage. What a target that returns garbage sends; the description is left as it is. Each
 *   mangling is listed (`mangled`) with its request.
 */

import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../reference/start.ts';
import { generator } from '../src/runtime/sample.ts';
import { type TargetFacts, writeRefTargets } from './ref-target.ts';

export type HostileMode =
  | 'echo'
  | 'regex'
  | 'biglist'
  | 'enums'
  | 'deep'
  | 'allof-cycle'
  | 'ref-cycle'
  | 'bad-regex'
  | 'hang'
  | 'hang-all'
  | 'reset'
  | 'bypass'
  | 'slow'
  | 'ids'
  | 'inject'
  | 'drip'
  | 'bigmedia'
  | 'garble'
  | 'chaos';

export interface HostileOptions {
  mode: HostileMode;
  /** biglist: entries in the list (default 40,000). */
  items?: number;
  /** biglist: every entry breaks a points rule (one finding per entry). */
  invalidEntries?: boolean;
  /** enums: bytes of enum values in the description (default 1 MB). */
  enumBytes?: number;
  /** deep: nesting of the x- extension (default 200,000). */
  depth?: number;
  /** slow: delay of every answer (default 2,000 ms). */
  delayMs?: number;
  /** ids: the id every input, job and asset gets. */
  id?: string;
  /** drip: drip the preflight's reads (GET /v1/models, /v1/balance) instead of every other request. */
  dripReads?: boolean;
  /** garble: which replies (by method, path and status), after how many of them, and the edit; each apart. */
  garble?: Array<{
    match: (method: string, path: string, status: number) => boolean;
    after?: number;
    edit: (json: Json) => void;
  }>;
  /**
   * chaos: the generator's seed (default 1) and the share of replies mangled (default 0.25); with
   * `description`, the description is mangled once too.
   */
  seed?: number;
  rate?: number;
  description?: boolean;
}

/** The reference's facts (its keys: 36 characters with `+`, `/`, `=`), behind the hostile proxy. */
export interface HostileServer extends TargetFacts {
  /** Requests received (the description included). */
  requests(): number;
  /** Every request received, as `METHOD raw-request-target`. */
  received(): string[];
  /** drip: how long each dripping reply lasted until the client closed it (ms). */
  drips(): number[];
  /** Requests whose body named one of the extra models of `bigmedia` (or the injected one), by id. */
  named(): Map<string, number>;
  /** Requests other than GET/HEAD that the reference behind the proxy accepted (2xx): side effects. */
  effects(): string[];
  /** chaos: each reply mangled, as `X-Request-ID METHOD path status: what was done`. */
  mangled(): string[];
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON document edited in place by the fixture.
export type Json = Record<string, any>;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';

/** A 36-character key with URL-special characters at fixed places. */
function hostileKey(): string {
  let k = 'sk-';
  for (let i = 0; i < 33; i++) k += ALPHABET[Math.floor(Math.random() * 62)];
  return `${k.slice(0, 8)}+${k.slice(9, 17)}/${k.slice(18, 26)}=${k.slice(27)}`;
}

/** The catalog's 200 schema, for the modes that change it. */
function catalogSchema(doc: Json): { get(): unknown; set(s: unknown): void } {
  const media = doc.paths['/v1/models'].get.responses['200'].content['application/json'];
  return { get: () => media.schema, set: (s) => (media.schema = s) };
}

const EVIL = `${'a'.repeat(40)}!`;
const j0 = (v: unknown) => v as Json;

/** What `inject` puts into every string it controls: workflow commands, escape sequences, `]]>`. */
export const INJECTED =
  '\n::add-mask::passed\n::error file=x.ts::injected\n::stop-commands::tok\n##[warning]injected ' +
  '\u001b[2J\u001b[1;1H\u001b]0;title\u0007\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\ ' +
  ']]><injected/>]]><injected/>\u009b31m\u202e';
/** The undocumented media model `inject` adds to the catalog (a copy of the reference's own). */
export const INJECTED_MODEL = `wc-900001${INJECTED}`;

/** The id kinds whose values `ids` replaces, by their path under /v1/media. */
const ID_PATH = /^\/v1\/media\/(inputs|jobs|assets)\/([^?]*)/;

function hostileDescription(doc: Json, o: HostileOptions): string {
  const cat = catalogSchema(doc);
  const withField = (field: Record<string, unknown>) =>
    cat.set({ allOf: [cat.get(), { type: 'object', properties: { x_note: field } }] });
  doc.components ??= {};
  doc.components.schemas ??= {};
  switch (o.mode) {
    case 'regex':
      withField({ type: 'string', pattern: '^(a+)+$' });
      break;
    case 'bad-regex':
      withField({ type: 'string', pattern: '([a-z' });
      break;
    case 'enums': {
      const values: string[] = [];
      for (let n = 0; n < (o.enumBytes ?? 1_000_000); n += 24)
        values.push(`value-${String(values.length).padStart(16, '0')}`);
      withField({ type: 'string', enum: values });
      break;
    }
    case 'allof-cycle':
      doc.components.schemas.Loop = { allOf: [{ $ref: '#/components/schemas/Loop' }, { type: 'object' }] };
      cat.set({ $ref: '#/components/schemas/Loop' });
      break;
    case 'ref-cycle':
      doc.components.schemas.PingA = { $ref: '#/components/schemas/PingB' };
      doc.components.schemas.PingB = { $ref: '#/components/schemas/PingA' };
      cat.set({ $ref: '#/components/schemas/PingA' });
      break;
    default:
      break;
  }
  const text = JSON.stringify(doc);
  if (o.mode !== 'deep') return text;
  // Spliced as text: JSON.stringify itself cannot write a value nested this deep.
  const d = o.depth ?? 200_000;
  return `{"x-deep":${'['.repeat(d)}${']'.repeat(d)},${text.slice(1)}`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startHostile(o: HostileOptions): Promise<HostileServer> {
  const ref = await startReference({ port: 0, mediaStepMs: 20 });
  const keys: Record<string, string> = {};
  const toRef = new Map<string, string>();
  for (const [role, k] of Object.entries(ref.keys)) {
    keys[role] = hostileKey();
    toRef.set(keys[role]!, k);
  }
  /** A value with every hostile key (raw or URL-encoded) replaced by the reference's. */
  const mapKeys = (s: string) => {
    let out = s;
    for (const [h, r] of toRef) out = out.split(h).join(r).split(encodeURIComponent(h)).join(r);
    return out;
  };
  let description = hostileDescription((await (await fetch(`${ref.url}/openapi.json`)).json()) as Json, o);
  const mangled: string[] = [];
  if (o.mode === 'chaos' && o.description) {
    // The description mangled once, as a reply is: one value of another type, or one member dropped.
    const doc = JSON.parse(description) as Json;
    const rnd = chaosRandom(o.seed ?? 1, -1);
    const m = mangleJson(rnd, doc, rnd() < 0.3);
    if (m) {
      mangled.push(`- GET /openapi.json 200: ${m}`);
      description = JSON.stringify(doc);
    }
  }
  let count = 0;
  const received: string[] = [];
  const effects: string[] = [];
  const dripping = new Set<ServerResponse>();
  const drips: number[] = [];
  const named = new Map<string, number>();
  /** ids: hostile id -> the reference's, and back. */
  const toRefId = new Map<string, string>();
  const toHostileId = new Map<string, string>();
  const hostileId = (real: string) => {
    let h = toHostileId.get(real);
    if (h === undefined) {
      const base = o.id ?? '.';
      h = ['', '.', '..'].includes(base) ? base : `${base}${toHostileId.size}`;
      toHostileId.set(real, h);
      toRefId.set(h, real);
    }
    return h;
  };
  /** A request target with a hostile id (one decoded segment) mapped back to the reference's. */
  const mapIdPath = (url: string) =>
    url.replace(ID_PATH, (all, kind: string, seg: string) => {
      let decoded = seg;
      try {
        decoded = decodeURIComponent(seg);
      } catch {}
      const real = toRefId.get(decoded);
      return real === undefined ? all : `/v1/media/${kind}/${encodeURIComponent(real)}`;
    });
  const hanging = new Set<ServerResponse>();
  /** garble: the replies each of o.garble picked so far. */
  const garbleMet = (o.garble ?? []).map(() => 0);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    count++;
    received.push(`${req.method} ${req.url}`);
    let url = req.url ?? '/';
    const isDescription = req.method === 'GET' && url.split('?')[0] === '/openapi.json';
    const readsKept = req.method === 'GET' && ['/v1/models', '/v1/balance'].includes(url.split('?')[0]!);
    if (o.mode === 'hang-all' || (o.mode === 'hang' && !isDescription && !readsKept)) {
      hanging.add(res);
      return;
    }
    if (o.mode === 'reset' && !isDescription && !readsKept) {
      req.socket.resetAndDestroy();
      return;
    }
    if (o.mode === 'drip' && !isDescription && readsKept === (o.dripReads ?? false)) {
      // Headers at once, then two bytes a second of a JSON body that never ends.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      dripping.add(res);
      const timer = setInterval(() => res.write('0,'), 1_000);
      const since = Date.now();
      res.on('close', () => {
        clearInterval(timer);
        drips.push(Date.now() - since);
        dripping.delete(res);
      });
      return;
    }
    if (o.mode === 'ids') url = mapIdPath(url);
    if (isDescription && o.mode !== 'echo') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(description);
      return;
    }
    let body = await readBody(req);
    const jsonBody = body.length > 0 && /json/.test(req.headers['content-type'] ?? '');
    if (o.mode === 'ids' && jsonBody) {
      let text = body.toString('utf8');
      for (const [h, r] of toRefId)
        if (h.length > 2) text = text.split(JSON.stringify(h)).join(JSON.stringify(r));
      body = Buffer.from(text);
    }
    if ((o.mode === 'bigmedia' || o.mode === 'inject') && jsonBody) {
      const model = /"model"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(body.toString('utf8'))?.[1];
      const id = model === undefined ? undefined : (JSON.parse(model) as string);
      if (id?.startsWith('wc-900001') && id !== 'wc-900001') named.set(id, (named.get(id) ?? 0) + 1);
      body = Buffer.from(
        body
          .toString('utf8')
          .replace(/"wc-900001-\d+"/g, '"wc-900001"')
          .split(JSON.stringify(INJECTED_MODEL))
          .join('"wc-900001"'),
      );
    }
    if (o.mode === 'slow' && !isDescription) await new Promise((r) => setTimeout(r, o.delayMs ?? 2_000));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k))
        headers[k] = mapKeys(v);
    if (o.mode === 'bypass' && ![...toRef.values()].some((k) => headers.authorization === `Bearer ${k}`))
      headers.authorization = `Bearer ${ref.keys.primary}`;
    const upstream = await fetch(`${ref.url}${mapKeys(url)}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
      redirect: 'manual',
    });
    if (!['GET', 'HEAD'].includes(req.method ?? 'GET') && upstream.status < 300)
      effects.push(`${req.method} ${url.split('?')[0]} ${upstream.status}`);
    let out: Buffer = Buffer.from(await upstream.arrayBuffer());
    const outHeaders: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))
        outHeaders[k] = v;
    });
    const json = /json/.test(outHeaders['content-type'] ?? '')
      ? (JSON.parse(out.toString('utf8')) as unknown)
      : undefined;
    const isCatalog = req.method === 'GET' && url.split('?')[0] === '/v1/models' && upstream.status === 200;
    const path = url.split('?')[0]!;
    const isMediaCatalog = req.method === 'GET' && path === '/v1/media/models' && upstream.status === 200;
    const isJob = path.startsWith('/v1/media/jobs') && upstream.status < 300;
    const isInput = path.startsWith('/v1/media/inputs') && upstream.status < 300;
    if (o.mode === 'ids' && json && typeof json === 'object' && !Array.isArray(json) && (isJob || isInput)) {
      // A job, or an input inside its envelope.
      const j = (
        isInput && j0(json).input && typeof j0(json).input === 'object' ? j0(json).input : json
      ) as Json;
      if (typeof j.id === 'string') j.id = hostileId(j.id);
      if (typeof j.asset_id === 'string') j.asset_id = hostileId(j.asset_id);
      out = Buffer.from(JSON.stringify(json));
    } else if (o.mode === 'inject' && json && typeof json === 'object' && !Array.isArray(json)) {
      const j = json as Json;
      if (j.error && typeof j.error === 'object') {
        j.error.message = `${INJECTED} ${j.error.message}`;
        j.error.code = `${j.error.code}${INJECTED}`;
      }
      if (isJob && req.method === 'GET' && typeof j.status === 'string') j.status = INJECTED;
      if (isMediaCatalog && Array.isArray(j.data)) {
        const own = (j.data as Json[]).find((e) => e.id === 'wc-900001');
        if (own) j.data.push({ ...own, id: INJECTED_MODEL });
      }
      out = Buffer.from(JSON.stringify(j));
    } else if (o.mode === 'bigmedia' && isMediaCatalog && json && typeof json === 'object') {
      const j = json as Json;
      const own = (j.data as Json[]).find((e) => e.id === 'wc-900001');
      if (own) for (let i = 0; i < (o.items ?? 20_000); i++) j.data.push({ ...own, id: `wc-900001-${i}` });
      out = Buffer.from(JSON.stringify(j));
    } else if (o.mode === 'echo') {
      const auth = req.headers.authorization ?? '';
      const presented = auth.replace(/^\S+\s+/, '');
      const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
      const cookie = req.headers.cookie ?? '';
      outHeaders['x-echo-authorization'] = auth;
      outHeaders['x-echo-query'] = query;
      outHeaders['x-echo-cookie'] = cookie;
      outHeaders['www-authenticate'] = `Bearer error="invalid_token", error_description="${presented}"`;
      if (json && typeof json === 'object' && !Array.isArray(json)) {
        const j = json as Json;
        if (upstream.status === 401 && j.error && typeof j.error === 'object')
          j.error.message = `Incorrect API key provided: ${presented}. You passed ${url} with cookie ${cookie}.`;
        else j.echo = { authorization: auth, url, cookie, json_escaped: JSON.stringify(auth) };
        out = Buffer.from(JSON.stringify(j).replaceAll('/', '\\/'));
      }
    } else if (isCatalog && json && typeof json === 'object') {
      const j = json as Json;
      if (o.mode === 'biglist' && (j.data as unknown[]).length > 0) {
        const base = j.data as Array<Record<string, unknown>>;
        const n = o.items ?? 40_000;
        const data = new Array(n);
        for (let i = 0; i < n; i++) {
          data[i] = { ...base[i % base.length], id: `${base[i % base.length]!.id}-${i}` };
          // invalidEntries: every entry's price a JSON number (a points value must be a decimal string).
          if (o.invalidEntries) data[i].request_points_per_million_tokens = i + 0.5;
        }
        j.data = data;
      } else if (o.mode !== 'biglist') j.x_note = o.mode === 'regex' ? EVIL : 'not-a-listed-value';
      out = Buffer.from(JSON.stringify(j));
    }
    let status = upstream.status;
    const g =
      o.mode === 'garble'
        ? (o.garble ?? []).findIndex((x) => x.match(req.method ?? 'GET', path, status))
        : -1;
    if (g >= 0 && json && typeof json === 'object' && garbleMet[g]!++ >= (o.garble![g]!.after ?? 0)) {
      o.garble![g]!.edit(json as Json);
      out = Buffer.from(JSON.stringify(json));
    }
    if (o.mode === 'chaos') {
      const m = mangle(chaosRandom(o.seed ?? 1, count), o.rate ?? 0.25, status, outHeaders, out, json);
      if (m) {
        mangled.push(`${outHeaders['x-request-id'] ?? '-'} ${req.method} ${path} ${status}: ${m.what}`);
        ({ status, body: out } = m);
      }
    }
    res.writeHead(status, outHeaders);
    res.end(out);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`hostile proxy: ${err.message}`);
    });
  });
  // Idle keep-alive sockets stay open longer than the client's (a busy proxy must not close one under it).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    keys,
    hints: ref.hints,
    capabilities: ref.capabilities,
    canaries: ref.canaries,
    limits: ref.limits,
    requests: () => count,
    received: () => [...received],
    drips: () => [...drips],
    named: () => new Map(named),
    effects: () => [...effects],
    mangled: () => [...mangled],
    close: async () => {
      for (const r of hanging) r.destroy();
      for (const r of dripping) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await ref.close();
    },
  };
}

/** A generator of numbers in [0, 1) for one reply: mulberry32 over the seed and the request's number. */
function chaosRandom(seed: number, n: number): () => number {
  return generator(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n, 0xc2b2ae35));
}

/** Values of every JSON kind a target might send where another was due. */
const CHAOS_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e-308,
  2 ** 53 + 2,
  '',
  'x',
  '-1',
  'NaN',
  '1e999',
  '\u0000\u202e💥',
  'x'.repeat(70_000),
  [],
  [null],
  [1, 'a', {}],
  {},
  { a: null },
  { error: null },
  { data: null },
  { object: 'list', data: 'x' },
];
const CHAOS_STATUSES = [
  200, 201, 202, 204, 301, 304, 400, 401, 402, 403, 404, 409, 410, 422, 429, 500, 502, 503,
];
const CHAOS_TYPES = [
  undefined,
  'text/plain',
  'text/html; charset=utf-8',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/problem+json',
  'application/x-ndjson',
  'text/event-stream',
  'json',
  ';;;',
];
const CHAOS_HEADERS: Array<[string, string]> = [
  ['retry-after', '-5'],
  ['retry-after', 'soon'],
  ['retry-after', '99999999999999999999'],
  ['x-request-id', ''],
  ['x-request-id', 'x'.repeat(9000)],
  ['location', '::not a url::'],
  ['x-ratelimit-remaining', 'NaN'],
  ['content-disposition', 'attachment; filename="../../etc/passwd"'],
  ['deprecation', 'maybe'],
  ['sunset', 'never'],
];

/** Every place in a JSON value: its parent and key (an object's member or an array's element). */
function places(
  v: unknown,
  out: Array<[Json, string | number]> = [],
  depth = 0,
): Array<[Json, string | number]> {
  if (depth > 64 || out.length > 50_000 || v === null || typeof v !== 'object') return out;
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push([v as Json, i]);
      places(x, out, depth + 1);
    });
  else
    for (const [k, x] of Object.entries(v as Json)) {
      out.push([v as Json, k]);
      places(x, out, depth + 1);
    }
  return out;
}

/** One place of a JSON value changed in place: dropped (`drop`, an object's member) or given another value. */
function mangleJson(rnd: () => number, json: Json, drop: boolean): string | undefined {
  const where = places(json);
  if (where.length === 0) return undefined;
  const [parent, key] = where[Math.floor(rnd() * where.length)]!;
  if (drop && !Array.isArray(parent)) {
    delete parent[key as string];
    return `dropped ${String(key)}`;
  }
  const value = CHAOS_VALUES[Math.floor(rnd() * CHAOS_VALUES.length)];
  (parent as Json)[key as string] = structuredClone(value);
  return `${String(key)} = ${JSON.stringify(value).slice(0, 40)}`;
}

/** One reply mangled one way (or left: undefined), `headers` edited in place. */
function mangle(
  rnd: () => number,
  rate: number,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
  json: unknown,
): { status: number; body: Buffer; what: string } | undefined {
  if (rnd() >= rate) return undefined;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const text = (v: unknown) => Buffer.from(JSON.stringify(v));
  const kind = pick(['retype', 'retype', 'retype', 'drop', 'whole', 'status', 'type', 'notjson', 'header']);
  if ((kind === 'retype' || kind === 'drop') && json !== null && typeof json === 'object') {
    const what = mangleJson(rnd, json as Json, kind === 'drop');
    if (what) return { status, body: text(json), what };
  }
  switch (kind) {
    case 'whole': {
      const value = pick(CHAOS_VALUES);
      return { status, body: text(value), what: `body ${JSON.stringify(value).slice(0, 40)}` };
    }
    case 'status': {
      const s = pick(CHAOS_STATUSES);
      return { status: s, body: s === 204 || s === 304 ? Buffer.alloc(0) : body, what: `status ${s}` };
    }
    case 'type': {
      const t = pick(CHAOS_TYPES);
      if (t === undefined) delete headers['content-type'];
      else headers['content-type'] = t;
      return { status, body, what: `content-type ${t ?? 'none'}` };
    }
    case 'notjson': {
      const b = pick([
        body.subarray(0, Math.floor(body.length / 2)),
        Buffer.from('<html>oops</html>'),
        Buffer.alloc(0),
      ]);
      return { status, body: b, what: `body of ${b.length} bytes, not the reply's` };
    }
    default: {
      const [name, value] = pick(CHAOS_HEADERS);
      headers[name] = value;
      return { status, body, what: `header ${name}: ${value.slice(0, 40)}` };
    }
  }
}

/** A hostile server and a targets file naming it (target `ref`): the CLI's arguments, environment and report directory. */
export interface HostileTarget {
  server: HostileServer;
  dir: string;
  env: NodeJS.ProcessEnv;
  /** `--targets FILE --target ref` */
  args: string[];
  report: string;
}

/** Start a hostile server in mode `o` and write its targets file (requests bounded by `requestMs`, concurrency 4). */
export async function hostileTarget(o: HostileOptions, requestMs = 10_000): Promise<HostileTarget> {
  const server = await startHostile(o);
  const dir = mkdtempSync(join(tmpdir(), `gc-${o.mode}-`));
  const targets = join(dir, 'targets.yaml');
  const env = writeRefTargets(server, targets, { requestMs, concurrency: 4 });
  return { server, dir, env, args: ['--targets', targets, '--target', 'ref'], report: join(dir, 'report') };
}

/** A line of a stack trace (`    at f (file.ts:1:2)`): output with one shows a crash of the harness. */
export const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;
