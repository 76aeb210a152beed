/**
 * summary.md: the report in a few Markdown tables that render in a GitHub job summary (no links, no
 * HTML of the target's): the verdict, the counts, what changed since the compared run, the root causes,
 * the tests not run with their remedies, the failed and advisory requirement ids. Every report gets it
 * (a run, a dry run, `merge`); a run under GitHub Actions also appends it to $GITHUB_STEP_SUMMARY.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { comparisonLines } from './compare.ts';
import { notRunLabel } from './groups.ts';
import { REPORT_FILES } from './layout.ts';
import { pointsSpentLine, type Summary, verdictLine, verdictWord } from './summary.ts';

export const SUMMARY_MD = REPORT_FILES.markdown.name;
const MAX_CAUSES = 15;
const MAX_NOT_RUN = 12;

/**
 * Text a target may control, made inert in Markdown: one line, no control characters, HTML's specials
 * as entities (GitHub renders inline HTML) and Markdown's punctuation escaped (no links, emphasis,
 * table breaks or code spans of theirs).
 */
export function mdText(s: string, max = 300): string {
  const one = [...s.replace(/[\r\n\t]+/g, ' ')]
    .map((ch) => {
      const c = ch.codePointAt(0)!;
      return c < 0x20 || (c >= 0x7f && c < 0xa0) || c === 0x2028 || c === 0x2029
        ? `\\u${c.toString(16).padStart(4, '0')}`
        : ch;
    })
    .join('');
  const cut = one.length > max ? `${one.slice(0, max)}…` : one;
  return cut
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_{}[\]()#+!|~])/g, '\\$1');
}

const row = (cells: Array<string | number>) => `| ${cells.map(String).join(' | ')} |`;

export function renderMarkdown(s: Summary): string {
  const c = s.counts;
  const out: string[] = [
    `## gateway-conformance: ${verdictWord(s.verdict)}`,
    '',
    `Target **${mdText(s.target.name)}** (${mdText(s.target.baseUrl)}), suite ${mdText(s.suite.version)}, started ${mdText(s.startedAt)}${s.profile ? `, profile ${mdText(s.profile)}` : ''}${s.strict ? ', strict' : ''}.`,
    '',
    mdText(verdictLine(s), 1000),
    '',
    row([
      'passed',
      'failed',
      'known failures',
      'advisory',
      'inconclusive',
      'not run',
      'harness errors',
      'tests',
    ]),
    row(['---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
    row([
      c.passed,
      c.failed,
      c.known_failure ?? 0,
      c.advisory,
      c.inconclusive ?? 0,
      c.not_run,
      c.harness_error,
      c.total,
    ]),
  ];
  if (s.points && (s.points.spent !== '0' || s.points.budget))
    out.push('', mdText(pointsSpentLine(s.points), 1000));
  if (s.comparison) {
    const r = s.comparison.requirements;
    const t = s.comparison.tests;
    out.push(
      '',
      '### Since the compared run',
      '',
      mdText(comparisonLines(s.comparison)[0]!, 1000),
      '',
      row(['', 'requirements', 'which', 'tests']),
      row(['---', '---:', '---', '---:']),
      ...(
        [
          ['newly failing', 'newlyFailing'],
          ['fixed', 'fixed'],
          ['newly not run', 'newlyNotRun'],
          ['newly judged', 'newlyJudged'],
        ] as const
      ).map(([label, k]) =>
        row([
          label,
          r[k].length,
          r[k]
            .slice(0, 20)
            .map((x) => mdText(x))
            .join(', ') || 'none',
          t[k].length,
        ]),
      ),
    );
    if (s.comparison.slower.length)
      out.push(
        '',
        `Slower operations (median): ${s.comparison.slower.map((o) => `${mdText(o.operation)} ${o.beforeMs} → ${o.nowMs} ms`).join('; ')}`,
      );
  }
  const groups = (s.groups ?? []).filter((g) => g.severity === 'failure');
  if (groups.length) {
    out.push('', '### Root causes of the failures', '', row(['ids', 'endpoint', 'cause', 'times', 'tests']));
    out.push(row(['---', '---', '---', '---:', '---:']));
    for (const g of groups.slice(0, MAX_CAUSES))
      out.push(
        row([
          mdText(g.ids.join(' ')),
          g.endpoint ? mdText(g.endpoint) : g.endpoints ? `${g.endpoints.length} endpoints` : '',
          mdText(g.cause),
          g.count,
          g.tests.length,
        ]),
      );
    if (groups.length > MAX_CAUSES)
      out.push('', `… ${groups.length - MAX_CAUSES} more groups in report.html`);
  }
  const notRun = s.notRunGroups ?? [];
  if (notRun.length) {
    out.push('', '### Not run', '', row(['tests', 'why', 'to run them']), row(['---:', '---', '---']));
    for (const n of notRun.slice(0, MAX_NOT_RUN))
      out.push(
        row([
          n.count,
          mdText(notRunLabel(n.cause, n.reason)),
          n.notImplemented
            ? `see not implemented: ${mdText(n.notImplemented)}`
            : mdText(n.cause?.remedy ?? ''),
        ]),
      );
    if (notRun.length > MAX_NOT_RUN)
      out.push('', `… ${notRun.length - MAX_NOT_RUN} more reasons in report.html`);
  }
  const ids = (list: Record<string, number>) =>
    Object.entries(list)
      .map(([id, n]) => `${mdText(id)} ×${n}`)
      .join(', ');
  if (Object.keys(s.failedRequirements).length || Object.keys(s.advisoryRequirements).length) {
    out.push('', '### Requirements', '');
    if (Object.keys(s.failedRequirements).length) out.push(`- failed: ${ids(s.failedRequirements)}`);
    if (Object.keys(s.advisoryRequirements).length) out.push(`- advisory: ${ids(s.advisoryRequirements)}`);
  }
  out.push(
    '',
    'The whole report: report.html, summary.json, junit.xml and report.sarif in the report directory.',
    '',
  );
  return out.join('\n');
}

/**
 * Under GitHub Actions ($GITHUB_STEP_SUMMARY set), append a report's summary.md, as written (redacted),
 * to the job summary. A summary file that cannot be written is said, never a reason to lose the run.
 */
export function appendStepSummary(
  reportDir: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return undefined;
  try {
    appendFileSync(file, `${readFileSync(join(reportDir, SUMMARY_MD), 'utf8')}\n`);
    return undefined;
  } catch (err) {
    return `GITHUB_STEP_SUMMARY: cannot append to ${file} (${(err as Error).message})`;
  }
}
