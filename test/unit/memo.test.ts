import { describe, expect, it } from 'vitest';
import { memoize } from '../../src/memo.ts';

describe('memoize', () => {
  it('computes once per key, undefined results included, and drops the table when it is full', () => {
    const calls: string[] = [];
    const f = memoize((k: string) => {
      calls.push(k);
      return k === 'none' ? undefined : k.length;
    }, 2);
    expect([f('a'), f('a'), f('none'), f('none')]).toEqual([1, 1, undefined, undefined]);
    expect(calls).toEqual(['a', 'none']);
    f('bcd'); // the table held 2: dropped, then 'bcd' kept
    f('a');
    expect(calls).toEqual(['a', 'none', 'bcd', 'a']);
  });
});
