/** check-traffic's progress line (src/traffic/progress.ts): due every few seconds, both passes counted. */
import { describe, expect, it } from 'vitest';
import { TrafficProgress } from '../../src/traffic/progress.ts';

describe('the progress of check-traffic', () => {
  it('says the pass, entries, megabytes of the total, the rate and the time left over both passes', () => {
    let now = 0;
    const lines: string[] = [];
    const p = new TrafficProgress(
      100 * 1024 * 1024,
      (l) => lines.push(l),
      5_000,
      () => now,
    );
    now = 4_000;
    p.tick('reading', 40 * 1024 * 1024, 1_000);
    expect(lines).toEqual([]);
    now = 10_000;
    p.tick('reading', 50 * 1024 * 1024, 12_345);
    expect(lines).toEqual([
      '… [10 s] reading the capture: 12,345 entries, 50 of 100 MB (25% of both passes), 5.0 MB/s, about 30 s left',
    ]);
    p.fileDone(100 * 1024 * 1024);
    p.nextPass();
    now = 30_000;
    p.tick('judging', 50 * 1024 * 1024, 20_000);
    expect(lines[1]).toBe(
      '… [30 s] judging the capture: 20,000 entries, 50 of 100 MB (75% of both passes), 5.0 MB/s, about 10 s left',
    );
  });

  it('prints nothing without a log (--quiet)', () => {
    let now = 0;
    const p = new TrafficProgress(10, undefined, 5_000, () => now);
    now = 60_000;
    expect(() => p.tick('judging', 5, 1)).not.toThrow();
  });
});
