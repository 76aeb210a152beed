// The applicability map's static side: which places of fixtures/applicability.yaml have a test, an
// exclusion or a pending reason. Run `npx tsx tools/applicability.ts --uncovered` to list the
// places without a test (pending and uncovered), `--all` for every place with its status, `--unbroken`
// for the tested places no fault of the reference breaks there only (`--predicate`: of the rules with a
// stated predicate alone).
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Fault } from '../reference/faults/probe.ts';
import {
  type Place,
  type PlaceStatus,
  placeStatus,
  placesOf,
  predicateOf,
  STATED,
} from '../src/applicability.ts';
import { catalogue } from '../src/catalogue.ts';
import { pkgPath } from '../src/paths.ts';
import { citedIds } from './cited.ts';

export interface PlaceRow {
  id: string;
  place: Place;
  status: PlaceStatus;
}

/** Every place of every catalogue requirement, with how it is covered by the suites as they are. */
export function placeRows(): PlaceRow[] {
  const cited = citedIds();
  const texts = new Map<string, string>();
  const textOf = (where: string) => {
    const file = isAbsolute(where) ? where : pkgPath('fixtures', 'cases', where);
    let t = texts.get(file);
    if (t === undefined) {
      t = readFileSync(file, 'utf8');
      texts.set(file, t);
    }
    return t;
  };
  const rows: PlaceRow[] = [];
  for (const r of catalogue().values()) {
    const sources = [...new Set(cited.get(r.id) ?? [])].map(textOf);
    const hasTest = (pattern: string) => {
      const re = new RegExp(pattern);
      return sources.some((s) => re.test(s));
    };
    for (const place of placesOf(r.id)) {
      // A requirement without axes: its one place is tested when a test cites it (catalogue self-test).
      const status: PlaceStatus =
        place.key === STATED && sources.length > 0 && r.testable
          ? { kind: 'tested', test: '(a test citing the id)' }
          : placeStatus(r.id, place, hasTest);
      rows.push({ id: r.id, place, status });
    }
  }
  return rows;
}

/** Per requirement: places, tested, excluded, pending, uncovered. */
export function tally(rows: PlaceRow[]): Record<PlaceStatus['kind'] | 'places', number> {
  const out = { places: rows.length, tested: 0, excluded: 0, pending: 0, uncovered: 0 };
  for (const r of rows) out[r.status.kind]++;
  return out;
}

/**
 * The tested places no fault breaks there only: a fault breaks a place when it lists it (`places`), or
 * when the requirement has one place alone (as stated) and the fault breaks the requirement.
 */
export function unbroken(
  rows: readonly PlaceRow[],
  faults: readonly Fault[],
  predicateOnly = false,
): PlaceRow[] {
  const listed = new Set(faults.flatMap((f) => (f.places ?? []).map((p) => `${p.id} @ ${p.place}`)));
  const broken = new Set(faults.flatMap((f) => f.breaks));
  return rows.filter(
    (r) =>
      r.status.kind === 'tested' &&
      (!predicateOnly || predicateOf(r.id) !== undefined) &&
      !listed.has(`${r.id} @ ${r.place.key}`) &&
      !(r.place.key === STATED && broken.has(r.id)),
  );
}

async function main(argv: string[]): Promise<void> {
  const rows = placeRows();
  if (argv.includes('--unbroken')) {
    const { FAULTS } = await import('../reference/faults.ts');
    const left = unbroken(rows, FAULTS, argv.includes('--predicate'));
    for (const r of left) console.log(`${r.id}\t${r.place.key}`);
    console.log(`${left.length} tested places that no fault breaks there only`);
    return;
  }
  const all = argv.includes('--all');
  const shown = all ? rows : rows.filter((r) => r.status.kind === 'pending' || r.status.kind === 'uncovered');
  for (const r of shown) {
    const s = r.status;
    const why =
      s.kind === 'pending' || s.kind === 'excluded'
        ? `: ${s.reason}`
        : s.kind === 'tested'
          ? `: /${s.test}/`
          : '';
    console.log(`${r.id}\t${r.place.key}\t${s.kind}${why}`);
  }
  const t = tally(rows);
  console.log(
    `${t.places} places: ${t.tested} tested, ${t.excluded} excluded, ${t.pending} pending, ${t.uncovered} uncovered`,
  );
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/')))
  void main(process.argv.slice(2));
