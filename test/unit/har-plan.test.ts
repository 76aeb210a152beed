import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cutText,
  fileStamp,
  HarPlan,
  harPlaces,
  harPlanned,
  harTexts,
} from '../../src/traffic/har-stream.ts';
import { eachEntryText, entryTexts, runEnd } from '../../src/traffic/threads.ts';

const dir = mkdtempSync(join(tmpdir(), 'har-plan-'));

/** A HAR with an entry larger than a read chunk, multi-byte text, a scalar entry and one that is no JSON. */
function writeHar(file: string, tag: string): void {
  const big = {
    request: { method: 'POST', url: '/v1/x' },
    response: { content: { text: `"{}[]\\${'é'.repeat(700_000)}` } },
  };
  const entries = [
    JSON.stringify({ request: { method: 'GET', url: `/v1/${tag}` } }),
    JSON.stringify(big),
    '42',
    '{"request": {"method": "GET",}}',
    JSON.stringify({ request: { method: 'GET', url: '/v1/ünïcödé' } }),
  ];
  writeFileSync(file, `{"log": {"version": "1.2", "entries": [\n${entries.join(',\n')}\n]}}`);
}

async function all<T>(items: AsyncIterable<T> | Iterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const i of items) out.push(i);
  return out;
}

/** What a reading gives, without the places the first reading notes. */
const plain = (items: Array<{ kind: string }>) =>
  items.map((i) => (i.kind === 'text' ? { ...i, from: undefined, to: undefined } : i));

describe('a HAR read again at the places its first reading found (HarPlan)', () => {
  it('gives the items of the first reading, in order, entries cut across read chunks included', async () => {
    const file = join(dir, 'a.har');
    writeHar(file, 'a');
    const plan = new HarPlan(file, fileStamp(file)!);
    const first = await all(harTexts(file));
    for (const item of first) plan.add(item);
    expect(first.filter((i) => i.kind === 'text')).toHaveLength(4);
    expect(first.filter((i) => i.kind === 'problem')).toHaveLength(1);
    expect(plain(await all(harPlanned(plan)))).toEqual(plain(first));
    // The places alone, the texts read at them by a judging thread: the same texts.
    const places = await all(harPlaces(plan));
    const texts = entryTexts(
      places.flatMap((p) =>
        p.kind === 'text' ? [{ file, n: 0, index: p.index, from: p.from, to: p.to }] : [],
      ),
    );
    expect(texts).toEqual(first.flatMap((i) => (i.kind === 'text' ? [i.text] : [])));
    // Read in runs of a bounded size (large bodies never held a batch at a time): the same texts, and no
    // run spans more than the bound but a single entry larger than it.
    const entries = places.flatMap((p) =>
      p.kind === 'text' ? [{ file, n: 0, index: p.index, from: p.from!, to: p.to! }] : [],
    );
    const smallest = Math.min(...entries.map((e) => e.to - e.from));
    for (const bound of [1, smallest, smallest + 1, 2 * smallest, Number.MAX_SAFE_INTEGER]) {
      const got: string[] = [];
      eachEntryText(entries, (t) => got.push(t), bound);
      expect(got, String(bound)).toEqual(texts);
      for (let i = 0; i < entries.length; ) {
        const j = runEnd(entries, i, bound);
        expect(j).toBeGreaterThan(i);
        if (j - i > 1)
          expect(entries[j - 1]!.to - entries[i]!.from, String(bound)).toBeLessThanOrEqual(bound);
        i = j;
      }
    }
    expect(runEnd(entries, 0, 1)).toBe(1);
    expect(runEnd(entries, 0, Number.MAX_SAFE_INTEGER)).toBe(entries.length);
  });

  it('reads a file changed since the first reading anew', async () => {
    const file = join(dir, 'b.har');
    writeHar(file, 'b');
    const plan = new HarPlan(file, fileStamp(file)!);
    for (const item of await all(harTexts(file))) plan.add(item);
    writeHar(file, 'changed-and-longer');
    expect(plain(await all(harPlanned(plan)))).toEqual(plain(await all(harTexts(file))));
    expect(JSON.stringify(await all(harPlanned(plan)))).toContain('changed-and-longer');
  });
});

/** The values of the `text` members of a JSON value, in document order. */
function textsOf(value: unknown, out: unknown[] = []): unknown[] {
  if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === 'text') out.push(v);
      else textsOf(v, out);
    }
  return out;
}

/** A JSON value with each `text` member emptied. */
const emptied = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (k, v) => (k === 'text' ? '' : v)));

describe('a first reading that needs no body (harTexts with `cut`)', () => {
  const CUT = 64;
  /** Entries whose bodies are short, long, escaped, multi-byte, across the 1 MiB read chunks, or longer than one. */
  function writeBodies(file: string): unknown[] {
    const entries: unknown[] = [];
    for (let n = 0; n < 900; n++) {
      // One body longer than a read chunk: it opens in one chunk and closes two chunks on.
      const size = n === 450 ? 1_600_000 : n * 7;
      const ch = n % 3 ? 'x' : 'é';
      entries.push({
        request: {
          method: 'POST',
          url: `/v1/${n}`,
          headers: [{ name: 'authorization', value: `Bearer k-${n}` }],
          postData: { mimeType: 'application/json', text: `{"pad":"${'p'.repeat(n % 300)}"}` },
        },
        response: {
          status: 200,
          headers: [{ name: 'set-cookie', value: `s=${n}` }],
          content: { mimeType: 'application/json', text: `{"q":"\\"${ch.repeat(size)}\\\\"}` },
        },
      });
    }
    entries.push({
      request: { method: 'GET', url: '/v1/esc' },
      response: { content: { text: 'y'.repeat(500) } },
    });
    const texts = entries.map((e) => JSON.stringify(e));
    // A key written with an escape is not `text` to the reader: its value is kept.
    texts[texts.length - 1] = texts[texts.length - 1]!.replace('"text"', '"te\\u0078t"');
    writeFileSync(file, `{"log": {"version": "1.2", "entries": [\n${texts.join(',\n')}\n]}}`);
    return entries;
  }

  it('leaves out only long `text` values, each as an empty string, and keeps everything else', async () => {
    const file = join(dir, 'bodies.har');
    const entries = writeBodies(file);
    const whole = await all(harTexts(file));
    const light = await all(harTexts(file, undefined, CUT));
    expect(light).toHaveLength(entries.length);
    const counts = { cut: 0, longKept: 0 };
    for (const [i, item] of light.entries()) {
      const full = whole[i]!;
      if (item.kind !== 'text' || full.kind !== 'text') throw new Error(`entry ${i} not read`);
      // The same places: a second reading cuts the whole entry out where the first found it.
      expect([item.from, item.to, item.index]).toEqual([full.from, full.to, full.index]);
      const value = JSON.parse(item.text) as unknown;
      // Nothing but `text` values differs; each is whole, or empty where it was long (said with `cut`).
      expect(emptied(value)).toEqual(emptied(entries[i]));
      const was = textsOf(entries[i]) as string[];
      const now = textsOf(value);
      let left = 0;
      for (const [k, t] of was.entries()) {
        if (now[k] === t) {
          if (Buffer.byteLength(JSON.stringify(t)) > CUT) counts.longKept++;
          continue;
        }
        expect(now[k]).toBe('');
        expect(Buffer.byteLength(JSON.stringify(t))).toBeGreaterThanOrEqual(CUT);
        left++;
      }
      expect(item.cut === true).toBe(left > 0);
      if (left) counts.cut++;
    }
    // Most entries lose their body; long ones are kept across a chunk's end and under the escaped key.
    expect(counts.cut).toBeGreaterThan(entries.length * 0.8);
    expect(counts.longKept).toBeGreaterThanOrEqual(2);
    expect(JSON.parse((light.at(-1) as { text: string }).text)).toEqual(entries.at(-1));
  });

  it('with places only, says where it left values out, and cutText makes the same texts of the bytes', async () => {
    const file = join(dir, 'bodies-places.har');
    writeBodies(file);
    const light = await all(harTexts(file, undefined, CUT));
    const places = await all(harTexts(file, undefined, CUT, false));
    const bytes = readFileSync(file);
    expect(places).toHaveLength(light.length);
    let cut = 0;
    for (const [i, item] of places.entries()) {
      const text = light[i]!;
      if (item.kind !== 'text' || text.kind !== 'text') throw new Error(`entry ${i} not read`);
      expect(item.text).toBe('');
      expect([item.from, item.to, item.cut]).toEqual([text.from, text.to, text.cut]);
      expect(item.cuts !== undefined).toBe(item.cut === true);
      if (item.cuts) cut++;
      expect(cutText(bytes, 0, item.from!, item.to!, item.cuts ?? [])).toBe(text.text);
    }
    expect(cut).toBeGreaterThan(places.length * 0.8);
  });
});
