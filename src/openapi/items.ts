/**
 * OpenAPI 3.2's sequential media types: a streamed reply is a sequence of items, each described by the
 * media type's `itemSchema` (text/event-stream, JSON Lines, JSON text sequences). This module reads a
 * body into its items and judges each against the item validator the description compiles to; the live
 * run and a capture reach it alike through LiveDescription.judgeResponse.
 *
 * Readings (an item passes when one of them validates, so no deployment fails for how its description
 * chose to write an event):
 * - An SSE event is the object `{event, data, id, retry}` of its fields present, `data` the text of its
 *   data lines (OpenAPI 3.2, "Server-Sent Event Streams"); `data` may carry JSON described through
 *   `contentMediaType`/`contentSchema`, which the validator decodes and checks.
 * - Tools also describe `data` as the JSON value itself (`data: {$ref: ...}`): the event with its data
 *   decoded is a second reading.
 * - An event without an `event` field is dispatched as `message` (WHATWG): `event: "message"` is a third.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { createParser } from 'eventsource-parser';
import type { HttpResponse } from '../http/client.ts';
import type { ResponseFinding } from './fallback.ts';
import { capEvidence } from './guard.ts';

export type SequenceKind = 'sse' | 'jsonl' | 'json-seq';

/** The sequential media types OpenAPI 3.2 names, by the kind of their items. */
const KINDS: Record<string, SequenceKind> = {
  'text/event-stream': 'sse',
  'application/jsonl': 'jsonl',
  'application/x-ndjson': 'jsonl',
  'application/x-jsonlines': 'jsonl',
  'application/json-seq': 'json-seq',
};

export const sequenceKind = (mediaType: string): SequenceKind | undefined => KINDS[mediaType];

/** One item of a stream: its readings (the plain one first), or why it could not be read at all. */
export type StreamItem = { readings: unknown[]; name?: string } | { unreadable: string };

/** The SSE events of a body as OpenAPI 3.2 objects, each with its readings. */
function sseItems(text: string): StreamItem[] {
  const items: StreamItem[] = [];
  let retry: number | undefined;
  const parser = createParser({
    onRetry: (ms) => {
      retry = ms;
    },
    onEvent: (e) => {
      const plain: Record<string, unknown> = { data: e.data };
      if (e.event !== undefined) plain.event = e.event;
      if (e.id !== undefined) plain.id = e.id;
      if (retry !== undefined) plain.retry = retry;
      retry = undefined;
      const readings: unknown[] = [plain];
      if (e.event === undefined) readings.push({ ...plain, event: 'message' });
      let decoded: unknown;
      try {
        decoded = JSON.parse(e.data);
      } catch {
        decoded = undefined;
      }
      if (decoded !== undefined)
        for (const r of [...readings]) readings.push({ ...(r as object), data: decoded });
      items.push({ readings, name: e.event ?? 'message' });
    },
  });
  parser.feed(text);
  parser.feed('\n\n');
  return items;
}

/** The JSON values of a body split at `separator`, blank records skipped. */
function jsonItems(text: string, separator: string | RegExp): StreamItem[] {
  return text
    .split(separator)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return { readings: [JSON.parse(line)] };
      } catch (err) {
        return { unreadable: `not JSON (${(err as Error).message.slice(0, 120)})` };
      }
    });
}

export function streamItems(kind: SequenceKind, text: string): StreamItem[] {
  if (kind === 'sse') return sseItems(text);
  return jsonItems(text, kind === 'jsonl' ? /\r?\n/ : '\x1e');
}

/** At most this many causes are listed per reply. */
const LISTED = 3;

/**
 * RESP-003 on a streamed reply: every item valid against the `itemSchema` at `pointer` (compiled as
 * `validate`), under one of its readings. One finding per cause (where in the item, what is wrong), not
 * per item: how many items show it and the first of them are its evidence, so that one cause across a
 * stream, and across streams, is one group.
 */
export function itemFindings(
  res: HttpResponse,
  kind: SequenceKind,
  validate: ValidateFunction,
  pointer: string,
  where: string,
): ResponseFinding[] {
  const items = streamItems(kind, res.text);
  const causes = new Map<
    string,
    { items: number; first: number; name?: string; item?: unknown; params?: unknown }
  >();
  items.forEach((item, index) => {
    let says: string;
    let first: ErrorObject | undefined;
    if ('unreadable' in item) says = item.unreadable.replace(/ \(.*$/, '');
    else {
      for (const r of item.readings) {
        if (validate(r)) return;
        first ??= validate.errors?.[0];
      }
      says = `${first?.instancePath || '/'} ${first?.message ?? 'is not valid'}`;
    }
    const seen = causes.get(says);
    if (seen) seen.items++;
    else
      causes.set(says, {
        items: 1,
        first: index,
        ...('name' in item && item.name !== undefined ? { name: item.name } : {}),
        ...('readings' in item ? { item: item.readings[0] } : { item: item.unreadable }),
        ...(first?.params !== undefined ? { params: first.params } : {}),
      });
  });
  return [...causes.entries()].slice(0, LISTED).map(([says, c]) => ({
    id: 'RESP-003' as const,
    message: `${where} ${res.status}: a streamed item ${says} (itemSchema)`,
    pointer,
    received: capEvidence({
      items: `${c.items} of ${items.length}`,
      first: { item: c.first + 1, ...(c.name !== undefined ? { event: c.name } : {}), value: c.item },
    }),
    ...(c.params !== undefined ? { expected: capEvidence(c.params) } : {}),
  }));
}
