import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { RequestGate, TestSlot } from '../../src/runtime/gate.ts';
import { ADAPTIVE, concurrencyPlan, EMBEDDED } from '../../src/runtime/run-config.ts';

/** n tasks through the gate, each "in flight" for a few ms; the most in flight at once. */
async function load(gate: RequestGate, n: number, status = 200): Promise<number> {
  let now = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      gate.run(async () => {
        now++;
        most = Math.max(most, now);
        await sleep(1 + (i % 3));
        now--;
        gate.observe(status, 5);
      }),
    ),
  );
  return most;
}

describe('RequestGate (the target concurrency as requests in flight)', () => {
  it('never has more requests in flight than its limit', async () => {
    for (const limit of [1, 2, 5]) {
      const gate = new RequestGate({ start: limit });
      expect(await load(gate, 40)).toBe(limit);
      expect(gate.peak).toBe(limit);
      expect(gate.active).toBe(0);
    }
  });

  it('serves waiters in order: a later caller never overtakes a queued one', async () => {
    const gate = new RequestGate({ start: 1 });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => gate.run(async () => void order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('a fixed limit does not adapt', () => {
    const gate = new RequestGate({ start: 3 });
    for (let i = 0; i < 100; i++) gate.observe(200, 5);
    gate.observe(429, 5);
    expect(gate.limit).toBe(3);
  });

  it('adaptive: rises by one after `limit` fast replies in a row, up to its max, and never above it in flight', async () => {
    const gate = new RequestGate({ start: 1, min: 1, max: 4 });
    gate.observe(200, 5);
    expect(gate.limit).toBe(2);
    gate.observe(200, 5);
    gate.observe(200, 5);
    expect(gate.limit).toBe(3);
    for (let i = 0; i < 100; i++) gate.observe(200, 5);
    expect(gate.limit).toBe(4);
    expect(await load(gate, 50)).toBeLessThanOrEqual(4);
  });

  it('adaptive: a slow reply does not count towards a rise', () => {
    const gate = new RequestGate({ start: 2, min: 1, max: 8 });
    gate.observe(200, 10);
    for (let i = 0; i < 20; i++) gate.observe(200, 2000);
    expect(gate.limit).toBe(2);
  });

  it('adaptive: backs off on 429 (halves, once per second for a burst of them, never below min)', () => {
    let t = 0;
    const gate = new RequestGate({ start: 8, min: 1, max: 8 }, () => t);
    gate.observe(429, 5);
    gate.observe(429, 5);
    gate.observe(429, 5);
    expect(gate.limit).toBe(4);
    t += 1000;
    gate.observe(429, 5);
    expect(gate.limit).toBe(2);
    for (let i = 0; i < 5; i++) {
      t += 1000;
      gate.observe(429, 5);
    }
    expect(gate.limit).toBe(1);
  });

  it('adaptive: after a 429 the requests in flight drop to the new limit', async () => {
    const gate = new RequestGate({ start: 4, min: 1, max: 4 });
    expect(await load(gate, 20, 429)).toBeLessThanOrEqual(4);
    expect(gate.limit).toBe(2);
    expect(await load(gate, 20, 429)).toBeLessThanOrEqual(2);
  });

  it("a test's requests sent at once (a race) share one slot; others wait for it", async () => {
    const gate = new RequestGate({ start: 1 });
    const race = new TestSlot(gate);
    const other = new TestSlot(gate);
    const events: string[] = [];
    const burst = Promise.all(
      [0, 1, 2].map((i) =>
        race.run(async () => {
          events.push(`race ${i}`);
          await sleep(5);
        }),
      ),
    );
    const next = other.run(async () => void events.push('other'));
    await Promise.all([burst, next]);
    expect(events).toEqual(['race 0', 'race 1', 'race 2', 'other']);
    expect(gate.peak).toBe(1);
  });
});

describe('concurrencyPlan', () => {
  it('adapts on a URL target without a set concurrency, and says so', () => {
    const p = concurrencyPlan({ concurrency: 4, concurrencySource: 'default', embedded: false }, 2);
    expect(p.adaptive).toBe(true);
    expect(p.workers).toBe(ADAPTIVE.workers);
    expect(p.slots).toEqual({ start: ADAPTIVE.start, min: 1, max: ADAPTIVE.max });
    expect(p.describe).toMatch(/adaptive.*--concurrency N/);
  });

  it('keeps a set concurrency (flag or file) and the embedded default fixed, split over the workers', () => {
    const flag = concurrencyPlan({ concurrency: 2, concurrencySource: 'flag', embedded: false }, 2);
    expect(flag).toMatchObject({ adaptive: false, workers: 2, slots: { start: 1 } });
    expect(flag.describe).toMatch(/2 requests in flight \(set by --concurrency\)/);
    const embedded = concurrencyPlan({ concurrency: 8, concurrencySource: 'default', embedded: true }, 2);
    expect(embedded).toMatchObject({ adaptive: false, workers: 2, slots: { start: 4 } });
    // As many threads as cores, at most EMBEDDED.maxWorkers: 8 requests in flight all the same.
    const wide = concurrencyPlan({ concurrency: 8, concurrencySource: 'default', embedded: true }, 16);
    expect(wide).toMatchObject({ workers: EMBEDDED.maxWorkers, slots: { start: 2 } });
    expect(embedded.describe).toMatch(/embedded reference's default/);
    expect(embedded.testsPerWorker).toBeGreaterThan(embedded.slots.start);
  });

  it('--workers fixes the threads and shares the concurrency among them, never exceeding it', () => {
    const one = concurrencyPlan({ concurrency: 6, concurrencySource: 'file', embedded: false }, 2, 1);
    expect(one).toMatchObject({ adaptive: false, workers: 1, slots: { start: 6 } });
    expect(one.describe).toMatch(/6 requests in flight .* over 1 worker thread\(s\) \(--workers\)/);
    // Never more threads than requests in flight; an uneven share rounds down.
    const clamped = concurrencyPlan({ concurrency: 2, concurrencySource: 'flag', embedded: false }, 2, 4);
    expect(clamped).toMatchObject({ workers: 2, slots: { start: 1 } });
    // The first line names the threads the run uses, not the number asked for.
    expect(clamped.describe).toMatch(/over 2 worker thread\(s\) \(--workers\)$/);
    const uneven = concurrencyPlan({ concurrency: 7, concurrencySource: 'flag', embedded: false }, 2, 2);
    expect(uneven.workers * uneven.slots.start).toBeLessThanOrEqual(7);
    expect(uneven.describe).toMatch(/^concurrency: 6 requests in flight/);
    expect(
      concurrencyPlan({ concurrency: 8, concurrencySource: 'default', embedded: true }, 2, 1),
    ).toMatchObject({
      workers: 1,
      slots: { start: 8 },
    });
    // Adaptive: the same totals (4 at the start, up to 16) over the threads asked for.
    const adaptive = concurrencyPlan({ concurrency: 4, concurrencySource: 'default', embedded: false }, 2, 1);
    expect(adaptive).toMatchObject({ adaptive: true, workers: 1, slots: { start: 4, min: 1, max: 16 } });
    expect(adaptive.describe).toMatch(/4 requests in flight at the start, up to 16/);
  });
});
