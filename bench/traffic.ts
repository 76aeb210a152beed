/**
 * bench/traffic.ts: how fast check-traffic judges a large capture, and in how much memory.
 *
 *   node --import tsx bench/traffic.ts [--copies 2000] [--keep]
 *
 * Records one session against the reference with the suite's own client (tools/traffic-capture.ts:
 * description, catalogs, chat and its replay, refused requests, a responses stream, media jobs polled to
 * their end, the asset), then writes a capture of that session's exchanges repeated `--copies` times
 * (the description and the media job exchanges only once: a repeated job would read as a job leaving
 * its terminal status),
 * entry by entry, and judges it in this process: both passes, every check, the report. Reports the
 * capture's size, the exchanges judged per second (wall time of checkTraffic), the peak RSS against the
 * capture's size (the reader streams: memory must not grow with the file), and the verdict.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkTraffic } from '../src/traffic/judge.ts';
import { recordCapture } from '../tools/traffic-capture.ts';
import { intFlag, round, warnIfBusy, writeResult } from './lib.ts';

const { values } = parseArgs({
  options: { copies: { type: 'string' }, keep: { type: 'boolean' }, help: { type: 'boolean' } },
});
if (values.help) {
  console.log('node --import tsx bench/traffic.ts [--copies 2000] [--keep]');
  process.exit(0);
}
const copies = intFlag(values.copies, '--copies', 2000, 1, 1_000_000);
warnIfBusy();

const dir = mkdtempSync(join(tmpdir(), 'bench-traffic-'));
const session = join(dir, 'session.har');
await recordCapture(session);
const entries = (JSON.parse(readFileSync(session, 'utf8')) as { log: { entries: unknown[] } }).log.entries;
const onceOnly = (e: unknown) =>
  /\/v1\/media\/(jobs|assets)|\/openapi\.json/.test((e as { request: { url: string } }).request.url);
const once = entries.map((e) => JSON.stringify(e));
const repeated = entries.filter((e) => !onceOnly(e)).map((e) => JSON.stringify(e));

const file = join(dir, 'large.har');
const out = createWriteStream(file);
const write = (s: string) =>
  out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
await write('{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[\n');
let n = 0;
for (let c = 0; c < copies; c++)
  for (const e of c === 0 ? once : repeated) await write(`${n++ === 0 ? '' : ',\n'}${e}`);
await write('\n]}}\n');
await new Promise<void>((r) => out.end(r));
const bytes = statSync(file).size;

const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const result = await checkTraffic({ files: [file], reportDir: join(dir, 'report'), quiet: true }, () => {});
const wallMs = performance.now() - started;
const maxRssMiB = round(process.resourceUsage().maxRSS / 1024, 0);
const judged = result.summary?.capture?.exchangesJudged ?? 0;
const figures = {
  copies,
  entries: n,
  captureMiB: round(bytes / 2 ** 20, 1),
  exchangesJudged: judged,
  wallS: round(wallMs / 1000, 2),
  exchangesPerSecond: Math.round(judged / (wallMs / 1000)),
  mibPerSecond: round(bytes / 2 ** 20 / (wallMs / 1000), 1),
  rssBeforeMiB: round(rssBefore / 2 ** 20, 0),
  maxRssMiB,
  verdict: result.summary?.verdict,
  requirementsJudged: result.summary?.capture?.requirementsJudged,
};
console.log(
  `check-traffic: ${figures.exchangesJudged} exchanges (${figures.captureMiB} MiB) judged in ${figures.wallS} s: ${figures.exchangesPerSecond} exchanges/s, ${figures.mibPerSecond} MiB/s; peak RSS ${maxRssMiB} MiB (before ${figures.rssBeforeMiB} MiB); verdict ${figures.verdict}, ${figures.requirementsJudged} requirements judged`,
);
console.log(`result: ${writeResult('traffic', figures)}`);
if (!values.keep) rmSync(dir, { recursive: true, force: true });
else console.log(`capture kept: ${file}`);
