/**
 * A judging thread that fails rejects every batch it holds at once (threads.ts JudgingThreads.fail). The
 * batches behind the one being applied are awaited only in their turn: their rejection must not be an
 * unhandled one (Node ends the process on it, before the run says why); the run rejects with the
 * thread's failure when it reaches them.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import { type EntryJudgement, judgeText } from '../../src/traffic/entry.ts';
import { ExchangeJudge, type Judged, ThreadedJudging, ThreadedLearning } from '../../src/traffic/judging.ts';
import type { Learnt } from '../../src/traffic/learn.ts';
import type { SequenceExchange } from '../../src/traffic/rules.ts';
import { TrafficState } from '../../src/traffic/rules.ts';
import { type EntryText, JudgementWriter, type JudgingThreads } from '../../src/traffic/threads.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unread: EntryJudgement<SequenceExchange> = { kind: 'unreadable', message: 'x' };

/** A pool of one thread: its first batch answered late, every later one failed at once. */
function failingPool(): JudgingThreads {
  let asked = 0;
  const answer = async <T>(first: T): Promise<T> => {
    if (asked++ === 0) {
      await sleep(50);
      return first;
    }
    throw new Error('a judging thread ended (exit code 1)');
  };
  return {
    size: 1,
    judge: (entries: unknown[]) => {
      const out = new JudgementWriter();
      for (const _ of entries) out.write(unread);
      return answer(out.bytes());
    },
    learn: () =>
      answer<Learnt>({
        registrations: [],
        keys: [],
        hosts: [],
        apiHosts: [],
        publicHosts: [],
        authorized: false,
        descriptions: [],
        entries: 0,
      }),
  } as unknown as JudgingThreads;
}

describe('a judging thread that fails', () => {
  it('fails the judging when its batch comes, with no unhandled rejection before', async () => {
    const redactor = new Redactor({});
    const ctx = { secrets: [], responses: { judgeResponse: () => ({ findings: [], judged: [] }) } };
    const judge = new ExchangeJudge(redactor, false, ctx, new TrafficState(false));
    const batches = new ThreadedJudging(failingPool(), judge);
    for (let i = 0; i < 600; i++) await batches.add({ kind: 'text', index: i, text: '{}' }, 'a.har', 0);
    await expect(batches.finish()).rejects.toThrow(/a judging thread ended/);
  });

  it('fails the learning when its batch comes, with no unhandled rejection before', async () => {
    const learning = new ThreadedLearning(failingPool(), () => {});
    for (let i = 0; i < 600; i++) await learning.entry({ file: 'a.har', n: 0, index: i, from: 0, to: 1 });
    await expect(learning.settle()).rejects.toThrow(/a judging thread ended/);
  });
});

/**
 * Who judges a batch depends on timing (ThreadedJudging: a thread while it has room, else the reading
 * thread, ahead of its turn while a thread's batch before it is not answered): what is judged must not.
 * A pool that judges as a thread does, in this thread, answering each batch after `delayMs`.
 */
function judgingPool(
  redactor: Redactor,
  ctx: ConstructorParameters<typeof ExchangeJudge>[2],
  delayMs: number,
) {
  const pool = {
    size: 1,
    batches: 0,
    judge: async (entries: EntryText[]) => {
      pool.batches++;
      // The wait first: handing a batch out costs the reading thread nothing, so however slow the machine,
      // a slow pool's first answer comes long after the reading thread met a full pool (CI once judged the
      // batches as they were handed out, then waited 40 ms: under load every answer came in time).
      await sleep(delayMs);
      const out = new JudgementWriter();
      for (const e of entries) out.write(judgeText(e, e.text!, redactor, ctx));
      return out.bytes();
    },
  };
  return pool;
}

/**
 * An entry of a capture: a GET whose reply is a server fault every 150th (ERR-002, each its own finding,
 * fewer than are listed per id: their order shows), else a list.
 */
function entryText(i: number): string {
  const bad = i % 150 === 3;
  return JSON.stringify({
    startedDateTime: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    request: { method: 'GET', url: `http://127.0.0.1:1/v1/models?page=${i}`, headers: [] },
    response: {
      status: bad ? 500 : 200,
      headers: [{ name: 'content-type', value: 'application/json' }],
      content: { text: bad ? `{"oops":${i}}` : '{"object":"list","data":[]}' },
    },
  });
}

/** What a judging judged, in order: per id its count and its violations with the exchanges they cite. */
const judgedOf = (j: Judged) =>
  [...j.ids].map(([id, r]) => [
    id,
    r.judged,
    r.log.violations.map((v) => [v.message, [...r.log.cited.keys()]]),
  ]);

describe('who judges a batch', () => {
  const ENTRIES = 256 * 12 + 5;
  async function run(delayMs?: number) {
    const redactor = new Redactor({});
    const ctx = { secrets: [], responses: { judgeResponse: () => ({ findings: [], judged: [] }) } };
    const judge = new ExchangeJudge(redactor, false, ctx, new TrafficState(false));
    const pool = delayMs === undefined ? undefined : judgingPool(redactor, ctx, delayMs);
    const batches = pool && new ThreadedJudging(pool as unknown as JudgingThreads, judge);
    for (let i = 0; i < ENTRIES; i++) {
      const item = { kind: 'text' as const, index: i, text: entryText(i) };
      if (batches) await batches.add(item, 'a.har', 0);
      else judge.item(item, 'a.har', 0);
    }
    await batches?.finish();
    return { judged: judge.judged, batches: pool?.batches };
  }

  it('judges the same, in the same order, whether the thread is quick or slow', async () => {
    const one = await run();
    expect(one.judged.judgedExchanges).toBe(ENTRIES);
    expect(one.judged.ids.get('ERR-002')?.log.violations.length).toBe(21);
    // A thread that answers at once is given every batch; a slow one a share, the rest judged here ahead.
    const quick = await run(0);
    const slow = await run(1_000);
    expect(quick.batches).toBe(13);
    expect(slow.batches).toBeGreaterThan(0);
    expect(slow.batches).toBeLessThan(13);
    for (const two of [quick, slow]) {
      expect(two.judged.judgedExchanges).toBe(ENTRIES);
      expect(judgedOf(two.judged)).toEqual(judgedOf(one.judged));
    }
  });
});
