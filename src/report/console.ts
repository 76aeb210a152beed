/**
 * The middle lines of the console verdict: one line per group of findings (src/report/groups.ts) with its
 * count, the tests it spans and its first example in full; then the tests not run, one line per cause
 * with its remedy. Everything else stays in summary.json, the HTML report and the exchanges.
 */
import { type FindingGroup, notRunLabel } from './groups.ts';
import { inert } from './neutral.ts';
import { paint } from './progress.ts';
import type { Summary } from './summary.ts';

/** Failure groups shown in the console (the rest are counted; all are in summary.json and report.html). */
const MAX_FAILURE_GROUPS = 25;
const MAX_ADVISORY_GROUPS = 8;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A value the target sent, cut to 200 characters and inert (src/report/neutral.ts). */
function short(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return inert(s.length > 200 ? `${s.slice(0, 200)}…` : s);
}

/** A group as a line shows it: its endpoints (one or several, from groups.ts) beside its cause. */
interface Shown {
  first: FindingGroup;
  endpoints: string[];
  cause: string;
  count: number;
  tests: number;
}

const collapse = (list: FindingGroup[]): Shown[] =>
  list.map((g) => ({
    first: g,
    endpoints: g.endpoints ?? (g.endpoint ? [g.endpoint] : []),
    cause: g.cause,
    count: g.count,
    tests: g.tests.length,
  }));

function example(g: FindingGroup, withMessage: boolean): string[] {
  const e = g.example;
  const lines = [`      e.g. ${inert(e.test)}`];
  if (withMessage) lines.push(`        [${e.id}] ${inert(e.message)}`);
  if (e.received !== undefined) lines.push(`        received: ${short(e.received)}`);
  if (e.expected !== undefined) lines.push(`        expected: ${short(e.expected)}`);
  return lines;
}

function shownLines(s: Shown, colour: boolean): string[] {
  const g = s.first;
  const mark = g.severity === 'failure' ? paint(colour, 'red', '✗') : paint(colour, 'yellow', '!');
  const where =
    s.endpoints.length > 1
      ? ` on ${plural(s.endpoints.length, 'endpoint')} (${inert(s.endpoints.slice(0, 4).join(', '))}${s.endpoints.length > 4 ? ', …' : ''})`
      : '';
  const head = `  ${mark} [${g.ids.join(' ')}] ${inert(s.endpoints.length > 1 ? s.cause : g.cause)}${where} — ${plural(s.count, 'time')} in ${plural(s.tests, 'test')}`;
  return [head, ...example(g, g.example.message !== g.cause)];
}

export function groupLines(s: Summary, colour: boolean): string[] {
  const out: string[] = [];
  const groups = s.groups ?? [];
  const failures = groups.filter((g) => g.severity === 'failure');
  const section = (title: string, list: FindingGroup[], max: number) => {
    const shown = collapse(list);
    if (shown.length === 0) return;
    out.push(`  ${title}:`);
    for (const x of shown.slice(0, max)) out.push(...shownLines(x, colour));
    if (shown.length > max)
      out.push(`    … ${shown.length - max} more in report.html and summary.json (groups)`);
  };
  const missing = failures.filter((g) => g.kind === 'not_implemented');
  if (failures.length > 0)
    out.push(
      `  ${plural(failures.length, 'group')} of failures (one per root cause, each with the requirement ids it covers; every test in summary.json):`,
    );
  if (missing.length > 0) {
    const tests = new Set(missing.flatMap((g) => g.tests)).size;
    // Each endpoint's own why where they differ (a framework 404, or no 2xx to a plain GET at all).
    const why = (g: FindingGroup) =>
      g.cause.replace(`${g.endpoint} `, '').replace(/^is not implemented: /, '');
    const one = new Set(missing.map(why)).size === 1;
    out.push(
      `  not implemented: ${plural(missing.length, 'endpoint')} ${one ? (why(missing[0]!).startsWith('it answers the framework') ? "answer the framework's 404 to everything (no APIError)" : why(missing[0]!)) : 'do not answer as the contract says'}, ${plural(tests, 'test')} failed on them:`,
    );
    for (const g of missing)
      out.push(
        `  ${paint(colour, 'red', '✗')} ${inert(g.endpoint)}${one ? '' : ` (${inert(why(g))})`} — ${plural(g.count, 'finding')} (${g.ids.join(' ')}) in ${plural(g.tests.length, 'test')}${g.notRun?.length ? `, ${g.notRun.length} not run because of it` : ''}`,
      );
    out.push(...example(missing[0]!, true));
  }
  section(
    'findings of the tests',
    failures.filter((g) => g.kind === 'finding'),
    MAX_FAILURE_GROUPS,
  );
  section(
    'checks of every exchange (description, error shape, leaks)',
    failures.filter((g) => g.kind === 'exchange'),
    MAX_FAILURE_GROUPS,
  );
  section(
    'advisory groups',
    groups.filter((g) => g.severity === 'advisory'),
    MAX_ADVISORY_GROUPS,
  );
  for (const n of s.notRunGroups ?? []) {
    const why = notRunLabel(n.cause, n.reason);
    const fix = n.notImplemented
      ? ` — see not implemented: ${n.notImplemented}`
      : n.cause?.remedy
        ? ` — to run: ${n.cause.remedy}`
        : '';
    out.push(`  not run (${n.count}): ${inert(why)}${inert(fix)}`);
  }
  return out;
}
