import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../../src/runtime/check.ts';
import { checkProperty } from '../../src/runtime/property.ts';

function fakeContext() {
  const violations: Array<{ id: string; message: string }> = [];
  const t = {
    run: { propertyRuns: 50, seed: 7 },
    target: { embedded: true, timeouts: { testMs: 60_000 } },
    violate: (id: string, message: string) => violations.push({ id, message }),
  } as unknown as CheckContext;
  return { t, violations };
}

describe('checkProperty', () => {
  it('reports a wrong verdict as a counterexample of the property id', async () => {
    const { t, violations } = fakeContext();
    await checkProperty(t, {
      id: 'MJOB-006',
      arbitrary: fc.integer({ min: 0, max: 100 }),
      run: async (n) => (n > 10 ? `accepted ${n}` : undefined),
    });
    expect(violations.map((v) => v.id)).toEqual(['MJOB-006']);
    expect(violations[0]!.message).toMatch(/counterexample 11/);
  });

  it('raises an error thrown while sending a case (a stopped run, a transport failure) instead of calling it a counterexample, and sends nothing more', async () => {
    const { t, violations } = fakeContext();
    const stop = new Error('interrupted by SIGINT');
    let calls = 0;
    await expect(
      checkProperty(t, {
        id: 'MJOB-006',
        arbitrary: fc.integer(),
        run: async () => {
          calls += 1;
          if (calls === 3) throw stop;
          return undefined;
        },
      }),
    ).rejects.toBe(stop);
    expect(calls).toBe(3);
    expect(violations).toEqual([]);
  });
});
