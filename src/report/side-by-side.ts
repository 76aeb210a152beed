/**
 * `gateway-conformance compare --report-dir OUT DIR...`: several targets side by side. One
 * self-contained HTML page (no script, nothing loaded) and its Markdown twin: requirement x target
 * outcomes, each cell linking to that requirement's row in its own report, the rows where the targets
 * disagree first. For a gateway fronting several deployments, or a partner comparing environments.
 */
import { writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { catalogue } from '../catalogue.ts';
import { UsageError } from '../errors.ts';
import { attr, esc } from './html.ts';
import { makeReportDir, REPORT_FILES } from './layout.ts';
import { mdText } from './markdown.ts';
import type { RequirementOutcome } from './requirements.ts';
import { loadSummary } from './stored.ts';
import { type Summary, verdictWord } from './summary.ts';

export const COMPARE_HTML = 'compare.html';
export const COMPARE_MD = 'compare.md';

interface Column {
  dir: string;
  summary: Summary;
  /** The column's heading: the target's name, with the directory when two columns share a name. */
  label: string;
}

const load = (dir: string): Summary => loadSummary(dir, 'compare');

const outcomeOf = (s: Summary, id: string): RequirementOutcome => s.requirements?.[id]?.outcome ?? 'no_test';
const WORD: Record<RequirementOutcome, string> = {
  passed: 'passed',
  failed: 'failed',
  advisory: 'advisory',
  known_failure: 'known failure',
  not_run: 'not run',
  not_judged: 'not judged',
  harness_error: 'harness error',
  no_test: 'no test',
  inconclusive: 'inconclusive',
};

export interface SideBySide {
  requirements: number;
  differing: number;
}

/** Write compare.html and compare.md into `out` for the report directories `dirs`. */
export function compareTargets(dirs: string[], out: string): SideBySide {
  if (dirs.length < 2) throw new UsageError('compare: name at least two report directories');
  const loaded = dirs.map((d) => ({ dir: resolve(d), summary: load(d) }));
  const names = loaded.map((c) => c.summary.target.name);
  const columns: Column[] = loaded.map((c) => ({
    ...c,
    label:
      names.filter((n) => n === c.summary.target.name).length > 1
        ? `${c.summary.target.name} (${c.dir.split(sep).slice(-2).join('/')})`
        : c.summary.target.name,
  }));
  const ids = [
    ...new Set([
      ...[...catalogue().values()].map((r) => r.id),
      ...columns.flatMap((c) => Object.keys(c.summary.requirements ?? {})),
    ]),
  ];
  const differs = (id: string) => new Set(columns.map((c) => outcomeOf(c.summary, id))).size > 1;
  const differing = ids.filter(differs);
  makeReportDir(out);
  const link = (c: Column, id: string) => {
    const rel = relative(resolve(out), c.dir).split(sep).join('/') || '.';
    return `${rel}/${REPORT_FILES.html.name}#req-${encodeURIComponent(id)}`;
  };

  const cell = (c: Column, id: string) => {
    const o = outcomeOf(c.summary, id);
    const n = c.summary.requirements?.[id]?.tests.length ?? 0;
    return `<td class="c-${attr(o)}"><a href="${attr(link(c, id))}">${esc(WORD[o])}</a>${n ? ` <span class="muted">${esc(n)}</span>` : ''}</td>`;
  };
  const table = (list: string[]) =>
    `<table><thead><tr><th>requirement</th>${columns.map((c) => `<th>${esc(c.label)}</th>`).join('')}</tr></thead><tbody>${list
      .map(
        (id) =>
          `<tr id="r-${attr(id)}"><th><code>${esc(id)}</code></th>${columns.map((c) => cell(c, id)).join('')}</tr>`,
      )
      .join('')}</tbody></table>`;
  const head = columns
    .map((c) => {
      const s = c.summary;
      return `<tr><th>${esc(c.label)}</th><td class="v-${attr(s.verdict)}">${esc(verdictWord(s.verdict))}</td><td>${esc(s.target.baseUrl)}</td><td>${esc(s.startedAt)}</td><td>${esc(s.counts.passed)} / ${esc(s.counts.failed)} / ${esc(s.counts.advisory)} / ${esc(s.counts.not_run)}</td><td><a href="${attr(`${relative(resolve(out), c.dir).split(sep).join('/') || '.'}/${REPORT_FILES.html.name}`)}">report</a></td></tr>`;
    })
    .join('');
  const css = `body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328}table{border-collapse:collapse;margin:8px 0 24px}th,td{border:1px solid #d0d7de;padding:4px 10px;text-align:left}thead th{background:#f6f8fa}.muted{color:#656d76;font-size:12px}a{color:inherit}.c-passed{background:#dafbe1}.c-failed{background:#ffebe9}.c-advisory{background:#fff8c5}.c-known_failure{background:#fbefff}.c-not_run,.c-not_judged,.c-no_test,.c-inconclusive{background:#f6f8fa;color:#656d76}.c-harness_error{background:#fbefff}.v-passed{color:#1a7f37;font-weight:700}.v-failed,.v-harness_error{color:#cf222e;font-weight:700}.v-incomplete,.v-partial{color:#9a6700;font-weight:700}`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>gateway-conformance: ${esc(columns.length)} targets side by side</title><style>${css}</style></head><body>
<h1>${esc(columns.length)} targets side by side</h1>
<table><thead><tr><th>target</th><th>verdict</th><th>base URL</th><th>started</th><th>passed / failed / advisory / not run</th><th></th></tr></thead><tbody>${head}</tbody></table>
<h2>Where the targets differ <span class="muted">${esc(differing.length)} of ${esc(ids.length)} requirements</span></h2>
${differing.length ? table(differing) : '<p>Every requirement has the same outcome on every target.</p>'}
<h2>Every requirement</h2>
${table(ids)}
<p class="muted">Each cell links to that requirement in its own report; the number beside it is how many tests cite it there.</p>
</body></html>
`;
  writeFileSync(join(out, COMPARE_HTML), html);

  const mdRow = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const md = [
    `## gateway-conformance: ${columns.length} targets side by side`,
    '',
    mdRow(['target', 'verdict', 'passed', 'failed', 'advisory', 'not run']),
    mdRow(['---', '---', '---:', '---:', '---:', '---:']),
    ...columns.map((c) =>
      mdRow([
        mdText(c.label),
        verdictWord(c.summary.verdict),
        String(c.summary.counts.passed),
        String(c.summary.counts.failed),
        String(c.summary.counts.advisory),
        String(c.summary.counts.not_run),
      ]),
    ),
    '',
    `### Where the targets differ (${differing.length} of ${ids.length} requirements)`,
    '',
    ...(differing.length
      ? [
          mdRow(['requirement', ...columns.map((c) => mdText(c.label))]),
          mdRow(['---', ...columns.map(() => '---')]),
          ...differing.map((id) =>
            mdRow([mdText(id), ...columns.map((c) => WORD[outcomeOf(c.summary, id)])]),
          ),
        ]
      : ['Every requirement has the same outcome on every target.']),
    '',
  ].join('\n');
  writeFileSync(join(out, COMPARE_MD), md);
  return { requirements: ids.length, differing: differing.length };
}
