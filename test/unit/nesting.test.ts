import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayNestDeeper, nestingDepth } from '../../src/http/nesting.ts';

describe('how deep a JSON body nests (src/http/nesting.ts)', () => {
  it('mayNestDeeper never says no to a text that nests deeper than the bound', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 12 }), (value, limit) => {
        const text = JSON.stringify(value);
        if (nestingDepth(value, limit) > limit) expect(mayNestDeeper(text, limit)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('settles a wide, shallow body without walking it, and sends a deep one on to be walked', () => {
    const wide = JSON.stringify({ data: [{ embedding: Array.from({ length: 1536 }, (_, i) => i / 7) }] });
    expect(mayNestDeeper(wide, 512)).toBe(false);
    const deep = `${'['.repeat(600)}${']'.repeat(600)}`;
    expect(mayNestDeeper(deep, 512)).toBe(true);
    expect(nestingDepth(JSON.parse(deep), 512)).toBeGreaterThan(512);
    // Brackets inside strings count too: a bound, never fewer than the value nests.
    expect(mayNestDeeper(JSON.stringify({ s: '{'.repeat(600) }), 512)).toBe(true);
  });
});

describe('nestingDepth', () => {
  /** The depth of a value, walked plainly: the model nestingDepth must agree with up to its bound. */
  const depth = (v: unknown): number =>
    v === null || typeof v !== 'object'
      ? 0
      : 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depth));

  it('is the depth up to the bound, and the bound plus one past it', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 14 }), fc.integer({ min: 0, max: 14 }), (value, limit) => {
        const d = depth(value);
        expect(nestingDepth(value, limit)).toBe(d > limit ? limit + 1 : d);
      }),
      { numRuns: 1000 },
    );
  });

  it('settles a value nested far past the bound within the bound', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nestingDepth(deep, 512)).toBe(513);
    expect(nestingDepth({ a: [{ b: {} }], c: [] }, 512)).toBe(4);
  });
});
