// @conformance start-early 1
import { expect, it } from 'vitest';
import { FAULTS, VARIANTS } from '../../reference/start.ts';
import {
  formatRow,
  groupDistribution,
  plan,
  ROW_TIMEOUT_MS,
  runMatrix,
} from '../../tools/mutation/matrix.ts';

it(
  'kills every seeded fault by the ids it breaks, and passes the reference and every conformant variant',
  async () => {
    // Each row as it ends (a CI log is never silent for long); the verdict is on the rows, not the clock.
    const rows = await runMatrix({
      log: (line, done, total) => console.log(`[row ${done}/${total}] ${line}`),
    });
    console.log(groupDistribution(rows));
    expect(FAULTS.length).toBeGreaterThanOrEqual(8);
    expect(VARIANTS.length).toBeGreaterThanOrEqual(6);
    expect(rows.filter((r) => !r.ok).map(formatRow)).toEqual([]);
  },
  // A bound on a hung matrix only: every row is bounded by ROW_TIMEOUT_MS, so the rows one after another
  // are the most it can take.
  plan().length * ROW_TIMEOUT_MS,
);
