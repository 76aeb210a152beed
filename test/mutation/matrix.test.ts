import { expect, it } from 'vitest';
import { FAULTS, VARIANTS } from '../../reference/start.ts';
import { formatRow, runMatrix } from './matrix.ts';

it(
  'kills every seeded fault by the ids it breaks, and passes the reference and every conformant variant',
  async () => {
    const rows = await runMatrix();
    console.log(rows.map(formatRow).join('\n'));
    expect(FAULTS.length).toBeGreaterThanOrEqual(8);
    expect(VARIANTS.length).toBeGreaterThanOrEqual(6);
    expect(rows.filter((r) => !r.ok).map(formatRow)).toEqual([]);
  },
  25 * 60_000,
);
