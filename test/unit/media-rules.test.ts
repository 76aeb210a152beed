import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codePoints,
  mediaTable,
  parameterArbitrary,
  parameterValid,
  promptArbitrary,
  promptValid,
  sizeArbitrary,
  sizeValid,
  utf8Bytes,
} from '../../src/rules/media.ts';

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
    expect([undefined, '', ' \n\u3000'].map((p) => promptValid(r, p))).toEqual([true, true, true]);
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
});
