/**
 * Acceptance test of issue 23 item 1: a transient connection failure is not a verdict. The reference's
 * variant keepalive-close-on-reuse closes every 4th request that reuses a kept-alive connection without a
 * byte of reply (a load balancer's idle close meeting the client's reuse): conformant, so a run against it
 * passes; the requests it cut were repeated once on a fresh connection and counted per test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import { type RefTarget, refTarget, targetArgs } from '../tools/ref-target.ts';
import { runCli } from './helpers.ts';

let ref: RefTarget;
beforeAll(async () => {
  ref = await refTarget({ variant: 'keepalive-close-on-reuse' });
});
afterAll(() => ref?.close());

describe('a kept-alive connection closed as the client reuses it', { timeout: HANG_BOUND_MS }, () => {
  it('a read-only run passes: every cut request was repeated on a fresh connection, none failed', async () => {
    const report = join(ref.dir, 'report');
    const run = await runCli(
      [...targetArgs(ref), '--allow', 'read', '--report-dir', report],
      ref.env,
      HANG_BOUND_MS,
    );
    const s = JSON.parse(readFileSync(join(report, 'summary.json'), 'utf8')) as Summary;
    expect(run.code, run.stdout.slice(-3000)).toBe(0);
    expect(s.verdict).toBe('passed');
    expect([s.counts.failed, s.counts.inconclusive, s.counts.harness_error]).toEqual([0, 0, 0]);
    // The race did happen, and was absorbed: the repeats are counted per test, and each names the lost attempt.
    const retried = s.tests.filter((t) => (t.retried ?? 0) > 0);
    expect(retried.length).toBeGreaterThan(0);
    const exchanges = readFileSync(join(report, 'exchanges.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { retryOf?: { code: string }; test?: string });
    const repeats = exchanges.filter((e) => e.retryOf);
    // The run's own requests (the preflight, the balance reads around the suites: `preflight`) are
    // repeated alike but belong to no test: the tests count their own (CI once cut a closing balance read).
    const inTests = repeats.filter((e) => e.test !== 'preflight');
    expect(inTests.length).toBe(s.tests.reduce((n, t) => n + (t.retried ?? 0), 0));
    expect(new Set(repeats.map((e) => e.retryOf?.code))).toEqual(new Set(['UND_ERR_SOCKET']));
    expect(run.stdout).toMatch(/connection failures repeated on a fresh connection: \d+ request\(s\)/);
  });
});
