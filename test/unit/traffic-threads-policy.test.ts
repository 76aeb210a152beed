/**
 * How many judging threads check-traffic starts (judge.ts judgingThreads): what was asked, within 0 to
 * MAX_THREADS; else one fewer than the cores for a capture of THREADED_BYTES or more on 2 cores or more,
 * else none.
 */
import { describe, expect, it } from 'vitest';
import { judgingThreads, MAX_THREADS, THREADED_BYTES } from '../../src/traffic/judge.ts';

describe('judging threads of check-traffic', () => {
  it('takes what was asked, within 0 to MAX_THREADS, whatever the capture and the cores', () => {
    expect(judgingThreads(0, 10 * THREADED_BYTES, 8)).toBe(0);
    expect(judgingThreads(2, 1, 1)).toBe(2);
    expect(judgingThreads(MAX_THREADS + 3, 1, 64)).toBe(MAX_THREADS);
    expect(judgingThreads(-1, THREADED_BYTES, 2)).toBe(0);
  });

  it('by default: one fewer than the cores (at most MAX_THREADS) for a large capture on 2 cores or more, else none', () => {
    expect(judgingThreads(undefined, THREADED_BYTES, 2)).toBe(1);
    expect(judgingThreads(undefined, THREADED_BYTES, 3)).toBe(2);
    expect(judgingThreads(undefined, 100 * THREADED_BYTES, 64)).toBe(MAX_THREADS);
    expect(judgingThreads(undefined, THREADED_BYTES - 1, 8)).toBe(0);
    expect(judgingThreads(undefined, 100 * THREADED_BYTES, 1)).toBe(0);
  });
});
