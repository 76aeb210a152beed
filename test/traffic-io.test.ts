/**
 * check-traffic's inputs beyond HAR (src/traffic/formats.ts, ndjson-stream.ts): the suite's own
 * exchanges.ndjson and the gateway line format, told apart by content or forced with --format, judged by
 * the one code path a HAR entry takes; what a format cannot hold (bodies) said as not judged; bad lines
 * named by file and line. Then --shard (shard.ts) and merge: the merged verdict of the shards equals the
 * capture judged whole.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mergeReports } from '../src/report/merge.ts';
import { EXIT, type Summary } from '../src/report/summary.ts';
import { detectFormat } from '../src/traffic/formats.ts';
import { harDocument } from '../src/traffic/har-write.ts';
import { checkTraffic, type TrafficOptions } from '../src/traffic/judge.ts';
import { recordCapture } from '../tools/traffic-capture.ts';
import { runCli } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'traffic-io-'));

type HarEntry = {
  startedDateTime: string;
  time?: number;
  request: {
    method: string;
    url: string;
    headers: Array<{ name: string; value: string }>;
    postData?: { text: string; encoding?: string };
  };
  response: {
    status: number;
    headers: Array<{ name: string; value: string }>;
    content: { text?: string; encoding?: string };
  };
};

const harEntries = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;

/** A HAR entry as a line of the gateway format (docs/traffic.md), with or without its bodies. */
function gatewayLine(e: HarEntry, bodies: boolean, extra: Record<string, unknown> = {}): string {
  const headers = (list: HarEntry['request']['headers']) =>
    Object.fromEntries(list.map((h) => [h.name, h.value]));
  return JSON.stringify({
    time: e.startedDateTime,
    method: e.request.method,
    url: e.request.url,
    status: e.response.status,
    request_headers: headers(e.request.headers),
    response_headers: headers(e.response.headers),
    ...(bodies && e.request.postData
      ? { request_body: e.request.postData.text, request_body_encoding: e.request.postData.encoding }
      : {}),
    ...(bodies
      ? { response_body: e.response.content.text ?? '', response_body_encoding: e.response.content.encoding }
      : {}),
    duration_ms: e.time,
    ...extra,
  });
}

/** Judge quietly: the result and every line printed. */
async function judge(opts: Omit<TrafficOptions, 'reportDir'>, name: string) {
  const lines: string[] = [];
  const reportDir = join(dir, `report-${name}`);
  const r = await checkTraffic({ ...opts, reportDir }, (s) => lines.push(s));
  return { ...r, lines, reportDir, text: lines.join('\n') };
}

/** Each requirement's outcome in a summary (judged ones only). */
const outcomes = (s: Summary) =>
  Object.fromEntries(s.tests.filter((t) => t.ids.length === 1).map((t) => [t.ids[0]!, t.outcome] as const));

describe('the formats of a capture', () => {
  const har = join(dir, 'session.har');
  const suiteLog = join(dir, 'exchanges.ndjson');
  let entries: HarEntry[];
  beforeAll(async () => {
    await recordCapture(har, 'chat-temperature-lax', undefined, suiteLog);
    entries = harEntries(har);
  });

  it('tells each format from its content', () => {
    const gw = join(dir, 'detect.log');
    writeFileSync(gw, `${gatewayLine(entries[1]!, true)}\n`);
    expect(detectFormat(har)).toBe('har');
    expect(detectFormat(suiteLog)).toBe('ndjson');
    expect(detectFormat(gw)).toBe('gateway');
    // A HAR written over several lines whose first key is not `log`, with an entry on one line of its own.
    const pretty = join(dir, 'detect-pretty.har');
    writeFileSync(pretty, '{\n "_note": 1,\n "log": {"entries": [\n{"request": {}}\n]}}\n');
    expect(detectFormat(pretty)).toBe('har');
    // A log whose first line is broken: the next line decides.
    const broken = join(dir, 'detect-broken.log');
    writeFileSync(broken, `{"method": \n${readFileSync(suiteLog, 'utf8')}`);
    expect(detectFormat(broken)).toBe('ndjson');
  });

  it('judges a gateway log with bodies as the HAR it was made from', async () => {
    const file = join(dir, 'gateway-bodies.ndjson');
    writeFileSync(file, entries.map((e) => `${gatewayLine(e, true)}\n`).join(''));
    const a = await judge({ files: [har] }, 'fmt-har');
    const b = await judge({ files: [file] }, 'fmt-gateway');
    expect(b.exitCode, b.text).toBe(EXIT.failed);
    expect(b.summary!.failedRequirements).toEqual(a.summary!.failedRequirements);
    // The gateway line has no timings: the pacing of a stream (RSP-090) is the one thing it cannot show.
    const { 'RSP-090': timed, ...rest } = outcomes(a.summary!);
    expect(timed).toBe('passed');
    expect(outcomes(b.summary!)).toEqual({ ...rest, 'RSP-090': 'not_run' });
    expect(b.summary!.capture!.exchangesJudged).toBe(entries.length);
    expect(b.summary!.capture!.problems).toEqual([]);
  });

  it('judges a gateway log without bodies on what it holds and says the body rules are not judged', async () => {
    const file = join(dir, 'gateway-bare.ndjson');
    writeFileSync(file, entries.map((e) => `${gatewayLine(e, false)}\n`).join(''));
    const r = await judge({ files: [file] }, 'fmt-bare');
    expect(r.exitCode, r.text).toBe(EXIT.passed);
    const o = outcomes(r.summary!);
    // Status and headers: judged. A request's body is a body too: CHAT-005 is not judged without it.
    expect(o['AUTH-001']).toBe('passed');
    expect(o['ERR-002']).toBe('passed');
    for (const id of ['ERR-001', 'RESP-003', 'SEC-001', 'PTS-001', 'CHAT-005', 'RSP-006', 'IDEM-001'])
      expect(o[id], id).toBe('not_run');
    const resp = r.summary!.tests.find((t) => t.ids[0] === 'RESP-003')!;
    expect(resp.reason).toMatch(
      new RegExp(
        `the response bodies of ${entries.length} exchange\\(s\\) are not in it \\(the gateway log holds no response body\\)`,
      ),
    );
  });

  it("judges the suite's own exchanges.ndjson, bodies longer than it keeps not judged", async () => {
    const r = await judge({ files: [suiteLog] }, 'fmt-suite');
    expect(r.exitCode, r.text).toBe(EXIT.failed);
    // The catalogs' bodies are longer than the log keeps: no catalog is learnt, none taken as empty.
    expect(r.summary!.failedRequirements).toEqual({ 'CHAT-005': 1 });
    expect(r.summary!.requirements['MJOB-044']?.outcome).toBe('not_run');
    expect(r.summary!.capture!.exchangesJudged).toBe(entries.length);
    const lines = readFileSync(suiteLog, 'utf8').trim().split('\n');
    const long = lines.filter((l) => (JSON.parse(l).responseBody?.bytes ?? 0) > 4096).length;
    expect(long).toBeGreaterThan(0);
    const notJudged = r.summary!.tests.find((t) => t.outcome === 'not_run' && t.ids[0] === 'RSP-006');
    expect(notJudged?.reason ?? '').not.toMatch(/bodies/);
  });

  it('--format forces a reader: a HAR read as a gateway log is no exchange', async () => {
    const run = await runCli([
      'check-traffic',
      '--format',
      'gateway',
      '--report-dir',
      join(dir, 'forced'),
      har,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(EXIT.usage);
    expect(run.stdout + run.stderr).toMatch(/session\.har: line 2 is not valid JSON/);
    const bad = await runCli(['check-traffic', '--format', 'csv', har]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toMatch(/--format: 'csv' is not one of har, ndjson, gateway/);
  });
});

describe('bad lines of an NDJSON log', () => {
  let lines: string[];
  beforeAll(async () => {
    const file = join(dir, 'bad-source.har');
    await recordCapture(file);
    lines = harEntries(file).map((e) => gatewayLine(e, true));
  });

  it('names a line that is not JSON and a line without a response by file and line, and judges the rest', async () => {
    const file = join(dir, 'bad-lines.ndjson');
    const noResponse = JSON.stringify({ ...JSON.parse(lines[2]!), status: undefined });
    writeFileSync(
      file,
      [lines[0], lines[1], noResponse, '{"method": nope', '', ...lines.slice(3)].join('\n'),
    );
    const r = await judge({ files: [file] }, 'bad-lines');
    const p = r.summary!.capture!.problems;
    expect(p).toHaveLength(2);
    expect(p[0]).toMatch(
      /bad-lines\.ndjson line 3 \(GET \/v1\/media\/models\): no response \(status null\); not judged/,
    );
    expect(p[1]).toMatch(/bad-lines\.ndjson: line 4 is not valid JSON/);
    expect(r.summary!.capture!.exchangesJudged).toBe(lines.length - 1);
    // A line that is not JSON was not read: INCOMPLETE, as an entry of a HAR that is not JSON.
    expect(r.exitCode).toBe(EXIT.incomplete);
  });

  it('a truncated last line makes the run INCOMPLETE, naming the line', async () => {
    const file = join(dir, 'cut.ndjson');
    const last = lines.at(-1)!;
    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n${last.slice(0, last.length / 2)}`);
    const r = await judge({ files: [file] }, 'cut');
    expect(r.exitCode, r.text).toBe(EXIT.incomplete);
    expect(r.lines.at(-1)).toMatch(
      new RegExp(
        `^VERDICT: INCOMPLETE \\(1 part of the capture could not be read, the first: .*cut\\.ndjson: truncated in line ${lines.length}`,
      ),
    );
    expect(r.summary!.capture!.exchangesJudged).toBe(lines.length - 1);
  });

  it('a line whose time no date holds is judged without a time, and the lines after it are read', async () => {
    // `"time": 1e20` (epoch milliseconds past any date) threw in the reader: the whole log was unread.
    const file = join(dir, 'far-time.ndjson');
    const far = JSON.stringify({ ...JSON.parse(lines[1]!), time: 1e20 });
    writeFileSync(file, [lines[0], far, ...lines.slice(2)].join('\n'));
    const r = await judge({ files: [file] }, 'far-time');
    expect(r.summary!.capture!.problems).toEqual([]);
    expect(r.summary!.capture!.exchangesJudged).toBe(lines.length);
    expect(r.exitCode, r.text).toBe(EXIT.passed);
  });

  it('a last line without its end of line that is whole is read', async () => {
    const file = join(dir, 'no-eol.ndjson');
    writeFileSync(file, lines.join('\n'));
    const r = await judge({ files: [file] }, 'no-eol');
    expect(r.exitCode, r.text).toBe(EXIT.passed);
    expect(r.summary!.capture!.exchangesJudged).toBe(lines.length);
  });
});

describe('check-traffic --shard and merge', () => {
  const file = join(dir, 'several-keys.har');
  beforeAll(async () => {
    // Sessions of several clients, each with its own keys (a primary, and another tenant's that reads
    // the primary's asset: a sequence across two keys), some against faults: one capture.
    const all: HarEntry[] = [];
    const sessions = [
      undefined,
      'chat-temperature-lax',
      'failed-flips',
      'idem-double-charge',
      'asset-other-tenant',
      undefined,
    ];
    for (const [i, fault] of sessions.entries()) {
      const part = join(dir, `session-${i}.har`);
      await recordCapture(part, fault);
      // Named keys, the same on every run: which shard a group lands in does not change between runs.
      const names = new Map<string, string>();
      for (const e of harEntries(part)) {
        for (const h of e.request.headers)
          if (h.name.toLowerCase() === 'authorization') {
            if (!names.has(h.value)) names.set(h.value, `Bearer session-${i}-key-${names.size}`);
            h.value = names.get(h.value)!;
          }
        all.push(e);
      }
    }
    writeFileSync(file, JSON.stringify(harDocument(all)));
  });

  it('the shards merged give the verdict, counts per rule and findings of the capture judged whole', async () => {
    const whole = await judge({ files: [file] }, 'unsharded');
    expect(whole.exitCode, whole.text).toBe(EXIT.failed);
    const dirs: string[] = [];
    const judgedPerShard: number[] = [];
    for (const i of [1, 2, 3]) {
      const out = join(dir, `shard-${i}`);
      const run = await runCli(['check-traffic', '--quiet', '--shard', `${i}/3`, '--report-dir', out, file]);
      expect(run.stdout, run.stderr).toMatch(
        new RegExp(`^VERDICT: (PARTIAL|FAILED) .*shard ${i}/3\\)$`, 'm'),
      );
      const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
      judgedPerShard.push(s.capture!.exchangesJudged);
      dirs.push(out);
    }
    // A real split: more than one shard judged exchanges, and every exchange was judged by exactly one.
    expect(judgedPerShard.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(judgedPerShard.reduce((a, b) => a + b, 0)).toBe(whole.summary!.capture!.exchangesJudged);
    const out = join(dir, 'merged');
    const run = await runCli(['merge', '--report-dir', out, ...dirs]);
    expect(run.code, run.stdout + run.stderr).toBe(EXIT.failed);
    // In a capture's words, not a run's plan.
    expect(run.stdout).toMatch(
      /^VERDICT: FAILED \(captured traffic: \d+ of \d+ entries judged, \d+ requirements judged, \d+ not judged by this capture, shards 1\/3, 2\/3, 3\/3\)$/m,
    );
    const merged = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
    const w = whole.summary!;
    expect(merged.verdict).toBe(w.verdict);
    expect(merged.counts).toEqual(w.counts);
    const perRule = (s: Summary) =>
      Object.fromEntries(s.tests.map((t) => [t.ids[0] ?? t.title, `${t.outcome} ${t.exchangeCount}`]));
    expect(perRule(merged)).toEqual(perRule(w));
    const findings = (s: Summary) =>
      s.tests
        .flatMap((t) => t.violations.map((v) => `${v.id} ${v.severity} ×${v.count ?? 1}: ${v.message}`))
        .sort();
    expect(findings(merged)).toEqual(findings(w));
    expect(findings(w).length).toBeGreaterThan(3);
    expect(merged.failedRequirements).toEqual(w.failedRequirements);
    // What the capture holds: the same span, credentials (a shard keeps each one's exchanges) and endpoints.
    expect(merged.capture?.holds).toEqual(w.capture?.holds);
    expect(merged.advisoryRequirements).toEqual(w.advisoryRequirements);
    // The sequence across two keys (an asset read by another tenant) was judged in a shard, as whole.
    expect(merged.requirements['MASSET-003']?.outcome).toBe(w.requirements['MASSET-003']?.outcome);
    expect(w.requirements['MASSET-003']?.outcome).not.toBe('not_run');
    expect(merged.capture!.exchangesJudged).toBe(w.capture!.exchangesJudged);
    expect(merged.capture!.notJudged).toEqual(w.capture!.notJudged);
  });

  it('parts no shard could read merge into the one record the capture judged whole has', async () => {
    const line = (k: number, body: string, encoding?: string) =>
      JSON.stringify({
        time: '2026-11-29T07:00:00Z',
        method: 'GET',
        url: '/v1/balance',
        status: 200,
        request_headers: { authorization: `Bearer key-${k}` },
        response_headers: { 'content-type': 'application/json' },
        response_body: body,
        ...(encoding ? { response_body_encoding: encoding } : {}),
      });
    const lines = [
      ...Array.from({ length: 8 }, (_, k) => line(k, '{"balance_points":"1.5"}')),
      // Bodies that do not decode, under several keys (so in several shards), and a line that is not JSON.
      ...[1, 2, 5, 6].map((k) => line(k, '%%%', 'base64')),
      '{"method": nope',
    ];
    const file = join(dir, 'unreadable.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const whole = await judge({ files: [file] }, 'unreadable-whole');
    expect(whole.exitCode, whole.text).toBe(EXIT.incomplete);
    const dirs: string[] = [];
    const unreadablePerShard: number[] = [];
    for (const i of [1, 2, 3]) {
      const r = await judge({ files: [file], shard: `${i}/3` }, `unreadable-${i}`);
      unreadablePerShard.push(r.summary!.tests.filter((t) => t.ids.length === 0).length);
      dirs.push(r.reportDir);
    }
    expect(unreadablePerShard.filter((n) => n > 0).length).toBeGreaterThan(1);
    const merged = mergeReports(dirs, join(dir, 'unreadable-merged'));
    expect(merged.verdict).toBe('incomplete');
    expect(merged.counts).toEqual(whole.summary!.counts);
    const record = (s: Summary) => s.tests.find((t) => t.ids.length === 0)!;
    expect(record(merged).title).toBe(record(whole.summary!).title);
    expect(record(merged).title).toMatch(/5 parts of the capture could not be read/);
    expect(merged.capture!.problems.sort()).toEqual([...whole.summary!.capture!.problems].sort());
  });

  it('a shard given nothing writes its report; a missing shard leaves the merged verdict short of PASSED', async () => {
    const base = join(dir, 'several-keys-ref.har');
    await recordCapture(base);
    const dirs = [];
    let empty = 0;
    // One client's session (its keys one group, the requests without a key shard 1's) in 4 shards: some get none.
    for (const i of [1, 2, 3, 4]) {
      const r = await judge({ files: [base], shard: `${i}/4` }, `ref-shard-${i}`);
      expect(r.summary!.verdict, r.text).toBe('partial');
      expect(r.exitCode).toBe(EXIT.passed);
      dirs.push(r.reportDir);
      if (r.summary!.capture!.exchangesJudged === 0) empty++;
    }
    expect(empty).toBeGreaterThanOrEqual(2);
    const all = mergeReports(dirs, join(dir, 'merged-ref'));
    expect(all.verdict).toBe('passed');
    const one = mergeReports([dirs[0]!], join(dir, 'merged-one'));
    expect(one.verdict).toBe('partial');
  });
});

describe('a gateway log that kept no request headers', () => {
  it('does not judge *_credits names it cannot tell from the legacy currency format (PTS-004)', async () => {
    const line = (headers: boolean) =>
      JSON.stringify({
        time: '2026-11-29T07:00:00Z',
        method: 'GET',
        url: '/v1/balance',
        status: 200,
        ...(headers ? { request_headers: { authorization: 'Bearer key-credits-1' } } : {}),
        response_headers: { 'content-type': 'application/json' },
        response_body: '{"total_credits":"10","held_credits":"0","available_credits":"10"}',
      });
    const outcomeOf = async (headers: boolean) => {
      const file = join(dir, `credits-${headers}.ndjson`);
      writeFileSync(file, `${line(headers)}\n`);
      const r = await judge({ files: [file] }, `credits-${headers}`);
      return { outcome: outcomes(r.summary!)['PTS-004'], text: r.text };
    };
    // Its headers kept, no Accept among them: an ordinary reply, whose *_credits fields break PTS-004.
    const kept = await outcomeOf(true);
    expect(kept.outcome, kept.text).toBe('failed');
    const unknown = await outcomeOf(false);
    expect(unknown.outcome, unknown.text).not.toBe('failed');
    expect(unknown.outcome, unknown.text).not.toBe('passed');
  });

  it('does not judge AUTH-001 or MASSET-002 on a line whose request headers it did not keep', async () => {
    const line = (url: string, headers?: Record<string, string>, body = '{}', type = 'application/json') =>
      JSON.stringify({
        time: '2026-11-29T07:00:00Z',
        method: 'GET',
        url,
        status: 200,
        ...(headers ? { request_headers: headers } : {}),
        response_headers: { 'content-type': type },
        response_body: body,
      });
    const balance = '{"total_points":"10","held_points":"1","available_points":"9"}';
    const failedOf = async (name: string, headers?: Record<string, string>) => {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(
        file,
        [
          // One line kept an Authorization header: the log records credentials.
          line('/v1/balance', { authorization: 'Bearer key-headers-1' }, balance),
          line('/v1/balance', headers, balance),
          line('/v1/media/assets/asset_1', headers, 'png', 'image/png'),
        ].join('\n'),
      );
      const r = await judge({ files: [file] }, name);
      return { failed: r.summary!.failedRequirements, text: r.text };
    };
    const unknown = await failedOf('headers-unknown');
    expect(unknown.failed, unknown.text).toEqual({});
    // Its headers kept, none of them a key: the same lines break both rules.
    const none = await failedOf('headers-none', { accept: 'application/json' });
    expect(none.failed, none.text).toMatchObject({ 'AUTH-001': 1, 'MASSET-002': 1 });
  });

  it('does not judge RSP-003 on a line that kept no Content-Type of the reply', async () => {
    const sse =
      'event: response.output_text.delta\ndata: {"delta":"hi"}\n\nevent: response.completed\ndata: {}\n\n';
    const line = (responseHeaders?: Record<string, string>) =>
      JSON.stringify({
        time: '2026-11-29T07:00:00Z',
        method: 'POST',
        url: '/v1/responses',
        status: 200,
        request_headers: { authorization: 'Bearer key-stream-1', 'content-type': 'application/json' },
        request_body: JSON.stringify({ model: 'm1', input: 'hi', stream: true }),
        ...(responseHeaders ? { response_headers: responseHeaders } : {}),
        response_body: sse,
      });
    const outcomeOf = async (name: string, responseHeaders?: Record<string, string>) => {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(file, `${line(responseHeaders)}\n`);
      const r = await judge({ files: [file] }, name);
      return { outcome: outcomes(r.summary!)['RSP-003'], text: r.text };
    };
    const unknown = await outcomeOf('stream-type-unknown');
    expect(unknown.outcome, unknown.text).toBe('not_run');
    // The reply's Content-Type kept, and no event stream: RSP-003 fails.
    const json = await outcomeOf('stream-type-json', { 'content-type': 'application/json' });
    expect(json.outcome, json.text).toBe('failed');
  });

  it('does not judge a JSON body the gateway may have cut (RESP-003, ERR-001), unless the line states its size', async () => {
    const key = 'key-cut-body-0123456789';
    const chat = JSON.stringify({
      id: 'chatcmpl-abcdef123',
      object: 'chat.completion',
      model: 'm1',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'x'.repeat(2000) }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    const refusal = JSON.stringify({
      error: { code: 'invalid_request', message: 'y'.repeat(2000), type: 'invalid' },
    });
    const line = (status: number, body: string, bytes?: number) =>
      JSON.stringify({
        time: '2026-11-29T07:00:00Z',
        method: 'POST',
        url: '/v1/chat/completions',
        status,
        request_headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        request_body: JSON.stringify({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] }),
        response_headers: { 'content-type': 'application/json' },
        response_body: body,
        ...(bytes !== undefined ? { response_body_bytes: bytes } : {}),
      });
    const judged = async (name: string, lines: string[]) => {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      const r = await judge({ files: [file] }, name);
      return { failed: r.summary!.failedRequirements, s: r.summary!, text: r.text };
    };
    // Cut at the gateway's cap (1024 bytes): no size stated, or a size larger than the part kept.
    const cut = await judged('body-cut', [
      line(200, chat.slice(0, 1024)),
      line(400, refusal.slice(0, 1024), refusal.length),
    ]);
    expect(cut.failed, cut.text).toEqual({});
    expect(cut.s.tests.find((t) => t.ids[0] === 'ERR-001')!.reason).toMatch(/may have cut/);
    // The line states the size of what it holds: the body is whole, and neither parses.
    const whole = await judged('body-whole', [
      line(200, chat.slice(0, 1024), 1024),
      line(400, refusal.slice(0, 1024), 1024),
    ]);
    expect(whole.failed, whole.text).toMatchObject({ 'RESP-003': 1, 'ERR-001': 1 });
    // A key in the part kept is still a leak.
    const leak = await judged('body-cut-leak', [line(200, `{"echo":"${key}", "rest":"`)]);
    expect(leak.failed, leak.text).toMatchObject({ 'SEC-001': 1 });
  });
});
