import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { TransportError } from '../errors.ts';
import { mayNestDeeper, nestingDepth } from './nesting.ts';
import type { Redactor } from './redact.ts';
import { hasDotSegment } from './segment.ts';
import { Agent, request } from './undici.ts';

export interface RecordedBody {
  bytes: number;
  sha256: string;
  contentType?: string;
  /** First bytes as text (redacted), for JSON and text bodies only. */
  preview?: string;
}

/** One request/response pair as it goes into the report: redacted, with a digest of each body. */
export interface Exchange {
  id: string;
  test?: string;
  startedAt: string;
  method: string;
  /** Path and query, redacted. */
  path: string;
  requestHeaders: Record<string, string>;
  /** A captured exchange whose log did not record the request's headers (which of them were sent is not known). */
  requestHeadersUnknown?: true;
  requestBody?: RecordedBody;
  /** The AI model the request's JSON body names (`model`), redacted like the rest. */
  model?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: RecordedBody;
  requestId?: string;
  durationMs: number;
  error?: { code: string; message: string };
  /** 429 answers waited out before this one. */
  retries?: Array<{ status: number; waitedMs: number }>;
  /** This attempt repeats, on a fresh connection, a request whose connection failed (transientRetry). */
  retryOf?: { exchangeId: string; code: string };
  /** This attempt's connection failed and the request is repeated (transientRetry): no answer yet, no verdict. */
  repeated?: true;
}

export interface HttpResponse {
  exchange: Exchange;
  method: string;
  /** The path as sent (unredacted, for matching the description). */
  rawPath: string;
  status: number;
  /** Lower-cased header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** Media type without parameters, lower-cased. */
  mediaType?: string;
  /** Parsed JSON when the body is JSON text, else undefined. */
  json: unknown;
  jsonError?: string;
  /** The body is JSON nested deeper than MAX_JSON_DEPTH: parsed, then left out (`json` undefined). */
  jsonTooDeep?: true;
  /**
   * A JSON body larger than JSON_PARSE_CAP: only its first JSON_PARSE_CAP bytes are kept (`body`, `text`),
   * none is parsed (`json` undefined); the whole was counted and hashed as it arrived. What it holds is
   * not judged (CheckContext.request ends the test not run).
   */
  bodyTooLarge?: { bytes: number; sha256: string };
  /** When a text/event-stream body arrived (RSP-090, src/checks/stream-pacing.ts); absent: not known. */
  arrival?: StreamArrival;
  /**
   * The body is not known (a captured log that holds none, or a part of it: src/traffic/formats.ts): why.
   * `body` is empty or that part, and only what the status and headers say is judged on it (and a part
   * kept is looked at for secrets).
   */
  bodyAbsent?: string;
  /**
   * What the request carried as its body, as text, where a capture holds it: a secret the reply repeats
   * from there is the client's own text echoed (a prompt quoting a key), not one the server gave out.
   */
  sentText?: string;
}

/**
 * When the body of an event-stream reply arrived. `chunks`: the live client's record, each chunk's end
 * (byte offset into the body) and the ms since the response's head arrived (`waitMs` after the request
 * started). `receive`: a capture's HAR timings.receive, the ms from the first byte to the last.
 */
export type StreamArrival =
  | { kind: 'chunks'; waitMs: number; chunks: Array<{ end: number; ms: number }> }
  | { kind: 'receive'; receiveMs: number };

export interface RequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
  body?: Buffer | string;
  /** Wait out 429 + Retry-After (bounded). Only for requests that are safe to repeat. */
  retry429?: boolean;
  timeoutMs?: number;
  /** Called when each attempt may start (after its gate slot is granted); a throw cancels the request. */
  beforeAttempt?: () => void;
}

export interface ClientOptions {
  baseUrl: string;
  timeoutMs: number;
  redactor: Redactor;
  /** Called with every completed exchange (or transport failure) before it is returned. */
  onExchange?: (exchange: Exchange, response?: HttpResponse, spec?: RequestSpec) => void;
  testName?: string;
  maxBodyBytes?: number;
  max429Waits?: number;
  max429WaitMs?: number;
  /**
   * Where each attempt waits for a slot (the run's request gate): held for the round trip only, not
   * while a 429's Retry-After is waited out.
   */
  gate?: { run<T>(fn: () => Promise<T>): Promise<T> };
  /** Aborts every request in flight and refuses new ones (a stop asked during the preflight). */
  signal?: AbortSignal;
  /** The run's deadline (ms since the epoch): a Retry-After is waited at most until then. */
  deadlineAt?: number;
  /** Called before each attempt of every request (after spec's own); a throw cancels the request. */
  beforeAttempt?: () => void;
  /**
   * A request that is not safe to repeat goes over the kept-alive connections, not one of its own
   * (oneShotAgent): a target that closes no idle connection under a request (TargetConfig.unrepeatable).
   */
  pooledUnrepeatable?: boolean;
}

/** How much of a text body a recorded exchange keeps (its `preview`). */
export const PREVIEW_BYTES = 4096;

/**
 * The most of a JSON reply the suite keeps and parses: 32 MiB. The largest reply the contract makes
 * plausible is a list: a media catalog of 20,000 models (each with its prompt contract and parameters)
 * is 18 MB, a page of usage or ledger records a few MiB. A parsed body takes several times its size in
 * memory, so a target answering 60 MB lists to concurrent requests would otherwise hold gigabytes.
 * Beyond it the body is counted and hashed, not kept.
 */
export const JSON_PARSE_CAP = 32 * 1024 * 1024;
/** Deeper than any shape of the contract, shallow enough for every recursive check of a body. */
export const MAX_JSON_DEPTH = 512;
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT']);

let sharedAgent: Agent | undefined;
function agent(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 10_000, connections: 64, connect: { timeout: 10_000 } });
  return sharedAgent;
}

let freshAgent: Agent | undefined;
/**
 * Connections used for one request only (pipelining 0: `connection: close`, never reused). Two kinds of
 * request go through it. The repeat of a request whose connection failed (transientRetry), so the repeat
 * cannot meet the same dead socket. And every request that is not safe to repeat (a POST without an
 * Idempotency-Key), from its first attempt: why, a server or load balancer may close an idle kept-alive
 * connection just as the client reuses it ("other side closed"), a race no client can see coming; a
 * request that can be repeated is repeated, but one that cannot would leave its test inconclusive.
 * A fresh connection cannot be idle-closed, so the race never reaches those requests; the price is a
 * connection (and TLS) set-up for each of them, a small share of a run's requests.
 */
function oneShotAgent(): Agent {
  freshAgent ??= new Agent({ pipelining: 0, connections: 64, connect: { timeout: 10_000 } });
  return freshAgent;
}

/**
 * Transport failures of the connection itself: reset, closed by the other side (a kept-alive socket the
 * server closed as the client reused it: undici's UND_ERR_SOCKET "other side closed"), refused, broken
 * pipe. Not a timeout (the target may be working on the request) nor a body cut short (it answered).
 */
export const CONNECTION_FAILURES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'UND_ERR_SOCKET',
  'ECONNREFUSED',
  'EPIPE',
]);

/**
 * What to do with a request whose attempt failed in transport (judging.md: a connection-level failure
 * before any byte of a response says nothing about the contract until it happens again on a fresh
 * connection): `retry` it once on a fresh connection when it is safe to repeat; `inconclusive` when it is
 * not (it cannot be retried, so nothing is known); `failure` otherwise: not a connection failure, a
 * response had started, or the failure repeated on the retry (`retried`). The target's failure: GEN-001.
 */
export function transientRetry(
  spec: Pick<RequestSpec, 'method' | 'headers'>,
  failure: { code: string; beforeResponse: boolean },
  retried: boolean,
): 'retry' | 'inconclusive' | 'failure' {
  if (!CONNECTION_FAILURES.has(failure.code) || !failure.beforeResponse || retried) return 'failure';
  return safeToRepeat(spec) ? 'retry' : 'inconclusive';
}

/** The first pause before repeating a safe request answered 429 without a valid Retry-After. */
export const NO_RETRY_AFTER_WAIT_MS = 1_000;

/** Whether a request may be sent again after a 429: an idempotent method, or a keyed POST. */
export function safeToRepeat(spec: Pick<RequestSpec, 'method' | 'headers'>): boolean {
  if (IDEMPOTENT.has(spec.method.toUpperCase())) return true;
  return Object.entries(spec.headers ?? {}).some(
    ([name, value]) => name.toLowerCase() === 'idempotency-key' && typeof value === 'string' && value !== '',
  );
}

/**
 * The rule for a request answered 429: after how many ms it is sent again, or undefined when it is not.
 * Only a request safe to repeat (safeToRepeat, or as the request itself says: `retry429`) is repeated:
 * after a valid Retry-After ("wait for the limit window"); without one the window is unknown, so a read
 * gets a short growing pause (1 s, 2 s, 4 s: a read a test needs, balance, catalog or usage, is not lost
 * to a guard tripping once) and a keyed POST (an upload past its quota, a job) is not repeated.
 * `waited`: the 429s this request has waited out already.
 */
export function repeatAfter429(
  spec: Pick<RequestSpec, 'method' | 'headers' | 'retry429'>,
  retryAfter: string | undefined,
  waited: number,
): number | undefined {
  if (!(spec.retry429 ?? safeToRepeat(spec))) return undefined;
  const stated = retryAfterMs(retryAfter);
  if (stated !== undefined) return stated;
  const method = spec.method.toUpperCase();
  return method === 'GET' || method === 'HEAD' ? NO_RETRY_AFTER_WAIT_MS * 2 ** waited : undefined;
}

export function mediaTypeOf(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

export function isJsonMediaType(mt: string | undefined): boolean {
  return !!mt && (mt === 'application/json' || mt.endsWith('+json'));
}

function isTextual(mt: string | undefined): boolean {
  return !!mt && (isJsonMediaType(mt) || mt.startsWith('text/') || mt.includes('xml'));
}

function recordBody(
  buf: Buffer,
  contentType: string | undefined,
  redactor: Redactor,
  whole?: { bytes: number; sha256: string },
): RecordedBody {
  const mt = mediaTypeOf(contentType);
  const rec: RecordedBody = whole
    ? { ...whole }
    : { bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
  if (contentType) rec.contentType = contentType;
  if (buf.length > 0 && (isTextual(mt) || !mt)) {
    const head = buf.subarray(0, PREVIEW_BYTES).toString('utf8');
    // Binary bodies get a digest only: a NUL or other C0 control byte (but tab/CR/LF) marks one.
    const binary = [...head.slice(0, 512)].some((ch) => {
      const c = ch.charCodeAt(0);
      return c < 9 || (c > 13 && c < 32);
    });
    if (!binary) {
      rec.preview = redactor.text(head) + (buf.length > PREVIEW_BYTES ? '…' : '');
    }
  }
  return rec;
}

/** The records of an exchange left to be made when a finding cites it (openExchange's `deferred`). */
const LATER = Symbol('records made when cited');
type Later = { [LATER]?: Array<() => void> };

/**
 * `key` of `o` left to `make` until recordNow: its place among the keys is taken now (undefined, which
 * JSON leaves out), so the record made later has the keys of one recorded at once, in the same order.
 * Why not a getter: defining accessors on every exchange of a capture (and their closures) cost about a
 * tenth of check-traffic's CPU, for records only the exchanges a finding cites ever need.
 */
function later<T extends object, K extends keyof T>(o: T, key: K, make: () => T[K]): void {
  (o as Record<K, unknown>)[key] = undefined;
  const makers = (o as Later)[LATER] ?? [];
  (o as Later)[LATER] = makers;
  makers.push(() => {
    o[key] = make();
  });
}

/**
 * The exchange with what openExchange and closeExchange left for later (`deferred`) made now, in place:
 * an exchange about to be kept (cited by a finding) holds its records, and no longer what they are made
 * from (the bodies). The symbol that held the makers is neither JSON nor copied to another thread.
 */
export function recordNow(exchange: Exchange): Exchange {
  const makers = (exchange as Later)[LATER];
  if (makers) {
    (exchange as Later)[LATER] = undefined;
    for (const make of makers) make();
  }
  return exchange;
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The three HTTP-date forms of RFC 9110 (IMF-fixdate, obsolete RFC 850, asctime). */
const HTTP_DATE = [
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]+day, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * Retry-After as a wait in ms: delay-seconds or an HTTP-date in the future, per RFC 9110. Anything else
 * (negative or fractional numbers, a date in the past, garbage) counts as absent: undefined.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!HTTP_DATE.some((re) => re.test(v))) return undefined;
  const t = Date.parse(/GMT$/.test(v) ? v : `${v} GMT`);
  return Number.isNaN(t) || t <= now ? undefined : t - now;
}

/**
 * The record of a request about to be sent (or found in a capture): its path, headers and body
 * redacted, with a digest of the body. What the request carries as a credential is registered with the
 * redactor first, so it is redacted from everything recorded from then on.
 */
export function openExchange(
  redactor: Redactor,
  req: {
    id: string;
    startedAt: string;
    method: string;
    path: string;
    /** The path as it went over the wire, when it differs from `path` as written (recorded instead). */
    sentPath?: string;
    headers: Record<string, string>;
    body?: Buffer | string | undefined;
    json?: unknown;
  },
  /**
   * The body's record (digest, redacted preview) made when a finding cites the exchange (recordNow): a
   * capture judges every exchange it holds and keeps only those a finding cites. Only where no secret is
   * registered after this call.
   */
  deferred = false,
): Exchange {
  redactor.registerSent(req.path, req.headers);
  const exchange: Exchange = {
    id: req.id,
    startedAt: req.startedAt,
    method: req.method,
    path: redactor.pathWithQuery(req.sentPath ?? req.path),
    requestHeaders: redactor.requestHeaders(req.headers),
    durationMs: 0,
  };
  const model = modelOf(req.json);
  if (model !== undefined) exchange.model = redactor.text(model);
  const body = req.body;
  if (body !== undefined) {
    const ct = Object.entries(req.headers).find(([h]) => h.toLowerCase() === 'content-type')?.[1];
    // The bytes of a body given as text are made with its record (deferred: only if a finding cites it).
    const record = () => recordBody(typeof body === 'string' ? Buffer.from(body) : body, ct, redactor);
    if (deferred) later(exchange, 'requestBody', record);
    else exchange.requestBody = record();
  }
  return exchange;
}

/**
 * The answer to an exchange as the checks read it (media type, text, JSON within MAX_JSON_DEPTH), and
 * its redacted record in `exchange`: status, headers, a digest of the body. `h`: lower-cased headers.
 */
export function closeExchange(
  redactor: Redactor,
  exchange: Exchange,
  rawPath: string,
  status: number,
  h: Record<string, string>,
  buf: Buffer,
  /** The whole body as it arrived (its size and digest), where only its first bytes are `buf`. */
  whole?: { bytes: number; sha256: string },
  /** The headers' and the body's records made when a finding cites the exchange (openExchange's `deferred`). */
  deferred = false,
  /** `buf` as text, where the caller holds it decoded already (a capture's body). */
  text = buf.toString('utf8'),
): HttpResponse {
  exchange.status = status;
  const headers = () => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, redactor.text(v)]));
  const body = () => recordBody(buf, h['content-type'], redactor, whole);
  if (deferred) {
    later(exchange, 'responseHeaders', headers);
    later(exchange, 'responseBody', body);
  } else {
    exchange.responseHeaders = headers();
    exchange.responseBody = body();
  }
  const tooLarge = whole && whole.bytes > buf.length ? whole : undefined;
  if (h['x-request-id']) exchange.requestId = redactor.text(h['x-request-id']);
  const mediaType = mediaTypeOf(h['content-type']);
  let json: unknown;
  let jsonError: string | undefined;
  let jsonTooDeep = false;
  // The description's media type is not stated ("OpenAPI 3.1 at `/openapi.json`"): JSON served there as
  // text/plain or octet-stream is read as JSON all the same (what its content type is, the description
  // itself judges, RESP-002).
  const description = rawPath.split('?')[0] === '/openapi.json' && /^\s*\{/.test(text);
  const looksJson = isJsonMediaType(mediaType) || (!mediaType && /^\s*[[{]/.test(text)) || description;
  if (tooLarge)
    jsonError = `a body of ${tooLarge.bytes} bytes, more than the ${JSON_PARSE_CAP} the suite reads: not examined`;
  else if (looksJson && buf.length > 0) {
    try {
      json = JSON.parse(text);
      // Every check walks bodies; a body nested deeper than any contract shape is not walked at all.
      if (mayNestDeeper(text, MAX_JSON_DEPTH) && nestingDepth(json, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
        json = undefined;
        jsonTooDeep = true;
        jsonError = `JSON nested deeper than ${MAX_JSON_DEPTH} levels: not examined`;
      }
    } catch (err) {
      jsonError = (err as Error).message;
    }
  }
  const out: HttpResponse = {
    exchange,
    method: exchange.method,
    rawPath,
    status,
    headers: h,
    body: buf,
    text,
    json,
  };
  if (mediaType) out.mediaType = mediaType;
  if (jsonError) out.jsonError = jsonError;
  if (jsonTooDeep) out.jsonTooDeep = true;
  if (tooLarge) out.bodyTooLarge = tooLarge;
  return out;
}

/** How long after the run's deadline a Retry-After wait it cuts ends (see send). */
const DEADLINE_MARGIN_MS = 25;

/**
 * HTTP client on undici. Every request has a deadline; every exchange is recorded redacted.
 * Why no blind retries: a POST the target may have executed is never repeated; only requests that are
 * safe to repeat wait out a 429 with Retry-After ("wait for the limit window"), a bounded number of
 * times: idempotent methods, and a POST carrying an Idempotency-Key (the contract's own rule makes the
 * same key return the same resource or charge, never a second one). The rule: repeatAfter429. The same
 * requests are repeated once on a fresh connection after a connection failure before any byte of a
 * response (transientRetry); the others never reuse a connection (oneShotAgent).
 */
export class HttpClient {
  private seq = 0;
  constructor(private readonly opts: ClientOptions) {}

  async send(spec: RequestSpec): Promise<HttpResponse> {
    const retries: Array<{ status: number; waitedMs: number }> = [];
    const maxWaits = this.opts.max429Waits ?? 3;
    let retryOf: Exchange['retryOf'];
    for (;;) {
      const attempt = () => {
        this.opts.beforeAttempt?.();
        spec.beforeAttempt?.();
        return this.once(spec, retries, retryOf);
      };
      let res: HttpResponse;
      try {
        res = this.opts.gate ? await this.opts.gate.run(attempt) : await attempt();
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        const next = transientRetry(spec, err, retryOf !== undefined);
        if (next === 'inconclusive')
          err.inconclusive = `${err.message}: the connection failed before any byte of a response, and a ${spec.method.toUpperCase()} without an Idempotency-Key is not safe to repeat`;
        if (next !== 'retry') throw err;
        retryOf = { exchangeId: err.exchangeId ?? '', code: err.code };
        continue;
      }
      // Answered: a later attempt (after a 429) starts afresh, with its own one repeat.
      retryOf = undefined;
      this.opts.onExchange?.(res.exchange, res, spec);
      if (res.status !== 429 || retries.length >= maxWaits) return res;
      const wait = repeatAfter429(spec, res.headers['retry-after'], retries.length);
      if (wait === undefined || wait > (this.opts.max429WaitMs ?? 30_000)) return res;
      // Waited at most until the run's deadline, and a stop ends it. A wait the deadline cuts ends just
      // after it (the run's stop, due at the deadline, comes first and ends the wait; on a loaded machine
      // the two timers could otherwise fire in either order), and no attempt follows it, whatever the
      // clock reads when it ends (a timer counts on the monotonic clock, Date.now on the wall clock,
      // which a time sync can set back): the last reply is the answer.
      const deadlineAt = this.opts.deadlineAt ?? Number.POSITIVE_INFINITY;
      const bounded = Math.max(0, Math.min(wait, deadlineAt - Date.now() + DEADLINE_MARGIN_MS));
      retries.push({ status: 429, waitedMs: bounded });
      await sleep(bounded, undefined, this.opts.signal ? { signal: this.opts.signal } : {});
      if (bounded < wait || Date.now() >= deadlineAt) return res;
    }
  }

  private async once(
    spec: RequestSpec,
    retries: Array<{ status: number; waitedMs: number }>,
    retryOf: Exchange['retryOf'],
  ): Promise<HttpResponse> {
    const { redactor } = this.opts;
    const method = spec.method.toUpperCase();
    const headers: Record<string, string> = { ...(spec.headers ?? {}) };
    let body: Buffer | string | undefined = spec.body;
    if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
    }
    const id = `${process.pid}-${++this.seq}-${randomUUID().slice(0, 8)}`;
    // A path the URL parser would rewrite (a dot segment) reaches another resource than the one meant:
    // never sent, and recorded as written.
    const dotted = hasDotSegment(spec.path);
    const url =
      !dotted && URL.canParse(this.opts.baseUrl + spec.path)
        ? new URL(this.opts.baseUrl + spec.path)
        : undefined;
    const exchange = openExchange(redactor, {
      id,
      startedAt: new Date().toISOString(),
      method,
      path: spec.path,
      // What goes over the wire: the path as the URL parser leaves it, not as the caller wrote it.
      ...(url ? { sentPath: sentPath(this.opts.baseUrl, url) } : {}),
      headers,
      body,
      json: spec.json,
    });
    if (this.opts.testName) exchange.test = this.opts.testName;
    if (retries.length) exchange.retries = [...retries];
    if (retryOf) exchange.retryOf = retryOf;
    const timeoutMs = spec.timeoutMs ?? this.opts.timeoutMs;
    const started = performance.now();
    const maxBody = this.opts.maxBodyBytes ?? 64 * 1024 * 1024;
    // undici resolves request() once the response's head is parsed: a failure before it is one before
    // the response (transientRetry); a failure after it (body cut short, body timeout) is an answer's.
    let headReceived = false;
    // One deadline for the whole exchange, body included, kept by a plain timer: an AbortSignal.timeout
    // inside AbortSignal.any stops firing once collected (nodejs/node#57736), and undici's idle timeouts
    // never fire while a reply drips bytes.
    const deadline = new AbortController();
    let timedOut = false;
    let stream: { destroy(err?: Error): void } | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      const err = new DOMException(`no complete response within ${timeoutMs} ms`, 'TimeoutError');
      deadline.abort(err);
      stream?.destroy(err);
    }, timeoutMs);
    const stop = this.opts.signal;
    const onStop = () => deadline.abort(stop?.reason);
    if (stop?.aborted) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
    try {
      if (dotted)
        throw Object.assign(new Error('the path holds a dot segment: not sent'), { code: 'DOT_SEGMENT' });
      if (!url) throw Object.assign(new Error('not a valid URL: not sent'), { code: 'INVALID_URL' });
      const res = await request(url, {
        method: method as 'GET',
        headers,
        body,
        dispatcher:
          retryOf || (!safeToRepeat(spec) && !this.opts.pooledUnrepeatable) ? oneShotAgent() : agent(),
        signal: deadline.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      headReceived = true;
      stream = res.body;
      // An event stream's chunks are timed as they come (RSP-090): offsets and ms since the head, cheap.
      const headAt = performance.now();
      const timed =
        mediaTypeOf(flatHeaders(res.headers)['content-type']) === 'text/event-stream'
          ? ([] as Array<{ end: number; ms: number }>)
          : undefined;
      // A JSON reply is kept up to JSON_PARSE_CAP; past it, counted and hashed as it arrives (not kept).
      const mt = mediaTypeOf(flatHeaders(res.headers)['content-type']);
      const keep = !mt || isJsonMediaType(mt) ? JSON_PARSE_CAP : maxBody;
      const hash = createHash('sha256');
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const c = chunk as Buffer;
        size += c.length;
        timed?.push({ end: size, ms: performance.now() - headAt });
        if (size > maxBody) {
          res.body.destroy();
          throw Object.assign(new Error(`response body larger than ${maxBody} bytes`), {
            code: 'BODY_TOO_LARGE',
          });
        }
        hash.update(c);
        const kept = size - c.length;
        if (kept < keep) chunks.push(kept + c.length > keep ? c.subarray(0, keep - kept) : c);
      }
      const buf = Buffer.concat(chunks);
      exchange.durationMs = Math.round(performance.now() - started);
      const out = closeExchange(
        redactor,
        exchange,
        spec.path,
        res.statusCode,
        flatHeaders(res.headers),
        buf,
        {
          bytes: size,
          sha256: hash.digest('hex'),
        },
      );
      if (timed) out.arrival = { kind: 'chunks', waitMs: headAt - started, chunks: timed };
      return out;
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string } };
      exchange.durationMs = Math.round(performance.now() - started);
      const code =
        timedOut ||
        e.name === 'TimeoutError' ||
        e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
        e.code === 'UND_ERR_BODY_TIMEOUT'
          ? 'TIMEOUT'
          : (e.code ?? e.cause?.code ?? e.name);
      const message =
        code === 'TIMEOUT'
          ? `no complete response within ${timeoutMs} ms`
          : redactor.text(
              `${e.message}${e.cause && (e.cause as Error).message ? ` (${(e.cause as Error).message})` : ''}`,
            );
      exchange.error = { code, message };
      if (transientRetry(spec, { code, beforeResponse: !headReceived }, retryOf !== undefined) === 'retry')
        exchange.repeated = true;
      this.opts.onExchange?.(exchange);
      const again = retryOf ? ` (again on a fresh connection, after ${retryOf.code})` : '';
      throw new TransportError(
        `${method} ${exchange.path}: ${message} [${code}]${again}`,
        code,
        exchange.id,
        !headReceived,
      );
    } finally {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    }
  }
}

/** The path and query `url` sends, relative to the base URL's own path when it lies under it. */
function sentPath(baseUrl: string, url: URL): string {
  const base = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const path = url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : url.pathname;
  return path + url.search;
}

/** The AI model a request's JSON body names, if any. */
export function modelOf(json: unknown): string | undefined {
  const model = (json as { model?: unknown } | null | undefined)?.model;
  return typeof json === 'object' && json !== null && typeof model === 'string' ? model : undefined;
}
