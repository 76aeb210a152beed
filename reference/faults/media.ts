// Faults and variants of media inputs, jobs, assets and the media catalog (media/, routes/media-*.ts).
import { Decimal } from 'decimal.js';
import {
  type CustomSize,
  EXTRA_IDS,
  MEDIA_IDS,
  type ModelDef,
  modelDef,
  type ParameterDef,
} from '../media/table.ts';
import type { MediaModelPatch, ModelChange, TablePatch } from '../patch.ts';
import {
  ACK,
  type Fault,
  jobBody,
  keyed,
  longKey,
  optional,
  type ProbeTarget,
  req,
  sleep,
  successAs,
  UNCERTAIN,
  type Variant,
  withParams,
  withPrompt,
} from './probe.ts';

// The helpers of the faults that are table patches (reference/patch.ts): one model's change, one
// parameter's, every model's.
const defOf = (id: string) => modelDef(id) as ModelDef;

/** One model's change as the server enforces it (and as the catalog advertises it, with `advertised`). */
const onModel = (model: string, set: ModelChange, advertised?: true): TablePatch => ({
  media: [{ model, set, ...(advertised ? { advertised } : {}) }],
});

/** One parameter of one model changed, given the parameter as the table has it. */
const onParameter = (
  model: string,
  name: string,
  change: (p: ParameterDef) => ParameterDef,
  advertised?: true,
): TablePatch =>
  onModel(
    model,
    { parameters: { [name]: change(defOf(model).parameters[name] as ParameterDef) } },
    advertised,
  );

/** The change `change` gives each model (documented and the reference's own; `ids` only, when given). */
function everyModel(
  change: (def: ModelDef) => ModelChange | undefined,
  ids: readonly string[] = [...MEDIA_IDS, ...EXTRA_IDS],
): MediaModelPatch[] {
  return ids.flatMap((model) => {
    const set = change(defOf(model));
    return set ? [{ model, set }] : [];
  });
}

/** A change of each custom-size bound of a model (none for a model without custom sizes). */
const customSize =
  (change: (c: CustomSize) => Partial<CustomSize>) =>
  (def: ModelDef): ModelChange | undefined => {
    const sized = Object.entries(def.parameters).filter(([, p]) => p.custom);
    if (sized.length === 0) return undefined;
    const parameters = Object.fromEntries(
      sized.map(([name, p]) => [
        name,
        { ...p, custom: { ...(p.custom as CustomSize), ...change(p.custom as CustomSize) } },
      ]),
    );
    return { parameters };
  };

/** The status of a raw upload of `body` declared `type`, by the primary key (a probe's own request). */
async function rawUpload(ref: ProbeTarget, type: string, body: Buffer): Promise<number> {
  const res = await fetch(`${ref.url}/v1/media/inputs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ref.keys.primary}`,
      'content-type': type,
      'idempotency-key': `probe-${Date.now()}-${Math.random()}`,
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

export const MEDIA_FAULTS = [
  // media/validate.ts: "A ready input stays until it is explicitly deleted": a succeeded job uses its inputs up
  {
    name: 'input-consumed-by-job',
    description:
      'an input referenced by a job that succeeded can no longer be referenced (refused as no ready input), though nobody deleted it',
    breaks: ['MIN-009'],
    probe: {
      run: async ({ ref, inputId, createJob, pollJob, accepted }) => {
        const id = await inputId(ref);
        const job = await createJob(ref, jobBody('wc-100011', [id]));
        const { seen } = await pollJob(ref, job.body.id);
        return seen.at(-1) === 'succeeded' && !(await accepted(ref, jobBody('wc-100011', [id])));
      },
    },
  },
  // media/validate.ts: a body that is no JSON object read as one (StrykerJS survivor of isObject)
  {
    name: 'body-shape-unchecked',
    description:
      'a media job body that is no JSON object (null, an array) is read as one: the server fails (500)',
    breaks: ['MJOB-002', 'ERR-002', 'RESP-001'],
    probe: {
      request: req.job(null as unknown as Record<string, unknown>),
      holds: (r) => r.status >= 500,
    },
  },
  // media/validate.ts: parameters absent or no object read as one (StrykerJS survivor of isObject)
  {
    name: 'parameters-shape-unchecked',
    description:
      'a media job without a parameters object (absent, null, an array) is read as one: the server fails (500)',
    breaks: ['MJOB-001', 'ERR-002', 'RESP-001'],
    probe: {
      request: req.job({ model: 'wc-100010', prompt: 'cat' }),
      holds: (r) => r.status >= 500,
    },
  },
  // media/validate.ts: a job without the acknowledgement accepted
  {
    name: 'ack-missing-accepted',
    description: 'a media job without parameters.provider_processing_acknowledged is accepted',
    breaks: ['MJOB-001'],
    probe: {
      request: req.job({ model: 'wc-100010', prompt: 'cat', parameters: {} }),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: provider_processing_acknowledged false accepted
  {
    name: 'ack-false-accepted',
    description: 'a media job with provider_processing_acknowledged false is accepted',
    breaks: ['MJOB-001'],
    probe: {
      request: req.job(withParams('wc-100010', { provider_processing_acknowledged: false })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: unknown top-level fields accepted
  {
    name: 'top-level-extra-accepted',
    description: 'a media job with an extra top-level field is accepted',
    breaks: ['MJOB-002'],
    probe: { request: req.job({ ...jobBody('wc-100010'), seed: 1 }), holds: (r) => r.status === 201 },
  },
  // media/validate.ts: the never-accepted frame_images accepted
  {
    name: 'frame-images-accepted',
    description: 'parameters.frame_images is accepted',
    breaks: ['MJOB-003'],
    probe: {
      request: req.job(withParams('wc-100010', { frame_images: [] })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: a never-accepted name refused only when its value is an empty array
  {
    name: 'never-accepted-empty-only',
    description:
      'the never-accepted parameter names are refused only with an empty array (a minItems: 1 check); a non-empty value such as image_urls ["https://example.com/a.png"] passes through',
    breaks: ['MJOB-003'],
    probe: {
      request: req.job(withParams('wc-100010', { image_urls: ['https://example.com/a.png'] })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: quality accepted (and ignored) for wc-100010
  {
    name: 'foreign-param-accepted',
    description: 'wc-100010 accepts parameters.quality, which it does not have',
    breaks: ['MJOB-004'],
    patch: onModel('wc-100010', { parameters: { quality: { string: true, default: null } } }),
    probe: { request: req.job(withParams('wc-100010', { quality: 'high' })), holds: (r) => r.status === 201 },
  },
  // media/validate.ts: output_format accepted for wc-100012
  {
    name: 'output-format-wc100012',
    description: 'wc-100012 accepts parameters.output_format, which it does not have',
    breaks: ['MJOB-004'],
    patch: onModel('wc-100012', {
      parameters: { output_format: { values: ['png', 'jpeg', 'webp'], default: 'png' } },
    }),
    probe: {
      request: req.job(withParams('wc-100012', { output_format: 'png' })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: prompt length in UTF-16 units
  {
    name: 'prompt-utf16',
    description: 'prompts are counted in UTF-16 units (an emoji counts twice)',
    breaks: ['MJOB-006'],
    probe: { request: req.job(withPrompt('wc-100017', '😀'.repeat(400))), holds: (r) => r.status === 400 },
  },
  // media/validate.ts: prompt counted before trimming
  {
    name: 'prompt-untrimmed',
    description: 'prompts are counted without trimming surrounding white space',
    breaks: ['MJOB-006', 'MJOB-007'],
    probe: { request: req.job(withPrompt('wc-100031', '  ab  ')), holds: (r) => r.status === 201 },
  },
  // media/validate.ts: every white space dropped before counting (StrykerJS survivor of trimUnicode's anchors)
  {
    name: 'prompt-inner-space-stripped',
    description:
      'prompts are counted with every white space removed, inside too ("a b" counts 2), not only the surrounding one',
    breaks: ['MJOB-006'],
    probe: { request: req.job(withPrompt('wc-100031', 'a b')), holds: (r) => r.status === 400 },
  },
  // media/validate.ts: no UTF-8 byte cap
  {
    name: 'prompt-bytes-ignored',
    description: 'the 4000 UTF-8 byte cap of prompts is not enforced',
    breaks: ['MJOB-007', 'MJOB-006'],
    patch: { media: everyModel(() => ({ prompt: { max_utf8_bytes: Number.POSITIVE_INFINITY } })) },
    probe: { request: req.job(withPrompt('wc-100010', '漢'.repeat(1334))), holds: (r) => r.status === 201 },
  },
  // media/validate.ts: wc-100031 prompt minimum 1 instead of 3
  {
    name: 'min3-unenforced',
    description: 'wc-100031 accepts prompts of 1 or 2 characters',
    breaks: ['MJOB-006'],
    patch: onModel('wc-100031', { prompt: { min_chars: 1 } }),
    probe: { request: req.job(withPrompt('wc-100031', 'ab')), holds: (r) => r.status === 201 },
  },
  // media/validate.ts: a text prompt accepted for wc-100018
  {
    name: 'prompt-wc100018',
    description: 'wc-100018 accepts a non-empty prompt',
    breaks: ['MJOB-008'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, { ...jobBody('wc-100018', [await inputId(ref)]), prompt: 'a house' }),
    },
  },
  // media/validate.ts: custom-size step not checked for wc-100040
  {
    name: 'size-step-ignored',
    description: 'wc-100040 accepts custom sizes off its 16-pixel step',
    breaks: ['MJOB-009'],
    patch: {
      media: everyModel(
        customSize(() => ({ step: 1 })),
        ['wc-100040'],
      ),
    },
    probe: {
      request: req.job(withParams('wc-100040', { size: '1000x1000' })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: the longest-edge bound checked on the width only (StrykerJS survivor)
  {
    name: 'size-height-edge-unchecked',
    description:
      'a custom size whose height exceeds the maximum edge is accepted (only the width is bounded)',
    breaks: ['MJOB-009'],
    probe: {
      request: req.job(withParams('wc-100012', { size: '884x14143' })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: a height of exactly the maximum edge refused (>= instead of >; StrykerJS survivor)
  {
    name: 'size-height-edge-exclusive',
    description: 'a custom size whose height is exactly the maximum edge is refused',
    breaks: ['MJOB-009'],
    probe: {
      request: req.job(withParams('wc-100012', { size: '884x14142' })),
      holds: (r) => r.status === 400,
    },
  },
  // media/validate.ts: a size that is no string read as one (StrykerJS survivor of the type check)
  {
    name: 'size-array-coerced',
    description: 'a size sent as a one-item array is read as its string (["1024x1024"] is 1024x1024)',
    breaks: ['MJOB-009'],
    probe: {
      request: req.job(withParams('wc-100010', { size: ['1024x1024'] })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: custom-size aspect-ratio cap not checked
  {
    name: 'size-ratio-ignored',
    description: 'custom sizes beyond the maximum aspect ratio are accepted',
    breaks: ['MJOB-009'],
    patch: { media: everyModel(customSize(() => ({ max_aspect_ratio: Number.POSITIVE_INFINITY }))) },
    probe: {
      request: req.job(withParams('wc-100010', { size: '4352x241' })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: wc-100013 refuses the list B presets list A lacks
  {
    name: 'list-b-refused',
    description: 'wc-100013 refuses list B presets such as auto_4K',
    breaks: ['MJOB-009'],
    probe: {
      run: async ({ ref, jobStatus, inputId }) =>
        (await jobStatus(ref, withParams('wc-100013', { size: 'auto_4K' }, [await inputId(ref)]))) === 400,
    },
  },
  // media/validate.ts: wc-100041 refuses a named preset of its list C (wc-100040 accepts it)
  {
    name: 'square-hd-refused-wc100041',
    description: 'wc-100041 refuses size square_hd, a named preset of its size list C',
    breaks: ['MJOB-009'],
    probe: {
      run: async ({ ref, jobStatus, inputId }) =>
        (await jobStatus(ref, withParams('wc-100041', { size: 'square_hd' }, [await inputId(ref)]))) === 400,
    },
  },
  // media/validate.ts: wc-100034 refuses a middle aspect_ratio value (sampling may never send it)
  {
    name: 'aspect-4-1-refused',
    description: 'wc-100034 refuses its aspect_ratio 4:1, a listed value',
    breaks: ['MJOB-005'],
    patch: onParameter('wc-100034', 'aspect_ratio', (p) => ({
      ...p,
      values: (p.values ?? []).filter((v) => v !== '4:1'),
    })),
    probe: {
      run: async ({ ref, jobStatus, inputId }) =>
        (await jobStatus(ref, withParams('wc-100034', { aspect_ratio: '4:1' }, [await inputId(ref)]))) ===
        400,
    },
  },
  // media/validate.ts: custom sizes written W*H refused (presets with * still accepted)
  {
    name: 'custom-star-refused',
    description: 'custom sizes written with the separator * are refused; only WxH is read',
    breaks: ['MJOB-009'],
    patch: { mediaTable: { custom_size_pattern: '^[0-9]+x[0-9]+$' } },
    probe: {
      request: req.job(withParams('wc-100010', { size: '4096*256' })),
      holds: (r) => r.status === 400,
    },
  },
  // media/validate.ts: the exact maximum pixel count of a custom size refused (< instead of <=)
  {
    name: 'max-pixels-exclusive',
    description: 'a custom size of exactly the maximum pixel count is refused',
    breaks: ['MJOB-009'],
    patch: { media: everyModel(customSize((c) => ({ max_pixels: c.max_pixels - 1 }))) },
    probe: {
      request: req.job(withParams('wc-100010', { size: '2048x2048' })),
      holds: (r) => r.status === 400,
    },
  },
  // media/validate.ts: wc-100032 refuses its largest reference count (14 images)
  {
    name: 'ref-max-refused',
    description: 'wc-100032 refuses 14 reference images, its stated maximum',
    breaks: ['MJOB-010'],
    probe: {
      run: async ({ ref, jobStatus, inputId }) =>
        (await jobStatus(
          ref,
          jobBody('wc-100032', await Promise.all(Array.from({ length: 14 }, () => inputId(ref)))),
        )) === 400,
    },
  },
  // media/validate.ts: wc-100014 duration up to 31
  {
    name: 'duration-max-31',
    description: 'wc-100014 accepts duration 31',
    breaks: ['MJOB-005'],
    patch: onParameter('wc-100014', 'duration', (p) => ({ ...p, integer: { min: 4, max: 31 } })),
    probe: { request: req.job(withParams('wc-100014', { duration: 31 })), holds: (r) => r.status === 201 },
  },
  // media/validate.ts: wc-100019 resolution 1080p (lower case) accepted
  {
    name: 'resolution-case',
    description: 'wc-100019 accepts resolution 1080p besides 1080P',
    breaks: ['MJOB-005'],
    patch: onParameter('wc-100019', 'resolution', (p) => ({ ...p, values: [...(p.values ?? []), '1080p'] })),
    probe: {
      request: req.job(withParams('wc-100019', { resolution: '1080p' })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: wc-100031 takes the aspect_ratio set of wc-100033/34 (one enum for the family)
  {
    name: 'aspect-ratio-family-union',
    description:
      'wc-100031 accepts aspect_ratio 4:1, 1:4, 8:1 and 1:8, valid only for its siblings wc-100033/34 (one enum shared by the family)',
    breaks: ['MJOB-005'],
    patch: onParameter('wc-100031', 'aspect_ratio', (p) => ({
      ...p,
      values: [...(p.values ?? []), '4:1', '1:4', '8:1', '1:8'],
    })),
    probe: {
      request: req.job(withParams('wc-100031', { aspect_ratio: '8:1' })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: wc-100010 takes the output_format set of wc-100031 to wc-100041
  {
    name: 'output-format-webp-wc100010',
    description:
      'wc-100010 accepts output_format webp, valid only for the models whose set is jpeg, png, webp (its own is jpeg, png)',
    breaks: ['MJOB-005'],
    patch: onParameter('wc-100010', 'output_format', (p) => ({
      ...p,
      values: [...(p.values ?? []), 'webp'],
    })),
    probe: {
      request: req.job(withParams('wc-100010', { output_format: 'webp' })),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: one reference more than the maximum accepted
  {
    name: 'ref-max-off-by-one',
    description: 'a job with one reference image more than the model maximum is accepted',
    breaks: ['MJOB-010'],
    patch: {
      media: everyModel((def) =>
        (def.references.accepted ?? []).length > 0
          ? { references: { max: (def.references.max ?? 1) + 1 } }
          : undefined,
      ),
    },
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, jobBody('wc-100041', [await inputId(ref), await inputId(ref), await inputId(ref)])),
    },
  },
  // media/validate.ts: input_asset_ids and studio_asset_ids together accepted
  {
    name: 'both-id-fields',
    description: 'input_asset_ids and studio_asset_ids together are accepted',
    breaks: ['MJOB-011'],
    probe: {
      run: async ({ ref, inputId, accepted }) => {
        const id = await inputId(ref);
        return accepted(ref, withParams('wc-100011', { studio_asset_ids: [id] }, [id]));
      },
    },
  },
  // media/validate.ts: duplicate reference ids accepted (deduplicated silently)
  {
    name: 'duplicate-ids',
    description: 'duplicate reference ids are accepted',
    breaks: ['MJOB-012'],
    probe: {
      run: async ({ ref, inputId, accepted }) => {
        const id = await inputId(ref);
        return accepted(ref, jobBody('wc-100011', [id, id]));
      },
    },
  },
  // media/validate.ts: reference ids over 160 UTF-8 bytes dropped silently
  {
    name: 'ref-id-161',
    description: 'a reference id over 160 UTF-8 bytes is ignored and the job created',
    breaks: ['MJOB-012'],
    probe: { request: req.job(jobBody('wc-100011', ['x'.repeat(161)])), holds: (r) => r.status === 201 },
  },
  // media/validate.ts: reference ids that are no array of strings (StrykerJS survivors of the shape check)
  {
    name: 'ref-ids-bare-accepted',
    description:
      'a reference id sent alone, not in an array, is read as an array of that id and the job created',
    breaks: ['MJOB-012'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, withParams('wc-100011', { input_asset_ids: await inputId(ref) })),
    },
  },
  {
    name: 'ref-id-type-unchecked',
    description: 'a reference id that is no string (a number) is measured as one: the server fails (500)',
    breaks: ['MJOB-012', 'ERR-002', 'RESP-001'],
    probe: {
      request: req.job(withParams('wc-100011', { input_asset_ids: [160] })),
      holds: (r) => r.status >= 500,
    },
  },
  // media/validate.ts: "A model missing from the catalog cannot be called": media jobs not held to it
  {
    name: 'media-catalog-unenforced',
    description:
      "media jobs are not held to the account's media catalog: the no_models account (an empty catalog) runs a wc-100010 job",
    breaks: ['MODELS-004'],
    places: [{ id: 'MODELS-004', place: 'POST /v1/media/jobs' }],
    probe: {
      request: req.job(jobBody('wc-100010'), { role: 'no_models' }),
      holds: (r) => r.status === 201,
    },
  },
  // media/catalog.ts + media/validate.ts: the media catalog lists 8 of the 16 models, the rest run anyway
  {
    name: 'media-subset-unenforced',
    description:
      "the primary account's media catalog lists 8 of the 16 documented models (as variant media-subset), and jobs for the other 8 run anyway",
    breaks: ['MODELS-004'],
    probe: {
      run: async ({ ref, call, accepted }) => {
        const listed = (await call(ref, '/v1/media/models', { role: 'primary' })).body.data as Array<{
          id: string;
        }>;
        return !listed.some((e) => e.id === 'wc-100012') && (await accepted(ref, jobBody('wc-100012')));
      },
    },
  },
  // media/validate.ts: a text model of the account's catalog accepted as a media job's model
  {
    name: 'media-job-text-model',
    description:
      "a media job naming a text model of the account's catalog (the chat model) runs as wc-100010",
    breaks: ['MJOB-044'],
    probe: {
      run: async ({ ref, accepted }) => accepted(ref, { ...jobBody('wc-100010'), model: ref.hints.chat }),
    },
  },
  // media/validate.ts: two videos in video mode, where it takes exactly one
  {
    name: 'two-videos-accepted',
    description: 'wc-100016 accepts two video references (video mode takes exactly one)',
    breaks: ['MJOB-013'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(
          ref,
          jobBody('wc-100016', [await inputId(ref, 'h264-2s.mp4'), await inputId(ref, 'h264-2s.mp4')]),
        ),
    },
  },
  // media/validate.ts: image and video references mixed for wc-100016
  {
    name: 'mix-image-video',
    description: 'wc-100016 accepts images and a video together',
    breaks: ['MJOB-013'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, jobBody('wc-100016', [await inputId(ref), await inputId(ref, 'h264-2s.mp4')])),
    },
  },
  // routes/media-inputs.ts: input ids of 161 bytes
  // (The router refuses so long a path parameter: the cleanup's DELETE of such an id is answered 400,
  // which the description does not declare for that operation.)
  {
    name: 'input-id-161',
    description: 'uploaded inputs get ids of 161 bytes',
    breaks: ['MIN-013', 'RESP-001'],
    probe: { run: async ({ ref, inputId }) => (await inputId(ref)).length > 160 },
  },
  // media/validate.ts: a `kind` in the create request is refused, even the model's own
  {
    name: 'kind-refused',
    description: 'a media job that sends `kind` is refused',
    breaks: ['MJOB-002'],
    probe: {
      request: req.job({ ...jobBody('wc-100014'), kind: 'video_generation' }),
      holds: (r) => !(r.status === 201),
    },
  },
  // media/validate.ts: media model ids resolved without regard to case
  {
    name: 'media-model-case',
    description: 'a media job for WC-100010 (capitals) is created for wc-100010',
    breaks: ['MJOB-044'],
    probe: {
      request: req.job({ ...jobBody('wc-100010'), model: 'WC-100010' }),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: wc-100016's video window starts at the upload rule's 1 s, not 1.8 s
  {
    name: 'video-window-short',
    description: 'wc-100016 accepts a reference video of 1 to 1.8 s',
    breaks: ['MJOB-041'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, jobBody('wc-100016', [await inputId(ref, 'h264-1.5s.mp4')])),
    },
  },
  // media/validate.ts: an image-only model counts a video reference as an image
  {
    name: 'video-as-image',
    description: 'a model that takes image references only accepts a video as one',
    breaks: ['MJOB-042'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, jobBody('wc-100011', [await inputId(ref, 'h264-2s.mp4')])),
    },
  },
  // media/validate.ts: `studio_asset_ids` is not a known name (refused as an unsupported parameter)
  {
    name: 'studio-ids-unknown',
    description: '`studio_asset_ids` alone is refused as an unsupported parameter',
    breaks: ['MJOB-043'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        !(await accepted(ref, withParams('wc-100011', { studio_asset_ids: [await inputId(ref)] }))),
    },
  },
  // media/validate.ts: another tenant's input usable as a reference
  {
    name: 'foreign-input-accepted',
    description: "a job may reference another tenant's input",
    breaks: ['MIN-012'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, jobBody('wc-100011', [await inputId(ref, 'png-64x48.png', 'other_tenant')])),
    },
  },
  // routes/media-inputs.ts: an input is the uploading key's, not the tenant's
  {
    name: 'input-owned-by-key',
    description:
      "an input can be deleted only with the key that uploaded it: another key of the same enterprise account is answered 404, as for another tenant's input",
    breaks: ['MIN-012'],
    probe: {
      run: async ({ ref, inputId, call }) => {
        const id = await inputId(ref, 'png-64x48.png', 'enterprise');
        return (
          (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'enterprise_second' }))
            .status === 404
        );
      },
    },
  },
  // media/validate.ts: a deleted input usable as a reference
  {
    name: 'deleted-input-accepted',
    description: 'a job may reference a deleted input',
    // The model then sees a delete of the input accepted while the job that references it is active.
    breaks: ['MIN-009', 'MIN-010'],
    probe: {
      run: async ({ ref, inputId, call, accepted }) => {
        const id = await inputId(ref);
        await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' });
        return accepted(ref, jobBody('wc-100011', [id]));
      },
    },
  },
  // routes/media-inputs.ts + media/validate.ts: the declared type is trusted, never sniffed
  {
    name: 'sniff-skipped',
    description: 'uploads are not sniffed: the declared Content-Type is trusted everywhere',
    breaks: ['MIN-005'],
    probe: { request: req.upload('png-as-jpeg.jpg'), holds: (r) => r.status === 201 },
  },
  // media/upload.ts: application/octet-stream accepted, typed by its bytes (201 is declared: no RESP-00x)
  {
    name: 'upload-octet-stream',
    description: 'an upload declared application/octet-stream is accepted and typed by its sniffed bytes',
    breaks: ['MIN-004'],
    probe: {
      request: req.upload('png-64x48.png', { type: 'application/octet-stream' }),
      holds: (r) => r.body?.input?.content_type === 'image/png',
    },
  },
  // routes/media-inputs.ts: every upload refused 415, valid ones too (the upload refusals are then not run,
  // beside no accepted control: test/case-controls.test.ts)
  {
    name: 'uploads-refused',
    description: 'every media upload is refused 415 unsupported_media_type, valid files too',
    breaks: ['MIN-085'],
    probe: { request: req.upload('png-64x48.png'), holds: (r) => r.status === 415 },
  },
  // routes/media-inputs.ts: every input delete refused 409 input_in_use, of inputs no job references too
  // (MIN-010's refusal then stands beside no accepted delete: not run, test/case-controls.test.ts)
  {
    name: 'deletes-refused',
    description:
      'every delete of a media input is refused 409 input_in_use, of a ready input no job references too',
    breaks: ['MIN-009'],
    probe: {
      run: async ({ ref, inputId, call }) => {
        const id = await inputId(ref, 'png-64x48.png');
        return (
          (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status === 409
        );
      },
    },
  },
  // media/validate.ts: every job of one model refused 400 invalid_request, valid ones too (its refusal
  // tests then stand beside no accepted job: not judged, test/case-controls.test.ts)
  {
    name: 'model-jobs-refused',
    description: 'every media job of wc-100033 is refused 400 invalid_request, valid ones too',
    breaks: ['MJOB-005', 'MJOB-006', 'MJOB-007', 'MJOB-020'],
    probe: {
      request: req.job(jobBody('wc-100033')),
      holds: (r) => r.status === 400,
    },
  },
  // routes/media-inputs.ts + media/openapi.ts: uppercase sha256 (pattern removed from the description)
  {
    name: 'sha-uppercase',
    description: 'input sha256 is uppercase hex (and described without the pattern)',
    breaks: ['MIN-002'],
    openapi: ({ schemas }) => {
      const { pattern: _pattern, ...sha256 } = schemas.MediaInput.properties.sha256;
      schemas.MediaInput.properties.sha256 = sha256;
    },
    probe: { request: req.upload('png-64x48.png'), holds: (r) => /[A-F]/.test(r.body.input.sha256) },
  },
  // routes/media-inputs.ts + media/openapi.ts: available_at in epoch seconds (format removed from the description)
  {
    name: 'available-at-epoch',
    description:
      'input available_at is epoch seconds in a string, not a date-time (and described without the format)',
    breaks: ['MIN-002'],
    openapi: ({ schemas }) => {
      const { format: _format, ...availableAt } = schemas.MediaInput.properties.available_at;
      schemas.MediaInput.properties.available_at = availableAt;
    },
    probe: { request: req.upload('png-64x48.png'), holds: (r) => /^\d+$/.test(r.body.input.available_at) },
  },
  // routes/media-inputs.ts: duration_ms 1 for images
  {
    name: 'image-duration-nonzero',
    description: 'image inputs report duration_ms 1',
    breaks: ['MIN-002', 'RESP-003'],
    probe: { request: req.upload('png-64x48.png'), holds: (r) => r.body.input.duration_ms !== 0 },
  },
  // routes/media-inputs.ts + media/openapi.ts: quota_remaining_bytes in the closed envelope (described)
  {
    name: 'envelope-extra-field',
    description: 'the MediaInputEnvelope carries quota_remaining_bytes (and is described so)',
    breaks: ['MIN-001'],
    openapi: ({ schemas }) => {
      schemas.MediaInputEnvelope.properties.quota_remaining_bytes = { type: 'integer' };
    },
    probe: { request: req.upload('png-64x48.png'), holds: (r) => 'quota_remaining_bytes' in r.body },
  },
  // routes/media-inputs.ts: expires_at on new inputs
  {
    name: 'expires-on-new',
    description: 'new inputs carry an expires_at 30 days ahead',
    breaks: ['MIN-003'],
    probe: { request: req.upload('png-64x48.png'), holds: (r) => 'expires_at' in r.body.input },
  },
  // routes/media-inputs.ts: 8193-pixel edges accepted
  {
    name: 'edge-8193',
    description: 'an 8193-pixel image edge is accepted',
    breaks: ['MIN-006', 'RESP-003'],
    probe: { request: req.upload('png-8193x1.png'), holds: (r) => r.status === 201 },
  },
  // routes/media-inputs.ts: the edge bound 8192 itself refused
  {
    name: 'edge-8192-refused',
    description: 'an image edge of exactly 8192 pixels is refused (the bound taken as exclusive)',
    breaks: ['MIN-006'],
    probe: { request: req.upload('png-8192x1.png'), holds: (r) => r.status === 400 },
  },
  // routes/media-inputs.ts: the edge bound held on the width only
  {
    name: 'edge-height-unchecked',
    description: 'an image 8193 pixels high is accepted (only the width is held to 8192)',
    breaks: ['MIN-006', 'RESP-003'],
    probe: { request: req.upload('png-1x8193.png'), holds: (r) => r.status === 201 },
  },
  // routes/media-inputs.ts + media/validate.ts: 31 s video accepted
  {
    name: 'video-31s',
    description: 'a 31 s video is accepted at upload and at job creation',
    breaks: ['MIN-006', 'RESP-003'],
    probe: { request: req.upload('h264-31s.mp4'), holds: (r) => r.status === 201 },
  },
  // routes/media-inputs.ts + media/validate.ts: HEVC accepted
  {
    name: 'hevc-accepted',
    description: 'HEVC video is accepted at upload and at job creation',
    breaks: ['MIN-007'],
    probe: { request: req.upload('hevc-2s.mp4'), holds: (r) => r.status === 201 },
  },
  // inference.ts lookupKey: a key with a colon refused (the reference client's keys hold one)
  {
    name: 'idem-key-colon-refused',
    description:
      'an Idempotency-Key holding a colon (as the reference client makes them) is refused as malformed (400), on every route that takes one',
    breaks: ['IDEM-005'],
    level: 'implied',
    probe: {
      run: async ({ ref, upload }) =>
        (await upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': `probe:${Date.now()}` } }))
          .status === 400,
    },
  },
  // inference.ts lookupKey: the uploads' key store keeps 64 characters of a key
  {
    name: 'upload-key-prefix-64',
    description:
      "an upload's Idempotency-Key is kept to its first 64 characters: two keys of 128 that differ only at the end are one task (the second upload answers the first input)",
    breaks: ['IDEM-005'],
    level: 'implied',
    probe: {
      run: async ({ ref, upload }) => {
        const key = longKey(`probe.upload:${Date.now()}`);
        const a = await upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': `${key}a` } });
        const b = await upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': `${key}b` } });
        return a.body.input.id === b.body.input.id;
      },
    },
  },
  // inference.ts lookupKey: the jobs' key store keeps 64 characters of a key
  {
    name: 'job-key-prefix-64',
    description:
      "a media job's Idempotency-Key is kept to its first 64 characters: two keys of 128 that differ only at the end are one task (the second create answers the first job)",
    breaks: ['IDEM-005'],
    level: 'implied',
    probe: {
      run: async ({ ref, createJob }) => {
        const key = longKey(`probe.job:${Date.now()}`);
        const body = jobBody('wc-100010');
        const a = await createJob(ref, body, { headers: { 'idempotency-key': `${key}a` } });
        const b = await createJob(ref, body, { headers: { 'idempotency-key': `${key}b` } });
        return a.body.id === b.body.id;
      },
    },
  },
  // routes/media-inputs.ts: a replayed upload creates another input
  {
    name: 'upload-replay-new',
    description: 'the same upload with the same Idempotency-Key creates a second input',
    breaks: ['MIN-008'],
    probe: {
      run: async ({ ref, upload }) => {
        const headers = { 'idempotency-key': 'probe-upload' };
        const [a, b] = [
          await upload(ref, 'png-64x48.png', { headers }),
          await upload(ref, 'png-64x48.png', { headers }),
        ];
        return a.body.input.id !== b.body.input.id;
      },
    },
  },
  // routes/media-inputs.ts: no active-job check on delete
  {
    name: 'delete-while-active',
    description: 'an input referenced by an active job can be deleted',
    breaks: ['MIN-010'],
    probe: {
      run: async ({ ref, inputId, createJob, call }) => {
        const id = await inputId(ref);
        await createJob(ref, jobBody('wc-100011', [id]));
        return (
          (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status === 204
        );
      },
    },
  },
  // routes/media-inputs.ts: no input quota
  {
    name: 'quota-ignored',
    description: 'the input quota (10 GiB; 4096 bytes left for quota_nearly_full) is never enforced',
    breaks: ['MIN-011'],
    probe: {
      request: req.upload('jpeg-1024x576.jpg', { role: 'quota_nearly_full' }),
      holds: (r) => r.status === 201,
    },
  },
  // routes/media-jobs.ts: "kind ... required; model ... required" on the create reply only
  {
    name: 'job-read-fields-dropped',
    description:
      'GET /v1/media/jobs/{id} leaves out kind and model (and the description makes them optional)',
    breaks: ['MJOB-020'],
    openapi: ({ schemas }) => {
      for (const schema of [schemas.MediaJob, schemas.MediaJobResponse.allOf[1]])
        if (schema?.required) for (const field of ['kind', 'model']) optional(schema, field);
    },
    probe: {
      run: async ({ ref, call }) => {
        const job = await call(ref, '/v1/media/jobs', {
          method: 'POST',
          role: 'primary',
          json: jobBody('wc-100010'),
        });
        const read = await call(ref, `/v1/media/jobs/${job.body.id}`, { role: 'primary' });
        return read.status === 200 && !('model' in read.body) && !('kind' in read.body);
      },
    },
  },
  // routes/media-inputs.ts: a replayed upload's envelope gains a field
  {
    name: 'replay-envelope-extra',
    description:
      'a replayed upload answers {object, input, replayed: true}: the closed envelope gains a field',
    breaks: ['MIN-001'],
    openapi: ({ schemas }) => {
      schemas.MediaInputEnvelope.properties.replayed = { type: 'boolean' };
    },
    probe: {
      run: async ({ ref, upload }) => {
        const headers = { 'idempotency-key': `probe-${Math.random()}` };
        await upload(ref, 'png-64x48.png', { headers });
        return (await upload(ref, 'png-64x48.png', { headers })).body?.replayed === true;
      },
    },
  },
  // routes/media-inputs.ts: one Idempotency-Key store for the uploads of every account
  {
    name: 'upload-key-global',
    description:
      "uploads' Idempotency-Keys are kept across accounts: another tenant's upload of the same bytes with the same key is answered with the first tenant's input",
    breaks: ['MIN-012'],
    probe: {
      run: async ({ ref, upload }) => {
        const key = `probe-${Math.random()}`;
        const a = await upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': key } });
        const b = await upload(ref, 'png-64x48.png', {
          role: 'other_tenant',
          headers: { 'idempotency-key': key },
        });
        return a.status === 201 && b.body?.input?.id === a.body?.input?.id;
      },
    },
  },
  // routes/media-jobs.ts: the create's answer names another model ("never substitutes another model")
  {
    name: 'job-create-model-substituted',
    description:
      'a media job create is answered naming another documented model than the one asked (its reads name the right one)',
    breaks: ['MJOB-020'],
    probe: {
      run: async ({ ref, createJob }) =>
        (await createJob(ref, jobBody('wc-100010'))).body?.model === 'wc-100011',
    },
  },
  // routes/media-jobs.ts: one Idempotency-Key store for the job creates of every account
  {
    name: 'job-key-global',
    description:
      "job creates' Idempotency-Keys are kept across accounts: another tenant's create of the same body with the same key is answered with the first tenant's job",
    breaks: ['MASSET-003'],
    probe: {
      run: async ({ ref, createJob }) => {
        const key = `probe-${Math.random()}`;
        const body = jobBody('wc-100010');
        const a = await createJob(ref, body, { headers: { 'idempotency-key': key } });
        const b = await createJob(ref, body, { role: 'other_tenant', headers: { 'idempotency-key': key } });
        return a.status === 201 && b.body?.id === a.body?.id;
      },
    },
  },
  // routes/media-inputs.ts: the quota held for images only
  {
    name: 'quota-images-only',
    description: 'the input quota is enforced on image uploads only: a video past it is accepted',
    breaks: ['MIN-011'],
    probe: {
      request: req.upload('h264-1.79s.mp4', { role: 'quota_nearly_full' }),
      holds: (r) => r.status === 201,
    },
  },
  // routes/media-jobs.ts: a replayed job creates another job and hold
  {
    name: 'job-replay-new',
    description: 'the same job with the same Idempotency-Key creates a second job and hold',
    breaks: ['MJOB-024'],
    probe: {
      run: async ({ ref, createJob }) => {
        const headers = { 'idempotency-key': 'probe-job' };
        const [a, b] = [
          await createJob(ref, jobBody('wc-100010'), { headers }),
          await createJob(ref, jobBody('wc-100010'), { headers }),
        ];
        return a.body.id !== b.body.id;
      },
    },
  },
  // media/view.ts: succeeded without asset_id
  {
    name: 'succeeded-no-asset',
    description: 'succeeded jobs carry no asset_id',
    breaks: ['MJOB-021', 'RESP-003'],
    probe: { run: async ({ ref, succeededJob }) => !('asset_id' in (await succeededJob(ref))) },
  },
  // media/store.ts + media/openapi.ts: progress_percent 101 (described without maximum)
  {
    name: 'progress-101',
    description:
      'jobs before their end report progress_percent 101 (described as an integer without maximum)',
    breaks: ['MJOB-022'],
    openapi: ({ schemas }) => {
      schemas.MediaJob.properties.progress_percent = { type: ['integer', 'null'] };
      schemas.MediaJobResponse.allOf[1].properties.progress_percent = { type: ['integer', 'null'] };
    },
    probe: {
      run: async ({ ref, createJob, pollJob }) => {
        const created = await createJob(ref, jobBody('wc-100010'));
        return (await pollJob(ref, created.body.id)).percents.includes(101);
      },
    },
  },
  // media/store.ts: a failed job reads as running later
  {
    name: 'failed-flips',
    description: 'a failed job reads as running two stages later',
    breaks: ['MJOB-025'],
    probe: {
      run: async ({ ref, createJob, pollJob, readJob }) => {
        const created = await createJob(ref, { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_FAIL_JOB' });
        await pollJob(ref, created.body.id);
        await sleep(200);
        return (await readJob(ref, created.body.id)).body.status !== 'failed';
      },
    },
  },
  // media/view.ts: failed jobs without error_code and error_message (notable: "may be present" for failed)
  {
    name: 'failed-no-error',
    description: 'failed jobs carry no error_code and no error_message',
    breaks: ['MJOB-023'],
    level: 'notable',
    probe: {
      run: async ({ ref, createJob, pollJob, readJob }) => {
        const created = await createJob(ref, { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_FAIL_JOB' });
        await pollJob(ref, created.body.id);
        const job = (await readJob(ref, created.body.id)).body;
        return job.status === 'failed' && !('error_code' in job) && !('error_message' in job);
      },
    },
  },
  // routes/media-jobs.ts + routes/media-assets.ts: no owner check on jobs and assets
  {
    name: 'asset-other-tenant',
    description: 'another tenant can read a job and download its asset',
    breaks: ['MASSET-003'],
    probe: {
      run: async ({ ref, readJob, createJob }) =>
        (await readJob(ref, (await createJob(ref, jobBody('wc-100010'))).body.id, 'other_tenant')).status ===
        200,
    },
  },
  // routes/media-inputs.ts: an empty body accepted as an input ("size_bytes | 1 to 10737418240")
  {
    name: 'empty-upload-accepted',
    description:
      'an upload with an empty body (0 bytes) is accepted as an input (whose size_bytes 0 its own description rules out)',
    breaks: ['MIN-014', 'RESP-003'],
    probe: {
      run: async ({ ref }) => (await rawUpload(ref, 'image/png', Buffer.alloc(0))) === 201,
    },
  },
  // media/upload.ts: images over 16 MiB refused with 413 ("no separate per-image byte cap")
  ...(
    [
      ['image-byte-cap', 'image uploads', ['image/png', 'image/jpeg', 'image/webp']],
      ['jpeg-byte-cap', 'JPEG uploads (the other types are not capped)', ['image/jpeg']],
      ['webp-byte-cap', 'WebP uploads (the other types are not capped)', ['image/webp']],
    ] as const
  ).map(
    ([name, what, types]): Fault => ({
      name,
      description: `${what} over 16 MiB are refused with 413, a cap of their own`,
      breaks: ['MIN-014'],
      places: types.map((type) => ({ id: 'MIN-014', place: `form=upload ${type}` })),
      probe: {
        run: async ({ ref }) =>
          (await rawUpload(ref, types[types.length - 1]!, Buffer.alloc(17 * 1024 * 1024))) === 413,
      },
    }),
  ),
  // routes/media-assets.ts: no asset served, while its job reads succeeded (not expired)
  {
    name: 'asset-not-served',
    description: "a succeeded job's asset answers 404 while the job still reads succeeded",
    breaks: ['MASSET-001'],
    probe: {
      run: async ({ ref, succeededJob }) => {
        const res = await fetch(
          `${ref.url}/v1/media/assets/${(await succeededJob(ref, 'wc-100010')).asset_id}`,
          { headers: { authorization: `Bearer ${ref.keys.primary}` } },
        );
        return res.status === 404;
      },
    },
  },
  // media/validate.ts: "" refused before wc-100018's rule (absent and white space alone accepted)
  {
    name: 'empty-string-prompt-refused',
    description:
      'wc-100018 refuses prompt "" (a non-empty string check before its rule), though its prompt "must be empty"; absent and white space alone are accepted',
    breaks: ['MJOB-008'],
    probe: {
      run: async ({ ref, inputId, jobStatus }) => {
        const body = jobBody('wc-100018', [await inputId(ref)]);
        return (await jobStatus(ref, { ...body, prompt: '' })) === 400;
      },
    },
  },
  // routes/media-assets.ts: one family of models drops output_format (their default png is served)
  {
    name: 'output-format-ignored',
    description:
      'wc-100031 to wc-100034 serve a PNG whatever output_format the job asked (jpeg, webp accepted and ignored)',
    breaks: ['MASSET-001'],
    probe: {
      run: async ({ ref, createJob, pollJob }) => {
        const created = await createJob(ref, withParams('wc-100031', { output_format: 'jpeg' }));
        const job = (await pollJob(ref, created.body.id)).last.body;
        const res = await fetch(`${ref.url}/v1/media/assets/${job.asset_id}`, {
          headers: { authorization: `Bearer ${ref.keys.primary}` },
        });
        return Buffer.from(await res.arrayBuffer())[0] === 0x89;
      },
    },
  },
  // routes/media-assets.ts: JPEG bytes (labelled image/png) for png output
  {
    name: 'asset-wrong-format',
    description: 'image jobs asking output_format png get JPEG bytes',
    breaks: ['MASSET-001'],
    places: [{ id: 'MASSET-001', place: 'output=image' }],
    probe: {
      run: async ({ ref, succeededJob }) => {
        const res = await fetch(
          `${ref.url}/v1/media/assets/${(await succeededJob(ref, 'wc-100040')).asset_id}`,
          {
            headers: { authorization: `Bearer ${ref.keys.primary}` },
          },
        );
        return Buffer.from(await res.arrayBuffer())[0] === 0xff;
      },
    },
  },
  // media/catalog.ts: wc-100014 duration advertised and accepted up to 60
  {
    name: 'catalog-wider',
    description: 'the catalog advertises (and the server accepts) wc-100014 duration up to 60',
    breaks: ['MCAT-003'],
    patch: onParameter('wc-100014', 'duration', (p) => ({ ...p, integer: { min: 4, max: 60 } }), true),
    probe: {
      run: async ({ ref, catalogEntry, accepted }) =>
        (await catalogEntry(ref, 'wc-100014')).parameters.duration.maximum === 60 &&
        (await accepted(ref, withParams('wc-100014', { duration: 60 }))),
    },
  },
  // routes/media-assets.ts + media/openapi.ts: a bare array (described so)
  {
    name: 'catalog-missing-data',
    description: 'GET /v1/media/models answers a bare array (and is described so)',
    breaks: ['MCAT-001'],
    openapi: ({ schemas }) => {
      schemas.MediaCatalogResponse = {
        type: 'array',
        items: { $ref: '#/components/schemas/MediaCatalogEntryResponse' },
      };
    },
    probe: {
      request: req.call('/v1/media/models', { role: 'primary' }),
      holds: (r) => Array.isArray(r.body),
    },
  },
  // media/catalog.ts + media/openapi.ts: capabilities as one comma-separated string (described so)
  {
    name: 'catalog-capabilities-string',
    description: 'media catalog capabilities are one comma-separated string (and described as a string)',
    // The description's string contradicts the contract's array: drift (OAS-003).
    breaks: ['MCAT-002', 'OAS-003'],
    openapi: ({ schemas }) => {
      schemas.MediaCatalogEntry.properties.capabilities = { type: 'string' };
    },
    probe: {
      run: async ({ ref, catalogEntry }) =>
        typeof (await catalogEntry(ref, 'wc-100010')).capabilities === 'string',
    },
  },
  // media/view.ts + media/openapi.ts: no kind when the request sent none (described so)
  {
    name: 'kind-missing',
    description: 'jobs created without kind omit kind (and kind is described as optional)',
    breaks: ['MJOB-020'],
    openapi: ({ schemas }) => {
      optional(schemas.MediaJob, 'kind');
      optional(schemas.MediaJobResponse.allOf[1], 'kind');
    },
    probe: { request: req.job(jobBody('wc-100010')), holds: (r) => !('kind' in r.body) },
  },
  // media/view.ts + media/openapi.ts: progress is the integer percent; the description is silent on it
  {
    name: 'job-progress-number',
    description:
      'a job reports progress as its integer percent (progress: 50), not a MediaProgress object; the live description says nothing of progress',
    breaks: ['MJOB-028'],
    openapi: ({ schemas }) => {
      delete schemas.MediaJob.properties.progress;
      delete schemas.MediaJobResponse.allOf[1].properties.progress;
      optional(schemas.MediaJobResponse.allOf[1], 'progress');
    },
    probe: { request: req.job(jobBody('wc-100010')), holds: (r) => typeof r.body.progress === 'number' },
  },
  // routes/media-jobs.ts: media validation code bad_parameter
  {
    name: 'invalid-code',
    description: 'media job validation refusals carry code bad_parameter instead of invalid_request',
    breaks: ['MJOB-014'],
    probe: {
      request: req.job(withParams('wc-100010', { quality: 'high' })),
      holds: (r) => r.body.error.code === 'bad_parameter',
    },
  },
  // media/catalog.ts: wc-900001 advertised with its bounds, enforced with almost none
  {
    name: 'undocumented-unenforced',
    description:
      'the undocumented wc-900001 is advertised as before but accepts prompts of 1 char to 4000 bytes, steps 1..1000 off its step, any style',
    breaks: ['MCAT-004'],
    level: 'notable',
    patch: onModel('wc-900001', {
      prompt: { min_chars: 1, max_chars: 4000, max_utf8_bytes: 4000 },
      parameters: {
        steps: { integer: { min: 1, max: 1000 }, default: 20 },
        style: { string: true, default: 'line' },
      },
    }),
    probe: {
      run: async ({ ref, catalogEntry, accepted }) =>
        (await catalogEntry(ref, 'wc-900001')).parameters.steps.step === 5 &&
        (await accepted(ref, { model: 'wc-900001', prompt: 'x', parameters: { ...ACK, steps: 12 } })),
    },
  },
  // routes/media-jobs.ts: a settlement_pending job reads as 404
  {
    name: 'settlement-pending-lost',
    description: 'GET /v1/media/jobs/{id} of a job in settlement_pending answers 404',
    breaks: ['MJOB-026'],
    level: 'implied',
    probe: {
      run: async ({ ref, readJob, pendingJob }) =>
        (await readJob(ref, await pendingJob(ref, 'probe-pending'), 'poor')).status === 404,
    },
  },
  // routes/media-jobs.ts: a replay of a settlement_pending job creates another job and hold
  {
    name: 'settlement-replay-new-job',
    description:
      'repeating the create of a settlement_pending job with the same Idempotency-Key and body creates a new job',
    breaks: ['MJOB-026'],
    level: 'implied',
    probe: {
      run: async ({ ref, pendingJob, createJob }) => {
        const id = await pendingJob(ref, 'probe-pending');
        return (await createJob(ref, jobBody('wc-100010'), keyed('probe-pending', 'poor'))).body.id !== id;
      },
    },
  },
  // routes/media-jobs.ts: a submission_uncertain job reads as 404
  {
    name: 'uncertain-job-lost',
    description: 'GET /v1/media/jobs/{id} of a job in submission_uncertain answers 404',
    breaks: ['MJOB-027'],
    level: 'implied',
    probe: {
      run: async ({ ref, readsUntil, createJob }) =>
        readsUntil(ref, (await createJob(ref, UNCERTAIN)).body.id, (read) => read.status === 404),
    },
  },
  // routes/media-jobs.ts: a replay of a submission_uncertain job creates another job and hold
  {
    name: 'uncertain-replay-new-job',
    description:
      'repeating the create of a submission_uncertain job with the same Idempotency-Key and body creates a new job',
    breaks: ['MJOB-024', 'MJOB-027'],
    probe: {
      run: async ({ ref, createJob, readsUntil }) => {
        // The replay must meet submission_uncertain (one 40 ms stage); a miss is tried again with a new key.
        for (let attempt = 0; attempt < 5; attempt++) {
          const k = `probe-uncertain-${attempt}`;
          const id = (await createJob(ref, UNCERTAIN, keyed(k))).body.id;
          await readsUntil(ref, id, (read) => read.body?.status === 'submission_uncertain');
          const again = await createJob(ref, UNCERTAIN, keyed(k));
          if (again.body.id !== id) return true;
          if (again.body.status === 'submission_uncertain') return false;
        }
        return false;
      },
    },
  },
  // media/validate.ts: the 160-byte bound of a reference id counts characters (such an id is then not
  // looked up and counts as an image, as under ref-id-161)
  {
    name: 'ref-id-chars',
    description:
      'a reference id of 160 characters and 161 UTF-8 bytes passes the 160-byte bound (counted in characters)',
    breaks: ['MJOB-012'],
    probe: {
      request: req.job(jobBody('wc-100011', [`${'x'.repeat(159)}é`])),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: the same, under studio_asset_ids only
  {
    name: 'studio-ids-chars',
    description:
      'under studio_asset_ids only, a reference id of 160 characters and 161 UTF-8 bytes passes the 160-byte bound',
    breaks: ['MJOB-012'],
    places: [{ id: 'MJOB-012', place: 'form=studio_asset_ids' }],
    probe: {
      request: req.job(withParams('wc-100011', { studio_asset_ids: [`${'x'.repeat(159)}é`] })),
      holds: (r) => r.status === 201,
    },
  },
  // media/view.ts: a job reports another kind than its model's catalog kind
  {
    name: 'job-kind-mismatch',
    description:
      "a job's kind is not its model's catalog kind (image models' jobs say video_generation, video models' image_generation)",
    breaks: ['MJOB-070'],
    probe: {
      run: async ({ ref, createJob, catalogEntry }) =>
        (await createJob(ref, jobBody('wc-100010'))).body.kind !==
        (await catalogEntry(ref, 'wc-100010')).kind,
    },
  },
  // media/catalog.ts: wc-100015's reference says its aspect ratio does not follow the first frame
  {
    name: 'catalog-ratio-flag-false',
    description:
      'the catalog sets aspect_ratio_follows_first_frame false for wc-100015 ("ratio follows the first frame")',
    breaks: ['MCAT-003'],
    probe: {
      run: async ({ ref, catalogEntry }) =>
        (await catalogEntry(ref, 'wc-100015')).parameters.reference.aspect_ratio_follows_first_frame ===
        false,
    },
  },
  // media/validate.ts: a sent kind other than video_generation is refused, even the model's own
  {
    name: 'kind-video-only',
    description: "an image or 3D job that sends its model's catalog kind (image_generation) is refused",
    breaks: ['MJOB-070'],
    probe: {
      run: async ({ ref, accepted, catalogEntry }) =>
        !(await accepted(ref, {
          ...jobBody('wc-100010'),
          kind: (await catalogEntry(ref, 'wc-100010')).kind,
        })),
    },
  },
  // routes/media-inputs.ts: one coding of a format refused at upload (media/sniff.ts measures the coding)
  {
    name: 'upload-refuses-progressive-jpeg',
    description: 'a progressive JPEG (SOF2) is refused at upload as not image/jpeg',
    breaks: ['MIN-085'],
    probe: { request: req.upload('jpeg-progressive-48x64.jpg'), holds: (r) => !(r.status === 201) },
  },
  {
    name: 'upload-refuses-lossless-webp',
    description: 'a lossless WebP (VP8L) is refused at upload as not image/webp',
    breaks: ['MIN-085'],
    probe: { request: req.upload('webp-lossless-40x30.webp'), holds: (r) => !(r.status === 201) },
  },
  {
    name: 'webp-alpha-refused',
    description: 'a WebP with an alpha channel (VP8X with ALPH) is refused at upload',
    breaks: ['MIN-085'],
    probe: { request: req.upload('webp-alpha-40x30.webp'), holds: (r) => !(r.status === 201) },
  },
  {
    name: 'png-alpha-refused',
    description: 'a PNG with an alpha channel (colour type 6) is refused at upload',
    breaks: ['MIN-085'],
    probe: { request: req.upload('png-alpha-30x40.png'), holds: (r) => !(r.status === 201) },
  },
  {
    name: 'upload-refuses-moov-last',
    description: 'an MP4 whose moov box follows its mdat (no faststart) is refused at upload',
    breaks: ['MIN-085'],
    probe: { request: req.upload('h264-moov-last-2s.mp4'), holds: (r) => !(r.status === 201) },
  },
  // routes/media-inputs.ts: the measured duration is rounded to whole seconds, reported and validated so
  {
    name: 'duration-rounded-to-seconds',
    description:
      'video durations are rounded to whole seconds: 1.79 s reads 2000 ms (and passes the 1.8 s window), 0.5 s reads 1000 ms',
    breaks: ['MIN-002', 'MIN-006', 'MJOB-041'],
    probe: { request: req.upload('h264-1.79s.mp4'), holds: (r) => r.body?.input?.duration_ms === 2000 },
  },
  // routes/media-inputs.ts + media/validate.ts: the 30 s maximum compared in whole seconds
  {
    name: 'video-max-whole-seconds',
    description:
      'the 30 s video maximum is compared in whole seconds (floor), at upload and at job creation: 30.25 s is accepted',
    breaks: ['MIN-006', 'RESP-003'],
    // 30.25 s is accepted at upload and as wc-100016's reference.
    probe: {
      run: async ({ ref, upload, accepted }) => {
        const u = await upload(ref, 'h264-30.25s.mp4');
        return u.status === 201 && accepted(ref, jobBody('wc-100016', [u.body.input.id]));
      },
    },
  },
  // media/validate.ts: wc-100016's window edges
  {
    name: 'video-window-min-exclusive',
    description:
      'wc-100016 refuses a reference video of exactly 1.8 s (the window minimum taken as exclusive)',
    breaks: ['MJOB-041'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        !(await accepted(ref, jobBody('wc-100016', [await inputId(ref, 'h264-1.8s.mp4')]))),
    },
  },
  {
    name: 'video-window-min-1750',
    description: 'wc-100016 accepts reference videos from 1750 ms, 50 ms under the 1.8 s minimum',
    breaks: ['MJOB-041'],
    patch: {
      media: everyModel((def) => {
        const video = def.references.video;
        return video
          ? { references: { video: { ...video, usable_min_ms: video.usable_min_ms - 50 } } }
          : undefined;
      }),
    },
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, jobBody('wc-100016', [await inputId(ref, 'h264-1.79s.mp4')])),
    },
  },
  // media/store.ts: a media job's charge moves the balance but writes no ledger entry
  {
    name: 'ledger-missing-media',
    description: "a succeeded media job's charge moves total_points but never appears in the ledger",
    breaks: ['LEDGER-003', 'LEDGER-002'],
    level: 'implied',
    probe: {
      run: async ({ ref, createJob, pollJob, call }) => {
        const created = await createJob(ref, jobBody('wc-100010'));
        await pollJob(ref, created.body.id);
        const ledger = (await call(ref, '/v1/ledger', { role: 'primary' })).body.data;
        // biome-ignore lint/suspicious/noExplicitAny: ledger entries are probed field by field
        return !ledger.some((e: any) => e.type === 'charge' && e.usage_id === null);
      },
    },
  },
  // media/store.ts: a deleted input keeps counting against the input quota
  {
    name: 'quota-not-released',
    description:
      'a deleted input (cleaned up) still counts against the account quota, so a re-upload is refused 429',
    breaks: ['MIN-080'],
    level: 'implied',
    probe: {
      run: async ({ ref, upload, call }) => {
        const role = 'quota_nearly_full';
        let id: string | undefined;
        for (let i = 0; i < 10; i++) {
          const res = await upload(ref, 'jpeg-64x48.jpg', { role });
          if (res.status !== 201) break;
          id = res.body.input.id;
        }
        await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role });
        await sleep(120);
        return (await upload(ref, 'jpeg-64x48.jpg', { role })).status === 429;
      },
    },
  },
  // media/view.ts: a charged job shows charged_points 0.01 below what its settlement took from the balance
  {
    name: 'media-charged-misreported',
    description:
      "a charged media job's charged_points is 0.01 below what its settlement took from total_points (and its usage record states)",
    // Its usage record states what was taken: the job's charged_points and the record disagree (USAGE-080).
    breaks: ['BAL-004', 'USAGE-080'],
    level: 'implied',
    probe: {
      run: async ({ ref, balance, createJob, pollJob }) => {
        const before = (await balance(ref)).body.total_points;
        const created = await createJob(ref, jobBody('wc-100010'));
        const job = (await pollJob(ref, created.body.id)).last.body;
        return !new Decimal(before).minus(job.charged_points).eq((await balance(ref)).body.total_points);
      },
    },
  },
  // media/validate.ts: a media job for an id no catalog lists runs as wc-100010
  {
    name: 'media-job-unknown-model-accepted',
    description: 'POST /v1/media/jobs creates a job for a model id no catalog lists (run as wc-100010)',
    breaks: ['MODEL-003'],
    places: [{ id: 'MODEL-003', place: 'POST /v1/media/jobs' }],
    probe: {
      request: req.job({ ...jobBody('wc-100010'), model: 'no-such-model' }),
      holds: (r) => r.status === 201,
    },
  },
  // media/validate.ts: a model that takes no references lets studio_asset_ids through (and ignores it)
  {
    name: 'studio-ids-no-refs-accepted',
    description:
      'a model that takes no references accepts (and ignores) studio_asset_ids; input_asset_ids is refused',
    breaks: ['MJOB-010'],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, withParams('wc-100010', { studio_asset_ids: [await inputId(ref)] })),
    },
  },
  // media/validate.ts: a deleted input still usable as a reference under studio_asset_ids
  {
    name: 'studio-ids-deleted-accepted',
    description: 'a deleted input is still accepted as a reference under studio_asset_ids only',
    breaks: ['MIN-009'],
    places: [{ id: 'MIN-009', place: 'form=studio_asset_ids' }],
    probe: {
      run: async ({ ref, call, accepted, inputId }) => {
        const id = await inputId(ref);
        await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' });
        return accepted(ref, withParams('wc-100011', { studio_asset_ids: [id] }));
      },
    },
  },
  // routes/media-jobs.ts: references under studio_asset_ids do not hold their inputs
  {
    name: 'studio-ids-not-held',
    description: 'an input referenced under studio_asset_ids by an active job can be deleted',
    breaks: ['MIN-010'],
    places: [{ id: 'MIN-010', place: 'form=studio_asset_ids' }],
    probe: {
      run: async ({ ref, call, inputId }) => {
        const id = await inputId(ref);
        const job = await call(ref, '/v1/media/jobs', {
          method: 'POST',
          role: 'primary',
          json: withParams('wc-100011', { studio_asset_ids: [id] }),
        });
        if (job.status !== 201) return false;
        return (
          (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status === 204
        );
      },
    },
  },
  // media/validate.ts: duplicate ids accepted under studio_asset_ids (refused under input_asset_ids)
  {
    name: 'studio-ids-duplicate-accepted',
    description: 'duplicate reference ids are accepted under studio_asset_ids only',
    breaks: ['MJOB-012'],
    places: [{ id: 'MJOB-012', place: 'form=studio_asset_ids' }],
    probe: {
      run: async ({ ref, inputId, accepted }) => {
        const id = await inputId(ref);
        return accepted(ref, withParams('wc-100011', { studio_asset_ids: [id, id] }));
      },
    },
  },
  // media/validate.ts: another tenant's input accepted under studio_asset_ids
  {
    name: 'studio-ids-foreign-accepted',
    description: "another tenant's input is accepted as a reference under studio_asset_ids only",
    breaks: ['MJOB-012', 'MIN-012'],
    places: [
      { id: 'MJOB-012', place: 'form=studio_asset_ids' },
      { id: 'MIN-012', place: 'form=studio_asset_ids' },
    ],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(
          ref,
          withParams('wc-100011', {
            studio_asset_ids: [await inputId(ref, 'png-64x48.png', 'other_tenant')],
          }),
        ),
    },
  },
  // media/validate.ts: the reference count maximum is not checked under studio_asset_ids
  {
    name: 'studio-ids-count-unchecked',
    description: "more references than the model's maximum are accepted under studio_asset_ids only",
    breaks: ['MJOB-010'],
    places: [{ id: 'MJOB-010', place: 'form=studio_asset_ids' }],
    probe: {
      run: async ({ ref, inputId, accepted }) => {
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) ids.push(await inputId(ref));
        return accepted(ref, withParams('wc-100041', { studio_asset_ids: ids }));
      },
    },
  },
  // media/validate.ts: an image-only model counts a video as an image under studio_asset_ids only
  {
    name: 'studio-ids-video-as-image',
    description: 'an image-only model accepts a video reference under studio_asset_ids only',
    breaks: ['MJOB-042'],
    places: [{ id: 'MJOB-042', place: 'form=studio_asset_ids' }],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, withParams('wc-100011', { studio_asset_ids: [await inputId(ref, 'h264-2s.mp4')] })),
    },
  },
  // media/validate.ts: images and a video mixed under studio_asset_ids only
  {
    name: 'studio-ids-mix-accepted',
    description: 'wc-100016 accepts images and a video together under studio_asset_ids only',
    breaks: ['MJOB-013'],
    places: [{ id: 'MJOB-013', place: 'form=studio_asset_ids' }],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(
          ref,
          withParams('wc-100016', {
            studio_asset_ids: [await inputId(ref), await inputId(ref, 'h264-2s.mp4')],
          }),
        ),
    },
  },
  // media/validate.ts: wc-100016's video window starts at 1 s under studio_asset_ids only
  {
    name: 'studio-ids-short-video',
    description: 'wc-100016 accepts a reference video of 1 to 1.8 s under studio_asset_ids only',
    breaks: ['MJOB-041'],
    places: [{ id: 'MJOB-041', place: 'form=studio_asset_ids' }],
    probe: {
      run: async ({ ref, accepted, inputId }) =>
        accepted(ref, withParams('wc-100016', { studio_asset_ids: [await inputId(ref, 'h264-1.5s.mp4')] })),
    },
  },
] as const satisfies readonly Fault[];

export const MEDIA_VARIANTS = [
  // routes/media-jobs.ts + media-assets.ts: job and asset ids numbered per tenant; other tenants hold earlier jobs
  {
    name: 'job-ids-per-tenant',
    readings: ['MASSET-003'],
    description:
      "job and asset ids number each account's jobs from 1 (`job_3`, `asset_3`), looked up in the caller's account, and every account but the primary one holds 2000 finished jobs from before the run: another tenant reading the primary account's `job_3` reads its own `job_3`",
    probe: {
      run: async ({ ref, createJob, readJob }) => {
        const mine = await createJob(ref, jobBody('wc-100010', []));
        const id = mine.body.id as string;
        const theirs = await readJob(ref, id, 'other_tenant');
        return /^job_\d+$/.test(id) && theirs.status === 200 && theirs.body.id === id;
      },
    },
  },
  // routes/media-inputs.ts + media/validate.ts: input ids numbered per tenant; the primary holds earlier inputs
  {
    name: 'input-ids-per-tenant',
    readings: ['MIN-012'],
    description:
      "input ids number each account's inputs from 1 (`in_3`), looked up in the caller's account, and the primary account holds 30 ready inputs from before the run: another tenant's new input `in_1` names the primary account's own `in_1` too, which its key may reference and delete",
    probe: {
      run: async ({ ref, inputId, call }) => {
        const theirs = await inputId(ref, 'png-64x48.png', 'other_tenant');
        const mine = await call(ref, `/v1/media/inputs/${theirs}`, { method: 'DELETE', role: 'primary' });
        return /^in_\d+$/.test(theirs) && mine.status === 204;
      },
    },
  },
  // state.ts + start.ts: "almost no media input quota left" is 1 MiB, and no limit says so
  {
    name: 'quota-left-unstated',
    readings: ['MIN-011', 'MIN-080'],
    description:
      'the quota_nearly_full account has 1 MiB of input quota left and the target declares no limits.quota_nearly_full_bytes: ten small uploads are accepted',
    probe: {
      run: async ({ ref, upload }) =>
        ref.limits.quota_nearly_full_bytes === undefined &&
        (await upload(ref, 'jpeg-1024x576.jpg', { role: 'quota_nearly_full' })).status === 201,
    },
  },
  // media/catalog.ts: a model's sizes listed with x where the contract writes * (1024x1024 for 1024*1024)
  {
    name: 'catalog-size-separator',
    readings: ['MCAT-003'],
    description:
      'the media catalog writes the sizes of models that take custom sizes with x (1024x1024 where the table writes 1024*1024): one size, either separator',
    probe: {
      run: async ({ ref, call }) => {
        const entries = (await call(ref, '/v1/media/models', { role: 'primary' })).body.data as Array<{
          parameters?: { size?: { options?: Array<{ value: string }> } };
        }>;
        const sizes = entries.flatMap((e) => e.parameters?.size?.options ?? []).map((o) => o.value);
        return sizes.includes('1024x1024') && !sizes.includes('1024*1024');
      },
    },
  },
  // routes/media-jobs.ts: a repeated create answers the reply stored with its key, as it was
  {
    name: 'job-replay-stored',
    readings: ['MJOB-025', 'MJOB-024'],
    description:
      'a job create repeated with the same Idempotency-Key is answered the first reply as stored (the same job, the status it had then), not the job as it reads now',
    probe: {
      run: async ({ ref, createJob, succeededJob }) => {
        const body = jobBody('wc-100010');
        const key = { headers: { 'idempotency-key': `probe-stored-${Date.now()}` } };
        const first = await createJob(ref, body, key);
        await succeededJob(ref, 'wc-100010');
        const again = await createJob(ref, body, key);
        return again.body.id === first.body.id && again.body.status === first.body.status;
      },
    },
  },
  // media/view.ts + routes/media-assets.ts: a succeeded job reads expired from its second succeeded read
  {
    name: 'succeeded-expires',
    readings: ['MJOB-025', 'MASSET-001'],
    description:
      'a succeeded job reads expired from the read after the first that showed it succeeded, and its asset then answers 404 ("succeeded may later become expired")',
    probe: {
      run: async ({ ref, createJob, readJob }) => {
        const id = (await createJob(ref, jobBody('wc-100010'))).body.id as string;
        const seen: string[] = [];
        for (let i = 0; i < 200 && seen.at(-1) !== 'expired'; i++) {
          const status = (await readJob(ref, id)).body.status as string;
          if (seen.at(-1) !== status) seen.push(status);
          if (status !== 'succeeded') await new Promise((r) => setTimeout(r, 20));
        }
        return seen.includes('succeeded') && seen.at(-1) === 'expired';
      },
    },
  },
  // media/catalog.ts: eight of the sixteen models
  {
    name: 'media-subset',
    readings: ['MCAT-001', 'MCAT-003', 'MODELS-004'],
    description: 'the media catalog lists 8 of the 16 documented models; the others answer 403',
    probe: {
      request: req.call('/v1/media/models', { role: 'primary' }),
      holds: (r) => r.body.data.length === 8,
    },
  },
  // routes/media-inputs.ts + openapi.ts
  {
    name: 'input-200',
    readings: ['MIN-001'],
    description: 'uploads answer 200 instead of 201',
    openapi: ({ paths }) => successAs(paths['/v1/media/inputs'].post, '201', '200'),
    probe: { request: req.upload('png-64x48.png'), holds: (r) => r.status === 200 },
  },
  // routes/media-inputs.ts + media/validate.ts: type and codec checked at job creation
  {
    name: 'sniff-at-job',
    readings: ['MIN-005'],
    description:
      'content type and codec are checked at job creation: mismatched or HEVC uploads become inputs, jobs using them are refused',
    probe: { request: req.upload('hevc-2s.mp4'), holds: (r) => r.status === 201 },
  },
  // media/view.ts + media/openapi.ts
  {
    name: 'progress-object',
    readings: ['MJOB-022'],
    description: 'job progress is {phase, updated_at, eta_seconds}',
    probe: { request: req.job(jobBody('wc-100010')), holds: (r) => r.body.progress.phase !== undefined },
  },
  // routes/media-*.ts + errors.ts
  {
    name: 'foreign-ids-403',
    readings: ['MASSET-002', 'MASSET-003'],
    description: "another tenant's inputs, jobs and assets answer 403 instead of 404",
    probe: {
      run: async ({ ref, readJob, createJob }) =>
        (await readJob(ref, (await createJob(ref, jobBody('wc-100010'))).body.id, 'other_tenant')).status ===
        403,
    },
  },
  // routes/media-jobs.ts + openapi.ts
  {
    name: 'job-202',
    readings: ['MJOB-020'],
    description: 'media job creation answers 202 instead of 201',
    openapi: ({ paths }) => successAs(paths['/v1/media/jobs'].post, '201', '202'),
    probe: { request: req.job(jobBody('wc-100010')), holds: (r) => r.status === 202 },
  },
  // routes/media-jobs.ts: the first create of each Idempotency-Key creates the job, then drops the connection
  {
    name: 'create-drop-once',
    readings: ['GEN-001', 'MJOB-027'],
    description:
      'the first job create of each Idempotency-Key creates the job and drops the connection unanswered; its replay returns the job',
    probe: {
      run: async ({ ref, createJob }) => {
        const dropped = await createJob(ref, jobBody('wc-100010'), keyed('probe-drop')).then(
          () => false,
          () => true,
        );
        const again = await createJob(ref, jobBody('wc-100010'), keyed('probe-drop'));
        return dropped && again.status === 201 && again.headers.get('idempotent-replayed') === 'true';
      },
    },
  },
  // media/validate.ts: "invalid_request" is stated for "parameters outside the model's published
  // ranges"; a value of another type is a malformed request, and null an optional parameter left out
  {
    name: 'parameter-types-422',
    readings: ['MJOB-005', 'MJOB-009', 'MJOB-014'],
    description:
      'a media parameter of another type than its values (a number for output_format, a string or a fraction for an integer) is refused 422 validation_error, not 400 invalid_request; a parameter sent as null takes its default (described so)',
    openapi: ({ paths, errorResponse }) => {
      paths['/v1/media/jobs'].post.responses['422'] = errorResponse('422');
    },
    probe: {
      run: async ({ ref, createJob }) =>
        (await createJob(ref, jobBody('wc-100010', [], { output_format: 1 }))).status === 422 &&
        (await createJob(ref, jobBody('wc-100014', [], { duration: 4.5 }))).status === 422 &&
        (await createJob(ref, jobBody('wc-100010', [], { output_format: null }))).status === 201,
    },
  },
  // media/catalog.ts: wc-100018's prompt "must be empty" gives no character count either
  {
    name: 'empty-prompt-uncapped',
    readings: ['MCAT-003', 'MJOB-008'],
    description:
      "wc-100018's catalog entry advertises prompt_contract.maximum_characters 4000 beside empty_only true (its prompt must be empty)",
    probe: {
      run: async ({ ref, catalogEntry }) => {
        const pc = (await catalogEntry(ref, 'wc-100018')).prompt_contract;
        return pc.empty_only === true && pc.maximum_characters === 4000;
      },
    },
  },
  // media/catalog.ts: wc-100018's prompt "must be empty", so no byte cap binds
  {
    name: 'empty-prompt-zero-bytes',
    readings: ['MCAT-003', 'MJOB-008'],
    description:
      "wc-100018's catalog entry advertises prompt_contract.maximum_utf8_bytes 0 (its prompt must be empty)",
    probe: {
      run: async ({ ref, catalogEntry }) =>
        (await catalogEntry(ref, 'wc-100018')).prompt_contract.maximum_utf8_bytes === 0,
    },
  },
  // routes/media-jobs.ts: settlement_pending "keep tracking the same job; do not generate again"
  {
    name: 'settlement-replay-refused',
    readings: ['MJOB-024', 'MJOB-026'],
    description:
      'repeating the create of a settlement_pending job with the same Idempotency-Key is refused 409 (do not generate again), not answered with the job',
    probe: {
      run: async ({ ref, pendingJob, jobStatus }) => {
        await pendingJob(ref, 'probe-pending');
        return (await jobStatus(ref, jobBody('wc-100010'), keyed('probe-pending', 'poor'))) === 409;
      },
    },
  },
  // routes/media-jobs.ts: submission_uncertain's "repeat the same create request with the same
  // Idempotency-Key" is client guidance; that no second job is made is the rule (MJOB-024)
  {
    name: 'uncertain-replay-refused',
    readings: ['MJOB-024', 'MJOB-027'],
    description:
      'repeating the create of a submission_uncertain job with the same Idempotency-Key is refused 409 (already created), not answered with the job',
    probe: {
      run: async ({ ref, createJob, readsUntil }) => {
        // The repeat must meet submission_uncertain (one 40 ms stage); a miss is tried again with a new key.
        for (let attempt = 0; attempt < 5; attempt++) {
          const k = `probe-uncertain-refused-${attempt}`;
          const id = (await createJob(ref, UNCERTAIN, keyed(k))).body.id;
          await readsUntil(ref, id, (read) => read.body?.status === 'submission_uncertain');
          const again = await createJob(ref, UNCERTAIN, keyed(k));
          if (again.status === 409) return true;
          if (again.body?.status === 'submission_uncertain') return false;
        }
        return false;
      },
    },
  },
  // routes/media-inputs.ts: "`Idempotency-Key` is sent on ... media input upload": how a replay is
  // answered beyond making no second input is not stated
  {
    name: 'upload-replay-refused',
    readings: ['MIN-008'],
    description:
      'an upload repeated with the same Idempotency-Key and bytes is refused 409 (already made), not answered with its input',
    probe: {
      run: async ({ ref, upload }) => {
        const headers = { 'idempotency-key': 'probe-upload-replay-refused' };
        await upload(ref, 'png-64x48.png', { headers });
        return (await upload(ref, 'png-64x48.png', { headers })).status === 409;
      },
    },
  },
  // media/validate.ts: "Foreign or deleted ids may be 403 or 404" (judging.md); an unknown id is no named cause of invalid_request
  {
    name: 'ref-unknown-404',
    readings: ['MJOB-012', 'MJOB-014'],
    description:
      'a job referencing an input id that is unknown, foreign or deleted is refused 404 not_found, not 400 invalid_request',
    probe: { request: req.job(jobBody('wc-100011', ['in_probe_unknown'])), holds: (r) => r.status === 404 },
  },
  // media/validate.ts: reference ids looked up before their length is checked
  {
    name: 'ref-lookup-first',
    readings: ['MJOB-012', 'MJOB-014'],
    description:
      'reference ids are looked up before their length is checked: an id of 161 UTF-8 bytes names no input and is refused 404 not_found, not 400 invalid_request',
    probe: {
      request: req.job(jobBody('wc-100011', ['i'.repeat(161)])),
      holds: (r) => r.status === 404,
    },
  },
  // media/validate.ts: prompts trimmed of ASCII white space only (NBSP, U+3000 count as characters)
  {
    name: 'trim-ascii-only',
    readings: ['MJOB-006'],
    description: 'prompts are trimmed of ASCII white space only; other Unicode white space counts',
    probe: { request: req.job(withPrompt('wc-100031', 'ab\u3000')), holds: (r) => r.status === 201 },
  },
  // routes/media-inputs.ts: the contract defines the delete of a ready input only
  {
    name: 'input-delete-idempotent',
    readings: ['MIN-009'],
    description: "a repeated DELETE of the caller's already deleted input answers 204 again (idempotent)",
    probe: {
      run: async ({ ref, inputId, call }) => {
        const id = await inputId(ref);
        const del = () => call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' });
        return (await del()).status === 204 && (await del()).status === 204;
      },
    },
  },
  // routes/media-inputs.ts: judging.md, "'Active job' ... is undefined beyond the obvious (authorizing,
  // queued, running, output_fetching): do not require either outcome for other statuses"
  {
    name: 'inputs-held-by-failed-jobs',
    readings: ['MIN-009', 'MIN-010'],
    description:
      'a failed job keeps holding the inputs it references: their delete answers 409 input_in_use, as while it was active',
    probe: {
      run: async ({ ref, inputId, createJob, pollJob, call }) => {
        const id = await inputId(ref);
        const created = await createJob(ref, {
          ...jobBody('wc-100011', [id]),
          prompt: 'CONFORMANCE_FAIL_JOB',
        });
        await pollJob(ref, created.body.id);
        return (
          (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status === 409
        );
      },
    },
  },
  // routes/media-jobs.ts: judging.md, "a 502/503/504" is advisory, never promoted; a poll is a read a
  // client repeats at its interval
  {
    name: 'job-reads-overloaded',
    readings: ['MJOB-020', 'MJOB-025'],
    description:
      'every 4th read of a media job is answered 503 overloaded (an APIError, no MediaJob, declared so); the next read answers the job',
    openapi: ({ paths, errorResponse }) => {
      paths['/v1/media/jobs/{job_id}'].get.responses['503'] = errorResponse('503');
    },
    probe: {
      run: async ({ ref, createJob, readJob }) => {
        const job = await createJob(ref, jobBody('wc-100010'));
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await readJob(ref, job.body.id)).status);
        return statuses.includes(503);
      },
    },
  },
  // routes/media-jobs.ts: "the reference client waits 5 seconds between polls and caps polls at 1 to 1440"
  // (up to two hours); how long generation takes is not stated. Its row runs with a test timeout shorter
  // than a video job and than the poll window (100 ms x 200 polls): the scale model of video jobs of 5 to
  // 10 minutes against the default 5-minute test_ms and 10-minute poll window.
  {
    name: 'video-jobs-outlast-tests',
    readings: ['GEN-001', 'MJOB-020'],
    description:
      'video jobs take 25 s (every poll answered at once, running): longer than the test timeout of its matrix row (15 s), within the poll window',
    testMs: 15_000,
    probe: {
      run: async ({ ref, createJob, readJob }) => {
        const job = await createJob(ref, jobBody('wc-100014'));
        await sleep(1000);
        return (await readJob(ref, job.body.id)).body.status !== 'succeeded';
      },
    },
  },
] as const satisfies readonly Variant[];
