/**
 * The chat and embedding request rules of the contract as data, and fast-check arbitraries whose
 * expected verdict is computed from these rules (never read back from a target).
 * ChatCompletionRequest: temperature 0 to 2, top_p 0 to 1, max_tokens integer >= 0, roles.
 */
import fc from 'fast-check';

export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant'] as const;
export const TEMPERATURE = { min: 0, max: 2 } as const;
export const TOP_P = { min: 0, max: 1 } as const;
export const EMBEDDING_DIMENSIONS = 1024;

export interface GeneratedCase<T = unknown> {
  value: T;
  valid: boolean;
}

/**
 * A number parameter with an inclusive range: values inside, around and far outside it, and wrong
 * types. The verdict is computed from the value as it travels (JSON has no -0: it is sent as 0), never
 * from the branch that generated it.
 */
export function rangeParameter(min: number, max: number): fc.Arbitrary<GeneratedCase> {
  const numbers = fc.oneof(
    fc.constantFrom(min, max, (min + max) / 2, min - 0.01, max + 0.01, max + 0.5, -1, max * 10),
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
    fc.double({ min: max, max: max * 1000 + 10, noNaN: true, noDefaultInfinity: true, minExcluded: true }),
    fc.double({ min: min - 1000, max: min, noNaN: true, noDefaultInfinity: true, maxExcluded: true }),
  );
  // No null: an optional member sent as null may be read as left out (the reading of MJOB-014).
  const wrongType = fc.constantFrom<unknown>(String(max), true, [min]);
  return fc
    .oneof({ weight: 6, arbitrary: numbers }, { weight: 1, arbitrary: wrongType })
    .map((raw) => rangeCase(min, max, raw))
    .filter((c) => typeof c.value !== 'number' || c.valid === inRange32(c.value, min, max));
}

/**
 * Whether a number is in range as a 32-bit float reads it. A server may parse these parameters into
 * one (go-openai's `float32`): 2.0000000000000004 and -4e-323 read as 2 and -0 there. A generated case
 * whose verdict depends on that reading proves nothing either way, so none is sent.
 */
function inRange32(value: number, min: number, max: number): boolean {
  const f = Math.fround(value);
  return f >= min && f <= max;
}

function rangeCase(min: number, max: number, raw: unknown): GeneratedCase {
  const value = typeof raw === 'number' ? (JSON.parse(JSON.stringify(raw)) as number) : raw;
  return { value, valid: typeof value === 'number' && value >= min && value <= max };
}

/**
 * The distinguishing cases of a range, sent by every run of its property whatever the seed: each bound,
 * just outside each, and the wrong type a lax parser takes for the number.
 */
export function rangeExamples(min: number, max: number): GeneratedCase[] {
  return [min, max, min - 0.01, max + 0.01, String(max)].map((raw) => rangeCase(min, max, raw));
}

/**
 * max_tokens' distinguishing cases: the least that asks for a reply, just under the bound, a fraction and
 * a numeric string. The bound 0 itself is the case table's (CHAT-007: it may be refused for lack of room,
 * never as out of range), not generated.
 */
export const maxTokensExamples = (): GeneratedCase[] => [
  { value: 1, valid: true },
  { value: -1, valid: false },
  { value: 1.5, valid: false },
  { value: '2', valid: false },
];

/** `dimensions`' distinguishing cases: the one value, its neighbours, and the common other size. */
export const dimensionsExamples = (): GeneratedCase[] => [
  { value: EMBEDDING_DIMENSIONS, valid: true },
  { value: EMBEDDING_DIMENSIONS - 1, valid: false },
  { value: EMBEDDING_DIMENSIONS + 1, valid: false },
  { value: 1536, valid: false },
];

/** `input`'s distinguishing cases: one character, the empty string, an array of one string. */
export const embeddingInputExamples = (): GeneratedCase[] => [
  { value: 'a', valid: true },
  { value: '', valid: false },
  { value: ['a'], valid: false },
];

/** max_tokens: integer >= 0 (kept small when valid: a billed target pays for them; 0 is the table's). */
export function maxTokens(): fc.Arbitrary<GeneratedCase> {
  return fc.oneof(
    fc.integer({ min: 1, max: 4 }).map((value) => ({ value, valid: true })),
    fc.integer({ min: -1000, max: -1 }).map((value) => ({ value, valid: false })),
    fc.constantFrom<unknown>(0.5, 1.5, '2').map((value) => ({ value, valid: false })),
  );
}

/** Embedding `dimensions`: only 1024. */
export function dimensions(): fc.Arbitrary<GeneratedCase> {
  return fc.oneof(
    fc.constant({ value: EMBEDDING_DIMENSIONS, valid: true }),
    fc
      .integer({ min: -10, max: 8192 })
      .filter((n) => n !== EMBEDDING_DIMENSIONS)
      .map((value) => ({ value, valid: false })),
    fc.constantFrom<unknown>('1024', 1024.5).map((value) => ({ value, valid: false })),
  );
}

/** Embedding `input`: one non-empty text string only. */
export function embeddingInput(): fc.Arbitrary<GeneratedCase> {
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }).map((value) => ({ value, valid: true })),
    fc.constant({ value: '', valid: false }),
    fc
      .array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 })
      .map((value) => ({ value, valid: false })),
    fc
      .array(fc.integer({ min: 0, max: 50000 }), { minLength: 1, maxLength: 3 })
      .map((value) => ({ value, valid: false })),
    fc.constantFrom<unknown>(42, null, { text: 'hi' }, true).map((value) => ({ value, valid: false })),
  );
}
