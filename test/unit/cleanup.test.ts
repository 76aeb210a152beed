/**
 * Bounded cleanup of inputs (src/media-jobs.ts deleteInput): a delete refused because a job holds the input
 * is waited for only while that job progresses. A fake test context answers the requests.
 */
import { describe, expect, it, vi } from 'vitest';
import { deleteInput, pollJob, STALL_POLLS, trackJob } from '../../src/media-jobs.ts';
import type { CheckContext } from '../../src/runtime/check.ts';

/** A context whose deletes answer `deleteStatus` and whose job reads answer `job(readNumber)`. */
function fakeContext(
  deleteStatus: number,
  job: (n: number, path: string) => Record<string, unknown>,
  boundMs = 5_000,
) {
  const calls = { deletes: 0, reads: 0 };
  const t = {
    target: { media: { pollIntervalMs: 5, pollCap: 1_000 }, timeouts: { testMs: 300_000 } },
    cleanupDeadline: Date.now() + boundMs,
    balanceRanOut: undefined,
    request: async () => {
      calls.deletes++;
      return { status: deleteStatus };
    },
    get: async (path: string) => ({
      status: 200,
      headers: {},
      json: { id: 'job_1', ...job(++calls.reads, path) },
    }),
  } as unknown as CheckContext;
  return { t, calls };
}

describe('deleteInput', () => {
  it('is done at once when the delete succeeds', async () => {
    const { t, calls } = fakeContext(204, () => ({ status: 'running' }));
    expect(await deleteInput(t, 'in_1')).toBe(true);
    expect(calls.deletes).toBe(1);
  });

  it('ends at once when the holder is settlement_pending, naming it', async () => {
    const { t, calls } = fakeContext(409, () => ({ status: 'settlement_pending' }));
    trackJob(t, 'job_1', ['in_1']);
    const out = await deleteInput(t, 'in_1');
    expect(out).toMatchObject({ holder: { job: 'job_1', status: 'settlement_pending' } });
    expect(calls.deletes).toBe(2);
    expect(calls.reads).toBeLessThanOrEqual(2);
  });

  it('ends when the holder is unchanged for several reads', async () => {
    const { t, calls } = fakeContext(409, () => ({ status: 'running', progress_percent: 40 }));
    trackJob(t, 'job_1', ['in_1']);
    const out = await deleteInput(t, 'in_1');
    expect(out).toMatchObject({ holder: { status: 'running' } });
    expect((out as { reason: string }).reason).toMatch(/unchanged \(running\) for \d+ reads/);
    expect(calls.reads).toBe(STALL_POLLS + 1);
  });

  it('waits for a holder that progresses, up to the cleanup bound', async () => {
    const started = Date.now();
    const { t } = fakeContext(409, (n) => ({ status: 'running', progress_percent: n % 100 }), 300);
    trackJob(t, 'job_1', ['in_1']);
    const out = await deleteInput(t, 'in_1');
    // The bound ended the wait (bound: true), and not before the bound (a loaded machine only ends it later).
    expect(out).toMatchObject({ bound: true, holder: { job: 'job_1' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('waits on the holder that can still progress, not a newer one that ended', async () => {
    const { t } = fakeContext(
      409,
      (n, path) =>
        path.endsWith('job_old') ? { status: 'running', progress_percent: n % 100 } : { status: 'succeeded' },
      300,
    );
    trackJob(t, 'job_old', ['in_1']);
    trackJob(t, 'job_new', ['in_1']);
    expect(await deleteInput(t, 'in_1')).toMatchObject({
      bound: true,
      holder: { job: 'job_old', status: 'running' },
    });
  });

  it('names the holder whenever the bound ends the wait, however late each step of it runs', async () => {
    // A loaded machine: every look at the clock finds it a little later. The bound may be found passed at
    // any step; the wait still ends naming the job that holds the input.
    const real = Date.now.bind(Date);
    for (let stepMs = 1; stepMs <= 40; stepMs++) {
      let clock = real();
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => (clock += stepMs));
      try {
        const { t } = fakeContext(409, (n) => ({ status: 'running', progress_percent: n % 100 }), 300);
        trackJob(t, 'job_1', ['in_1']);
        const out = await deleteInput(t, 'in_1');
        expect(out, `a step of ${stepMs} ms`).toMatchObject({ bound: true, holder: { job: 'job_1' } });
      } finally {
        spy.mockRestore();
      }
    }
  });

  it('gives up after three refusals when no job of the test references the input', async () => {
    const { t, calls } = fakeContext(409, () => ({ status: 'running' }));
    expect(await deleteInput(t, 'in_1')).toMatchObject({ reason: expect.stringMatching(/3 times/) });
    expect(calls.deletes).toBe(3);
    expect(calls.reads).toBe(0);
  });
});

describe('pollJob, bounded', () => {
  it('ends when the job stops changing', async () => {
    const { t } = fakeContext(409, () => ({ status: 'running', progress_percent: 10 }));
    trackJob(t, 'job_1', []);
    const trace = await pollJob(t, 'job_1', { bounded: true });
    expect(trace.end).toBe('stalled');
  });

  it('without the bound, polls to the cap', async () => {
    const { t, calls } = fakeContext(409, () => ({ status: 'running', progress_percent: 10 }));
    (t.target.media as { pollCap: number }).pollCap = 20;
    trackJob(t, 'job_1', []);
    expect((await pollJob(t, 'job_1')).end).toBe('cap');
    expect(calls.reads).toBe(20);
  });
});

// Last in the file: it raises the worker's longest job time, which the tests above assume small.
describe('stall rule and the jobs of the run', () => {
  it('takes a holder as stalled only once it is unchanged longer than a job of the run took to end', async () => {
    const started = Date.now();
    const { t: first } = fakeContext(409, () =>
      Date.now() - started < 300 ? { status: 'running', progress_percent: null } : { status: 'succeeded' },
    );
    trackJob(first, 'job_1', []);
    expect((await pollJob(first, 'job_1')).end).toBe('until');
    const { t, calls } = fakeContext(409, () => ({ status: 'running', progress_percent: null }));
    trackJob(t, 'job_2', ['in_1']);
    const waitFrom = Date.now();
    const out = await deleteInput(t, 'in_1');
    expect((out as { reason: string }).reason).toMatch(/unchanged \(running\)/);
    // Six reads take ~30 ms at 5 ms polls; the job that ended took ~300 ms.
    expect(calls.reads).toBeGreaterThan(STALL_POLLS + 1);
    expect(Date.now() - waitFrom).toBeGreaterThanOrEqual(250);
  });
});
