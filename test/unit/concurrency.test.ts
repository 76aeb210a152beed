import { describe, expect, it } from 'vitest';
import { concurrencySplit, PER_WORKER, waitBoundMs } from '../../src/runtime/run-config.ts';

describe('concurrencySplit (a target concurrency into worker threads x tests per worker)', () => {
  it('uses worker threads up to the cores first', () => {
    expect(concurrencySplit(1, 2)).toEqual({ workers: 1, perWorker: 1 });
    expect(concurrencySplit(2, 2)).toEqual({ workers: 2, perWorker: 1 });
    expect(concurrencySplit(6, 2)).toEqual({ workers: 2, perWorker: 3 });
    expect(concurrencySplit(8, 2)).toEqual({ workers: 2, perWorker: 4 });
  });

  it('beyond the cores, gives each worker at most PER_WORKER tests and adds workers for the rest', () => {
    expect(concurrencySplit(16, 2)).toEqual({ workers: 4, perWorker: 4 });
    expect(concurrencySplit(32, 2)).toEqual({ workers: 8, perWorker: 4 });
    expect(concurrencySplit(16, 8)).toEqual({ workers: 8, perWorker: 2 });
  });

  it('puts exactly the concurrency in flight, never more (a target may limit concurrent requests)', () => {
    expect(concurrencySplit(3, 2)).toEqual({ workers: 3, perWorker: 1 });
    expect(concurrencySplit(6, 4)).toEqual({ workers: 6, perWorker: 1 });
    expect(concurrencySplit(12, 4)).toEqual({ workers: 4, perWorker: 3 });
    for (let c = 1; c <= 64; c++)
      for (const cores of [1, 2, 4, 8, 16]) {
        const { workers, perWorker } = concurrencySplit(c, cores);
        expect(workers * perWorker).toBe(c);
        expect(workers).toBeGreaterThanOrEqual(Math.min(c, cores));
        expect(perWorker).toBeLessThanOrEqual(Math.max(1, PER_WORKER));
      }
  });
});

describe('waitBoundMs (how long a test body waits for a media job)', () => {
  const target = (testMs: number, pollIntervalMs: number) =>
    ({
      timeouts: { requestMs: 30_000, testMs, streamMs: 30_000 },
      media: { pollIntervalMs, pollCap: 120 },
    }) as Parameters<typeof waitBoundMs>[0];

  it('ends before the test timeout, leaving the cleanup bound and a margin', () => {
    // Defaults: 300 s test, 60 s cleanup bound (12 polls of 5 s), 15 s margin.
    expect(waitBoundMs(target(300_000, 5_000))).toBe(225_000);
    // A 15 s test with fast polls: 7.5 s cleanup bound (half the test), 1 s margin.
    expect(waitBoundMs(target(15_000, 100))).toBe(6_500);
    // A test's own timeout, when given, is the one bounded.
    expect(waitBoundMs(target(300_000, 5_000), 600_000)).toBe(510_000);
  });

  it('never waits less than zero', () => {
    expect(waitBoundMs(target(1_000, 5_000))).toBe(0);
  });
});
