// MediaJobCreate, checked exactly as the contract and the media table state it: "`{kind?, model,
// prompt, parameters}`; no other top-level fields", the acknowledgement, the never-accepted names,
// only the model's own parameters with their value sets, the prompt bounds (code points of the prompt
// trimmed of Unicode white space, UTF-8 bytes capped), image sizes (preset or custom arithmetic) and
// reference inputs (inside `parameters`: the contract admits no other top-level field).
import type { RefContext } from '../context.ts';
import { customSizePattern } from '../patch.ts';
import { isVariant } from '../reach.ts';
import type { Account } from '../state.ts';
import { enforced } from './catalog.ts';
import { isH264 } from './sniff.ts';
import { inputKey, kindOfInput, type MediaInput, type MediaStore, statusOf } from './store.ts';
import { kindOf, type ModelDef, type ParameterDef, TABLE } from './table.ts';

export type JobProblem = {
  error: 'invalid' | 'malformed' | 'not_found' | 'unknown_input' | 'forbidden';
  message: string;
};

export interface ValidJob {
  model: string;
  def: ModelDef;
  kind: string;
  kindSent: boolean;
  prompt: string;
  references: MediaInput[];
  format: string;
  /** The parameters as sent (option mediaPricing 'scaled' prices by them). */
  parameters: Record<string, unknown>;
}

type Body = Record<string, unknown>;
const TOP_LEVEL = ['kind', 'model', 'prompt', 'parameters'];
/** Upload validation of video/mp4: 1 to 30 s. */
export const VIDEO_MS = { min: 1000, max: 30000 };

/** A duration as compared with a maximum; fault video-max-whole-seconds compares whole seconds. */
export const upperMs = (ctx: RefContext, ms: number): number =>
  ctx.fault === 'video-max-whole-seconds' ? Math.floor(ms / 1000) * 1000 : ms;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
export const trimUnicode = (s: string) => s.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');
/** Variant trim-ascii-only: only ASCII white space is trimmed (the contract does not define "whitespace"). */
const trimAscii = (s: string) => s.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
const invalid = (message: string): JobProblem => ({ error: 'invalid', message });

export function validateJob(
  ctx: RefContext,
  store: MediaStore,
  account: Account,
  catalog: string[],
  input: unknown,
): JobProblem | { job: ValidJob } {
  // Fault body-shape-unchecked: a body that is no JSON object is read as one (and breaks: a 500).
  if (!isObject(input) && ctx.fault !== 'body-shape-unchecked')
    return invalid('The body must be a JSON object.');
  const body = input as Body;
  const extra = Object.keys(body).filter((k) => !TOP_LEVEL.includes(k));
  if (extra.length > 0 && ctx.fault !== 'top-level-extra-accepted')
    return invalid(`Unknown top-level field(s): ${extra.join(', ')}; only kind, model, prompt, parameters.`);
  if (body.model === undefined) return invalid('`model` is required.');
  if (typeof body.model !== 'string') return invalid('`model` must be a string.');
  // Fault media-model-case: model ids resolved without regard to case.
  const model = ctx.fault === 'media-model-case' ? body.model.toLowerCase() : body.model;
  // Fault media-job-unknown-model-accepted (issue 22): an id no catalog lists runs as wc-100010.
  // Fault media-job-text-model: a text model of the account's catalog runs as wc-100010 too.
  const substitute =
    (ctx.fault === 'media-job-unknown-model-accepted' && !enforced(ctx, model)) ||
    (ctx.fault === 'media-job-text-model' && account.catalog.some((m) => m.id === model));
  const def = enforced(ctx, substitute ? 'wc-100010' : model);
  if (!def) return { error: 'not_found', message: `No media model ${model}.` };
  // Faults media-catalog-unenforced and media-subset-unenforced: a documented model the account's media
  // catalog does not list is called anyway.
  const unenforced = ctx.fault === 'media-catalog-unenforced' || ctx.fault === 'media-subset-unenforced';
  if (!unenforced && !catalog.includes(substitute ? 'wc-100010' : model))
    return { error: 'forbidden', message: `The media model ${model} is not in this account's catalog.` };
  // Fault model-jobs-refused: every job of wc-100033 is refused as invalid, the valid ones too.
  if (ctx.fault === 'model-jobs-refused' && model === 'wc-100033')
    return invalid(`This job of ${model} is not valid.`);
  const kind = kindOf(def);
  // Fault kind-video-only: only video_generation is known as a sent kind; other models refuse theirs.
  const unknownKind = ctx.fault === 'kind-video-only' && kind !== 'video_generation';
  if (body.kind !== undefined && (body.kind !== kind || ctx.fault === 'kind-refused' || unknownKind))
    return invalid(`\`kind\` of ${model} is ${kind}.`);
  const params = body.parameters as Body;
  // Fault parameters-shape-unchecked: parameters absent or no object are read as an object (a 500).
  if (!isObject(params) && ctx.fault !== 'parameters-shape-unchecked')
    return invalid('`parameters` is required and must be an object.');
  // Variant parameter-types-422: a parameter left null is left out (its default), and one of another
  // type than its values is a malformed request (422), before any range is looked at.
  if (isVariant(ctx, 'parameter-types-422'))
    for (const [name, p] of Object.entries(def.parameters)) {
      if (params[name] === null) delete params[name];
      else if (params[name] !== undefined && !typeOk(p, params[name]))
        return { error: 'malformed', message: `\`parameters.${name}\` has the wrong type.` };
    }
  const problem =
    parameterProblem(ctx, model, def, params) ??
    promptProblem(ctx, model, def, body.prompt) ??
    referenceShapeProblem(ctx, def, params);
  if (problem) return invalid(problem);
  const sent = params[TABLE.reference_fields[0] as string];
  if (ctx.fault === 'ref-max-refused' && model === 'wc-100032' && Array.isArray(sent) && sent.length === 14)
    return invalid('This model takes 1 to 13 reference images.');
  const refs = resolveReferences(ctx, store, account, def, params);
  if (typeof refs === 'string') return invalid(refs);
  if (!Array.isArray(refs)) return refs;
  // The format a model's values allow (checked above), its default, or png for a model without one.
  const format = String(params.output_format ?? def.parameters.output_format?.default ?? 'png');
  return {
    job: {
      model,
      def,
      kind,
      kindSent: body.kind !== undefined,
      prompt: typeof body.prompt === 'string' ? body.prompt : '',
      references: refs,
      format,
      parameters: params,
    },
  };
}

function parameterProblem(ctx: RefContext, model: string, def: ModelDef, params: Body): string | undefined {
  const ack = TABLE.acknowledgement;
  if (params[ack] === undefined) {
    if (ctx.fault !== 'ack-missing-accepted') return `\`parameters.${ack}\` is required and must be true.`;
  } else if (params[ack] !== true && !(ctx.fault === 'ack-false-accepted' && params[ack] === false)) {
    return `\`parameters.${ack}\` must be true.`;
  }
  const takesRefs = (def.references.accepted ?? []).length > 0;
  const allowed = new Set([
    ack,
    ...Object.keys(def.parameters),
    ...(takesRefs ? TABLE.reference_fields : []),
  ]);
  if (ctx.fault === 'studio-ids-unknown') allowed.delete(TABLE.reference_fields[1]!);
  // Fault studio-ids-no-refs-accepted: a model that takes no references lets the equivalent name through
  // (and ignores it).
  if (ctx.fault === 'studio-ids-no-refs-accepted') allowed.add(TABLE.reference_fields[1]!);
  for (const name of Object.keys(params)) {
    if (TABLE.never_accepted_parameters.includes(name)) {
      if (ctx.fault === 'frame-images-accepted' && name === 'frame_images') continue;
      // Fault never-accepted-empty-only: only an empty array is refused; any other value passes through.
      const empty = Array.isArray(params[name]) && (params[name] as unknown[]).length === 0;
      if (ctx.fault === 'never-accepted-empty-only' && !empty) continue;
      return `\`parameters.${name}\` is never accepted.`;
    }
    if (!allowed.has(name)) return `\`parameters.${name}\` is not a parameter of ${model}.`;
  }
  for (const [name, p] of Object.entries(def.parameters)) {
    const value = params[name];
    if (value !== undefined && !valueOk(ctx, model, p, value))
      return `\`parameters.${name}\` ${JSON.stringify(value)} is outside the published values of ${model}.`;
  }
  return undefined;
}

/** Whether `value` has the type of the parameter's values (variant parameter-types-422). */
function typeOk(p: ParameterDef, value: unknown): boolean {
  if (p.values) return p.values.some((v) => typeof v === typeof value);
  // A fraction for an integer is refused as a schema's `type: integer` refuses it.
  if (p.integer) return Number.isInteger(value);
  if (p.boolean) return typeof value === 'boolean';
  return typeof value === 'string';
}

function valueOk(ctx: RefContext, model: string, p: ParameterDef, value: unknown): boolean {
  if (p.values) return typeof value === 'string' && p.values.includes(value);
  if (p.integer) {
    const { min, max } = p.integer;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) return false;
    const step = p.integer.step;
    return step === undefined || ((value as number) - p.integer.min) % step === 0;
  }
  if (p.boolean) return typeof value === 'boolean';
  if (p.string) return typeof value === 'string';
  if (p.presets) return sizeOk(ctx, model, p, value);
  return false;
}

function sizeOk(ctx: RefContext, model: string, p: ParameterDef, sent: unknown): boolean {
  // Fault size-array-coerced: a one-item array is read as its string.
  const value = ctx.fault === 'size-array-coerced' && Array.isArray(sent) ? String(sent) : sent;
  if (typeof value !== 'string') return false;
  // Fault list-b-refused: wc-100013 refuses the presets of list B that list A lacks, also those that
  // would pass as custom sizes (behaviour, not a table: a table without them reads them as custom).
  if (ctx.fault === 'list-b-refused' && model === 'wc-100013') {
    const [a, b] = [TABLE.size_lists.A ?? [], TABLE.size_lists.B ?? []];
    if (b.includes(value) && !a.includes(value)) return false;
  }
  // Fault square-hd-refused-wc100041: one model refuses one named preset of the list it shares with
  // wc-100040 (behaviour: a patch of the shared list would change both models).
  if (ctx.fault === 'square-hd-refused-wc100041' && model === 'wc-100041' && value === 'square_hd')
    return false;
  if ((TABLE.size_lists[p.presets ?? ''] ?? []).includes(value)) return true;
  const c = p.custom;
  if (!c || !new RegExp(customSizePattern(ctx, TABLE.custom_size_pattern, model)).test(value)) return false;
  const [w, h] = value.split(/[x*]/).map(Number) as [number, number];
  // A zero edge is below min_pixels (at least 1 in every row of the table).
  if (w * h < c.min_pixels || w * h > c.max_pixels) return false;
  // Faults size-height-edge-exclusive (a height of the edge refused) and -unchecked (the width alone bounded).
  const heightOver = ctx.fault === 'size-height-edge-exclusive' ? h >= c.max_edge : h > c.max_edge;
  if (w > c.max_edge || (heightOver && ctx.fault !== 'size-height-edge-unchecked')) return false;
  if (w % c.step !== 0 || h % c.step !== 0) return false;
  return Math.max(w, h) / Math.min(w, h) <= c.max_aspect_ratio;
}

function promptProblem(ctx: RefContext, model: string, def: ModelDef, prompt: unknown): string | undefined {
  const rule = def.prompt;
  if (prompt !== undefined && typeof prompt !== 'string') return '`prompt` must be a string.';
  const trim = isVariant(ctx, 'trim-ascii-only') ? trimAscii : trimUnicode;
  if (rule.empty_only) {
    // Fault empty-string-prompt-refused: a non-empty string check before the model's rule ("" refused;
    // absent and white space alone accepted).
    if (ctx.fault === 'empty-string-prompt-refused' && prompt === '') return '`prompt` must not be empty.';
    if (prompt === undefined || trim(prompt) === '' || ctx.fault === 'prompt-wc100018') return undefined;
    return `${model} takes no text prompt: \`prompt\` must be empty or absent.`;
  }
  if (prompt === undefined) return '`prompt` is required.';
  // Fault prompt-inner-space-stripped: every white space is dropped, inside too.
  const text =
    ctx.fault === 'prompt-untrimmed'
      ? prompt
      : ctx.fault === 'prompt-inner-space-stripped'
        ? prompt.replace(/\p{White_Space}+/gu, '')
        : trim(prompt);
  const chars = ctx.fault === 'prompt-utf16' ? text.length : [...text].length;
  const min = rule.min_chars ?? 1;
  const max = rule.max_chars ?? 4000;
  if (chars < min || chars > max) return `\`prompt\` of ${model} must be ${min} to ${max} characters.`;
  const cap = rule.max_utf8_bytes ?? 4000;
  if (bytes(text) > cap) return `\`prompt\` must be at most ${cap} UTF-8 bytes.`;
  return undefined;
}

/**
 * The reference ids as sent, under either name (not checked). Fault ref-ids-bare-accepted: an id sent
 * alone, not in an array, is read as [id]. One reading for the shape check and the lookup.
 */
function sentIds(ctx: RefContext, params: Body): unknown {
  const [a, b] = TABLE.reference_fields as [string, string];
  const ids = params[a] ?? params[b];
  return ctx.fault === 'ref-ids-bare-accepted' && typeof ids === 'string' ? [ids] : ids;
}

/** Whether a job's references are sent under the equivalent name `studio_asset_ids` alone. */
export function underStudioName(params: Body): boolean {
  const [a, b] = TABLE.reference_fields as [string, string];
  return params[a] === undefined && params[b] !== undefined;
}

/**
 * Fault ref-id-chars: the reference id bound counts characters, not UTF-8 bytes (studio-ids-chars: under
 * `studio_asset_ids` only). One answer for the shape check and the lookup.
 */
function idBoundInCharacters(ctx: RefContext, params: Body): boolean {
  return ctx.fault === 'ref-id-chars' || (underStudioName(params) && ctx.fault === 'studio-ids-chars');
}

/** The reference id array, or why it is malformed. */
function referenceShapeProblem(ctx: RefContext, def: ModelDef, params: Body): string | undefined {
  if ((def.references.accepted ?? []).length === 0) return undefined;
  const [a, b] = TABLE.reference_fields as [string, string];
  if (params[a] !== undefined && params[b] !== undefined && ctx.fault !== 'both-id-fields')
    return `Send \`${a}\` or \`${b}\`, not both.`;
  const ids = sentIds(ctx, params);
  // Faults studio-ids-* (issue 22): a rule broken only under the equivalent name `studio_asset_ids`.
  const studio = underStudioName(params);
  if (ids === undefined)
    return def.references.required === false
      ? undefined
      : `This model needs reference inputs in \`parameters.${a}\`.`;
  const shape = 'Reference ids must be an array of non-empty strings.';
  if (!Array.isArray(ids)) return shape;
  // Fault ref-id-type-unchecked: an id that is no string is measured as one (and breaks: a 500).
  if (ctx.fault !== 'ref-id-type-unchecked' && ids.some((id) => typeof id !== 'string' || id === ''))
    return shape;
  const max = TABLE.reference_id_max_utf8_bytes;
  const size = idBoundInCharacters(ctx, params) ? (id: string) => [...id].length : bytes;
  // Variant ref-lookup-first: ids are looked up before their length is checked (an over-long id names no
  // input: 404 not_found, resolveReferences).
  if (ctx.fault !== 'ref-id-161' && !isVariant(ctx, 'ref-lookup-first') && ids.some((id) => size(id) > max))
    return `A reference id is at most ${max} UTF-8 bytes.`;
  const dupOk = ctx.fault === 'duplicate-ids' || (studio && ctx.fault === 'studio-ids-duplicate-accepted');
  if (new Set(ids).size !== ids.length && !dupOk) return 'Reference ids must be unique.';
  return undefined;
}

function resolveReferences(
  ctx: RefContext,
  store: MediaStore,
  account: Account,
  def: ModelDef,
  params: Body,
): MediaInput[] | string | JobProblem {
  const accepted = def.references.accepted ?? [];
  if (accepted.length === 0) return [];
  // Optional references (wc-900001): none sent is none used.
  const ids = [...new Set((sentIds(ctx, params) ?? []) as string[])];
  const studio = underStudioName(params);
  // Fault ref-id-161: an over-long id is never looked up; it only counts as an image. Fault ref-id-chars:
  // the same for one over the byte bound but within it counted in characters.
  const idMax = TABLE.reference_id_max_utf8_bytes;
  const chars = idBoundInCharacters(ctx, params);
  const isLong = (id: string) =>
    bytes(id) > idMax && (ctx.fault === 'ref-id-161' || (chars && [...id].length <= idMax));
  const ghosts = ids.filter(isLong).length;
  const inputs: MediaInput[] = [];
  for (const id of ids.filter((i) => !isLong(i))) {
    const input = store.inputs.get(inputKey(isVariant(ctx, 'input-ids-per-tenant'), account.id, id));
    const owned =
      input &&
      (input.accountId === account.id ||
        ctx.fault === 'foreign-input-accepted' ||
        (studio && ctx.fault === 'studio-ids-foreign-accepted'));
    const ready =
      input &&
      (input.deletedAt === undefined ||
        ctx.fault === 'deleted-input-accepted' ||
        (studio && ctx.fault === 'studio-ids-deleted-accepted')) &&
      // Fault input-consumed-by-job: a job that succeeded used its inputs up (no delete was asked for).
      !(
        ctx.fault === 'input-consumed-by-job' &&
        [...store.jobs.values()].some(
          (j) => j.referenceIds.includes(input.id) && statusOf(ctx, j).status === 'succeeded',
        )
      );
    if (!input || !owned || !ready) {
      const message = `No ready input ${id} of this account.`;
      // Variant ref-unknown-404: an id that names no ready input of the account is a 404 not_found.
      return isVariant(ctx, 'ref-unknown-404') || isVariant(ctx, 'ref-lookup-first')
        ? { error: 'unknown_input', message }
        : message;
    }
    inputs.push(input);
  }
  const problem = contentProblem(ctx, inputs);
  if (problem) return problem;
  // Fault video-as-image: an image-only model counts the videos among its images.
  const asImages =
    (ctx.fault === 'video-as-image' || (studio && ctx.fault === 'studio-ids-video-as-image')) &&
    !accepted.includes('video');
  const videos = asImages ? [] : inputs.filter((i) => kindOfInput(i) === 'video');
  const images = inputs.length - videos.length + ghosts;
  if (videos.length > 0 && !accepted.includes('video')) return 'This model takes image references only.';
  const mixOk = ctx.fault === 'mix-image-video' || (studio && ctx.fault === 'studio-ids-mix-accepted');
  if (videos.length > 0 && images > 0 && !mixOk) return 'Images and video cannot be mixed.';
  const window = def.references.video;
  if (videos.length > 0 && window) {
    // Fault video-window-short: from the upload rule's 1 s (under studio_asset_ids only:
    // studio-ids-short-video).
    const shortOk = ctx.fault === 'video-window-short' || (studio && ctx.fault === 'studio-ids-short-video');
    const min = shortOk ? VIDEO_MS.min : window.usable_min_ms;
    // Fault two-videos-accepted: more videos than the one video mode takes are let through.
    if (
      videos.length !== window.count &&
      !(ctx.fault === 'two-videos-accepted' && videos.length > window.count)
    )
      return `Video mode takes exactly ${window.count} video.`;
    const max = ctx.fault === 'video-31s' ? 31000 : window.usable_max_ms;
    // Fault video-window-min-exclusive: a video of exactly the minimum is refused.
    const short = (ms: number) => ms < min || (ctx.fault === 'video-window-min-exclusive' && ms === min);
    if (videos.some((v) => short(v.durationMs) || upperMs(ctx, v.durationMs) > max))
      return `A video reference must last ${window.usable_min_ms} to ${window.usable_max_ms} ms.`;
    return inputs;
  }
  const min = def.references.min ?? 1;
  const max = def.references.max ?? 1;
  const countOk = studio && ctx.fault === 'studio-ids-count-unchecked' && images >= min;
  if ((images < min || images > max) && !countOk)
    return `This model takes ${min} to ${max} reference images.`;
  return inputs;
}

/**
 * The checks of the real content at job creation: the bytes match the reported type and a video
 * is H.264 of 1 to 30 s. Uploads already enforce them, except under variant sniff-at-job, where
 * this is the place they are enforced.
 */
function contentProblem(ctx: RefContext, inputs: MediaInput[]): string | undefined {
  for (const input of inputs) {
    if (input.realType !== input.contentType && ctx.fault !== 'sniff-skipped')
      return `The input ${input.id} is not ${input.contentType}.`;
    if (kindOfInput(input) !== 'video') continue;
    if (!isH264(input.codec) && ctx.fault !== 'hevc-accepted') return `The video ${input.id} is not H.264.`;
    const max = ctx.fault === 'video-31s' ? 31000 : VIDEO_MS.max;
    if (input.durationMs < VIDEO_MS.min || upperMs(ctx, input.durationMs) > max)
      return `The video ${input.id} must last 1 to 30 s.`;
  }
  return undefined;
}
