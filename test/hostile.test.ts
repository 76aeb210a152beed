// @conformance start-early 2
/**
 * Acceptance tests against hostile targets (tools/hostile-server.ts): whatever the target sends,
 * the run ends, the report is written, the exit code is right, the target is blamed (never the
 * harness), no fragment of a key reaches any output, a read-only run causes no side effect, and signals
 * work through `npm run conformance`. Bounds are generous (the machine is shared): these are not timing
 * tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { FRAGMENT_CHARS } from '../src/http/redact.ts';
import { pkgPath } from '../src/paths.ts';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import {
  type HostileMode,
  type HostileOptions,
  type HostileServer,
  hostileTarget,
} from '../tools/hostile-server.ts';
import { findLeaks } from '../tools/leaks.ts';
import { runCli } from './helpers.ts';

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A hostile server in `mode` and a targets file for it (target `ref`). */
async function hostile(o: HostileOptions, requestMs = 10_000) {
  const h = await hostileTarget(o, requestMs);
  server = h.server;
  return h;
}

/** A hostile server in mode `o` and a quiet run of the CLI against it limited to `suite`. */
async function quietRun(o: HostileOptions, suite: string) {
  const h = await hostile(o);
  const run = await runCli(
    [...h.args, '--suite', suite, '--report-dir', h.report, '--quiet'],
    h.env,
    HANG_BOUND_MS,
  );
  return { h, run };
}

describe('hostile targets', { timeout: HANG_BOUND_MS }, () => {
  it('echo: the whole suite, every class, keys with + / = for every role: no key fragment in any output', async () => {
    const h = await hostile({ mode: 'echo' });
    const keys = server!.keys;
    expect(Object.keys(keys).length).toBeGreaterThan(8);
    for (const k of Object.values(keys)) expect(k).toMatch(/^.{36}$/);
    // Every test of every class writes its outputs; the property tests with 5 runs each, not 25 (the same
    // forms of output, fewer cases of each: the run cost about a fifth of this file's CPU).
    const run = await runCli(
      [...h.args, '--allow', 'all', '--property-runs', '5', '--report-dir', h.report],
      h.env,
    );
    // The echoes put keys into replies: SEC-001 fails, so the run fails; it is not a harness error.
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    const s = summaryOf(h.report);
    expect(s.counts.harness_error).toBe(0);
    expect(s.tests.some((t) => t.violations?.some((v) => v.id === 'SEC-001'))).toBe(true);
    const outputs: Array<[string, string]> = [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
    ];
    for (const f of readdirSync(h.report)) outputs.push([f, readFileSync(join(h.report, f), 'utf8')]);
    expect(outputs.map(([f]) => f)).toEqual(
      expect.arrayContaining([
        'exchanges.ndjson',
        'summary.json',
        'junit.xml',
        'report.html',
        'manifest.json',
      ]),
    );
    for (const [name, text] of outputs) expect(findLeaks(text, keys, FRAGMENT_CHARS), name).toEqual([]);
    // The echoes were there to be found: redaction marks stand where they were.
    expect(readFileSync(join(h.report, 'exchanges.ndjson'), 'utf8')).toContain('[REDACTED:');
  });

  const blamed: Array<[HostileMode, RegExp, Partial<HostileOptions>]> = [
    ['regex', /must match pattern "\^\(a\+\)\+\$"/, {}],
    ['allof-cycle', /cycle/, {}],
    ['ref-cycle', /cycle/, {}],
    ['bad-regex', /not a valid regular expression/, {}],
  ];
  for (const [mode, evidence, extra] of blamed) {
    it(`${mode}: the run ends with its report and exit 1, the target blamed with evidence, no harness error`, async () => {
      const { h, run } = await quietRun({ mode, ...extra }, 'models,openapi');
      expect(run.code, run.stderr.slice(-2000)).toBe(1);
      const s = summaryOf(h.report);
      expect(s.counts.harness_error).toBe(0);
      const messages = s.tests.flatMap((t) => (t.violations ?? []).map((v) => v.message));
      expect(messages.some((m) => evidence.test(m)) || s.openapi.errors.some((e) => evidence.test(e))).toBe(
        true,
      );
      if (mode !== 'regex') {
        expect(s.openapi.valid).toBe(false);
        expect(s.openapi.tooLarge).toBeUndefined();
        expect(s.tests.find((t) => /^OAS-001 OAS-006 serves/.test(t.title))?.outcome).toBe('failed');
      }
      expect(statSync(join(h.report, 'summary.json')).size).toBeLessThan(2_000_000);
      expect(existsSync(join(h.report, 'report.html'))).toBe(true);
    });
  }

  // Beyond the suite's size bounds, not invalid: the contract sets no size limit on the description.
  const beyond: Array<[HostileMode, RegExp, Partial<HostileOptions>]> = [
    ['enums', /enum: \d+ values \(at most/, { enumBytes: 1_000_000 }],
    ['deep', /nested deeper than/, { depth: 200_000 }],
  ];
  for (const [mode, evidence, extra] of beyond) {
    it(`${mode}: a description beyond the suite's bounds is advisory (OAS-006), not an OAS-001 failure; the run ends bounded, with its report`, async () => {
      const { h, run } = await quietRun({ mode, ...extra }, 'models,openapi');
      const s = summaryOf(h.report);
      expect(s.counts.harness_error).toBe(0);
      expect(s.failedRequirements['OAS-001']).toBeUndefined();
      expect(s.advisoryRequirements['OAS-006']).toBe(1);
      const served = s.tests.find((t) => /^OAS-001 OAS-006 serves/.test(t.title));
      expect(served?.outcome).toBe('advisory');
      expect(served?.violations.map((v) => v.id)).toEqual(['OAS-006']);
      expect(served?.violations.some((v) => evidence.test(v.message))).toBe(true);
      // Not compiled: responses were validated against the documented schemas, and the report says why.
      expect(s.openapi).toMatchObject({ valid: false, errors: [], validatedAgainst: 'documented' });
      expect(s.openapi.tooLarge?.some((e) => evidence.test(e))).toBe(true);
      expect(s.openapi.documentedBecause).toMatch(/beyond what the suite examines, see OAS-006/);
      // The description's own checks are not run, with the reason; nothing else fails (a partial run: 0).
      const unexamined = s.tests.filter((t) => t.outcome === 'not_run' && /see OAS-006/.test(t.reason ?? ''));
      expect(unexamined.length).toBeGreaterThan(0);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      // Bounded: it ended by itself (exit 0 above, not the kill of quietRun's bound), and the 1 MB enum is
      // not copied into the summary.
      expect(statSync(join(h.report, 'summary.json')).size).toBeLessThan(2_000_000);
      expect(readFileSync(join(h.report, 'report.html'), 'utf8')).toMatch(/not examined: beyond the suite/);
    });
  }

  it('biglist: a valid 40,000-entry catalog is judged, the report written, no harness error', async () => {
    const { h, run } = await quietRun({ mode: 'biglist', items: 40_000 }, 'models');
    expect([0, 1], run.stderr.slice(-2000)).toContain(run.code);
    const s = summaryOf(h.report);
    expect(s.counts.harness_error).toBe(0);
    expect(s.counts.passed).toBeGreaterThan(0);
  });

  it('biglist with an error in every entry: judged without quadratic work, evidence counted not copied', async () => {
    const { h, run } = await quietRun({ mode: 'biglist', items: 40_000, invalidEntries: true }, 'models');
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    const s = summaryOf(h.report);
    expect(s.counts.harness_error).toBe(0);
    // 40,000 findings per reply: at most 25 listed per id and test, the rest in one counted entry.
    const counted = s.tests
      .flatMap((t) => t.violations ?? [])
      .filter((v) => /counted here but not listed/.test(v.message));
    expect(counted.length).toBeGreaterThan(0);
    expect(Math.max(...counted.map((v) => v.count ?? 0))).toBeGreaterThan(1_000);
    expect(statSync(join(h.report, 'summary.json')).size).toBeLessThan(2_000_000);
  });

  it('a read-only run against an auth bypass causes no side effect, and says which auth checks it leaves unjudged', async () => {
    const h = await hostile({ mode: 'bypass' });
    const run = await runCli(
      [...h.args, '--allow', 'read', '--suite', 'auth', '--report-dir', h.report],
      h.env,
    );
    expect(run.code, run.stderr.slice(-2000)).not.toBe(3);
    expect(server!.effects()).toEqual([]);
    const s = summaryOf(h.report);
    const unjudged = s.tests.filter(
      (t) => t.outcome === 'not_run' && /not judged: class '\w+' is not allowed/.test(t.reason ?? ''),
    );
    expect(unjudged.length).toBeGreaterThan(0);
  });
});

/** `npm run conformance -- args` in its own process group; resolves with its exit and when it came. */
function npmRun(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; done: Promise<{ code: number | null; at: number; out: string }> } {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('CONFORMANCE_') && !k.startsWith('npm_')) clean[k] = v;
  const child = spawn('npm', ['run', '--silent', 'conformance', '--', ...args], {
    cwd: pkgPath(),
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const kill = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), HANG_BOUND_MS);
  const done = new Promise<{ code: number | null; at: number; out: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, at: Date.now(), out });
    }),
  );
  return { child, done };
}

/** Resolves once `file` exists (bounded). */
async function until(file: string, ms = 120_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100)))
    if (existsSync(file)) return true;
  return false;
}

/** The longest request timeout a targets file may set (src/config/schema.ts): hanging requests end no sooner. */
const REQUEST_MS_MAX = 600_000;

describe('signals through npm run conformance', { timeout: HANG_BOUND_MS }, () => {
  for (const [what, signal, toGroup] of [
    ['SIGTERM to the process group', 'SIGTERM', true],
    ['SIGINT to the process group (Ctrl-C)', 'SIGINT', true],
    ['SIGTERM to npm alone', 'SIGTERM', false],
    ['SIGINT to npm alone', 'SIGINT', false],
  ] as const) {
    it(`${what}: the run stops gracefully, writes its report, exits 130, and npm exits only after`, async () => {
      const h = await hostile({ mode: 'slow' }, 30_000);
      const { child, done } = npmRun([...h.args, '--allow', 'read', '--report-dir', h.report], h.env);
      // Tests are running (their requests hang) once vitest has started: the exchange log grows.
      expect(await until(join(h.report, 'run.json'))).toBe(true);
      await new Promise((r) => setTimeout(r, 4_000));
      process.kill(toGroup ? -child.pid! : child.pid!, signal);
      const end = await done;
      expect(end.code, end.out.slice(-2000)).toBe(130);
      const summary = join(h.report, 'summary.json');
      expect(existsSync(summary)).toBe(true);
      expect(statSync(summary).mtimeMs).toBeLessThanOrEqual(end.at);
      expect(summaryOf(h.report).interrupted).toBe(`interrupted by ${signal}`);
    });
  }

  it('a signal during the preflight is honoured: the report is written and the exit is 130', async () => {
    // Requests hang up to the longest request timeout a targets file may set (10 min).
    const h = await hostile({ mode: 'hang-all' }, REQUEST_MS_MAX);
    const { child, done } = npmRun([...h.args, '--allow', 'read', '--report-dir', h.report], h.env);
    // The preflight is under way once its first request reached the target (not after a fixed wait: a
    // loaded machine takes longer than any guess to start npm, tsx and the CLI, and a signal before the
    // CLI's handler is installed kills it outright).
    for (const end = Date.now() + HANG_BOUND_MS / 2; server!.requests() === 0 && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 100));
    expect(server!.requests()).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 500));
    const sent = Date.now();
    process.kill(-child.pid!, 'SIGINT');
    const end = await done;
    expect(end.code, end.out.slice(-2000)).toBe(130);
    // Not at the request's own timeout: the preflight's request in flight was ended by the signal.
    expect(end.at - sent).toBeLessThan(REQUEST_MS_MAX);
    expect(summaryOf(h.report).interrupted).toBe('interrupted by SIGINT');
  });

  it('a second signal stops at once, with requests in flight', async () => {
    // Requests hang up to the longest request timeout a targets file may set (10 min).
    const h = await hostile({ mode: 'hang' }, REQUEST_MS_MAX);
    const { child, done } = npmRun([...h.args, '--allow', 'read', '--report-dir', h.report], h.env);
    expect(await until(join(h.report, 'run.json'))).toBe(true);
    await new Promise((r) => setTimeout(r, 4_000));
    process.kill(-child.pid!, 'SIGINT');
    await new Promise((r) => setTimeout(r, 1_500));
    const sent = Date.now();
    process.kill(-child.pid!, 'SIGINT');
    const end = await done;
    expect(end.code).toBe(130);
    // At once: before any request in flight reached its own timeout.
    expect(end.at - sent).toBeLessThan(REQUEST_MS_MAX);
  });
});

/** The CLI in a child process, with its peak resident memory (VmHWM, read while it runs: threads included). */
async function runMeasured(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  let peakKb = 0;
  const run = await runCli(args, env, timeoutMs, (child) => {
    const poll = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        if (hwm) peakKb = Math.max(peakKb, Number(hwm));
      } catch {}
    }, 100);
    return () => clearInterval(poll);
  });
  return { ...run, peakMb: Math.round(peakKb / 1024) };
}

/** Every element name of a parsed XML document. */
function elementNames(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const v of node) elementNames(v, out);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (!k.startsWith('@_') && k !== '#text') out.add(k);
      elementNames(v, out);
    }
  return out;
}

/** A case's figures, printed for the record (the before/after note reads them). */
const figure = (name: string, values: Record<string, unknown>) =>
  console.info(`figure ${name}: ${JSON.stringify(values)}`);

const exchangesOf = (dir: string) =>
  readFileSync(join(dir, 'exchanges.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method: string; path: string; status?: number; durationMs: number });

describe('hostile targets, round two', { timeout: HANG_BOUND_MS }, () => {
  // Ids a target hands out: never a request to another resource than the one the id names.
  const ids: Array<[string, boolean]> = [
    ['.', false],
    ['..', false],
    ['', false],
    ['a/b?c=d#e', true],
    ['https://evil.example/x?y#z', true],
  ];
  for (const [id, sendable] of ids) {
    it(`ids ${JSON.stringify(id)}: ${sendable ? 'one encoded segment, logged as sent' : 'refused before sending, as the target’s failure'}`, async () => {
      const h = await hostile({ mode: 'ids', id });
      const run = await runCli(
        [
          ...h.args,
          ...[
            '--allow',
            'all',
            '--suite',
            'media',
            '--filter',
            'deletes a ready input|serves an image in the',
          ],
          ...['--report-dir', h.report, '--quiet'],
        ],
        h.env,
        HANG_BOUND_MS,
      );
      const got = server!.received();
      const media = got.filter((r) => / \/v1\/media\//.test(r)).map((r) => r.split('?')[0]!);
      // Bound: every media request names a collection or one id segment of it; none reaches a parent.
      const astray = media.filter(
        (r) => !/^[A-Z]+ \/v1\/media\/(inputs|jobs|assets|models)(\/[^/]+)?$/.test(r),
      );
      // The exchange log holds what went over the wire: every answered exchange is a request received.
      const sent = exchangesOf(h.report).filter((e) => e.status !== undefined);
      const notAsSent = sent.filter((e) => !got.includes(`${e.method} ${e.path}`));
      figure(`ids ${JSON.stringify(id)}`, {
        requests: got.length,
        astray: astray.length,
        astrayDeletes: astray.filter((r) => r.startsWith('DELETE')).length,
        notAsSent: notAsSent.length,
        code: run.code,
      });
      expect.soft(astray).toEqual([]);
      expect.soft(notAsSent.map((e) => `${e.method} ${e.path}`)).toEqual([]);
      const s = summaryOf(h.report);
      expect.soft(s.counts.harness_error, run.stderr.slice(-2000)).toBe(0);
      const messages = s.tests.flatMap((t) => (t.violations ?? []).map((v) => `${v.id} ${v.message}`));
      if (sendable) {
        const one = new RegExp(
          `^DELETE /v1/media/inputs/${encodeURIComponent(id).replace(/[.?]/g, '\\$&')}\\d+$`,
        );
        expect(got.some((r) => one.test(r))).toBe(true);
      } else {
        expect(messages.some((m) => /^GEN-001 .*cannot be one path segment/.test(m))).toBe(true);
        expect(run.code, run.stderr.slice(-3000)).toBe(1);
      }
    });
  }

  it('inject: workflow commands, escape sequences and ]]> in messages, codes, model ids and statuses obey nobody', async () => {
    const h = await hostile({ mode: 'inject' });
    const run = await runCli(
      [
        ...h.args,
        ...['--allow', 'all', '--suite', 'media'],
        ...['--filter', 'MCAT-004|deletes a ready input|serves an image in the', '--report-dir', h.report],
      ],
      h.env,
      HANG_BOUND_MS,
    );
    const out = `${run.stdout}\n${run.stderr}`;
    const junit = readFileSync(join(h.report, 'junit.xml'), 'utf8');
    const lines = out.split('\n');
    figure('inject', {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it counts.
      controls: (out.match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/g) ?? []).length,
      commandLines: lines.filter((l) => /^\s*::|##\[/.test(l)).length,
      bytes: Buffer.byteLength(out),
      junitValid: XMLValidator.validate(junit) === true,
      code: run.code,
    });
    const s = summaryOf(h.report);
    expect(s.counts.harness_error, run.stderr.slice(-2000)).toBe(0);
    // The injection reached the console, shown escaped ...
    expect(out).toContain('\\x1b');
    // ... and nothing in it is obeyed: no control character, no line a CI reads as a command.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(lines.filter((l) => /^\s*::|##\[/.test(l))).toEqual([]);
    expect(Buffer.byteLength(out)).toBeLessThan(200_000);
    // junit.xml: well-formed for a strict parser, and no element the target wrote.
    expect(XMLValidator.validate(junit)).toBe(true);
    const names = elementNames(new XMLParser({ ignoreAttributes: false }).parse(junit));
    expect(
      [...names].filter(
        (n) =>
          ![
            '?xml',
            'testsuites',
            'testsuite',
            'testcase',
            'failure',
            'error',
            'skipped',
            'system-out',
          ].includes(n),
      ),
    ).toEqual([]);
  });

  for (const dripReads of [true, false]) {
    it(`drip (${dripReads ? 'the preflight’s reads' : 'every request but the preflight’s'}): every reply is closed at its deadline, the target blamed`, async () => {
      const requestMs = 3_000;
      const h = await hostile({ mode: 'drip', dripReads }, requestMs);
      const started = Date.now();
      const run = await runCli(
        [...h.args, '--allow', 'read', '--suite', 'health,models', '--report-dir', h.report, '--quiet'],
        h.env,
        HANG_BOUND_MS,
      );
      const drips = server!.drips();
      figure(`drip ${dripReads ? 'reads' : 'rest'}`, {
        drips: drips.length,
        longestMs: Math.max(...drips),
        runMs: Date.now() - started,
        code: run.code,
      });
      expect(drips.length).toBeGreaterThan(0);
      // A reply that drips never ends by itself: the run ends by itself (not killed at runCli's bound:
      // a code, not null) only if every dripping reply was given up. How far past its deadline each was
      // closed depends on the machine's load: a figure above, bounded here only against a reply kept
      // open for many deadlines.
      expect(run.code, run.stderr.slice(-2000)).not.toBeNull();
      expect(Math.max(...drips)).toBeLessThan(requestMs * 10);
      expect(run.code, run.stderr.slice(-2000)).not.toBe(3);
      if (existsSync(join(h.report, 'summary.json')))
        expect(summaryOf(h.report).counts.harness_error).toBe(0);
    });
  }

  it('bigmedia: 20,000 extra models in the media catalog: a seeded sample is judged, said in the report, memory bounded', async () => {
    const h = await hostile({ mode: 'bigmedia', items: 20_000 });
    const run = await runMeasured(
      [
        ...h.args,
        ...['--allow', 'all', '--suite', 'media', '--filter', 'MCAT-004', '--seed', '7'],
        ...['--report-dir', h.report, '--quiet'],
      ],
      h.env,
      HANG_BOUND_MS,
    );
    const named = server!.named();
    figure('bigmedia', {
      modelsNamed: named.size,
      requestsNamingThem: [...named.values()].reduce((a, b) => a + b, 0),
      requests: server!.requests(),
      peakMb: run.peakMb,
      code: run.code,
    });
    const s = summaryOf(h.report);
    expect(s.counts.harness_error, run.stderr.slice(-2000)).toBe(0);
    // Bound: the standard profile's sample (4) of the 20,001 undocumented models, not every one.
    expect(named.size).toBeLessThanOrEqual(4);
    expect(server!.requests()).toBeLessThan(3_000);
    const notes = s.tests.flatMap((t) => t.notes ?? []);
    expect(notes.some((n) => /judged \d+ of the 20001 undocumented models, drawn by seed 7/.test(n))).toBe(
      true,
    );
    expect(run.peakMb).toBeLessThan(900);
  });

  it('biglist of 300,000 entries (a 62 MB valid JSON list on every catalog read): counted and hashed past 32 MiB, not parsed, the tests that needed it not judged, memory bounded', async () => {
    // Its point is the size, not the time: a 62 MB read took more than 10 s at a load of 11 on 2 cores
    // (CI at 81e072f and 6929d25: the read timed out, so no test met the size), hence a wide bound.
    const h = await hostile({ mode: 'biglist', items: 300_000 }, 60_000);
    const run = await runMeasured(
      [...h.args, '--allow', 'read', '--suite', 'models', '--report-dir', h.report, '--quiet'],
      h.env,
      HANG_BOUND_MS,
    );
    figure('biglist 300k', { peakMb: run.peakMb, code: run.code });
    const s = summaryOf(h.report);
    expect(s.counts.harness_error, run.stderr.slice(-2000)).toBe(0);
    // Nothing failed for a body it never parsed: the tests that read the catalog are not judged, saying why.
    const tooLarge = s.tests.filter((t) => /more than the 33554432 the suite reads/.test(t.reason ?? ''));
    expect(tooLarge.length).toBeGreaterThan(0);
    for (const t of tooLarge) expect(t.outcome).toBe('not_run');
    expect(s.failedRequirements['RESP-003']).toBeUndefined();
    // The exchange log keeps the whole body's size and digest.
    const log = readFileSync(join(h.report, 'exchanges.ndjson'), 'utf8');
    expect(log).toMatch(/"bytes":6\d{7},"sha256":"[0-9a-f]{64}"/);
    expect(run.code, run.stderr.slice(-2000)).not.toBe(3);
    expect(run.peakMb).toBeLessThan(1_000);
  });
});
