/**
 * RSP-090, streaming realism (notable): a text/event-stream reply whose events all arrived at once was
 * buffered on the way (a proxy that holds the body until it ends), "streamed" in name only. One check for
 * the live run and a capture alike: it reads when the body arrived from the reply's `arrival` (the live
 * client's chunk times, or a capture's HAR timings.receive) and runs among the per-exchange checks.
 */
import { createParser } from 'eventsource-parser';
import type { HttpResponse } from '../http/client.ts';
import type { Finding } from './exchange.ts';
import { parseSse } from './sse.ts';

export const BUFFERED_STREAM = 'RSP-090';
/** Events whose arrivals lie within this many ms of each other came in one delivery. */
export const AT_ONCE_MS = 1;
/** Fewer events than this say nothing about pacing (a stream of one event and its end is one delivery). */
export const AT_ONCE_MIN_EVENTS = 3;

/** Whether the reply is judged by RSP-090 at all: a 2xx text/event-stream reply whose arrival is known. */
export function streamTimed(res: HttpResponse): boolean {
  return (
    res.arrival !== undefined &&
    res.mediaType === 'text/event-stream' &&
    res.status >= 200 &&
    res.status < 300
  );
}

/**
 * How many events the stream held and the ms between the arrival of its first and its last event. Live:
 * each chunk is fed to the event parser as it came, so every event carries the time of the chunk that
 * completed it. A capture: HAR's timings.receive (first byte to last) bounds that span from above.
 */
export function eventSpan(res: HttpResponse): { events: number; spanMs: number } | undefined {
  const arrival = res.arrival;
  if (!arrival) return undefined;
  if (arrival.kind === 'receive') return { events: parseSse(res.text).length, spanMs: arrival.receiveMs };
  const times: number[] = [];
  let now = 0;
  const parser = createParser({ onEvent: () => times.push(now) });
  const decoder = new TextDecoder('utf-8');
  let start = 0;
  for (const c of arrival.chunks) {
    now = c.ms;
    parser.feed(decoder.decode(res.body.subarray(start, c.end), { stream: true }));
    start = c.end;
  }
  parser.feed(`${decoder.decode()}\n\n`);
  if (times.length === 0) return { events: 0, spanMs: 0 };
  return { events: times.length, spanMs: Math.max(...times) - Math.min(...times) };
}

/** The RSP-090 finding of one reply, if its events arrived all at once. */
export function bufferedStream(res: HttpResponse): Finding[] {
  if (!streamTimed(res)) return [];
  const span = eventSpan(res);
  if (!span || span.events < AT_ONCE_MIN_EVENTS || span.spanMs > AT_ONCE_MS) return [];
  const spanMs = Math.round(span.spanMs * 1000) / 1000;
  return [
    {
      id: BUFFERED_STREAM,
      message: `${res.method} ${res.exchange.path}: all ${span.events} events of the stream arrived within ${spanMs} ms: buffered on the way, streamed in name only`,
      received: {
        events: span.events,
        spanMs,
        measured: res.arrival!.kind === 'chunks' ? 'each event' : 'HAR timings.receive',
      },
      expected: `events delivered as they are produced (more than ${AT_ONCE_MS} ms between the first and the last)`,
      level: 'notable',
    },
  ];
}
