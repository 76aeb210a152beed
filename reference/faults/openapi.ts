// Faults and variants of the live description alone (openapi.ts): the server answers as the plain reference.
import { EXTRA_IDS, MEDIA_IDS } from '../media/table.ts';
import type { JsonObject } from '../schemas.ts';
import {
  allResponses,
  type Fault,
  isError,
  type OpenApiDraft,
  optional,
  req,
  type Variant,
} from './probe.ts';

/**
 * OpenAPI 3.2 (openapi.ts as 3.2.0): each streamed reply described item by item with `itemSchema`, a
 * responses event's JSON `data` by `contentSchema` (with `required`, the fields it must carry), a chat
 * chunk's `data` as text; and a QUERY operation beside GET /v1/usage.
 */
function describeAs32({ doc, paths, schemas }: OpenApiDraft, required: string[]): void {
  doc.openapi = '3.2.0';
  schemas.ResponseStreamEvent = {
    type: 'object',
    required,
    properties: {
      type: { type: 'string' },
      delta: { type: 'string' },
      response: { type: 'object' },
      sequence_number: { type: 'integer', minimum: 0 },
    },
  };
  const responses = paths['/v1/responses'].post.responses['200'].content;
  responses['text/event-stream'] = {
    itemSchema: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { type: 'string' },
        data: {
          type: 'string',
          contentMediaType: 'application/json',
          contentSchema: { $ref: '#/components/schemas/ResponseStreamEvent' },
        },
      },
    },
  };
  paths['/v1/chat/completions'].post.responses['200'].content['text/event-stream'] = {
    itemSchema: { type: 'object', required: ['data'], properties: { data: { type: 'string' } } },
  };
  paths['/v1/usage'].query = {
    summary: 'Usage records matching the filter in the body',
    requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
    responses: paths['/v1/usage'].get.responses,
  };
}

export const OPENAPI_FAULTS = [
  // openapi.ts: `info` removed and a path item of the wrong type
  {
    name: 'openapi-invalid',
    description: '/openapi.json is not a valid OpenAPI 3.1 document',
    breaks: ['OAS-001'],
    openapi: ({ doc, paths }) => {
      delete doc.info;
      paths['/v1/broken'] = 'not a path item';
    },
    probe: { request: req.openapi(), holds: (r) => r.body.info === undefined },
  },
  // openapi.ts: POST /v1/embeddings left out
  {
    name: 'openapi-missing-endpoint',
    description: 'the description omits POST /v1/embeddings',
    breaks: ['OAS-002'],
    openapi: ({ paths }) => {
      delete paths['/v1/embeddings'];
    },
    probe: { request: req.openapi(), holds: (r) => r.body.paths['/v1/embeddings'] === undefined },
  },
  // openapi.ts: chat temperature maximum 1, role enum without developer
  {
    name: 'openapi-enum-drift',
    description: "the description's chat request has temperature maximum 1 and no `developer` role",
    breaks: ['OAS-003'],
    openapi: ({ schemas }) => {
      const chat = schemas.ChatCompletionRequest.properties;
      chat.temperature = { ...chat.temperature, maximum: 1 };
      const role = chat.messages.items.properties.role;
      role.enum = role.enum.filter((r: string) => r !== 'developer');
    },
    probe: {
      request: req.openapi(),
      holds: (r) => r.body.components.schemas.ChatCompletionRequest.properties.temperature.maximum === 1,
    },
  },
  // openapi.ts: no 401 declared on GET /v1/models
  {
    name: 'openapi-undeclared-401',
    description: 'GET /v1/models declares no 401 response',
    breaks: ['RESP-001'],
    openapi: ({ paths }) => {
      delete paths['/v1/models'].get.responses['401'];
    },
    probe: {
      request: req.openapi(),
      holds: (r) => r.body.paths['/v1/models'].get.responses['401'] === undefined,
    },
  },
  // openapi.ts: the model entry applies a schema whose allOf applies itself
  {
    name: 'openapi-schema-cycle',
    description: "the description's model entry applies a schema whose allOf includes itself (a cycle)",
    breaks: ['OAS-001'],
    openapi: ({ schemas }) => {
      schemas.EntryLoop = { allOf: [{ $ref: '#/components/schemas/EntryLoop' }] };
      schemas.ModelEntry.allOf.push({ $ref: '#/components/schemas/EntryLoop' });
    },
    probe: {
      run: async ({ ref, openapi }) =>
        (await openapi(ref)).components.schemas.EntryLoop?.allOf?.[0]?.$ref ===
        '#/components/schemas/EntryLoop',
    },
  },
  // openapi.ts: the model entry's id has a pattern that is not a regular expression
  {
    name: 'openapi-invalid-pattern',
    description: "the description's model entry id has pattern `([a-z`, not a regular expression",
    breaks: ['OAS-001'],
    openapi: ({ schemas }) =>
      schemas.ModelEntry.allOf.push({ properties: { id: { type: 'string', pattern: '([a-z' } } }),
    probe: {
      request: req.openapi(),
      holds: (r) => JSON.stringify(r.body.components.schemas.ModelEntry).includes('"pattern":"([a-z"'),
    },
  },
  // openapi.ts: the chat reply's usage described as optional, as OpenAI's own description has it (the contract requires it)
  {
    name: 'openapi-usage-optional',
    description: "the description leaves the chat reply's usage optional (the server still sends it)",
    breaks: ['OAS-004'],
    level: 'notable',
    openapi: ({ schemas }) => {
      for (const schema of [schemas.ChatCompletion, schemas.ChatCompletionResponse.allOf[1]])
        optional(schema, 'usage');
    },
    probe: {
      run: async ({ ref, openapi, chat }) => {
        const { ChatCompletion, ChatCompletionResponse } = (await openapi(ref)).components.schemas;
        const required = [...ChatCompletion.required, ...ChatCompletionResponse.allOf[1].required];
        return !required.includes('usage') && 'usage' in (await chat(ref)).body;
      },
    },
  },
  // openapi.ts: operational routes hidden from the description (/healthz and /status still answer)
  {
    name: 'openapi-no-health',
    description: 'the description lists neither GET /healthz nor GET /status',
    breaks: ['OAS-005'],
    level: 'notable',
    openapi: ({ paths }) => {
      delete paths['/healthz'];
      delete paths['/status'];
    },
    probe: {
      run: async ({ ref, openapi, call }) => {
        const paths = (await openapi(ref)).paths;
        return !paths['/healthz'] && !paths['/status'] && (await call(ref, '/healthz')).status === 200;
      },
    },
  },
  // openapi.ts: a generator that inlines a recursive schema to a fixed depth, past the suite's nesting bound
  {
    name: 'openapi-deep-inline',
    description:
      "the description's model entry has an optional `metadata` field whose recursive schema is inlined 80 levels deep (nesting beyond the suite's bound of 128)",
    breaks: ['OAS-006'],
    level: 'notable',
    // A recursive `metadata` value inlined 80 levels deep (two nestings each).
    openapi: ({ schemas }) => {
      let metadata: JsonObject = { type: 'string' };
      for (let i = 0; i < 80; i++) metadata = { type: 'object', properties: { value: metadata } };
      schemas.ModelEntry.allOf.push({ properties: { metadata } });
    },
    probe: {
      request: req.openapi(),
      holds: (r) => JSON.stringify(r.body.components.schemas.ModelEntry).split('"value":').length === 81,
    },
  },
  // openapi.ts: the deprecated payment interface described like any other (no flag, no word)
  {
    name: 'openapi-payments-not-deprecated',
    description:
      'GET /v1/payment-methods and POST /v1/payment-orders are described without `deprecated: true` and without the word in their summaries',
    breaks: ['OAS-007'],
    level: 'notable',
    openapi: ({ paths }) => {
      for (const op of [paths['/v1/payment-methods'].get, paths['/v1/payment-orders'].post]) {
        delete op.deprecated;
        op.summary = 'compatibility only';
      }
    },
    probe: {
      run: async ({ ref, openapi }) => {
        const paths = (await openapi(ref)).paths;
        const ops = [paths['/v1/payment-methods'].get, paths['/v1/payment-orders'].post];
        return ops.every((op) => op.deprecated === undefined && !/deprecated/i.test(op.summary));
      },
    },
  },
  // openapi.ts as 3.2.0: every responses event's data must carry `sequence_number`, which no event has
  {
    name: 'openapi-stream-items-drift',
    description:
      "the 3.2 description's itemSchema requires a `sequence_number` in every responses event's data; the events carry none",
    breaks: ['RESP-003'],
    openapi: (patch) => describeAs32(patch, ['type', 'sequence_number']),
    probe: {
      run: async ({ ref, openapi }) =>
        (await openapi(ref)).components.schemas.ResponseStreamEvent?.required?.includes('sequence_number') ===
        true,
    },
  },
] as const satisfies readonly Fault[];

export const OPENAPI_VARIANTS = [
  // openapi.ts
  {
    name: 'openapi-default-errors',
    readings: ['RESP-001'],
    description: 'the description declares errors under `default` instead of explicit statuses',
    openapi: ({ paths, errorResponse }) => {
      for (const responses of allResponses(paths)) {
        const errors = Object.keys(responses).filter(isError);
        for (const status of errors) delete responses[status];
        if (errors.length > 0) responses.default = errorResponse('default');
      }
    },
    probe: {
      request: req.openapi(),
      holds: (r) => r.body.paths['/v1/models'].get.responses.default !== undefined,
    },
  },
  // openapi.ts: a pattern in ECMA-262 syntax that RE2 cannot run (JSON Schema patterns are ECMA-262)
  {
    name: 'openapi-lookahead-pattern',
    readings: ['OAS-001', 'RESP-003'],
    description: "the description's model entry id has pattern ^(?!\\s)\\S+$ (a lookahead)",
    openapi: ({ schemas }) =>
      schemas.ModelEntry.allOf.push({ properties: { id: { type: 'string', pattern: '^(?!\\s)\\S+$' } } }),
    probe: {
      request: req.openapi(),
      holds: (r) => JSON.stringify(r.body.components.schemas.ModelEntry).includes('(?!\\\\s)'),
    },
  },
  // openapi.ts: "the catalog is extended over time"
  {
    name: 'openapi-model-enum',
    readings: ['OAS-003'],
    description:
      "the description's MediaJobCreate.model enumerates the deployed ids (8 documented ones and the reference's own), not the 16 documented",
    openapi: ({ schemas }) => {
      schemas.MediaJobCreate.properties.model = {
        type: 'string',
        enum: [...MEDIA_IDS.slice(0, 8), ...EXTRA_IDS],
      };
    },
    probe: {
      request: req.openapi(),
      holds: (r) =>
        r.body.components.schemas.MediaJobCreate.properties.model.enum?.includes('wc-100041') === false,
    },
  },
  // openapi.ts: "the machine-readable description is OpenAPI 3.1 at /openapi.json", no size limit
  {
    name: 'openapi-large-enum',
    readings: ['OAS-001', 'OAS-006'],
    description:
      "the description's model entry has an optional `languages` field whose items enumerate 2,500 language codes (beyond the suite's 2,000-value bound on one enum)",
    openapi: ({ schemas }) => {
      // 2,500 language codes (aaa, aab, ...): the contract sets no size limit on the description.
      const letters = (i: number) =>
        [i / 676, (i / 26) % 26, i % 26].map((d) => String.fromCharCode(97 + Math.floor(d))).join('');
      const codes = Array.from({ length: 2_500 }, (_, i) => letters(i));
      schemas.ModelEntry.allOf.push({
        properties: { languages: { type: 'array', items: { type: 'string', enum: codes } } },
      });
    },
    probe: {
      request: req.openapi(),
      holds: (r) =>
        r.body.components.schemas.ModelEntry.allOf.find(
          (s: { properties?: { languages?: unknown } }) => s.properties?.languages,
        )?.properties.languages.items.enum.length === 2_500,
    },
  },
  // openapi.ts: a Response Object without content leaves its payload undescribed
  {
    name: 'openapi-errors-undescribed',
    readings: ['RESP-002'],
    description: 'the description declares every error response with a description only, no content',
    openapi: ({ paths }) => {
      // Error responses carry a description only, no content.
      for (const responses of allResponses(paths))
        for (const [status, response] of Object.entries(responses))
          if (isError(status)) delete response.content;
    },
    probe: {
      request: req.openapi(),
      holds: (r) => r.body.paths['/v1/models'].get.responses['401'].content === undefined,
    },
  },
  // openapi.ts: replies described inside the documented ranges
  {
    name: 'openapi-narrow-responses',
    readings: ['OAS-003'],
    description:
      "the description gives a chat reply's message role as enum [assistant] and an embedding reply's token counts a minimum of 1",
    probe: {
      request: req.openapi(),
      holds: (r) => JSON.stringify(r.body.components.schemas.EmbeddingListResponse).includes('"minimum":1'),
    },
  },
  // openapi.ts: the payment interface marked deprecated in words only (its summaries), not by the flag
  {
    name: 'openapi-deprecated-in-words',
    readings: ['OAS-007'],
    description:
      'the payment operations carry no `deprecated: true`; their summaries say "deprecated, compatibility only"',
    openapi: ({ paths }) => {
      delete paths['/v1/payment-methods'].get.deprecated;
      delete paths['/v1/payment-orders'].post.deprecated;
    },
    probe: {
      run: async ({ ref, openapi }) => {
        const op = (await openapi(ref)).paths['/v1/payment-orders'].post;
        return op.deprecated === undefined && /deprecated/.test(op.summary);
      },
    },
  },
  // openapi.ts as 3.2.0: streams described by itemSchema (SSE events, data as JSON text), a QUERY operation
  {
    name: 'openapi-3.2-item-schemas',
    readings: ['OAS-001', 'RESP-003'],
    description:
      "the description is OpenAPI 3.2.0: both streams described event by event with `itemSchema` (a responses event's JSON data by `contentSchema`), and a QUERY /v1/usage",
    openapi: (patch) => describeAs32(patch, ['type']),
    probe: {
      request: req.openapi(),
      holds: (r) =>
        r.body.openapi === '3.2.0' &&
        r.body.paths['/v1/responses'].post.responses['200'].content['text/event-stream'].itemSchema !==
          undefined,
    },
  },
  // routes/public.ts + openapi.ts: "OpenAPI 3.1 at /openapi.json", its media type not stated
  {
    name: 'openapi-served-as-text',
    readings: ['OAS-001'],
    description:
      'GET /openapi.json answers the description as text/plain; charset=utf-8 (and describes itself so)',
    openapi: ({ paths }) => {
      const ok = paths['/openapi.json'].get.responses['200'] as { content: JsonObject };
      ok.content = { 'text/plain': { schema: { type: 'string' } } };
    },
    probe: {
      request: req.openapi(),
      holds: (r) => (r.headers.get('content-type') ?? '').startsWith('text/plain'),
    },
  },
  // openapi.ts: a description written as OpenAPI allows, where the suite had read it narrowly. Four
  // readings in one row (each is proven by the row failing with its own check put back):
  // - "The path is appended to the URL from the Server Object": the /v1 prefix in the server URL, the
  //   path keys without it (the paths outside /v1 name their own server `/`);
  // - a Content-Type response header "SHALL be ignored" (OpenAPI 3.1 Response Object);
  // - a pattern valid as ECMA-262's Annex B reads it (identity escapes, as RE2 reads them), and an
  //   example's `pattern` member, which is data;
  // - a header's type as generators write an optional integer (`anyOf` with null).
  {
    name: 'openapi-written-otherwise',
    readings: ['OAS-001', 'OAS-002', 'RESP-001', 'RESP-004'],
    description:
      "the description's server URL holds the /v1 prefix (`servers: [{url: '/v1'}]`) and its path keys do not (`/models`); every 200 response declares a required `Content-Type` header of enum `application/json` (replies are `application/json; charset=utf-8`); the model entry's id has pattern `^[A-Za-z0-9.\\_:\\-]+$` (identity escapes) beside an example holding `pattern: '*x*'`; Retry-After is `anyOf: [{type: integer, minimum: 1}, {type: \"null\"}]`",
    openapi: ({ doc, paths, schemas }) => {
      for (const responses of allResponses(paths)) {
        const ok = responses['200'] as { headers?: JsonObject } | undefined;
        if (ok)
          ok.headers = {
            ...ok.headers,
            'Content-Type': { required: true, schema: { type: 'string', enum: ['application/json'] } },
          };
        for (const r of Object.values(responses) as Array<{ headers?: Record<string, JsonObject> }>) {
          const retry = r.headers?.['Retry-After'];
          if (retry) retry.schema = { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] };
        }
      }
      schemas.ModelEntry.allOf.push({
        properties: { id: { type: 'string', pattern: '^[A-Za-z0-9.\\_:\\-]+$' } },
        examples: [{ id: 'tx-chat-1', pattern: '*x*' }],
      });
      doc.servers = [{ url: '/v1' }];
      for (const key of Object.keys(paths)) {
        const item = paths[key];
        delete paths[key];
        if (key.startsWith('/v1/')) paths[key.slice(3)] = item;
        else paths[key] = { ...item, servers: [{ url: '/' }] };
      }
    },
    probe: {
      request: req.openapi(),
      holds: (r) =>
        r.body.servers?.[0]?.url === '/v1' &&
        r.body.paths['/models'].get.responses['200'].headers['Content-Type'].required === true &&
        JSON.stringify(r.body.components.schemas.ModelEntry).includes('"pattern":"*x*"') &&
        JSON.stringify(r.body).includes('{"anyOf":[{"type":"integer","minimum":1},{"type":"null"}]}'),
    },
  },
] as const satisfies readonly Variant[];
