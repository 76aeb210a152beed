/**
 * Acceptance tests of the console against a partial target with about five pervasive root causes
 * (test/support/partial-server.ts): the failures are shown as a few groups, not a flood; a non-TTY log
 * gets a heartbeat line at least every 10 s against a slow target; the verdict is the last line, also
 * with a slow pipe reader; no harness code frame under a target's failure.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pkgPath } from '../src/paths.ts';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import { writeRefTargets } from '../tools/ref-target.ts';
import { type PartialServer, startPartial } from './support/partial-server.ts';

let server: PartialServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function partial(delayMs?: number, o: Parameters<typeof startPartial>[0] = {}) {
  server = await startPartial({ ...o, ...(delayMs ? { delayMs } : {}) });
  const dir = mkdtempSync(join(tmpdir(), 'gc-console-'));
  const targets = join(dir, 'targets.yaml');
  const env = writeRefTargets(server, targets, { requestMs: 10_000, concurrency: 4 });
  return { env, args: ['--targets', targets, '--target', 'ref'], report: join(dir, 'report') };
}

interface TimedRun {
  code: number | null;
  /** stdout and stderr as one stream (2>&1), each line with when it arrived (ms since the start). */
  lines: Array<{ at: number; text: string }>;
}

/**
 * The CLI with stdout and stderr into one pipe, as a CI log sees them; `slowMs`: the reader takes that
 * long over every chunk (a slow pipe reader). Bounded by `timeoutMs`.
 */
function runTimed(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, slowMs = 0): Promise<TimedRun> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('CONFORMANCE_') && k !== 'FORCE_COLOR') clean[k] = v;
  const quoted = [pkgPath('bin', 'gateway-conformance.mjs'), ...args].map(
    (a) => `'${a.replace(/'/g, "'\\''")}'`,
  );
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `exec '${process.execPath}' ${quoted.join(' ')} 2>&1`], {
      env: { ...clean, ...env },
      cwd: pkgPath(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const started = Date.now();
    const lines: TimedRun['lines'] = [];
    let partialLine = '';
    child.stdout.on('data', (d: Buffer) => {
      const parts = (partialLine + d.toString('utf8')).split('\n');
      partialLine = parts.pop() ?? '';
      for (const text of parts) lines.push({ at: Date.now() - started, text });
      if (slowMs > 0) {
        child.stdout.pause();
        setTimeout(() => child.stdout.resume(), slowMs);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (partialLine) lines.push({ at: Date.now() - started, text: partialLine });
      resolve({ code, lines });
    });
  });
}

const lastLine = (r: TimedRun) =>
  r.lines
    .map((l) => l.text)
    .filter((t) => t.trim() !== '')
    .at(-1);

describe('console of a run against a partial target', { timeout: HANG_BOUND_MS }, () => {
  it('shows a few root causes, not a flood; the verdict last, also to a slow pipe reader', async () => {
    const p = await partial();
    // A slow reader: 20 ms over every chunk the pipe delivers.
    const run = await runTimed(
      [...p.args, '--allow', 'read,billable', '--report-dir', p.report],
      p.env,
      HANG_BOUND_MS,
      20,
    );
    const text = run.lines.map((l) => l.text).join('\n');
    expect(run.code, text.slice(-3000)).toBe(1);
    expect(lastLine(run)).toMatch(/^VERDICT: /);
    // No flood: the main branch printed about 3,900 lines for this target (vitest's dump per failure).
    expect(run.lines.length, text.slice(-3000)).toBeLessThan(300);
    // No harness code frame under a target's failure.
    expect(text).not.toMatch(/src\/runtime\/check\.ts|ConformanceFailure|❯/);
    const s = JSON.parse(readFileSync(join(p.report, 'summary.json'), 'utf8')) as Summary;
    const groups = s.groups ?? [];
    // Framework 404s: one "not implemented" group per endpoint, and the console says so.
    const missing = groups.filter((g) => g.kind === 'not_implemented').map((g) => g.endpoint);
    expect(missing).toEqual(
      expect.arrayContaining(['GET /v1/usage', 'GET /v1/ledger', 'GET /v1/media/models']),
    );
    expect(text).toMatch(/not implemented: \d+ endpoints answer the framework's 404/);
    // A 404 of an unimplemented endpoint is not "did not refuse a request without a key".
    expect(
      groups.filter(
        (g) => g.kind !== 'not_implemented' && g.endpoint === 'GET /v1/usage' && g.ids.includes('AUTH-001'),
      ),
    ).toEqual([]);
    // No auth: the probes of a documented endpoint that is there fail as the tests' own finding.
    // No auth at all is one root cause, however many probes and endpoints show it.
    const auth = groups.filter((g) => g.cause.startsWith('authentication is not enforced'));
    expect(auth).toHaveLength(1);
    expect(auth[0]!.ids.length).toBeGreaterThan(1);
    expect(text).toMatch(
      /\[AUTH-\d{3}( AUTH-\d{3})+\] authentication is not enforced: requests without a valid key were answered 2xx \(\d+ cases: a request without a key; .*\) on \d+ endpoints/,
    );
    // One missing field is one group, however many replies, tests and schema paths.
    for (const field of ['usage', 'created', 'billing']) {
      const g = groups.filter(
        (x) =>
          x.endpoint === 'POST /v1/chat/completions' &&
          x.ids.includes('RESP-003') &&
          x.cause.includes(`'${field}'`),
      );
      expect(g, field).toHaveLength(1);
      expect(g[0]!.tests.length).toBeGreaterThan(1);
    }
    const owned = groups.filter((x) => x.ids.includes('RESP-003') && x.cause.includes("'owned_by'"));
    expect(owned).toHaveLength(1);
    expect(owned[0]!.pointer).toBe('/data/*');
    // No request validation: the tests' own findings, shown before the per-exchange checks.
    const own = text.indexOf('findings of the tests:');
    expect(own).toBeGreaterThan(-1);
    expect(own).toBeLessThan(text.indexOf('checks of every exchange'));
    // The cases of one field are one cause (four temperature cases were four groups), and so are the
    // parameters of one endpoint let through (no request validation: one group naming every rule).
    expect(text).toMatch(
      /\[CHAT-005( CHAT-\d{3})+\] requests the contract refuses were answered without a 4xx refusal \(\d+ cases: CHAT-005: /,
    );
    expect(groups.filter((g) => g.ids.includes('CHAT-005') && g.kind === 'finding')).toHaveLength(1);
    // Not-run causes: one line per cause, with its remedy or the root cause it points to.
    expect(text).toMatch(
      /not run \(\d+\): GET \/v1\/media\/models answered 404 — see not implemented: GET \/v1\/media\/models/,
    );
    expect(text).toMatch(
      /not run \(\d+\): side-effect class 'write' is not allowed .* — to run: allow it with --allow read,billable,write/,
    );
    // The HTML report shows the same groups (and the not-run causes with their remedy).
    const html = readFileSync(join(p.report, 'report.html'), 'utf8');
    expect(html).toContain('data-groups');
    expect(html).toContain(
      "GET /v1/usage is not implemented: it answers the framework's 404 without the APIError shape",
    );
    expect(html).toContain('to run: allow it with --allow read,billable,write');
    // In each test's detail its own finding comes first, the per-exchange checks after it.
    const mixed = s.tests.filter(
      (t) => t.violations.some((v) => v.scope === 'exchange') && t.violations.some((v) => !v.scope),
    );
    expect(mixed.length).toBeGreaterThan(0);
    for (const t of mixed) expect(t.violations[0]!.scope, t.title).toBeUndefined();
    // Raw per-test detail stays in summary.json.
    expect(s.tests.filter((t) => t.outcome === 'failed').length).toBeGreaterThan(100);
    // Chat replies without usage fail CHAT-003 (a missing property is its own rule's, not the object's).
    expect(s.requirements['CHAT-003']?.outcome).toBe('failed');
  });

  it('observed, not aimed: a target with no authentication and no points never passes their rules', async () => {
    const p = await partial(undefined, { anyKey: true, noPoints: true });
    const run = await runTimed(
      [...p.args, '--allow', 'read,billable', '--suite', 'auth,balance,chat', '--report-dir', p.report],
      p.env,
      HANG_BOUND_MS,
    );
    const text = run.lines.map((l) => l.text).join('\n');
    expect(run.code, text.slice(-3000)).toBe(1);
    const s = JSON.parse(readFileSync(join(p.report, 'summary.json'), 'utf8')) as Summary;
    // It never answers 401: AUTH-009 (the 401's code) is not judged, with the form it needed.
    expect(s.requirements['AUTH-009']?.outcome).toBe('not_judged');
    expect(s.requirements['AUTH-009']?.reasons[0]).toMatch(/^not judged: the target never showed a 401/);
    // No points field anywhere: the points rules are not judged (the balance's own fields fail BAL-001).
    expect(s.requirements['PTS-001']?.outcome).toBe('not_judged');
    expect(s.requirements['BAL-001']?.outcome).toBe('failed');
    expect(s.requirements['CHAT-003']?.outcome).toBe('failed');
    expect(lastLine(run)).toMatch(/\d+ of \d+ requirements judged, \d+ not judged: the target never showed/);
    const reqXml = readFileSync(join(p.report, 'requirements.junit.xml'), 'utf8');
    expect(reqXml).toMatch(
      /name="AUTH-009"[^>]*>\s*<skipped message="not judged: the target never showed a 401/,
    );
    const html = readFileSync(join(p.report, 'report.html'), 'utf8');
    expect(html).toMatch(/id="req-AUTH-009"[\s\S]*?not judged: the target never showed a 401/);
  });

  it('heartbeat: a non-TTY log against a slow target says, again and again, how far the run is', async () => {
    // Every request but the description waits 5 s: the run stays silent for several heartbeat intervals
    // however fast the machine (its requests go in rounds of at most 4; about 7 rounds).
    const p = await partial(5_000);
    const run = await runTimed(
      [...p.args, '--allow', 'read', '--suite', 'models,balance', '--report-dir', p.report],
      p.env,
      HANG_BOUND_MS,
    );
    const text = run.lines.map((l) => `${l.at} ${l.text}`).join('\n');
    expect(lastLine(run), text.slice(-2000)).toMatch(/^VERDICT: /);
    const heartbeats = run.lines.filter((l) => /^… \[\d+ s\] /.test(l.text));
    expect(heartbeats.length, text).toBeGreaterThan(0);
    expect(
      heartbeats.some((h) =>
        /(\d+\/\d+ tests done|\d+ tests done of \d+ collected so far \(\d+\/\d+ files\)), \d+ failed, \d+ not run; waiting for/.test(
          h.text,
        ),
      ),
      text,
    ).toBe(true);
    // Repeated, not once: the run's own clock in each heartbeat goes forward. (How long the log stays
    // silent in wall-clock time depends on the machine's load; that figure is printed, not asserted.)
    expect(heartbeats.length, text).toBeGreaterThanOrEqual(2);
    const stamps = heartbeats.map((h) => Number(/^… \[(\d+) s\]/.exec(h.text)![1]));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]!, text).toBeGreaterThan(stamps[i - 1]!);
    let longest = run.lines[0]!.at;
    for (let i = 1; i < run.lines.length; i++)
      longest = Math.max(longest, run.lines[i]!.at - run.lines[i - 1]!.at);
    console.log(
      `heartbeat: ${heartbeats.length} heartbeats, longest silence ${(longest / 1000).toFixed(1)} s wall`,
    );
    // Colours only on a TTY: none in a pipe.
    expect(run.lines.some((l) => l.text.includes('\u001b['))).toBe(false);
  });
});
