// @conformance start-early 1
import { expect, it } from 'vitest';
import { FAULTS, VARIANTS } from '../../reference/start.ts';
import {
  formatRow,
  groupDistribution,
  headCommit,
  MATRIX_STRIDE,
  plan,
  ROW_TIMEOUT_MS,
  runMatrix,
} from '../../tools/mutation/matrix.ts';

// npm test's sample of the matrix (plan, MATRIX_STRIDE): `npm run mutants` runs every row.
const rows = plan(undefined, 'sample', headCommit(), 'sample');

it(
  'kills every seeded fault of the sample by the ids it breaks, and passes the reference and every conformant variant of it',
  async () => {
    console.log(
      `mutation matrix: ${rows.length} of ${plan().length} rows (the reference, one in ${MATRIX_STRIDE} of the hand-written faults and of the variants by the commit, a sample of the place faults); npm run mutants runs them all`,
    );
    // Each row as it ends (a CI log is never silent for long); the verdict is on the rows, not the clock.
    const ran = await runMatrix({
      rows: 'sample',
      log: (line, done, total) => console.log(`[row ${done}/${total}] ${line}`),
    });
    console.log(groupDistribution(ran));
    expect(FAULTS.length).toBeGreaterThanOrEqual(8);
    expect(VARIANTS.length).toBeGreaterThanOrEqual(6);
    expect(ran.filter((r) => r.kind === 'fault').length).toBeGreaterThan(FAULTS.length / (2 * MATRIX_STRIDE));
    expect(ran.filter((r) => r.kind === 'variant').length).toBeGreaterThan(
      VARIANTS.length / (2 * MATRIX_STRIDE),
    );
    expect(ran.filter((r) => !r.ok).map(formatRow)).toEqual([]);
  },
  // A bound on a hung matrix only: every row is bounded by ROW_TIMEOUT_MS, so the rows one after another
  // are the most it can take.
  rows.length * ROW_TIMEOUT_MS,
);
