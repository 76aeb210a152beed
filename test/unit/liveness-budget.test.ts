import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/http/client.ts';
import { REPORT_FILES } from '../../src/report/layout.ts';
import {
  admission,
  blockedByInFlight,
  type RunBudget,
  readSpend,
  spendOf,
  spentPoints,
} from '../../src/runtime/budget.ts';
import {
  DEAD_AFTER,
  deadSignal,
  deadTarget,
  GIVEN_UP,
  noteAnswer,
  STREAK_CHANNEL,
  STREAK_FILE,
} from '../../src/runtime/liveness.ts';

const SPEND_FILE = REPORT_FILES.spend.name;

/** A report directory whose spend file holds these replies (points by model). */
function spent(entries: Array<[string, string]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-control-'));
  entries.forEach(([model, points], i) => {
    appendFileSync(
      join(dir, SPEND_FILE),
      `${JSON.stringify({ exchange: `e${i}`, path: '/v1/media/jobs', points, model })}\n`,
    );
  });
  return dir;
}

const budget = (points: string): RunBudget => ({ points, source: '--budget-points', kind: 'budget' });

describe('budget admission', () => {
  it('sums the spend of every worker: total, costliest reply, models bought', () => {
    const s = spendOf(
      spent([
        ['a', '1.5'],
        ['b', '3.125'],
        ['a', '0.75'],
      ]),
    );
    expect(s.total.toString()).toBe('5.375');
    expect(s.max.toString()).toBe('3.125');
    expect([...s.models].sort()).toEqual(['a', 'b']);
  });

  it('admits nothing billable with a budget of 0, and stops at the budget', () => {
    expect(admission(spent([]), budget('0'))?.reason).toMatch(/points budget of 0 \(--budget-points\)/);
    expect(admission(spent([['a', '10']]), budget('10'))?.reason).toMatch(/points budget reached: 10 of 10/);
    expect(admission(spent([['a', '9']]), budget('10'))).toBeUndefined();
    expect(admission(spent([['a', '9']]), undefined)).toBeUndefined();
  });

  it("keeps a quarter of the budget from a test's second job and from dear jobs, for other tests' cheap first jobs", () => {
    // 100 points spent 2 a job: a test's first job of 2 runs up to 98 (the refusal reserve is
    // min(10, 2) = 2); its second job (bulk) only up to 100 - 2 - 25 = 73.
    const b = budget('100');
    const bulk = (model: string) => ({ model, bulk: true });
    const at = (n: number) => spent(Array.from({ length: n }, () => ['a', '2'] as [string, string]));
    expect(admission(at(30), b, 'a')).toBeUndefined();
    expect(admission(at(36), b, bulk('a'))?.reason).toMatch(
      /a test's job after its first \(a\) would eat into the last 27 of 100 points, kept for other tests' first jobs/,
    );
    expect(admission(at(35), b, bulk('a'))).toBeUndefined();
    expect(admission(at(35), b, 'c')).toBeUndefined();
    // A dear job (more than 5% of the budget: 6 here) is held back like a second job.
    const dear = { model: 'v', path: '/v1/media/jobs', predicted: new Decimal('6') };
    expect(admission(at(34), b, dear)?.reason).toMatch(
      /a job of v likely to cost 6 points, more than 5% of the budget, would eat into the last 27 of 100 points/,
    );
    expect(admission(at(33), b, dear)).toBeUndefined();
    // The reserves hold back only what would eat into them: an embeddings call, priced by the dearest
    // embeddings reply (0.0000002), runs at any spend below the budget.
    const tight = at(49);
    appendFileSync(
      join(tight, SPEND_FILE),
      `${JSON.stringify({ exchange: 'emb', path: '/v1/embeddings', points: '0.0000002', model: 'emb' })}\n`,
    );
    expect(admission(tight, b, { model: 'emb', path: '/v1/embeddings' })).toBeUndefined();
    expect(admission(tight, b, { model: 'a', path: '/v1/media/jobs' })?.reason).toMatch(
      /kept for the requests the contract refuses and the text calls/,
    );
  });

  it('says the balance ran out when the budget is the available balance', () => {
    expect(admission(spent([['a', '50.5']]), { ...budget('50'), kind: 'balance' })?.reason).toMatch(
      /^the account's balance ran out: 50.5 of the 50 points available before the run spent/,
    );
  });

  it('gives every refusal on one ground one subject, whatever the model and the figures', () => {
    // The not-run lines are grouped by subject: one line per ground, not one per model or per total.
    const b = budget('100');
    const tight = spent(Array.from({ length: 37 }, () => ['a', '2'] as [string, string]));
    const both = spent([...Array.from({ length: 36 }, () => ['a', '2'] as [string, string]), ['b', '2.5']]);
    const onA = admission(tight, b, { model: 'a', bulk: true });
    const onB = admission(both, b, { model: 'b', bulk: true });
    expect(onA?.reason).not.toBe(onB?.reason);
    expect(onA?.subject).toBe(onB?.subject);
    const reached = [spent([['a', '100']]), spent([['a', '101.5']])].map((d) =>
      admission(d, b, { model: 'a', bulk: true }),
    );
    expect(reached[0]?.reason).not.toBe(reached[1]?.reason);
    expect(reached[0]?.subject).toBe(reached[1]?.subject);
  });
});

describe('the no-answer streak across worker threads', () => {
  /** Another thread of the run counts `n` no-answers: appends them and says so on the channel. */
  async function otherThreadCounts(dir: string, n: number): Promise<void> {
    const code = `
      const { appendFileSync } = require('node:fs');
      const { BroadcastChannel, workerData } = require('node:worker_threads');
      appendFileSync(workerData.file, 'x'.repeat(workerData.n));
      const ch = new BroadcastChannel(workerData.channel);
      ch.postMessage(workerData.dir);
      ch.close();`;
    const w = new Worker(code, {
      eval: true,
      workerData: { file: join(dir, STREAK_FILE), n, dir, channel: STREAK_CHANNEL },
    });
    await new Promise((resolve, reject) => w.once('exit', resolve).once('error', reject));
  }

  it('an answer in a thread that knows the streak is 0 reads and writes no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-streak-'));
    noteAnswer(dir, true);
    // Bytes this thread was never told about (no message): an answer leaves them alone.
    writeFileSync(join(dir, STREAK_FILE), 'xxx');
    for (let i = 0; i < 100; i++) noteAnswer(dir, true);
    expect(readFileSync(join(dir, STREAK_FILE), 'utf8')).toBe('xxx');
  });

  it("another thread's no-answers make this thread's next answer reset the streak", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-streak-'));
    noteAnswer(dir, true);
    await otherThreadCounts(dir, DEAD_AFTER - 1);
    // The message arrives within a few event-loop turns: bounded wait.
    for (let i = 0; i < 100 && readFileSync(join(dir, STREAK_FILE), 'utf8') !== ''; i++) {
      await sleep(20);
      noteAnswer(dir, true);
    }
    expect(readFileSync(join(dir, STREAK_FILE), 'utf8')).toBe('');
    noteAnswer(dir, false, 'GET /v1/models: timeout');
    expect(deadTarget(dir)).toBeUndefined();
  });

  it('no-answers of every thread add up to a dead target', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-streak-'));
    noteAnswer(dir, true);
    await otherThreadCounts(dir, DEAD_AFTER - 1);
    // The requests of this thread still in flight to the target are ended at once, with their own code.
    const inFlight = deadSignal(dir);
    expect(inFlight.aborted).toBe(false);
    noteAnswer(dir, false, 'GET /v1/models: timeout');
    expect(deadTarget(dir)).toMatch(/^the target stopped answering: 5 requests in a row got no answer/);
    expect(inFlight.aborted).toBe(true);
    expect((inFlight.reason as { code?: string }).code).toBe(GIVEN_UP);
    // A request that starts later (another test of this thread) is ended before it is sent.
    expect(deadSignal(dir).aborted).toBe(true);
  });

  it('a thread that starts after other threads counted no-answers reads the streak once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-streak-'));
    writeFileSync(join(dir, STREAK_FILE), 'xx');
    noteAnswer(dir, true);
    expect(readFileSync(join(dir, STREAK_FILE), 'utf8')).toBe('');
  });
});

describe('admission that predicts (issue 23)', () => {
  /** A report directory whose spend file holds these lines as they are. */
  function lines(entries: object[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'gc-control-'));
    for (const e of entries) appendFileSync(join(dir, SPEND_FILE), `${JSON.stringify(e)}\n`);
    return dir;
  }
  const job = (model: string, points: string, seconds?: number) => ({
    exchange: `e-${model}-${points}-${seconds}`,
    path: '/v1/media/jobs',
    points,
    model,
    ...(seconds ? { seconds } : {}),
  });

  it('predicts per second once two durations show the price follows duration, flat once they show it does not', () => {
    const timed = spendOf(lines([job('wc-100014', '14', 4), job('wc-100014', '35', 10)])).prices;
    expect(timed.predict('wc-100014', 30)?.toString()).toBe('105');
    expect(timed.learned()['wc-100014']).toMatchObject({ points: '14', seconds: 4, follows: 'duration' });
    const flat = spendOf(lines([job('wc-100014', '3', 4), job('wc-100014', '3', 10)])).prices;
    expect(flat.predict('wc-100014', 30)?.toString()).toBe('3');
    expect(flat.learned()['wc-100014']).toMatchObject({ follows: 'flat' });
    expect(flat.learned()['wc-100014']?.perSecond).toBeUndefined();
    // One duration seen: the larger of per second and the costliest job (the budget errs on the safe side).
    const once = spendOf(lines([job('wc-100014', '14', 4)])).prices;
    expect(once.predict('wc-100014', 30)?.toString()).toBe('105');
    expect(once.predict('wc-100014', 2)?.toString()).toBe('14');
  });

  it('predicts a model not bought yet from the costliest of its output kind; nothing when none was bought', () => {
    const p = spendOf(lines([job('wc-100010', '0.75'), job('wc-100014', '14', 4)])).prices;
    // wc-100016 is a video model: priced like the video bought, not like the image.
    expect(p.predict('wc-100016', 8)?.toString()).toBe('28');
    expect(p.predict('wc-100011')?.toString()).toBe('0.75');
    expect(spendOf(lines([])).prices.predict('wc-100010')).toBeUndefined();
    // An estimated line (an unreadable reply counted at the learned price) teaches no price.
    const est = lines([{ ...job('wc-100010', '9'), estimated: true }]);
    expect(spendOf(est).prices.predict('wc-100010')).toBeUndefined();
    expect(spentPoints(est).toString()).toBe('9');
    // A balance read after it says otherwise: the estimate no longer counts.
    appendFileSync(join(est, SPEND_FILE), `${JSON.stringify({ balance: '0.75' })}\n`);
    expect(spentPoints(est).toString()).toBe('0.75');
  });

  it('does not start a job the rest of the budget cannot hold, counting the holds of requests in flight before it', () => {
    const b = budget('100');
    const dir = lines([job('wc-100014', '80', 4)]);
    // A request the contract refuses (it spends nothing on a conformant target) may use the whole rest.
    const refused = { model: 'wc-100014', refusal: true };
    expect(admission(dir, b, { ...refused, predicted: new Decimal('20') })).toBeUndefined();
    expect(admission(dir, b, { ...refused, predicted: new Decimal('20.5') })?.reason).toMatch(
      /a job of wc-100014 is predicted to hold 20.5 points and 20 of 100 are left/,
    );
    // Two requests in flight: the first reservation counts against the second, not the other way round;
    // the second waits for the first (blockedByInFlight) rather than not running.
    appendFileSync(join(dir, SPEND_FILE), `${JSON.stringify({ reserve: 'r1', points: '15' })}\n`);
    appendFileSync(join(dir, SPEND_FILE), `${JSON.stringify({ reserve: 'r2', points: '15' })}\n`);
    const first = { ...refused, predicted: new Decimal('15'), reservation: 'r1' };
    const second = { ...first, reservation: 'r2' };
    expect(admission(dir, b, first)).toBeUndefined();
    expect(admission(dir, b, second)?.reason).toMatch(/15 held by requests in flight/);
    expect([blockedByInFlight(dir, b, first), blockedByInFlight(dir, b, second)]).toEqual([false, true]);
    appendFileSync(join(dir, SPEND_FILE), `${JSON.stringify({ release: 'r1' })}\n`);
    expect(admission(dir, b, second)).toBeUndefined();
    expect(blockedByInFlight(dir, b, second)).toBe(false);
  });

  it('keeps the last tenth of the budget (at most the dearest reply) from media purchases, for refusals and text calls', () => {
    const b = budget('100');
    const dir = lines([job('wc-100014', '80', 4)]);
    // A purchase of 15 fits the 20 left but eats into the 10 kept (min(10% of 100, 80)): it waits, one of 10 runs.
    const buy = { model: 'wc-100014', path: '/v1/media/jobs' };
    expect(admission(dir, b, { ...buy, predicted: new Decimal('15') })?.reason).toMatch(
      /a job of wc-100014 would eat into the last 10 of 100 points, kept for the requests the contract refuses and the text calls/,
    );
    expect(admission(dir, b, { ...buy, predicted: new Decimal('4') })).toBeUndefined();
    // The same request the contract refuses, and a text call, go by the budget alone.
    expect(admission(dir, b, { ...buy, predicted: new Decimal('15'), refusal: true })).toBeUndefined();
    expect(admission(dir, b, { model: 'chat', path: '/v1/chat/completions' })).toBeUndefined();
    // A test's second job and later (bulk) leave a quarter more to other tests' first jobs: 25 + 10 kept.
    const early = lines([job('wc-100014', '60', 4)]);
    expect(admission(early, b, { ...buy, predicted: new Decimal('5') })).toBeUndefined();
    expect(admission(early, b, { ...buy, predicted: new Decimal('10'), bulk: true })?.reason).toMatch(
      /a test's job after its first \(wc-100014\) would eat into the last 35 of 100 points/,
    );
    expect(admission(early, b, { ...buy, predicted: new Decimal('5'), bulk: true })).toBeUndefined();
    // Nothing bought yet: no price seen, no refusal reserve; a dear job (--prices) still leaves a quarter.
    expect(admission(lines([]), b, { ...buy, predicted: new Decimal('75') })).toBeUndefined();
    expect(admission(lines([]), b, { ...buy, predicted: new Decimal('75.5') })).toBeDefined();
  });

  it('goes by the balance where it measured more than the replies reported, replies after the read added', () => {
    const dir = lines([job('wc-100010', '1'), { balance: '40' }, job('wc-100010', '1')]);
    const s = spendOf(dir);
    expect([s.total.toString(), s.measured?.toString(), s.sinceBalance]).toEqual(['2', '41', 1]);
    expect(admission(dir, budget('41'))?.reason).toMatch(/points budget reached: 41 of 41/);
    expect(admission(dir, budget('42'))).toBeUndefined();
  });
});

describe('readSpend of a streamed reply', () => {
  const streamed = (mediaType: string, text: string) =>
    ({
      method: 'POST',
      status: 200,
      rawPath: '/v1/chat/completions',
      mediaType,
      json: undefined,
      text,
      headers: {},
      body: Buffer.from(text),
      exchange: { id: 'ex-1' },
    }) as unknown as HttpResponse;

  it('counts the largest charge one event reports (server-sent events)', () => {
    const text = [
      'data: {"choices":[{"delta":{"content":"a"}}]}',
      '',
      'data: {"billing":{"charged_points":"0.5"}}',
      '',
      'data: {"billing":{"charged_points":"1.25"}}',
      '',
      'data: [DONE]',
      '',
    ].join('\n');
    const s = readSpend(streamed('text/event-stream', text));
    expect(s?.readable).toBe(true);
    expect(s?.points.toString()).toBe('1.25');
  });

  it('counts one JSON object per line (NDJSON) the same way', () => {
    const text = '{"delta":"a"}\n{"usage":{"charged_points":"2"},"billing":{"pending_points":"0.5"}}\n';
    expect(readSpend(streamed('application/x-ndjson', text))?.points.toString()).toBe('2.5');
  });

  it('leaves a stream that reports no charge to the balance reads (not unreadable: not distrust)', () => {
    expect(
      readSpend(streamed('text/event-stream', 'data: {"delta":"a"}\n\ndata: [DONE]\n\n')),
    ).toBeUndefined();
  });
});
