/**
 * A judging thread of check-traffic (threads.ts): the per-exchange checks on batches of entry texts,
 * with the setup the main thread sends first. Started by bin/traffic-worker.mjs.
 */
import { parentPort } from 'node:worker_threads';
import { Redactor } from '../http/redact.ts';
import { type EntryJudgement, judgeText, responsesOf } from './entry.ts';
import { Learning, parseToLearn } from './learn.ts';
import type { SequenceExchange } from './rules.ts';
import {
  type EntryText,
  eachEntryText,
  JudgementWriter,
  type ThreadAnswer,
  type ThreadRequest,
} from './threads.ts';

export function runJudgingThread(): void {
  const port = parentPort;
  if (!port) throw new Error('runJudgingThread: not in a worker thread');
  let judge: ((e: EntryText, text: string) => EntryJudgement<SequenceExchange>) | undefined;
  // The first pass's learning, over every batch this thread is given to learn from.
  const learning = new Learning();
  port.on('message', (m: ThreadRequest) => {
    if ('setup' in m) {
      const redactor = Redactor.from(m.setup.redactor);
      const ctx = { secrets: m.setup.secrets, responses: responsesOf(m.setup.description) };
      judge = (e, text) => judgeText(e, text, redactor, ctx);
      return;
    }
    let answer: ThreadAnswer;
    try {
      if ('learn' in m) {
        eachEntryText(
          m.learn,
          (text, i, whole) => {
            const e = m.learn[i]!;
            const parsed = parseToLearn(e.file, e.index, text, whole, learning.described);
            if (parsed.kind === 'entry') learning.learn(parsed.value);
          },
          undefined,
          true,
        );
        port.postMessage({ seq: m.seq, learnt: learning.take() } satisfies ThreadAnswer);
        return;
      }
      if (!judge) throw new Error('a batch before the setup');
      // Each judgement written as it is made: none outlives its entry here either.
      const out = new JudgementWriter();
      eachEntryText(m.entries, (text, i) => out.write(judge!(m.entries[i]!, text)));
      answer = { seq: m.seq, judgements: out.bytes() };
    } catch (err) {
      answer = { seq: m.seq, error: (err as Error).stack ?? String(err) };
    }
    port.postMessage(answer);
  });
}
