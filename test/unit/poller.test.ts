import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { retryAfterMs } from '../../src/http/client.ts';
import { MAX_RETRY_AFTER_MS, Poller } from '../../src/runtime/poller.ts';

interface Reply {
  status: string;
  headers: Record<string, string>;
}

/** A job that reads `statuses` in turn (the last one forever), recording when each read happened. */
function job(statuses: string[], headers: (n: number) => Record<string, string> = () => ({})) {
  const at: number[] = [];
  return {
    at,
    read: async (): Promise<Reply> => {
      at.push(Date.now());
      const n = at.length - 1;
      return { status: statuses[Math.min(n, statuses.length - 1)]!, headers: headers(n) };
    },
  };
}

const done = (r: Reply) => r.status === 'succeeded';
/** Wait on job `j` under `key` (default 'a') at `intervalMs`, at most `cap` reads, until `onResult`. */
const watch = (
  p: Poller<Reply>,
  j: ReturnType<typeof job>,
  intervalMs: number,
  opts: { key?: string; cap?: number; onResult?: (r: Reply) => boolean } = {},
) =>
  p.wait({
    key: opts.key ?? 'a',
    intervalMs,
    cap: opts.cap ?? 100,
    read: j.read,
    onResult: opts.onResult ?? done,
  });
/** A stop rule that also records the statuses it sees. */
const recording = (seen: string[]) => (r: Reply) => {
  seen.push(r.status);
  return done(r);
};

describe('Poller (one poller per worker for every job waited on)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.parse('2026-11-23T12:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('reads a job at once, then once per interval until the stop rule holds', async () => {
    const p = new Poller<Reply>();
    const j = job(['queued', 'running', 'running', 'succeeded']);
    const seen: string[] = [];
    const wait = watch(p, j, 5000, { onResult: recording(seen) });
    await vi.advanceTimersByTimeAsync(60_000);
    await wait;
    const t0 = Date.parse('2026-11-23T12:00:00Z');
    expect(j.at.map((t) => t - t0)).toEqual([0, 5000, 10_000, 15_000]);
    expect(seen).toEqual(['queued', 'running', 'running', 'succeeded']);
    expect(p.watching).toBe(0);
  });

  it("no read is due after the run's deadline; once it has passed, reads keep their interval", async () => {
    const t0 = Date.parse('2026-11-23T12:00:00Z');
    const p = new Poller<Reply>(Date.now, undefined, () => t0 + 7_000);
    const j = job(['running']);
    const wait = watch(p, j, 5000, { cap: 5 });
    await vi.advanceTimersByTimeAsync(60_000);
    await wait;
    // At once, one interval, the deadline (7 s, not 10 s), then the interval again (no burst).
    expect(j.at.map((t) => t - t0)).toEqual([0, 5000, 7000, 12_000, 17_000]);
  });

  it('sends one GET per job per interval, however many waiters the job has', async () => {
    const p = new Poller<Reply>();
    const j = job(['running', 'running', 'running', 'succeeded']);
    const a: string[] = [];
    const b: string[] = [];
    const w1 = watch(p, j, 1000, { key: 'job', cap: 10, onResult: recording(a) });
    await vi.advanceTimersByTimeAsync(500);
    const w2 = watch(p, j, 1000, { key: 'job', cap: 10, onResult: recording(b) });
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all([w1, w2]);
    expect(j.at).toHaveLength(4);
    expect(a).toEqual(['running', 'running', 'running', 'succeeded']);
    expect(b).toEqual(['running', 'running', 'succeeded']);
  });

  it('polls many jobs on one timer, each at its own pace', async () => {
    const p = new Poller<Reply>();
    const jobs = Array.from({ length: 20 }, (_, i) => job([...Array(i % 5).fill('running'), 'succeeded']));
    const waits = jobs.map((j, i) => watch(p, j, 2000, { key: `j${i}`, cap: 50 }));
    expect(p.watching).toBe(20);
    await vi.advanceTimersByTimeAsync(20_000);
    await Promise.all(waits);
    for (const [i, j] of jobs.entries()) expect(j.at).toHaveLength((i % 5) + 1);
  });

  it('honours a valid Retry-After (seconds or a future HTTP-date) as a longer interval', async () => {
    const p = new Poller<Reply>();
    const date = new Date(Date.parse('2026-11-23T12:00:30Z')).toUTCString();
    const j = job(['running', 'running', 'succeeded'], (n) => ({ 'retry-after': n === 0 ? '12' : date }));
    const wait = watch(p, j, 1000, { cap: 10 });
    await vi.advanceTimersByTimeAsync(60_000);
    await wait;
    const t0 = Date.parse('2026-11-23T12:00:00Z');
    expect(j.at.map((t) => t - t0)).toEqual([0, 12_000, 30_000]);
  });

  it.for(['-5', '1.5', 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT', ''])(
    'counts an invalid Retry-After (%j) as absent: the interval applies',
    async (value) => {
      const p = new Poller<Reply>();
      const j = job(['running', 'running', 'succeeded'], () => ({ 'retry-after': value }));
      const wait = watch(p, j, 1000, { cap: 10 });
      await vi.advanceTimersByTimeAsync(10_000);
      await wait;
      const t0 = Date.parse('2026-11-23T12:00:00Z');
      expect(j.at.map((t) => t - t0)).toEqual([0, 1000, 2000]);
    },
  );

  it('bounds a huge Retry-After', async () => {
    const p = new Poller<Reply>();
    const j = job(['running', 'succeeded'], () => ({ 'retry-after': '86400' }));
    const wait = watch(p, j, 1000, { cap: 10 });
    await vi.advanceTimersByTimeAsync(MAX_RETRY_AFTER_MS + 1000);
    await wait;
    expect(j.at[1]! - j.at[0]!).toBe(MAX_RETRY_AFTER_MS);
  });

  it('ends a wait at its cap of reads, and a read that throws ends it with the error', async () => {
    const p = new Poller<Reply>();
    const j = job(['running']);
    const capped = watch(p, j, 100, { cap: 3 });
    await vi.advanceTimersByTimeAsync(10_000);
    await capped;
    expect(j.at).toHaveLength(3);
    const failing = p.wait({
      key: 'b',
      intervalMs: 100,
      cap: 3,
      read: async () => {
        throw new Error('stopped');
      },
      onResult: done,
    });
    const outcome = failing.catch((err: Error) => err.message);
    await vi.advanceTimersByTimeAsync(100);
    expect(await outcome).toBe('stopped');
    expect(p.watching).toBe(0);
  });
});

describe('retryAfterMs (RFC 9110: delay-seconds or an HTTP-date)', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('reads seconds and future dates in the three HTTP-date forms', () => {
    expect(retryAfterMs('0', now)).toBe(0);
    expect(retryAfterMs(' 7 ', now)).toBe(7000);
    expect(retryAfterMs('Mon, 23 Nov 2026 12:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Monday, 23-Nov-26 12:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Mon Nov 23 12:00:10 2026', now)).toBe(10_000);
  });
  it('counts negative, fractional, past and garbage values as absent', () => {
    for (const v of ['-1', '1.5', '1e3', 'Mon, 23 Nov 2026 11:59:00 GMT', 'later', undefined])
      expect(retryAfterMs(v, now), String(v)).toBeUndefined();
  });
});
