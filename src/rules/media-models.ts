/**
 * The media job rules of the contract, computed from fixtures/media-models.yaml (itself checked cell by
 * cell against the contract's text), and fast-check arbitraries whose expected verdict comes from these
 * functions, never from a target. Readings (judging.md): characters = code points of the prompt trimmed
 * of Unicode white space; the UTF-8 cap applies to the trimmed prompt; wc-100018 "must be empty" counts
 * absent, empty and whitespace-only as empty.
 */
import fc from 'fast-check';
import { pkgPath } from '../paths.ts';
import { readYaml } from '../yaml-cache.ts';

export interface PromptRule {
  stated: boolean;
  required: boolean | null;
  empty_only: boolean | null;
  min_chars: number | null;
  max_chars: number | null;
  max_utf8_bytes: number | null;
}

export interface CustomSize {
  min_pixels: number;
  max_pixels: number;
  max_edge: number;
  step: number;
  max_aspect_ratio: number;
}

export interface ParameterRule {
  values?: Array<string | number>;
  integer?: { min: number; max: number; step?: number; allowed?: number[] };
  boolean?: true;
  presets?: string;
  custom?: CustomSize | null;
  stated?: false;
  /** From a live catalog: the options look like sizes, so a custom size may also be accepted. */
  custom_sizes_possible?: true;
  default: unknown;
}

export interface MediaModel {
  output: 'image' | 'video' | 'glb' | null;
  prompt: PromptRule;
  references: {
    stated: boolean;
    accepted: Array<'image' | 'video'>;
    min: number | null;
    max: number | null;
    required: boolean | null;
    first_frame_rule?: { aspect_ratio_follows_first_frame: boolean } | null;
    video: { count: number; usable_min_ms: number; usable_max_ms: number } | null;
    no_mixing: boolean | null;
  };
  parameters_complete: boolean;
  parameters: Record<string, ParameterRule>;
}

export interface MediaTable {
  acknowledgement: string;
  reference_fields: string[];
  reference_id_max_utf8_bytes: number;
  custom_size_pattern: string;
  never_accepted_parameters: string[];
  size_lists: Record<string, string[]>;
  models: Record<string, MediaModel>;
}

let cached: MediaTable | undefined;
export function mediaTable(): MediaTable {
  cached ??= readYaml(pkgPath('fixtures', 'media-models.yaml')) as MediaTable;
  return cached;
}

/** The code points of a string, as `[...s].length` counts them (a lone surrogate is one), without the array. */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** ASCII white space (space, tab, LF, VT, FF, CR): certainly trimmed (judging.md). */
const trimAscii = (s: string): string => s.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');

/**
 * The contract's verdict for a prompt (undefined = the field is absent). "Surrounding whitespace" is not
 * defined: ASCII white space is certainly trimmed, other Unicode white space (NBSP, U+3000) perhaps; a
 * prompt whose verdict depends on that difference proves nothing either way and is judged neither
 * valid nor invalid (undefined).
 */
export function promptValid(rule: PromptRule, prompt: string | undefined): boolean | undefined {
  if (!rule.stated) return undefined;
  const unicode = trimmedValid(rule, prompt?.trim());
  return unicode === trimmedValid(rule, prompt === undefined ? undefined : trimAscii(prompt))
    ? unicode
    : undefined;
}

function trimmedValid(rule: PromptRule, trimmed: string | undefined): boolean {
  if (rule.empty_only) return trimmed === undefined || trimmed === '';
  if (trimmed === undefined) return rule.required === false;
  const n = codePoints(trimmed);
  return (
    n >= (rule.min_chars ?? 0) &&
    n <= (rule.max_chars ?? Number.POSITIVE_INFINITY) &&
    utf8Bytes(trimmed) <= (rule.max_utf8_bytes ?? Number.POSITIVE_INFINITY)
  );
}

/** The contract's verdict for an image `size`: a preset of the model's list, or a custom size within its bounds. */
export function sizeValid(table: MediaTable, rule: ParameterRule, size: unknown): boolean {
  if (typeof size !== 'string') return false;
  if (rule.presets && table.size_lists[rule.presets]?.includes(size)) return true;
  const m = new RegExp(table.custom_size_pattern).exec(size);
  if (!m || !rule.custom) return false;
  const [w, h] = size.split(/[x*]/).map(Number) as [number, number];
  const c = rule.custom;
  if (w < 1 || h < 1) return false;
  const pixels = w * h;
  return (
    pixels >= c.min_pixels &&
    pixels <= c.max_pixels &&
    w <= c.max_edge &&
    h <= c.max_edge &&
    w % c.step === 0 &&
    h % c.step === 0 &&
    Math.max(w, h) / Math.min(w, h) <= c.max_aspect_ratio
  );
}

/** The contract's verdict for a (non-size) parameter value; undefined where the definition is not shown. */
export function parameterValid(rule: ParameterRule, value: unknown): boolean | undefined {
  if (rule.stated === false) return undefined;
  if (rule.values) return rule.values.includes(value as string);
  if (rule.integer) {
    const { min, max, step, allowed } = rule.integer;
    const v = value as number;
    return (
      Number.isInteger(value) &&
      v >= min &&
      v <= max &&
      (step === undefined || step <= 1 || (v - min) % step === 0) &&
      (allowed === undefined || allowed.includes(v))
    );
  }
  if (rule.boolean) return typeof value === 'boolean';
  return undefined;
}

export interface Generated<T> {
  value: T;
  valid: boolean;
  note: string;
}

/**
 * Which bound of its rule an invalid prompt breaks: `utf8_bytes`, its UTF-8 byte cap alone (every other
 * bound kept: MJOB-007); `characters`, its presence, emptiness or count of code points (MJOB-006/008).
 */
export type PromptBreak = 'characters' | 'utf8_bytes';

/** A generated prompt; an invalid one carries the bound it breaks. */
export interface GeneratedPrompt extends Generated<string | undefined> {
  breaks?: PromptBreak;
}

/** The bound a prompt the contract refuses breaks: the byte cap when the count alone allows it. */
function promptBreaks(rule: PromptRule, prompt: string | undefined): PromptBreak {
  return promptValid({ ...rule, max_utf8_bytes: null }, prompt) === true ? 'utf8_bytes' : 'characters';
}

/** Whether the UTF-8 byte cap can refuse a prompt the count allows (a code point is at most 4 bytes). */
export const utf8CapBinds = (rule: PromptRule): boolean =>
  (rule.max_chars ?? 0) * 4 > (rule.max_utf8_bytes ?? Number.POSITIVE_INFINITY);

/** Generated prompts whose verdict depends on which white space is trimmed (judging.md): they prove nothing. */
const UNDECIDED = new WeakSet<GeneratedPrompt>();

/** A generated prompt with its verdict and, when invalid, the bound it breaks (the verdict computed once). */
function generatedPrompt(rule: PromptRule, value: string | undefined, note: string): GeneratedPrompt {
  const verdict = promptValid(rule, value);
  const out: GeneratedPrompt = {
    value,
    valid: verdict ?? true,
    note,
    ...(verdict === false ? { breaks: promptBreaks(rule, value) } : {}),
  };
  if (verdict === undefined) UNDECIDED.add(out);
  return out;
}

const WS = [' ', '\t', '\n', '\u3000', '\u00a0'];
const UNITS = [
  { unit: 'a', label: 'ASCII' },
  { unit: '漢', label: 'CJK (3 bytes)' },
  { unit: '😀', label: 'emoji (4 bytes, 2 UTF-16 units)' },
];

/**
 * Prompts around every bound of a rule: code points vs UTF-16 units vs UTF-8 bytes, with and without
 * surrounding white space. Combining sequences are avoided (graphemes and code points agree here).
 */
export function promptArbitrary(rule: PromptRule): fc.Arbitrary<GeneratedPrompt> {
  // Cases whose verdict depends on which white space is trimmed are left out: they prove nothing.
  return anyPrompt(rule).filter((c) => !rule.stated || !UNDECIDED.has(c));
}

function anyPrompt(rule: PromptRule): fc.Arbitrary<GeneratedPrompt> {
  const lengths = new Set<number>([0, 1, 2, 3]);
  for (const b of [rule.min_chars, rule.max_chars])
    if (b !== null) for (const d of [-1, 0, 1]) if (b + d >= 0) lengths.add(b + d);
  if (rule.max_utf8_bytes)
    for (const u of [3, 4]) for (const d of [-1, 0, 1]) lengths.add(Math.floor(rule.max_utf8_bytes / u) + d);
  const body = fc.record({
    n: fc.constantFrom(...[...lengths].filter((n) => n >= 0 && n <= 4200)),
    unit: fc.constantFrom(...UNITS),
    pad: fc.constantFrom('', ...WS),
    mixAscii: fc.boolean(),
  });
  return fc.oneof(
    {
      weight: 9,
      arbitrary: body.map(({ n, unit, pad, mixAscii }) => {
        const core = mixAscii && n > 1 ? `a${unit.unit.repeat(n - 1)}` : unit.unit.repeat(n);
        return generatedPrompt(
          rule,
          `${pad}${core}${pad}`,
          `${n} code points of ${unit.label}${pad ? ' padded with white space' : ''}`,
        );
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...WS).map((w) => generatedPrompt(rule, w.repeat(3), 'white space only')),
    },
    { weight: 1, arbitrary: fc.constant(generatedPrompt(rule, undefined, 'prompt absent')) },
  );
}

/**
 * A prompt rule's distinguishing cases, sent by every run of its property whatever the seed: one code
 * point over and under each count bound, and one unit over the UTF-8 cap in 3- and 4-byte characters,
 * each bare (cases whose verdict depends on which white space is trimmed are left out, as in
 * promptArbitrary).
 */
export function promptExamples(rule: PromptRule): GeneratedPrompt[] {
  const out: GeneratedPrompt[] = [];
  for (const b of [rule.min_chars, rule.max_chars])
    if (b !== null)
      for (const n of [b - 1, b + 1])
        if (n >= 0 && n <= 4200) out.push(generatedPrompt(rule, 'a'.repeat(n), `${n} code points of ASCII`));
  // One over the maximum with white space inside, which counts (only surrounding white space is
  // trimmed): a server that drops every white space before counting accepts it.
  if (rule.max_chars !== null && rule.max_chars + 1 >= 3 && rule.max_chars + 1 <= 4200)
    out.push(
      generatedPrompt(
        rule,
        innerSpaced(rule.max_chars + 1),
        `${rule.max_chars + 1} code points of ASCII words (white space inside)`,
      ),
    );
  if (rule.max_utf8_bytes)
    for (const u of UNITS.slice(1)) {
      const n = Math.floor(rule.max_utf8_bytes / Buffer.byteLength(u.unit)) + 1;
      out.push(generatedPrompt(rule, u.unit.repeat(n), `${n} code points of ${u.label}`));
    }
  out.push(generatedPrompt(rule, undefined, 'prompt absent'));
  return out.filter((c) => !rule.stated || !UNDECIDED.has(c));
}

/**
 * `n` code points of ASCII letters with a space between every two, starting and ending with a letter:
 * white space inside a prompt, which counts ("validated after trimming surrounding whitespace").
 */
export const innerSpaced = (n: number): string =>
  Array.from({ length: n }, (_, i) => (i % 2 === 1 && i < n - 1 ? ' ' : 'a')).join('');

/** Sizes: presets of the model's list and of the other lists, custom sizes around every bound, malformed strings. */
export function sizeArbitrary(table: MediaTable, rule: ParameterRule): fc.Arbitrary<Generated<unknown>> {
  return fc.constantFrom(...sizeCases(table, rule));
}

/** Every size case: the presets of all lists, custom sizes around each bound, malformed strings. */
export function sizeCases(table: MediaTable, rule: ParameterRule): Array<Generated<unknown>> {
  const presets = [...new Set(Object.values(table.size_lists).flat())];
  const c = rule.custom;
  const customs: string[] = [
    '0x1024',
    '1024x0',
    '1024X1024',
    '1024 x 1024',
    '1024x',
    'x1024',
    '1024x1024x1',
    '-1024x1024',
    '1024.5x1024',
  ];
  if (c) {
    const side = (px: number) => Math.floor(Math.sqrt(px) / c.step) * c.step;
    const lo = side(c.min_pixels);
    const hi = side(c.max_pixels);
    for (const s of [lo - c.step, lo, lo + c.step, hi - c.step, hi, hi + c.step])
      for (const sep of ['x', '*']) customs.push(`${s}${sep}${s}`);
    const longEdge = Math.min(
      c.max_edge,
      Math.floor(c.max_pixels / Math.ceil(c.max_edge / c.max_aspect_ratio)),
    );
    // The longest edge both ways: as the width and as the height (each edge is bounded).
    for (const w of [c.max_edge - c.step, c.max_edge, c.max_edge + c.step]) {
      const short = Math.max(c.step, Math.ceil(w / c.max_aspect_ratio / c.step) * c.step);
      customs.push(`${w}x${short}`, `${short}x${w}`);
    }
    for (const r of [c.max_aspect_ratio, c.max_aspect_ratio + 0.5, c.max_aspect_ratio + 2]) {
      const h = Math.ceil(Math.sqrt(c.min_pixels / r) / c.step) * c.step;
      const w = Math.round((h * r) / c.step) * c.step;
      customs.push(`${w}x${h}`, `${h}x${w}`);
    }
    customs.push(`${lo + 1}x${lo}`, `${longEdge}x${c.step}`);
  }
  // Not a string: a number, null, and a valid size as the one item of an array (a server that reads
  // the value as a string, `String(["1024x1024"])`, accepts it).
  const list = rule.presets ? (table.size_lists[rule.presets] ?? []) : [];
  const square = c && Math.ceil(Math.sqrt(c.min_pixels) / c.step) * c.step;
  const arrays = [list[0], square && `${square}x${square}`].flatMap((v) => (v ? [[v]] : []));
  return [...presets, ...new Set(customs), 1024, null, ...arrays].map((value) => ({
    value,
    valid: sizeValid(table, rule, value),
    note:
      typeof value === 'string'
        ? presets.includes(value)
          ? 'a preset'
          : 'a custom size'
        : `not a string (${JSON.stringify(value)})`,
  }));
}

/**
 * The values a never-accepted parameter name is sent with ("The following names are never accepted"):
 * an empty array, and a value a client would really send under that name (a list of image or video
 * URLs, a duration in milliseconds, a reference kind). A server that refuses only an empty list (a
 * `minItems: 1` check on a name it passes through) refuses the first and accepts the second.
 */
export function neverAcceptedValues(name: string): unknown[] {
  const realistic = name.endsWith('_ms')
    ? 5000
    : name.endsWith('_kind')
      ? 'image'
      : name.includes('video')
        ? ['https://example.com/reference.mp4']
        : ['https://example.com/reference.png'];
  return [[], realistic];
}

/** Values of an enum, integer or boolean parameter, and values just outside. */
export function parameterArbitrary(
  rule: ParameterRule,
  siblings: ReadonlyArray<string | number> = [],
): fc.Arbitrary<Generated<unknown>> {
  return fc.constantFrom(...parameterCases(rule, siblings));
}

/**
 * Every value the table gives a parameter of this name on any documented model: each value of an enum
 * set, both ends of an integer range (sizes and parameters whose definition is not shown give none).
 * Sent to each model beside its own values, those outside its set are refusals a deployment with one
 * enum per family (the union of the sets) accepts: webp for wc-100010, 8:1 for wc-100031, 1K for a video model.
 */
export function siblingValues(table: MediaTable, name: string): Array<string | number> {
  const out = new Set<string | number>();
  for (const m of Object.values(table.models)) {
    const rule = m.parameters[name];
    if (!rule || rule.stated === false || rule.presets !== undefined) continue;
    for (const v of rule.values ?? []) out.add(v);
    if (rule.integer) for (const v of [rule.integer.min, rule.integer.max]) out.add(v);
  }
  return [...out];
}

/**
 * Every value case of an enum, integer or boolean parameter: its values, values just outside, and the
 * values other models give a parameter of the same name (`siblings`, from siblingValues).
 */
export function parameterCases(
  rule: ParameterRule,
  siblings: ReadonlyArray<string | number> = [],
): Array<Generated<unknown>> {
  const candidates: unknown[] = [null, 'not-a-value'];
  if (rule.values)
    candidates.push(
      ...rule.values,
      ...rule.values
        .filter((v): v is string => typeof v === 'string')
        .map((v) => (v.toUpperCase() === v ? v.toLowerCase() : v.toUpperCase())),
    );
  if (rule.integer) {
    const { min, max, step, allowed } = rule.integer;
    candidates.push(min - 1, min, min + 1, max - 1, max, max + 1, String(min), min + 0.5);
    if (step && step > 1) candidates.push(min + step, min + step - 1, min + step + 1, max - step);
    for (const a of allowed ?? []) candidates.push(a, a + 1);
  }
  if (rule.boolean) candidates.push(true, false, 'true', 0);
  candidates.push(...siblings);
  return [...new Set(candidates)].map((value) => ({
    value,
    valid: parameterValid(rule, value) ?? true,
    note: JSON.stringify(value),
  }));
}

/**
 * The valid prompts that tell counting methods apart: for each unit (ASCII, CJK, emoji) the longest
 * prompt within both the code-point and the byte bound, and the ASCII maximum padded with white space.
 * A server counting UTF-16 units, bytes or untrimmed text refuses at least one of them.
 */
export function promptBoundaryValid(rule: PromptRule): Array<Generated<string>> {
  if (!rule.stated || rule.empty_only || rule.max_chars === null) return [];
  const out: Array<Generated<string>> = [];
  for (const { unit, label } of UNITS) {
    const n = Math.min(
      rule.max_chars,
      Math.floor((rule.max_utf8_bytes ?? Number.POSITIVE_INFINITY) / utf8Bytes(unit)),
    );
    if (n >= (rule.min_chars ?? 0) && n > 0)
      out.push({ value: unit.repeat(n), valid: true, note: `${n} code points of ${label}` });
  }
  const ascii = 'a'.repeat(Math.min(rule.max_chars, rule.max_utf8_bytes ?? rule.max_chars));
  out.push({
    value: ` \t${ascii}\n `,
    valid: true,
    note: `${ascii.length} ASCII code points padded with white space`,
  });
  return out.filter((c) => promptValid(rule, c.value) === true);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const SIZE_SHAPED = /^\s*\d+\s*[xX*\u00d7]\s*\d+\s*$/;

/** A string some size reading could accept (`WxH`, `W*H`, either case): never judged invalid for a catalog model. */
export const sizeShaped = (v: unknown): boolean => typeof v === 'string' && SIZE_SHAPED.test(v);

/**
 * The rules of a model the contract does not document, read from its live catalog entry in the shape
 * the contract sketches: `prompt_contract` {empty_only, minimum_characters, maximum_characters,
 * maximum_utf8_bytes}; `parameters`: `reference` {accepted, minimum, maximum} and per parameter
 * `options` (items with `value`) or integer `minimum`/`maximum`/optional `step`/optional
 * `allowed_values`, and `default`. A bound the entry does not give stays unknown (null / not stated).
 */
export function catalogModel(entry: Record<string, unknown>, table: MediaTable): MediaModel {
  const pc = isObject(entry.prompt_contract) ? entry.prompt_contract : {};
  const [min, max, bytes] = [pc.minimum_characters, pc.maximum_characters, pc.maximum_utf8_bytes].map(
    finite,
  ) as [number | null, number | null, number | null];
  const emptyOnly = pc.empty_only === true;
  const prompt: PromptRule = {
    stated: emptyOnly || min !== null || max !== null || bytes !== null,
    required: typeof pc.required === 'boolean' ? pc.required : (min ?? 0) > 0 ? true : null,
    empty_only: emptyOnly,
    min_chars: emptyOnly ? null : min,
    max_chars: emptyOnly ? null : max,
    max_utf8_bytes: emptyOnly ? null : bytes,
  };
  const params = isObject(entry.parameters) ? entry.parameters : {};
  const ref = isObject(params.reference) ? params.reference : undefined;
  const refMin = finite(ref?.minimum);
  const accepted = (Array.isArray(ref?.accepted) ? ref.accepted : []).filter(
    (k): k is 'image' | 'video' => k === 'image' || k === 'video',
  );
  const references: MediaModel['references'] = {
    stated: ref !== undefined,
    accepted,
    min: refMin,
    max: finite(ref?.maximum),
    required: typeof ref?.required === 'boolean' ? ref.required : (refMin ?? 0) > 0 ? true : null,
    video: null,
    no_mixing: null,
  };
  const skip = new Set(['reference', table.acknowledgement, ...table.reference_fields]);
  const parameters: Record<string, ParameterRule> = {};
  for (const [name, p] of Object.entries(params)) {
    if (skip.has(name) || !isObject(p)) continue;
    parameters[name] = catalogParameter(p);
  }
  const kind = String(entry.kind ?? '');
  const output = kind.startsWith('video')
    ? 'video'
    : kind.startsWith('image')
      ? 'image'
      : kind.includes('3d')
        ? 'glb'
        : null;
  return { output, prompt, references, parameters_complete: false, parameters };
}

function catalogParameter(p: Record<string, unknown>): ParameterRule {
  if (Array.isArray(p.options) && p.options.length > 0) {
    const values = p.options.map((o) => (isObject(o) ? o.value : o));
    if (values.every((v) => typeof v === 'boolean')) return { boolean: true, default: p.default };
    if (values.every((v) => typeof v === 'string' || typeof v === 'number'))
      return {
        values: values as Array<string | number>,
        ...(values.some(sizeShaped) ? { custom_sizes_possible: true as const } : {}),
        default: p.default,
      };
  }
  const [min, max, step] = [finite(p.minimum), finite(p.maximum), finite(p.step)];
  if (min !== null && max !== null) {
    const allowed = Array.isArray(p.allowed_values)
      ? p.allowed_values.filter((v): v is number => Number.isInteger(v))
      : undefined;
    return {
      integer: {
        min,
        max,
        ...(step !== null && step > 0 ? { step } : {}),
        ...(allowed?.length ? { allowed } : {}),
      },
      default: p.default,
    };
  }
  return { stated: false, default: p.default };
}

/** The value cases of a catalog parameter whose verdict no reading disputes. */
export function catalogParameterCases(rule: ParameterRule): Array<Generated<unknown>> {
  return parameterCases(rule).filter((c) => c.valid || !(rule.custom_sizes_possible && sizeShaped(c.value)));
}
