import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidAmount, invalidCategory, invalidText, TICKET_CATEGORIES } from '../../src/rules/accounts.ts';

describe('generated ticket and order values are invalid by the contract', () => {
  it('text is over its limit in code points or broken across lines', () => {
    fc.assert(
      fc.property(invalidText(120, true), ({ value }) => [...value].length > 120 || /[\r\n]/.test(value)),
    );
    fc.assert(fc.property(invalidText(2000, false), ({ value }) => [...value].length > 2000));
  });

  it('categories are never one of the four', () => {
    fc.assert(fc.property(invalidCategory(), (c) => !TICKET_CATEGORIES.includes(c as string)));
  });

  it('amounts are never a string with at most two decimals up to 100000', () => {
    fc.assert(
      fc.property(
        invalidAmount(),
        (a) => typeof a !== 'string' || !/^\d+(\.\d{1,2})?$/.test(a) || Number(a) > 100000,
      ),
      { numRuns: 2000 },
    );
    expect(fc.sample(invalidAmount(), 200).some((a) => typeof a === 'string' && /\.\d{3,}$/.test(a))).toBe(
      true,
    );
  });
});
