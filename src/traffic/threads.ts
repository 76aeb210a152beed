/**
 * The threads that judge a capture's entries by the per-exchange checks (entry.ts) while the main thread
 * reads the capture and runs the sequence rules in capture order. Each thread gets whole batches of entry
 * texts and answers each batch with its judgements, in the batch's order. Why threads and not processes:
 * the setup (the credentials, the description) is handed over once, and each batch's texts (or places)
 * and answers cross as V8's structured clones, no format of our own (the answers written by the thread as
 * it judges, JudgementWriter).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { DefaultDeserializer, DefaultSerializer } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { pkgPath } from '../paths.ts';
import type { EntryJudgement, JudgeSetup } from './entry.ts';
import { cutText } from './har-stream.ts';
import type { Learnt } from './learn.ts';
import type { SequenceExchange } from './rules.ts';

/**
 * An entry (file, its position among the files, its index there): its JSON text, or where its bytes
 * stand in the file ([from, to), as a HarPlan found them) for the thread to read them itself.
 */
export interface EntryText {
  file: string;
  n: number;
  index: number;
  text?: string;
  from?: number;
  to?: number;
  /** Where values the first reading left out stand ([from, to) pairs, harTexts' `cuts`). */
  cuts?: number[];
}

/** The bytes [from, to) of a file. */
function readBytes(file: string, from: number, to: number): Buffer {
  const bytes = Buffer.allocUnsafe(to - from);
  const fd = openSync(file, 'r');
  try {
    for (let got = 0; got < bytes.length; ) {
      const n = readSync(fd, bytes, got, bytes.length - got, from + got);
      if (n === 0) throw new Error(`${file} ends before byte ${to}`);
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** The text of the bytes [from, to) of a file (an entry read again at its place). */
export function textAt(file: string, from: number, to: number): string {
  return readBytes(file, from, to).toString('utf8');
}

/** The texts of entries, in order: as given, or read at their places (a run of them in one read). */
export function entryTexts(entries: readonly EntryText[]): string[] {
  const out: string[] = [];
  eachEntryText(entries, (text) => out.push(text));
  return out;
}

/**
 * The bytes a thread reads in one go for a run of entries at most: a run stops before the entry that
 * would pass it (an entry larger than this is read alone), so a batch of entries with large bodies (media
 * in base64) never holds more than this or its largest entry in memory at once.
 */
export const READ_RUN_BYTES = 8 * 1024 * 1024;

/**
 * Where each run of entries read in one go ends: entry `i` starts a run that ends before the returned
 * index. A run holds adjacent places of one file whose bytes span at most `maxBytes` (or one entry); an
 * entry given as text, or with no place, is a run of its own.
 */
export function runEnd(entries: readonly EntryText[], i: number, maxBytes = READ_RUN_BYTES): number {
  const e = entries[i]!;
  if (e.text !== undefined || e.from === undefined || e.to === undefined) return i + 1;
  let j = i + 1;
  for (; j < entries.length; j++) {
    const next = entries[j]!;
    if (next.file !== e.file || next.text !== undefined || next.from === undefined || next.to === undefined)
      break;
    if (next.from < entries[j - 1]!.to! || next.to - e.from > maxBytes) break;
  }
  return j;
}

/**
 * Each entry's text in turn, as entryTexts gives them, made only when its turn comes: a thread judging a
 * batch holds one entry's text at a time (a run's bytes are read in one go, outside the heap, at most
 * READ_RUN_BYTES or one entry), so each text is garbage before the next is made instead of living as long
 * as the batch. With `cut`, an entry's text is made without the values its `cuts` name (the first pass's
 * reading, cutText), and `whole` makes it whole.
 */
export function eachEntryText(
  entries: readonly EntryText[],
  use: (text: string, i: number, whole?: () => string) => void,
  maxBytes = READ_RUN_BYTES,
  cut = false,
): void {
  for (let i = 0; i < entries.length; ) {
    const e = entries[i]!;
    const j = runEnd(entries, i, maxBytes);
    if (e.text !== undefined || e.from === undefined || e.to === undefined) use(e.text ?? '', i);
    else {
      const bytes = readBytes(e.file, e.from, entries[j - 1]!.to!);
      for (let k = i; k < j; k++) {
        const { from, to, cuts } = entries[k]!;
        const whole = () => bytes.toString('utf8', from! - e.from!, to! - e.from!);
        if (cut && cuts) use(cutText(bytes, e.from, from!, to!, cuts), k, whole);
        else use(whole(), k);
      }
    }
    i = j;
  }
}

/**
 * A batch's judgements as a thread hands them over: V8's structured clone (what postMessage would make
 * of them), written one by one as each is made, and read one by one as each is applied. Why not the
 * judgements themselves in the message: the reading thread takes every message that has come at once,
 * and the judgements of a batch not yet due (behind its own share, ThreadedJudging) then waited in its
 * heap through its collections, which copied them to the old generation; as bytes they wait outside the
 * heap (the reading thread's collector copied 87.5 MB to the old generation on the 235 MB capture, now
 * 17-21 MB; bench/README.md).
 */
export class JudgementWriter {
  private readonly out = new DefaultSerializer();
  constructor() {
    this.out.writeHeader();
  }
  write(j: EntryJudgement<SequenceExchange>): void {
    this.out.writeValue(j);
  }
  bytes(): Uint8Array {
    return this.out.releaseBuffer();
  }
}

/** The judgements a JudgementWriter wrote, in order. */
export class JudgementReader {
  private readonly in: DefaultDeserializer;
  constructor(bytes: Uint8Array) {
    this.in = new DefaultDeserializer(bytes);
    this.in.readHeader();
  }
  next(): EntryJudgement<SequenceExchange> {
    return this.in.readValue() as EntryJudgement<SequenceExchange>;
  }
}

export type ThreadRequest =
  | { setup: JudgeSetup }
  | { seq: number; entries: EntryText[] }
  | { seq: number; learn: EntryText[] };
/** A batch judged: its judgements as a JudgementWriter wrote them. */
interface JudgedBatch {
  seq: number;
  judgements: Uint8Array;
}
export type ThreadAnswer = JudgedBatch | { seq: number; learnt: Learnt } | { seq: number; error: string };

/**
 * Each judging thread's young generation, in MiB. Why bounded: every entry a thread judges is garbage
 * once judged, and V8's default young generation (grown up to 3 x 16 MiB a thread) was what took a
 * 235 MB capture's peak RSS from about 200 MiB in one thread to 355-380 MiB with two threads; at 8 MiB
 * it stayed under 300 MiB. At 16 MiB, now that judgements wait as bytes (JudgementWriter), it is 210-220
 * MiB, and the thread's scavenges pause it 264-282 ms in all instead of 322-334 ms (half as many of
 * them; bench/README.md). Only the young generation: an entry of any size still fits.
 */
const YOUNG_MB = 16;

/** The entry module of a judging thread (bundled like the CLI's, bin/launch.mjs). */
const THREAD_SCRIPT = pkgPath('bin', 'traffic-worker.mjs');

export class JudgingThreads {
  private readonly workers: Worker[];
  private readonly waiting = new Map<
    number,
    { resolve: (a: ThreadAnswer) => void; reject: (e: Error) => void }
  >();
  private seq = 0;
  private closing = false;

  constructor(count: number) {
    this.workers = Array.from({ length: count }, () => {
      const w = new Worker(THREAD_SCRIPT, { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB } });
      w.on('message', (m: ThreadAnswer) => {
        const waiter = this.waiting.get(m.seq);
        this.waiting.delete(m.seq);
        if ('error' in m) waiter?.reject(new Error(`a judging thread failed: ${m.error}`));
        else waiter?.resolve(m);
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

  /**
   * The judgements of a batch of entries, in its order, as a JudgementWriter's bytes (the batches spread
   * over the threads in turn).
   */
  async judge(entries: EntryText[]): Promise<Uint8Array> {
    const a = await this.ask((seq) => ({ seq, entries }));
    if (!('judgements' in a))
      throw new Error('a judging thread answered a batch to judge with what it learnt');
    return a.judgements;
  }

  /** What a batch of entries tells before any is judged (learn.ts Learning, in the thread it goes to). */
  async learn(entries: EntryText[]): Promise<Learnt> {
    const a = await this.ask((seq) => ({ seq, learn: entries }));
    if (!('learnt' in a)) throw new Error('a judging thread answered a batch to learn from with judgements');
    return a.learnt;
  }

  private ask(request: (seq: number) => ThreadRequest): Promise<ThreadAnswer> {
    const seq = this.seq++;
    const w = this.workers[seq % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      w.postMessage(request(seq));
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
