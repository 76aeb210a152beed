/**
 * OpenAPI 3.2 descriptions: read as 3.1's successor (its `query` and `additionalOperations` found), and a
 * streamed reply's items judged against the media type's `itemSchema` (src/openapi/items.ts), under each
 * reading of an SSE event a description may have chosen.
 */
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/http/client.ts';
import { streamItems } from '../../src/openapi/items.ts';
import { checkOpenApi31, LiveDescription } from '../../src/openapi/live.ts';

const stream = (path: string, mediaType: string, text: string): HttpResponse => ({
  exchange: { id: 'x', startedAt: '', method: 'POST', path, requestHeaders: {}, durationMs: 0 },
  method: 'POST',
  rawPath: path,
  status: 200,
  headers: { 'content-type': mediaType },
  body: Buffer.from(text),
  text,
  json: undefined,
  mediaType,
});

const DELTA = {
  type: 'object',
  required: ['type', 'delta'],
  properties: { type: { type: 'string' }, delta: { type: 'string' } },
};

/** A POST whose 200 reply is a stream of `mediaType` items, each described by `itemSchema`. */
const streamed = (mediaType: string, itemSchema: object) => ({
  post: { responses: { '200': { description: 'ok', content: { [mediaType]: { itemSchema } } } } },
});

/** A 3.2 description with three ways of describing streamed items. */
const description = () => ({
  openapi: '3.2.0',
  info: { title: 't', version: String(Math.random()) },
  paths: {
    // data as text carrying JSON: contentMediaType + contentSchema (the 3.2 specification's way)
    '/v1/text': {
      ...streamed('text/event-stream', {
        type: 'object',
        required: ['event', 'data'],
        properties: {
          event: { type: 'string' },
          data: {
            type: 'string',
            contentMediaType: 'application/json',
            contentSchema: { $ref: '#/components/schemas/Delta' },
          },
        },
      }),
      query: { responses: { '200': { description: 'ok' } } },
      additionalOperations: { LINK: { responses: { '204': { description: 'linked' } } } },
    },
    // data as the JSON value itself, event unnamed (dispatched as `message`)
    '/v1/object': streamed('text/event-stream', {
      type: 'object',
      required: ['event', 'data'],
      properties: { event: { const: 'message' }, data: { $ref: '#/components/schemas/Delta' } },
    }),
    '/v1/lines': streamed('application/jsonl', { $ref: '#/components/schemas/Delta' }),
  },
  components: { schemas: { Delta: DELTA } },
});

const sse = (events: Array<{ event?: string; data: string }>) =>
  events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${e.data}\n\n`).join('');
const good = JSON.stringify({ type: 'd', delta: 'hi' });
const bad = JSON.stringify({ type: 'd', delta: 7 });

describe('OpenAPI 3.2 descriptions', () => {
  it('a 3.2 description is valid; 3.0 and 4.0 are not read', async () => {
    expect((await checkOpenApi31(description())).errors).toEqual([]);
    expect(await checkOpenApi31({ ...description(), openapi: '3.0.3' })).toMatchObject({
      valid: false,
      errors: ['openapi is "3.0.3", expected 3.1.x or 3.2.x'],
    });
    expect((await checkOpenApi31({ ...description(), openapi: '4.0.0' })).valid).toBe(false);
  });

  it('finds QUERY and the additional operations of a path', () => {
    const live = new LiveDescription(description());
    expect(live.findOperation('QUERY', '/v1/text')?.pointer).toBe('/paths/~1v1~1text/query');
    expect(live.findOperation('LINK', '/v1/text')?.pointer).toBe(
      '/paths/~1v1~1text/additionalOperations/LINK',
    );
  });

  it('each SSE event is judged against the itemSchema, its JSON data against contentSchema', () => {
    const live = new LiveDescription(description());
    const ok = sse([
      { event: 'a', data: good },
      { event: 'b', data: good },
    ]);
    expect(live.checkResponse(stream('/v1/text', 'text/event-stream', ok))).toEqual([]);
    const broken = sse([
      { event: 'a', data: good },
      { event: 'b', data: bad },
      { event: 'c', data: 'x' },
    ]);
    const found = live.checkResponse(stream('/v1/text', 'text/event-stream', broken));
    expect(found.map((f) => [f.id, f.message])).toEqual([
      ['RESP-003', 'POST /v1/text 200: a streamed item /data (as JSON)/delta must be string (itemSchema)'],
      ['RESP-003', 'POST /v1/text 200: a streamed item /data (as JSON) is not JSON (itemSchema)'],
    ]);
    expect(found[0]!.received).toEqual({
      items: '1 of 3',
      first: { item: 2, event: 'b', value: { event: 'b', data: bad } },
    });
    expect(found[0]!.pointer).toBe(
      '/paths/~1v1~1text/post/responses/200/content/text~1event-stream/itemSchema',
    );
    // An event without an `event` field is dispatched as `message` (WHATWG): that reading has one.
    expect(live.checkResponse(stream('/v1/text', 'text/event-stream', sse([{ data: good }])))).toEqual([]);
    const missing = live.checkResponse(stream('/v1/text', 'text/event-stream', 'event: a\n\n'));
    expect(missing).toEqual([]);
  });

  it('data described as the JSON value and an unnamed event as `message` are readings that pass', () => {
    const live = new LiveDescription(description());
    expect(live.checkResponse(stream('/v1/object', 'text/event-stream', sse([{ data: good }])))).toEqual([]);
    const found = live.checkResponse(stream('/v1/object', 'text/event-stream', sse([{ data: bad }])));
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/^POST \/v1\/object 200: a streamed item /);
  });

  it('JSON Lines: each line against the itemSchema; a line that is no JSON fails', () => {
    const live = new LiveDescription(description());
    expect(live.checkResponse(stream('/v1/lines', 'application/jsonl', `${good}\n${good}\n`))).toEqual([]);
    const found = live.checkResponse(stream('/v1/lines', 'application/jsonl', `${good}\n${bad}\n{oops\n`));
    expect(found.map((f) => f.message)).toEqual([
      'POST /v1/lines 200: a streamed item /delta must be string (itemSchema)',
      'POST /v1/lines 200: a streamed item not JSON (itemSchema)',
    ]);
  });

  it('one finding per cause, however many items show it', () => {
    const live = new LiveDescription(description());
    const body = Array.from({ length: 6 }, () => bad).join('\n');
    const found = live.checkResponse(stream('/v1/lines', 'application/jsonl', body));
    expect(found).toHaveLength(1);
    expect(found[0]!.received).toMatchObject({ items: '6 of 6', first: { item: 1 } });
  });

  it('reads SSE fields as OpenAPI 3.2 names them: id and retry beside event and data', () => {
    expect(streamItems('sse', 'retry: 1500\nid: 7\nevent: x\ndata: a\ndata: b\n\n')).toEqual([
      {
        name: 'x',
        readings: [{ data: 'a\nb', event: 'x', id: '7', retry: 1500 }],
      },
    ]);
    expect(streamItems('json-seq', `\x1e${good}\n\x1e${good}\n`)).toHaveLength(2);
  });
});
