import { describe, expect, it } from 'vitest';
import {
  cheapestMegapixels,
  cheapestParameters,
  coveringDesign,
  coveringPlan,
  customSizes,
  namedPresets,
} from '../../src/rules/covering.ts';
import {
  innerSpaced,
  mediaTable,
  parameterValid,
  promptBoundaryValid,
  promptValid,
  sizeValid,
  utf8Bytes,
} from '../../src/rules/media-models.ts';

const table = mediaTable();
const models = Object.entries(table.models);
const PROFILES = ['quick', 'standard', 'thorough'] as const;

describe('the covering design of media acceptance', () => {
  it.each(models)('%s: every job is valid per the table', (_id, m) => {
    for (const profile of PROFILES)
      for (const c of coveringDesign(table, m, profile)) {
        if (c.prompt !== null) expect(promptValid(m.prompt, c.prompt), JSON.stringify(c.prompt)).toBe(true);
        else expect(m.prompt.stated).toBe(false);
        for (const [name, value] of Object.entries(c.parameters)) {
          const rule = m.parameters[name]!;
          const ok = rule.presets ? sizeValid(table, rule, value) : parameterValid(rule, value);
          expect(ok, `${name} ${JSON.stringify(value)}`).toBe(true);
        }
        if (c.references?.kind === 'image') {
          expect(c.references.count).toBeGreaterThanOrEqual(m.references.min ?? 1);
          expect(c.references.count).toBeLessThanOrEqual(m.references.max ?? 1);
        }
        if (c.references?.kind === 'video') expect(c.references.count).toBe(m.references.video?.count);
        if (m.references.required) expect(c.references).not.toBeNull();
        // Every value the job sends is named among what it proves.
        const subjects = new Set(c.proves.map((p) => p.subject));
        for (const name of Object.keys(c.parameters)) expect(subjects.has(name)).toBe(true);
        if (c.prompt !== null) expect(subjects.has('prompt')).toBe(true);
        if (c.references) expect(subjects.has('references')).toBe(true);
      }
  });

  it.each(models)('%s: every valid value appears in some job', (_id, m) => {
    for (const profile of PROFILES) {
      const cases = coveringDesign(table, m, profile);
      const sent = (name: string) => cases.map((c) => c.parameters[name]);
      for (const [name, rule] of Object.entries(m.parameters)) {
        if (rule.stated === false) {
          expect(sent(name).every((v) => v === undefined)).toBe(true);
          continue;
        }
        if (rule.values) expect(new Set(sent(name))).toEqual(new Set(rule.values));
        if (rule.boolean) expect(new Set(sent(name))).toEqual(new Set([true, false]));
        if (rule.integer)
          expect(sent(name)).toEqual(expect.arrayContaining([rule.integer.min, rule.integer.max]));
        if (rule.presets) {
          const list = table.size_lists[rule.presets]!;
          if (profile === 'thorough') expect(sent(name)).toEqual(expect.arrayContaining(list));
          // Otherwise its share of the named presets (every list has two models: half of them or so).
          else {
            const named = namedPresets(table, rule);
            const presets = sent(name).filter((s) => list.includes(s as string));
            expect(named).toEqual(expect.arrayContaining(presets));
            expect(new Set(presets).size).toBeGreaterThanOrEqual(Math.floor(named.length / 2));
          }
          const customs = sent(name).filter((s) => !list.includes(s as string)) as string[];
          const px = customs.map((s) => s.split(/[x*]/).map(Number) as [number, number]);
          const c = rule.custom!;
          expect(px.some(([w, h]) => w * h === c.min_pixels)).toBe(true);
          expect(px.some(([w, h]) => w * h === c.max_pixels)).toBe(true);
          expect(px.some(([w, h]) => Math.max(w, h) / Math.min(w, h) === c.max_aspect_ratio)).toBe(true);
          // Both separators at both pixel bounds.
          for (const bound of [c.min_pixels, c.max_pixels])
            for (const sep of ['x', '*'])
              expect(
                customs.some(
                  (s) =>
                    s.includes(sep) &&
                    s
                      .split(sep)
                      .map(Number)
                      .reduce((a, b) => a * b) === bound,
                ),
                `${sep} at ${bound}`,
              ).toBe(true);
        }
      }
      if (m.prompt.stated && !m.prompt.empty_only) {
        const prompts = cases.map((c) => c.prompt);
        for (const b of promptBoundaryValid(m.prompt)) expect(prompts).toContain(b.value);
        // The minimum, with white space inside where it fits (3 or more code points).
        const min = Math.max(1, m.prompt.min_chars ?? 1);
        expect(prompts).toContain(min >= 3 ? innerSpaced(min) : 'a'.repeat(min));
        const cap = m.prompt.max_utf8_bytes!;
        if ((m.prompt.max_chars ?? 0) * 4 > cap)
          expect(prompts.some((p) => utf8Bytes((p as string).trim()) === cap)).toBe(true);
      }
      if (m.prompt.empty_only)
        expect(new Set(cases.map((c) => c.prompt))).toEqual(new Set([undefined, '', ' \t\n ']));
      if (m.references.stated && m.references.accepted.includes('image')) {
        const counts = cases.filter((c) => c.references?.kind === 'image').map((c) => c.references!.count);
        expect(counts).toEqual(expect.arrayContaining([m.references.min, m.references.max]));
      }
      // A video at each edge of the usable window, at job creation (wc-100016: 1800 and 30000 ms).
      const video = m.references.video;
      if (video)
        expect(cases.map((c) => c.references?.durationMs)).toEqual(
          expect.arrayContaining([video.usable_min_ms, video.usable_max_ms]),
        );
    }
  });

  it.each(models)('%s: as many jobs as its largest value set, the costly values apart', (_id, m) => {
    const cases = coveringDesign(table, m, 'standard');
    const sizes = [...new Set(cases.flatMap((c) => c.proves.map((p) => p.subject)))].map(
      (subject) =>
        new Set(
          cases.flatMap((c) =>
            c.proves.filter((p) => p.subject === subject).map((p) => JSON.stringify(p.value)),
          ),
        ).size,
    );
    expect(cases.length).toBe(Math.max(1, ...sizes));
    // The longest duration, the highest resolution and the audio never meet in one job.
    const costly = (c: (typeof cases)[number]) =>
      [
        m.parameters.duration?.integer && c.parameters.duration === m.parameters.duration.integer.max,
        c.parameters.generate_audio === true,
        ['1080p', '1080P', '4K'].includes(c.parameters.resolution as string),
      ].filter(Boolean).length;
    for (const c of cases) expect(costly(c)).toBeLessThanOrEqual(1);
    // Fewest references unless the count is under test.
    expect(
      cases.filter((c) => c.references?.kind === 'image' && c.references.count === m.references.max).length,
    ).toBeLessThanOrEqual(m.references.max === m.references.min ? cases.length : 1);
  });

  it('sizes the plan per profile: thorough adds every preset', () => {
    const standard = coveringPlan(table, 'standard');
    const thorough = coveringPlan(table, 'thorough');
    expect(standard.total).toBe(standard.models.reduce((n, m) => n + m.jobs, 0));
    expect(Object.values(standard.byOutput).reduce((a, b) => a + b, 0)).toBe(standard.total);
    expect(standard.models.find((m) => m.id === 'wc-100033')!.jobs).toBe(15);
    expect(standard.models.find((m) => m.id === 'wc-100014')!.jobs).toBe(7);
    expect(thorough.models.find((m) => m.id === 'wc-100012')!.jobs).toBeGreaterThanOrEqual(
      table.size_lists.B!.length,
    );
    expect(thorough.total).toBeGreaterThan(standard.total);
    expect(coveringPlan(table, 'quick').total).toBe(standard.total);
  });

  it('sends every named preset of a size list on one of the models that share it', () => {
    const sizes = (id: string, listed?: ReadonlySet<string>) =>
      coveringDesign(table, table.models[id]!, 'standard', listed).map((c) => c.parameters.size);
    for (const [list, ids] of [
      ['A', ['wc-100010', 'wc-100011']],
      ['B', ['wc-100012', 'wc-100013']],
      ['C', ['wc-100040', 'wc-100041']],
    ] as const) {
      const named = namedPresets(table, table.models[ids[0]]!.parameters.size!);
      // The presets only the list makes valid: the named ones, none written WxH or W*H.
      expect(named.length).toBeGreaterThanOrEqual(7);
      for (const p of named) expect(p).toMatch(/^[a-z]/);
      const [a, b] = ids.map((id) => sizes(id).filter((s) => named.includes(s as string)));
      expect(new Set([...a!, ...b!])).toEqual(new Set(named));
      expect(a!.filter((s) => b!.includes(s))).toEqual([]);
      // A model whose partner the catalog does not list sends every named preset itself.
      expect(sizes(ids[1], new Set([ids[1]]))).toEqual(expect.arrayContaining(named));
      expect(table.size_lists[list]).toEqual(expect.arrayContaining(named));
    }
    expect(sizes('wc-100041')).toContain('square_hd');
    expect(sizes('wc-100013')).toContain('auto_3K');
  });

  it('puts the dearest values of two sets on different jobs: a high quality on a small size', () => {
    for (const id of ['wc-100040', 'wc-100041']) {
      const cases = coveringDesign(table, table.models[id]!, 'standard');
      const pixels = (c: (typeof cases)[number]) =>
        (String(c.parameters.size).split(/[x*]/).map(Number) as [number, number]).reduce((a, b) => a * b);
      const big = cases.filter((c) => pixels(c) > 4_000_000);
      expect(big.length).toBeGreaterThan(0);
      for (const c of big) expect(['low', 'medium', 'auto']).toContain(c.parameters.quality);
      for (const q of ['high', 'xhigh', 'max'])
        expect(pixels(cases.find((c) => c.parameters.quality === q)!)).toBeLessThanOrEqual(1_048_576);
    }
  });

  it("gives the megapixels of a model's cheapest image", () => {
    const mp = (id: string) => cheapestMegapixels(table, table.models[id]!);
    expect(mp('wc-100010')).toBe(1);
    expect(mp('wc-100012')).toBeCloseTo(3.52, 2);
    expect(mp('wc-100033')).toBe(0.25);
    expect(mp('wc-100040')).toBe(0.625);
    expect(mp('wc-100014')).toBeUndefined();
  });

  it('gives the cheapest values that differ from the defaults', () => {
    const cheapest = (id: string) => cheapestParameters(table, table.models[id]!);
    expect(cheapest('wc-100014')).toEqual({ generate_audio: false, resolution: '480p' });
    expect(cheapest('wc-100019')).toEqual({ duration: 2, resolution: '720P' });
    expect(cheapest('wc-100040')).toEqual({ quality: 'low', size: '1024x640' });
    expect(cheapest('wc-100010')).toEqual({ size: '2048x512' });
    expect(cheapest('wc-100033')).toEqual({ resolution: '0.5K' });
    expect(cheapest('wc-100017')).toEqual({});
  });

  it.each([
    ['wc-100040', ['1024x640', '1280*512', '2880*2880', '2304x3600', '3840*1280', '1280x3840', '640x1040']],
    ['wc-100010', ['2048x512', '4096*256', '4096*1024', '512x8192', '8192*512', '512x2049']],
  ])('%s: custom sizes at the exact bounds, none a preset of its list', (id, want) => {
    expect(customSizes(table, table.models[id]!.parameters.size!).map((s) => s.value)).toEqual(want);
  });
});
