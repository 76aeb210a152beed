import { createParser } from 'eventsource-parser';

export interface SseEvent {
  event?: string;
  data: string;
}

/** Parse a complete text/event-stream body (eventsource-parser: the WHATWG parsing rules). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const ev: SseEvent = { data: e.data };
      if (e.event !== undefined) ev.event = e.event;
      events.push(ev);
    },
  });
  parser.feed(text);
  // A last event without its blank line is still dispatched by a flush of two newlines.
  parser.feed('\n\n');
  return events;
}

const streamedBodies = new WeakMap<object, unknown[]>();

/**
 * What a reply carries as JSON: its body, or for a text/event-stream reply the JSON `data` of each of its
 * events in order (data that is not JSON, such as `[DONE]`, left out), so that the checks that walk a
 * reply's fields (points, leak names) read a streamed reply's too: its terminal event holds the response
 * and its billing. Undefined when the reply carries neither.
 */
export function replyBody(res: { json?: unknown; mediaType?: string; text: string }): unknown {
  if (res.json !== undefined || res.mediaType !== 'text/event-stream') return res.json;
  let data = streamedBodies.get(res);
  if (!data) {
    data = [];
    for (const e of parseSse(res.text)) {
      const d = e.data.trimStart();
      if (d[0] !== '{' && d[0] !== '[') continue;
      try {
        data.push(JSON.parse(d));
      } catch {
        // not JSON: not walked
      }
    }
    streamedBodies.set(res, data);
  }
  return data.length > 0 ? data : undefined;
}

export const TERMINAL_EVENTS = ['response.completed', 'response.incomplete', 'response.failed'];

/**
 * RSP-006: exactly one terminal event, and it is the last event. The problems of a stream's events
 * (empty when it ends as the contract says), for the live run and a captured stream alike.
 */
export function terminalEventProblems(
  events: readonly SseEvent[],
): Array<{ message: string; received: unknown; expected?: string }> {
  const out: Array<{ message: string; received: unknown; expected?: string }> = [];
  const terminals = events
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => TERMINAL_EVENTS.includes(e.event ?? ''));
  if (terminals.length !== 1)
    out.push({
      message: `the stream holds ${terminals.length} terminal events`,
      received: terminals.map(({ e }) => e.event),
      expected: `exactly one of ${TERMINAL_EVENTS.join(', ')}`,
    });
  const last = terminals.at(-1);
  if (last && last.i !== events.length - 1)
    out.push({
      message: `the terminal event ${last.e.event} is not the last event`,
      received: events.slice(last.i + 1).map((e) => e.event ?? '(unnamed)'),
    });
  return out;
}

/** What jsonOf gives for data that is no JSON text: plain text. */
const PLAIN_TEXT = Symbol('plain text');
const jsonOf = (data: string): unknown => {
  try {
    return JSON.parse(data);
  } catch {
    return PLAIN_TEXT;
  }
};

/**
 * The text increment of a delta event's data. The data's shape is not shown: a JSON string, a JSON object
 * with a string `delta` or `text` field (or any other object, whole), or plain text, which is whatever
 * else the data is (empty, or `42`, `true`, `null`: a model's tokens sent as they stand). A zero-length
 * increment is still an increment (judging.md).
 */
export function incrementOf(data: string): string {
  const parsed = jsonOf(data);
  // Plain text, the empty data of a zero-length increment included.
  if (parsed === PLAIN_TEXT) return data;
  if (typeof parsed === 'string') return parsed;
  // A number, `true` or `null` is plain text too: a model's token `42` sent as it stands.
  if (!parsed || typeof parsed !== 'object') return data;
  return textField(parsed) ?? JSON.stringify(parsed);
}

/**
 * The model a streamed response names at its end: `response.model` (else `model`) in the JSON data of its
 * last terminal event; undefined where none is named (the events' data shapes are not shown).
 */
export function streamedModel(events: readonly SseEvent[]): string | undefined {
  const terminal = events.filter((e) => TERMINAL_EVENTS.includes(e.event ?? '')).at(-1);
  if (!terminal) return undefined;
  try {
    const d = JSON.parse(terminal.data) as { response?: { model?: unknown }; model?: unknown } | null;
    const named = d?.response?.model ?? d?.model;
    return typeof named === 'string' ? named : undefined;
  } catch {
    return undefined;
  }
}

/** Members that name an event or a part, never its text: a delta's `type`, `object` and ids. */
const NAMING = /^(type|object|event|id)$|_id$/;

/**
 * Whether a delta event's data could carry a text increment: plain text or a JSON string always (a
 * zero-length one included), a JSON object or array when a string stands in it other than a naming
 * member's (`{"type": "response.output_text.delta", "item_id": "m1"}` holds none: its text is lost).
 */
export function carriesText(data: string): boolean {
  const parsed = jsonOf(data);
  if (parsed === PLAIN_TEXT || !parsed || typeof parsed !== 'object') return true;
  const walk = (v: unknown, key: string | undefined): boolean =>
    typeof v === 'string'
      ? key === undefined || !NAMING.test(key)
      : Array.isArray(v)
        ? v.some((x) => walk(x, undefined))
        : v !== null && typeof v === 'object'
          ? Object.entries(v).some(([k, x]) => walk(x, k))
          : false;
  return walk(parsed, undefined);
}

/**
 * The reply's text as a stream's terminal event shows it: the string `text` members of its `output_text`
 * parts, joined in order (else every string `text` member); undefined where its data shows none (the
 * events' data shapes are not shown).
 */
export function replyText(events: readonly SseEvent[]): string | undefined {
  const terminal = events.filter((e) => TERMINAL_EVENTS.includes(e.event ?? '')).at(-1);
  const data = terminal ? jsonOf(terminal.data) : PLAIN_TEXT;
  if (data === PLAIN_TEXT || !data || typeof data !== 'object') return undefined;
  const parts: Array<{ text: string; output: boolean }> = [];
  const walk = (v: unknown): void => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    const o = v as Record<string, unknown>;
    if (typeof o.text === 'string') parts.push({ text: o.text, output: o.type === 'output_text' });
    for (const x of Object.values(o)) walk(x);
  };
  walk(data);
  const output = parts.filter((p) => p.output);
  const chosen = output.length > 0 ? output : parts;
  return chosen.length > 0 ? chosen.map((p) => p.text).join('') : undefined;
}

/** The first string `delta` or `text` member of a JSON value, depth first in its members' order. */
function textField(v: unknown): string | undefined {
  if (Array.isArray(v)) {
    for (const x of v) {
      const found = x && typeof x === 'object' ? textField(x) : undefined;
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if ((k === 'delta' || k === 'text') && typeof x === 'string') return x;
    const found = x && typeof x === 'object' ? textField(x) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A problem of a stream's events under its rule; `notable`: a notable-level finding (advisory). */
export interface StreamProblem {
  id: 'RSP-004' | 'RSP-005';
  message: string;
  received: unknown;
  expected?: string;
  level?: 'notable';
}

/**
 * RSP-004 ("Each event has an `event` name and `data`") and RSP-005 ("`response.output_text.delta`
 * carries a text increment") on the events of a 2xx event stream, for the live run and a captured stream
 * alike: the ids judged (RSP-005 where a delta event stands) and the problems, one per fault of the
 * stream for RSP-004 (its count and first event are the evidence), one per delta without an increment.
 */
export function streamEventProblems(events: readonly SseEvent[]): {
  judged: Array<'RSP-004' | 'RSP-005'>;
  problems: StreamProblem[];
} {
  if (events.length === 0)
    return {
      judged: ['RSP-004'],
      problems: [{ id: 'RSP-004', message: 'the stream holds no event', received: [] }],
    };
  const problems: StreamProblem[] = [];
  const unnamed = events.flatMap((e, i) => (e.event ? [] : [i]));
  // A delta's empty data is a zero-length plain-text increment (judging.md), not an event without data;
  // only a terminal event's data is implied (the response it ends); any other event's shape is not shown
  // (a heartbeat `event: ping` with `data:`), empty included. A block
  // without any data line is never dispatched (WHATWG), so it is no event here.
  const empty = events.flatMap((e, i) =>
    e.data.length > 0 || !TERMINAL_EVENTS.includes(e.event ?? '') ? [] : [i],
  );
  if (unnamed.length > 0)
    problems.push({
      id: 'RSP-004',
      message: 'events of the stream have no event name',
      received: {
        events: `${unnamed.length} of ${events.length}`,
        first: events[unnamed[0]!]?.data.slice(0, 120),
      },
    });
  if (empty.length > 0)
    problems.push({
      id: 'RSP-004',
      message: 'events of the stream have no data',
      received: {
        events: `${empty.length} of ${events.length}`,
        first: `#${empty[0]} (${events[empty[0]!]?.event ?? 'unnamed'})`,
      },
    });
  const deltas = events.filter((e) => e.event === 'response.output_text.delta');
  // A JSON object that holds no text at all (no string beyond its type and ids): no increment either,
  // unless nothing is lost: a zero-length increment whose empty member a serializer left out (Go's
  // omitempty) is such an object too. Nothing is lost where the other deltas' increments make the whole
  // text the stream's end shows; where the end shows no text, that cannot be told (advisory), unless no
  // delta carries text at all (the text is lost).
  const textless = deltas.filter((d) => !carriesText(d.data));
  if (textless.length > 0) {
    const carrying = deltas.filter((d) => carriesText(d.data));
    const shown = replyText(events);
    const whole = shown !== undefined && carrying.map((d) => incrementOf(d.data)).join('') === shown;
    if (!whole)
      problems.push({
        id: 'RSP-005',
        message: `${textless.length} of ${deltas.length} delta events carry no text increment (their data holds no string beyond its type and ids)${
          shown === undefined
            ? ''
            : `, and the other deltas' increments do not make the text the stream's end shows (${JSON.stringify(shown.slice(0, 60))})`
        }`,
        received: textless.map((d) => d.data).slice(0, 3),
        ...(shown === undefined && carrying.length > 0 ? { level: 'notable' as const } : {}),
      });
  }
  // Every other delta's data is some increment: its shape is not shown, so plain text (empty, or `42`) is one.
  // The reply's text as the stream's end shows it: one reader of it (replyText) for both findings.
  const increments = deltas.map((d) => incrementOf(d.data));
  if (increments.length > 0 && increments.every((s) => s === '') && (replyText(events) ?? '') !== '')
    problems.push({
      id: 'RSP-005',
      message: `all ${increments.length} delta events carry zero-length increments while the reply has text`,
      level: 'notable',
      received: deltas.map((d) => d.data).slice(0, 3),
    });
  return { judged: deltas.length > 0 ? ['RSP-004', 'RSP-005'] : ['RSP-004'], problems };
}
