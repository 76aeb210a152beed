/**
 * One poller per worker thread for everything that waits on a resource's state (media jobs): every
 * watched resource is read once per interval, however many waiters it has, on one timer; a reply's valid
 * Retry-After pushes that resource's next read back. Each waiter has its own bound (at most `cap` reads)
 * and its own stop rule. The reads themselves go through the waiter's test (recorded and checked there,
 * under the worker's request gate), so a test that only waits holds no request slot between reads.
 */
import { retryAfterMs } from '../http/client.ts';
import { runDeadlineAt } from './run-config.ts';

export interface PollWaiter<R> {
  /** Resources with the same key are read once per interval for all their waiters (e.g. role + job id). */
  key: string;
  intervalMs: number;
  /** At most this many reads for this waiter; then its wait ends. */
  cap: number;
  /** One read (a GET through the waiter's test). */
  read: () => Promise<R>;
  /** Sees every read's result; true ends the wait. */
  onResult: (result: R) => boolean;
}

interface Waiter<R> extends PollWaiter<R> {
  reads: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Entry<R> {
  waiters: Set<Waiter<R>>;
  /** When the next read is due (ms since the epoch). */
  due: number;
  reading: boolean;
}

/** Upper bound of a Retry-After a poll honours: a longer one is waited only this long. */
export const MAX_RETRY_AFTER_MS = 120_000;

export class Poller<R extends { headers: Record<string, string> }> {
  private readonly entries = new Map<string, Entry<R>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly now: () => number = Date.now,
    /** Told the number of resources watched whenever it changes (the run's progress line shows it). */
    private readonly onWatching?: (n: number) => void,
    /** The run's deadline: no read is due later than it (the read at it is refused, ending the wait). */
    private readonly deadlineAt: () => number | undefined = runDeadlineAt,
  ) {}

  /** Wait until the waiter's stop rule says so or its cap is reached; a read that throws ends it with that error. */
  wait(w: PollWaiter<R>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter<R> = { ...w, reads: 0, resolve, reject };
      if (w.cap < 1) return resolve();
      const entry = this.entries.get(w.key);
      if (entry) entry.waiters.add(waiter);
      // A new resource is read at once.
      else {
        this.entries.set(w.key, { waiters: new Set([waiter]), due: this.now(), reading: false });
        this.onWatching?.(this.entries.size);
      }
      this.schedule();
    });
  }

  /** Resources being watched (for tests). */
  get watching(): number {
    return this.entries.size;
  }

  private schedule(): void {
    let next = Number.POSITIVE_INFINITY;
    for (const e of this.entries.values()) if (!e.reading) next = Math.min(next, e.due);
    if (next === Number.POSITIVE_INFINITY || next >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next;
    this.timer = setTimeout(() => this.tick(), Math.max(0, next - this.now()));
  }

  private tick(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.now();
    for (const [key, e] of this.entries) if (!e.reading && e.due <= now) void this.read(key, e);
    this.schedule();
  }

  private async read(key: string, e: Entry<R>): Promise<void> {
    const first = e.waiters.values().next().value as Waiter<R>;
    e.reading = true;
    let result: R;
    try {
      result = await first.read();
    } catch (err) {
      // The read failed for the waiter whose test sent it (stopped, transport failure); the others read again.
      e.waiters.delete(first);
      first.reject(err);
      this.settle(key, e, this.now());
      return;
    }
    const interval = Math.max(...[...e.waiters].map((w) => w.intervalMs));
    // A reply without headers (never from the HTTP client; a stub's) must not leave the entry reading forever.
    const later = retryAfterMs(result.headers?.['retry-after'], this.now());
    for (const w of [...e.waiters]) {
      w.reads++;
      let stop: boolean;
      try {
        stop = w.onResult(result) || w.reads >= w.cap;
      } catch (err) {
        e.waiters.delete(w);
        w.reject(err);
        continue;
      }
      if (stop) {
        e.waiters.delete(w);
        w.resolve();
      }
    }
    this.settle(key, e, this.now() + Math.max(interval, Math.min(later ?? 0, MAX_RETRY_AFTER_MS)));
  }

  private settle(key: string, e: Entry<R>, due: number): void {
    e.reading = false;
    // A read due after a deadline still ahead is due at it (the wait ends there, refused); once the
    // deadline has passed, reads that still go out (a cleanup's) keep their interval.
    const deadline = this.deadlineAt();
    e.due = deadline !== undefined && deadline > this.now() ? Math.min(due, deadline) : due;
    if (e.waiters.size === 0 && this.entries.delete(key)) this.onWatching?.(this.entries.size);
    this.schedule();
  }
}
