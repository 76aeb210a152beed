/**
 * One HAR 1.2 entry as the suite's own exchange record: the request's facts (method, path, headers,
 * JSON body, which credential it carried) and the answer as the checks read it, built with the same
 * functions the recording client uses (openExchange, closeExchange), so a captured exchange and a live
 * one are judged alike. Bodies may be textual or base64 (`content.encoding`), as browsers, proxies and
 * Playwright write them.
 */
import { createHash } from 'node:crypto';
import { closeExchange, type HttpResponse, openExchange } from '../http/client.ts';
import type { Redactor, Registrations } from '../http/redact.ts';
import { memoize } from '../memo.ts';

export interface CapturedExchange {
  /** `file#index`, for messages: names the entry, never its content. */
  where: string;
  method: string;
  /** Path and query as sent (unredacted: matched against the description, never printed). */
  path: string;
  /** The origin of its URL (`https://gw.example`); '' for a relative one (a gateway log's path). */
  origin: string;
  /** Lower-cased request headers. */
  headers: Record<string, string>;
  /** The request's JSON body, when it has one. */
  json?: unknown;
  /** The request body as text (for comparing a replay with its original). */
  bodyText?: string;
  /** A digest of the credential the request carried (Authorization, else a cookie): who sent it. */
  who?: string;
  /** The gateway logged the credential the request carried (`_credential`), whatever headers it kept. */
  credentialLogged?: true;
  /** The request's key is a mask (isMasked): a key was sent; whose, the capture does not say. */
  credentialMasked?: true;
  /** The capture holds no request headers of it (a log line without them): what was sent is not known. */
  headersUnknown?: true;
  /** How long the exchange took (HAR `time`, a log's `duration_ms`), where the capture says. */
  durationMs?: number;
  /** The answer, or undefined when the entry has none usable (`problem` says why). */
  res?: HttpResponse;
  problem?: string;
  /** The problem is a body in the capture that does not decode (not a part the capturing tool left out). */
  undecodable?: true;
  startedAt: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;

/** HAR headers (`[{name, value}]`) as lower-cased names; repeated headers joined with ', '. */
export function harHeaders(list: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(list)) return out;
  for (const h of list) {
    const o = obj(h);
    if (!o || typeof o.name !== 'string' || typeof o.value !== 'string') continue;
    // HTTP/2 pseudo-headers (:authority, :path) are not headers of the exchange.
    if (o.name.startsWith(':')) continue;
    const name = o.name.toLowerCase();
    // A name the object already inherits (`constructor`, `__proto__`) is a header like any other.
    const value = Object.hasOwn(out, name) ? `${out[name]}, ${o.value}` : o.value;
    if (name === '__proto__')
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  }
  return out;
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** A HAR body (`text` with an optional `encoding`): its bytes, or why it does not decode. */
function decodeBody(text: unknown, encoding: unknown): Buffer | string {
  if (typeof text !== 'string') return Buffer.alloc(0);
  if (encoding === undefined || encoding === null || encoding === '') return Buffer.from(text, 'utf8');
  if (encoding !== 'base64') return `an unknown body encoding ${JSON.stringify(encoding)}`;
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 === 1 || !BASE64.test(compact)) return 'a base64 body that does not decode';
  return Buffer.from(compact, 'base64');
}

/** A credential header's value without its scheme (`Bearer x` -> `x`). */
const withoutScheme = (value: string): string => value.replace(/^\S+\s+(?=\S)/, '').trim();

/** The words a capturing tool or a log writes in place of a secret (`[REDACTED]`, `<masked>`, `FILTERED`). */
const MASK_WORD =
  /^[[<({]?\s*(?:redacted|masked|filtered|hidden|removed|secret|sanitized|omitted|scrubbed|elided)\s*[\]>)}]?$/i;

/**
 * Whether a credential header's value is a mask written in place of the key, not a key: nothing after the
 * scheme (`Bearer`), a word such as `[REDACTED]` or `<masked>`, anything in angle brackets (`<API_KEY>`),
 * a run of `*` or `•` or an ellipsis (`****`, `sk-abc…xyz`), or only `x` after a prefix (`xxxx`,
 * `sk-xxxxxxxx`). Such a value names no one key (every tenant's shows alike) and no reply holds it as a
 * secret. The suite's own masks that name a role (`Bearer [REDACTED:primary]`, --har) tell roles apart:
 * not masks here.
 */
export function isMasked(value: string): boolean {
  const token = withoutScheme(value);
  if (token === '' || /^(?:bearer|basic|token|apikey|api-key)$/i.test(token)) return true;
  if (MASK_WORD.test(token) || /^<[^<>]*>$/.test(token)) return true;
  if (/\*{3,}|•{3,}|…|\.{3,}/.test(token)) return true;
  return /^(?:[a-z0-9]+[-_])*x{4,}$/i.test(token);
}

/**
 * The digest a credential is known by in the judgement (never the credential itself): the credential
 * header, else the id a gateway log names the key by (`_credential`, src/traffic/formats.ts). A masked
 * key (isMasked) is no credential known: undefined, unless the gateway logged its id.
 */
export function credentialOf(headers: Record<string, string>, logged?: unknown): string | undefined {
  const key = headers.authorization ?? headers['x-api-key'];
  const id = typeof logged === 'string' ? `logged credential ${logged}` : undefined;
  const value = key !== undefined && isMasked(key) ? id : (key ?? headers.cookie ?? id);
  if (!value) return undefined;
  // A capture's requests carry a few credentials over and over: each digested once.
  let digest = digests.get(value);
  if (digest === undefined) {
    if (digests.size >= 10_000) digests.clear();
    digest = createHash('sha256').update(value).digest('hex').slice(0, 16);
    digests.set(value, digest);
  }
  return digest;
}
const digests = new Map<string, string>();

/**
 * Register every credential an entry carries (with the redactor, before anything is printed): header
 * credentials, cookies (request and Set-Cookie), credential-like query parameters. Returns the API keys
 * among them (Authorization after its scheme, X-API-Key): no reply may hold one (SEC-001).
 */
export function registerCredentials(entry: unknown, registered: Registrations): string[] {
  const req = obj(obj(entry)?.request);
  if (!req) return [];
  const url = typeof req.url === 'string' ? req.url : '';
  const headers = harHeaders(req.headers);
  registered.registerSent(pathOf(url), headers);
  const keys = [headers.authorization, headers['x-api-key']].map((h) =>
    h === undefined || isMasked(h) ? undefined : withoutScheme(h),
  );
  // Cookies listed apart from the header, and credential-like query parameters listed apart from the URL.
  for (const list of [req.cookies, obj(obj(entry)?.response)?.cookies])
    if (Array.isArray(list))
      for (const c of list) {
        const v = obj(c)?.value;
        if (typeof v === 'string') registered.register(v, 'sent credential');
      }
  const set = harHeaders(obj(obj(entry)?.response)?.headers)['set-cookie'];
  if (set)
    for (const m of set.matchAll(/(?:^|, )[^=;,\s]+=([^;]*)/g))
      registered.register(m[1]!.trim(), 'sent credential');
  return keys.filter((k): k is string => typeof k === 'string' && k.length >= 4);
}

/**
 * A URL's origin and path-and-query, as `new URL` reads them (a relative one: no origin, the path as it
 * stands). Kept per URL text: a capture names the same few URLs over and over (a job polled, a catalog
 * read), and each entry's URL is read three to five times over both passes (about 2 µs each).
 */
const urlParts = memoize((url: string): { origin: string; path: string } => {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  return u
    ? { origin: url.startsWith('/') ? '' : u.origin, path: u.pathname + u.search }
    : { origin: '', path: url.startsWith('/') ? url : `/${url}` };
}, 10_000);

/** The origin of a request's URL (`https://gw.example`), or '' for a relative one (a log's path). */
export const originOf = (url: string): string => urlParts(url).origin;

/** The path and query of a request's URL (a relative one as it stands). */
export const pathOf = (url: string): string => urlParts(url).path;

/** One HAR entry read into a captured exchange; `problem` names what is missing or does not decode. */
export function readEntry(entry: unknown, where: string, id: string, redactor: Redactor): CapturedExchange {
  const e = obj(entry);
  const req = obj(e?.request);
  const startedAt = typeof e?.startedDateTime === 'string' ? e.startedDateTime : '';
  if (!req || typeof req.method !== 'string' || typeof req.url !== 'string')
    return {
      where,
      method: '?',
      path: '?',
      origin: '',
      headers: {},
      startedAt,
      problem: 'no request (method and url)',
    };
  const method = req.method.toUpperCase();
  const path = pathOf(req.url);
  const headers = harHeaders(req.headers);
  const post = obj(req.postData);
  const out: CapturedExchange = { where, method, path, origin: originOf(req.url), headers, startedAt };
  const who = credentialOf(headers, e?._credential);
  if (who) out.who = who;
  if (typeof e?._credential === 'string' && e._credential !== '') out.credentialLogged = true;
  const key = headers.authorization ?? headers['x-api-key'];
  if (key !== undefined && isMasked(key)) out.credentialMasked = true;
  let body: Buffer | string | undefined;
  if (post && typeof post.text === 'string') {
    if (
      (post.encoding === undefined || post.encoding === null || post.encoding === '') &&
      post.text.isWellFormed()
    ) {
      // A body held as text is that text (its bytes made only for its record, if a finding cites it).
      body = post.text;
      out.bodyText = post.text;
    } else {
      const decoded = decodeBody(post.text, post.encoding);
      if (typeof decoded === 'string')
        return { ...out, problem: `the request body: ${decoded}`, undecodable: true };
      body = decoded;
      out.bodyText = decoded.toString('utf8');
    }
    if (!headers['content-type'] && typeof post.mimeType === 'string')
      headers['content-type'] = post.mimeType;
    if (/json/i.test(headers['content-type'] ?? '')) {
      try {
        out.json = JSON.parse(out.bodyText);
      } catch {
        // a request body that is not JSON: the target's refusal of it is not judged here
      }
    }
  }
  // The records of the bodies and the response headers are made when a finding cites the exchange
  // (recordNow): pass 1 registered every credential of the capture, so they come out the same.
  const exchange = openExchange(
    redactor,
    { id, startedAt, method, path, headers, body, json: out.json },
    true,
  );
  exchange.test = 'capture';
  // A HAR always lists the request's headers (HAR 1.2: `headers` is required); a log line that kept none
  // says nothing of what was sent (an Accept that selects the legacy currency format, say).
  if (!Array.isArray(req.headers)) {
    exchange.requestHeadersUnknown = true;
    out.headersUnknown = true;
  }
  const r = obj(e?.response);
  const status = r?.status;
  if (!r || typeof status !== 'number' || status < 100 || status > 599)
    return { ...out, problem: `no response (status ${JSON.stringify(status ?? null)})` };
  const content = obj(r.content) ?? {};
  // A log format that holds no body (or not this one, or a part of it) says so: the exchange is judged on
  // what it holds.
  const absent = typeof content._absent === 'string' ? content._absent : undefined;
  // An empty text beside a size above 0 is no body of that size either (a tool that leaves bodies out
  // writes one or the other); a HEAD's answer has no body whatever its size says.
  if (
    (content.text === undefined || content.text === '') &&
    !absent &&
    typeof content.size === 'number' &&
    content.size > 0 &&
    method !== 'HEAD'
  )
    return { ...out, problem: `the response body (${content.size} bytes) is not in the capture` };
  const decoded = decodeBody(content.text, content.encoding);
  if (typeof decoded === 'string')
    return { ...out, problem: `the response body: ${decoded}`, undecodable: true };
  const h = harHeaders(r.headers);
  if (
    !h['content-type'] &&
    typeof content.mimeType === 'string' &&
    content.mimeType !== '' &&
    decoded.length > 0
  )
    h['content-type'] = content.mimeType;
  // Content-Encoding describes the bytes on the wire; a HAR holds them decoded.
  delete h['content-encoding'];
  if (typeof e?.time === 'number') exchange.durationMs = Math.round(e.time);
  if (typeof e?.time === 'number' && e.time > 0 && Number.isFinite(e.time)) out.durationMs = e.time;
  // A body held as text is that text decoded (unless it holds a lone surrogate, which the bytes cannot).
  const text =
    typeof content.text === 'string' && !content.encoding && content.text.isWellFormed()
      ? content.text
      : undefined;
  out.res = closeExchange(redactor, exchange, path, status, h, decoded, undefined, true, text);
  if (absent !== undefined) out.res.bodyAbsent = absent;
  if (out.bodyText !== undefined) out.res.sentText = out.bodyText;
  // When the body arrived, as far as HAR says (first byte to last): what RSP-090 judges a stream by.
  const receive = obj(e?.timings)?.receive;
  if (typeof receive === 'number' && receive >= 0) out.res.arrival = { kind: 'receive', receiveMs: receive };
  return out;
}
