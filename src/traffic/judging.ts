/**
 * One item of a capture judged: the entry read into an exchange (capture.ts readEntry), the live run's
 * per-exchange checks and the traffic rules on it, each finding kept under its requirement id; or what
 * could not be read, said. The one code path every reader feeds (a HAR, an NDJSON log, a followed log):
 * judge.ts over whole captures, follow.ts over a growing log, and the judgements judging threads hand
 * back (entry.ts, threads.ts) applied in capture order (ThreadedJudging).
 */
import type { Finding } from '../checks/exchange.ts';
import type { ExchangeCheckContext } from '../checks/per-exchange.ts';
import { type Exchange, recordNow } from '../http/client.ts';
import type { Redactor } from '../http/redact.ts';
import { memoize } from '../memo.ts';
import { pathTemplate } from '../report/groups.ts';
import { CAPTURE_ENDPOINTS_LISTED } from '../report/summary.ts';
import { ViolationLog } from '../violation-log.ts';
import { readEntry } from './capture.ts';
import { type EntryJudgement, entryId, entryWhere, forTransfer, judgeEntry, judgeText } from './entry.ts';
import { type HarItem, parseEntry } from './har-stream.ts';
import type { Learnt } from './learn.ts';
import type { SequenceExchange, TrafficFinding, TrafficState } from './rules.ts';
import {
  type EntryText,
  eachEntryText,
  entryTexts,
  JudgementReader,
  type JudgingThreads,
} from './threads.ts';

export interface IdRecord {
  judged: number;
  /** Its violations, in the one log a live test keeps too. */
  log: ViolationLog;
}

/** What the judging judged, per requirement id, and what of the capture it could not read. */
export interface Judged {
  ids: Map<string, IdRecord>;
  /** Every input problem, in capture order (printed, and listed in the summary). */
  problems: string[];
  /**
   * Where the capture could not be read (a truncated file, an entry that is no JSON object, a body that
   * does not decode): what stood there was not judged, so the verdict cannot be PASSED (INCOMPLETE).
   * An entry without a response, or whose body the capturing tool left out, is read as it stands.
   */
  unreadable: string[];
  /** Entries read (each a JSON object). */
  read: number;
  /** Entries met, read or not. */
  entries: number;
  /** Exchanges judged (entries with a response). */
  judgedExchanges: number;
  /** Exchanges judged whose response body the capture does not hold, and why (the first one's reason). */
  bodiless: { count: number; why?: string };
  /**
   * Exchanges with another origin than the API's (learn.ts apiOrigins), left out: how many of each origin
   * (at most OTHER_ORIGINS_LISTED origins listed, the rest counted under `more`).
   */
  otherOrigins: { byOrigin: Map<string, number>; more: number };
  /** What the capture holds (Summary capture.holds): bounded sets, the rest counted. */
  holds: {
    from?: string;
    to?: string;
    credentials: Set<string>;
    endpoints: Set<string>;
    moreEndpoints: number;
  };
}

/** A path's template as the capture's facts list its endpoint (`/v1/media/jobs/{id}`), kept per path read. */
const templateOf = memoize((path: string) => pathTemplate(path.split('?')[0] ?? path), 10_000);

/** At most this many origins left out are listed by name (a browser's capture may hold hundreds). */
export const OTHER_ORIGINS_LISTED = 100;

/** At most this many credentials are told apart in a capture's facts (beyond, the count says `at least`). */
export const HOLDS_CREDENTIALS = 100_000;

/** What one exchange was found to break, for a line printed as it happens (--follow). */
export type ItemFinding = Finding | TrafficFinding;

export class ExchangeJudge {
  readonly judged: Judged = {
    ids: new Map(),
    problems: [],
    unreadable: [],
    read: 0,
    entries: 0,
    judgedExchanges: 0,
    bodiless: { count: 0 },
    otherOrigins: { byOrigin: new Map(), more: 0 },
    holds: { credentials: new Set(), endpoints: new Set(), moreEndpoints: 0 },
  };

  constructor(
    readonly redactor: Redactor,
    private readonly strict: boolean,
    /** The secrets no reply may hold and what responses are validated against (a followed log adds keys). */
    private readonly ctx: ExchangeCheckContext,
    private readonly state: TrafficState,
    /** The API's origins (learn.ts apiOrigins): an exchange with another is left out; undefined: none is. */
    private readonly origins?: ReadonlySet<string>,
  ) {}

  private rec(id: string): IdRecord {
    let r = this.judged.ids.get(id);
    if (!r) {
      r = { judged: 0, log: new ViolationLog(this.redactor, this.strict) };
      this.judged.ids.set(id, r);
    }
    return r;
  }

  private note(f: ItemFinding, exchange: Exchange, scope?: 'exchange'): void {
    this.rec(f.id).log.add(f.id, f.message, {
      exchange,
      ...((f as Finding).pointer !== undefined ? { pointer: (f as Finding).pointer } : {}),
      ...(f.received !== undefined ? { received: f.received } : {}),
      ...(f.expected !== undefined ? { expected: f.expected } : {}),
      ...(f.level ? { level: f.level } : {}),
      ...((f as Finding).verdictCase ? { verdictCase: (f as Finding).verdictCase } : {}),
      ...(scope ? { scope } : {}),
    });
  }

  /** What the capture holds: its time span, credentials and endpoints (bounded). */
  private hold(x: SequenceExchange): void {
    const h = this.judged.holds;
    if (x.startedAt) {
      if (h.from === undefined || x.startedAt < h.from) h.from = x.startedAt;
      if (h.to === undefined || x.startedAt > h.to) h.to = x.startedAt;
    }
    if (x.who !== undefined && h.credentials.size < HOLDS_CREDENTIALS) h.credentials.add(x.who);
    const endpoint = `${x.method} ${templateOf(x.path)}`;
    if (h.endpoints.has(endpoint)) return;
    if (h.endpoints.size < CAPTURE_ENDPOINTS_LISTED) h.endpoints.add(endpoint);
    else h.moreEndpoints++;
  }

  /** What a reader could not read: said, not judged (an entry that is no JSON counts as an entry). */
  problem(message: string, counted: boolean): void {
    this.judged.problems.push(message);
    this.judged.unreadable.push(message);
    if (counted) this.judged.entries++;
  }

  /**
   * One item of the `n`-th file judged here, in capture order (an entry's text parsed first), or said as a
   * problem. Returns its findings.
   */
  item(item: HarItem, file: string, n: number): ItemFinding[] {
    if (item.kind === 'problem') {
      this.problem(item.message, item.index !== undefined);
      return [];
    }
    const parsed = item.kind === 'text' ? parseEntry(file, item.index, item.text) : item;
    if (parsed.kind === 'problem') {
      this.problem(parsed.message, true);
      return [];
    }
    const where = entryWhere(file, item.index, item.kind === 'entry' ? item.unit : undefined);
    const j = judgeEntry(parsed.value, where, entryId(n, item.index), this.redactor, this.ctx);
    // Applied as a judging thread's judgement is: the rules' view of the exchange (forTransfer).
    return this.apply(
      forTransfer(j),
      () => (j as Extract<EntryJudgement, { kind: 'exchange' }>).x.res!.exchange,
    );
  }

  /** An entry's text judged as a judging thread judges it (entry.ts judgeText), to be applied later. */
  judgeText(e: EntryText, text: string): EntryJudgement<SequenceExchange> {
    return judgeText(e, text, this.redactor, this.ctx);
  }

  /**
   * One entry's judgement (made here or by a judging thread, either way handed over by forTransfer: the
   * exchange is the rules' view of it): its per-exchange findings, then what the sequence rules find on
   * it. `cite` gives the exchange's record when a finding cites it and the judgement holds none; it is
   * made once (recordNow), only for an exchange a finding cites.
   */
  apply(j: EntryJudgement<SequenceExchange>, cite: () => Exchange): ItemFinding[] {
    const judged = this.judged;
    if (j.kind === 'unreadable') {
      this.problem(j.message, true);
      return [];
    }
    judged.read++;
    judged.entries++;
    if (j.kind === 'problem') {
      judged.problems.push(j.problem);
      if (j.undecodable) judged.unreadable.push(j.problem);
      return [];
    }
    // Another origin's exchange (a page, its CDN, another service in a browser's capture): the contract
    // speaks of the API's answers only. Counted, not judged.
    const origin = j.x.origin;
    if (this.origins && origin !== '' && !this.origins.has(origin)) {
      const other = judged.otherOrigins;
      const n = other.byOrigin.get(origin);
      if (n !== undefined || other.byOrigin.size < OTHER_ORIGINS_LISTED)
        other.byOrigin.set(origin, (n ?? 0) + 1);
      else other.more++;
      return [];
    }
    judged.judgedExchanges++;
    this.hold(j.x);
    const absent = j.x.res?.bodyAbsent;
    if (absent !== undefined)
      judged.bodiless = { count: judged.bodiless.count + 1, why: judged.bodiless.why ?? absent };
    let cited: Exchange | undefined;
    const exchange = () => {
      cited ??= j.exchange ?? recordNow(cite());
      return cited;
    };
    // The per-exchange checks (the live run's, one code path) say which ids this exchange showed the form of.
    const { perExchange } = j;
    for (const id of perExchange.observed) this.rec(id).judged++;
    for (const f of perExchange.findings) this.note(f, exchange(), 'exchange');
    // The rules judge their view of the exchange, whichever thread read it (forTransfer made it).
    const { judged: ids, findings } = this.state.judge(j.x);
    for (const id of ids) this.rec(id).judged++;
    for (const f of findings) this.note(f, exchange());
    return [...perExchange.findings, ...findings];
  }
}

/** Entries per batch handed to a judging thread, and batches in flight per thread (memory stays bounded). */
const BATCH_ENTRIES = 256;
const IN_FLIGHT_PER_THREAD = 3;

/**
 * Batches in flight, taken in the order handed out (capture order) by `take`. A thread's failure rejects
 * every batch it holds at once: each is awaited in its turn, and is no unhandled rejection meanwhile
 * (which would end the process before the run says why).
 */
class InOrder<T> {
  private readonly queue: Array<{ answer: Promise<T>; take: (answer: T) => void }> = [];

  constructor(private readonly bound: number) {}

  /** One more batch; past the bound, the oldest are taken first (memory stays bounded). */
  async push(answer: Promise<T>, take: (answer: T) => void): Promise<void> {
    answer.catch(() => {});
    this.queue.push({ answer, take });
    while (this.queue.length > this.bound) await this.next();
  }

  /** Every batch taken. */
  async drain(): Promise<void> {
    while (this.queue.length) await this.next();
  }

  private async next(): Promise<void> {
    const { answer, take } = this.queue.shift()!;
    take(await answer);
  }
}

/** An item of a batch, in capture order: an entry a thread judges, or one judged here (a problem, a log's line). */
type Slot = { kind: 'thread'; entry: EntryText } | { kind: 'here'; item: HarItem; file: string; n: number };

/**
 * A batch in capture order: not handed out yet (`open`); handed to a thread (`thread`, its answer to come,
 * `bytes` once it came); or this thread's (`here`: its entries judged in its turn, or ahead of it, their
 * judgements in `judged`, while a thread's batch before it is not answered yet).
 */
type Batch =
  | { kind: 'open'; slots: Slot[] }
  | { kind: 'thread'; slots: Slot[]; answer: Promise<Uint8Array>; bytes?: Uint8Array }
  | { kind: 'here'; slots: Slot[]; judged?: Array<EntryJudgement<SequenceExchange>> };

/** Batches this thread judges ahead of their turn at most (their judgements wait in its heap). */
const HERE_AHEAD = 8;

/** One turn of the event loop: a thread's answer that came is taken in (its message is a task). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The per-exchange checks run on batches of HAR entries (their texts, or their places to read) by the
 * judging threads and by this thread, while the judgements are applied here in capture order all the
 * same, each exchange's before the sequence rules judge it: the findings, their order and the report do
 * not depend on threads nor on which thread judged what. Items a thread does not judge (a problem, an
 * NDJSON log's line) keep their place in the batch and are judged here in its turn.
 * Who judges a batch: a thread, whenever one has room (IN_FLIGHT_PER_THREAD batches each), so that no
 * thread waits for work; this thread otherwise, while the thread's batch before it is not answered yet
 * (instead of waiting for it), at most HERE_AHEAD batches ahead. So each side judges as much as its speed
 * allows; with a fixed share (one batch in `size + 1`), on 2 cores the judging thread waited for this one,
 * which also reads and applies, a fifth of the time (bench/README.md).
 * Why at most HERE_AHEAD: a judgement that waits (for the batches before it) outlives the young
 * generation's collections and is copied to the old one. With every judgement handed over as an object
 * and waiting, this thread's collector copied 88 MB to the old generation on the 235 MB capture; the
 * threads' judgements wait as bytes instead (JudgementReader), and only this thread's own, at most
 * HERE_AHEAD batches of them, as objects (41 MB copied on that capture, against 20 MB when it judged its
 * batches only in their turn: bench/README.md).
 */
export class ThreadedJudging {
  /** Batches read and not yet applied, in capture order. */
  private readonly queue: Batch[] = [];
  private batch: Slot[] = [];
  /** Threads' batches in `queue`, and how many may be (IN_FLIGHT_PER_THREAD each). */
  private posted = 0;
  private readonly ahead: number;
  /** Batches this thread judged ahead of their turn, in `queue`. */
  private judgedAhead = 0;

  constructor(
    private readonly pool: JudgingThreads,
    private readonly judge: ExchangeJudge,
  ) {
    this.ahead = pool.size * IN_FLIGHT_PER_THREAD;
  }

  async add(item: HarItem, file: string, n: number): Promise<void> {
    this.batch.push(
      item.kind !== 'text'
        ? { kind: 'here', item, file, n }
        : {
            kind: 'thread',
            entry:
              item.from !== undefined && item.text === ''
                ? { file, n, index: item.index, from: item.from, to: item.to! }
                : { file, n, index: item.index, text: item.text },
          },
    );
    if (this.batch.length >= BATCH_ENTRIES) await this.flush();
  }

  /** Every batch judged and applied. */
  async finish(): Promise<void> {
    await this.flush();
    await this.work(true);
  }

  private async flush(): Promise<void> {
    const slots = this.batch;
    this.batch = [];
    if (slots.some((s) => s.kind === 'thread')) this.queue.push({ kind: 'open', slots });
    else if (slots.length) this.queue.push({ kind: 'here', slots });
    await turn();
    await this.work(false);
  }

  /**
   * What can be done now, in this order: the open batches handed to the threads while they have room;
   * the batches at the head of the queue applied in order (this thread's judged now, each entry applied as
   * it is judged; a thread's once answered); while a thread's batch at the head is not answered, the next
   * open batch judged here ahead of its turn. Unless `all`, it returns when nothing is left but to wait:
   * the next batches are read first.
   */
  private async work(all: boolean): Promise<void> {
    for (;;) {
      for (let i = 0; i < this.queue.length && this.posted < this.ahead; i++) {
        const b = this.queue[i]!;
        if (b.kind === 'open') this.queue[i] = this.post(b.slots);
      }
      const head = this.queue[0];
      if (!head) return;
      if (head.kind !== 'thread') {
        this.queue.shift();
        if (head.kind === 'open' || !head.judged) this.judgeHere(head.slots);
        else {
          this.judgedAhead--;
          let k = 0;
          const judged = head.judged;
          this.applyJudged(head.slots, () => judged[k++]!);
        }
        continue;
      }
      if (head.bytes) {
        this.queue.shift();
        this.posted--;
        const judgements = new JudgementReader(head.bytes);
        this.applyJudged(head.slots, () => judgements.next());
        continue;
      }
      const open = this.queue.findIndex((b) => b.kind === 'open');
      if (open >= 0 && this.judgedAhead < HERE_AHEAD) {
        this.queue[open] = this.judgeAhead(this.queue[open]!.slots);
        continue;
      }
      if (!all && this.queue.length <= this.ahead + HERE_AHEAD) return;
      await head.answer;
    }
  }

  /** A batch handed to a thread; `bytes` set when its answer comes. */
  private post(slots: Slot[]): Batch {
    const answer = this.pool.judge(slots.flatMap((s) => (s.kind === 'thread' ? [s.entry] : [])));
    const batch: Extract<Batch, { kind: 'thread' }> = { kind: 'thread', slots, answer };
    // Awaited in its turn; a thread's failure is no unhandled rejection meanwhile.
    answer.then(
      (bytes) => {
        batch.bytes = bytes;
      },
      () => {},
    );
    this.posted++;
    return batch;
  }

  /** A batch's items applied in order: a thread's entries by their judgements (`next`), the others judged now. */
  private applyJudged(slots: Slot[], next: () => EntryJudgement<SequenceExchange>): void {
    for (const slot of slots)
      if (slot.kind === 'here') this.judge.item(slot.item, slot.file, slot.n);
      else this.judge.apply(next(), () => this.reread(slot.entry));
  }

  /**
   * A batch's entries judged here ahead of their turn, as a judging thread judges them (judgeText; the
   * other items are judged in its turn).
   */
  private judgeAhead(slots: Slot[]): Batch {
    const entries = slots.flatMap((s) => (s.kind === 'thread' ? [s.entry] : []));
    const judged: Array<EntryJudgement<SequenceExchange>> = [];
    eachEntryText(entries, (text, k) => judged.push(this.judge.judgeText(entries[k]!, text)));
    this.judgedAhead++;
    return { kind: 'here', slots, judged };
  }

  /**
   * This thread's share: each item of a batch judged and applied in turn, as an item read here is
   * (ExchangeJudge.item), the entries' texts made as a judging thread makes them (eachEntryText).
   */
  private judgeHere(slots: Slot[]): void {
    for (let i = 0; i < slots.length; ) {
      const slot = slots[i]!;
      if (slot.kind === 'here') {
        this.judge.item(slot.item, slot.file, slot.n);
        i++;
        continue;
      }
      let j = i;
      const run: EntryText[] = [];
      for (; j < slots.length; j++) {
        const s = slots[j]!;
        if (s.kind !== 'thread') break;
        run.push(s.entry);
      }
      eachEntryText(run, (text, k) => {
        const e = run[k]!;
        this.judge.item({ kind: 'text', index: e.index, text }, e.file, e.n);
      });
      i = j;
    }
  }

  /**
   * The record of an exchange another thread judged, where only a sequence rule cites it: read again
   * here from its text (the record is made from the same entry by the same redactor).
   */
  private reread(e: EntryText): Exchange {
    const value: unknown = JSON.parse(entryTexts([e])[0]!);
    return readEntry(value, entryWhere(e.file, e.index), entryId(e.n, e.index), this.judge.redactor).res!
      .exchange;
  }
}

/**
 * The first pass's learning (learn.ts) done by judging threads on batches of a HAR's entries, at the
 * places this thread found; each batch's news added here (`add`) in capture order.
 */
export class ThreadedLearning {
  private readonly pending: InOrder<Learnt>;
  private batch: EntryText[] = [];

  constructor(
    private readonly pool: JudgingThreads,
    private readonly add: (l: Learnt) => void,
  ) {
    this.pending = new InOrder(pool.size * IN_FLIGHT_PER_THREAD);
  }

  async entry(e: EntryText): Promise<void> {
    this.batch.push(e);
    if (this.batch.length >= BATCH_ENTRIES) await this.flush();
  }

  /** Every batch learnt from and added. */
  async settle(): Promise<void> {
    await this.flush();
    await this.pending.drain();
  }

  private async flush(): Promise<void> {
    if (!this.batch.length) return;
    const batch = this.batch;
    this.batch = [];
    await this.pending.push(this.pool.learn(batch), this.add);
  }
}
