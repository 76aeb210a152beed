import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Agent, request as undiciRequest } from 'undici';
import { afterEach } from 'vitest';
import { isPlaceFault } from '../../reference/faults/places.ts';
import {
  FAULTS,
  type ReferenceHandle,
  type ReferenceOptions,
  startReference,
  VARIANTS,
} from '../../reference/start.ts';
import { headCommit, placeSample } from '../../tools/mutation/matrix.ts';

/**
 * The setups whose description and answers the per-setup tests judge (openapi.test.ts, media.test.ts):
 * the plain reference, every variant, every hand-written fault, and of the generated place faults
 * (reference/faults/places.ts: 243 from 14 templates, each template one patch applied at a place) the
 * first place of each requirement and the sample the mutation matrix runs for this commit (placeSample):
 * every template is met on every commit and every place over commits. All 243 started each time cost
 * about a third of these files' CPU (20 of 55 CPU-s). Every place fault's own answers are judged by its
 * matrix row (`npm run mutants -- --places`), where an answer its description does not allow fails an id
 * beyond the ones it breaks (COLLATERAL).
 * keepalive-close-on-reuse changes no answer a description covers: it closes the kept-alive connections
 * these direct probes reuse (its own probe and matrix row prove the reading). Without a valid description
 * (openapi-invalid) or any (openapi-absent) there is nothing to match.
 */
export function describedSetups(): { name: string; opts: ReferenceOptions }[] {
  const places = FAULTS.filter((f) => isPlaceFault(f.name)).map((f) => f.name);
  const firstOfEach = new Map<string, string>();
  for (const name of places) {
    const id = name.split(':')[1]!;
    if (!firstOfEach.has(id)) firstOfEach.set(id, name);
  }
  const chosen = new Set([...firstOfEach.values(), ...placeSample(places, headCommit())]);
  return [
    { name: 'plain', opts: {} },
    ...VARIANTS.filter((v) => v.name !== 'keepalive-close-on-reuse').map((v) => ({
      name: `variant ${v.name}`,
      opts: { variant: v.name },
    })),
    ...FAULTS.filter((f) => !['openapi-invalid', 'openapi-absent'].includes(f.name))
      .filter((f) => !isPlaceFault(f.name) || chosen.has(f.name))
      .map((f) => ({ name: `fault ${f.name}`, opts: { fault: f.name } })),
  ];
}

/** A start function whose servers are closed after each test of the calling file. */
export function referencePool(): (opts?: ReferenceOptions) => Promise<ReferenceHandle> {
  const handles: ReferenceHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.close()));
  });
  return async (opts) => {
    const handle = await startReference({ ...opts, port: 0 });
    handles.push(handle);
    return handle;
  };
}

export interface Exchange {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field
  body: any;
}

export interface CallOptions {
  method?: string;
  /** A role of the reference; its key is sent as `Authorization: Bearer <key>`. */
  role?: string;
  headers?: Record<string, string>;
  json?: unknown;
}

/**
 * The connections of `call`: at most 128 per reference at once, kept alive. A probe that sends a thousand
 * requests at once (guard-rpm) would otherwise open a thousand connections, past the server's listen
 * backlog (511), and a fast machine gets some of them reset before they are accepted.
 */
const callAgent = new Agent({ connections: 128, keepAliveTimeout: 10_000 });

export async function call(ref: ReferenceHandle, path: string, opts: CallOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.role) headers.authorization = `Bearer ${ref.keys[opts.role]}`;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.json);
  }
  // undici's request, not its fetch: the reference neither redirects nor compresses, and fetch's web
  // streams cost about a fifth of the CPU of the files that probe the reference most.
  const res = await undiciRequest(ref.url + path, {
    method: opts.method ?? 'GET',
    headers,
    body,
    dispatcher: callAgent,
  });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const received = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
      received.append(name, v);
  return { status: res.statusCode, headers: received, text, body: parsed };
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** The events of a complete text/event-stream body (blocks split on blank lines). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event.event = value;
      if (field === 'data') data.push(value);
    }
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}

/**
 * Whether a streamed reply ends within `ms` after its first bytes: reads the first chunk, then waits
 * for the end of the body; the request is aborted either way.
 */
/** How many pieces (reads) a streamed reply's body arrives in: a buffered stream comes in one. */
export async function streamPieces(ref: ReferenceHandle, path: string, opts: CallOptions): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.role) headers.authorization = `Bearer ${ref.keys[opts.role]}`;
  const res = await undiciRequest(ref.url + path, {
    method: 'POST',
    headers,
    body: JSON.stringify(opts.json),
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  let pieces = 0;
  for await (const _ of res.body) pieces++;
  return pieces;
}

export async function streamEnds(
  ref: ReferenceHandle,
  path: string,
  opts: CallOptions,
  ms: number,
): Promise<boolean> {
  const controller = new AbortController();
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.role) headers.authorization = `Bearer ${ref.keys[opts.role]}`;
  const res = await fetch(ref.url + path, {
    method: opts.method ?? 'POST',
    headers,
    body: JSON.stringify(opts.json),
    signal: controller.signal,
  });
  const reader = res.body?.getReader();
  if (!reader) return true;
  try {
    await reader.read();
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms));
    for (;;) {
      const read = reader.read();
      read.catch(() => {}); // rejects once the request is aborted
      const next = await Promise.race([read, timer]);
      if (next === 'timeout') return false;
      if (next.done) return true;
    }
  } finally {
    controller.abort();
  }
}

export function isApiError(body: unknown): boolean {
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    ['code', 'message', 'type'].every((field) => typeof error[field] === 'string')
  );
}

type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: object;
  servers?: Array<{ url?: string }>;
};
type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };

/**
 * Problems of one live response against the description it came with: undeclared status,
 * undeclared content type, or a JSON body outside the declared schema. Empty when it conforms.
 */
export function describedProblems(doc: Doc, method: string, path: string, exchange: Exchange): string[] {
  // A server URL's path stands before every path key (variant openapi-written-otherwise: `/v1`).
  const prefix = new URL(doc.servers?.[0]?.url ?? '/', 'http://server.invalid').pathname.replace(/\/+$/, '');
  const key = !doc.paths[path] && prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
  const op = doc.paths[key]?.[method.toLowerCase()];
  if (!op) return [`${method} ${path} is not described`];
  const response = op.responses[String(exchange.status)] ?? op.responses.default;
  if (!response) return [`status ${exchange.status} is not declared`];
  // Without `content` the payload is undescribed, not declared absent (RESP-002; variant openapi-errors-undescribed).
  if (!response.content) return [];
  const type = (exchange.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const media = response.content[type];
  if (!media) return [`content type "${type}" is not declared (${Object.keys(response.content).join(', ')})`];
  if (type !== 'application/json' && !type.endsWith('+json')) return [];
  const validate = validatorOf(doc, media.schema);
  if (exchange.body === undefined) return ['the body is not JSON'];
  return validate(exchange.body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const BASE = 'https://described.invalid/openapi';
/**
 * Compiled validators by the description's components (their JSON text), then by response schema: the
 * reference under most faults and variants describes itself alike, and each setup fetches its own copy,
 * so keyed by content a schema is compiled once for all of them, not once per setup.
 */
const compiled = new Map<string, { ajv: Ajv2020; validators: Map<string, ValidateFunction> }>();

/** Each fetched description's components as text: read once per description, not once per exchange. */
const componentsText = new WeakMap<object, string>();

/** Validators per description and response schema, compiled once. */
function validatorOf(doc: Doc, schema: object): ValidateFunction {
  let components = componentsText.get(doc);
  if (components === undefined) {
    components = JSON.stringify(doc.components ?? null);
    componentsText.set(doc, components);
  }
  let entry = compiled.get(components);
  if (!entry) {
    // Not checked against the meta-schema here (test/reference/openapi.test.ts validates every setup's
    // description as OpenAPI 3.1): that compiled the 2020-12 meta-schema once per description, about a
    // second of each file that checks replies against their description.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: BASE, components: doc.components });
    entry = { ajv, validators: new Map() };
    compiled.set(components, entry);
  }
  const key = JSON.stringify(schema);
  let validate = entry.validators.get(key);
  if (!validate) {
    validate = entry.ajv.compile(rebase(schema));
    entry.validators.set(key, validate);
  }
  return validate;
}

/** Points the response schema's local refs at the registered description. */
function rebase(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${BASE}#/components/`));
}

export interface Transport {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request through undici (the suite's client) with a deadline for the whole exchange: resolves
 * with a complete response, rejects with the transport error (timeout, reset, short body) otherwise.
 */
export async function fetchWithin(
  ref: ReferenceHandle,
  path: string,
  opts: { role?: string; ms?: number } = {},
): Promise<Transport> {
  const headers: Record<string, string> = {};
  if (opts.role) headers.authorization = `Bearer ${ref.keys[opts.role]}`;
  const ms = opts.ms ?? 2000;
  const res = await undiciRequest(ref.url + path, {
    headers,
    signal: AbortSignal.timeout(ms),
    headersTimeout: ms,
    bodyTimeout: ms,
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

/**
 * The code of a transport error, as the suite's client names it: TIMEOUT for the deadline (the
 * AbortSignal's TimeoutError or undici's header/body timeout), else the code undici or the socket gives.
 */
export function errorCode(error: unknown): string | undefined {
  const e = error as { name?: string; code?: unknown; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT')
    return 'TIMEOUT';
  return typeof e.code === 'string' ? e.code : (e.cause?.code ?? e.name);
}
