// The documentation's own checks: links between the files resolve, every flag is documented once, the
// README stays short with a table of contents, and no table cell is too long to read.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAGS, SUBCOMMAND_FLAGS } from '../../src/app/options.ts';
import { pkgPath } from '../../src/paths.ts';

/** The documentation, from the package's root: the README, CONTRIBUTING, the bench notes, docs/. */
const FILES = [
  'README.md',
  'CONTRIBUTING.md',
  'bench/README.md',
  ...readdirSync(pkgPath('docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
/** Where every flag is defined. */
const OPTIONS_PAGE = 'docs/options.md';
const README_MAX_LINES = 300;
const CELL_MAX = 400;

const read = (file: string) => readFileSync(pkgPath(file), 'utf8');

/** The lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(md: string): Array<{ n: number; line: string }> {
  const out: Array<{ n: number; line: string }> = [];
  let fence: string | undefined;
  md.split('\n').forEach((line, i) => {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === undefined) fence = m[1]![0]!;
      else if (m[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ n: i + 1, line });
  });
  return out;
}

/** A line without its inline code spans (a link's brackets inside `...` are no link). */
const withoutCode = (line: string) => line.replace(/(`+)[^`]*?\1/g, '');

/**
 * GitHub's anchor of a heading: the text as shown (no code marks, emphasis or link syntax), lowercase,
 * every character but letters, digits, `-`, `_` and spaces dropped, spaces to `-`.
 */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a file's headings; a repeated heading gets -1, -2, ... as on GitHub. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { line } of proseLines(md)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** The relative links of a file: `[text](path)`, `[text](path#anchor)`, `[text](#anchor)`. */
function links(md: string): Array<{ n: number; target: string }> {
  const out: Array<{ n: number; target: string }> = [];
  for (const { n, line } of proseLines(md))
    for (const m of withoutCode(line).matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^(https?:|mailto:)/i.test(target)) continue;
      out.push({ n, target });
    }
  return out;
}

/** Why a link of `file` does not resolve, or undefined when it does. */
function brokenLink(file: string, target: string): string | undefined {
  const hash = target.indexOf('#');
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const to = path === '' ? file : normalize(join(dirname(file), decodeURIComponent(path)));
  if (to.startsWith('..') || !existsSync(pkgPath(to))) return `${to} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(pkgPath(to)).isDirectory() || !to.endsWith('.md')) return `#${anchor}: ${to} has no headings`;
  return anchors(read(to)).has(anchor) ? undefined : `${to} has no heading #${anchor}`;
}

/**
 * The flags a line defines: a table row whose first cell starts with the flag's code span
 * (| `--flag VALUE` | ...), or a list item that starts with it (- `--flag VALUE`: ...).
 */
function definedFlags(line: string): string[] {
  const m = /^\s*(?:\|\s*|[-*+]\s+)`(--[a-z][a-z0-9-]*)/.exec(line);
  return m ? [m[1]!] : [];
}

/** The cells of a table row, split on unescaped pipes. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

describe('documentation', () => {
  it('every relative link resolves to a file, and every anchor to a heading of it', () => {
    const broken: string[] = [];
    let count = 0;
    for (const file of FILES)
      for (const { n, target } of links(read(file))) {
        count++;
        const why = brokenLink(file, target);
        if (why) broken.push(`${file}:${n}: (${target}) ${why}`);
      }
    expect(count).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('every flag of the option tables is defined exactly once, in docs/options.md', () => {
    const known = [...Object.keys(FLAGS), ...Object.keys(SUBCOMMAND_FLAGS)].map((f) => `--${f}`);
    const where = new Map<string, string[]>();
    for (const file of FILES)
      for (const { n, line } of proseLines(read(file)))
        for (const flag of definedFlags(line)) where.set(flag, [...(where.get(flag) ?? []), `${file}:${n}`]);
    const wrong = known
      .map((flag) => [flag, where.get(flag) ?? []] as const)
      .filter(([, at]) => at.length !== 1 || !at[0]!.startsWith(`${OPTIONS_PAGE}:`))
      .map(([flag, at]) => `${flag}: defined ${at.length} times${at.length ? ` (${at.join(', ')})` : ''}`);
    expect(wrong).toEqual([]);
    // A definition in the options page of a flag no table has is out of date.
    const stale = [...where]
      .filter(([flag, at]) => !known.includes(flag) && at.some((a) => a.startsWith(`${OPTIONS_PAGE}:`)))
      .map(([flag]) => flag);
    expect(stale).toEqual([]);
  });

  it(`the README has at most ${README_MAX_LINES} lines and a table of contents of its own sections`, () => {
    const readme = read('README.md');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
    const lines = proseLines(readme).map((l) => l.line);
    const start = lines.findIndex((l) => /^##\s+(table of )?contents\s*$/i.test(l));
    expect(start, 'a "## Contents" section').toBeGreaterThanOrEqual(0);
    const end = lines.findIndex((l, i) => i > start && /^##\s/.test(l));
    const toc = lines
      .slice(start + 1, end)
      .flatMap((l) => [...l.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!));
    const sections = lines
      .filter((l, i) => /^##\s/.test(l) && i !== start)
      .map((l) => slug(l.replace(/^##\s+/, '')));
    expect(toc).toEqual(sections);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(links(read('README.md')).map((l) => l.target.split('#')[0]));
    const missing = FILES.filter((f) => f.startsWith('docs/') && !linked.has(f));
    expect(missing).toEqual([]);
  });

  it(`no table cell is over ${CELL_MAX} characters`, () => {
    const long: string[] = [];
    for (const file of FILES)
      for (const { n, line } of proseLines(read(file))) {
        if (!line.trimStart().startsWith('|')) continue;
        cells(line).forEach((cell, i) => {
          if (cell.length > CELL_MAX) long.push(`${file}:${n}: cell ${i + 1} has ${cell.length} characters`);
        });
      }
    expect(long).toEqual([]);
  });

  it('reads anchors, links, definitions and cells as GitHub does', () => {
    expect(slug('The plan: `--dry-run`')).toBe('the-plan---dry-run');
    expect(slug("Certifying a partner's deployment")).toBe('certifying-a-partners-deployment');
    expect(slug('Rate limits (429)')).toBe('rate-limits-429');
    expect([...anchors('# A\n## B\n```\n## C\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
    expect(links('[a](x.md#y) [b](https://e.org) `[c](z.md)` [d](#e)').map((l) => l.target)).toEqual([
      'x.md#y',
      '#e',
    ]);
    expect(definedFlags('| `--seed N` | the seed |')).toEqual(['--seed']);
    expect(definedFlags('- `--quiet`: only the verdict')).toEqual(['--quiet']);
    expect(definedFlags('- **Known failures** (`--expectations FILE`)')).toEqual([]);
    expect(cells('| `--profile quick\\|standard` | depth |')).toEqual([
      '`--profile quick\\|standard`',
      'depth',
    ]);
  });
});
