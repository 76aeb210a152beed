/**
 * A judging thread that fails rejects every batch it holds at once (threads.ts JudgingThreads.fail). The
 * batches behind the one being applied are awaited only in their turn: their rejection must not be an
 * unhandled one (Node ends the process on it, before the run says why); the run rejects with the
 * thread's failure when it reaches them.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import type { EntryJudgement } from '../../src/traffic/entry.ts';
import { ExchangeJudge, ThreadedJudging, ThreadedLearning } from '../../src/traffic/judging.ts';
import type { Learnt } from '../../src/traffic/learn.ts';
import type { SequenceExchange } from '../../src/traffic/rules.ts';
import { TrafficState } from '../../src/traffic/rules.ts';
import { JudgementWriter, type JudgingThreads } from '../../src/traffic/threads.ts';

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
    learn: () => answer<Learnt>({ registrations: [], keys: [], hosts: [], authorized: false, entries: 0 }),
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
