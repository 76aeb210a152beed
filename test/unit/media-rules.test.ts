import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  catalogModel,
  catalogParameterCases,
  codePoints,
  mediaTable,
  neverAcceptedValues,
  parameterArbitrary,
  parameterCases,
  parameterValid,
  promptArbitrary,
  promptValid,
  siblingValues,
  sizeArbitrary,
  sizeValid,
  utf8Bytes,
  utf8CapBinds,
} from '../../src/rules/media-models.ts';

const table = mediaTable();
const model = (id: string) => table.models[id]!;

describe('prompt verdicts', () => {
  it('counts code points of the trimmed prompt and caps its UTF-8 bytes', () => {
    const r = model('wc-100031').prompt;
    expect(promptValid(r, 'ab')).toBe(false);
    expect(promptValid(r, '  abc  ')).toBe(true);
    expect(promptValid(r, '😀😀😀')).toBe(true);
    expect(promptValid(r, 'a'.repeat(4000))).toBe(true);
    expect(promptValid(r, 'a'.repeat(4001))).toBe(false);
    expect(promptValid(r, '漢'.repeat(1333))).toBe(true);
    expect(promptValid(r, '漢'.repeat(1334))).toBe(false);
    expect(promptValid(r, undefined)).toBe(false);
    expect(promptValid(model('wc-100040').prompt, 'a')).toBe(false);
    expect(promptValid(model('wc-100017').prompt, 'a'.repeat(601))).toBe(false);
  });

  it('treats absent, empty and white space as the empty prompt of wc-100018', () => {
    const r = model('wc-100018').prompt;
    expect([undefined, '', ' \n\t'].map((p) => promptValid(r, p))).toEqual([true, true, true]);
    // Whether U+3000 is trimmed is not stated: a verdict that depends on it is no verdict.
    expect(promptValid(r, ' \n\u3000')).toBeUndefined();
  });

  it('judges no prompt whose verdict depends on whether Unicode white space is trimmed', () => {
    const r = model('wc-100031').prompt;
    expect(promptValid(r, 'ab\u3000')).toBeUndefined();
    expect(promptValid(r, '\u00a0abc\u00a0')).toBe(true);
    expect(promptValid(r, ` \u3000${'a'.repeat(4000)}`)).toBeUndefined();
    expect(promptValid(r, `\t${'a'.repeat(4000)}\n`)).toBe(true);
    expect(promptValid(r, `\u3000${'a'.repeat(4001)}`)).toBe(false);
    expect(promptValid(r, 'x')).toBe(false);
  });

  it('never judges a prompt the contract does not bound (wc-100019)', () => {
    expect(promptValid(model('wc-100019').prompt, 'x')).toBeUndefined();
  });

  it('generates prompts whose verdict agrees with an independent count (property)', () => {
    fc.assert(
      fc.property(promptArbitrary(model('wc-100040').prompt), (c) => {
        if (c.value === undefined) return c.valid === false;
        const t = c.value.trim();
        return c.valid === (codePoints(t) >= 2 && codePoints(t) <= 2000 && utf8Bytes(t) <= 4000);
      }),
    );
  });

  it('an invalid generated prompt carries the bound it breaks: the byte cap alone, or the count (property)', () => {
    const rule = model('wc-100040').prompt;
    expect(utf8CapBinds(rule)).toBe(true);
    const seen = new Set<string | undefined>();
    fc.assert(
      fc.property(promptArbitrary(rule), (c) => {
        seen.add(c.breaks);
        if (c.valid) return c.breaks === undefined;
        if (c.value === undefined) return c.breaks === 'characters';
        // The count kept whichever white space is trimmed (Unicode or ASCII only: judging.md).
        const trims = [c.value.trim(), c.value.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '')];
        const countKept = trims.every((t) => codePoints(t) >= 2 && codePoints(t) <= 2000);
        return c.breaks === (countKept ? 'utf8_bytes' : 'characters');
      }),
      { numRuns: 2000 },
    );
    expect([...seen].sort()).toEqual(['characters', 'utf8_bytes', undefined]);
  });

  it('the byte cap binds only where a count within bounds can exceed it (4 bytes a code point)', () => {
    const rule = model('wc-100040').prompt;
    expect(utf8CapBinds({ ...rule, max_chars: 1000, max_utf8_bytes: 4000 })).toBe(false);
    expect(utf8CapBinds({ ...rule, max_chars: 1001, max_utf8_bytes: 4000 })).toBe(true);
    expect(utf8CapBinds({ ...rule, max_utf8_bytes: null })).toBe(false);
  });
});

describe('size verdicts', () => {
  it('accepts the presets of the model list and custom sizes within its bounds', () => {
    const a = model('wc-100010').parameters.size!;
    expect(sizeValid(table, a, 'auto_2K')).toBe(true);
    expect(sizeValid(table, a, '1024*1024')).toBe(true);
    expect(sizeValid(table, a, '1024x1024')).toBe(true);
    expect(sizeValid(table, a, '1023x1024')).toBe(false);
    expect(sizeValid(table, a, '2049x2048')).toBe(false);
    expect(sizeValid(table, a, 'auto_3K')).toBe(false);
    expect(sizeValid(table, a, '4096x256')).toBe(true);
    expect(sizeValid(table, a, '4112x255')).toBe(false);
    const c = model('wc-100040').parameters.size!;
    expect(sizeValid(table, c, '1040x1040')).toBe(true);
    expect(sizeValid(table, c, '1041x1040')).toBe(false);
    expect(sizeValid(table, c, '3840x1280')).toBe(true);
    expect(sizeValid(table, c, '3856x1280')).toBe(false);
    expect(sizeValid(table, c, '2400x784')).toBe(false);
  });

  it('generates both verdicts for every model with a size', () => {
    for (const [id, m] of Object.entries(table.models)) {
      if (!m.parameters.size) continue;
      const seen = new Set(fc.sample(sizeArbitrary(table, m.parameters.size), 300).map((c) => c.valid));
      expect([...seen].sort(), id).toEqual([false, true]);
    }
  });
});

describe('parameter verdicts', () => {
  it('judges enums, integer ranges and booleans exactly', () => {
    const p = model('wc-100016').parameters;
    expect(parameterValid(p.duration!, 4)).toBe(true);
    expect(parameterValid(p.duration!, 31)).toBe(false);
    expect(parameterValid(p.duration!, 4.5)).toBe(false);
    expect(parameterValid(p.resolution!, '1080p')).toBe(true);
    expect(parameterValid(model('wc-100019').parameters.resolution!, '1080p')).toBe(false);
    expect(parameterValid(p.generate_audio!, 'true')).toBe(false);
    expect(parameterValid(model('wc-100019').parameters.seed!, 1)).toBeUndefined();
    expect(new Set(fc.sample(parameterArbitrary(p.seed!), 200).map((c) => c.valid)).size).toBe(2);
  });

  it("refuses a sibling model's values of the same parameter name", () => {
    const refused = (id: string, name: string) =>
      parameterCases(model(id).parameters[name]!, siblingValues(table, name))
        .filter((c) => !c.valid)
        .map((c) => c.value);
    expect(refused('wc-100010', 'output_format')).toContain('webp');
    expect(refused('wc-100031', 'aspect_ratio')).toEqual(
      expect.arrayContaining(['4:1', '1:4', '8:1', '1:8']),
    );
    expect(refused('wc-100014', 'aspect_ratio')).toEqual(
      expect.arrayContaining(['3:2', '5:4', '4:5', '2:3']),
    );
    expect(refused('wc-100019', 'aspect_ratio')).toEqual(expect.arrayContaining(['auto', '21:9']));
    expect(refused('wc-100019', 'resolution')).toContain('480p');
    expect(refused('wc-100032', 'resolution')).toContain('0.5K');
    expect(refused('wc-100015', 'resolution')).toContain('1K');
    expect(refused('wc-100014', 'duration')).toContain(2);
    expect(refused('wc-100019', 'duration')).toContain(30);
    // A sibling's value the model's own set has stays valid.
    expect(refused('wc-100033', 'aspect_ratio')).not.toContain('8:1');
    expect(siblingValues(table, 'size')).toEqual([]);
    expect(siblingValues(table, 'seed')).toEqual([0, 2147483647]);
  });
});

describe('never-accepted names', () => {
  it('sends each name with an empty array and with a value a client would send under it', () => {
    for (const name of table.never_accepted_parameters) {
      const [empty, realistic] = neverAcceptedValues(name);
      expect(empty).toEqual([]);
      expect(realistic === undefined || (Array.isArray(realistic) && realistic.length === 0)).toBe(false);
    }
    expect(neverAcceptedValues('image_urls')[1]).toEqual(['https://example.com/reference.png']);
    expect(neverAcceptedValues('video_urls')[1]).toEqual(['https://example.com/reference.mp4']);
    expect(neverAcceptedValues('resolved_input_video_duration_ms')[1]).toBe(5000);
    expect(neverAcceptedValues('resolved_reference_kind')[1]).toBe('image');
  });
});

describe('rules read from a catalog entry (models the contract does not document)', () => {
  const entry = {
    id: 'x-model',
    kind: 'image_generation',
    prompt_contract: {
      empty_only: false,
      minimum_characters: 2,
      maximum_characters: 30,
      maximum_utf8_bytes: 60,
    },
    parameters: {
      reference: { accepted: ['image'], minimum: 1, maximum: 3 },
      provider_processing_acknowledged: { options: [{ value: true }] },
      input_asset_ids: {},
      steps: { minimum: 10, maximum: 50, step: 5, default: 20 },
      level: { minimum: 1, maximum: 9, allowed_values: [1, 3, 9], default: 3 },
      style: { options: [{ value: 'line' }, { value: 'ink' }], default: 'line' },
      size: { options: [{ value: '1024x1024' }, { value: '512x512' }], default: '1024x1024' },
      hd: { options: [{ value: true }, { value: false }], default: false },
      opaque: { description: 'no bounds given' },
    },
  };
  const m = catalogModel(entry, table);

  it('reads the prompt contract, references and output kind', () => {
    expect(m.output).toBe('image');
    expect(m.prompt).toMatchObject({
      stated: true,
      required: true,
      min_chars: 2,
      max_chars: 30,
      max_utf8_bytes: 60,
    });
    expect(promptValid(m.prompt, 'a')).toBe(false);
    expect(promptValid(m.prompt, ' ab ')).toBe(true);
    expect(promptValid(m.prompt, '漢'.repeat(20))).toBe(true);
    expect(promptValid(m.prompt, '漢'.repeat(21))).toBe(false);
    expect(m.references).toMatchObject({ stated: true, accepted: ['image'], min: 1, max: 3, required: true });
    expect(Object.keys(m.parameters).sort()).toEqual(['hd', 'level', 'opaque', 'size', 'steps', 'style']);
  });

  it('honours an integer step and allowed_values', () => {
    const steps = m.parameters.steps!;
    expect([10, 15, 50].map((v) => parameterValid(steps, v))).toEqual([true, true, true]);
    expect([9, 12, 51, 55, '10', 10.5].map((v) => parameterValid(steps, v))).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    const level = m.parameters.level!;
    expect([1, 3, 9].every((v) => parameterValid(level, v))).toBe(true);
    expect([2, 4, 0, 10].some((v) => parameterValid(level, v))).toBe(false);
    const cases = catalogParameterCases(steps);
    expect(cases.filter((c) => c.valid).map((c) => c.value)).toEqual(
      expect.arrayContaining([10, 15, 45, 50]),
    );
    expect(cases.filter((c) => !c.valid).map((c) => c.value)).toEqual(expect.arrayContaining([9, 14, 51]));
  });

  it('never judges a size-shaped value invalid where options look like sizes (a custom size may be allowed)', () => {
    const size = m.parameters.size!;
    expect(size.custom_sizes_possible).toBe(true);
    const invalid = catalogParameterCases(size).filter((c) => !c.valid);
    expect(invalid.map((c) => c.value)).toEqual([null, 'not-a-value']);
    const style = catalogParameterCases(m.parameters.style!).filter((c) => !c.valid);
    expect(style.map((c) => c.value)).toContain('LINE');
  });

  it('reads boolean options as a boolean and leaves a parameter without bounds unjudged', () => {
    expect(m.parameters.hd).toMatchObject({ boolean: true });
    expect(m.parameters.opaque?.stated).toBe(false);
    expect(parameterValid(m.parameters.opaque!, 'anything')).toBeUndefined();
  });

  it('leaves unknown bounds unknown: an entry without a prompt contract states no prompt rule', () => {
    const bare = catalogModel({ id: 'y', kind: 'video_generation' }, table);
    expect(bare.output).toBe('video');
    expect(bare.prompt.stated).toBe(false);
    expect(bare.references.stated).toBe(false);
    expect(promptValid(bare.prompt, '')).toBeUndefined();
  });
});

describe('codePoints', () => {
  it('counts what [...s].length counts, lone and paired surrogates included', () => {
    const units = fc.array(
      fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0x61)),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(units, (us) => {
        const s = String.fromCharCode(...us);
        expect(codePoints(s)).toBe([...s].length);
      }),
      { numRuns: 2000 },
    );
    expect(codePoints('a😀b')).toBe(3);
  });
});
