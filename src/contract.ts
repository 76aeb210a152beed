/**
 * The contract (../shared/contract/customer-api.md beside the package) as fixtures/traceability.yaml
 * keys its lines, and where in it each requirement of the catalogue stands. The lines: every line that
 * is not blank and not a table's separator row, with its section (the nearest heading above it, or the
 * heading itself) and its key (the first 12 hex digits of the sha256 of the line with its white space
 * folded). Read by the traceability tests and by report.sarif (src/report/sarif.ts), which locates a
 * failed requirement at its sentence: always from the live file, never from a line number kept anywhere.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { catalogue } from './catalogue.ts';
import { pkgPath } from './paths.ts';
import { readYaml } from './yaml-cache.ts';

/** Where the contract is: shared/ beside the checkout (or beside the installed package). */
export const CONTRACT_PATH = pkgPath('..', 'shared', 'contract', 'customer-api.md');

export interface ContractLine {
  line: number;
  section: string;
  key: string;
  text: string;
}

export const fold = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The contract's lines that need a traceability entry. */
export function contractLines(markdown: string): ContractLine[] {
  let section = '';
  const out: ContractLine[] = [];
  markdown.split('\n').forEach((raw, i) => {
    const text = fold(raw);
    if (text === '' || /^\|[-| :]+\|$/.test(text)) return;
    const heading = /^#+ (.+)$/.exec(text);
    if (heading) section = heading[1]!.trim();
    const key = createHash('sha256').update(text).digest('hex').slice(0, 12);
    out.push({ line: i + 1, section, key, text });
  });
  return out;
}

/** One entry of fixtures/traceability.yaml (its header says what each field means). */
export interface TraceEntry {
  section: string;
  key: string;
  text: string;
  ids?: string[];
  reason?: string;
  note?: string;
}

/** fixtures/traceability.yaml's entries, in contract order. */
export function traceEntries(): TraceEntry[] {
  return (readYaml(pkgPath('fixtures', 'traceability.yaml')) as { lines: TraceEntry[] }).lines;
}

/**
 * The line (1-based) each requirement of the catalogue stands at in `markdown`: where its quoted words
 * begin (white space folded, as the catalogue test finds them), else, for words the contract no longer
 * holds as quoted, the first live line traceability.yaml maps the id to (matched by section and key).
 * An id found neither way is absent.
 */
export function requirementLines(
  markdown: string,
  entries: readonly TraceEntry[] = traceEntries(),
): Map<string, number> {
  const lines = contractLines(markdown);
  const out = new Map<string, number>();
  const byKey = new Map(lines.map((l) => [`${l.section}\u0000${l.key}`, l.line]));
  for (const e of entries)
    for (const id of e.ids ?? []) {
      const line = byKey.get(`${e.section}\u0000${e.key}`);
      if (line !== undefined && !out.has(id)) out.set(id, line);
    }
  const locate = wordLocator(lines);
  for (const r of catalogue().values()) {
    const line = locate(r.words, r.section);
    if (line !== undefined) out.set(r.id, line);
  }
  return out;
}

/**
 * Finds the line where a quotation begins: its first occurrence in the requirement's own section, else
 * its first anywhere (short words such as a status code recur). Why over the whole folded text and not
 * line by line: a quotation may run over a line break (a wrapped paragraph), as the catalogue test's
 * search allows.
 */
function wordLocator(lines: readonly ContractLine[]): (words: string, section: string) => number | undefined {
  const starts: number[] = [];
  let folded = '';
  for (const l of lines) {
    if (folded) folded += ' ';
    starts.push(folded.length);
    folded += l.text;
  }
  const lineAt = (offset: number): ContractLine => {
    let i = 0;
    while (i + 1 < starts.length && starts[i + 1]! <= offset) i++;
    return lines[i]!;
  };
  return (words, section) => {
    const quoted = fold(words);
    if (!quoted) return undefined;
    const found: ContractLine[] = [];
    for (let at = folded.indexOf(quoted); at >= 0; at = folded.indexOf(quoted, at + 1))
      found.push(lineAt(at));
    return (found.find((l) => l.section === section) ?? found[0])?.line;
  };
}

/** The live contract's text, or undefined where it is not beside the package (an installed suite). */
export function readContract(file = CONTRACT_PATH): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}
