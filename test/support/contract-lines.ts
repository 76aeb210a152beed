// The contract's lines as fixtures/traceability.yaml keys them: every line that is not blank and not a
// table's separator row, with its section (the nearest heading above it, or the heading itself) and its
// key (the first 12 hex digits of the sha256 of the line with its white space folded).
import { createHash } from 'node:crypto';

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
