import { describe, expect, it } from 'vitest';
import { concurrencySplit, PER_WORKER } from '../../src/runtime/run-config.ts';

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
