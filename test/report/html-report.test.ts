import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceHandle, startReference } from '../../reference/start.ts';
import { catalogue, type Requirement } from '../../src/catalogue.ts';
import type { Exchange } from '../../src/http/client.ts';
import { Redactor } from '../../src/http/redact.ts';
import { pkgPath } from '../../src/paths.ts';
import { curlCommand, shellQuote } from '../../src/report/curl.ts';
import { renderHtmlReport, writeHtmlReport } from '../../src/report/html.ts';
import { requirementResults } from '../../src/report/requirements.ts';
import { aggregate, OUTCOMES, type StoredSummary, type Summary, VERDICTS } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import { HANG_BOUND_MS } from '../../tools/bounds.ts';
import { writeRefTargets } from '../../tools/ref-target.ts';
import { runCli } from '../helpers.ts';

const KEY = 'sk-live-0123456789abcdef';
const OTHER = 'sk-live-fedcba9876543210';
const BASE = 'https://api.example.test';
const HOSTILE = '<script>alert(1)</script>';

const redactor = new Redactor({ primary: KEY, other_tenant: OTHER });

function exchange(over: Partial<Exchange> & Pick<Exchange, 'id' | 'method' | 'path'>): Exchange {
  return {
    startedAt: '2026-11-22T10:00:00.000Z',
    requestHeaders: {},
    durationMs: 12,
    status: 200,
    responseHeaders: { 'content-type': 'application/json', 'x-request-id': `req-${over.id}` },
    responseBody: { bytes: 2, sha256: 'a'.repeat(64), contentType: 'application/json', preview: '{}' },
    requestId: `req-${over.id}`,
    ...over,
  };
}

function record(over: Partial<TestResultRecord> & Pick<TestResultRecord, 'title' | 'outcome'>) {
  const ids = over.title.split(' ').filter((w) => /^[A-Z]+-\d{3}$/.test(w));
  return {
    file: 'suites/x.test.ts',
    ids,
    // Each test saw the form of the ids it cites (a vacuous pass is a test of its own below).
    observed: Object.fromEntries(ids.map((id) => [id, []])),
    durationMs: 20,
    violations: [],
    exchanges: [],
    exchangeCount: 1,
    ...over,
  } satisfies TestResultRecord;
}

const REQUIREMENTS: Requirement[] = [
  {
    id: 'AUTH-005',
    section: 'Authentication',
    words: 'Every business endpoint needs `Authorization: Bearer <API_KEY>`.',
    level: 'failure',
    testable: true,
  },
  {
    id: 'BAL-003',
    section: 'Points representation',
    words: 'Reserved (held) points are not settled charges.',
    level: 'implied',
    testable: true,
    readings: ['available = total - held'],
  },
  {
    id: 'AUTH-007',
    section: 'Authentication',
    words: 'a revoked key is refused',
    level: 'failure',
    testable: true,
  },
  {
    id: 'CHAT-001',
    section: 'Chat request',
    words: 'model is required',
    level: 'failure',
    testable: true,
  },
  {
    id: 'TODO-001',
    section: 'Chat request',
    words: 'a rule nobody tests yet',
    level: 'failure',
    testable: true,
  },
  {
    id: 'GEN-002',
    section: 'What the service does',
    words: 'Failover happens only between nodes of the same exact model.',
    level: 'failure',
    testable: false,
    why: 'nodes are never returned to clients',
  },
];

function unitSummary(): StoredSummary {
  const failing = exchange({
    id: 'ex-1',
    method: 'POST',
    path: redactor.pathWithQuery(`/v1/chat/completions?api_key=${KEY}&limit=2`),
    requestHeaders: redactor.requestHeaders({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'x-note': "it's $HOME",
    }),
    requestBody: {
      bytes: 40,
      sha256: 'b'.repeat(64),
      contentType: 'application/json',
      preview: '{"model":"m-chat","content":"it\'s $(id) `id`"}',
    },
    status: 200,
    responseBody: {
      bytes: 60,
      sha256: 'c'.repeat(64),
      contentType: 'application/json',
      preview: redactor.text(`{"echo":"${KEY}","html":"<img src=x onerror=alert(1)>"}`),
    },
  });
  const upload = exchange({
    id: 'ex-2',
    method: 'POST',
    path: '/v1/media/inputs',
    requestHeaders: redactor.requestHeaders({ authorization: `Bearer ${OTHER}` }),
    requestBody: { bytes: 5000, sha256: 'd'.repeat(64), contentType: 'multipart/form-data; boundary=x' },
    status: 201,
  });
  const tests: TestResultRecord[] = [
    record({
      title: 'AUTH-005 refuses the key in the query string: POST /v1/chat/completions',
      outcome: 'failed',
      effect: 'billable',
      violations: [
        {
          id: 'AUTH-005',
          level: 'failure',
          severity: 'failure',
          message: `did not refuse the key in the query string ${HOSTILE}`,
          expected: '401',
          received: 200,
          exchangeId: 'ex-1',
          count: 1,
        },
      ],
      exchanges: [failing],
      cleanup: { done: ['media input in_1 (a.png)'], failed: ['media input in_2 (b.png)'] },
    }),
    record({
      title: 'BAL-003 reserved points are not settled',
      outcome: 'advisory',
      violations: [
        {
          id: 'BAL-003',
          level: 'implied',
          severity: 'advisory',
          message: 'held points were charged',
          exchangeId: 'ex-2',
          count: 2,
        },
      ],
      exchanges: [upload],
    }),
    record({
      title: 'AUTH-007 refuses a revoked key: GET /v1/models',
      outcome: 'not_run',
      reason: "role 'revoked' is not configured for target 'staging'",
    }),
    record({
      title: 'AUTH-007 refuses a revoked key: GET /v1/balance',
      outcome: 'not_run',
      reason: "role 'revoked' is not configured for target 'staging'",
    }),
    record({ title: 'CHAT-001 refuses a request without model', outcome: 'passed' }),
  ];
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Summary['counts'];
  for (const t of tests) counts[t.outcome]++;
  counts.total = tests.length;
  return {
    suite: { name: 'gateway-conformance', version: '9.9.9' },
    target: {
      name: 'staging',
      baseUrl: BASE,
      embedded: false,
      allow: ['read', 'write', 'billable'],
      roles: ['primary', 'other_tenant'],
      models: { chat: 'm-chat' },
    },
    strict: false,
    seed: 4242,
    startedAt: '2026-11-22T10:00:00.000Z',
    durationMs: 65_000,
    openapi: { sha256: 'e'.repeat(64), valid: true, errors: [] },
    verdict: 'failed',
    counts,
    failedRequirements: { 'AUTH-005': 1 },
    advisoryRequirements: { 'BAL-003': 1 },
    coverage: { testable: 5, tested: 4, untested: ['TODO-001'], unknownIds: [] },
    requirements: requirementResults(tests, REQUIREMENTS),
    exchanges: { file: 'exchanges.ndjson', count: 3979 },
    cleanup: { cleaned: 1, leftBehind: ['media input in_2 (b.png)'] },
    tests,
  };
}

/** Runs a curl command in bash with `curl` replaced by a function that prints its arguments. */
function curlArgs(command: string, env: Record<string, string> = {}): string[] {
  const run = spawnSync('bash', ['-c', `curl() { printf '%s\\0' "$@"; }\n${command}`], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.split('\0').slice(0, -1);
}

describe('the HTML report (rendered from a summary)', () => {
  const summary = unitSummary();
  const html = renderHtmlReport({ summary, requirements: REQUIREMENTS, generatedAt: '2026-11-22T11:00:00Z' });
  const unescapeHtml = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');

  it('escapes every string from the target: no markup of theirs reaches the page', () => {
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // One script only: the report's own, admitted by the Content-Security-Policy through its hash.
    expect(html.match(/<script/g)).toHaveLength(1);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    expect(unescapeHtml(csp)).toContain(`script-src 'sha256-${hash}'`);
    expect(unescapeHtml(csp)).toContain("default-src 'none'");
  });

  it('shows an inconclusive test apart: its tile, its section with the reason, the verdict INCOMPLETE', () => {
    const base = unitSummary();
    const lost = record({
      title: 'CHAT-002 answers a valid completion: POST /v1/chat/completions',
      outcome: 'inconclusive',
      reason: 'inconclusive: POST /v1/chat/completions: other side closed [UND_ERR_SOCKET]',
      retried: 1,
    });
    const tests = [...base.tests.filter((t) => t.outcome !== 'failed'), lost];
    const s: StoredSummary = { ...base, tests, ...aggregate(tests, []) };
    expect(s.verdict).toBe('incomplete');
    const page = renderHtmlReport({
      summary: s,
      requirements: REQUIREMENTS,
      generatedAt: '2026-11-22T11:00:00Z',
    });
    expect(page).toContain('data-count="inconclusive">1<');
    expect(page).toMatch(/<section id="inconclusive"><h2>Inconclusive/);
    expect(page).toContain('other side closed [UND_ERR_SOCKET]');
    expect(page).toContain('INCOMPLETE: 1 test inconclusive');
    expect(page).toContain('1 request repeated on a fresh connection');
  });

  it('never contains a key, and the curl command reads it from $CONFORMANCE_API_KEY', () => {
    expect(html).not.toContain(KEY);
    expect(html).not.toContain(OTHER);
    const failed = summary.tests[0]!.exchanges[0]!;
    const { command, notes } = curlCommand(failed, { baseUrl: BASE, embedded: false });
    expect(command).toContain('-H "authorization: Bearer $CONFORMANCE_API_KEY"');
    expect(command).not.toContain('REDACTED');
    expect(html).toContain(command.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    expect(notes.join(' ')).toMatch(/probe credential/);
    // Shell-safe: bash sees exactly the recorded request, with the key from the environment.
    const args = curlArgs(command, { CONFORMANCE_API_KEY: 'THE-KEY' });
    expect(args).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      `${BASE}/v1/chat/completions?api_key=THE-KEY&limit=2`,
      '-H',
      'authorization: Bearer THE-KEY',
      '-H',
      'content-type: application/json',
      '-H',
      "x-note: it's $HOME",
      '--data-binary',
      '{"model":"m-chat","content":"it\'s $(id) `id`"}',
    ]);
  });

  it('names the role variable for other keys and notes a body the report does not keep', () => {
    const upload = summary.tests[1]!.exchanges[0]!;
    const { command, notes } = curlCommand(upload, { baseUrl: `${BASE}/`, embedded: true });
    const args = curlArgs(command, { CONFORMANCE_KEY_OTHER_TENANT: 'K2' });
    expect(args).toEqual([
      '-sS',
      '-i',
      '-X',
      'POST',
      `${BASE}/v1/media/inputs`,
      '-H',
      'authorization: Bearer K2',
    ]);
    expect(notes.join(' ')).toContain('CONFORMANCE_KEY_OTHER_TENANT');
    expect(notes.join(' ')).toMatch(/body of 5000 bytes .* --data-binary @FILE/);
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });

  it('shows the verdict and the counts of the summary', () => {
    expect(html).toMatch(/data-verdict="failed">FAILED</);
    for (const [k, n] of Object.entries({
      passed: 1,
      failed: 1,
      advisory: 1,
      not_run: 2,
      harness_error: 0,
      total: 5,
    }))
      expect(html, k).toContain(`data-count="${k}">${n}<`);
    expect(html).toContain('<code>4242</code>');
    expect(html).toContain('--seed 4242');
    expect(html).toContain('e'.repeat(64));
    expect(html).toContain('65.0 s');
    // What this run judged comes first; the catalogue coverage (a test exists) after it.
    expect(html).toMatch(
      /data-coverage="judged">3<.*data-coverage="testable">5<.*data-coverage="tested">4</s,
    );
  });

  it('puts every requirement of the catalogue in the matrix with its outcome, by section', () => {
    const outcome = (id: string) => new RegExp(`id="req-${id}" data-outcome="([a-z_]+)"`).exec(html)?.[1];
    expect(outcome('AUTH-005')).toBe('failed');
    expect(outcome('BAL-003')).toBe('advisory');
    expect(outcome('AUTH-007')).toBe('not_run');
    expect(outcome('CHAT-001')).toBe('passed');
    expect(outcome('TODO-001')).toBe('no_test');
    expect(outcome('GEN-002')).toBe('no_test');
    expect(html).toContain('testable, but no test cites it');
    expect(html).toContain('not testable: nodes are never returned to clients');
    expect(html).toContain('title="Every business endpoint needs `Authorization: Bearer &lt;API_KEY&gt;`."');
    expect(html.indexOf('<th colspan="5">Authentication')).toBeLessThan(html.indexOf('id="req-AUTH-007"'));
    expect(html).toContain('data-filter="failed"');
    expect(html).toContain('id="q"');
  });

  it('details failures (and, collapsed, advisories), groups not-run tests by reason, shows the cleanup', () => {
    expect(html).toMatch(/<details class="card o-failed" id="t-0" open>/);
    expect(html).toMatch(/<details class="card o-advisory" id="t-1">/);
    expect(html).toContain('X-Request-ID <code>req-ex-1</code>');
    expect(html).toContain(`did not refuse the key in the query string &lt;script&gt;`);
    expect(html).toContain('×2');
    expect(html).toMatch(/<span class="count c-not_run">2<\/span> role 'revoked' is not configured/);
    expect(html).toContain('media input in_2 (b.png)');
    expect(html).toMatch(/<td>media input<\/td><td class="num">2<\/td><td class="num">1<\/td>/);
  });

  it('loads nothing from the network', () => {
    expect(html).not.toMatch(
      /\b(?:src|href|action|srcset|poster|formaction)\s*=\s*["']?\s*(?:[a-z]+:)?\/\//i,
    );
    expect(html).not.toMatch(/url\(|@import/i);
    expect(html.split(BASE).join('')).not.toMatch(/https?:\/\//);
  });

  it('renders the optional fields when present, and only then', () => {
    expect(html).not.toContain('id="points"');
    expect(html).not.toContain('id="drift"');
    const more = renderHtmlReport({
      summary: {
        ...summary,
        profile: 'thorough',
        shards: ['1/2', '2/2'],
        points: { spent: '12.5', budget: '100', source: 'charged_points' },
        skippedByClass: { payments: 3 },
        expectations: [
          { id: 'AUTH-005', reason: 'OPS-1 <b>', expires: '2027-01-31', status: 'matched', tests: [] },
        ],
        drift: {
          against: 'previous',
          changes: [{ kind: 'removed', path: '/v1/x', detail: 'gone', breaking: true }],
          breaking: 1,
        },
      },
      requirements: REQUIREMENTS,
    });
    expect(more).toContain('<code>thorough</code>');
    expect(more).toContain('<span class="chip">2/2</span>');
    expect(more).toMatch(/id="points".*<code>12\.5<\/code>.*<code>100<\/code>/s);
    expect(more).toContain('payments <strong>3</strong>');
    expect(more).toContain('OPS-1 &lt;b&gt;');
    expect(more).toMatch(/id="drift".*\/v1\/x.*breaking/s);
  });

  it('lists what was left behind with the job holding it, its status, the time and why', () => {
    const held = renderHtmlReport({
      summary: {
        ...summary,
        points: {
          spent: '50.5',
          budget: '50',
          source: 'charged_points',
          budgetSource: "the primary account's available points before the run",
          balanceRanOut: "the account's balance ran out: job job_9 is settlement_pending",
        },
        cleanup: {
          cleaned: 1,
          leftBehind: ['media input in_2 (b.png)'],
          details: [
            {
              item: 'media input in_2 (b.png)',
              reason: 'DELETE answered 409: held by job job_9, which is settlement_pending',
              at: '2026-11-23T22:00:00.000Z',
              holder: { job: 'job_9', status: 'settlement_pending' },
            },
          ],
          boundReached: 1,
        },
      },
      requirements: REQUIREMENTS,
    });
    expect(held).toMatch(
      /data-cleanup="details".*<code>media input in_2 \(b\.png\)<\/code><\/td><td><code>job_9<\/code><\/td><td>settlement_pending<\/td><td><code>2026-11-23T22:00:00\.000Z<\/code><\/td><td>DELETE answered 409/s,
    );
    expect(held).toContain('data-cleanup="bound"');
    expect(held).toContain(`Balance</th><td class="c-failed">the account's balance ran out: job job_9`);
  });

  it('shows known failures apart from failures, and an interrupted run as incomplete', () => {
    const base = unitSummary();
    const tests = base.tests.map((t) =>
      t.outcome === 'failed' ? { ...t, outcome: 'known_failure' as const, reason: 'AUTH-005: OPS-7' } : t,
    );
    const html = renderHtmlReport({
      summary: {
        ...base,
        tests,
        requirements: requirementResults(tests, REQUIREMENTS),
        verdict: 'passed',
        counts: { ...base.counts, failed: 0, known_failure: 1 },
        interrupted: 'SIGINT',
      },
      requirements: REQUIREMENTS,
    });
    expect(html).toContain('data-count="known_failure">1<');
    expect(html).toMatch(/id="req-AUTH-005" data-outcome="known_failure"/);
    expect(html).toMatch(/<section id="known">.*Expected: AUTH-005: OPS-7/s);
    expect(html).toContain('INCOMPLETE: SIGINT');
    expect(html).toMatch(/data-verdict="passed">PASSED</);
  });
});

describe('writeHtmlReport', () => {
  it('writes report.html beside summary.json, taking a cited exchange the record lacks from the ndjson', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-html-unit-'));
    try {
      const summary = unitSummary();
      const lost = exchange({ id: 'ex-lost', method: 'GET', path: '/v1/balance', status: 500 });
      summary.tests[0]!.violations.push({
        id: 'ERR-002',
        level: 'failure',
        severity: 'failure',
        message: 'answered 500',
        exchangeId: 'ex-lost',
        count: 1,
      });
      // The rollup as a run writes it: over the real catalogue.
      summary.requirements = requirementResults(summary.tests, catalogue().values());
      writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
      const other = exchange({ id: 'ex-other', method: 'GET', path: '/v1/models' });
      writeFileSync(
        join(dir, 'exchanges.ndjson'),
        `${[other, lost, ...summary.tests[0]!.exchanges].map((e) => JSON.stringify(e)).join('\n')}\n`,
      );
      const file = writeHtmlReport(dir);
      expect(file).toBe(join(dir, 'report.html'));
      const html = readFileSync(file, 'utf8');
      expect(html).toContain('X-Request-ID <code>req-ex-lost</code>');
      expect(html).not.toContain('req-ex-other');
      // The real catalogue: every requirement has a row.
      expect(html.match(/<tr class="req /g)!.length).toBeGreaterThan(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ------------------------------------------------------------------------------- in a real browser

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const SCREENSHOT = pkgPath('reports', 'screenshots', 'html-report.png');

/** WCAG relative luminance of an `rgb(r, g, b)` triple. */
function luminance([r, g, b]: number[]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
}

describe.skipIf(!haveChromium)(
  'every verdict banner is readable, in headless Chromium',
  { timeout: HANG_BOUND_MS },
  () => {
    it('gives each verdict word a background its white text stands out on (large text: contrast >= 3)', async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1200, height: 400 } });
        for (const verdict of VERDICTS) {
          const base = unitSummary();
          await page.setContent(
            renderHtmlReport({
              summary: { ...base, verdict, interrupted: verdict === 'incomplete' ? 'SIGINT' : undefined },
              requirements: REQUIREMENTS,
            }),
          );
          type Styled = { backgroundImage: string; color: string };
          const style = await page.locator('#verdict').evaluate((el) => {
            // The page's own window (the project's lib has no DOM types).
            const cs = (globalThis as unknown as { getComputedStyle(e: unknown): Styled }).getComputedStyle(
              el,
            );
            return { bg: cs.backgroundImage, fg: cs.color };
          });
          expect(style.bg, verdict).not.toBe('none');
          const colours = [...style.bg.matchAll(/rgb\((\d+), (\d+), (\d+)\)/g)].map((m) =>
            m.slice(1).map(Number),
          );
          expect(colours.length, `${verdict}: ${style.bg}`).toBeGreaterThan(0);
          const text = luminance(style.fg.match(/\d+/g)!.map(Number));
          for (const c of colours) {
            const [hi, lo] = [Math.max(text, luminance(c)), Math.min(text, luminance(c))];
            expect(
              (hi + 0.05) / (lo + 0.05),
              `${verdict}: ${style.fg} on ${style.bg}`,
            ).toBeGreaterThanOrEqual(3);
          }
          if (verdict === 'incomplete') {
            await page
              .locator('#verdict')
              .screenshot({ path: pkgPath('reports', 'screenshots', 'verdict-incomplete.png') });
          }
        }
      } finally {
        await browser.close();
      }
    });
  },
);

describe.skipIf(!haveChromium)(
  `the HTML report of a real run, in headless Chromium${haveChromium ? '' : ` (skipped: ${CHROMIUM} is not installed; apt-get install chromium)`}`,
  { timeout: HANG_BOUND_MS },
  () => {
    const tmp = mkdtempSync(join(tmpdir(), 'gc-html-'));
    const dir = join(tmp, 'report');
    let ref: ReferenceHandle;
    let summary: Summary;
    let file: string;

    beforeAll(async () => {
      // The real CLI against a reference started with a seeded fault, through a targets file.
      ref = await startReference({ port: 0, fault: 'auth-query-key' });
      const env = writeRefTargets(ref, join(tmp, 'targets.yaml'), { concurrency: 2 });
      const run = await runCli(
        [
          '--targets',
          join(tmp, 'targets.yaml'),
          '--target',
          'ref',
          '--filter',
          'AUTH-005',
          '--report-dir',
          dir,
          '--quiet',
        ],
        env,
      );
      expect(run.code, run.stdout.slice(-2000) + run.stderr.slice(-2000)).toBe(1);
      summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
      // Until the run writes report.html itself, write it here.
      file = existsSync(join(dir, 'report.html')) ? join(dir, 'report.html') : writeHtmlReport(dir);
    });

    afterAll(async () => {
      await ref?.close();
      rmSync(tmp, { recursive: true, force: true });
    });

    it('shows the verdict, the counts, a failure with its curl command and filters, with no network', async () => {
      const html = readFileSync(file, 'utf8');
      for (const key of Object.values(ref.keys)) expect(html.includes(key)).toBe(false);
      const size = statSync(file).size;
      console.log(`report.html: ${size} bytes for ${summary.counts.total} tests`);
      expect(size).toBeLessThan(1_500_000);

      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
        const requests: string[] = [];
        const problems: string[] = [];
        page.on('request', (r) => requests.push(r.url()));
        page.on('pageerror', (e) => problems.push(e.message));
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        const url = pathToFileURL(file).href;
        await page.goto(url);

        expect(await page.locator('#verdict-text').innerText()).toBe('FAILED');
        for (const k of ['passed', 'failed', 'advisory', 'not_run', 'harness_error', 'total'] as const)
          expect(await page.locator(`[data-count="${k}"]`).innerText(), k).toBe(String(summary.counts[k]));

        const i = summary.tests.findIndex((t) => t.outcome === 'failed');
        const failed = summary.tests[i]!;
        const card = page.locator(`#t-${i}`);
        await expect.poll(() => card.isVisible()).toBe(true);
        const cardText = await card.innerText();
        expect(cardText).toContain('AUTH-005');
        expect(cardText).toContain(failed.violations[0]!.message);
        const curl = await card.locator('pre.cmd').first().innerText();
        expect(curl).toMatch(/^curl /);
        expect(curl).toContain(`${summary.target.baseUrl}${failed.exchanges[0]!.path.split('?')[0]}`);
        expect(curl).toContain('$CONFORMANCE_API_KEY');

        // The filter: only the failed requirement stays.
        const visible = () =>
          page.locator('#matrix tr.req:visible').evaluateAll((rows) => rows.map((r) => r.id));
        const all = await visible();
        expect(all.length).toBeGreaterThan(100);
        await page.click('#requirements [data-filter="failed"]');
        const failedRows = await visible();
        expect(failedRows).toEqual(Object.keys(summary.failedRequirements).map((id) => `req-${id}`));
        await page.click('#requirements [data-filter="all"]');
        await page.fill('#q', 'query string');
        expect(await visible()).toContain('req-AUTH-005');
        expect((await visible()).length).toBeLessThan(all.length);
        await page.fill('#q', '');
        expect(await visible()).toHaveLength(all.length);

        // The screenshot: filters reset, from the top (the sticky bar would otherwise sit mid-page).
        await page.click('#requirements [data-filter="all"]');
        await page.evaluate('document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)');
        mkdirSync(pkgPath('reports', 'screenshots'), { recursive: true });
        await page.screenshot({ path: SCREENSHOT, fullPage: true });
        copyFileSync(file, SCREENSHOT.replace(/\.png$/, '.html'));
        expect(problems).toEqual([]);
        expect(requests).toEqual([url]);
      } finally {
        await browser.close();
      }
    });
  },
);
