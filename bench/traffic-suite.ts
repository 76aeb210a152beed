/**
 * bench/traffic-suite.ts: what check-traffic makes of a capture of a whole suite run.
 *
 *   node --import tsx bench/traffic-suite.ts [--profile quick|standard] [--keep]
 *
 * Starts the reference, puts a recording reverse proxy in front of it (every exchange written as a HAR
 * 1.2 entry with its timings: `wait` to the response head, `receive` to the end of the body), runs the
 * real CLI against the proxy's URL (a targets file of tools/ref-target.ts), then judges the
 * capture in this process. Reports the suite run's verdict, the capture's size, the exchanges judged
 * per second, the requirements the capture could judge and which it could not, and whether the capture
 * of a conformant target passes (any failure there is a false alarm of check-traffic: the suite sends
 * many invalid requests on purpose, which the reference refuses).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { startReference } from '../reference/start.ts';
import { harDocument } from '../src/traffic/har-write.ts';
import { checkTraffic } from '../src/traffic/judge.ts';
import { writeRefTargets } from '../tools/ref-target.ts';
import { ROOT, round, spawnNode, warnIfBusy, writeResult } from './lib.ts';

const { values } = parseArgs({
  options: { profile: { type: 'string' }, keep: { type: 'boolean' }, help: { type: 'boolean' } },
});
if (values.help) {
  console.log('node --import tsx bench/traffic-suite.ts [--profile quick|standard] [--keep]');
  process.exit(0);
}
const profile = values.profile ?? 'quick';
warnIfBusy();

const dir = mkdtempSync(join(tmpdir(), 'bench-traffic-suite-'));
const ref = await startReference({ port: 0 });
const entries: unknown[] = [];
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length', 'upgrade']);
const textual = (ct: string) => /json|^text\//i.test(ct);

const readAll = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

const proxy = createServer(async (req, res) => {
  const started = new Date();
  const t0 = performance.now();
  try {
    const body = await readAll(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && !HOP.has(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const up = await request(ref.url + (req.url ?? '/'), {
      method: (req.method ?? 'GET') as 'GET',
      headers,
      ...(body.length > 0 ? { body } : {}),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const tHead = performance.now();
    const chunks: Buffer[] = [];
    for await (const c of up.body) chunks.push(c as Buffer);
    const out = Buffer.concat(chunks);
    const tEnd = performance.now();
    const respHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(up.headers))
      if (v !== undefined && !HOP.has(k)) respHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
    res.writeHead(up.statusCode, { ...respHeaders, 'content-length': String(out.length) });
    res.end(out);
    const ct = respHeaders['content-type'] ?? '';
    const reqCt = headers['content-type'] ?? '';
    entries.push({
      startedDateTime: started.toISOString(),
      time: round(tEnd - t0, 3),
      request: {
        method: req.method,
        url: ref.url + (req.url ?? '/'),
        httpVersion: 'HTTP/1.1',
        headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
        queryString: [],
        cookies: [],
        headersSize: -1,
        bodySize: body.length,
        ...(body.length > 0
          ? {
              postData: textual(reqCt)
                ? { mimeType: reqCt, text: body.toString('utf8') }
                : { mimeType: reqCt, text: body.toString('base64'), encoding: 'base64' },
            }
          : {}),
      },
      response: {
        status: up.statusCode,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        headers: Object.entries(respHeaders).map(([name, value]) => ({ name, value })),
        cookies: [],
        content: {
          size: out.length,
          mimeType: ct,
          ...(out.length === 0
            ? {}
            : textual(ct)
              ? { text: out.toString('utf8') }
              : { text: out.toString('base64'), encoding: 'base64' }),
        },
        redirectURL: '',
        headersSize: -1,
        bodySize: out.length,
      },
      cache: {},
      timings: { send: 0, wait: round(tHead - t0, 3), receive: round(tEnd - tHead, 3) },
    });
  } catch (err) {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`proxy: ${(err as Error).message}`);
  }
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

let figures: Record<string, unknown> = {};
try {
  const env = writeRefTargets({ ...ref, url: proxyUrl }, join(dir, 'targets.yaml'), { streamMs: 10_000 });
  const report = join(dir, 'live-report');
  const run = await spawnNode(
    join(ROOT, 'bin/gateway-conformance.mjs'),
    [
      '--targets',
      join(dir, 'targets.yaml'),
      '--target',
      'ref',
      '--profile',
      profile,
      '--quiet',
      '--report-dir',
      report,
    ],
    { env, timeoutMs: 1_800_000 },
  );
  console.log(
    `suite run through the recording proxy: exit ${run.code}; ${run.stdout.trim().split('\n').at(-1)}`,
  );
  const file = join(dir, 'suite.har');
  writeFileSync(file, JSON.stringify(harDocument(entries)));
  const started = performance.now();
  const lines: string[] = [];
  const r = await checkTraffic({ files: [file], reportDir: join(dir, 'traffic-report'), quiet: true }, (l) =>
    lines.push(l),
  );
  const wallMs = performance.now() - started;
  const s = r.summary!;
  figures = {
    profile,
    suiteExit: run.code,
    exchanges: s.capture?.exchangesJudged,
    wallS: round(wallMs / 1000, 2),
    exchangesPerSecond: Math.round((s.capture?.exchangesJudged ?? 0) / (wallMs / 1000)),
    verdict: s.verdict,
    requirementsJudged: s.capture?.requirementsJudged,
    notJudged: s.capture?.notJudged,
    failed: s.failedRequirements,
    advisory: s.advisoryRequirements,
    problems: s.capture?.problems.length,
  };
  console.log(lines.at(-1));
  console.log(JSON.stringify(figures));
  for (const g of s.groups ?? []) console.log(`  group: ${JSON.stringify(g).slice(0, 400)}`);
  console.log(`result: ${writeResult('traffic-suite', figures)}`);
} finally {
  proxy.close();
  await ref.close();
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept: ${dir}`);
}
