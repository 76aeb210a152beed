import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileStamp, HarPlan, harPlaces, harPlanned, harTexts } from '../../src/traffic/har-stream.ts';
import { entryTexts } from '../../src/traffic/threads.ts';

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
