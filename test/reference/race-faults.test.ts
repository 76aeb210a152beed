import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { atOnce, distinct, jobBody, keyed } from '../../reference/faults/probe.ts';
import { RACE_FAULTS } from '../../reference/faults/race.ts';
import { call, referencePool } from './helpers.ts';
import { createJob, inputId, upload } from './media-helpers.ts';
import { callUsageCount, chat, probe } from './probe-kit.ts';

const pool = referencePool();
const start = (opts: Parameters<typeof pool>[0] = {}) => pool({ mediaStepMs: 40, ...opts });
const usageCount = callUsageCount;

const RACES = [
  'race-job-double',
  'race-chat-double',
  'race-upload-double',
  'race-upload-coalesce',
  'race-delete-vs-job',
  'race-ledger-skip',
];

describe('race faults', () => {
  test.for(RACES)(
    '%s shows only when the requests overlap: one after another, all is conformant',
    async (fault) => {
      const ref = await start({ fault });
      // The same work as the probes, but each request waits for the one before (chats first: media
      // jobs add ledger entries when they settle).
      const ledger = async () =>
        (await call(ref, '/v1/ledger', { role: 'primary' })).body.data.length as number;
      const entries = await ledger();
      await chat(ref, {}, keyed('seq-ledger-1'));
      await chat(ref, {}, keyed('seq-ledger-2'));
      expect((await ledger()) - entries).toBe(2);
      const jobs = [
        await createJob(ref, jobBody('wc-100010'), keyed('seq-job')),
        await createJob(ref, jobBody('wc-100010'), keyed('seq-job')),
      ];
      expect(distinct(jobs.map((j) => j.body.id))).toBe(1);
      const before = await usageCount(ref);
      await chat(ref, {}, keyed('seq-chat'));
      await chat(ref, {}, keyed('seq-chat'));
      expect((await usageCount(ref)) - before).toBe(1);
      const inputs = [
        await upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': 'seq-upload' } }),
        await upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': 'seq-upload' } }),
      ];
      expect(distinct(inputs.map((u) => u.body.input.id))).toBe(1);
      const id = await inputId(ref);
      expect((await createJob(ref, jobBody('wc-100011', [id]))).status).toBe(201);
      expect((await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status).toBe(
        409,
      );
    },
  );

  test('the delay window is configurable (--race-window-ms)', async () => {
    const ref = await start({ fault: 'race-chat-double', raceWindowMs: 5 });
    const started = Date.now();
    await chat(ref, {}, keyed('window-5'));
    const quick = Date.now() - started;
    const slow = await start({ fault: 'race-chat-double', raceWindowMs: 3_000 });
    const t0 = Date.now();
    await chat(slow, {}, keyed('window-3000'));
    const slowMs = Date.now() - t0;
    expect(slowMs).toBeGreaterThanOrEqual(3_000);
    // The same request on the same machine, only the window differs: the 5 ms one is the quicker (by
    // seconds: a loaded machine slows both alike, it does not add 3 s to one request).
    expect(quick).toBeLessThan(slowMs);
  });

  test('the conformant reference serves requests sent at once with one key as one', async () => {
    const ref = await start();
    const jobs = await atOnce(4, () => createJob(ref, jobBody('wc-100010'), keyed('once-job')));
    expect(distinct(jobs.map((j) => j.body.id))).toBe(1);
    const inputs = await atOnce(4, () =>
      upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': 'once-upload' } }),
    );
    expect(distinct(inputs.map((u) => u.body.input.id))).toBe(1);
    const before = await usageCount(ref);
    await atOnce(4, () => chat(ref, {}, keyed('once-chat')));
    expect((await usageCount(ref)) - before).toBe(1);
    for (const fault of RACE_FAULTS) expect(await probe(fault, await start())).toBe(false);
  });
});

describe('bin/reference.mjs --race-window-ms', () => {
  const BIN = fileURLToPath(new URL('../../bin/reference.mjs', import.meta.url));
  test('is listed in --help and checked', () => {
    const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/--race-window-ms N/);
    for (const fault of RACES) expect(help.stdout).toContain(fault);
    const bad = spawnSync(process.execPath, [BIN, '--race-window-ms', 'x'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--race-window-ms must be an integer/);
  });
});
