/**
 * The formats a capture comes in, each read into the one item the judging takes (HarItem: a HAR 1.2
 * entry), so a line of an exchange log is judged by exactly the code a HAR entry is (capture.ts
 * readEntry, the per-exchange checks, rules.ts). HAR 1.2 (browsers, proxies, Playwright, `--har`); the
 * suite's own exchange log (exchanges.ndjson) (one src/http/client.ts Exchange a line); and one generic line format
 * for gateway access logs (GATEWAY_FIELDS, documented in docs/traffic.md). What a line does not hold
 * is said on the entry: a response body not in the log is `content._absent` (its reason), judged by
 * what needs no body and said as not judged by the rest.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { isJsonMediaType, mediaTypeOf, PREVIEW_BYTES } from '../http/client.ts';
import { REPORT_FILES } from '../report/layout.ts';
import { type HarItem, harItems } from './har-stream.ts';
import { type LineEntry, ndjsonItems } from './ndjson-stream.ts';

export const CAPTURE_FORMATS = ['har', 'ndjson', 'gateway'] as const;
export type CaptureFormat = (typeof CAPTURE_FORMATS)[number];

/** How much of a file the format is told from. */
const SNIFF_BYTES = 64 * 1024;
/** The suite's own log keeps the first bytes of a body (src/http/client.ts). */
const SUITE_PREVIEW_BYTES = PREVIEW_BYTES;
const SUITE_LOG = REPORT_FILES.exchanges.name;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The format of a file from its content: a JSON object whose first key is `log` is HAR (a HAR's root
 * has no other key); otherwise the first line that parses decides between the suite's own exchange log
 * (`requestHeaders`, `durationMs`) and the gateway line format. A file that starts with anything else
 * (or cannot be opened) is taken as HAR, whose reader says what is wrong with it.
 */
export function detectFormat(file: string): CaptureFormat {
  let head: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(SNIFF_BYTES);
      head = buf.subarray(0, readSync(fd, buf, 0, SNIFF_BYTES, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return 'har';
  }
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (!text.startsWith('{') || /^\{\s*"log"\s*:/.test(text)) return 'har';
  const lines = text.split('\n');
  // A first line that is not a whole JSON object is a JSON document written over several lines (HAR),
  // unless it is a broken line of a log: then the first line that parses decides.
  if (parsedObject(lines[0]!) === undefined && /"log"\s*:\s*\{/.test(text)) return 'har';
  for (const line of lines) {
    const o = parsedObject(line);
    if (o && 'log' in o) return 'har';
    if (o) return lineFormat(o);
  }
  return 'gateway';
}

function parsedObject(line: string): Json | undefined {
  try {
    return obj(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** Which line format a line (a JSON object) is in: the suite's own Exchange, else the gateway's. */
export function lineFormat(o: Json): Exclude<CaptureFormat, 'har'> {
  return 'requestHeaders' in o || 'durationMs' in o ? 'ndjson' : 'gateway';
}

/** The items of one capture file in its format (given, or told from its content). */
export function captureItems(
  file: string,
  format: CaptureFormat | undefined,
  read?: (bytes: number) => void,
): AsyncGenerator<HarItem> {
  const f = format ?? detectFormat(file);
  return f === 'har' ? harItems(file, read) : ndjsonItems(file, lineEntry(f), read);
}

/** The reader of one line format. */
export function lineEntry(format: Exclude<CaptureFormat, 'har'>): LineEntry {
  return format === 'ndjson' ? suiteEntry : gatewayEntry;
}

/** Headers as HAR lists them: `{name: value}` (a value may be a list of repeated values). */
function harHeaderList(h: unknown): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (const [name, v] of Object.entries(obj(h) ?? {}))
    for (const value of Array.isArray(v) ? v : [v])
      if (typeof value === 'string' || typeof value === 'number') out.push({ name, value: String(value) });
  return out;
}

/** The line of the suite's own exchange log (an Exchange of src/http/client.ts) as a HAR entry. */
function suiteEntry(value: unknown): Json | string {
  const x = obj(value);
  if (!x) return 'not a JSON object';
  const body = (b: unknown): { text?: string; absent?: string; mimeType?: string } => {
    const r = obj(b);
    if (!r) return { text: '' };
    const mimeType = str(r.contentType);
    const bytes = typeof r.bytes === 'number' ? r.bytes : 0;
    if (bytes === 0) return { text: '', ...(mimeType ? { mimeType } : {}) };
    // The log keeps a body's first 4096 bytes, and only of a text body: whole only when it is that short.
    if (typeof r.preview === 'string' && bytes <= SUITE_PREVIEW_BYTES)
      return { text: r.preview, ...(mimeType ? { mimeType } : {}) };
    return {
      absent:
        typeof r.preview === 'string'
          ? `${SUITE_LOG} keeps the first ${SUITE_PREVIEW_BYTES} bytes of a body, this one has ${bytes}`
          : `${SUITE_LOG} keeps a digest of a binary body, not the body`,
      ...(mimeType ? { mimeType } : {}),
    };
  };
  const req = body(x.requestBody);
  const entry: Json = {
    startedDateTime: str(x.startedAt) ?? '',
    ...(typeof x.durationMs === 'number' ? { time: x.durationMs } : {}),
    request: {
      method: x.method,
      url: x.path,
      headers: harHeaderList(x.requestHeaders),
      ...(req.text !== undefined && req.text !== ''
        ? { postData: { text: req.text, mimeType: req.mimeType ?? '' } }
        : {}),
    },
  };
  if (typeof x.status === 'number') {
    const res = body(x.responseBody);
    entry.response = {
      status: x.status,
      headers: harHeaderList(x.responseHeaders),
      content: {
        size: typeof obj(x.responseBody)?.bytes === 'number' ? obj(x.responseBody)!.bytes : 0,
        mimeType: res.mimeType ?? '',
        ...(res.text !== undefined ? { text: res.text } : {}),
        ...(res.absent !== undefined ? { _absent: res.absent } : {}),
      },
    };
  }
  return entry;
}

/**
 * The generic gateway line (docs/traffic.md, "The gateway line format"): `time`, `method`, `url` or
 * `path`, `status`, `request_headers`, `response_headers`, `request_body`, `response_body` (text, or
 * base64 with `*_body_encoding: "base64"`), `response_body_bytes` (the body's whole size, where the
 * gateway logs a part of it), `duration_ms`, and who sent it: `credential` (an id the gateway logs for
 * the key), `tenant`, `client` (its address).
 */
export const GATEWAY_FIELDS = [
  'time',
  'method',
  'url',
  'path',
  'status',
  'request_headers',
  'response_headers',
  'request_body',
  'request_body_encoding',
  'response_body',
  'response_body_encoding',
  'response_body_bytes',
  'duration_ms',
  'credential',
  'tenant',
  'client',
] as const;

/** The largest time a JavaScript date holds, in milliseconds either side of the epoch (ECMA-262 21.4.1.1). */
const MAX_EPOCH_MS = 8.64e15;

function gatewayEntry(value: unknown): Json | string {
  const x = obj(value);
  if (!x) return 'not a JSON object';
  // Epoch milliseconds, or a text as logged; a number no date has (1e20) is no time, not a reason to
  // drop the exchange.
  const time =
    typeof x.time === 'number'
      ? Math.abs(x.time) <= MAX_EPOCH_MS
        ? new Date(x.time).toISOString()
        : ''
      : typeof x.time === 'string'
        ? x.time
        : '';
  const entry: Json = {
    startedDateTime: time,
    ...(typeof x.duration_ms === 'number' ? { time: x.duration_ms } : {}),
    request: {
      method: x.method,
      url: x.url ?? x.path,
      // A line without request_headers: the request's headers are not known (not "none were sent").
      ...(obj(x.request_headers) ? { headers: harHeaderList(x.request_headers) } : {}),
      ...(typeof x.request_body === 'string' && x.request_body !== ''
        ? { postData: { text: x.request_body, encoding: x.request_body_encoding, mimeType: '' } }
        : {}),
    },
  };
  for (const k of ['credential', 'tenant', 'client'] as const) {
    const v = typeof x[k] === 'number' ? String(x[k]) : str(x[k]);
    if (v !== undefined) entry[`_${k}`] = v;
  }
  if (typeof x.status === 'number') {
    const headers = harHeaderList(x.response_headers);
    const body = x.response_body;
    const cut = typeof body === 'string' ? cutBody(x, body, headers) : undefined;
    entry.response = {
      status: x.status,
      headers,
      content:
        typeof body === 'string'
          ? {
              size: body.length,
              text: body,
              encoding: x.response_body_encoding,
              ...(cut !== undefined ? { _absent: cut } : {}),
            }
          : { size: -1, _absent: 'the gateway log holds no response body' },
    };
  }
  return entry;
}

/**
 * Why a gateway line's response body may not be the whole body (gateways log bodies up to a size cap), or
 * undefined where it is whole as far as the line shows: shorter than the `response_body_bytes` the line
 * states; or, where the line states no size, a JSON body (by its Content-Type, or by its first character
 * where the line gives none) that does not parse. Such a body is judged as one the log does not hold
 * (capture.ts `_absent`): the rules that read it are not judged on it; its part kept is still looked at
 * for secrets.
 */
function cutBody(x: Json, body: string, headers: Array<{ name: string; value: string }>): string | undefined {
  const bytes =
    x.response_body_encoding === 'base64' ? Buffer.from(body, 'base64').length : Buffer.byteLength(body);
  const stated = x.response_body_bytes;
  if (typeof stated === 'number')
    return stated > bytes
      ? `the gateway log holds ${bytes} of the response body's ${stated} bytes (response_body_bytes)`
      : undefined;
  const type = headers.find((h) => h.name.toLowerCase() === 'content-type')?.value;
  const text = x.response_body_encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  const json = type !== undefined ? isJsonMediaType(mediaTypeOf(type)) : /^\s*[[{]/.test(text);
  if (!json || text.trim() === '') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    return 'a JSON response body the gateway log may have cut (it does not parse, and the line states no response_body_bytes)';
  }
}
