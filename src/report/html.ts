import { writeFileSync } from 'node:fs';
import { catalogue, idsOfTitle, type Requirement } from '../catalogue.ts';
import type { Exchange, RecordedBody } from '../http/client.ts';
import { onlyTooLarge } from '../openapi/guard.ts';
import type { Outcome } from '../vocabulary.ts';
import { type CurlTarget, curlCommand } from './curl.ts';
import { notRunKey, notRunLabel } from './groups.ts';
import { CSS, SCRIPT, SCRIPT_HASH } from './html-assets.ts';
import { ExchangeLog, reportFile } from './layout.ts';
import { inertLines } from './neutral.ts';
import { judgedOutcome, type RequirementOutcome, requirementResults } from './requirements.ts';
import { readOwnSummary } from './stored.ts';
import { balanceDeltaClause, holdsText, type StoredSummary, type Summary } from './summary.ts';
import type { TestResultRecord } from './test-result.ts';

/**
 * The HTML report: one self-contained file (inline CSS, one small inline script, no external asset,
 * a Content-Security-Policy that allows nothing else), readable without a network. Every string in it
 * may come from the remote target, so every string is escaped; the script carries no data (it reads
 * data-* attributes), and the CSP admits only that script, by its hash.
 */

export interface HtmlReportInput {
  summary: StoredSummary;
  /** The requirement catalogue (fixtures/requirements.yaml), in catalogue order. */
  requirements: Iterable<Requirement>;
  /** Exchanges cited by violations but missing from their test record (read from exchanges.ndjson). */
  extraExchanges?: ReadonlyMap<string, Exchange>;
  /** When the report was written (default: now). */
  generatedAt?: string;
}

/** Cited exchanges embedded in full per test; more are listed by one line each. */
const MAX_EXCHANGES_PER_TEST = 3;
const MAX_VIOLATIONS_PER_TEST = 40;
const MAX_TITLES_PER_REASON = 300;
/** Failure cards open when the page loads; the others open on a click. */
const OPEN_CARDS = 8;

type RowOutcome = RequirementOutcome;

const LABEL: Record<RowOutcome, string> = {
  passed: 'passed',
  failed: 'failed',
  advisory: 'advisory',
  known_failure: 'known failure',
  inconclusive: 'inconclusive',
  not_run: 'not run',
  not_judged: 'not judged',
  harness_error: 'harness error',
  no_test: 'no test',
};

// ------------------------------------------------------------------------------------------ escaping

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const str = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);

/**
 * Element text, HTML-escaped (& < >; quotes are inert in text and cost bytes in JSON bodies), control
 * characters shown escaped (src/report/neutral.ts).
 */
export function esc(value: unknown): string {
  return inertLines(str(value)).replace(/[&<>]/g, (c) => ESC[c]!);
}

/** An attribute value (always written in double quotes), HTML-escaped. */
export function attr(value: unknown): string {
  return inertLines(str(value)).replace(/[&<>"']/g, (c) => ESC[c]!);
}

/** Ids for element attributes: only [A-Za-z0-9_-]. */
const anchor = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_');

// ------------------------------------------------------------------------------------------ helpers

function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function badge(o: RowOutcome, text = LABEL[o]): string {
  return `<span class="badge b-${o}">${esc(text)}</span>`;
}

function chips(items: string[], cls = 'chip'): string {
  return items.length
    ? items.map((i) => `<span class="${cls}">${esc(i)}</span>`).join(' ')
    : '<span class="muted">none</span>';
}

/** A JSON preview, pretty-printed when it parses and stays short; else as recorded. */
function prettyBody(preview: string): string {
  if (preview.endsWith('…')) return preview;
  try {
    const pretty = JSON.stringify(JSON.parse(preview), null, 2);
    return pretty.split('\n').length <= 60 ? pretty : preview;
  } catch {
    return preview;
  }
}

/** A test title without the requirement ids it opens with. */
const withoutIds = (title: string): string => title.split(/\s+/).slice(idsOfTitle(title).length).join(' ');

function short(v: unknown, max = 300): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

// ------------------------------------------------------------------------------------------ model

interface ReqRow {
  req: Requirement | undefined;
  id: string;
  section: string;
  outcome: RowOutcome;
  citing: number[];
  failedIn: number[];
  knownIn: number[];
  advisoryIn: number[];
  reasons: string[];
  /** The tests that observed its form (RequirementResult.observed). */
  observed?: number[];
  places?: { applicable: number; aimed?: number; judged: number; unjudged: string[]; aimedOnly?: string[] };
}

/** The summary's per-requirement results (computed once, in summary.ts), with the catalogue's words. */
function requirementRows(s: StoredSummary, reqs: Requirement[]): ReqRow[] {
  const byId = new Map(reqs.map((r) => [r.id, r]));
  return Object.entries(s.requirements).map(([id, r]) => ({
    req: byId.get(id),
    id,
    section: byId.get(id)?.section ?? 'Not in the catalogue',
    outcome: r.outcome,
    citing: r.tests,
    failedIn: r.failed,
    knownIn: r.known,
    advisoryIn: r.advisory,
    reasons: r.reasons,
    ...(r.observed ? { observed: r.observed } : {}),
    ...(r.places ? { places: r.places } : {}),
  }));
}

// ------------------------------------------------------------------------------------------ sections

function idLinks(list: Array<[string, number]>, max = 24): string {
  const shown = list
    .slice(0, max)
    .map(
      ([id, n]) => `<a class="rid" href="#req-${anchor(id)}">${esc(id)}</a><span class="x">×${esc(n)}</span>`,
    )
    .join(' ');
  return list.length > max ? `${shown} <span class="x">+${esc(list.length - max)} more</span>` : shown;
}

function verdictSection(s: StoredSummary, rows: ReqRow[]): string {
  const c = s.counts;
  const known = c.known_failure ?? 0;
  const inconclusive = c.inconclusive ?? 0;
  const verdictText = s.verdict === 'harness_error' ? 'harness error' : s.verdict;
  const ids = (pick: (r: ReqRow) => number[]) =>
    rows.filter((r) => pick(r).length > 0).map((r) => [r.id, pick(r).length] as [string, number]);
  const failedIds = ids((r) => r.failedIn);
  const knownIds = ids((r) => r.knownIn);
  const advIds = ids((r) => r.advisoryIn);
  const tile = (key: Outcome | 'total', label: string, n: number) =>
    `<div class="tile t-${key}"><span class="n" data-count="${key}">${esc(n)}</span><span class="l">${esc(label)}</span></div>`;
  const line = s.dryRun
    ? 'Dry run: the plan only, no request was sent'
    : s.verdict === 'failed'
      ? `${plural(c.failed, 'test')} failed${failedIds.length ? ` on ${plural(failedIds.length, 'requirement')}` : ''}`
      : s.verdict === 'harness_error'
        ? `${plural(c.harness_error, 'harness error')}: a fault of the suite, not of the target`
        : 'Every check that ran held';
  return `<section class="verdict v-${attr(s.verdict)}" id="verdict">
<div class="vmain"><div class="vlabel">Verdict</div><div class="vtext" id="verdict-text" data-verdict="${attr(s.verdict)}">${esc(verdictText.toUpperCase())}</div>
<div class="vline">${esc(line)}</div>
${s.interrupted ? `<div class="vwarn">INCOMPLETE: ${esc(s.interrupted)}; the tests it did not reach are not run</div>` : ''}
${s.inconclusive ? `<div class="vwarn">INCOMPLETE: ${esc(s.inconclusive)}</div>` : ''}
${failedIds.length ? `<div class="vids">failed: ${idLinks(failedIds)}</div>` : ''}
${knownIds.length ? `<div class="vids">known failures: ${idLinks(knownIds)}</div>` : ''}
${advIds.length ? `<div class="vids">advisory: ${idLinks(advIds)}</div>` : ''}
</div>
<div class="tiles">${tile('passed', 'passed', c.passed)}${tile('failed', 'failed', c.failed)}${known ? tile('known_failure', 'known failures', known) : ''}${inconclusive ? tile('inconclusive', 'inconclusive', inconclusive) : ''}${tile('advisory', 'advisory', c.advisory)}${tile('not_run', 'not run', c.not_run)}${tile('harness_error', 'harness errors', c.harness_error)}${tile('total', 'tests', c.total)}</div>
</section>`;
}

/** The live description's state: valid, invalid (OAS-001), or beyond what the suite examines (OAS-006). */
function descriptionChip(o: Summary['openapi']): string {
  if (o.valid) return `<span class="chip ok">valid OpenAPI ${esc(o.version ?? '3.1')}</span>`;
  if (!onlyTooLarge(o))
    return `<span class="chip bad">invalid: ${esc(plural(o.errors.length, 'error'))}</span>`;
  return `<span class="chip">not examined: beyond the suite's bounds</span> <span class="muted">${esc((o.tooLarge ?? []).join('; '))}</span>`;
}

function factsSection(s: StoredSummary, generatedAt: string): string {
  const t = s.target;
  const fact = (k: string, v: string) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`;
  const models = Object.entries(t.models ?? {});
  const rows = [
    fact(
      'Target',
      `<strong>${esc(t.name)}</strong>${t.embedded ? ' <span class="chip">embedded reference</span>' : ''}`,
    ),
    fact('Base URL', `<code>${esc(t.baseUrl)}</code>`),
    fact(
      'Suite',
      `${esc(s.suite.name)} <code>${esc(s.suite.version)}</code>${s.suite.node ? ` on Node.js <code>${esc(s.suite.node)}</code>` : ''}`,
    ),
    s.profile !== undefined ? fact('Profile', `<code>${esc(s.profile)}</code>`) : '',
    s.shard ? fact('Shard', `<code>${esc(s.shard)}</code>`) : '',
    s.shards?.length ? fact('Shards', chips(s.shards)) : '',
    s.dryRun ? fact('Dry run', 'yes: no request was sent') : '',
    s.interrupted ? fact('Interrupted', `<span class="c-failed">${esc(s.interrupted)}</span>`) : '',
    fact(
      'Live OpenAPI',
      s.openapi.sha256
        ? `sha256 <code class="hash">${esc(s.openapi.sha256)}</code> ${descriptionChip(s.openapi)}`
        : `<span class="chip bad">not fetched</span> ${esc(s.openapi.errors.join('; '))}`,
    ),
    s.openapi.validatedAgainst
      ? fact(
          'Responses validated against',
          s.openapi.validatedAgainst === 'live'
            ? 'the live description'
            : `<span class="chip${onlyTooLarge(s.openapi) ? '' : ' bad'}">the documented schemas (schemas/)</span> <span class="muted">${esc(s.openapi.documentedBecause ?? 'the live description is not usable, see OAS-001')}</span>`,
        )
      : '',
    fact('Started at', `<code>${esc(s.startedAt)}</code>`),
    fact('Duration', esc(fmtMs(s.durationMs))),
    // A capture was judged, not run: no seed, roles, classes or models of its own; what it holds instead.
    ...(s.capture
      ? [
          fact('Capture', s.capture.files.map((f) => `<code>${esc(f)}</code>`).join(' ')),
          fact(
            'Entries',
            `${esc(s.capture.exchangesJudged)} exchanges judged of ${esc(s.capture.entries)} entries`,
          ),
          s.capture.holds ? fact('The capture holds', esc(holdsText(s.capture.holds))) : '',
          s.capture.holds?.endpoints.length
            ? fact(
                'Endpoints',
                `${chips(s.capture.holds.endpoints)}${s.capture.holds.moreEndpoints ? ` <span class="muted">and ${esc(s.capture.holds.moreEndpoints)} more</span>` : ''}`,
              )
            : '',
          fact(
            'Strict',
            s.strict ? 'yes: implied invariants fail the run' : 'no: implied invariants are advisory',
          ),
        ]
      : [
          fact(
            'Seed',
            `<code>${esc(s.seed)}</code> <span class="muted">replay with</span> <code>--seed ${esc(s.seed)}</code>`,
          ),
          fact(
            'Strict',
            s.strict ? 'yes: implied invariants fail the run' : 'no: implied invariants are advisory',
          ),
          fact('Allowed side effects', chips(t.allow ?? [])),
          fact(
            'Roles',
            `${chips(t.roles ?? [])} <span class="muted">(${esc((t.roles ?? []).length)})</span>`,
          ),
          models.length
            ? fact(
                'Models',
                models
                  .map(([h, m]) => `<span class="chip">${esc(h)}: <code>${esc(m)}</code></span>`)
                  .join(' '),
              )
            : '',
        ]),
    fact(
      'Exchanges',
      `${esc(s.exchanges?.count ?? 0)} recorded in <code>${esc(s.exchanges?.file ?? '')}</code>`,
    ),
    fact('Report written', `<code>${esc(generatedAt)}</code>`),
  ];
  return `<section id="run"><h2>Run</h2><table class="facts">${rows.join('')}</table></section>`;
}

/**
 * What this run judged first (a requirement counts when a test citing it ran and was decided), then the
 * catalogue's coverage: a run that judged a fifth of the requirements never shows a full bar.
 */
function coverageSection(s: StoredSummary): string {
  const cov = s.coverage;
  const share = (n: number) => (cov.testable ? Math.round((n / cov.testable) * 1000) / 10 : 0);
  const judged = Object.entries(s.requirements ?? {}).filter(
    ([id, r]) => judgedOutcome(r.outcome) && !cov.untested.includes(id) && !cov.unknownIds.includes(id),
  ).length;
  const pct = share(cov.tested);
  const judgedPct = share(judged);
  return `<section id="coverage"><h2>Coverage</h2>
<div class="cov"><div class="bar"><div class="fill" style="width:${attr(judgedPct)}%"></div></div>
<div><strong data-coverage="judged">${esc(judged)}</strong> of <strong data-coverage="testable">${esc(cov.testable)}</strong> testable requirements judged by this ${s.capture ? 'capture' : 'run'} (${esc(judgedPct)}%)</div></div>
<div class="cov small"><div class="bar"><div class="fill" style="width:${attr(pct)}%"></div></div>
<div><strong data-coverage="tested">${esc(cov.tested)}</strong> ${s.capture ? 'are judged by check-traffic' : 'have a test in the suite'} (${esc(pct)}%)</div></div>
${cov.untested.length ? `<p>${s.capture ? 'Not judged by check-traffic (live runs judge them)' : 'Untested'}: ${cov.untested.map((id) => `<a class="rid" href="#req-${anchor(id)}">${esc(id)}</a>`).join(' ')}</p>` : ''}
${cov.unknownIds.length ? `<p class="warn">Ids cited by tests that the catalogue lacks: ${chips(cov.unknownIds, 'rid')}</p>` : ''}
</section>`;
}

function matrixSection(rows: ReqRow[], s: StoredSummary): string {
  const order: RowOutcome[] = [
    'failed',
    'harness_error',
    'known_failure',
    'advisory',
    'inconclusive',
    'not_judged',
    'not_run',
    'passed',
    'no_test',
  ];
  const counts = new Map<RowOutcome, number>(
    order.map((o) => [o, rows.filter((r) => r.outcome === o).length]),
  );
  const sections = new Map<string, ReqRow[]>();
  for (const r of rows) sections.set(r.section, [...(sections.get(r.section) ?? []), r]);
  const firstCard = (list: number[]) => (list.length ? `#t-${list[0]}` : '');
  const bodies = [...sections].map(([section, list]) => {
    const bad = list.filter((r) => r.outcome === 'failed').length;
    const head = `<tr class="sec-h"><th colspan="6">${esc(section)} <span class="muted">${esc(plural(list.length, 'requirement'))}${bad ? ` · <span class="c-failed">${esc(bad)} failed</span>` : ''}</span></th></tr>`;
    const trs = list.map((r) => {
      const words = r.req?.words ?? '';
      // Test titles (without their leading ids) for the text filter; the row's own text covers the rest.
      const titles = [...new Set(r.citing.map((i) => withoutIds(s.tests[i]!.title)))];
      let detail = '';
      if (r.outcome === 'failed')
        detail = `<a href="${firstCard(r.failedIn)}">failed in ${esc(plural(r.failedIn.length, 'test'))}</a>`;
      else if (r.outcome === 'advisory')
        detail = `<a href="${firstCard(r.advisoryIn)}">advisory in ${esc(plural(r.advisoryIn.length, 'test'))}</a>`;
      else if (r.outcome === 'known_failure')
        detail = `<a href="${firstCard(r.knownIn)}">known failure in ${esc(plural(r.knownIn.length, 'test'))}</a>`;
      else if (r.outcome === 'harness_error') detail = 'a test citing it hit a harness error';
      else if (r.outcome === 'inconclusive') {
        const list = r.citing.filter((i) => s.tests[i]!.outcome === 'inconclusive');
        detail = `<a href="${firstCard(list)}">inconclusive in ${esc(plural(list.length, 'test'))}</a>`;
      } else if (r.outcome === 'not_run' || r.outcome === 'not_judged')
        detail = `<span class="reason">${esc(r.reasons[0] ?? '')}</span>${r.reasons.length > 1 ? ` <span class="muted">(+${esc(r.reasons.length - 1)} more)</span>` : ''}`;
      else if (r.outcome === 'no_test')
        detail = r.req
          ? r.req.testable
            ? '<span class="c-failed">testable, but no test cites it</span>'
            : `<span class="muted clamp" title="${attr(r.req.why ?? '')}">not testable${r.req.why ? `: ${esc(r.req.why)}` : ''}</span>`
          : '';
      const ran = r.citing.filter((i) => s.tests[i]!.outcome !== 'not_run').length;
      if (r.outcome === 'passed') {
        // Its own checks held; a citing test may still have failed on another requirement.
        const other = r.citing.filter((i) => s.tests[i]!.outcome === 'failed');
        const seen = r.observed?.length ?? ran;
        detail = `<span class="muted">held in ${esc(plural(seen, 'test'))} that saw its form</span>${other.length ? ` · <a href="#t-${other[0]}">${esc(other.length)} failed on other requirements</a>` : ''}`;
      }
      const testsCell = r.citing.length
        ? `${esc(ran)}<span class="muted">/${esc(r.citing.length)}</span>`
        : '<span class="muted">0</span>';
      // Places (fixtures/applicability.yaml) judged by the run: the title lists those it did not judge.
      const placesCell = r.places
        ? `<span title="${attr(r.places.unjudged.length ? `not judged: ${r.places.unjudged.join('; ')}${r.places.aimedOnly?.length ? ` (aimed at, the form never shown: ${r.places.aimedOnly.join('; ')})` : ''}` : 'every applicable place judged')}"${r.places.judged < r.places.applicable ? ' class="c-advisory"' : ''}>${esc(r.places.judged)}<span class="muted">/${esc(r.places.applicable)}</span></span>`
        : '<span class="muted">-</span>';
      const readings = r.req?.readings?.length
        ? `<ul class="readings">${r.req.readings.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>`
        : '';
      const wordsCell = r.req
        ? `<details class="words"><summary title="${attr(words)}">${esc(words)}</summary>${readings}</details>`
        : '<span class="muted">cited by a test, missing from fixtures/requirements.yaml</span>';
      return `<tr class="req o-${r.outcome}" id="req-${anchor(r.id)}" data-outcome="${r.outcome}" data-tests="${attr(titles.join(' | '))}">
<td class="id"><span class="rid">${esc(r.id)}</span>${r.req ? `<span class="lvl l-${attr(r.req.level)}">${esc(r.req.level)}</span>` : ''}</td>
<td class="oc">${badge(r.outcome)}</td><td class="detail">${detail}</td><td class="num" title="tests that ran / tests citing it">${testsCell}</td><td class="num places">${placesCell}</td><td class="w">${wordsCell}</td></tr>`;
    });
    return `<tbody class="sec">${head}${trs.join('')}</tbody>`;
  });
  const buttons = [
    `<button type="button" data-filter="all" aria-pressed="true">all <span class="n">${esc(rows.length)}</span></button>`,
    ...order
      // Rare outcomes get a button only when some requirement has them.
      .filter(
        (o) =>
          (o !== 'harness_error' && o !== 'known_failure' && o !== 'inconclusive') ||
          (counts.get(o) ?? 0) > 0,
      )
      .map(
        (o) =>
          `<button type="button" data-filter="${o}" class="f-${o}" aria-pressed="false">${esc(LABEL[o])} <span class="n">${esc(counts.get(o) ?? 0)}</span></button>`,
      ),
  ].join('');
  const placed = rows.filter((r) => r.places);
  const judged = placed.reduce((n, r) => n + (r.places?.judged ?? 0), 0);
  const applicable = placed.reduce((n, r) => n + (r.places?.applicable ?? 0), 0);
  const placesNote = applicable
    ? ` · <span data-places-judged="${judged}" data-places-applicable="${applicable}">${esc(judged)} of ${esc(applicable)} places judged</span>`
    : '';
  return `<section id="requirements"><h2>Requirements <span class="muted">${esc(plural(rows.length, 'requirement'))} by contract section${placesNote}</span></h2>
<div class="filters" role="group" aria-label="filter requirements"><div class="seg">${buttons}</div>
<input type="search" id="q" placeholder="filter by id, section, words or test title" aria-label="filter text" autocomplete="off">
<span class="muted" id="shown">${esc(rows.length)} of ${esc(rows.length)}</span></div>
<table class="matrix" id="matrix"><thead><tr><th>Requirement</th><th>Outcome</th><th>Detail</th><th class="num">Tests</th><th class="num" title="places of the applicability map judged / applicable">Places</th><th>The contract's words</th></tr></thead>
${bodies.join('\n')}</table></section>`;
}

function headersTable(h: Record<string, string> | undefined): string {
  const entries = Object.entries(h ?? {});
  if (!entries.length) return '<div class="muted small">no headers recorded</div>';
  return `<table class="hdrs">${entries.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>`;
}

function bodyBlock(b: RecordedBody | undefined): string {
  if (!b || b.bytes === 0) return '<div class="muted small">no body</div>';
  const meta = `<div class="bmeta">${esc(plural(b.bytes, 'byte'))}${b.contentType ? ` · ${esc(b.contentType)}` : ''} · sha256 <code class="hash">${esc(b.sha256.slice(0, 16))}…</code></div>`;
  if (b.preview === undefined) return `${meta}<div class="muted small">binary body: digest only</div>`;
  return `${meta}<pre class="body">${esc(prettyBody(b.preview))}</pre>`;
}

function exchangeBlock(ex: Exchange, key: string, target: CurlTarget): string {
  const status =
    ex.status !== undefined
      ? `<span class="status s${anchor(String(ex.status).slice(0, 1))}xx">${esc(ex.status)}</span>`
      : `<span class="status s5xx">no response${ex.error ? `: ${esc(ex.error.code)}` : ''}</span>`;
  const { command, notes } = curlCommand(ex, target);
  const rid = ex.requestId ?? ex.responseHeaders?.['x-request-id'];
  return `<div class="exchange" id="x-${key}">
<div class="reqline"><span class="method">${esc(ex.method)}</span> <code class="path">${esc(ex.path)}</code> <span class="arrow">→</span> ${status}
<span class="muted">${esc(fmtMs(ex.durationMs))}</span> <span class="xrid">X-Request-ID <code>${rid ? esc(rid) : '<span class="muted">none</span>'}</code></span>
<span class="muted small">exchange ${esc(ex.id)} · ${esc(ex.startedAt)}</span></div>
${ex.error ? `<div class="err">${esc(ex.error.code)}: ${esc(ex.error.message)}</div>` : ''}
${ex.retries?.length ? `<div class="muted small">after ${esc(ex.retries.map((r) => `${r.status} (waited ${fmtMs(r.waitedMs)})`).join(', '))}</div>` : ''}
<div class="cols"><div class="col"><h4>Request</h4>${headersTable(ex.requestHeaders)}${bodyBlock(ex.requestBody)}</div>
<div class="col"><h4>Response</h4>${ex.status !== undefined ? `${headersTable(ex.responseHeaders)}${bodyBlock(ex.responseBody)}` : '<div class="muted small">none</div>'}</div></div>
<div class="curl"><div class="curl-h"><h4>Reproduce</h4><button type="button" class="copy" data-copy="c-${key}">copy</button></div>
<pre class="cmd" id="c-${key}">${esc(command)}</pre>${notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}</div>
</div>`;
}

function testCard(
  t: TestResultRecord,
  i: number,
  s: StoredSummary,
  reqs: Map<string, Requirement>,
  extra: ReadonlyMap<string, Exchange> | undefined,
  open: boolean,
): string {
  const ids = [...new Set([...t.ids, ...t.violations.map((v) => v.id)])];
  const reqList = ids
    .map((id) => {
      const r = reqs.get(id);
      return `<li><a class="rid" href="#req-${anchor(id)}">${esc(id)}</a>${r ? ` <span class="lvl l-${attr(r.level)}">${esc(r.level)}</span> <span class="sect">${esc(r.section)}</span> <q>${esc(r.words)}</q>` : ' <span class="muted">not in the catalogue</span>'}</li>`;
    })
    .join('');
  // Exchanges: those the record carries, in the order violations cite them, then any others it carries.
  const own = new Map(t.exchanges.map((e) => [e.id, e]));
  const cited: Exchange[] = [];
  const seen = new Set<string>();
  const missing: string[] = [];
  for (const id of [...t.violations.map((v) => v.exchangeId), ...t.exchanges.map((e) => e.id)]) {
    if (!id || seen.has(id)) continue;
    seen.add(id);
    const ex = own.get(id) ?? extra?.get(id);
    if (ex) cited.push(ex);
    else missing.push(id);
  }
  const keyOf = new Map(cited.map((e, j) => [e.id, `${i}-${j}`]));
  const shown = t.violations.slice(0, MAX_VIOLATIONS_PER_TEST);
  const violations = shown
    .map((v) => {
      const k = v.exchangeId ? keyOf.get(v.exchangeId) : undefined;
      const ev = [
        v.expected !== undefined ? `expected <code>${esc(short(v.expected))}</code>` : '',
        v.received !== undefined ? `received <code>${esc(short(v.received))}</code>` : '',
        v.pointer ? `at <code>${esc(v.pointer)}</code>` : '',
        k
          ? `<a href="#x-${k}">exchange</a>`
          : v.exchangeId
            ? `exchange <code>${esc(v.exchangeId)}</code>`
            : '',
      ].filter(Boolean);
      return `<li class="v v-${attr(v.severity)}"><span class="rid">${esc(v.id)}</span> ${badge(v.severity === 'failure' ? 'failed' : 'advisory', v.severity)} <span class="msg">${esc(v.message)}</span>${v.count > 1 ? ` <span class="x">×${esc(v.count)}</span>` : ''}${ev.length ? `<div class="ev">${ev.join(' · ')}</div>` : ''}</li>`;
    })
    .join('');
  const more =
    t.violations.length > shown.length
      ? `<li class="muted">… ${esc(t.violations.length - shown.length)} more in summary.json</li>`
      : '';
  const full = cited.slice(0, MAX_EXCHANGES_PER_TEST);
  const rest = cited.slice(MAX_EXCHANGES_PER_TEST);
  const restList = rest.length
    ? `<ul class="more-x">${rest.map((e) => `<li id="x-${keyOf.get(e.id)}"><code>${esc(e.method)} ${esc(e.path)}</code> → ${esc(e.status ?? e.error?.code ?? '?')} <span class="muted">X-Request-ID ${esc(e.requestId ?? 'none')} · exchange ${esc(e.id)}</span></li>`).join('')}</ul>`
    : '';
  const missingNote = missing.length
    ? `<p class="muted small">Cited exchanges not embedded (see exchanges.ndjson): ${missing.map((m) => `<code>${esc(m)}</code>`).join(' ')}</p>`
    : '';
  const cleanup = t.cleanup?.failed.length
    ? `<p class="warn">Left behind: ${t.cleanup.failed.map((x) => `<code>${esc(x)}</code>`).join(' ')}</p>`
    : '';
  const first = t.violations.find((v) => v.severity === 'failure') ?? t.violations[0];
  const gist = first ? `[${first.id}] ${first.message}` : (t.error ?? t.reason ?? '');
  return `<details class="card o-${t.outcome}" id="t-${i}"${open ? ' open' : ''}>
<summary>${badge(t.outcome)} <h3>${esc(t.title)}</h3><div class="gist">${esc(gist.length > 240 ? `${gist.slice(0, 240)}…` : gist)}</div></summary>
<div class="meta"><code>${esc(t.file)}</code>${t.effect ? ` · <span class="chip">${esc(t.effect)}</span>` : ''} · ${esc(fmtMs(t.durationMs))} · ${esc(plural(t.exchangeCount, 'exchange'))}</div>
<ul class="reqs">${reqList}</ul>
${t.outcome === 'known_failure' && t.reason ? `<p class="known">Expected: ${esc(t.reason)}</p>` : ''}
${t.outcome === 'inconclusive' && t.reason ? `<p class="known">${esc(t.reason)}${t.flaky ? ` (allowed: ${esc(t.flaky)})` : ''}</p>` : ''}
${t.retried ? `<p class="muted">${esc(plural(t.retried, 'request'))} repeated on a fresh connection after a connection failure</p>` : ''}
${(t.notes ?? []).map((n) => `<p class="muted small">${esc(n)}</p>`).join('')}
${t.error ? `<pre class="error">${esc(t.error)}</pre>` : ''}
${t.violations.length ? `<ul class="violations">${violations}${more}</ul>` : ''}
${full.map((e) => exchangeBlock(e, keyOf.get(e.id)!, s.target)).join('')}${restList}${missingNote}${cleanup}
</details>`;
}

function failuresSection(
  s: StoredSummary,
  reqs: Map<string, Requirement>,
  extra?: ReadonlyMap<string, Exchange>,
): string {
  const idx = (o: Outcome) => s.tests.map((t, i) => [t, i] as const).filter(([t]) => t.outcome === o);
  const cards = (list: ReadonlyArray<readonly [TestResultRecord, number]>, openFirst: number) =>
    list.map(([t, i], j) => testCard(t, i, s, reqs, extra, j < openFirst)).join('');
  const tools = (id: string, n: number) =>
    n > 1
      ? `<span class="tools"><button type="button" data-expand="${id}">expand all</button><button type="button" data-collapse="${id}">collapse all</button></span>`
      : '';
  const failed = idx('failed');
  const advisory = idx('advisory');
  const harness = idx('harness_error');
  const known = idx('known_failure');
  const inconclusive = idx('inconclusive');
  const out: string[] = [];
  const harnessList = s.harnessErrors ?? [];
  if (harness.length || harnessList.length) {
    out.push(`<section id="harness"><h2>Harness errors <span class="count c-harness_error">${esc(harness.length + harnessList.length)}</span>${tools('harness', harness.length)}</h2>
<p class="muted">Faults of the suite itself, kept apart from the target's.</p>
${harnessList.map((e) => `<pre class="error">${esc(e)}</pre>`).join('')}
${cards(harness, OPEN_CARDS)}</section>`);
  }
  out.push(`<section id="failures"><h2>Failures <span class="count c-failed">${esc(failed.length)}</span>${tools('failures', failed.length)}</h2>
${failed.length ? `${failed.length > OPEN_CARDS ? `<p class="muted small">The first ${OPEN_CARDS} are open; click a title to open the others.</p>` : ''}${cards(failed, OPEN_CARDS)}` : '<p class="muted">No test failed.</p>'}</section>`);
  if (known.length)
    out.push(`<section id="known"><h2>Known failures <span class="count c-known_failure">${esc(known.length)}</span>${tools('known', known.length)}</h2>
<p class="muted">Failed tests that the target's expectations file lists with a reason and an expiry date: they do not fail the run.</p>
${cards(known, 0)}</section>`);
  if (inconclusive.length)
    out.push(`<section id="inconclusive"><h2>Inconclusive <span class="count c-inconclusive">${esc(inconclusive.length)}</span>${tools('inconclusive', inconclusive.length)}</h2>
<p class="muted">A connection failed before any byte of a response and the request was not safe to repeat: nothing is known, neither passed nor failed. The run is not PASSED unless a flaky: entry allows them.</p>
${cards(inconclusive, 0)}</section>`);
  if (advisory.length)
    out.push(`<section id="advisories"><h2>Advisories <span class="count c-advisory">${esc(advisory.length)}</span>${tools('advisories', advisory.length)}</h2>
<p class="muted">Implied invariants (failures under --strict) and what the contract leaves open but a user would want to know.</p>
${cards(advisory, 0)}</section>`);
  return out.join('\n');
}

/** What changed since the compared report (--compare-with): the lists a release engineer reads first. */
function comparisonSection(s: StoredSummary): string {
  const c = s.comparison;
  if (!c) return '';
  const cell = (ids: string[], cls: string) =>
    ids.length
      ? `<td class="${cls}">${ids.map((id) => `<code>${esc(id)}</code>`).join(' ')}</td>`
      : '<td class="muted">none</td>';
  const row = (label: string, key: keyof typeof c.requirements, cls: string) =>
    `<tr><th>${esc(label)}</th><td>${esc(c.requirements[key].length)}</td>${cell(c.requirements[key], cls)}<td>${esc(c.tests[key].length)}</td></tr>`;
  const slower = c.slower.length
    ? `<p>Slower operations (median exchange time): ${c.slower.map((o) => `<code>${esc(o.operation)}</code> ${esc(o.beforeMs)} → ${esc(o.nowMs)} ms`).join('; ')}</p>`
    : '';
  return `<section id="since"><h2>Since the compared run <span class="muted"><code>${esc(c.against)}</code>, ${esc(c.againstStartedAt)}, ${esc(c.againstVerdict.toUpperCase().replace('_', ' '))}</span></h2>
<table class="small-t" data-comparison><thead><tr><th></th><th>requirements</th><th>which</th><th>tests</th></tr></thead>
${row('newly failing', 'newlyFailing', 'c-failed')}${row('fixed', 'fixed', 'c-passed')}${row('newly not run', 'newlyNotRun', 'c-not_run')}${row('newly judged', 'newlyJudged', '')}</table>${slower}</section>`;
}

/**
 * The violations grouped by root cause (summary.groups): one row per group, the first example in full. The
 * heading counts the rows listed: the groups of failures, and beside them the advisory groups.
 */
function rootCausesSection(s: StoredSummary): string {
  const groups = s.groups ?? [];
  if (groups.length === 0) return '';
  const KIND = {
    not_implemented: 'not implemented',
    finding: "the test's own finding",
    exchange: 'check of every exchange',
  };
  const rows = groups
    .map((g) => {
      const e = g.example;
      const tests = g.tests.slice(0, MAX_TITLES_PER_REASON);
      const cause = g.cause;
      return `<tr class="${g.severity === 'failure' ? 'c-failed' : 'c-advisory'}"><td>${esc(KIND[g.kind])}</td><td>${chips(g.ids)}</td><td>${g.endpoint ? `<code>${esc(g.endpoint)}</code>` : g.endpoints ? `<span title="${esc(g.endpoints.join(', '))}">${esc(g.endpoints.length)} endpoints</span>` : ''}</td><td>${esc(cause)}${g.pointer ? ` <code>${esc(g.pointer)}</code>` : ''}<details><summary>${esc(g.tests.length)} test(s)${g.notRun?.length ? `, ${esc(g.notRun.length)} not run because of it` : ''}; first example</summary><p><strong>${esc(e.test)}</strong>: [${esc(e.id)}] ${esc(e.message)}</p>${e.received !== undefined ? `<p>received <code>${esc(short(e.received))}</code></p>` : ''}${e.expected !== undefined ? `<p>expected <code>${esc(short(e.expected))}</code></p>` : ''}<ul class="titles">${tests.map((t) => `<li>${esc(t)}</li>`).join('')}${g.tests.length > tests.length ? `<li class="muted">… ${esc(g.tests.length - tests.length)} more in summary.json</li>` : ''}</ul></details></td><td>${esc(g.count)}</td></tr>`;
    })
    .join('');
  const failing = groups.filter((g) => g.severity === 'failure').length;
  const advisory = groups.length - failing;
  const counts = `${failing ? `<span class="count c-failed" title="groups of failures">${esc(failing)}</span>` : ''}${advisory ? `<span class="count c-advisory" title="advisory groups">${esc(advisory)}</span>` : ''}`;
  return `<section id="causes"><h2>Root causes ${counts}</h2>
<p class="muted">Violations grouped by requirement, endpoint, location and cause across tests; every test's own detail is below and in summary.json.</p>
<table class="small-t" data-groups><thead><tr><th>kind</th><th>ids</th><th>endpoint</th><th>cause</th><th>times</th></tr></thead>${rows}</table></section>`;
}

function notRunSection(s: StoredSummary): string {
  // The console's groups (groups.ts: one per typed cause, else per reason), with their tests listed.
  const byKey = new Map<string, { label: string; tests: TestResultRecord[] }>();
  for (const t of s.tests)
    if (t.outcome === 'not_run') {
      const c = t.cause;
      const key = notRunKey(t);
      const g = byKey.get(key);
      if (g) g.tests.push(t);
      else
        byKey.set(key, {
          label: `${notRunLabel(c, t.reason ?? 'no reason given')}${c?.remedy ? ` — to run: ${c.remedy}` : ''}`,
          tests: [t],
        });
    }
  const groups = new Map([...byKey.values()].map((g) => [g.label, g.tests]));
  const byClass = Object.entries(s.skippedByClass ?? {});
  const classes = byClass.length
    ? `<p>Not run by side-effect class: ${byClass.map(([k, n]) => `<span class="chip">${esc(k)} <strong>${esc(n)}</strong></span>`).join(' ')}</p>`
    : '';
  const list = [...groups]
    .sort((a, b) => b[1].length - a[1].length)
    .map(([reason, tests]) => {
      const shown = tests.slice(0, MAX_TITLES_PER_REASON);
      return `<details class="reason-g"><summary><span class="count c-not_run">${esc(tests.length)}</span> ${esc(reason)}</summary><ul class="titles">${shown.map((t) => `<li>${esc(t.title)}</li>`).join('')}${tests.length > shown.length ? `<li class="muted">… ${esc(tests.length - shown.length)} more in summary.json</li>` : ''}</ul></details>`;
    })
    .join('');
  return `<section id="notrun"><h2>Not run <span class="count c-not_run">${esc(s.counts.not_run)}</span></h2>${classes}
${list || '<p class="muted">Every test ran.</p>'}</section>`;
}

/** What was left behind: with why, when and the holding job where the cleanup knew them (else by name). */
function leftBehindList(s: StoredSummary): string {
  const details = s.cleanup?.details;
  if (!details?.length)
    return `<ul>${(s.cleanup?.leftBehind ?? []).map((l) => `<li><code>${esc(l)}</code></li>`).join('')}</ul>`;
  return `<table class="small-t" data-cleanup="details"><thead><tr><th>what</th><th>held by job</th><th>its status</th><th>when</th><th>why</th></tr></thead>${details
    .map(
      (l) =>
        `<tr><td><code>${esc(l.item)}</code></td><td>${l.holder ? `<code>${esc(l.holder.job)}</code>` : '<span class="muted">none known</span>'}</td><td>${l.holder ? esc(l.holder.status) : ''}</td><td><code>${esc(l.at)}</code></td><td>${esc(l.reason)}</td></tr>`,
    )
    .join('')}</table>`;
}

function cleanupSection(s: StoredSummary): string {
  const kind = (label: string) => {
    const words: string[] = [];
    for (const w of label.split(/\s+/)) {
      if (!/^[A-Za-z-]+$/.test(w)) break;
      words.push(w);
    }
    return words.join(' ') || 'other';
  };
  const done = new Map<string, number>();
  const failed = new Map<string, number>();
  for (const t of s.tests) {
    for (const d of t.cleanup?.done ?? []) done.set(kind(d), (done.get(kind(d)) ?? 0) + 1);
    for (const d of t.cleanup?.failed ?? []) failed.set(kind(d), (failed.get(kind(d)) ?? 0) + 1);
  }
  const kinds = [...new Set([...done.keys(), ...failed.keys()])].sort();
  const left = s.cleanup?.leftBehind ?? [];
  const table = kinds.length
    ? `<table class="small-t"><thead><tr><th>what</th><th class="num">created</th><th class="num">cleaned</th><th class="num">left behind</th></tr></thead>${kinds
        .map((k) => {
          const d = done.get(k) ?? 0;
          const f = failed.get(k) ?? 0;
          return `<tr><td>${esc(k)}</td><td class="num">${esc(d + f)}</td><td class="num">${esc(d)}</td><td class="num${f ? ' c-failed' : ''}">${esc(f)}</td></tr>`;
        })
        .join('')}</table>`
    : '';
  return `<section id="cleanup"><h2>Cleanup</h2>
<p><strong data-cleanup="cleaned">${esc(s.cleanup?.cleaned ?? 0)}</strong> created things removed again; <strong data-cleanup="left" class="${left.length ? 'c-failed' : ''}">${esc(left.length)}</strong> left behind.</p>
${table}
${left.length ? `<div class="warn"><p>Left behind on the target (remove by hand):</p>${leftBehindList(s)}</div>` : ''}
${s.cleanup?.boundReached ? `<p class="warn" data-cleanup="bound">The cleanup bound was reached in ${esc(plural(s.cleanup.boundReached, 'test'))}.</p>` : ''}
</section>`;
}

function extrasSections(s: StoredSummary): string {
  const out: string[] = [];
  if (s.points) {
    const p = s.points;
    out.push(`<section id="points"><h2>Points</h2><table class="facts">
<tr><th>Spent</th><td><strong>${p.spent === null ? '<span class="muted">unknown</span>' : `<code>${esc(p.spent)}</code>`}</strong></td></tr>
${p.budget !== undefined ? `<tr><th>Budget</th><td>${p.budget === null ? '<span class="muted">none</span>' : `<code>${esc(p.budget)}</code>`}</td></tr>` : ''}
${p.budgetSource ? `<tr><th>Budget from</th><td>${esc(p.budgetSource)}</td></tr>` : ''}
${p.balanceRanOut ? `<tr><th>Balance</th><td class="c-failed">${esc(p.balanceRanOut)}: billable work stopped there</td></tr>` : ''}
${p.source ? `<tr><th>Source</th><td>${esc(p.source)}</td></tr>` : ''}
${p.balanceDelta !== undefined ? `<tr><th>Primary balance moved</th><td><code>${esc(p.balanceDelta)}</code> <span class="muted">(total_points before minus after; other traffic on the account moves it too)</span>${p.balanceDeltaWhy ? `<br><span data-points="why">Why it differs from the points spent: ${esc(balanceDeltaClause(p.balanceDeltaWhy))}</span>` : ''}</td></tr>` : ''}</table></section>`);
  }
  if (s.expectations?.length) {
    out.push(`<section id="expectations"><h2>Expectations <span class="muted">known deviations accepted until they expire</span></h2>
<table class="small-t"><thead><tr><th>id</th><th>test</th><th>reason</th><th>expires</th><th>status</th></tr></thead>${s.expectations
      .map(
        (e) =>
          `<tr><td>${e.flaky ? '<span class="chip">flaky</span> ' : ''}${e.id ? `<span class="rid">${esc(e.id)}</span>` : ''}</td><td>${e.test ? `<code>/${esc(e.test)}/</code>` : '<span class="muted">any</span>'}${e.tests?.length ? `<div class="muted small">${esc(plural(e.tests.length, 'test'))} matched</div>` : ''}</td><td>${esc(e.reason)}</td><td><code>${esc(e.expires)}</code></td><td><span class="chip st-${anchor(e.status)}">${esc(e.status)}</span></td></tr>`,
      )
      .join('')}</table></section>`);
  }
  if (s.drift) {
    const d = s.drift;
    const breaking = d.changes.filter((c) => c.breaking).length;
    out.push(`<section id="drift"><h2>Drift <span class="muted">of the live description against <code>${esc(d.against)}</code></span></h2>
<p>${esc(plural(d.changes.length, 'change'))}${breaking ? `, <span class="c-failed">${esc(breaking)} breaking</span>` : ''}</p>
${d.changes.length ? `<table class="small-t"><thead><tr><th>kind</th><th>path</th><th>detail</th><th>breaking</th></tr></thead>${d.changes.map((c) => `<tr${c.breaking ? ' class="breaking"' : ''}><td>${esc(c.kind)}</td><td><code>${esc(c.path)}</code></td><td>${esc(c.detail)}</td><td>${c.breaking ? '<span class="badge b-failed">breaking</span>' : '<span class="muted">no</span>'}</td></tr>`).join('')}</table>` : ''}</section>`);
  }
  return out.join('\n');
}

// ------------------------------------------------------------------------------------------ page

/** The report as one HTML document. */
export function renderHtmlReport(input: HtmlReportInput): string {
  const s = input.summary;
  const reqList = [...input.requirements];
  const reqs = new Map(reqList.map((r) => [r.id, r]));
  const rows = requirementRows(s, reqList);
  const generatedAt = input.generatedAt ?? new Date().toISOString();
  const c = s.counts;
  const nav = [
    ['#verdict', 'Verdict', ''],
    ...(s.comparison
      ? [['#since', 'Since last run', String(s.comparison.requirements.newlyFailing.length)]]
      : []),
    ...(s.groups?.length ? [['#causes', 'Root causes', String(s.groups.length)]] : []),
    ['#run', 'Run', ''],
    ['#requirements', 'Requirements', String(rows.length)],
    ...((s.harnessErrors?.length ?? 0) + c.harness_error > 0
      ? [['#harness', 'Harness errors', String(c.harness_error)]]
      : []),
    ['#failures', 'Failures', String(c.failed)],
    ...((c.known_failure ?? 0) ? [['#known', 'Known failures', String(c.known_failure)]] : []),
    ...((c.inconclusive ?? 0) ? [['#inconclusive', 'Inconclusive', String(c.inconclusive)]] : []),
    ...(c.advisory ? [['#advisories', 'Advisories', String(c.advisory)]] : []),
    ['#notrun', s.capture ? 'Not judged' : 'Not run', String(c.not_run)],
    ...(s.capture ? [] : [['#cleanup', 'Cleanup', '']]),
    ...(s.points ? [['#points', 'Points', '']] : []),
    ...(s.expectations?.length ? [['#expectations', 'Expectations', String(s.expectations.length)]] : []),
    ...(s.drift ? [['#drift', 'Drift', String(s.drift.changes.length)]] : []),
  ]
    .map(
      ([href, label, n]) =>
        `<a href="${href}">${esc(label)}${n ? `<span class="nb">${esc(n)}</span>` : ''}</a>`,
    )
    .join('');
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(s.verdict.toUpperCase().replace('_', ' '))} · ${esc(s.target.name)} · gateway-conformance</title>
<style>${CSS}</style></head>
<body><nav><strong>gateway-conformance</strong>${nav}</nav><main>
${verdictSection(s, rows)}
${comparisonSection(s)}
${rootCausesSection(s)}
<div class="grid">${factsSection(s, generatedAt)}<div>${coverageSection(s)}${s.capture ? '' : cleanupSection(s)}${extrasSections(s)}</div></div>
${matrixSection(rows, s)}
${failuresSection(s, reqs, input.extraExchanges)}
${notRunSection(s)}
<footer>gateway-conformance ${esc(s.suite.version)} · target ${esc(s.target.name)} · started ${esc(s.startedAt)} · report written ${esc(generatedAt)}. Secrets are redacted; reproduce requests with <code>$CONFORMANCE_API_KEY</code>.</footer>
</main><script>${SCRIPT}</script></body></html>
`;
}

// ------------------------------------------------------------------------------------------ files

/**
 * Reads summary.json (and, only for cited exchanges missing from the test records, exchanges.ndjson)
 * from a report directory, writes report.html beside them and returns its path.
 */
export function writeHtmlReport(reportDir: string): string {
  const summary = readOwnSummary(reportDir);
  // A summary.json written before the rollup was part of it.
  summary.requirements ??= requirementResults(summary.tests, catalogue().values());
  const missing = new Set<string>();
  for (const t of summary.tests) {
    if (t.outcome === 'passed' || t.outcome === 'not_run') continue;
    const own = new Set(t.exchanges.map((e) => e.id));
    for (const v of t.violations) if (v.exchangeId && !own.has(v.exchangeId)) missing.add(v.exchangeId);
  }
  const extraExchanges = ExchangeLog.of(reportDir, summary.exchanges?.file).byIds(missing);
  const html = renderHtmlReport({ summary, requirements: catalogue().values(), extraExchanges });
  const out = reportFile(reportDir, 'html');
  writeFileSync(out, html);
  return out;
}
