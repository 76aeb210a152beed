// Checks every cell of fixtures/media-models.yaml against the contract's own text. The contract's media
// sections (model table, correction and note for wc-100013, single-model details of wc-100019, parameter
// value sets, custom-size bounds, size lists A/B/C, never-accepted names) are parsed here, independently of
// any project code, and the expected table is rebuilt from them; the YAML is read with `yaml` directly. A
// transcription error therefore cannot hide on both sides.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const CONTRACT_URL = new URL('../../../shared/contract/customer-api.md', import.meta.url);
const JUDGING_URL = new URL('../../../shared/judging.md', import.meta.url);
const TABLE_URL = new URL('../../fixtures/media-models.yaml', import.meta.url);
const HAVE_CONTRACT = existsSync(CONTRACT_URL);
const HAVE_JUDGING = existsSync(JUDGING_URL);

// ---------------------------------------------------------------------------------------------------------
// The YAML table's shape.

interface Custom {
  min_pixels: number;
  max_pixels: number;
  max_edge: number;
  step: number;
  max_aspect_ratio: number;
}
interface Param {
  values?: string[];
  integer?: { min: number; max: number };
  boolean?: true;
  presets?: string;
  custom?: Custom | null;
  stated?: false;
  default: string | number | boolean | null;
}
interface Prompt {
  stated: boolean;
  required: boolean | null;
  empty_only: boolean | null;
  min_chars: number | null;
  max_chars: number | null;
  max_utf8_bytes: number | null;
}
interface FirstFrameRule {
  first_frame_required: boolean;
  second_is_last_frame: boolean;
  aspect_ratio_follows_first_frame: boolean;
}
interface Video {
  count: number;
  min_ms: number;
  max_ms: number;
  usable_min_ms: number;
  usable_max_ms: number;
  no_audio: boolean;
}
interface References {
  stated: boolean;
  accepted: string[] | null;
  min: number | null;
  max: number | null;
  required: boolean | null;
  first_frame_rule: FirstFrameRule | null;
  video: Video | null;
  no_mixing: boolean | null;
}
interface Reading {
  source: 'judging.md' | 'contract';
  quote: string;
  encoding: string;
}
interface Model {
  output: 'image' | 'video' | 'glb' | null;
  prompt: Prompt;
  references: References;
  parameters_complete: boolean;
  parameters: Record<string, Param>;
  readings: Reading[];
}
interface Table {
  contract: string;
  acknowledgement: string;
  reference_fields: string[];
  reference_fields_location: string;
  reference_id_max_utf8_bytes: number;
  custom_size_pattern: string;
  never_accepted_parameters: string[];
  size_lists: Record<string, string[]>;
  general_readings: Reading[];
  models: Record<string, Model>;
}

const table = parse(readFileSync(TABLE_URL, 'utf8')) as Table;
const MODEL_IDS = Object.keys(table.models);

// ---------------------------------------------------------------------------------------------------------
// Corrections the contract makes to its own table, encoded explicitly.
//
// Contract: "Correction for wc-100013: it takes 1 to 10 images? No: its reference array accepts 1 to 10
// images (required) and its size parameter uses the large size list (list B); it has no output_format
// parameter. wc-100012 has no output_format either."
// Contract: "Note on the table row for wc-100013: its reference array holds 1 to 10 images (required), as
// stated in the correction above; the cell in the table is superseded by that statement."
// So the table cell "1 to 14... see note" is replaced, never read. The test below also re-parses both
// paragraphs and fails if they stop saying exactly this.
interface Correction {
  references?: { accepted: string[]; min: number; max: number; required: boolean };
  sizeList?: string;
  without: string[];
}
const CORRECTIONS: Record<string, Correction> = {
  'wc-100013': {
    references: { accepted: ['image'], min: 1, max: 10, required: true },
    sizeList: 'B',
    without: ['output_format'],
  },
  'wc-100012': { without: ['output_format'] },
};

// Contract: "For models that take references, one of the two is required." (wc-100016's cell has no
// "(required)"; this general sentence makes its references required all the same.)
const REFERENCES_REQUIRED_SENTENCE = 'For models that take references, one of the two is required.';
// Contract: "The prompt is required (min 1 character unless stated) except where noted."
const PROMPT_REQUIRED_SENTENCE = 'The prompt is required (min 1 character unless stated) except where noted.';

// ---------------------------------------------------------------------------------------------------------
// Contract parsing.

const fold = (s: string): string => s.replace(/\s+/g, ' ').trim();

function must(re: RegExp, text: string, what: string): RegExpExecArray {
  const m = re.exec(text);
  if (!m) throw new Error(`the contract no longer has ${what} (${re})`);
  return m;
}

/** The cells of the markdown table whose header line starts with `header` (separator line skipped). */
function tableRows(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) throw new Error(`the contract has no table headed ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** "wc-100010, wc-100011", "wc-100031 to 34, wc-100040", "wc-100014/15/16" -> the model ids. */
function expandScope(scope: string): string[] {
  const ids: string[] = [];
  for (const part of scope.split(', ')) {
    const range = /^wc-(\d{4})(\d\d) to (\d\d)$/.exec(part);
    const slashes = /^wc-(\d{4})(\d\d)((?:\/\d\d)+)$/.exec(part);
    if (range) {
      for (let n = Number(range[2]); n <= Number(range[3]); n++) ids.push(`wc-${range[1]}${n}`);
    } else if (slashes) {
      ids.push(`wc-${slashes[1]}${slashes[2]}`);
      for (const s of slashes[3]!.split('/').slice(1)) ids.push(`wc-${slashes[1]}${s}`);
    } else if (/^wc-\d{6}$/.test(part)) ids.push(part);
    else throw new Error(`unreadable model scope "${part}"`);
  }
  return ids;
}

type Spec = Omit<Param, 'default'>;

function parseValueSet(cell: string, previous: string[] | undefined): Spec {
  const int = /^integer (\d+) to (\d+)$/.exec(cell);
  if (int) return { integer: { min: Number(int[1]), max: Number(int[2]) } };
  if (cell === 'boolean') return { boolean: true };
  const plus = /^the previous set plus (.+)$/.exec(cell);
  if (plus) {
    if (!previous) throw new Error('"the previous set" without a previous row');
    return { values: [...previous, ...plus[1]!.split(', ')] };
  }
  return { values: cell.split(', ') };
}

/** A default as written in a cell, typed after the parameter's definition. */
function typedDefault(spec: Spec, raw: string): string | number | boolean {
  if (spec.integer) {
    expect(raw, 'an integer default').toMatch(/^\d+$/);
    return Number(raw);
  }
  if (spec.boolean) {
    expect(['true', 'false'], 'a boolean default').toContain(raw);
    return raw === 'true';
  }
  return raw;
}

/** `name (default), name (default)` -> [name, default] pairs. */
function namedDefaults(cell: string): [string, string][] {
  return cell.split(', ').map((item) => {
    const m = /^(\w+) \(([^()]+)\)$/.exec(item);
    if (!m) throw new Error(`unreadable parameter "${item}"`);
    return [m[1]!, m[2]!];
  });
}

interface ModelRow {
  id: string;
  output: string;
  prompt: string;
  references: string;
  parameters: string;
}

interface Contract {
  raw: string;
  folded: string;
  rows: ModelRow[];
  promptBytes: number;
  uploadMs: { min: number; max: number };
  correction: {
    id: string;
    min: number;
    max: number;
    list: string;
    without: string;
    alsoId: string;
    alsoWithout: string;
  };
  note: { id: string; min: number; max: number };
  details: { id: string; params: Record<string, Param>; complete: boolean };
  valueSets: { name: string; scope: string[] | null; spec: Spec }[];
  bounds: Map<string, Custom>;
  sizeLists: Record<string, { models: string[]; default: string; items: string[] }>;
  neverAccepted: string[];
  referenceCounts: string[];
}

function parseContract(raw: string): Contract {
  const folded = fold(raw);

  const rows = tableRows(raw, '| Model id | Output |').map((c) => {
    expect(c, `model table row ${c[0]}`).toHaveLength(5);
    return { id: c[0]!, output: c[1]!, prompt: c[2]!, references: c[3]!, parameters: c[4]! };
  });

  const promptBytes = Number(
    must(
      /Media prompt \| per model, see the model table \(max (\d+) UTF-8 bytes in all listed cases\)/,
      folded,
      'the prompt byte cap',
    )[1],
  );
  const upload = must(
    /per upload validation \(duration_ms (\d+) to (\d+)\)/,
    folded,
    'the video upload range',
  );

  const corr = must(
    /Correction for (wc-\d+): .*? its reference array accepts (\d+) to (\d+) images \(required\) and its size parameter uses the large size list \(list ([ABC])\); it has no (\w+) parameter\. (wc-\d+) has no (\w+) either\./,
    folded,
    'the correction paragraph',
  );
  const note = must(
    /Note on the table row for (wc-\d+): its reference array holds (\d+) to (\d+) images \(required\), as stated in the correction above; the cell in the table is superseded by that statement\./,
    folded,
    'the note on the wc-100013 row',
  );

  const det = must(/^Single-model details of (wc-\d+): (.+)\.$/m, raw, 'the single-model details');
  const detParams: Record<string, Param> = {};
  let complete = true;
  for (const part of det[2]!.split('; ')) {
    const en = /^(\w+) enum (.+) \(default (.+)\)$/.exec(part);
    const int = /^(\w+) integer (\d+) to (\d+) \(default (.+)\)$/.exec(part);
    const unshown = /^a (\w+) parameter exists but its definition is not shown$/.exec(part);
    if (en) detParams[en[1]!] = { values: en[2]!.split(', '), default: en[3]! };
    else if (int)
      detParams[int[1]!] = { integer: { min: Number(int[2]), max: Number(int[3]) }, default: Number(int[4]) };
    else if (unshown) detParams[unshown[1]!] = { stated: false, default: null };
    else if (part === 'any further parameters are not shown') complete = false;
    else throw new Error(`unreadable single-model detail "${part}"`);
  }

  const valueSets: Contract['valueSets'] = [];
  for (const [head, cell] of tableRows(raw, '| Parameter | Allowed values / bounds |')) {
    const m = must(/^(\w+)(?: \((.+)\))?$/, head!, `a parameter value-set row (${head})`);
    const previous = valueSets.at(-1);
    const spec = parseValueSet(cell!, previous && previous.name === m[1] ? previous.spec.values : undefined);
    valueSets.push({ name: m[1]!, scope: m[2] ? expandScope(m[2]) : null, spec });
  }

  const bounds = new Map<string, Custom>();
  for (const c of tableRows(raw, '| Models | Min pixels |')) {
    const [min_pixels, max_pixels, max_edge, step, max_aspect_ratio] = c.slice(1).map(Number) as number[];
    for (const id of expandScope(c[0]!))
      bounds.set(id, {
        min_pixels: min_pixels!,
        max_pixels: max_pixels!,
        max_edge: max_edge!,
        step: step!,
        max_aspect_ratio: max_aspect_ratio!,
      });
  }

  const sizeLists: Contract['sizeLists'] = {};
  for (const m of raw.matchAll(/^Size list ([A-Z]) \((.+?); default (.+?)\): (.+)\.$/gm))
    sizeLists[m[1]!] = { models: expandScope(m[2]!), default: m[3]!, items: m[4]!.split(', ') };

  const never = must(
    /The following names are never accepted: (.+?)\.(?: |$)/,
    folded,
    'the never-accepted names',
  );
  const counts = must(/Reference count \| per model: (.+?) \|/, folded, 'the reference-count limit');

  return {
    raw,
    folded,
    rows,
    promptBytes,
    uploadMs: { min: Number(upload[1]), max: Number(upload[2]) },
    correction: {
      id: corr[1]!,
      min: Number(corr[2]),
      max: Number(corr[3]),
      list: corr[4]!,
      without: corr[5]!,
      alsoId: corr[6]!,
      alsoWithout: corr[7]!,
    },
    note: { id: note[1]!, min: Number(note[2]), max: Number(note[3]) },
    details: { id: det[1]!, params: detParams, complete },
    valueSets,
    bounds,
    sizeLists,
    neverAccepted: never[1]!.split(', '),
    referenceCounts: counts[1]!.replace(', or ', ', ').split(', '),
  };
}

let parsed: Contract | undefined;
const contract = (): Contract => {
  parsed ??= parseContract(readFileSync(CONTRACT_URL, 'utf8'));
  return parsed;
};
const row = (id: string): ModelRow => {
  const r = contract().rows.find((x) => x.id === id);
  if (!r) throw new Error(`${id} has no row in the contract's model table`);
  return r;
};

// ---------------------------------------------------------------------------------------------------------
// Expected cells, rebuilt from the contract.

function expectedOutput(cell: string): Model['output'] {
  if (cell === 'not stated') return null;
  if (cell === '3D textured GLB model') return 'glb';
  if (cell === 'image' || cell === 'video') return cell;
  throw new Error(`unreadable output "${cell}"`);
}

function expectedPrompt(cell: string): Prompt {
  const bytes = contract().promptBytes;
  const range = /^(\d+) to (\d+)$/.exec(cell);
  // "The prompt is required (min 1 character unless stated) except where noted."
  if (range)
    return {
      stated: true,
      required: true,
      empty_only: false,
      min_chars: Number(range[1]),
      max_chars: Number(range[2]),
      max_utf8_bytes: bytes,
    };
  if (cell.startsWith('must be empty'))
    return {
      stated: true,
      required: !cell.includes('`prompt` itself optional'),
      empty_only: true,
      min_chars: 0,
      max_chars: 0,
      max_utf8_bytes: bytes,
    };
  if (/^parameters and limits for this model are not shown beyond: /.test(cell))
    return {
      stated: false,
      required: null,
      empty_only: null,
      min_chars: null,
      max_chars: null,
      max_utf8_bytes: null,
    };
  throw new Error(`unreadable prompt cell "${cell}"`);
}

const NO_REFS: References = {
  stated: true,
  accepted: [],
  min: 0,
  max: 0,
  required: false,
  first_frame_rule: null,
  video: null,
  no_mixing: null,
};

function expectedReferences(id: string, cell: string): References {
  const fix = CORRECTIONS[id]?.references;
  if (fix) {
    expect(cell, `${id}: the superseded cell`).toBe('1 to 14... see note');
    return { ...NO_REFS, ...fix };
  }
  if (cell === 'none') return NO_REFS;
  if (cell === 'none stated')
    return {
      stated: false,
      accepted: null,
      min: null,
      max: null,
      required: null,
      first_frame_rule: null,
      video: null,
      no_mixing: null,
    };
  const exactly = /^exactly (\d+) image \(required\)$/.exec(cell);
  if (exactly)
    return {
      ...NO_REFS,
      accepted: ['image'],
      min: Number(exactly[1]),
      max: Number(exactly[1]),
      required: true,
    };
  const images = /^(\d+) to (\d+) images \(required\)$/.exec(cell);
  if (images)
    return {
      ...NO_REFS,
      accepted: ['image'],
      min: Number(images[1]),
      max: Number(images[2]),
      required: true,
    };
  const frames =
    /^(\d+) to (\d+) images: first frame required, optional second is last frame; ratio follows the first frame$/.exec(
      cell,
    );
  if (frames)
    return {
      ...NO_REFS,
      accepted: ['image'],
      min: Number(frames[1]),
      max: Number(frames[2]),
      required: true,
      first_frame_rule: {
        first_frame_required: true,
        second_is_last_frame: true,
        aspect_ratio_follows_first_frame: true,
      },
    };
  const mixed =
    /^(\d+) to (\d+) images, or (\d+) verified video of ([\d.]+) to ([\d.]+) s; no mixing(, no audio)?$/.exec(
      cell,
    );
  if (mixed) {
    const up = contract().uploadMs;
    const minMs = Math.round(Number(mixed[4]) * 1000);
    const maxMs = Math.round(Number(mixed[5]) * 1000);
    return {
      stated: true,
      accepted: ['image', 'video'],
      min: Number(mixed[1]),
      max: Number(mixed[2]),
      // "For models that take references, one of the two is required."
      required: true,
      first_frame_rule: null,
      video: {
        count: Number(mixed[3]),
        min_ms: minMs,
        max_ms: maxMs,
        // judging.md: "uploads are validated to 1-30 s, so 1.8-30 s is usable."
        usable_min_ms: Math.max(minMs, up.min),
        usable_max_ms: Math.min(maxMs, up.max),
        no_audio: mixed[6] !== undefined,
      },
      no_mixing: true,
    };
  }
  throw new Error(`unreadable references cell "${cell}"`);
}

/** The parameter names and written defaults a model's row gives (wc-100019: from its prompt cell). */
function rowParameters(r: ModelRow): [string, string][] {
  if (r.parameters === 'none beyond acknowledgement') return [];
  if (r.parameters === 'see next column') {
    const m = must(/not shown beyond: (.+)$/, r.prompt, `${r.id}'s parameters`);
    return namedDefaults(m[1]!);
  }
  return namedDefaults(r.parameters);
}

function expectedParameters(id: string): { params: Record<string, Param>; complete: boolean } {
  const c = contract();
  const named = rowParameters(row(id));
  for (const gone of CORRECTIONS[id]?.without ?? [])
    expect(
      named.map(([n]) => n),
      `${id}: the correction removes ${gone}`,
    ).not.toContain(gone);

  if (id === c.details.id) {
    // The single-model details define every parameter; the row's defaults must agree with them.
    const params = c.details.params;
    for (const [name, def] of named) {
      expect(Object.keys(params), `${id}: ${name} in the details`).toContain(name);
      expect(String(params[name]!.default), `${id}: ${name} default, row vs details`).toBe(def);
    }
    return { params, complete: c.details.complete };
  }

  const params: Record<string, Param> = {};
  for (const [name, def] of named) {
    if (name === 'size') {
      const lists = Object.entries(c.sizeLists).filter(([, l]) => l.models.includes(id));
      expect(lists, `${id}: one size list names it`).toHaveLength(1);
      const [list, entry] = lists[0]!;
      const fixList = CORRECTIONS[id]?.sizeList;
      if (fixList) expect(list, `${id}: the corrected size list`).toBe(fixList);
      expect(entry.default, `${id}: size default, row vs size list`).toBe(def);
      params[name] = { presets: list, custom: c.bounds.get(id) ?? null, default: def };
      continue;
    }
    const sets = c.valueSets.filter((v) => v.name === name && (v.scope === null || v.scope.includes(id)));
    expect(sets, `${id}: exactly one value set for ${name}`).toHaveLength(1);
    const spec = sets[0]!.spec;
    params[name] = { ...spec, default: typedDefault(spec, def) };
  }
  return { params, complete: true };
}

// ---------------------------------------------------------------------------------------------------------

describe.skipIf(!HAVE_CONTRACT)(
  `fixtures/media-models.yaml agrees with the contract${HAVE_CONTRACT ? '' : ' (skipped: ../shared/contract/customer-api.md is not beside the checkout)'}`,
  () => {
    it('holds exactly the 16 models of the model table', () => {
      const ids = contract().rows.map((r) => r.id);
      expect(ids).toHaveLength(16);
      expect(new Set(ids).size).toBe(16);
      expect([...MODEL_IDS].sort()).toEqual([...ids].sort());
    });

    it('the correction and the note still say what CORRECTIONS encodes', () => {
      const { correction, note } = contract();
      const fix = CORRECTIONS[correction.id]!;
      expect(fix.references).toEqual({
        accepted: ['image'],
        min: correction.min,
        max: correction.max,
        required: true,
      });
      expect(fix.sizeList).toBe(correction.list);
      expect(fix.without).toEqual([correction.without]);
      expect(CORRECTIONS[correction.alsoId]!.without).toEqual([correction.alsoWithout]);
      expect(note).toEqual({ id: correction.id, min: correction.min, max: correction.max });
      expect(Object.keys(CORRECTIONS).sort()).toEqual([correction.id, correction.alsoId].sort());
    });

    it('the general sentences the expectations rely on are still in the contract', () => {
      const { folded } = contract();
      expect(folded).toContain(REFERENCES_REQUIRED_SENTENCE);
      expect(folded).toContain(PROMPT_REQUIRED_SENTENCE);
      expect(folded).toContain(
        'Images and video cannot be mixed; video mode takes exactly one verified video.',
      );
    });

    describe.each(MODEL_IDS)('%s', (id) => {
      const model = table.models[id]!;

      it('has exactly the documented keys', () => {
        expect(Object.keys(model).sort()).toEqual(
          ['output', 'parameters', 'parameters_complete', 'prompt', 'readings', 'references'].sort(),
        );
      });

      it('output', () => {
        expect(model.output).toBe(expectedOutput(row(id).output));
      });

      it('prompt limits', () => {
        expect(model.prompt).toStrictEqual(expectedPrompt(row(id).prompt));
      });

      it('references', () => {
        expect(model.references).toStrictEqual(expectedReferences(id, row(id).references));
      });

      it('parameter names, defaults, value sets, bounds and size lists', () => {
        const want = expectedParameters(id);
        expect(Object.keys(model.parameters).sort(), 'parameter names').toEqual(
          Object.keys(want.params).sort(),
        );
        for (const [name, spec] of Object.entries(want.params))
          expect(model.parameters[name], `${id}.parameters.${name}`).toStrictEqual(spec);
        expect(model.parameters_complete).toBe(want.complete);
        expect(Object.keys(model.parameters), 'the acknowledgement is not repeated per model').not.toContain(
          table.acknowledgement,
        );
      });

      it('every enum default is one of its values and every integer default within its bounds', () => {
        for (const [name, p] of Object.entries(model.parameters)) {
          if (p.values) expect(p.values, `${id}.${name}`).toContain(p.default);
          if (p.integer) {
            expect(typeof p.default, `${id}.${name}`).toBe('number');
            expect(p.default as number).toBeGreaterThanOrEqual(p.integer.min);
            expect(p.default as number).toBeLessThanOrEqual(p.integer.max);
          }
          if (p.boolean) expect(typeof p.default, `${id}.${name}`).toBe('boolean');
          if (p.presets) expect(table.size_lists[p.presets], `${id}.${name}`).toContain(p.default);
        }
      });
    });

    it('every scoped value-set row belongs to models whose row lists that parameter', () => {
      for (const v of contract().valueSets) {
        for (const id of v.scope ?? []) {
          const names = rowParameters(row(id)).map(([n]) => n);
          expect(names, `${v.name} for ${id}`).toContain(v.name);
          expect(table.models[id]!.parameters[v.name], `${id}.${v.name}`).toBeDefined();
        }
      }
    });

    it('every bounds row and size list names models that have a size parameter', () => {
      const { bounds, sizeLists } = contract();
      for (const id of bounds.keys())
        expect(table.models[id]!.parameters.size?.custom, id).toStrictEqual(bounds.get(id));
      for (const [list, l] of Object.entries(sizeLists))
        for (const id of l.models) expect(table.models[id]!.parameters.size?.presets, id).toBe(list);
    });

    it('size_lists are the three lists exactly as written', () => {
      const { sizeLists } = contract();
      expect(Object.keys(sizeLists).sort()).toEqual(['A', 'B', 'C']);
      expect(Object.keys(table.size_lists).sort()).toEqual(['A', 'B', 'C']);
      for (const [list, l] of Object.entries(sizeLists)) {
        expect(table.size_lists[list], `list ${list}`).toEqual(l.items);
        expect(new Set(l.items).size, `list ${list} has no duplicates`).toBe(l.items.length);
      }
    });

    it('custom_size_pattern is "digits, then `x` or `*`, then digits"', () => {
      expect(contract().folded).toContain(
        'a custom string matching digits, then `x` or `*`, then digits (width and height)',
      );
      const re = new RegExp(table.custom_size_pattern);
      for (const ok of ['1024x768', '1024*768', '1x1', '0016x9']) expect(re.test(ok), ok).toBe(true);
      for (const bad of [
        '1024X768',
        '1024 x 768',
        'x768',
        '1024x',
        '1024x768x2',
        '1024×768',
        '-1x2',
        'auto_2K',
        '',
      ])
        expect(re.test(bad), bad).toBe(false);
      // Every explicit size in the lists fits the pattern; every named preset does not.
      for (const items of Object.values(table.size_lists))
        for (const s of items) expect(re.test(s), s).toBe(/^\d/.test(s));
    });

    it('every explicit preset lies within its models\u2019 custom bounds', () => {
      for (const [id, m] of Object.entries(table.models)) {
        const size = m.parameters.size;
        if (!size?.custom || !size.presets) continue;
        const b = size.custom;
        for (const s of table.size_lists[size.presets]!) {
          const wh = /^(\d+)[x*](\d+)$/.exec(s);
          if (!wh) continue;
          const w = Number(wh[1]);
          const h = Number(wh[2]);
          const where = `${id} ${s}`;
          expect(w * h, where).toBeGreaterThanOrEqual(b.min_pixels);
          expect(w * h, where).toBeLessThanOrEqual(b.max_pixels);
          expect(Math.max(w, h), where).toBeLessThanOrEqual(b.max_edge);
          expect(w % b.step === 0 && h % b.step === 0, where).toBe(true);
          expect(Math.max(w, h) / Math.min(w, h), where).toBeLessThanOrEqual(b.max_aspect_ratio);
        }
      }
    });

    it('never_accepted_parameters are the seven names', () => {
      const { neverAccepted } = contract();
      expect(neverAccepted).toHaveLength(7);
      expect(table.never_accepted_parameters).toEqual(neverAccepted);
      for (const [id, m] of Object.entries(table.models))
        for (const n of neverAccepted) expect(Object.keys(m.parameters), id).not.toContain(n);
    });

    it('acknowledgement, reference fields and the reference id cap', () => {
      const { folded } = contract();
      const ack = must(/`(\w+)` is required and must be true/, folded, 'the acknowledgement');
      expect(table.acknowledgement).toBe(ack[1]);
      expect(folded).toContain(`(\`${table.acknowledgement}\` = true) in every media job`);
      const refs = must(
        /Reference inputs: `(\w+)` \(or the equivalent `(\w+)`\)/,
        folded,
        'the reference fields',
      );
      expect(table.reference_fields).toEqual([refs[1], refs[2]]);
      const cap = must(/each at most (\d+) UTF-8 bytes/, folded, 'the reference id cap');
      expect(table.reference_id_max_utf8_bytes).toBe(Number(cap[1]));
      expect(folded).toContain(
        `| Media input id | at most ${table.reference_id_max_utf8_bytes} UTF-8 bytes |`,
      );
    });

    it('reference_fields_location follows from "no other top-level fields"', () => {
      // A reading: "Common shape: `{kind?, model, prompt, parameters}`; no other top-level fields." leaves
      // `parameters` as the only place for the reference ids.
      const shape = must(
        /Common shape: `\{([^}]*)\}`; no other top-level fields\./,
        contract().folded,
        'the shape',
      );
      const fields = shape[1]!.split(', ').map((f) => f.replace(/\?$/, ''));
      expect(fields).toContain(table.reference_fields_location);
      for (const f of table.reference_fields) expect(fields).not.toContain(f);
    });

    it('the reference counts are exactly those of the limits table', () => {
      // "Reference count | per model: 1 to 2, 1 to 10, 1 to 14, 1 to 30, or exactly 1"
      const want = contract()
        .referenceCounts.map((s) => {
          const exactly = /^exactly (\d+)$/.exec(s);
          const m = exactly
            ? [exactly[1], exactly[1]]
            : must(/^(\d+) to (\d+)$/, s, 'a reference count').slice(1);
          return `${m[0]}-${m[1]}`;
        })
        .sort();
      const got = new Set<string>();
      for (const m of Object.values(table.models))
        if (m.references.accepted?.length) got.add(`${m.references.min}-${m.references.max}`);
      expect([...got].sort()).toEqual(want);
    });

    it('the general readings quote the contract or judging.md verbatim', () => {
      expect(table.contract).toBe('shared/contract/customer-api.md');
      checkQuotes(table.general_readings, 'general');
    });

    it('every reading of a model quotes its source verbatim', () => {
      for (const [id, m] of Object.entries(table.models)) checkQuotes(m.readings, id);
    });

    it.skipIf(!HAVE_JUDGING)('every model judging.md gives a reading for records one from judging.md', () => {
      const judging = readFileSync(JUDGING_URL, 'utf8');
      const section = must(
        /## Several readings\n([\s\S]*?)\n## /,
        judging,
        'the "Several readings" section',
      )[1]!;
      const named = new Set(section.match(/wc-\d{6}/g) ?? []);
      expect(named.size).toBeGreaterThan(0);
      for (const id of named) {
        expect(MODEL_IDS, id).toContain(id);
        expect(
          table.models[id]!.readings.some((r) => r.source === 'judging.md' && r.quote.includes(id)),
          `${id} has a reading quoting judging.md by name`,
        ).toBe(true);
      }
    });
  },
);

function checkQuotes(readings: Reading[], where: string): void {
  const contractFolded = contract().folded;
  const judging = HAVE_JUDGING ? fold(readFileSync(JUDGING_URL, 'utf8')) : undefined;
  for (const r of readings) {
    expect(Object.keys(r).sort(), where).toEqual(['encoding', 'quote', 'source']);
    expect(r.encoding.length, `${where}: encoding`).toBeGreaterThan(0);
    if (r.source === 'contract') expect(contractFolded, `${where}: ${r.quote}`).toContain(fold(r.quote));
    else {
      expect(r.source, where).toBe('judging.md');
      if (judging !== undefined) expect(judging, `${where}: ${r.quote}`).toContain(fold(r.quote));
    }
  }
}
