/**
 * npm test's sample of the mutation matrix (tools/mutation/matrix.ts plan, MATRIX_STRIDE): the same rows
 * for one commit, every row over commits, the reference rows always, an implied fault's two rows together.
 */
import { describe, expect, it } from 'vitest';
import { MATRIX_STRIDE, plan, strideSample } from '../../tools/mutation/matrix.ts';

const key = (j: { kind: string; name: string; strict: boolean }) => `${j.kind} ${j.name} ${j.strict}`;

describe("npm test's sample of the matrix", () => {
  it('strideSample: every k-th from an offset by the commit; the k offsets split the list', () => {
    const names = Array.from({ length: 11 }, (_, i) => `f${i}`);
    expect(strideSample(names, 'a3f0c1d2e4', 3)).toEqual(strideSample(names, 'a3f0c1d2e4', 3));
    const parts = [0, 1, 2].map((o) => strideSample(names, o.toString(16).padStart(8, '0'), 3));
    expect(parts.flat().sort()).toEqual([...names].sort());
    expect(parts[0]).toEqual(['f0', 'f3', 'f6', 'f9']);
    expect(strideSample(names, 'zzzz', 3)).toEqual(parts[0]);
  });

  it('keeps the reference rows, one in MATRIX_STRIDE of the others, and every row over the commits', () => {
    const all = plan(undefined, 'sample', '00000000', 'all');
    const union = new Set<string>();
    for (let o = 0; o < MATRIX_STRIDE; o++) {
      const sample = plan(undefined, 'sample', o.toString(16).padStart(8, '0'), 'sample');
      expect(sample.filter((j) => j.kind === 'reference').map(key)).toEqual([
        'reference reference false',
        'reference reference true',
      ]);
      const written = (jobs: typeof all) =>
        jobs.filter((j) => j.kind !== 'reference' && !j.name.startsWith('place:'));
      expect(written(sample).length).toBeLessThan(written(all).length / MATRIX_STRIDE + 10);
      // An implied fault's strict row comes with its plain row (run or read off it).
      for (const j of sample.filter((j) => j.kind === 'fault' && j.strict))
        if (all.some((a) => a.name === j.name && !a.strict))
          expect(
            sample.some((s) => s.name === j.name && !s.strict),
            j.name,
          ).toBe(true);
      for (const j of written(sample)) union.add(key(j));
    }
    const expected = all.filter((j) => j.kind !== 'reference' && !j.name.startsWith('place:')).map(key);
    expect([...union].sort()).toEqual([...new Set(expected)].sort());
  });

  it('--only names any row, sampled out or not', () => {
    const names = plan(undefined, 'sample', '00000000', 'all').map((j) => j.name);
    const out = names.find(
      (n) => !plan(undefined, 'sample', '00000000', 'sample').some((j) => j.name === n),
    )!;
    expect(plan([out], 'sample', '00000000', 'sample').map((j) => j.name)).toContain(out);
  });
});
