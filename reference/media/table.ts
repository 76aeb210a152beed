// The documented media models, read from fixtures/media-models.yaml (the single source of truth the
// suite shares; never copied here). Where the table says "not stated" (wc-100019's prompt, references
// and seed), the reference makes its own choice, kept in OWN_CHOICES below. The reference also has
// one model of its own the contract does not document (EXTRA_MODELS: wc-900001), which it lists in
// account catalogs and runs like the others (the contract: the model catalog takes precedence).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface CustomSize {
  min_pixels: number;
  max_pixels: number;
  max_edge: number;
  step: number;
  max_aspect_ratio: number;
}

export interface ParameterDef {
  values?: string[];
  /** `step`: valid values are min + k * step. */
  integer?: { min: number; max: number; step?: number };
  boolean?: true;
  /** Any string (never advertised: only fault undocumented-unenforced enforces it). */
  string?: true;
  presets?: string;
  custom?: CustomSize | null;
  stated?: false;
  default: unknown;
}

export interface PromptDef {
  stated: boolean;
  required: boolean | null;
  empty_only: boolean | null;
  min_chars: number | null;
  max_chars: number | null;
  max_utf8_bytes: number | null;
}

export interface VideoDef {
  count: number;
  min_ms: number;
  max_ms: number;
  usable_min_ms: number;
  usable_max_ms: number;
}

export interface ReferencesDef {
  stated: boolean;
  accepted: ('image' | 'video')[] | null;
  min: number | null;
  max: number | null;
  required: boolean | null;
  first_frame_rule: { aspect_ratio_follows_first_frame: boolean } | null;
  video: VideoDef | null;
  no_mixing: boolean | null;
}

export interface ModelDef {
  output: 'image' | 'video' | 'glb' | null;
  prompt: PromptDef;
  references: ReferencesDef;
  parameters_complete: boolean;
  parameters: Record<string, ParameterDef>;
}

export interface MediaTable {
  acknowledgement: string;
  reference_fields: string[];
  reference_id_max_utf8_bytes: number;
  custom_size_pattern: string;
  never_accepted_parameters: string[];
  size_lists: Record<string, string[]>;
  models: Record<string, ModelDef>;
}

export const TABLE = parse(
  readFileSync(new URL('../../fixtures/media-models.yaml', import.meta.url), 'utf8'),
) as MediaTable;

export const MEDIA_IDS: readonly string[] = Object.keys(TABLE.models);

/** The reference's own choices where the contract shows nothing (wc-100019). */
const OWN_CHOICES: Record<string, Partial<ModelDef>> = {
  'wc-100019': {
    prompt: {
      stated: true,
      required: true,
      empty_only: false,
      min_chars: 1,
      max_chars: 4000,
      max_utf8_bytes: 4000,
    },
    references: {
      stated: true,
      accepted: [],
      min: 0,
      max: 0,
      required: false,
      first_frame_rule: null,
      video: null,
      no_mixing: null,
    },
  },
};
const OWN_SEED: ParameterDef = { integer: { min: 0, max: 2147483647 }, default: 0 };

/** The undocumented model of the reference (not in fixtures/media-models.yaml). */
export const UNDOCUMENTED_ID = 'wc-900001';

/** Models of the reference's own that the contract does not document: catalog entries only. */
const EXTRA_MODELS: Record<string, ModelDef> = {
  [UNDOCUMENTED_ID]: {
    output: 'image',
    prompt: {
      stated: true,
      required: true,
      empty_only: false,
      min_chars: 2,
      max_chars: 300,
      max_utf8_bytes: 900,
    },
    references: {
      stated: true,
      accepted: ['image'],
      min: 0,
      max: 2,
      required: false,
      first_frame_rule: null,
      video: null,
      no_mixing: null,
    },
    parameters_complete: true,
    parameters: {
      output_format: { values: ['png', 'webp'], default: 'png' },
      steps: { integer: { min: 10, max: 50, step: 5 }, default: 20 },
      style: { values: ['line', 'ink', 'wash'], default: 'line' },
    },
  },
};

/** The undocumented ids, listed after the documented ones. */
export const EXTRA_IDS: readonly string[] = Object.keys(EXTRA_MODELS);

/** A model as the reference enforces it: the table, completed by the reference's own choices. */
export function modelDef(id: string): ModelDef | undefined {
  if (Object.hasOwn(EXTRA_MODELS, id)) return EXTRA_MODELS[id];
  if (!Object.hasOwn(TABLE.models, id)) return undefined;
  const table = TABLE.models[id] as ModelDef;
  const own = OWN_CHOICES[id] ?? {};
  const parameters = Object.fromEntries(
    Object.entries(table.parameters).map(([name, p]) => [name, p.stated === false ? OWN_SEED : p]),
  );
  return { ...table, ...own, parameters };
}

/** image_generation, video_generation or model_3d_generation; wc-100017 (output not stated) makes images. */
export function kindOf(def: ModelDef): string {
  if (def.output === 'video') return 'video_generation';
  if (def.output === 'glb') return 'model_3d_generation';
  return 'image_generation';
}

/** What the reference delivers: wc-100017's unstated output is an image. */
export function outputOf(def: ModelDef): 'image' | 'video' | 'glb' {
  return def.output ?? 'image';
}
