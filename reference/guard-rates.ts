// How often variant guard-429-refusals trips (a leaf module: the guard, the error writer and the
// variant's probe read the same numbers).

/** Every this-many-th 4xx refusal of an account is answered 429 (errors.ts). */
export const REFUSAL_429_EVERY = 16;
/** Every this-many-th prerequisite read of an account is answered 429 (guards.ts). */
export const READ_429_EVERY = 30;
