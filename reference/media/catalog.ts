// GET /v1/media/models entries, derived from the media table: "`id`; `kind`; `capabilities`;
// `prompt_contract`; `parameters` object: `reference` ... and one entry per parameter name with
// `options` (items with `value`), or integer `minimum`/`maximum`/optional `step`/..., and `default`. Each entry also
// links to data-handling details (processing region, recipients, retention) for the model."
import type { RefContext } from '../context.ts';
import { patchedModel } from '../patch.ts';
import { isVariant } from '../reach.ts';
import type { Account } from '../state.ts';
import { EXTRA_IDS, kindOf, MEDIA_IDS, type ModelDef, modelDef, type ParameterDef, TABLE } from './table.ts';

// Variant media-subset: the account's media catalog lists only these eight.
const SUBSET = [
  'wc-100010',
  'wc-100011',
  'wc-100013',
  'wc-100015',
  'wc-100016',
  'wc-100017',
  'wc-100018',
  'wc-100040',
];

/** The media model ids the account may call: the documented ones, then the reference's own. */
export function mediaCatalog(ctx: RefContext, account: Account): string[] {
  if (account.catalog.length === 0) return [];
  // Fault media-subset-unenforced lists the subset of variant media-subset (and calls the rest anyway).
  return isVariant(ctx, 'media-subset') || ctx.fault === 'media-subset-unenforced'
    ? SUBSET
    : [...MEDIA_IDS, ...EXTRA_IDS];
}

/** The model as the catalog advertises it: the table, with the fault's advertised patch (reference/patch.ts). */
export function advertised(ctx: RefContext, id: string): ModelDef | undefined {
  return patchedModel(ctx, id, modelDef(id), false);
}

/** The model as the server enforces it: the table, with the fault's patch (reference/patch.ts). */
export function enforced(ctx: RefContext, id: string): ModelDef | undefined {
  return patchedModel(ctx, id, modelDef(id), true);
}

function capabilities(def: ModelDef): string[] {
  const refs = def.references.accepted ?? [];
  if (def.output === 'glb') return ['image_to_3d'];
  if (def.output === 'video') {
    if (refs.length === 0) return ['text_to_video'];
    return refs.includes('video') ? ['image_to_video', 'video_to_video'] : ['image_to_video'];
  }
  return refs.length === 0 ? ['text_to_image'] : ['image_to_image'];
}

function parameter(p: ParameterDef): Record<string, unknown> {
  if (p.values) return { type: 'string', options: p.values.map((value) => ({ value })), default: p.default };
  if (p.integer) {
    const { min, max, step } = p.integer;
    return {
      type: 'integer',
      minimum: min,
      maximum: max,
      ...(step === undefined ? {} : { step }),
      default: p.default,
    };
  }
  if (p.boolean) return { type: 'boolean', options: [{ value: true }, { value: false }], default: p.default };
  if (p.string) return { type: 'string', default: p.default };
  const presets = TABLE.size_lists[p.presets ?? ''] ?? [];
  const custom = p.custom;
  return {
    type: 'string',
    options: presets.map((value) => ({ value })),
    default: p.default,
    ...(custom
      ? {
          custom_size: {
            pattern: TABLE.custom_size_pattern,
            minimum_pixels: custom.min_pixels,
            maximum_pixels: custom.max_pixels,
            maximum_edge: custom.max_edge,
            step: custom.step,
            maximum_aspect_ratio: custom.max_aspect_ratio,
          },
        }
      : {}),
  };
}

function reference(ctx: RefContext, def: ModelDef): Record<string, unknown> | undefined {
  const r = def.references;
  if (!r.accepted || r.accepted.length === 0) return undefined;
  return {
    accepted: r.accepted,
    minimum: r.min,
    maximum: r.max,
    // Fault catalog-ratio-flag-false: the catalog says no model's aspect ratio follows its first frame.
    aspect_ratio_follows_first_frame:
      ctx.fault !== 'catalog-ratio-flag-false' &&
      (r.first_frame_rule?.aspect_ratio_follows_first_frame ?? false),
    required: r.required === true,
    fields: TABLE.reference_fields,
    ...(r.first_frame_rule ? { first_is_first_frame: true, second_is_last_frame: true } : {}),
    ...(r.video
      ? {
          video: {
            count: r.video.count,
            codec: 'h264',
            minimum_duration_ms: r.video.min_ms,
            maximum_duration_ms: r.video.max_ms,
            mixing_with_images: false,
          },
        }
      : {}),
  };
}

const withX = (v: unknown) => (typeof v === 'string' ? v.replace(/^([0-9]+)\*([0-9]+)$/, '$1x$2') : v);
function sizesWithX(param: Record<string, unknown>): Record<string, unknown> {
  const options = param.options as Array<{ value: unknown }>;
  return {
    ...param,
    options: options.map((o) => ({ value: withX(o.value) })),
    default: withX(param.default),
  };
}

export function catalogEntry(ctx: RefContext, id: string): Record<string, unknown> {
  const def = advertised(ctx, id) as ModelDef;
  const prompt = def.prompt;
  const ref = reference(ctx, def);
  const params: Record<string, unknown> = ref ? { reference: ref } : {};
  // Variant catalog-size-separator: the sizes of a model that takes custom sizes written WxH throughout
  // ("digits, then `x` or `*`, then digits": 1024*1024 and 1024x1024 are one size).
  const separator = isVariant(ctx, 'catalog-size-separator');
  for (const [name, p] of Object.entries(def.parameters))
    params[name] = separator && p.custom ? sizesWithX(parameter(p)) : parameter(p);
  return {
    id,
    object: 'media_model',
    kind: kindOf(def),
    // Fault catalog-capabilities-string: the list joined into one string.
    capabilities:
      ctx.fault === 'catalog-capabilities-string' ? capabilities(def).join(',') : capabilities(def),
    prompt_contract: {
      empty_only: prompt.empty_only,
      minimum_characters: prompt.min_chars,
      // Variant empty-prompt-uncapped: a prompt that must be empty is advertised with the general cap.
      maximum_characters:
        isVariant(ctx, 'empty-prompt-uncapped') && prompt.empty_only ? 4000 : prompt.max_chars,
      // Variant empty-prompt-zero-bytes: a prompt that must be empty is advertised with a 0-byte cap.
      maximum_utf8_bytes:
        isVariant(ctx, 'empty-prompt-zero-bytes') && prompt.empty_only ? 0 : prompt.max_utf8_bytes,
      required: prompt.required,
    },
    parameters: params,
    data_handling: {
      url: `/docs/data-handling#${id}`,
      processing_region: 'cn-east',
      recipients: ['the model provider that runs the job'],
      retention: 'inputs until deleted; outputs while the job is kept',
    },
  };
}
