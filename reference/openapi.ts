// The reference's own OpenAPI 3.1 description, built from schemas/ plus the concrete shapes the
// reference sends. It must stay true to what the server answers under every variant; faults that
// should be caught only by a contract check change it along with the server. A fault's or variant's
// change is its entry's `openapi` patch (reference/faults/<area>.ts), applied here to the built
// description; what remains below are the shapes a variant builds differently throughout (envelopes,
// legacy fields, billing) and the fields leaked by internal.ts.

import { billingUnit, billingUnreported } from './billing.ts';
import type { RefContext } from './context.ts';
import { FAULTS, VARIANTS, type VariantName } from './faults.ts';
import { ENDPOINTS } from './fixtures.ts';
import { describeRateLimit } from './guards.ts';
import { leakedFieldSchema } from './internal.ts';
import { creditsNamed, isPointsField, LEGACY_TYPE, legacyName } from './legacy.ts';
import { mediaSchemas } from './media/openapi.ts';
import { isVariant } from './reach.ts';
import { paymentSchemas } from './routes/payments.ts';
import { ticketCreatedStatus, ticketSchemas } from './routes/tickets.ts';
import { contractComponents, type JsonObject } from './schemas.ts';

type Content = Record<string, { schema: JsonObject }>;

interface Operation {
  success: { status: string; description: string; content?: Content };
  body?: Content;
  deprecated?: boolean;
  idempotencyKey?: boolean;
  /** A success may be a replay, marked by Idempotent-Replayed. */
  replays?: boolean;
  /** Error statuses beyond the common ones. */
  errors?: string[];
  /** Header parameters beyond Idempotency-Key. */
  headers?: JsonObject[];
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject): Content => ({ 'application/json': { schema } });
const binary = (types: string[]): Content =>
  Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]));
const OPEN: JsonObject = { type: 'object' };
const EVENT_STREAM: Content = { 'text/event-stream': { schema: { type: 'string' } } };
const SCHEMAS = '#/components/schemas/';
const REPLAYED = 'Idempotent-Replayed';
/** JSON content of a reference schema, with its legacy currency twin (`Legacy<name>`). */
const withLegacy = (name: string): Content => ({
  ...json(ref(name)),
  [LEGACY_TYPE]: { schema: ref(`Legacy${name}`) },
});
/** Schemas served in the legacy currency format too; their twins are generated. */
const LEGACY_ROOTS = [
  'ModelList',
  'BalanceResponse',
  'ChatCompletionResponse',
  'ResponseObject',
  'EmbeddingListResponse',
  'UsageList',
  'LedgerList',
  'MediaJobResponse',
];
const INPUT_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4'];
const ASSET_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4', 'model/gltf-binary'];

function operations(ctx: RefContext): Record<string, Operation> {
  const conflict = '409';
  return {
    'GET /healthz': {
      success: {
        status: '200',
        description: 'The service is up.',
        content: json(ref('HealthStatus')),
      },
    },
    'GET /status': {
      success: {
        status: '200',
        description: 'Service status and published incidents.',
        content: json(ref('ServiceStatus')),
      },
    },
    'GET /openapi.json': { success: { status: '200', description: 'This document.', content: json(OPEN) } },
    'GET /v1/models': {
      success: {
        status: '200',
        description: 'The calling account’s catalog.',
        content: withLegacy('ModelList'),
      },
    },
    'POST /v1/chat/completions': {
      body: json(ref('ChatCompletionRequest')),
      success: {
        status: '200',
        description:
          'A chat completion, or `data:` chunk events ending with `data: [DONE]` when `stream` is true.',
        content: { ...withLegacy('ChatCompletionResponse'), ...EVENT_STREAM },
      },
      idempotencyKey: true,
      replays: true,
      errors: [conflict, '503'],
    },
    'POST /v1/responses': {
      body: json(ref('ResponsesRequest')),
      success: {
        status: '200',
        description: 'A response, or an event stream when `stream` is true.',
        content: {
          ...withLegacy('ResponseObject'),
          ...EVENT_STREAM,
        },
      },
      idempotencyKey: true,
      replays: true,
      errors: [conflict, '503'],
    },
    'POST /v1/embeddings': {
      body: json(ref('EmbeddingRequest')),
      success: {
        status: '200',
        description: 'The embedding list.',
        content: withLegacy('EmbeddingListResponse'),
      },
      errors: ['503'],
    },
    'GET /v1/balance': {
      success: { status: '200', description: 'Balance in points.', content: withLegacy('BalanceResponse') },
    },
    'GET /v1/usage': {
      success: {
        status: '200',
        description: 'Per-request usage, newest first.',
        content: withLegacy('UsageList'),
      },
    },
    'GET /v1/ledger': {
      success: {
        status: '200',
        description: isVariant(ctx, 'ledger-ascending')
          ? 'Fund movements, oldest first.'
          : 'Fund movements, newest first.',
        content: withLegacy('LedgerList'),
      },
    },
    'GET /v1/media/models': {
      success: {
        status: '200',
        description: 'The media model catalog of the account, with input and parameter constraints.',
        content: json(ref('MediaCatalogResponse')),
      },
    },
    'POST /v1/media/inputs': {
      body: binary(INPUT_TYPES),
      success: {
        status: '201',
        description:
          'The stored, ready input (a replay with the same Idempotency-Key and bytes returns the same input). 429 when the account input quota is exhausted.',
        content: json(ref('MediaInputEnvelope')),
      },
      idempotencyKey: true,
      replays: true,
      headers: [
        {
          name: 'X-Filename',
          in: 'header',
          required: false,
          description: 'The name the input is listed under; default upload.<extension>.',
          schema: { type: 'string', maxLength: 255 },
        },
      ],
      errors: [conflict],
    },
    'DELETE /v1/media/inputs/{input_id}': {
      success: { status: '204', description: 'The input is deleted; its quota is released after cleanup.' },
      errors: ['409'],
    },
    'POST /v1/media/jobs': {
      body: json(ref('MediaJobCreate')),
      success: {
        status: '201',
        description:
          'The created job (a replay with the same Idempotency-Key and body returns the same job).',
        content: withLegacy('MediaJobResponse'),
      },
      idempotencyKey: true,
      replays: true,
      errors: [conflict],
    },
    'GET /v1/media/jobs/{job_id}': {
      success: { status: '200', description: 'The job.', content: withLegacy('MediaJobResponse') },
    },
    'GET /v1/media/assets/{asset_id}': {
      success: {
        status: '200',
        description: 'The output file of a succeeded job: an image, an MP4 video or a GLB 3D model.',
        content: binary(ASSET_TYPES),
      },
    },
    // Tickets and payments: shapes in routes/tickets.ts and routes/payments.ts.
    'GET /v1/support/tickets': {
      success: {
        status: '200',
        description: 'The tenant’s tickets.',
        content: json(ref('SupportTicketListResponse')),
      },
    },
    'POST /v1/support/tickets': {
      body: json(ref('SupportTicketCreate')),
      success: {
        status: ticketCreatedStatus(ctx),
        description: 'The created ticket (429 when 10 tickets are unresolved).',
        content: json(ref('SupportTicketEnvelopeResponse')),
      },
    },
    'GET /v1/payment-methods': {
      success: {
        status: '200',
        description: 'Legacy payment methods (403 to enterprise tenants).',
        content: json(ref('PaymentMethodList')),
      },
      deprecated: true,
    },
    'POST /v1/payment-orders': {
      body: json(ref('PaymentOrderCreate')),
      success: {
        status: '201',
        description: 'A legacy order awaiting admin review; not a payment (403 to enterprise tenants).',
        content: json(ref(isVariant(ctx, 'order-envelope') ? 'PaymentOrderEnvelope' : 'PaymentOrder')),
      },
      deprecated: true,
    },
  };
}

/** Shapes of the reference itself, next to the contract's components. */
function referenceSchemas(ctx: RefContext): Record<string, JsonObject> {
  const string = { type: 'string' };
  const pointsConfigured =
    isVariant(ctx, 'unpriced-omitted') || ctx.fault === 'models-prices-dropped' ? [] : ['points_configured'];
  const priced = {
    if: { required: ['points_configured'], properties: { points_configured: { const: true } } },
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, never awaited
    then: { required: ['request_points_per_million_tokens', 'response_points_per_million_tokens'] },
  };
  const modelEntry = isVariant(ctx, 'models-envelope')
    ? {
        type: 'object',
        required: ['model_id', 'features', 'max_context_tokens', ...pointsConfigured],
        properties: {
          model_id: string,
          features: { type: 'array', items: string },
          max_context_tokens: { type: 'integer', minimum: 1 },
        },
      }
    : {
        type: 'object',
        required: ['id', 'object', 'owned_by', 'capabilities', 'context_length', ...pointsConfigured],
        properties: {
          id: string,
          object: { const: 'model' },
          owned_by: string,
          capabilities: { type: 'array', items: string },
          context_length: { type: 'integer', minimum: 1 },
        },
      };
  const modelList = isVariant(ctx, 'models-envelope')
    ? {
        type: 'object',
        required: ['models'],
        properties: { models: { type: 'array', items: ref('ModelEntry') } },
      }
    : {
        type: 'object',
        required: ['object', 'data'],
        properties: { object: { const: 'list' }, data: { type: 'array', items: ref('ModelEntry') } },
      };
  const unit = { const: 'service_points' };
  const balance = isVariant(ctx, 'balance-envelope')
    ? {
        type: 'object',
        required: ['data'],
        properties: {
          data: { allOf: [ref('Balance'), { type: 'object', required: ['unit'], properties: { unit } }] },
        },
      }
    : {
        allOf: [
          ref('Balance'),
          {
            type: 'object',
            required: ['object', 'unit'],
            properties: {
              object: { const: 'balance' },
              unit,
              ...(isVariant(ctx, 'balance-storage-unit')
                ? {
                    storage: {
                      type: 'object',
                      description: 'The input space the account shares (images and video).',
                      properties: { limit: { type: 'integer' }, unit: { const: 'bytes' } },
                    },
                  }
                : {}),
            },
          },
        ],
      };
  return {
    ModelEntry: { allOf: [ref('TextModelEntry'), modelEntry, priced] },
    ModelList: modelList,
    BalanceResponse: balance,
    ...inferenceSchemas(ctx),
    ...accountSchemas(ctx),
    HealthStatus: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
    ServiceStatus: {
      type: 'object',
      required: ['status', 'incidents'],
      properties: { status: string, incidents: { type: 'array', items: OPEN } },
    },
    FlatError: { type: 'object', required: ['error'], properties: { error: string } },
  };
}

const decimal = ref('Points/$defs/decimalString');
const count = { type: 'integer', minimum: 0 };
const dateTime = { type: 'string', format: 'date-time' };

/** Request and reply shapes of chat, responses and embeddings, and the billing object. */
function inferenceSchemas(ctx: RefContext): Record<string, JsonObject> {
  // Variant spend-unreported: like no-billing, inference replies carry no billing object.
  const billed = !billingUnreported(ctx);
  const billing = billed ? { billing: ref('Billing') } : {};
  // Variant openapi-narrow-responses: replies described inside the documented ranges (a reply's
  // message role is `assistant` only, an embedding's token counts at least 1: its input is never empty).
  const narrow = isVariant(ctx, 'openapi-narrow-responses');
  const replyRole = narrow ? { enum: ['assistant'] } : { const: 'assistant' };
  const positive = { type: 'integer', minimum: 1 };
  const tokens = (names: string[]) => ({
    type: 'object',
    required: names,
    properties: Object.fromEntries(names.map((n) => [n, count])),
  });
  return {
    ...(billed
      ? {
          Billing: {
            type: 'object',
            description: 'Points settlement of the call: what it cost and what was held but released.',
            required: ['unit', 'charged_points', 'released_points'],
            properties: {
              unit: { const: billingUnit(ctx) },
              charged_points: decimal,
              released_points: decimal,
            },
          },
        }
      : {}),
    ChatCompletionResponse: {
      allOf: [
        ref('ChatCompletion'),
        {
          type: 'object',
          required: ['id', 'object', 'created', 'model', 'choices', 'usage', ...Object.keys(billing)],
          properties: {
            id: { type: 'string', pattern: '^chatcmpl-' },
            created: count,
            model: { type: 'string' },
            choices: {
              type: 'array',
              minItems: 1,
              items: {
                type: 'object',
                required: ['index', 'message', 'finish_reason'],
                properties: {
                  index: count,
                  finish_reason: { enum: ['stop', 'length'] },
                  message: {
                    type: 'object',
                    required: ['role', 'content'],
                    properties: { role: replyRole, content: { type: 'string' } },
                  },
                },
              },
            },
            usage: tokens(['prompt_tokens', 'completion_tokens', 'total_tokens']),
            ...billing,
          },
        },
      ],
    },
    ResponsesRequest: {
      type: 'object',
      required: ['model', 'input'],
      properties: {
        model: { type: 'string' },
        input: {
          description: 'Text, or the conversation as message-like items (history is carried by the caller).',
          oneOf: [
            { type: 'string', minLength: 1 },
            { type: 'array', minItems: 1, items: { type: 'object' } },
          ],
        },
        max_output_tokens: count,
        store: { type: 'boolean', description: 'Accepted; the service is stateless and stores nothing.' },
        stream: { type: 'boolean' },
      },
    },
    ResponseObject: {
      type: 'object',
      required: ['id', 'object', 'created_at', 'model', 'status', 'output', 'usage', ...Object.keys(billing)],
      properties: {
        id: { type: 'string', pattern: '^resp_' },
        object: { const: 'response' },
        created_at: count,
        model: { type: 'string' },
        status: { const: 'completed' },
        output: {
          type: 'array',
          items: {
            type: 'object',
            required: ['type', 'role', 'content'],
            properties: {
              type: { const: 'message' },
              role: { const: 'assistant' },
              content: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['type', 'text'],
                  properties: { type: { const: 'output_text' }, text: { type: 'string' } },
                },
              },
            },
          },
        },
        usage: tokens(['input_tokens', 'output_tokens', 'total_tokens']),
        ...billing,
      },
    },
    EmbeddingListResponse: {
      allOf: [
        ref('EmbeddingList'),
        {
          type: 'object',
          required: ['object', 'data', 'model', 'usage', ...Object.keys(billing)],
          properties: {
            data: {
              type: 'array',
              items: { type: 'object', required: ['object', 'index', 'embedding'] },
            },
            usage: narrow
              ? {
                  type: 'object',
                  required: ['prompt_tokens', 'total_tokens'],
                  properties: { prompt_tokens: positive, total_tokens: positive },
                }
              : tokens(['prompt_tokens', 'total_tokens']),
            ...billing,
          },
        },
      ],
    },
  };
}

/** Usage records and ledger entries. */
function accountSchemas(ctx: RefContext): Record<string, JsonObject> {
  const string = { type: 'string' };
  const record = isVariant(ctx, 'usage-envelope')
    ? {
        usage_id: string,
        request_ref: string,
        path: string,
        model: string,
        input_tokens: count,
        output_tokens: count,
        tokens: count,
        charged_points: decimal,
        timestamp: dateTime,
      }
    : isVariant(ctx, 'usage-records-bare') || isVariant(ctx, 'records-bare')
      ? {
          model_id: string,
          prompt_tokens: count,
          completion_tokens: count,
          total_tokens: count,
          charged_points: decimal,
        }
      : {
          id: string,
          request_id: string,
          endpoint: string,
          model: string,
          prompt_tokens: count,
          completion_tokens: count,
          total_tokens: count,
          charged_points: decimal,
          created_at: dateTime,
        };
  const callRecord = {
    type: 'object',
    description: 'One settled call, charged at the price snapshot valid when it was confirmed.',
    required: Object.keys(record),
    properties: record,
  };
  const list = (key: string, item: string, extra: JsonObject, required: string[]) => ({
    type: 'object',
    required: [...required, key],
    properties: { ...extra, [key]: { type: 'array', items: ref(item) } },
  });
  return {
    CallUsageRecord: callRecord,
    UsageRecord: isVariant(ctx, 'usage-envelope')
      ? ref('CallUsageRecord')
      : {
          anyOf: [
            ref('CallUsageRecord'),
            {
              type: 'object',
              description:
                "A media job's record: its job and charge, no token counts (its charge as charged_credits where studio metering keeps the older name).",
              required: ['id', 'job_id', 'endpoint', 'model', 'created_at'],
              properties: {
                id: string,
                job_id: string,
                endpoint: string,
                model: string,
                charged_points: decimal,
                charged_credits: decimal,
                created_at: dateTime,
              },
            },
          ],
        },
    UsageList: isVariant(ctx, 'usage-envelope')
      ? list('records', 'UsageRecord', {}, [])
      : list('data', 'UsageRecord', { object: { const: 'list' } }, ['object']),
    LedgerEntry: isVariant(ctx, 'records-bare')
      ? {
          type: 'object',
          required: ['amount_points', 'held_change_points', 'balance_after_points'],
          properties: {
            amount_points: decimal,
            held_change_points: decimal,
            balance_after_points: decimal,
          },
        }
      : {
          type: 'object',
          required: [
            'id',
            'type',
            'amount_points',
            'held_change_points',
            'balance_after_points',
            'usage_id',
            'created_at',
          ],
          properties: {
            id: string,
            type: { enum: ['top_up', 'hold', 'charge', 'release'] },
            amount_points: decimal,
            held_change_points: decimal,
            balance_after_points: decimal,
            usage_id: { type: ['string', 'null'] },
            created_at: dateTime,
          },
        },
    LedgerList: isVariant(ctx, 'ledger-ascending')
      ? list('entries', 'LedgerEntry', { has_more: { type: 'boolean' } }, ['has_more'])
      : list('data', 'LedgerEntry', { object: { const: 'list' } }, ['object']),
  };
}

function errorStatuses(business: boolean, op: Operation, pending: boolean): string[] {
  if (!business) return [];
  const common = op.body ? ['400', '401', '403', '404', '413', '415', '429'] : ['401', '403', '404', '429'];
  const statuses = [...new Set([...common, ...(op.errors ?? [])])].sort();
  if (pending) statuses.push('501');
  return statuses;
}

const REASONS: Record<string, string> = {
  '400': 'Invalid request.',
  '401': 'Missing, wrong, revoked or expired API key.',
  '403': 'Forbidden for this key, account or model.',
  '404': 'Unknown path, resource or model, or a model of another endpoint type.',
  '409':
    'The Idempotency-Key was used with a different request, or the input is in use by an active media job.',
  '413': 'Request body too large.',
  '415': 'Unsupported content type.',
  '422': 'The Idempotency-Key was used with a different request.',
  '429': 'Rate limit, quota or spend protection reached.',
  '500': 'Internal error.',
  '501': 'Not implemented by the reference yet.',
  '503': 'The model cannot be billed now (no points configuration).',
  default: 'Error.',
};

export function buildOpenApi(ctx: RefContext, pending: ReadonlySet<string>): JsonObject {
  const withHeaders = (response: JsonObject, replayable = false): JsonObject => {
    const headers: JsonObject = {
      'X-Request-ID': { $ref: '#/components/headers/RequestId' },
      ...(replayable ? { [REPLAYED]: { $ref: '#/components/headers/IdempotentReplayed' } } : {}),
    };
    return Object.keys(headers).length > 0 ? { ...response, headers } : response;
  };
  const errorResponse = (status: string): JsonObject => {
    const response = withHeaders({
      description: REASONS[status] ?? 'Error.',
      content: json(ref('APIError')),
    });
    return status === '429' ? describeRateLimit(ctx, response) : response;
  };

  const ops = operations(ctx);
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const endpoint of ENDPOINTS) {
    const key = `${endpoint.method} ${endpoint.path}`;
    const op = ops[key];
    if (!op) throw new Error(`openapi: no operation for ${key}`);
    const business = !endpoint.public;
    const errors = errorStatuses(business, op, pending.has(key));
    const responses: Record<string, JsonObject> = {
      [op.success.status]: withHeaders(
        { description: op.success.description, content: op.success.content },
        op.replays,
      ),
    };
    for (const status of errors) responses[status] = errorResponse(status);

    const parameters = [
      ...[...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...(op.idempotencyKey
        ? [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              schema: { type: 'string', maxLength: 128 },
            },
          ]
        : []),
      ...(op.headers ?? []),
    ];
    paths[endpoint.path] ??= {};
    (paths[endpoint.path] as Record<string, JsonObject>)[endpoint.method.toLowerCase()] = {
      operationId: operationId(endpoint.method, endpoint.path),
      summary: endpoint.purpose,
      ...(op.deprecated ? { deprecated: true } : {}),
      security: business ? [{ bearerAuth: [] }] : [],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: true, content: op.body } } : {}),
      responses,
    };
  }

  const schemas = {
    ...contractComponents(),
    ...referenceSchemas(ctx),
    ...ticketSchemas(ctx),
    ...paymentSchemas(ctx),
    ...mediaSchemas(ctx),
  };
  const doc: JsonObject = {
    openapi: '3.1.0',
    info: {
      title: 'gateway-conformance reference server',
      version: '1.0.0',
      description: 'In-memory reference implementation of the customer API contract.',
    },
    paths,
    components: {
      schemas,
      headers: {
        RequestId: {
          description: 'Unique id of this request, for support.',
          required: false,
          schema: { type: 'string' },
        },
        IdempotentReplayed: {
          description:
            'Present on a replay: the stored result of an earlier request with the same Idempotency-Key and body; nothing was executed or charged again.',
          required: false,
          schema: { const: 'true' },
        },
      },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    },
  };
  applyFaults(ctx, schemas);
  // The fault's and the variant's own description change (reference/faults/<area>.ts, `openapi`).
  const draft = { doc, paths, schemas, errorResponse };
  FAULTS.find((f) => f.name === ctx.fault)?.openapi?.(draft);
  VARIANTS.find((v) => v.openapi !== undefined && isVariant(ctx, v.name as VariantName))?.openapi?.(draft);
  // After the faults, so that the legacy twins follow what they change.
  addLegacyComponents(ctx, schemas);
  if (creditsNamed(ctx)) legacyAsJson(doc);
  return doc;
}

/**
 * Variant legacy-credits-json: a legacy reply is application/json too, so each JSON content with a
 * legacy twin describes either shape (anyOf) under application/json and the legacy media type goes.
 */
function legacyAsJson(doc: JsonObject): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const content = (node as { content?: Record<string, { schema: JsonObject }> }).content;
    const legacy = content?.[LEGACY_TYPE];
    const plain = content?.['application/json'];
    if (content && legacy && plain) {
      plain.schema = { anyOf: [plain.schema, legacy.schema] };
      delete content[LEGACY_TYPE];
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(doc.paths);
}

/**
 * `Legacy<name>` for every legacy root and every component it reaches: the same schema with every
 * points field renamed to its legacy name (fault legacy-added: both names), exactly as legacy.ts
 * renames the bodies.
 */
function addLegacyComponents(ctx: RefContext, schemas: Record<string, JsonObject>): void {
  const queue = [...LEGACY_ROOTS];
  const done = new Set<string>();
  const both = ctx.fault === 'legacy-added';
  const convert = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(convert);
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMAS)) {
        const [target = '', ...pointer] = value.slice(SCHEMAS.length).split('/');
        queue.push(target);
        out.$ref = `${SCHEMAS}Legacy${[target, ...pointer].join('/')}`;
      } else if (key === 'properties' && value !== null && typeof value === 'object') {
        const props: JsonObject = {};
        for (const [name, schema] of Object.entries(value)) {
          if (both && isPointsField(name)) props[name] = convert(schema);
          props[legacyName(name, ctx)] = convert(schema);
        }
        out.properties = props;
      } else if (key === 'required' && Array.isArray(value)) {
        const names = value as string[];
        const renamed = names.map((n) => legacyName(n, ctx));
        out.required = both ? [...new Set([...names, ...renamed])] : renamed;
      } else out[key] = convert(value);
    }
    return out;
  };
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (done.has(name)) continue;
    done.add(name);
    const source = schemas[name];
    if (!source) throw new Error(`openapi: no component ${name} for its legacy twin`);
    schemas[`Legacy${name}`] = {
      ...(convert(source) as JsonObject),
      description: `${name} in the legacy currency format (${LEGACY_TYPE}): every points field carries its legacy name.`,
    };
  }
}

function applyFaults(ctx: RefContext, schemas: Record<string, JsonObject>): void {
  // Faults purchase-cost-field and routing-field-host (internal.ts): the leaked entry field, described.
  const leaked = leakedFieldSchema(ctx);
  if (leaked) (schemas.ModelEntry as { allOf: JsonObject[] }).allOf.push(leaked);
}

function operationId(method: string, path: string): string {
  const words = path.split(/[^a-zA-Z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('');
}
