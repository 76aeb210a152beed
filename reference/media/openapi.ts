// The media shapes of the reference's description, next to the contract's MediaCatalogList,
// MediaInputEnvelope and MediaJob: what the media routes send under every variant, and the faults
// that are "described so".
import type { RefContext } from '../context.ts';
import { isVariant } from '../reach.ts';
import type { JsonObject } from '../schemas.ts';

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const string = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const decimal = ref('Points/$defs/decimalString');
const STATUSES = [
  'authorizing',
  'queued',
  'submission_uncertain',
  'running',
  'output_fetching',
  'succeeded',
  'failed',
  'settlement_pending',
  // variant succeeded-expires: a succeeded job later reads expired
  'expired',
];

export function mediaSchemas(ctx: RefContext): Record<string, JsonObject> {
  const entry = {
    allOf: [
      ref('MediaCatalogEntry'),
      {
        type: 'object',
        required: ['id', 'kind', 'capabilities', 'prompt_contract', 'parameters', 'data_handling'],
        properties: {
          kind: { enum: ['image_generation', 'video_generation', 'model_3d_generation'] },
          data_handling: {
            type: 'object',
            description: 'Where the model processes data, who receives it and how long it is kept.',
            required: ['url', 'processing_region', 'recipients', 'retention'],
            properties: {
              url: string,
              processing_region: string,
              recipients: { type: 'array', items: string },
              retention: string,
            },
          },
        },
      },
    ],
  };
  const progress = isVariant(ctx, 'progress-object')
    ? {
        type: 'object',
        required: ['phase', 'updated_at', 'eta_seconds'],
        properties: {
          phase: { enum: STATUSES },
          updated_at: dateTime,
          eta_seconds: { type: 'integer', minimum: 0 },
        },
      }
    : {
        type: 'object',
        required: ['stage', 'observed_at'],
        properties: { stage: { enum: STATUSES }, observed_at: dateTime },
      };
  const required = [
    'id',
    'status',
    'kind',
    'model',
    'progress',
    'progress_percent',
    'pending_points',
    'created_at',
  ];
  return {
    MediaCatalogEntryResponse: entry,
    MediaCatalogResponse: {
      allOf: [
        ref('MediaCatalogList'),
        { type: 'object', properties: { data: { type: 'array', items: ref('MediaCatalogEntryResponse') } } },
      ],
    },
    MediaProgress: { description: 'The stage of the job and when it was observed.', ...progress },
    MediaJobResponse: {
      allOf: [
        ref('MediaJob'),
        {
          type: 'object',
          description:
            'pending_points: the points held for the job ("0" once settled); charged_points and released_points once settled.',
          required,
          properties: {
            id: { type: 'string', pattern: '^job_' },
            asset_id: string,
            progress: ref('MediaProgress'),
            progress_percent: { type: ['integer', 'null'], minimum: 0, maximum: 100 },
            pending_points: decimal,
            charged_points: decimal,
            released_points: decimal,
            created_at: dateTime,
          },
        },
      ],
    },
  };
}
