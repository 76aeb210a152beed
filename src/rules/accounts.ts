/**
 * Ticket and payment-order rules of the contract as data, with arbitraries of invalid values only:
 * a valid ticket or order cannot be deleted, so generated cases never create one on a conformant target.
 * Ticket: category enum; subject max 120 characters, single line; message max 2000; preferred_contact
 * max 160, single line. Order: method alipay | wechat_pay; amount_cny a string with at most two decimals,
 * at most 100000; note max 120 characters, single line.
 */
import fc from 'fast-check';

export const TICKET_CATEGORIES = ['enterprise_onboarding', 'billing', 'api_access', 'technical'];
export const PAYMENT_METHODS = ['alipay', 'wechat_pay'];
export const AMOUNT_MAX = 100000;

const unit = fc.constantFrom('a', '票', '😀', 'é');
const LINE_BREAKS = ['\n', '\r', '\r\n'];

/** A string of exactly n code points of one unit. */
const ofLength = (n: number) => unit.map((u) => u.repeat(n));

/** Over the limit (in code points), or within it but broken across lines when single-line is required. */
export function invalidText(max: number, singleLine: boolean): fc.Arbitrary<{ value: string; note: string }> {
  const tooLong = fc
    .integer({ min: max + 1, max: max + 40 })
    .chain((n) => ofLength(n).map((value) => ({ value, note: `${n} code points` })));
  if (!singleLine) return tooLong;
  const broken = fc
    .record({
      n: fc.integer({ min: 2, max: Math.min(max, 60) }),
      at: fc.nat(),
      br: fc.constantFrom(...LINE_BREAKS),
      u: unit,
    })
    .map(({ n, at, br, u }) => {
      const s = u.repeat(n - br.length);
      const i = 1 + (at % (s.length - 1 || 1));
      return { value: s.slice(0, i) + br + s.slice(i), note: `a ${JSON.stringify(br)} inside` };
    });
  return fc.oneof(tooLong, broken);
}

/** Categories that are not one of the four. */
export function invalidCategory(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !TICKET_CATEGORIES.includes(s)),
    fc.constantFrom(...TICKET_CATEGORIES.map((c) => c.toUpperCase()), null, 3),
  );
}

/** amount_cny values the contract refuses whatever the configured minimum: too many decimals, above the maximum, malformed. */
export function invalidAmount(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc
      .record({ int: fc.integer({ min: 1, max: 99999 }), frac: fc.integer({ min: 3, max: 8 }) })
      .map(({ int, frac }) => `${int}.${'5'.repeat(frac)}`),
    fc
      .integer({ min: 1, max: 999 })
      .map((cents) => `${AMOUNT_MAX}.${String(cents).padStart(2, '0').slice(0, 2)}`)
      .filter((s) => s !== `${AMOUNT_MAX}.00`),
    fc.integer({ min: AMOUNT_MAX + 1, max: 10 * AMOUNT_MAX }).map(String),
    fc.constantFrom('abc', '', '-1', '1.2.3'),
    fc.integer({ min: 1, max: 1000 }),
  );
}

/** invalidText's distinguishing cases: one code point over the limit, and a line break inside. */
export function invalidTextExamples(
  max: number,
  singleLine: boolean,
): Array<{ value: string; note: string }> {
  const over = { value: 'a'.repeat(max + 1), note: `${max + 1} code points` };
  return singleLine ? [over, { value: 'a\nb', note: 'a "\\n" inside' }] : [over];
}

/** Categories told apart from the four only by case or by one character. */
export const invalidCategoryExamples = (): unknown[] => ['BILLING', 'billing ', 'technica'];

/** amount_cny's distinguishing cases: three decimals, a cent above the maximum, a number, a negative. */
export const invalidAmountExamples = (): unknown[] => [
  '10.555',
  `${AMOUNT_MAX}.01`,
  String(AMOUNT_MAX + 1),
  10,
  '-1',
];
