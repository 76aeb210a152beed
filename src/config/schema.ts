import { EFFECTS, HINTS, ROLES } from '../vocabulary.ts';

const envName = {
  type: 'string',
  pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
  errorMessage: 'must be the NAME of an environment variable, never a key value',
};

/** JSON Schema of targets.yaml. Closed everywhere: a misspelt setting must not be silently ignored. */
export const targetsFileSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['targets'],
  properties: {
    targets: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'base_url'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' },
          description: { type: 'string' },
          base_url: {
            anyOf: [{ const: 'embedded' }, { type: 'string', pattern: '^https?://[^\\s]+$' }],
          },
          keys: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(ROLES.map((r) => [r, envName])),
          },
          allow: {
            anyOf: [{ const: 'all' }, { type: 'array', uniqueItems: true, items: { enum: [...EFFECTS] } }],
          },
          models: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(HINTS.map((h) => [h, { type: 'string', minLength: 1 }])),
          },
          capabilities: { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } },
          canaries: { type: 'array', items: { type: 'string', minLength: 4 } },
          timeouts: {
            type: 'object',
            additionalProperties: false,
            properties: {
              request_ms: { type: 'integer', minimum: 100, maximum: 600000 },
              test_ms: { type: 'integer', minimum: 1000, maximum: 3600000 },
              stream_ms: { type: 'integer', minimum: 100, maximum: 600000 },
            },
          },
          concurrency: { type: 'integer', minimum: 1, maximum: 64 },
          media: {
            type: 'object',
            additionalProperties: false,
            properties: {
              poll_interval_ms: { type: 'integer', minimum: 0, maximum: 600000 },
              poll_cap: { type: 'integer', minimum: 1, maximum: 1440 },
            },
          },
          limits: {
            type: 'object',
            additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          },
          shared_account: { type: 'boolean' },
          // Validated further by parseBudget (negative or non-numeric: a message saying so).
          budget_points: { anyOf: [{ type: 'number', minimum: 0 }, { type: 'string' }] },
        },
      },
    },
  },
} as const;
