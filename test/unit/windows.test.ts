import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowTable } from '../../src/http/windows.ts';

describe('WindowTable', () => {
  it('holds what a map of the windows holds: the first value of each, through its growth', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', '/', '%', 'é', '\u{1F600}'),
      maxLength: 60,
    });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 80 }), fc.array(text, { maxLength: 20 }), (added, probes) => {
        const exact = new WindowTable(5, true);
        const anchors = new WindowTable(5, false);
        const model = new Map<string, number>();
        // Windows enough that the table doubles while the generated ones are added (at 768 of 1,024).
        const filler = Array.from({ length: 760 }, (_, i) => `f${i.toString().padStart(4, '0')}`);
        [...filler, ...added].forEach((s, value) => {
          for (let i = 0; i + 5 <= s.length; i++) {
            exact.add(s, i, value);
            anchors.add(s, i);
            if (!model.has(s.slice(i, i + 5))) model.set(s.slice(i, i + 5), value);
          }
        });
        expect(exact.size).toBe(model.size);
        expect(anchors.size).toBe(model.size);
        for (const s of [...filler.slice(0, 20), ...added, ...probes])
          for (let i = 0; i + 5 <= s.length; i++) {
            const w = s.slice(i, i + 5);
            // A window is found where it is, inside a longer text, as where it stands alone.
            expect(exact.get(`xx${s}`, i + 2), w).toBe(model.get(w) ?? -1);
            expect(exact.has(s, i), w).toBe(model.has(w));
            expect(anchors.has(s, i), w).toBe(model.has(w));
          }
      }),
      { numRuns: 200 },
    );
  });

  it('tells apart a million windows held from a million that are not, with no collision', () => {
    // Enough windows to double the table many times; 64-bit hashes: no stranger may be taken for one.
    const table = new WindowTable(12, true);
    const held = Array.from({ length: 1_000_000 }, (_, i) => `k${i.toString(36).padStart(11, '0')}`);
    for (const [i, w] of held.entries()) table.add(w, 0, i);
    expect(table.size).toBe(held.length);
    held.forEach((w, i) => {
      if (table.get(w, 0) !== i) throw new Error(`${w} lost its value`);
    });
    for (let i = 0; i < 1_000_000; i++)
      if (table.has(`s${i.toString(36).padStart(11, '0')}`, 0)) throw new Error(`stranger ${i} found`);
  });
});
