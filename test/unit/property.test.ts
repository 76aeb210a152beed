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
    isLimit: (status: number | undefined) => status === 429,
    skip: (reason: string) => {
      throw new Error(`skipped: ${reason}`);
    },
    lastExchange: undefined as { status: number } | undefined,
    limitedCases: [] as string[],
  } as unknown as CheckContext & { lastExchange: { status: number } | undefined };
  return { t, violations };
}

describe('checkProperty', () => {
  it('runs its distinguishing examples on every seed: a fault at one value is caught whatever the draw', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { t, violations } = fakeContext();
      (t.run as { seed: number }).seed = seed;
      await checkProperty(t, {
        id: 'CHAT-005',
        arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }),
        examples: [2_000_001],
        run: async (n) => (n === 2_000_001 ? `accepted ${n}` : undefined),
      });
      expect(
        violations.map((v) => v.id),
        `seed ${seed}`,
      ).toEqual(['CHAT-005']);
    }
  });

  it('reports a wrong verdict as a counterexample of the property id', async () => {
    const { t, violations } = fakeContext();
    await checkProperty(t, {
      id: 'MJOB-006',
      arbitrary: fc.integer({ min: 0, max: 100 }),
      examples: [],
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
        examples: [],
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

  it('judges no case answered 429, valid or not: a 429 is a limit, not a refusal (too few judged: not run)', async () => {
    const { t, violations } = fakeContext();
    let calls = 0;
    await expect(
      checkProperty(t, {
        id: 'PAY-006',
        arbitrary: fc.integer(),
        examples: [],
        // Every case is an invalid one the target "refused" with 429: no verdict at all.
        run: async () => {
          calls += 1;
          t.lastExchange = { status: 429 } as never;
          return undefined;
        },
      }),
    ).rejects.toThrow(/skipped: property PAY-006: the target answered 429/);
    expect(calls).toBeGreaterThan(50);
    expect(violations).toEqual([]);
  });

  it('owns the 429s of its cases: a case the verdict left not judged does not also make the test not run', async () => {
    const { t, violations } = fakeContext();
    t.limitedCases.push('a case before the property');
    let calls = 0;
    await checkProperty(t, {
      id: 'PAY-006',
      arbitrary: fc.integer(),
      examples: [],
      run: async () => {
        calls += 1;
        const limited = calls % 5 === 0;
        t.lastExchange = { status: limited ? 429 : 400 } as never;
        // What CheckContext.verdict does with a 429: the case is recorded as not judged.
        if (limited) t.limitedCases.push(`case ${calls}`);
        return undefined;
      },
    });
    expect(calls).toBeGreaterThan(50);
    expect(violations).toEqual([]);
    expect(t.limitedCases).toEqual(['a case before the property']);
  });
});
