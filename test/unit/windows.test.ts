import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowFilter, WindowTable } from '../../src/http/windows.ts';

const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '/', '%', 'é', '\u{1F600}'), maxLength: 60 });
/** Windows enough that a table doubles while generated ones are added (at 768 of 1,024 slots). */
const filler = Array.from({ length: 760 }, (_, i) => `f${i.toString().padStart(4, '0')}`);

describe('WindowTable', () => {
  it('holds what a map of the windows holds: the first value of each, through its growth', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 80 }), fc.array(text, { maxLength: 20 }), (added, probes) => {
        const table = new WindowTable(5);
        const model = new Map<string, number>();
        [...filler, ...added].forEach((s, n) => {
          for (let i = 0; i + 5 <= s.length; i++) {
            table.add(s, i, n % 256);
            if (!model.has(s.slice(i, i + 5))) model.set(s.slice(i, i + 5), n % 256);
          }
        });
        expect(table.size).toBe(model.size);
        for (const s of [...filler.slice(0, 20), ...added, ...probes])
          for (let i = 0; i + 5 <= s.length; i++) {
            const w = s.slice(i, i + 5);
            // A window is found where it is, inside a longer text, as where it stands alone.
            expect(table.get(`xx${s}`, i + 2), w).toBe(model.get(w) ?? -1);
            expect(table.has(s, i), w).toBe(model.has(w));
          }
      }),
      { numRuns: 200 },
    );
  });

  it('tells apart a million windows held from a million that are not, with no collision', () => {
    // Random windows (a hash that keeps fewer than 56 bits takes about 250 of these strangers for held
    // ones at 32 bits; structured ones, counters, may never collide), enough to double the table often.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let state = 0x9e3779b9;
    const random12 = () => {
      let w = '';
      for (let i = 0; i < 12; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        w += alphabet[(state >>> 0) & 63];
      }
      return w;
    };
    const table = new WindowTable(12);
    const held = Array.from({ length: 1_000_000 }, random12);
    for (const [i, w] of held.entries()) table.add(w, 0, i % 256);
    expect(table.size).toBe(held.length);
    for (const [i, w] of held.entries())
      if (table.get(w, 0) !== i % 256) throw new Error(`${w} lost its value`);
    let found = 0;
    for (let i = 0; i < 1_000_000; i++) if (table.has(random12(), 0)) found++;
    expect(found).toBe(0);
  });

  it('shares its memory with a table taken over, and each side copies it before it writes', () => {
    const first = new WindowTable(5);
    first.add('held-', 0, 7);
    const shared = first.share();
    expect(shared.words.buffer).toBeInstanceOf(SharedArrayBuffer);
    const taken = WindowTable.from(structuredClone(shared));
    expect(taken.get('held-', 0)).toBe(7);
    first.add('later', 0, 1);
    taken.add('other', 0, 2);
    expect([first.has('later', 0), first.has('other', 0)]).toEqual([true, false]);
    expect([taken.has('later', 0), taken.has('other', 0)]).toEqual([false, true]);
    // The shared memory is as it was: a third table taken from it holds neither.
    const third = WindowTable.from(shared);
    expect([third.has('held-', 0), third.has('later', 0), third.has('other', 0)]).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe('WindowFilter', () => {
  it('passes every window added, and about one stranger in 70 while it holds its capacity', () => {
    const capacity = 100_000;
    const filter = new WindowFilter(7, capacity);
    for (let i = 0; i < capacity; i++) filter.add(`a${i.toString(36).padStart(6, '0')}`, 0);
    expect(filter.fits(0)).toBe(true);
    for (let i = 0; i < capacity; i++)
      if (!filter.has(`a${i.toString(36).padStart(6, '0')}`, 0)) throw new Error(`window ${i} not passed`);
    let passed = 0;
    for (let i = 0; i < capacity; i++) if (filter.has(`b${i.toString(36).padStart(6, '0')}`, 0)) passed++;
    // 2 bits of 16 a window: (1 - e^(-1/8))^2 = 1.4 %.
    expect(passed / capacity).toBeLessThan(0.02);
    expect(passed).toBeGreaterThan(0);
    expect(filter.fits(capacity)).toBe(false);
  });

  it('shares its memory with a filter taken over, and each side copies it before it writes', () => {
    const first = new WindowFilter(5);
    first.add('held-', 0);
    const shared = first.share();
    expect(shared.words.buffer).toBeInstanceOf(SharedArrayBuffer);
    const taken = WindowFilter.from(structuredClone(shared));
    first.add('later', 0);
    taken.add('other', 0);
    expect([first.has('held-', 0), first.has('later', 0), first.has('other', 0)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([taken.has('held-', 0), taken.has('later', 0), taken.has('other', 0)]).toEqual([
      true,
      false,
      true,
    ]);
  });
});
