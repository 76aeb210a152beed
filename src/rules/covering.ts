/**
 * The covering design of media acceptance: for a documented model, the few valid jobs that together
 * put every valid value at stake once at least — every value of every enum and boolean, both ends of
 * every integer range, both ends of every prompt bound (and the UTF-8 cap where it binds), the least
 * and the most references, the named presets of a size list (those only the list makes valid; every
 * preset in `thorough`) and custom sizes at each bound with both separators. Each job carries many values at once; a value
 * set shorter than the job count fills the other jobs with its cheapest value (shortest duration,
 * lowest resolution, smallest size, no audio, fewest references), and the costly values of different
 * parameters go to different jobs. Every verdict comes from the table (src/rules/media-models.ts), never from
 * a target; a job's `proves` names each value it carries and the requirement it is judged under.
 */
import type { Profile } from '../vocabulary.ts';
import {
  innerSpaced,
  type MediaModel,
  type MediaTable,
  type ParameterRule,
  type PromptRule,
  parameterValid,
  promptBoundaryValid,
  promptValid,
  sizeValid,
  utf8Bytes,
} from './media-models.ts';

export type CoveringRule =
  | 'MJOB-005'
  | 'MJOB-006'
  | 'MJOB-007'
  | 'MJOB-008'
  | 'MJOB-009'
  | 'MJOB-010'
  | 'MJOB-013'
  | 'MJOB-043';

export interface CoveringReferences {
  kind: 'image' | 'video';
  count: number;
  /** A video reference of exactly this duration (an edge of the model's usable window). */
  durationMs?: number;
  /** The reference field the ids go in, when not the first of `reference_fields` (an alias on its own). */
  field?: string;
}

/** One value a job puts at stake: `subject` is a parameter name, `prompt` or `references`. */
export interface CoveredValue {
  /** The requirement ids a refusal of this value breaks. */
  rules: string[];
  subject: string;
  value: unknown;
  note: string;
}

export interface CoveringCase {
  /** A string is sent; undefined leaves the field out; null: the model's prompt is not under test (send the base prompt). */
  prompt: string | undefined | null;
  /** The model's parameters under test (the acknowledgement and the reference ids are the caller's). */
  parameters: Record<string, unknown>;
  /** The references to send, or null for a model that takes none (or whose rule is not stated). */
  references: CoveringReferences | null;
  proves: CoveredValue[];
}

/** A value set: the cheapest value first; the rest are what the set adds to the plan. */
export interface Axis {
  subject: string;
  values: CoveredValue[];
}

/**
 * The jobs of a model's covering design, about as many as its largest value set. `listed`: the
 * documented models the run can call (the account's media catalog), every one when not given; the
 * named presets of a size list are dealt out over those that share the list (presetShare).
 */
export function coveringDesign(
  table: MediaTable,
  model: MediaModel,
  profile: Profile,
  listed?: ReadonlySet<string>,
): CoveringCase[] {
  return packAxes([
    ...promptAxis(model.prompt),
    ...referenceAxis(table, model),
    ...Object.entries(model.parameters).flatMap(([name, rule]) =>
      parameterAxis(table, name, rule, profile, presetShare(table, model, name, listed)),
    ),
  ]);
}

/** Which of the named presets a model sends: every `of`-th, from the `index`-th. */
interface PresetShare {
  index: number;
  of: number;
}

/**
 * A model's share of its size list's named presets: the documented models (that the run can call) whose
 * parameter `name` uses the same list deal them out in table order, so each named preset is sent once
 * per list, on one of them, in a few more jobs than one per model would cost. Undefined (the model sends
 * every named preset) for a model outside the table, or one the run cannot call.
 */
function presetShare(
  table: MediaTable,
  model: MediaModel,
  name: string,
  listed: ReadonlySet<string> | undefined,
): PresetShare | undefined {
  const list = model.parameters[name]?.presets;
  if (list === undefined) return undefined;
  const sharers = Object.keys(table.models).filter(
    (id) => table.models[id]!.parameters[name]?.presets === list && (listed?.has(id) ?? true),
  );
  const index = sharers.findIndex((id) => table.models[id] === model);
  return index < 0 ? undefined : { index, of: sharers.length };
}

/**
 * Value sets packed into as many jobs as the largest has: each value once at least, the other jobs
 * of a set at its first (cheapest) value. The dearest values of a set go first, each to the job that
 * is cheapest so far (estimateOf), so that the longest duration, the highest resolution, the audio,
 * the largest sizes and the highest qualities do not meet in one job; on a tie, the jobs after
 * those the previous set's values took come first.
 */
export function packAxes(axes: Axis[]): CoveringCase[] {
  const jobs = Math.max(1, ...axes.map((a) => a.values.length));
  const cases: CoveringCase[] = Array.from({ length: jobs }, () => ({
    prompt: null,
    parameters: {},
    references: null,
    proves: [],
  }));
  const estimate = new Array<number>(jobs).fill(1);
  let offset = 0;
  for (const axis of axes) {
    const [cheapest, ...rest] = axis.values as [CoveredValue, ...CoveredValue[]];
    const at = new Array<CoveredValue>(jobs).fill(cheapest);
    const free = new Set(Array.from({ length: jobs }, (_, j) => (offset + j) % jobs));
    const dearestFirst = rest
      .map((v, i) => ({ v, i, e: estimateOf(v, cheapest) }))
      .sort((a, b) => b.e - a.e || a.i - b.i);
    for (const { v } of dearestFirst) {
      const j = [...free].reduce((best, k) => (estimate[k]! < estimate[best]! ? k : best));
      at[j] = v;
      free.delete(j);
    }
    offset = (offset + rest.length) % jobs;
    at.forEach((v, j) => {
      const c = cases[j]!;
      if (axis.subject === 'prompt') c.prompt = v.value as string | undefined;
      else if (axis.subject === 'references') c.references = v.value as CoveringReferences;
      else c.parameters[axis.subject] = v.value;
      c.proves.push(v);
      estimate[j]! *= estimateOf(v, cheapest);
    });
  }
  return cases;
}

/** Quality names from the cheapest up (an assumption like the others here: a higher quality costs more). */
const QUALITY_ORDER = ['low', 'medium', 'high', 'xhigh', 'max'];

/**
 * A rough estimate of what a value costs relative to its set's cheapest (1): by pixels for a size, by
 * seconds for a duration, by lines for a resolution, by rank for a named quality; 1.5 for any other
 * parameter value than the cheapest (its price is not known); 1 for prompts and references. Only the
 * order matters: it decides which values share a job, never which values are sent.
 */
function estimateOf(v: CoveredValue, cheapest: CoveredValue): number {
  if (v === cheapest || v.subject === 'prompt' || v.subject === 'references') return 1;
  const ratio = (f: (x: unknown) => number | undefined) => {
    const a = f(v.value);
    const b = f(cheapest.value);
    return a !== undefined && b !== undefined && b > 0 ? Math.max(1, a / b) : undefined;
  };
  const pixels = (x: unknown) => {
    const d = dims(String(x));
    const named = /^auto_(\d)K$/.exec(String(x));
    return d ? d[0] * d[1] : named ? (Number(named[1]) * 1024) ** 2 : undefined;
  };
  const lines = (x: unknown) => {
    const m = RESOLUTION.exec(String(x));
    return m ? Number(m[1]) * (/k/i.test(m[2]!) ? 1000 : 1) : undefined;
  };
  const rank = (x: unknown) => {
    const i = QUALITY_ORDER.indexOf(String(x));
    return i < 0 ? undefined : 1 + i / 2;
  };
  const seconds = (x: unknown) => (typeof x === 'number' ? x : undefined);
  return (
    ratio(pixels) ??
    ratio(lines) ??
    ratio(rank) ??
    (v.subject === 'duration' ? ratio(seconds) : undefined) ??
    1.5
  );
}

/**
 * A model's parameters at their cheapest values where those differ from its defaults (shortest
 * duration, lowest resolution, smallest size, no audio, `low` quality): for a test that buys a job
 * and does not care which.
 */
export function cheapestParameters(table: MediaTable, model: MediaModel): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(model.parameters)) {
    const cheapest = parameterAxis(table, name, rule, 'standard')[0]?.values[0]?.value;
    if (cheapest !== undefined && cheapest !== rule.default) out[name] = cheapest;
  }
  return out;
}

/**
 * The megapixels of a model's cheapest image (its smallest size, or its lowest resolution, N K read as
 * N x N megapixels), or undefined for a model with neither: what a test that may pick any image model
 * compares to buy small images.
 */
export function cheapestMegapixels(table: MediaTable, model: MediaModel): number | undefined {
  const first = (name: string) => {
    const rule = model.parameters[name];
    return rule ? parameterAxis(table, name, rule, 'standard')[0]?.values[0]?.value : undefined;
  };
  const d = dims(String(first('size')));
  if (d) return (d[0] * d[1]) / 2 ** 20;
  const m = RESOLUTION.exec(String(first('resolution')));
  return m && /k/i.test(m[2]!) ? Number(m[1]) ** 2 : undefined;
}

/** The static size of the covering designs of the documented models: jobs per model and per output kind. */
export function coveringPlan(
  table: MediaTable,
  profile: Profile,
): {
  models: Array<{ id: string; output: string; jobs: number }>;
  byOutput: Record<string, number>;
  total: number;
} {
  const models = Object.entries(table.models).map(([id, m]) => ({
    id,
    output: m.output ?? 'not stated',
    jobs: coveringDesign(table, m, profile).length,
  }));
  const byOutput: Record<string, number> = {};
  for (const m of models) byOutput[m.output] = (byOutput[m.output] ?? 0) + m.jobs;
  return { models, byOutput, total: models.reduce((n, m) => n + m.jobs, 0) };
}

/** One line for the first lines of a run: the plan's media acceptance jobs by output kind. */
export function coveringPlanLine(table: MediaTable, profile: Profile): string {
  const p = coveringPlan(table, profile);
  const kinds = Object.entries(p.byOutput)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const standard = profile === 'standard' ? undefined : coveringPlan(table, 'standard').total;
  return `media acceptance (covering design, profile ${profile}): ${p.total} billable jobs for the ${p.models.length} documented models (${kinds})${standard === undefined || standard === p.total ? '' : `; standard buys ${standard}`}`;
}

function promptAxis(rule: PromptRule): Axis[] {
  if (!rule.stated) return [];
  if (rule.empty_only)
    return [
      {
        subject: 'prompt',
        values: [
          { rules: ['MJOB-008'], subject: 'prompt', value: undefined, note: 'prompt absent' },
          { rules: ['MJOB-008'], subject: 'prompt', value: '', note: 'an empty prompt' },
          // ASCII white space only: whether other Unicode white space is trimmed is not stated.
          { rules: ['MJOB-008'], subject: 'prompt', value: ' \t\n ', note: 'a prompt of white space only' },
        ],
      },
    ];
  const min = Math.max(1, rule.min_chars ?? 1);
  const cases = [
    // At the minimum with white space inside where it fits (3 or more): it counts, only surrounding
    // white space is trimmed.
    min >= 3
      ? { value: innerSpaced(min), note: `${min} ASCII code points, white space inside (the minimum)` }
      : { value: 'a'.repeat(min), note: `${min} ASCII code points (the minimum)` },
    ...promptBoundaryValid(rule),
  ].filter((c) => promptValid(rule, c.value) === true);
  const cap = rule.max_utf8_bytes ?? Number.POSITIVE_INFINITY;
  return [
    {
      subject: 'prompt',
      values: cases.map((c) => ({
        // At the byte cap when one more code point of its kind would break it.
        rules: utf8Bytes(c.value.trim()) + 4 > cap ? ['MJOB-006', 'MJOB-007'] : ['MJOB-006'],
        subject: 'prompt',
        value: c.value,
        note: `a prompt of ${c.note}`,
      })),
    },
  ];
}

function referenceAxis(table: MediaTable, model: MediaModel): Axis[] {
  const r = model.references;
  if (!r.stated || r.accepted.length === 0) return [];
  const values: CoveredValue[] = [];
  if (r.accepted.includes('image') && r.min !== null && r.max !== null)
    for (const count of new Set([Math.max(1, r.min), r.max]))
      values.push({
        rules: ['MJOB-010'],
        subject: 'references',
        value: { kind: 'image', count },
        note: `${count} reference image${count === 1 ? '' : 's'}`,
      });
  // The alias on its own (`studio_asset_ids`), with the fewest references: it adds no job where
  // another value set is at least as long.
  const alias = table.reference_fields[1];
  const fewest = values[0]?.value as CoveringReferences | undefined;
  if (alias && fewest)
    values.push({
      rules: ['MJOB-043'],
      subject: 'references',
      value: { ...fewest, field: alias },
      note: `${fewest.count} reference image${fewest.count === 1 ? '' : 's'} under \`${alias}\` alone`,
    });
  // A video at each edge of the usable window (the stated window cut to the 1-30 s upload validation).
  // The longest also stands for video mode itself (one verified video); a refusal of the shortest
  // alone is the window's minimum.
  const video = r.accepted.includes('video') ? r.video : null;
  if (video)
    for (const ms of new Set([video.usable_min_ms, video.usable_max_ms]))
      values.push({
        rules: ms === video.usable_max_ms ? ['MJOB-010', 'MJOB-013', 'MJOB-041'] : ['MJOB-041'],
        subject: 'references',
        value: { kind: 'video', count: video.count, durationMs: ms },
        note: `${video.count} reference video of ${ms} ms (an edge of the usable ${video.usable_min_ms}-${video.usable_max_ms} ms window)`,
      });
  return values.length ? [{ subject: 'references', values }] : [];
}

function parameterAxis(
  table: MediaTable,
  name: string,
  rule: ParameterRule,
  profile: Profile,
  share?: PresetShare,
): Axis[] {
  if (rule.stated === false) return [];
  const entry = (value: unknown, note?: string): CoveredValue => ({
    rules: [rule.presets !== undefined ? 'MJOB-009' : 'MJOB-005'],
    subject: name,
    value,
    note: `${name} ${JSON.stringify(value)}${note ? ` (${note})` : ''}`,
  });
  let values: CoveredValue[] = [];
  if (rule.presets !== undefined)
    values = sizeValues(table, rule, profile, share).map((s) => entry(s.value, s.note));
  else if (rule.values) values = cheapestFirst(name, rule).map((v) => entry(v));
  else if (rule.integer) values = integerEnds(rule).map((v) => entry(v, 'an end of the range'));
  else if (rule.boolean) values = [entry(false), entry(true)];
  const valid = values.filter((v) =>
    rule.presets !== undefined ? sizeValid(table, rule, v.value) : parameterValid(rule, v.value) === true,
  );
  const unique = valid.filter((v, i) => valid.findIndex((w) => w.value === v.value) === i);
  return unique.length ? [{ subject: name, values: unique }] : [];
}

/** The smallest and the largest valid integer, respecting step and allowed values. */
function integerEnds(rule: ParameterRule): number[] {
  const { min, max, step, allowed } = rule.integer!;
  if (allowed?.length) {
    const ok = allowed.filter((v) => parameterValid(rule, v) === true).sort((a, b) => a - b);
    return ok.length ? [ok[0]!, ok[ok.length - 1]!] : [];
  }
  const s = step && step > 1 ? step : 1;
  return [min, min + Math.floor((max - min) / s) * s];
}

const RESOLUTION = /^(\d+(?:\.\d+)?)([pPkK])$/;

/** Enum values, the cheapest first: the lowest resolution, `low` quality, else the default. */
function cheapestFirst(name: string, rule: ParameterRule): Array<string | number> {
  const values = [...rule.values!];
  const res = (v: unknown) => {
    const m = RESOLUTION.exec(String(v));
    return m ? Number(m[1]) * (/k/i.test(m[2]!) ? 1000 : 1) : undefined;
  };
  let cheapest: string | number | undefined;
  if (values.every((v) => res(v) !== undefined))
    cheapest = values.reduce((a, b) => (res(b)! < res(a)! ? b : a));
  else if (name === 'quality' && values.includes('low')) cheapest = 'low';
  else if (values.includes(rule.default as string)) cheapest = rule.default as string;
  return cheapest === undefined ? values : [cheapest, ...values.filter((v) => v !== cheapest)];
}

const dims = (s: string): [number, number] | undefined => {
  const m = /^(\d+)[x*](\d+)$/.exec(s);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
};

/**
 * The presets of a model's size list that only the list makes valid: those that are no custom size
 * within the model's bounds (auto_2K, square_hd, ...). A preset written WxH or W*H is a custom size
 * within the bounds as well in every list of the table: the custom cases at the bounds prove it.
 */
export function namedPresets(table: MediaTable, rule: ParameterRule): string[] {
  const list = rule.presets ? (table.size_lists[rule.presets] ?? []) : [];
  const custom = { ...rule, presets: undefined };
  return list.filter((p) => !sizeValid(table, custom, p));
}

/**
 * The sizes a model's covering design sends: its smallest size (the filler), the named presets of its
 * list (its share of them, or every one; every preset of the list in `thorough`), and custom sizes at
 * each bound. Every named preset on every model would cost one job each (the size set is the largest
 * of a size-list model): 36 more jobs in the plan, against 12 for one share per model.
 */
function sizeValues(
  table: MediaTable,
  rule: ParameterRule,
  profile: Profile,
  share?: PresetShare,
): Array<{ value: string; note: string }> {
  const list = rule.presets ? (table.size_lists[rule.presets] ?? []) : [];
  const px = (s: string) => {
    const d = dims(s);
    return d ? d[0] * d[1] : Number.POSITIVE_INFINITY;
  };
  const named = namedPresets(table, rule);
  const presets =
    profile === 'thorough' ? list : share ? named.filter((_, i) => i % share.of === share.index) : named;
  const out: Array<{ value: string; note: string }> = [
    ...presets.map((p) => ({ value: p, note: `a preset of list ${rule.presets}` })),
    ...customSizes(table, rule),
  ];
  // The cheapest comes first (the filler of the other jobs): the fewest pixels, a preset only when
  // the model takes no custom size.
  const smallest = [...out].sort((a, b) => px(a.value) - px(b.value))[0];
  if (smallest && px(smallest.value) < Number.POSITIVE_INFINITY)
    return [smallest, ...out.filter((v) => v !== smallest)];
  const preset = [...list].sort((a, b) => px(a) - px(b))[0];
  return preset ? [{ value: preset, note: 'the smallest preset' }, ...out] : out;
}

/**
 * Custom sizes at the bounds: the exact minimum and maximum pixel counts (as square as the step
 * allows, and at the widest aspect ratio), the longest edge the bounds allow, and a width one step
 * off the most square minimum. Both separators appear at both pixel bounds.
 */
export function customSizes(table: MediaTable, rule: ParameterRule): Array<{ value: string; note: string }> {
  const c = rule.custom;
  if (!c) return [];
  const s = c.step > 1 ? c.step : 1;
  const custom = { ...rule, presets: undefined };
  const presets = new Set(rule.presets ? table.size_lists[rule.presets] : []);
  // A custom size that is also a preset of the list would not prove the custom rule.
  const valid = ([w, h]: [number, number]) =>
    sizeValid(table, custom, `${w}x${h}`) && !presets.has(`${w}x${h}`) && !presets.has(`${w}*${h}`);
  /** Exact pixel count: the most square (short edge from the square root down) or the widest (short edge up). */
  const exact = (pixels: number, widest: boolean): [number, number] | undefined => {
    const sq = Math.floor(Math.sqrt(pixels) / s) * s;
    const lowH = Math.ceil(Math.max(Math.sqrt(pixels / c.max_aspect_ratio), pixels / c.max_edge) / s) * s;
    for (let i = 0; i <= sq / s; i++) {
      const h = widest ? lowH + i * s : sq - i * s;
      if (h < lowH || h > sq) break;
      if (pixels % h === 0 && valid([pixels / h, h])) return [pixels / h, h];
    }
    return undefined;
  };
  const edge = Math.floor(Math.min(c.max_edge, Math.sqrt(c.max_pixels * c.max_aspect_ratio)) / s) * s;
  const edgeShort = Math.ceil(Math.max(edge / c.max_aspect_ratio, c.min_pixels / edge) / s) * s;
  const minSquare = exact(c.min_pixels, false);
  const cases: Array<[[number, number] | undefined, string, string]> = [
    [minSquare, 'x', 'the minimum pixels'],
    [exact(c.min_pixels, true), '*', 'the minimum pixels at the widest aspect ratio'],
    [exact(c.max_pixels, false), '*', 'the maximum pixels'],
    [flip(exact(c.max_pixels, true)), 'x', 'the maximum pixels at the widest aspect ratio, portrait'],
    [[edge, edgeShort], '*', 'the longest edge the bounds allow'],
    [[edgeShort, edge], 'x', 'the longest edge the bounds allow, as the height'],
    [
      minSquare && flip([minSquare[0] + s, minSquare[1]]),
      'x',
      `one ${s}-pixel step off the minimum, portrait`,
    ],
  ];
  const out: Array<{ value: string; note: string }> = [];
  const seen = new Set<string>();
  for (const [d, sep, note] of cases) {
    // One job per size: the same width and height under two notes is sent once.
    if (!d || !valid(d) || seen.has(`${d[0]}x${d[1]}`)) continue;
    seen.add(`${d[0]}x${d[1]}`);
    out.push({ value: `${d[0]}${sep}${d[1]}`, note: `a custom size at ${note}` });
  }
  return out;
}

const flip = (d: [number, number] | undefined): [number, number] | undefined => d && [d[1], d[0]];
