// Every line of the contract traced to the requirements that check it, or to why none does
// (fixtures/traceability.yaml; its header describes the keys and the reasons).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { catalogue } from '../../src/catalogue.ts';
import { contractLines } from '../../src/contract.ts';
import { pkgPath } from '../../src/paths.ts';
import { citedIds } from '../../tools/cited.ts';
import { CONTRACT_PATH } from '../helpers.ts';

interface Entry {
  section: string;
  key: string;
  text: string;
  ids?: string[];
  reason?: string;
  note?: string;
}

const trace = parse(readFileSync(pkgPath('fixtures', 'traceability.yaml'), 'utf8')) as {
  reasons: Record<string, string>;
  lines: Entry[];
};

const where = (e: { section: string; key: string }) => `${e.section} / ${e.key}`;

describe('traceability of the contract', () => {
  it('every entry maps to tested requirement ids or gives a known reason', () => {
    const cat = catalogue();
    const cited = citedIds();
    const problems: string[] = [];
    for (const e of trace.lines) {
      const what = `${where(e)} (${e.text})`;
      if ((e.ids === undefined) === (e.reason === undefined))
        problems.push(`${what}: needs exactly one of ids or reason`);
      if (e.ids !== undefined && e.ids.length === 0) problems.push(`${what}: an empty ids list`);
      if (e.reason !== undefined && !(e.reason in trace.reasons))
        problems.push(`${what}: unknown reason '${e.reason}'`);
      for (const id of e.ids ?? []) {
        const r = cat.get(id);
        if (!r) problems.push(`${what}: unknown requirement ${id}`);
        else if (!r.testable || !cited.has(id)) problems.push(`${what}: ${id} has no test`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every testable requirement is traced from a contract line', () => {
    const traced = new Set(trace.lines.flatMap((e) => e.ids ?? []));
    const untraced = [...catalogue().values()]
      .filter((r) => r.testable && !traced.has(r.id))
      .map((r) => r.id);
    expect(untraced, 'requirements no line of fixtures/traceability.yaml names').toEqual([]);
  });

  it('every contract line has an entry and every entry a line', (ctx) => {
    if (!existsSync(CONTRACT_PATH))
      return ctx.skip('shared/contract/customer-api.md is not beside the checkout');
    const lines = contractLines(readFileSync(CONTRACT_PATH, 'utf8'));
    const entries = new Map(trace.lines.map((e) => [where(e), e]));
    const seen = new Set(lines.map(where));
    const unmapped = lines.filter((l) => !entries.has(where(l)));
    const stubs = unmapped.map(
      (l) =>
        `  - section: ${JSON.stringify(l.section)}\n    key: "${l.key}"\n    text: ${JSON.stringify(l.text.slice(0, 80))}\n    ids: [] # line ${l.line}: map it, or give a reason`,
    );
    expect(stubs.join('\n'), 'contract lines without an entry in fixtures/traceability.yaml').toBe('');
    const stale = trace.lines.filter((e) => !seen.has(where(e))).map((e) => `${where(e)} (${e.text})`);
    expect(stale, 'entries that match no contract line (the line changed or moved section)').toEqual([]);
    for (const l of lines) {
      const e = entries.get(where(l))!;
      expect(l.text.startsWith(e.text), `${where(l)}: text is not the line's beginning`).toBe(true);
    }
    const mapped = lines.filter((l) => entries.get(where(l))?.ids).length;
    ctx.annotate(`contract lines mapped to requirements: ${mapped} / ${lines.length} (the rest explained)`);
  });
});
