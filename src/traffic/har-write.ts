/**
 * A HAR 1.2 entry of an exchange the suite's own client made: the request as sent (credentials
 * included: a capture holds them, as a real one does) and the answer with its full body (text, or base64
 * for a binary body). Used to record captures against the reference (tests, bench), and the shape
 * check-traffic reads.
 */
import { type HttpResponse, isJsonMediaType, type RequestSpec } from '../http/client.ts';

const textual = (mt: string | undefined) => !!mt && (isJsonMediaType(mt) || mt.startsWith('text/'));

export function harEntry(baseUrl: string, spec: RequestSpec, res: HttpResponse): Record<string, unknown> {
  const headers: Record<string, string> = { ...(spec.headers ?? {}) };
  let body: string | undefined;
  if (spec.json !== undefined) {
    body = JSON.stringify(spec.json);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  } else if (typeof spec.body === 'string') body = spec.body;
  const binaryBody = Buffer.isBuffer(spec.body) ? spec.body.toString('base64') : undefined;
  const mime = Object.entries(headers).find(([h]) => h.toLowerCase() === 'content-type')?.[1] ?? '';
  return {
    startedDateTime: res.exchange.startedAt,
    time: res.exchange.durationMs,
    request: {
      method: spec.method.toUpperCase(),
      url: baseUrl + spec.path,
      httpVersion: 'HTTP/1.1',
      headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: body !== undefined ? Buffer.byteLength(body) : (spec.body?.length ?? 0),
      ...(body !== undefined ? { postData: { mimeType: mime, text: body } } : {}),
      ...(binaryBody !== undefined
        ? { postData: { mimeType: mime, text: binaryBody, encoding: 'base64' } }
        : {}),
    },
    response: {
      status: res.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: Object.entries(res.headers).map(([name, value]) => ({ name, value })),
      cookies: [],
      content: {
        size: res.body.length,
        mimeType: res.headers['content-type'] ?? '',
        ...(res.body.length === 0
          ? {}
          : textual(res.mediaType)
            ? { text: res.text }
            : { text: res.body.toString('base64'), encoding: 'base64' }),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: res.body.length,
    },
    cache: {},
    timings: timingsOf(res),
  };
}

/**
 * HAR timings: an event stream's body as the client timed its chunks (`wait` to the body's first chunk,
 * `receive` from it to the last); otherwise the client has no time of the body: the whole time is `wait`,
 * `receive` unknown (-1). Not from the head: between the head and the body's first chunk lies only the
 * client's own scheduling (a body sent whole with its head is read a moment later, more on a loaded
 * machine), which is no pacing of the target's.
 */
function timingsOf(res: HttpResponse): { send: number; wait: number; receive: number } {
  const a = res.arrival;
  if (a?.kind !== 'chunks') return { send: 0, wait: res.exchange.durationMs, receive: -1 };
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  const first = a.chunks[0]?.ms ?? 0;
  const last = a.chunks.at(-1)?.ms ?? 0;
  return { send: 0, wait: round(a.waitMs + first), receive: round(last - first) };
}

/** A HAR 1.2 document of the given entries. */
export function harDocument(entries: unknown[]): Record<string, unknown> {
  return { log: { version: '1.2', creator: { name: 'gateway-conformance', version: '1' }, entries } };
}
