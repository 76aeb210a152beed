/**
 * The threads that judge a capture's entries by the per-exchange checks (entry.ts) while the main thread
 * reads the capture and runs the sequence rules in capture order. Each thread gets whole batches of entry
 * texts and answers each batch with its judgements, in the batch's order. Why threads and not processes:
 * the setup (the credentials, the description) is handed over once, and each batch's texts and answers
 * cross as structured clones, no serialising of our own.
 */
import { Worker } from 'node:worker_threads';
import { pkgPath } from '../paths.ts';
import type { EntryJudgement, JudgeSetup } from './entry.ts';
import type { SequenceExchange } from './rules.ts';

/** An entry's JSON text and where it stands (file, its position among the files, its index there). */
export interface EntryText {
  file: string;
  n: number;
  index: number;
  text: string;
}

export type ThreadRequest = { setup: JudgeSetup } | { seq: number; entries: EntryText[] };
export type ThreadAnswer =
  | { seq: number; judgements: Array<EntryJudgement<SequenceExchange>> }
  | { seq: number; error: string };

/** The entry module of a judging thread (bundled like the CLI's, bin/launch.mjs). */
const THREAD_SCRIPT = pkgPath('bin', 'traffic-worker.mjs');

export class JudgingThreads {
  private readonly workers: Worker[];
  private readonly waiting = new Map<
    number,
    { resolve: (j: Array<EntryJudgement<SequenceExchange>>) => void; reject: (e: Error) => void }
  >();
  private seq = 0;
  private closing = false;

  constructor(count: number) {
    this.workers = Array.from({ length: count }, () => {
      const w = new Worker(THREAD_SCRIPT);
      w.on('message', (m: ThreadAnswer) => {
        const waiter = this.waiting.get(m.seq);
        this.waiting.delete(m.seq);
        if ('error' in m) waiter?.reject(new Error(`a judging thread failed: ${m.error}`));
        else waiter?.resolve(m.judgements);
      });
      w.on('error', (err) => this.fail(err));
      w.on('exit', (code) => {
        if (!this.closing) this.fail(new Error(`a judging thread ended (exit code ${code})`));
      });
      return w;
    });
  }

  get size(): number {
    return this.workers.length;
  }

  /** What every thread judges with; sent before any batch (a thread reads its messages in order). */
  setup(setup: JudgeSetup): void {
    for (const w of this.workers) w.postMessage({ setup } satisfies ThreadRequest);
  }

  /** The judgements of a batch of entries, in its order (the batches spread over the threads in turn). */
  judge(entries: EntryText[]): Promise<Array<EntryJudgement<SequenceExchange>>> {
    const seq = this.seq++;
    const w = this.workers[seq % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      w.postMessage({ seq, entries } satisfies ThreadRequest);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private fail(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}
