import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULTS, VARIANTS } from '../../reference/faults.ts';
import { catalogue } from '../../src/catalogue.ts';
import { pkgPath } from '../../src/paths.ts';
import { TABLE_PAGE, withCurrentTable } from '../../tools/requirements-table.ts';

describe('requirements x faults x variants', () => {
  it('every fault and every variant names requirements of the catalogue', () => {
    for (const f of FAULTS)
      for (const id of f.breaks) expect(catalogue().has(id), `${f.name}: ${id}`).toBe(true);
    for (const v of VARIANTS) {
      expect(v.readings.length, v.name).toBeGreaterThan(0);
      for (const id of v.readings) expect(catalogue().has(id), `${v.name}: ${id}`).toBe(true);
    }
  });

  it(`the table in ${TABLE_PAGE} is current (npx tsx tools/requirements-table.ts --write)`, () => {
    const page = readFileSync(pkgPath(TABLE_PAGE), 'utf8');
    expect(page).toBe(withCurrentTable(page));
  });
});
