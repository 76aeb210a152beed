// The requirement ids the suites cite, for the catalogue and traceability self-tests.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { pkgPath } from '../src/paths.ts';

/** Test files, and the suite modules that register tests for them (they call check()). */
function suiteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const f = join(dir, d.name);
    if (d.isDirectory()) return suiteFiles(f);
    if (d.name.endsWith('.test.ts')) return [f];
    return d.name.endsWith('.ts') && /\bcheck\(/.test(readFileSync(f, 'utf8')) ? [f] : [];
  });
}

/**
 * Ids a test declares: the literal `ids: [...]` arrays of check() specs, the `id: '...'` of tables of
 * generated checks in suite files, and the `ids` of the YAML case tables the suites run.
 */
export function citedIds(root = pkgPath()): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  const add = (id: string, where: string) => cited.set(id, [...(cited.get(id) ?? []), where]);
  for (const f of suiteFiles(join(root, 'suites'))) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/ids: \[([^\]]*)\]/g))
      for (const id of m[1]!.matchAll(/'([^']+)'/g)) add(id[1]!, f);
    for (const m of text.matchAll(/\bid: '([A-Z][A-Z0-9-]*-\d{3})'/g)) add(m[1]!, f);
  }
  const dir = join(root, 'fixtures', 'cases');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
    const doc = parse(readFileSync(join(dir, f), 'utf8')) as { cases: Array<{ ids: string[] }> };
    for (const c of doc.cases) for (const id of c.ids) add(id, f);
  }
  return cited;
}
