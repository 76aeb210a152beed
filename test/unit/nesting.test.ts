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
