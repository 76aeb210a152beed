// The reference's own OpenAPI 3.1 description, built from schemas/ plus the concrete shapes the
// reference sends. It must stay true to what the server answers under every variant; faults that
// should be caught only by a contract check change it along with the server.
import type { RefContext } from './context.ts';
import { ENDPOINTS } from './fixtures.ts';
import { contractComponents, type JsonObject } from './schemas.ts';

type Content = Record<string, { schema: JsonObject }>;

interface Operation {
  success: { status: string; description: string; content?: Content };
  body?: Content;
  deprecated?: boolean;
  idempotencyKey?: boolean;
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject): Content => ({ 'application/json': { schema } });
const binary = (types: string[]): Content =>
  Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]));
const OPEN: JsonObject = { type: 'object' };
const EVENT_STREAM: Content = { 'text/event-stream': { schema: { type: 'string' } } };
const INPUT_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4'];
const ASSET_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4', 'model/gltf-binary'];

function operations(ctx: RefContext): Record<string, Operation> {
  const textHealth = ctx.variant === 'healthz-text';
  return {
    'GET /healthz': {
      success: {
        status: '200',
        description: 'The service is up.',
        content: textHealth ? { 'text/plain': { schema: { type: 'string' } } } : json(ref('HealthStatus')),
      },
    },
    'GET /status': {
      success: {
        status: '200',
        description: 'Service status and published incidents.',
        content: textHealth ? { 'text/html': { schema: { type: 'string' } } } : json(ref('ServiceStatus')),
      },
    },
    'GET /openapi.json': { success: { status: '200', description: 'This document.', content: json(OPEN) } },
    'GET /v1/models': {
      success: {
        status: '200',
        description: 'The calling account’s catalog.',
        content: json(ref('ModelList')),
      },
    },
    'POST /v1/chat/completions': {
      body: json(ref('ChatCompletionRequest')),
      success: {
        status: '200',
        description: 'A chat completion, or a stream of chunks when `stream` is true.',
        content: { ...json(ref('ChatCompletion')), ...EVENT_STREAM },
      },
      idempotencyKey: true,
    },
    'POST /v1/responses': {
      body: json(ref('ResponsesRequest')),
      success: {
        status: '200',
        description: 'A response, or an event stream when `stream` is true.',
        content: { ...json(OPEN), ...EVENT_STREAM },
      },
      idempotencyKey: true,
    },
    'POST /v1/embeddings': {
      body: json(ref('EmbeddingRequest')),
      success: { status: '200', description: 'The embedding list.', content: json(ref('EmbeddingList')) },
    },
    'GET /v1/balance': {
      success: { status: '200', description: 'Balance in points.', content: json(ref('BalanceResponse')) },
    },
    'GET /v1/usage': { success: { status: '200', description: 'Per-request usage.', content: json(OPEN) } },
    'GET /v1/ledger': { success: { status: '200', description: 'Fund movements.', content: json(OPEN) } },
    'GET /v1/media/models': {
      success: {
        status: '200',
        description: 'The media model catalog.',
        content: json(ref('MediaCatalogList')),
      },
    },
    'POST /v1/media/inputs': {
      body: binary(INPUT_TYPES),
      success: { status: '201', description: 'The stored input.', content: json(ref('MediaInputEnvelope')) },
      idempotencyKey: true,
    },
    'DELETE /v1/media/inputs/{input_id}': {
      success: { status: '204', description: 'The input is deleted.' },
    },
    'POST /v1/media/jobs': {
      body: json(ref('MediaJobCreate')),
      success: { status: '201', description: 'The created job.', content: json(ref('MediaJob')) },
      idempotencyKey: true,
    },
    'GET /v1/media/jobs/{job_id}': {
      success: { status: '200', description: 'The job.', content: json(ref('MediaJob')) },
    },
    'GET /v1/media/assets/{asset_id}': {
      success: { status: '200', description: 'The output file.', content: binary(ASSET_TYPES) },
    },
    'GET /v1/support/tickets': {
      success: {
        status: '200',
        description: 'The tenant’s tickets.',
        content: json(ref('SupportTicketList')),
      },
    },
    'POST /v1/support/tickets': {
      body: json(ref('SupportTicketCreate')),
      success: {
        status: '201',
        description: 'The created ticket.',
        content: json(ref('SupportTicketEnvelope')),
      },
    },
    'GET /v1/payment-methods': {
      success: { status: '200', description: 'Legacy payment methods.', content: json(OPEN) },
      deprecated: true,
    },
    'POST /v1/payment-orders': {
      body: json(ref('PaymentOrderCreate')),
      success: {
        status: '201',
        description: 'A legacy order awaiting admin review; not a payment.',
        content: json(ref('CompatibilityRechargeOrder')),
      },
      deprecated: true,
    },
  };
}

/** Shapes of the reference itself, next to the contract's components. */
function referenceSchemas(ctx: RefContext): Record<string, JsonObject> {
  const string = { type: 'string' };
  const pointsConfigured = ctx.variant === 'unpriced-omitted' ? [] : ['points_configured'];
  const priced = {
    if: { required: ['points_configured'], properties: { points_configured: { const: true } } },
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, never awaited
    then: { required: ['request_points_per_million_tokens', 'response_points_per_million_tokens'] },
  };
  const modelEntry =
    ctx.variant === 'models-envelope'
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
  const modelList =
    ctx.variant === 'models-envelope'
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
  const balance =
    ctx.variant === 'balance-envelope'
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
              properties: { object: { const: 'balance' }, unit },
            },
          ],
        };
  return {
    ModelEntry: { allOf: [ref('TextModelEntry'), modelEntry, priced] },
    ModelList: modelList,
    BalanceResponse: balance,
    ResponsesRequest: {
      type: 'object',
      required: ['model', 'input'],
      properties: {
        model: string,
        input: {},
        max_output_tokens: { type: 'integer', minimum: 0 },
        store: { type: 'boolean' },
        stream: { type: 'boolean' },
      },
    },
    HealthStatus: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
    ServiceStatus: {
      type: 'object',
      required: ['status', 'incidents'],
      properties: { status: string, incidents: { type: 'array', items: OPEN } },
    },
    FlatError: { type: 'object', required: ['error'], properties: { error: string } },
  };
}

function errorStatuses(
  ctx: RefContext,
  key: string,
  business: boolean,
  body: boolean,
  pending: boolean,
): string[] {
  if (!business) {
    if (key === 'GET /healthz' && ctx.fault === 'healthz-auth') return ['401'];
    if (key === 'GET /status' && ctx.fault === 'status-500') return ['500'];
    return [];
  }
  const statuses = body ? ['400', '401', '403', '404', '413', '415', '429'] : ['401', '403', '404', '429'];
  if (pending) statuses.push('501');
  if (key === 'GET /v1/models' && ctx.fault === 'openapi-undeclared-401')
    return statuses.filter((s) => s !== '401');
  return statuses;
}

const REASONS: Record<string, string> = {
  '400': 'Invalid request.',
  '401': 'Missing, wrong, revoked or expired API key.',
  '403': 'Forbidden for this key, account or model.',
  '404': 'Unknown path or resource.',
  '413': 'Request body too large.',
  '415': 'Unsupported content type.',
  '429': 'Rate limit or quota reached.',
  '500': 'Internal error.',
  '501': 'Not implemented by the reference yet.',
  default: 'Error.',
};

export function buildOpenApi(ctx: RefContext, pending: ReadonlySet<string>): JsonObject {
  const withHeaders = (response: JsonObject): JsonObject =>
    ctx.variant === 'no-request-id'
      ? response
      : { ...response, headers: { 'X-Request-ID': { $ref: '#/components/headers/RequestId' } } };
  const errorResponse = (status: string): JsonObject => {
    const schema = status === '401' && ctx.fault === 'error-shape-flat' ? ref('FlatError') : ref('APIError');
    return withHeaders({ description: REASONS[status] ?? 'Error.', content: json(schema) });
  };

  const ops = operations(ctx);
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const endpoint of ENDPOINTS) {
    const key = `${endpoint.method} ${endpoint.path}`;
    const op = ops[key];
    if (!op) throw new Error(`openapi: no operation for ${key}`);
    const business = !endpoint.public || (key === 'GET /healthz' && ctx.fault === 'healthz-auth');
    const errors = errorStatuses(ctx, key, business, op.body !== undefined, pending.has(key));
    const responses: Record<string, JsonObject> = {
      [op.success.status]: withHeaders({ description: op.success.description, content: op.success.content }),
    };
    if (ctx.variant === 'openapi-default-errors' && errors.length > 0)
      responses.default = errorResponse('default');
    else for (const status of errors) responses[status] = errorResponse(status);

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

  const schemas = { ...contractComponents(), ...referenceSchemas(ctx) };
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
      },
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    },
  };
  applyFaults(ctx, doc, schemas);
  return doc;
}

function applyFaults(ctx: RefContext, doc: JsonObject, schemas: Record<string, JsonObject>): void {
  const props = (name: string) => (schemas[name] as { properties: Record<string, JsonObject> }).properties;
  const paths = doc.paths as Record<string, unknown>;
  switch (ctx.fault) {
    case 'openapi-invalid':
      delete doc.info;
      paths['/v1/broken'] = 'not a path item';
      break;
    case 'openapi-missing-endpoint':
      delete paths['/v1/embeddings'];
      break;
    case 'openapi-enum-drift': {
      const chat = props('ChatCompletionRequest');
      chat.temperature = { ...chat.temperature, maximum: 1 };
      const role = (chat.messages as { items: { properties: { role: { enum: string[] } } } }).items.properties
        .role;
      role.enum = role.enum.filter((r) => r !== 'developer');
      break;
    }
    case 'models-price-number':
      props('TextModelEntry').request_points_per_million_tokens = { type: 'number' };
      props('TextModelEntry').response_points_per_million_tokens = { type: 'number' };
      break;
    case 'balance-number':
      for (const field of ['total_points', 'held_points', 'available_points'])
        props('Balance')[field] = { type: 'number' };
      break;
    case 'balance-missing-held': {
      const balance = schemas.Balance as { required: string[] };
      balance.required = balance.required.filter((f) => f !== 'held_points');
      break;
    }
  }
}

function operationId(method: string, path: string): string {
  const words = path.split(/[^a-zA-Z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('');
}
