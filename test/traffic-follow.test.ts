/**
 * check-traffic --follow (src/traffic/follow.ts): a log judged as a writer appends to it, each finding
 * printed when its line arrives, a truncated log read again from its start, and SIGTERM writing the
 * report with the verdict of what was judged (never PASSED: a followed log is never complete). The CLI
 * runs as a child process; every wait is bounded by an event (a line printed), with a hang bound.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT, type Summary } from '../src/report/summary.ts';
import { follow } from '../src/traffic/follow.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import { recordCapture } from '../tools/traffic-capture.ts';
import { runCli } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'traffic-follow-'));

/** The lines of the suite's own exchange log of a session against a fault. */
async function sessionLines(name: string, fault?: string): Promise<string[]> {
  const log = join(dir, `${name}.ndjson`);
  await recordCapture(join(dir, `${name}.har`), fault, undefined, log);
  return readFileSync(log, 'utf8').trim().split('\n');
}

/** Wait until `text()` matches (polled every 20 ms), at most the hang bound. */
async function until(text: () => string, re: RegExp): Promise<void> {
  const end = Date.now() + HANG_BOUND_MS;
  while (!re.test(text())) {
    if (Date.now() > end) throw new Error(`never printed ${re}: ${text().slice(-2000)}`);
    await sleep(20);
  }
}

describe('check-traffic --follow', () => {
  let lax: string[];
  let clean: string[];
  beforeAll(async () => {
    lax = await sessionLines('lax', 'chat-temperature-lax');
    clean = await sessionLines('clean');
  });

  it('prints each finding as its line arrives, rereads a truncated log, and writes the report on SIGTERM', async () => {
    const log = join(dir, 'follow.ndjson');
    const out = join(dir, 'follow-report');
    writeFileSync(log, '');
    const lax5 = lax.findIndex((l) => l.includes('"temperature') || /temperature/.test(l));
    expect(lax5).toBeGreaterThan(0);
    let stdout = '';
    const writer = async (child: ChildProcess) => {
      await until(() => stdout, /following .*follow\.ndjson/);
      // Everything before the request with a temperature outside 0 to 2: no finding yet.
      appendFileSync(log, `${lax.slice(0, lax5).join('\n')}\n`);
      // Its line in two writes: nothing is judged until its end of line arrives.
      const line = lax[lax5]!;
      appendFileSync(log, line.slice(0, 40));
      await sleep(600);
      expect(stdout).not.toMatch(/CHAT-005/);
      appendFileSync(log, `${line.slice(40)}\n`);
      await until(
        () => stdout,
        new RegExp(`follow\\.ndjson line ${lax5 + 1}: CHAT-005 failure: .*temperature 2\\.5`),
      );
      // Rotated in place: truncated, then written from its start again.
      writeFileSync(log, '');
      await until(() => stdout, /follow\.ndjson was truncated; reading it again from its start/);
      appendFileSync(log, `${clean.join('\n')}\n`);
      await sleep(800);
      child.kill('SIGTERM');
    };
    let running: Promise<void> | undefined;
    const run = await runCli(
      ['check-traffic', '--follow', log, '--window', '15m', '--report-dir', out],
      {},
      HANG_BOUND_MS,
      (child) => {
        child.stdout!.on('data', (d) => {
          stdout += d;
        });
        running = writer(child);
        return () => {};
      },
    );
    await running;
    expect(run.code, run.stdout + run.stderr).toBe(EXIT.failed);
    expect(run.stdout).toMatch(
      /^VERDICT: FAILED \(INCOMPLETE: followed .*follow\.ndjson for \d+ s until SIGTERM: a followed log is never complete/m,
    );
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    expect(s.failedRequirements).toEqual({ 'CHAT-005': 1 });
    // Every complete line was judged: the first session's up to the truncation, then the second whole.
    expect(s.capture!.exchangesJudged).toBe(lax5 + 1 + clean.length);
  });

  it('a clean log followed then stopped is INCOMPLETE (exit 4), never PASSED', async () => {
    const log = join(dir, 'clean.ndjson');
    writeFileSync(log, `${clean.join('\n')}\n`);
    const ac = new AbortController();
    const lines: string[] = [];
    const done = follow(
      { files: [log], reportDir: join(dir, 'clean-report'), signal: ac.signal, pollMs: 20 },
      (s) => lines.push(s),
    );
    await until(() => lines.join('\n'), /following/);
    await sleep(200);
    ac.abort('a test');
    const r = await done;
    expect(r.exitCode, lines.join('\n')).toBe(EXIT.incomplete);
    expect(r.summary.verdict).toBe('incomplete');
    expect(r.summary.capture!.exchangesJudged).toBe(clean.length);
    expect(lines.at(-1)).toMatch(
      /^VERDICT: INCOMPLETE \(followed .* until a test: a followed log is never complete/,
    );
  });

  it('a stop while it reads a backlog writes the report at once, with the bytes it did not read', async () => {
    // A log far larger than one look's chunk (1 MiB), its first finding early: the stop comes with it.
    const log = join(dir, 'backlog.ndjson');
    const lax5 = lax.findIndex((l) => /temperature/.test(l));
    const backlog = [...lax.slice(0, lax5 + 1)];
    while (backlog.join('\n').length < 4 * (1 << 20)) backlog.push(...clean);
    writeFileSync(log, `${backlog.join('\n')}\n`);
    const ac = new AbortController();
    const lines: string[] = [];
    const r = await follow(
      { files: [log], reportDir: join(dir, 'backlog-report'), signal: ac.signal, pollMs: 20 },
      (s) => {
        lines.push(s);
        if (/CHAT-005/.test(s)) ac.abort('a test');
      },
    );
    const judged = r.summary.capture!.exchangesJudged;
    expect(judged, lines.join('\n')).toBeLessThan(backlog.length / 2);
    expect(judged).toBeGreaterThan(lax5);
    const said = lines.find((l) => /the follow stopped \d+ bytes before the end/.test(l));
    expect(said, lines.join('\n')).toMatch(/not judged/);
    expect(lines.at(-1)).toMatch(
      /until a test, \d+ bytes appended not read: a followed log is never complete/,
    );
    expect(r.summary.verdict).toBe('failed');
  });

  it('forgets a sequence after the window: a replay after it is not compared with its first', async () => {
    const replay = (minutes: number) => {
      const at = (m: number) => new Date(Date.UTC(2026, 10, 29, 7, m)).toISOString();
      const line = (m: number) =>
        JSON.stringify({
          time: at(m),
          method: 'POST',
          url: '/v1/chat/completions',
          status: 200,
          request_headers: {
            authorization: 'Bearer k-1',
            'idempotency-key': 'one',
            'content-type': 'application/json',
          },
          request_body: '{"model":"m","messages":[]}',
          response_headers: { 'content-type': 'application/json' },
          response_body: JSON.stringify({
            id: `chatcmpl-${m}`,
            model: 'm',
            billing: { charged_points: '1.5' },
          }),
        });
      return `${line(0)}\n${line(minutes)}\n`;
    };
    const outcome = async (minutes: number, windowMs: number) => {
      const log = join(dir, `replay-${minutes}.ndjson`);
      writeFileSync(log, replay(minutes));
      const ac = new AbortController();
      const lines: string[] = [];
      const done = follow(
        {
          files: [log],
          reportDir: join(dir, `replay-${minutes}-report`),
          signal: ac.signal,
          pollMs: 20,
          windowMs,
        },
        (s) => lines.push(s),
      );
      await until(() => lines.join('\n'), /following/);
      await sleep(200);
      ac.abort('a test');
      return (await done).summary.tests.find((t) => t.ids[0] === 'IDEM-001')!.outcome;
    };
    // Charged twice under one key: judged (and failed) within the window, forgotten beyond it.
    expect(await outcome(5, 15 * 60_000)).toBe('failed');
    expect(await outcome(20, 15 * 60_000)).toBe('not_run');
  });

  it('refuses what it cannot follow', async () => {
    const run = await runCli(['check-traffic', '--follow', 'a.ndjson', 'b.har']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/--follow: follows one log, named by --follow/);
    const w = await runCli(['check-traffic', '--window', '15m', 'a.har']);
    expect(w.stderr).toMatch(/--window belongs to --follow/);
    const bad = await runCli(['check-traffic', '--follow', 'a.ndjson', '--window', 'soon']);
    expect(bad.stderr).toMatch(/--window: 'soon' is not a duration/);
    // A directory never grows lines: refused at once, not followed (a log not there yet is waited for).
    const folder = await runCli(['check-traffic', '--follow', dir]);
    expect(folder.code, folder.stderr).toBe(EXIT.usage);
    expect(folder.stderr).toMatch(/--follow: .* is a directory; name the log file/);
    expect(folder.stderr).not.toMatch(/internal error|\n\s+at /);
    const threads = await runCli(['check-traffic', '--follow', 'a.ndjson', '--threads', '2']);
    expect(threads.code).toBe(EXIT.usage);
    expect(threads.stderr).toMatch(/--follow: judges in one thread; no --threads/);
    for (const n of ['5', '-1', 'two', '1.5']) {
      const r = await runCli(['check-traffic', `--threads=${n}`, 'a.har']);
      expect(r.code, n).toBe(EXIT.usage);
      expect(r.stderr, n).toMatch(
        new RegExp(`--threads: '${n.replace('.', '\\.')}' is not a whole number from 0 to 4`),
      );
    }
  });
});
