import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isPlaceFault } from '../../reference/faults/places.ts';
import { FAULTS } from '../../reference/start.ts';
import { formatRow, groupDistribution, runMatrix } from './matrix.ts';

/**
 * `npm run mutants [-- --only NAME[,NAME] --parallel N --full --seed N --spawn --places --sample --list --groups FILE]` (--sample: npm test's
 * rows only, one in MATRIX_STRIDE of the faults and variants by the commit; --full:
 * every fault and variant runs the whole suite; --seed: the plain reference's run and the variant rows
 * that replay it; --spawn: one CLI process per row; --places: every generated place fault, alone;
 * --list: the generated place faults' names; --groups: each fault row's groups, their heads, as JSON into FILE): prints the table, exits 1 if any row is wrong. Without
 * --places or --only, the generated place faults run as a sample chosen by the commit (matrix.ts plan). A variant runs the
 * tests that reach it in the plain reference's run (matrix.ts, variantPlan), or the whole suite
 * when --only leaves that row out.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      parallel: { type: 'string' },
      full: { type: 'boolean' },
      seed: { type: 'string' },
      spawn: { type: 'boolean' },
      places: { type: 'boolean' },
      sample: { type: 'boolean' },
      list: { type: 'boolean' },
      groups: { type: 'string' },
    },
    strict: true,
  });
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31))
    throw new Error(`--seed ${values.seed}: a whole number from 0 to 2147483647`);
  if (values.list) {
    for (const f of FAULTS) if (isPlaceFault(f.name)) console.log(`${f.name}\t${f.description}`);
    return 0;
  }
  const started = Date.now();
  const rows = await runMatrix({
    ...(values.only ? { only: values.only.split(',') } : {}),
    ...(values.parallel ? { parallel: Number(values.parallel) } : {}),
    ...(values.full ? { full: true } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(values.spawn ? { spawn: true } : {}),
    ...(values.places ? { places: 'all' as const } : {}),
    ...(values.sample ? { rows: 'sample' as const } : {}),
    log: (s) => console.log(s),
  });
  const bad = rows.filter((r) => !r.ok);
  console.log('');
  if (rows.some((r) => r.kind === 'fault')) console.log(groupDistribution(rows));
  if (values.groups) {
    const faults = rows.filter((r) => r.kind === 'fault');
    const out = faults.map(({ name, strict, status, groups, groupHeads }) => ({
      name,
      strict,
      status,
      groups,
      heads: groupHeads ?? [],
    }));
    writeFileSync(values.groups, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`groups of ${faults.length} fault rows written to ${values.groups}`);
  }
  for (const r of bad) console.log(`WRONG: ${formatRow(r)}`);
  // One row per fault counts: an implied fault's strict row (its plain row, run or read off the strict
  // one, checks it stays advisory);
  // a notable fault's only row is caught when it shows as advisory.
  const notable = new Set(FAULTS.filter((f) => f.level === 'notable').map((f) => f.name));
  const faultRows = rows.filter(
    (r) =>
      r.kind === 'fault' && (r.strict || !FAULTS.some((f) => f.name === r.name && f.level === 'implied')),
  );
  const killed = faultRows.filter((r) => r.status === 'killed' || (notable.has(r.name) && r.ok)).length;
  const collateral = faultRows.filter((r) => r.status === 'COLLATERAL').length;
  console.log(
    `mutation matrix: faults caught by their ids alone ${killed}/${faultRows.length}${collateral ? ` (${collateral} also by other ids)` : ''} (${notable.size} notable-level: advisory expected); variants passed ${rows.filter((r) => r.kind === 'variant' && r.ok).length}/${rows.filter((r) => r.kind === 'variant').length}; reference ${rows.filter((r) => r.kind === 'reference' && r.ok).length}/${rows.filter((r) => r.kind === 'reference').length} clean; ${((Date.now() - started) / 1000).toFixed(1)}s`,
  );
  return bad.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`mutants: ${(err as Error).message}`);
    process.exitCode = 2;
  },
);
