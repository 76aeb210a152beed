import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceHandle, startReference } from '../reference/start.ts';
import { assertsPredicate, predicateOf } from '../src/applicability.ts';
import { catalogue } from '../src/catalogue.ts';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import { runCli } from './helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'gc-cli-'));

function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${addr.port}` });
    }),
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

describe('the CLI against a separately started reference', { timeout: HANG_BOUND_MS }, () => {
  let ref: ReferenceHandle;
  beforeAll(async () => {
    ref = await startReference({ port: 0 });
  });
  afterAll(() => ref.close());

  const envFor = (r: ReferenceHandle): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {
      CONFORMANCE_BASE_URL: r.url,
      CONFORMANCE_API_KEY: r.keys.primary,
      CONFORMANCE_ALLOW: 'all',
      // The whole plan, so that the run can say PASSED (the default budget of a real target would cut it: INCOMPLETE).
      CONFORMANCE_BUDGET_POINTS: 'unlimited',
      // The reference ends a media job in well under a second: poll it quickly, as the embedded target does.
      CONFORMANCE_MEDIA_POLL_INTERVAL_MS: '50',
      CONFORMANCE_MEDIA_POLL_CAP: '200',
    };
    for (const [role, key] of Object.entries(r.keys))
      if (role !== 'primary') env[`CONFORMANCE_KEY_${role.toUpperCase()}`] = key;
    for (const [hint, model] of Object.entries(r.hints))
      env[`CONFORMANCE_MODEL_${hint.toUpperCase()}`] = model;
    return env;
  };

  it('passes in single-target mode, writes the report, and no key value reaches it', async () => {
    const dir = join(tmp, 'single');
    const run = await runCli(['--report-dir', dir, '--concurrency', '6'], envFor(ref));
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code, run.stdout.slice(-2000)).toBe(0);
    expect(run.stdout).toContain('VERDICT: PASSED');
    // The first lines say which concurrency the run uses and why.
    expect(run.stdout.split('\n').slice(0, 3).join('\n')).toContain(
      'concurrency: 6 requests in flight (set by --concurrency)',
    );
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    expect(summary.counts.failed).toBe(0);
    for (const t of summary.tests.filter((x) => x.outcome === 'not_run'))
      expect(t.reason, t.title).toBeTruthy();
    expect(summary.coverage.untested).toEqual([]);
    expect(summary.openapi.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.exchanges.count).toBeGreaterThan(200);
    // Each requirement's outcome, computed once into summary.json and carried into JUnit. On the
    // reference every testable requirement is judged: a test that aims at one without ever observing its
    // form (not_judged) fails here, so no check of the suite passes vacuously where the form exists.
    for (const r of catalogue().values())
      expect(summary.requirements[r.id]?.outcome, r.id).toMatch(
        r.testable ? /^(passed|advisory|not_run)$/ : /^(passed|advisory|not_run|no_test)$/,
      );
    // Full strength everywhere: where the contract states the status exactly, every test judging the id
    // asserted it, never a weaker range ("an unauthorised model gives 403", not "any 4xx").
    for (const id of Object.keys(summary.requirements)) {
      const predicate = predicateOf(id);
      if (!predicate) continue;
      const asserted = summary.tests.flatMap((t) =>
        (t.asserted?.[id] ?? []).map((a) => ({ a, title: t.title })),
      );
      expect(asserted.length, `${id}: no test asserted its status`).toBeGreaterThan(0);
      const weaker = asserted
        .filter(({ a, title }) => !assertsPredicate(a, predicate, title))
        .map(({ a, title }) => `${a} in ${title}`);
      expect(weaker, `${id}: asserted less than ${predicate.status.join(' or ')}`).toEqual([]);
    }
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuites');
    // junit.xml counts the tests the console counts; the requirements have a file of their own.
    expect(junit).not.toContain('<testsuite name="requirements"');
    expect(Number(/<testsuites tests="(\d+)"/.exec(junit)?.[1])).toBe(summary.counts.total);
    const reqs = readFileSync(join(dir, 'requirements.junit.xml'), 'utf8');
    expect(reqs).toContain('<testsuite name="requirements"');
    expect(reqs.match(/classname="requirements"/g)?.length).toBe(Object.keys(summary.requirements).length);
    const files = filesUnder(dir);
    expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual([
      'exchanges.ndjson',
      'junit.xml',
      'manifest.json',
      'openapi.json',
      'report.html',
      'report.sarif',
      'requirements.junit.xml',
      'run.json',
      'spend.ndjson',
      'summary.json',
      'summary.md',
    ]);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const [role, key] of Object.entries(ref.keys))
        expect(text.includes(key), `${role} key found in ${f}`).toBe(false);
    }
    expect(run.stdout + run.stderr).not.toContain(ref.keys.primary);
  });

  it('reports roles it lacks as not run, with the reason, and still passes', async () => {
    const dir = join(tmp, 'primary-only');
    const run = await runCli(['--report-dir', dir], {
      CONFORMANCE_BASE_URL: ref.url,
      CONFORMANCE_API_KEY: ref.keys.primary,
    });
    expect(run.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    const reasons = new Set(summary.tests.filter((t) => t.outcome === 'not_run').map((t) => t.reason));
    expect([...reasons]).toEqual(
      expect.arrayContaining([
        `role 'revoked' is not configured for target '127.0.0.1_${new URL(ref.url).port}'`,
        expect.stringMatching(/side-effect class 'billable' is not allowed .*\(allowed: read\)/),
      ]),
    );
  });

  it('exits 2 with one clear line when the target refuses the primary key', async () => {
    const run = await runCli(['--report-dir', join(tmp, 'wrong-key')], {
      CONFORMANCE_BASE_URL: ref.url,
      CONFORMANCE_API_KEY: 'sk-wrong-key-1234',
    });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(
      /^gateway-conformance: target '[^']+' refuses the primary key \(GET \/v1\/models answered 401\)/,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('the CLI on bad input and broken targets', () => {
  it('exits 2 for an unreachable URL', async () => {
    const { server, url } = await listen(() => undefined);
    await new Promise((r) => server.close(r));
    const run = await runCli(['--base-url', url], { CONFORMANCE_API_KEY: 'k-123456' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(
      /^gateway-conformance: cannot reach target '[^']+' at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
    );
  });

  it('exits 2 on a target that hangs, after the request timeout', async () => {
    const { server, url } = await listen(() => undefined);
    const file = join(tmp, 'hang.yaml');
    writeFileSync(
      file,
      `targets:\n  - name: hang\n    base_url: ${url}\n    keys: { primary: HANG_KEY }\n    timeouts: { request_ms: 500 }\n`,
    );
    // The target never answers: exit 2 by itself (not runCli's kill), naming the 500 ms request timeout.
    const run = await runCli(['--targets', file, '--target', 'hang'], { HANG_KEY: 'k-123456' });
    server.closeAllConnections();
    server.close();
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no complete response within 500 ms \[TIMEOUT\]/);
  });

  it('exits 1 with a clear message when the target answers HTML instead of JSON, and judges it on', async () => {
    const { server, url } = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>');
    });
    const dir = join(tmp, 'html');
    const run = await runCli(['--base-url', url, '--report-dir', dir], { CONFORMANCE_API_KEY: 'k-123456' });
    server.close();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /GET \/openapi\.json answered text\/html that is not JSON: the target does not serve the API's description/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    // The run goes on against the documented schemas (issue 13): OAS-001 fails, and so does the rest.
    expect(summary.failedRequirements['OAS-001']).toBeGreaterThanOrEqual(1);
    expect(summary.openapi.validatedAgainst).toBe('documented');
  });

  it('exits 2 naming the file and line of a malformed targets.yaml', async () => {
    const file = join(tmp, 'bad.yaml');
    writeFileSync(file, 'targets:\n  - name: x\n    base_url: embedded\n    allow: [read, everything]\n');
    const run = await runCli(['--targets', file, '--target', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `gateway-conformance: ${file}: line 4, /targets/0/allow/1: must be one of read, write, billable, tickets, payments`,
    );
  });

  it('exits 2 on an unknown flag, and prints help', async () => {
    const bad = await runCli(['--colour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^gateway-conformance: Unknown option '--colour'.*\(see --help\)$/);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Verdicts and exit codes');
  });
});
