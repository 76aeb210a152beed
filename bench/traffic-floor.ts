/**
 * The floor of judging a HAR capture on this machine: what any design of check-traffic does before it
 * judges anything, and nothing else. The file is read and cut into entries by check-traffic's own scan
 * (har-stream.ts harTexts); each entry is JSON.parse'd, and each response body that looks like JSON is
 * JSON.parse'd. No credential is learnt, no check runs, no report is written. With `--threads N`, the
 * reading thread only finds where the entries stand and N worker threads read and parse them, as
 * check-traffic's judging threads do. bench/traffic-peer.ts --floor runs it beside check-traffic and the
 * peer: the wall time of a design that judged for free.
 *
 *   node --import tsx bench/traffic-floor.ts [--threads N] FILE.har
 *
 * Prints `floor: ENTRIES entries, BODIES bodies parsed`.
 */
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { harTexts } from '../src/traffic/har-stream.ts';
import { intFlag, usage } from './lib.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { threads: { type: 'string' } },
});
const file = positionals[0];
if (!file || positionals.length > 1) usage('node --import tsx bench/traffic-floor.ts [--threads N] FILE.har');
const threads = values.threads === undefined ? 0 : intFlag(values.threads, '--threads', 0, 0, 8);

/** What a worker does with a batch of places: read them in one go, parse each entry and its body. */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
parentPort.on('message', ({ file, spans }) => {
  let entries = 0, bodies = 0;
  if (spans.length) {
    const from = spans[0], to = spans[spans.length - 1];
    const bytes = Buffer.allocUnsafe(to - from);
    const fd = openSync(file, 'r');
    for (let got = 0; got < bytes.length; ) got += readSync(fd, bytes, got, bytes.length - got, from + got);
    closeSync(fd);
    for (let k = 0; k < spans.length; k += 2) {
      const e = JSON.parse(bytes.toString('utf8', spans[k] - from, spans[k + 1] - from));
      entries++;
      const t = e && e.response && e.response.content && e.response.content.text;
      if (typeof t === 'string' && /^\\s*[[{]/.test(t)) { JSON.parse(t); bodies++; }
    }
  }
  parentPort.postMessage({ entries, bodies });
});`;

let entries = 0;
let bodies = 0;
if (threads === 0) {
  for await (const it of harTexts(file)) {
    if (it.kind !== 'text') continue;
    const e = JSON.parse(it.text) as { response?: { content?: { text?: unknown } } };
    entries++;
    const t = e?.response?.content?.text;
    if (typeof t === 'string' && /^\s*[[{]/.test(t)) {
      JSON.parse(t);
      bodies++;
    }
  }
} else {
  type Count = { entries: number; bodies: number };
  // Each worker answers its batches in order: the first waiting answer is the next one's.
  const pool = Array.from({ length: threads }, () => {
    const waiting: Array<(c: Count) => void> = [];
    const worker = new Worker(WORKER, { eval: true });
    worker.on('message', (c: Count) => waiting.shift()?.(c));
    return { worker, waiting };
  });
  const pending: Array<Promise<Count>> = [];
  let spans: number[] = [];
  let turn = 0;
  const send = () => {
    const w = pool[turn++ % pool.length]!;
    pending.push(new Promise((r) => w.waiting.push(r)));
    w.worker.postMessage({ file, spans });
    spans = [];
  };
  // The places only, in batches of 256 entries, as check-traffic hands them over.
  for await (const it of harTexts(file, undefined, undefined, false)) {
    if (it.kind !== 'text') continue;
    spans.push(it.from!, it.to!);
    if (spans.length === 512) send();
  }
  if (spans.length) send();
  for (const r of await Promise.all(pending)) {
    entries += r.entries;
    bodies += r.bodies;
  }
  await Promise.all(pool.map((w) => w.worker.terminate()));
}
console.log(`floor: ${entries} entries, ${bodies} bodies parsed`);
