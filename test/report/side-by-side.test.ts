import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pkgPath } from '../../src/paths.ts';
import { compareTargets } from '../../src/report/side-by-side.ts';
import { aggregate, type Summary } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import { runCli } from '../helpers.ts';

function rec(id: string, outcome: TestResultRecord['outcome']): TestResultRecord {
  return {
    title: `${id} a test`,
    file: 'suites/x.test.ts',
    ids: [id],
    outcome,
    durationMs: 1,
    violations:
      outcome === 'failed' ? [{ id, level: 'failure', severity: 'failure', message: 'x', count: 1 }] : [],
    exchanges: [],
    exchangeCount: 0,
    observed: { [id]: [] },
  };
}

function report(root: string, dir: string, name: string, tests: TestResultRecord[]): string {
  const s = {
    suite: { name: 'gateway-conformance', version: '0.1.0' },
    target: {
      name,
      baseUrl: `https://${dir}.example.test`,
      embedded: false,
      allow: ['read'],
      roles: [],
      models: {},
    },
    strict: false,
    seed: 1,
    startedAt: '2026-11-27T00:00:00.000Z',
    durationMs: 1,
    openapi: { valid: true, errors: [] },
    ...aggregate(tests, []),
    exchanges: { file: 'exchanges.ndjson', count: 0 },
    tests,
  } as Summary;
  const d = join(root, dir);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'summary.json'), JSON.stringify(s));
  return d;
}

describe('compare: several targets side by side', () => {
  const root = mkdtempSync(join(tmpdir(), 'gc-side-'));
  const eu = report(root, 'eu', 'partner-eu', [rec('AUTH-005', 'failed'), rec('HEALTH-001', 'passed')]);
  const us = report(root, 'us', '<b>partner-us</b>', [
    rec('AUTH-005', 'passed'),
    rec('HEALTH-001', 'passed'),
  ]);
  const out = join(root, 'out');

  it('writes requirement x target outcomes, the disagreements first, each cell linking to its report', () => {
    const r = compareTargets([eu, us], out);
    expect(r.differing).toBe(1);
    const html = readFileSync(join(out, 'compare.html'), 'utf8');
    const differ = html.slice(
      html.indexOf('Where the targets differ'),
      html.indexOf('Every requirement</h2>'),
    );
    expect(differ).toContain('<code>AUTH-005</code>');
    expect(differ).not.toContain('<code>HEALTH-001</code>');
    expect(differ).toContain('<td class="c-failed"><a href="../eu/report.html#req-AUTH-005">failed</a>');
    expect(html).toContain('&lt;b&gt;partner-us&lt;/b&gt;');
    expect(html).not.toContain('<b>partner-us');
    expect(html).not.toMatch(/<script|https?:\/\/(?!eu\.|us\.)/);
    const md = readFileSync(join(out, 'compare.md'), 'utf8');
    expect(md).toContain('| AUTH-005 | failed | passed |');
    expect(md).toContain('&lt;b&gt;partner-us&lt;/b&gt;');
  });

  it('refuses fewer than two reports and a missing --report-dir with exit 2', async () => {
    expect((await runCli(['compare', '--report-dir', out, eu])).code).toBe(2);
    expect((await runCli(['compare', eu, us])).code).toBe(2);
    const ok = await runCli(['compare', '--report-dir', out, eu, us]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('2 targets side by side: 1 of');
  });

  it.skipIf(!existsSync('/usr/bin/chromium'))(
    'renders in Chromium with nothing loaded from anywhere',
    async () => {
      compareTargets([eu, us], out);
      const browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 900, height: 500 } });
        const requests: string[] = [];
        page.on('request', (q) => requests.push(q.url()));
        const url = pathToFileURL(join(out, 'compare.html')).href;
        await page.goto(url);
        expect(await page.locator('h1').innerText()).toBe('2 targets side by side');
        expect(await page.locator('td.c-failed a').first().getAttribute('href')).toBe(
          '../eu/report.html#req-AUTH-005',
        );
        mkdirSync(pkgPath('reports', 'screenshots'), { recursive: true });
        await page.screenshot({ path: pkgPath('reports', 'screenshots', 'compare.png') });
        expect(requests).toEqual([url]);
      } finally {
        await browser.close();
      }
    },
  );
});
