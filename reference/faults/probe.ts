// What a fault or variant entry is, and its probe: the request that shows its deviation on the
// reference (and a predicate on the reply that holds there and not on the plain reference). A probe
// is data where one request shows it (`request` + `holds`); one that needs several steps is a `run`
// function given a kit of request helpers. The kit is implemented in test/reference/probe-kit.ts (the
// reference never sends requests itself); test/reference/faults.test.ts runs every probe.

import { TABLE } from '../media/table.ts';
import type { TablePatch } from '../patch.ts';
import type { JsonObject } from '../schemas.ts';

export interface Fault {
  name: string;
  description: string;
  breaks: string[];
  level?: 'implied' | 'notable';
  /**
   * The request timeout (ms) the fault's matrix run gives the suite (`timeouts.request_ms` of its
   * targets file), for a fault that makes requests hang: the run then ends in seconds, not minutes.
   */
  requestMs?: number;
  probe: Probe;
  /** How the deployment describes itself under the fault: a change of the live OpenAPI description. */
  openapi?: OpenApiPatch;
  /** A fault that only changes a value, a bound or a status: the tables it changes (reference/patch.ts). */
  patch?: TablePatch;
  /**
   * The places of the applicability map it breaks (a requirement id and one of its place keys, as
   * src/applicability.ts derives them), for a fault that breaks a rule at some of its places only:
   * test/unit/place-faults.test.ts lists the places no fault breaks.
   */
  places?: { id: string; place: string }[];
}

export interface Variant {
  name: string;
  description: string;
  /** The requirements whose other allowed reading the variant takes (its row in the table of docs/mutation-matrix.md). */
  readings: string[];
  probe: Probe;
  openapi?: OpenApiPatch;
  /**
   * Its row runs with --strict: the reading keeps the implied invariants too (a ledger that adds up in
   * pages), so an advisory on it would be a false alarm of the suite's own, not an open question.
   */
  strict?: true;
  /**
   * The test timeout (ms) its matrix row gives the suite (`timeouts.test_ms` of its targets file), for a
   * variant whose point is a duration beside it (a job longer than a test): the row stays short.
   */
  testMs?: number;
}

/** The description being built: the whole document and its component schemas (before legacy twins). */
export interface OpenApiDraft {
  doc: JsonObject;
  // biome-ignore lint/suspicious/noExplicitAny: path items are patched field by field
  paths: Record<string, any>;
  // biome-ignore lint/suspicious/noExplicitAny: schemas are patched field by field
  schemas: Record<string, any>;
  /** The error response the description gives a status (or `default`). */
  errorResponse(status: string): JsonObject;
}

/** Every operation's responses of the description, by path item and method. */
export function allResponses(paths: OpenApiDraft['paths']): Record<string, JsonObject>[] {
  return Object.values(paths).flatMap((item) =>
    Object.values(item as Record<string, { responses: Record<string, JsonObject> }>).map(
      (op) => op.responses,
    ),
  );
}
/** The operation's success answered under another status (same response). */
export function successAs(op: { responses: Record<string, JsonObject> }, from: string, to: string): void {
  op.responses[to] = op.responses[from] as JsonObject;
  delete op.responses[from];
}

/** Either error shape, the APIError object or a flat {"error": "..."}. */
export const EITHER_ERROR = {
  anyOf: [{ $ref: '#/components/schemas/APIError' }, { $ref: '#/components/schemas/FlatError' }],
};

/** Every response of the status described with the schema (as the deployment would describe itself). */
export function errorShape(paths: OpenApiDraft['paths'], status: string, schema: JsonObject): void {
  for (const responses of allResponses(paths)) {
    const content = responses[status]?.content as Record<string, { schema: JsonObject }> | undefined;
    if (content?.['application/json']) content['application/json'].schema = structuredClone(schema);
  }
}

/** Whether a response key of an operation is an error's (4xx, 5xx or default). */
export const isError = (status: string) => status === 'default' || /^[45]/.test(status);

/**
 * Applied by reference/openapi.ts after the plain description is built and before the legacy twins
 * are made (so they follow), to the description of a run under the fault or variant.
 */
export type OpenApiPatch = (draft: OpenApiDraft) => void;

/** Drops `field` from the schema's `required`. */
export const optional = (schema: { required: string[] }, field: string) => {
  schema.required = schema.required.filter((f) => f !== field);
};

/** What a probe is sent to (a started reference: its URL, keys by role, model hints, limits). */
export interface ProbeTarget {
  url: string;
  keys: Record<string, string>;
  hints: Record<string, string>;
  limits: { payment_min_cny?: string; quota_nearly_full_bytes?: string };
}

export interface ProbeReply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: reply bodies are probed field by field
  body: any;
}

export interface ProbeRequest {
  path: string;
  method?: string;
  /** A role of the reference; its key is sent as `Authorization: Bearer <key>`. */
  role?: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** A sample of fixtures/media sent as the body of POST /v1/media/inputs (role primary by default). */
  upload?: { file: string; type?: string };
}

export type Probe =
  | { request: ProbeRequest | ((target: ProbeTarget) => ProbeRequest); holds: (reply: ProbeReply) => boolean }
  | { run: (kit: ProbeKit) => Promise<boolean> };

export interface SseEvent {
  event?: string;
  data: string;
}

type Body = Record<string, unknown>;
interface CallOptions {
  method?: string;
  role?: string;
  headers?: Record<string, string>;
  json?: unknown;
}

/** The request helpers a `run` probe gets (each takes the target first, as the test helpers do). */
export interface ProbeKit {
  ref: ProbeTarget;
  call(ref: ProbeTarget, path: string, opts?: CallOptions): Promise<ProbeReply>;
  models(ref: ProbeTarget, role?: string): Promise<ProbeReply>;
  balance(ref: ProbeTarget): Promise<ProbeReply>;
  // biome-ignore lint/suspicious/noExplicitAny: the description is probed field by field
  openapi(ref: ProbeTarget): Promise<any>;
  withKey(
    ref: ProbeTarget,
    headers: (key: string) => Record<string, string>,
    query?: string,
  ): Promise<ProbeReply>;
  chatBody(ref: ProbeTarget, extra?: Body): Body;
  chat(ref: ProbeTarget, extra?: Body, opts?: CallOptions): Promise<ProbeReply>;
  responses(ref: ProbeTarget, extra?: Body): Promise<ProbeReply>;
  events(ref: ProbeTarget): Promise<SseEvent[]>;
  embed(ref: ProbeTarget, body: Body): Promise<ProbeReply>;
  /** Whether a call replayed with its Idempotency-Key (and `headers`) executes and charges again. */
  replayCharges(
    ref: ProbeTarget,
    headers: Record<string, string>,
    path?: '/v1/chat/completions' | '/v1/responses',
  ): Promise<boolean>;
  ledgerAfterChat(ref: ProbeTarget): Promise<boolean>;
  usageCount(ref: ProbeTarget): Promise<number>;
  ledgerCount(ref: ProbeTarget): Promise<number>;
  ticket(ref: ProbeTarget, patch: Body, role?: string): Promise<ProbeReply>;
  payOrder(ref: ProbeTarget, patch: Body, role?: string): Promise<ProbeReply>;
  /** The first 429 of six balance reads of the rate-limited key, if any. */
  rateLimited(ref: ProbeTarget): Promise<ProbeReply | undefined>;
  upload(
    ref: ProbeTarget,
    file: string,
    opts?: { role?: string; type?: string; headers?: Record<string, string> },
  ): Promise<ProbeReply>;
  inputId(ref: ProbeTarget, file?: string, role?: string): Promise<string>;
  createJob(ref: ProbeTarget, body: Body, opts?: CallOptions): Promise<ProbeReply>;
  jobStatus(ref: ProbeTarget, body: Body, opts?: CallOptions): Promise<number>;
  accepted(ref: ProbeTarget, body: Body): Promise<boolean>;
  readJob(ref: ProbeTarget, id: string, role?: string): Promise<ProbeReply>;
  pollJob(ref: ProbeTarget, id: string): Promise<{ seen: string[]; last: ProbeReply; percents: unknown[] }>;
  // biome-ignore lint/suspicious/noExplicitAny: jobs are probed field by field
  succeededJob(ref: ProbeTarget, model?: string): Promise<any>;
  /** Reads the job until `stop` holds for a read (true) or the job ends (false). */
  readsUntil(
    ref: ProbeTarget,
    id: string,
    stop: (read: ProbeReply) => boolean,
    role?: string,
  ): Promise<boolean>;
  /** A settlement_pending job of the poor account, created with the key. */
  pendingJob(ref: ProbeTarget, key: string): Promise<string>;
  // biome-ignore lint/suspicious/noExplicitAny: catalog entries are probed field by field
  catalogEntry(ref: ProbeTarget, id: string): Promise<any>;
  /** Whether a streamed reply ends within `ms` after its first bytes. */
  streamEnds(ref: ProbeTarget, path: string, opts: CallOptions, ms: number): Promise<boolean>;
  /** How many pieces a streamed reply's body arrives in (a buffered stream: one). */
  streamPieces(ref: ProbeTarget, path: string, opts: CallOptions): Promise<number>;
  /** One request through undici with a deadline: rejects with the transport error. */
  fetchWithin(ref: ProbeTarget, path: string, opts?: { role?: string; ms?: number }): Promise<unknown>;
  errorCode(error: unknown): string | undefined;
}

// Request data and pure helpers, shared by the entries' probes.
export const ACK = { provider_processing_acknowledged: true };
export const LEGACY = { accept: 'application/vnd.service.currency.v1+json' };
export const TICKETS = '/v1/support/tickets';
export const TERMINALS = ['response.completed', 'response.incomplete', 'response.failed'];

/** A valid request for the model: its minimum prompt and, where it takes references, image ids. */
export function jobBody(model: string, refs: string[] = [], parameters: Body = {}) {
  const def = TABLE.models[model];
  const prompt = def?.prompt.empty_only ? undefined : 'a small red house';
  return {
    model,
    ...(prompt === undefined ? {} : { prompt }),
    parameters: { ...ACK, ...(refs.length > 0 ? { input_asset_ids: refs } : {}), ...parameters },
  };
}
export const withParams = (model: string, params: Body, refs: string[] = []) => jobBody(model, refs, params);
export const withPrompt = (model: string, prompt: string) => ({ ...jobBody(model), prompt });
export const UNCERTAIN = { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_UNCERTAIN_JOB' };
export const keyed = (key: string, role = 'primary'): CallOptions => ({
  role,
  headers: { 'idempotency-key': key },
});
export const atOnce = <T>(n: number, send: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => send(i)));
export const distinct = (values: unknown[]) => new Set(values.filter((v) => v !== undefined)).size;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// biome-ignore lint/suspicious/noExplicitAny: model entries are probed field by field
export const unpriced = (entries: any[]) => entries.find((m) => m.id === 'tx-chat-unpriced');

const chatJson = (t: ProbeTarget, extra: Body) => ({
  model: t.hints.chat,
  messages: [{ role: 'user', content: 'Say ok.' }],
  max_tokens: 2,
  ...extra,
});

/**
 * 127 characters of an Idempotency-Key as the reference client makes them (letters, digits, dot,
 * underscore, colon, hyphen; 128 with the character a probe adds): `prefix` padded.
 */
export const longKey = (prefix: string): string => `${prefix}_`.padEnd(127, 'k-9.').slice(0, 127);

/** Requests of data probes; a function of the target where the request names its keys or models. */
export const req = {
  call: (path: string, opts: CallOptions = {}): ProbeRequest => ({ path, ...opts }),
  models: (role = 'primary'): ProbeRequest => ({ path: '/v1/models', role }),
  balance: (): ProbeRequest => ({ path: '/v1/balance', role: 'primary' }),
  /** The holds of a probe of the description reads `reply.body`. */
  openapi: (): ProbeRequest => ({ path: '/openapi.json' }),
  withKey:
    (headers: (key: string) => Record<string, string>, query = '') =>
    (t: ProbeTarget): ProbeRequest => ({
      path: `/v1/models${query}`,
      headers: headers(t.keys.primary as string),
    }),
  chat:
    (extra: Body = {}, opts: CallOptions = {}) =>
    (t: ProbeTarget): ProbeRequest => ({
      path: '/v1/chat/completions',
      method: 'POST',
      role: 'primary',
      json: chatJson(t, extra),
      ...opts,
    }),
  responses:
    (extra: Body = {}, opts: CallOptions = {}) =>
    (t: ProbeTarget): ProbeRequest => ({
      path: '/v1/responses',
      method: 'POST',
      role: 'primary',
      json: { model: t.hints.responses, input: 'Say ok.', max_output_tokens: 3, ...extra },
      ...opts,
    }),
  embed: (json: Body): ProbeRequest => ({ path: '/v1/embeddings', method: 'POST', role: 'primary', json }),
  /** An embedding of 'ok' by the embedding model, with `extra` fields. */
  embedding:
    (extra: Body) =>
    (t: ProbeTarget): ProbeRequest =>
      req.embed({ model: t.hints.embedding, input: 'ok', ...extra }),
  ticket: (patch: Body, role = 'primary'): ProbeRequest => ({
    path: TICKETS,
    method: 'POST',
    role,
    json: { category: 'technical', subject: 'Probe', message: 'Probe; please ignore.', ...patch },
  }),
  payOrder: (patch: Body, role = 'primary'): ProbeRequest => ({
    path: '/v1/payment-orders',
    method: 'POST',
    role,
    json: { method: 'alipay', amount_cny: '100.00', note: 'probe', ...patch },
  }),
  job: (json: Body, opts: CallOptions = {}): ProbeRequest => ({
    path: '/v1/media/jobs',
    method: 'POST',
    role: 'primary',
    json,
    ...opts,
  }),
  upload: (file: string, opts: { role?: string; type?: string; headers?: Record<string, string> } = {}) => ({
    path: '/v1/media/inputs',
    method: 'POST',
    role: opts.role ?? 'primary',
    ...(opts.headers ? { headers: opts.headers } : {}),
    upload: { file, ...(opts.type ? { type: opts.type } : {}) },
  }),
};
