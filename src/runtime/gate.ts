/**
 * The target's concurrency as a limit on requests in flight: one gate per worker thread (the target's
 * concurrency split over the workers, see concurrencySplit), which every request of every test of the
 * worker passes. A test that is only waiting (a job, a Retry-After, a lock) holds no slot, so a worker
 * runs more tests at once than it has slots.
 *
 * Adaptive (the default for a URL target): additive increase, multiplicative decrease. The limit rises by
 * one after `limit` replies in a row that came fast and were not 429, up to `max`; a 429 halves it (at most
 * once per second, so that one burst of refusals counts once), never below `min`. "Fast": within twice the
 * fastest reply seen plus 250 ms, so a target that slows down under load stops the rise.
 */
export interface GateLimits {
  /** Slots at the start. */
  start: number;
  /** Adaptive only: the bounds of the limit. */
  min?: number;
  max?: number;
}

const SLOW_MARGIN_MS = 250;
const DECREASE_EVERY_MS = 1_000;

export class RequestGate {
  private limitNow: number;
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];
  private fastInARow = 0;
  private fastest = Number.POSITIVE_INFINITY;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  /** The most requests in flight at once so far (for tests and the bench). */
  peak = 0;

  constructor(
    private readonly limits: GateLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.limitNow = Math.max(1, Math.floor(limits.start));
  }

  get adaptive(): boolean {
    return this.limits.max !== undefined && this.limits.max > (this.limits.min ?? 1);
  }

  get limit(): number {
    return this.limitNow;
  }

  get active(): number {
    return this.inFlight;
  }

  /** Wait for a slot; the returned function gives it back (once). */
  async acquire(): Promise<() => void> {
    // A queued waiter is counted by wake() when its turn comes, so that no later caller overtakes it.
    if (this.inFlight >= this.limitNow || this.queue.length > 0)
      await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.inFlight++;
    this.peak = Math.max(this.peak, this.inFlight);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.wake();
    };
  }

  /** Run fn holding one slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** A reply came back (status undefined: no answer): adapt the limit. */
  observe(status: number | undefined, durationMs: number): void {
    if (!this.adaptive) return;
    const min = Math.max(1, this.limits.min ?? 1);
    const max = this.limits.max ?? this.limitNow;
    if (status === 429) {
      const t = this.now();
      if (t - this.lastDecrease >= DECREASE_EVERY_MS) {
        this.lastDecrease = t;
        this.limitNow = Math.max(min, Math.floor(this.limitNow / 2));
      }
      this.fastInARow = 0;
      return;
    }
    if (status === undefined || status >= 500) {
      this.fastInARow = 0;
      return;
    }
    this.fastest = Math.min(this.fastest, durationMs);
    if (durationMs > 2 * this.fastest + SLOW_MARGIN_MS) {
      this.fastInARow = 0;
      return;
    }
    if (++this.fastInARow >= this.limitNow && this.limitNow < max) {
      this.limitNow++;
      this.fastInARow = 0;
      this.wake();
    }
  }

  private wake(): void {
    while (this.inFlight < this.limitNow && this.queue.length > 0) {
      this.inFlight++;
      this.queue.shift()!();
    }
  }
}

/**
 * One test's share of the gate: its requests sent at once (a race sends the same create N times at once,
 * on purpose) leave together under one slot, which the test holds while any of them is in flight.
 */
export class TestSlot {
  private holders = 0;
  private held: Promise<() => void> | undefined;

  constructor(private readonly gate: RequestGate) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.holders++;
    this.held ??= this.gate.acquire();
    const held = this.held;
    try {
      await held;
      return await fn();
    } finally {
      if (--this.holders === 0) {
        this.held = undefined;
        (await held)();
      }
    }
  }
}
