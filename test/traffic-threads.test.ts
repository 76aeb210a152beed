/**
 * check-traffic with judging threads (TrafficOptions.threads) judges as it does in one thread: the same
 * verdict, the same findings in the same order, the same report files, on a capture that holds findings
 * of the per-exchange checks and of the sequence rules, keys of several deployments, entries that do not
 * read, and more entries than one batch a thread is handed; and beside it a gateway log (judged in the
 * reading thread, in its place among the batches), whole and in shards.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TrafficOptions } from '../src/traffic/judge.ts';
import { checkTraffic } from '../src/traffic/judge.ts';
import { recordCapture } from '../tools/traffic-capture.ts';

const dir = mkdtempSync(join(tmpdir(), 'traffic-threads-'));
/** Faults whose captures fail by a per-exchange check (SEC-001, ERR-001) or a sequence rule (IDEM-001, MJOB-025). */
const FAULTS = ['key-echo', 'error-shape-flat', 'idem-double-charge', 'failed-flips'];

/** A report's files as text, with what differs between any two runs (times, the directory) blanked. */
function reportOf(reportDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(reportDir).sort()) {
    if (f === 'manifest.json') continue; // digests of the other files, and the run's times
    out[f] = readFileSync(join(reportDir, f), 'utf8')
      .replaceAll(reportDir, '<report>')
      .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, '<time>')
      .replace(/("durationMs": ?)\d+/g, '$10')
      .replace(/(time|timestamp)="[^"]*"/g, '$1=""')
      .replace(/(<th>Duration<\/th><td>)[^<]*/g, '$1');
  }
  return out;
}

describe('check-traffic with judging threads', () => {
  const file = join(dir, 'mixed.har');
  beforeAll(async () => {
    const entries: string[] = [];
    for (const fault of FAULTS) {
      const one = join(dir, `${fault}.har`);
      await recordCapture(one, fault);
      const doc = JSON.parse(readFileSync(one, 'utf8')) as { log: { entries: unknown[] } };
      entries.push(...doc.log.entries.map((e) => JSON.stringify(e)));
    }
    // Twice over (so more entries than a batch), with entries that do not read in the middle: a scalar,
    // an object that is no JSON, a request without a response.
    const broken = [
      '42',
      '{"request": {"method": "GET", "url": "http://127.0.0.1:1/v1/models",}}',
      '{"request": {"method": "GET", "url": "http://127.0.0.1:1/v1/models", "headers": []}}',
    ];
    const all = [...entries, ...broken, ...entries];
    writeFileSync(file, `{"log": {"version": "1.2", "entries": [\n${all.join(',\n')}\n]}}\n`);
    expect(all.length).toBeGreaterThan(300);
  }, 120_000);

  it('gives the verdict, findings and report files of one thread', async () => {
    const runs = [];
    // 1: every other batch judged by the reading thread itself (ThreadedJudging's share).
    for (const threads of [0, 1, 2]) {
      const lines: string[] = [];
      const reportDir = join(dir, `report-${threads}`);
      const r = await checkTraffic({ files: [file], reportDir, threads }, (s) => lines.push(s));
      runs.push({ r, lines, reportDir });
    }
    const [one, ...more] = runs as [(typeof runs)[0], ...Array<(typeof runs)[0]>];
    for (const two of more) sameAsOne(one, two);
  }, 120_000);

  function sameAsOne(
    one: { r: Awaited<ReturnType<typeof checkTraffic>>; lines: string[]; reportDir: string },
    two: { r: Awaited<ReturnType<typeof checkTraffic>>; lines: string[]; reportDir: string },
  ): void {
    expect(one.r.exitCode).toBe(1);
    expect(two.r.exitCode).toBe(one.r.exitCode);
    // Findings of both kinds and problems of the reader are in the capture judged.
    const failed = Object.keys(one.r.summary!.failedRequirements);
    for (const id of ['SEC-001', 'ERR-001', 'IDEM-001', 'MJOB-025']) expect(failed, id).toContain(id);
    expect(one.r.summary!.capture!.problems).toHaveLength(3);
    expect(two.r.summary!.failedRequirements).toEqual(one.r.summary!.failedRequirements);
    expect(two.r.summary!.advisoryRequirements).toEqual(one.r.summary!.advisoryRequirements);
    const violations = (s: typeof one) =>
      s.r.summary!.tests.flatMap((t) => t.violations.map((v) => `${v.id} ${v.exchangeId} ${v.message}`));
    expect(violations(two)).toEqual(violations(one));
    expect(violations(one).length).toBeGreaterThan(10);
    expect(two.lines.at(-1)).toBe(one.lines.at(-1));
    expect(reportOf(two.reportDir)).toEqual(reportOf(one.reportDir));
  }

  it('judges a HAR beside a gateway log, whole and in shards, as one thread does', async () => {
    // The key-echo capture again as gateway log lines (docs/traffic.md), with a line that is not JSON.
    type Entry = {
      startedDateTime: string;
      request: { method: string; url: string; headers: Array<{ name: string; value: string }> };
      response: {
        status: number;
        headers: Array<{ name: string; value: string }>;
        content: { text?: string };
      };
    };
    const fields = (list: Array<{ name: string; value: string }>) =>
      Object.fromEntries(list.map((h) => [h.name, h.value]));
    const doc = JSON.parse(readFileSync(join(dir, 'key-echo.har'), 'utf8')) as { log: { entries: Entry[] } };
    // Logged an hour later than the capture (the same traffic again: its job reads follow the capture's).
    const lines = doc.log.entries.map((e) =>
      JSON.stringify({
        time: new Date(Date.parse(e.startedDateTime) + 3_600_000).toISOString(),
        method: e.request.method,
        url: e.request.url,
        status: e.response.status,
        request_headers: fields(e.request.headers),
        response_headers: fields(e.response.headers),
        response_body: e.response.content.text ?? '',
      }),
    );
    const log = join(dir, 'gateway.ndjson');
    writeFileSync(log, `${[...lines.slice(0, 2), '{not json', ...lines.slice(2)].join('\n')}\n`);
    const runs: Array<Partial<TrafficOptions>> = [{}, { shard: '1/2' }, { shard: '2/2' }];
    let judged = 0;
    for (const [k, opts] of runs.entries()) {
      const seen = [];
      for (const threads of [0, 2]) {
        const reportDir = join(dir, `log-${k}-${threads}`);
        const r = await checkTraffic({ files: [file, log], reportDir, threads, ...opts }, () => {});
        seen.push({ r, reportDir });
      }
      const [one, two] = seen as [(typeof seen)[0], (typeof seen)[0]];
      const violations = (s: typeof one) =>
        s.r.summary!.tests.flatMap((t) => t.violations.map((v) => `${v.id} ${v.exchangeId} ${v.message}`));
      expect(two.r.exitCode).toBe(one.r.exitCode);
      expect(violations(two)).toEqual(violations(one));
      expect(reportOf(two.reportDir)).toEqual(reportOf(one.reportDir));
      // The log's lines were judged (a finding cites one), and its bad line said, by the shard that says problems.
      const capture = one.r.summary!.capture!;
      if (opts.shard !== '2/2') expect(capture.problems.join('\n')).toMatch(/gateway\.ndjson: line 3/);
      if (!opts.shard) expect(violations(one).join('\n')).toMatch(/ har-1-\d+ /);
      judged += capture.exchangesJudged;
      if (k === 0) judged = -judged;
    }
    // The shards split the capture judged whole: together they judged every exchange once.
    expect(judged).toBe(0);
  }, 120_000);
});
