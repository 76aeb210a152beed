import type { ApiKey, State } from './state.ts';
import type { Toggles } from './toggles.ts';

/** What every reference module gets: the run's state and its one fault and/or variant. */
export interface RefContext extends Toggles {
  state: State;
  /** Race faults: the delay window between a check and its write (race.ts); default 200 ms. */
  raceWindowMs?: number;
  /** Media job prices: flat per output kind (default), or scaled like a real deployment's (view.ts). */
  mediaPricing?: 'flat' | 'scaled';
  /**
   * A requests-per-minute guard on every account (start option, and variant guard-rpm): a token bucket
   * refilled at N per minute holding at most N/6 (ten seconds' worth); an empty bucket answers 429 with
   * Retry-After, the whole seconds until the next token.
   */
  rateLimitPerMinute?: number;
  /** Test hook (start option beforeHold). */
  beforeHold?: HoldHook;
}

/**
 * Test hook: called when a media job the reference accepted is about to place its hold, with its model,
 * prompt, how many inputs it references and whether a test prompt makes it fail or uncertain (e.g. to
 * drain the account at that moment).
 */
export type HoldHook = (job: {
  model: string;
  prompt: string;
  references: number;
  fails: boolean;
  uncertain: boolean;
}) => void;

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key; null on public routes. */
    caller: ApiKey | null;
  }
}

export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
