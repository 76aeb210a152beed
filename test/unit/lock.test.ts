import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AccountLock, LockTimeout, STALE_LOCK_MS, sweepStaleLocks } from '../../src/runtime/lock.ts';

const root = () => mkdtempSync(join(tmpdir(), 'gc-lock-'));

describe('the account lock (balance checks exclusive, billable tests shared)', () => {
  it('lets shared holders overlap', async () => {
    const lock = new AccountLock('t', root());
    const a = await lock.acquireShared(1000);
    const b = await lock.acquireShared(1000);
    a();
    b();
  });

  it('makes an exclusive taker wait until every shared holder is gone', async () => {
    const r = root();
    const shared = await new AccountLock('t', r).acquireShared(1000);
    const events: string[] = [];
    const exclusive = new AccountLock('t', r).acquireExclusive(5000).then((release) => {
      events.push('exclusive');
      return release;
    });
    await sleep(200);
    events.push('shared released');
    shared();
    (await exclusive)();
    expect(events).toEqual(['shared released', 'exclusive']);
  });

  it('makes shared takers wait while an exclusive holder runs, and exclusive takers queue', async () => {
    const r = root();
    const release = await new AccountLock('t', r).acquireExclusive(1000);
    const events: string[] = [];
    const shared = new AccountLock('t', r).acquireShared(5000).then((rel) => {
      events.push('shared');
      rel();
    });
    const second = new AccountLock('t', r).acquireExclusive(5000).then((rel) => {
      events.push('second exclusive');
      rel();
    });
    await sleep(200);
    events.push('first released');
    release();
    await Promise.all([shared, second]);
    expect(events[0]).toBe('first released');
    expect(events).toHaveLength(3);
  });

  it('times out with LockTimeout instead of waiting forever', async () => {
    const r = root();
    const release = await new AccountLock('t', r).acquireExclusive(1000);
    await expect(new AccountLock('t', r).acquireShared(150)).rejects.toBeInstanceOf(LockTimeout);
    await expect(new AccountLock('t', r).acquireExclusive(150)).rejects.toBeInstanceOf(LockTimeout);
    release();
  });

  it('ignores holders whose process is gone (a crashed shard)', async () => {
    const r = root();
    const lock = new AccountLock('t', r);
    const dead = 2 ** 22 + 12345; // above Linux's default pid_max: never a live process
    mkdirSync(join(lock.dir, 'exclusive'), { recursive: true });
    writeFileSync(join(lock.dir, 'exclusive', 'pid'), String(dead));
    writeFileSync(join(lock.dir, 'shared', `${dead}-x`), '');
    const release = await lock.acquireExclusive(1000);
    release();
  });

  it('keeps different targets apart', async () => {
    const r = root();
    const a = await new AccountLock('target a', r).acquireExclusive(500);
    const b = await new AccountLock('target b', r).acquireExclusive(500);
    a();
    b();
  });
});

describe('one run per report directory (its workers read run.json there)', () => {
  it('refuses a second run of the same directory with the remedy, and takes it again once released', async () => {
    const { ownReportDir } = await import('../../src/app/run.ts');
    const { UsageError } = await import('../../src/errors.ts');
    const r = root();
    const release = await ownReportDir('/reports/staging/one', r);
    const second = ownReportDir('/reports/staging/one', r);
    await expect(second).rejects.toBeInstanceOf(UsageError);
    await expect(second).rejects.toThrow(
      /in use by another run on this machine: give each run .* its own --report-dir/,
    );
    // Another directory is another run's own.
    (await ownReportDir('/reports/staging/two', r))();
    release();
    (await ownReportDir('/reports/staging/one', r))();
  });

  it('takes at once a directory whose last run was killed (SIGKILL: its lock names a dead process)', async () => {
    const { ownReportDir } = await import('../../src/app/run.ts');
    const r = root();
    const lock = new AccountLock('report directory /reports/killed', r);
    mkdirSync(join(lock.dir, 'exclusive'));
    writeFileSync(join(lock.dir, 'exclusive', 'pid'), String(2 ** 31 - 2));
    (await ownReportDir('/reports/killed', r))();
    // A live holder's is still refused.
    const release = await ownReportDir('/reports/killed', r);
    await expect(ownReportDir('/reports/killed', r)).rejects.toThrow(/in use by another run/);
    release();
  });

  it('sweeps the lock directories no live process holds and nobody touched for an hour, at most once an hour', async () => {
    const r = root();
    const old = (Date.now() - 2 * STALE_LOCK_MS) / 1000;
    const make = (name: string, holder?: number, stale = true) => {
      const dir = join(r, name);
      mkdirSync(join(dir, 'shared'), { recursive: true });
      if (holder !== undefined) writeFileSync(join(dir, 'shared', `${holder}-x`), '');
      if (stale) for (const d of [join(dir, 'shared'), dir]) utimesSync(d, old, old);
    };
    make('stale-empty');
    make('stale-dead-holder', 2 ** 31 - 2);
    make('stale-live-holder', process.pid);
    make('fresh-empty', undefined, false);
    expect(sweepStaleLocks(r)).toBe(2);
    expect(readdirSync(r).sort()).toEqual(['.swept', 'fresh-empty', 'stale-live-holder']);
    // Within the hour the marker stops another sweep.
    make('stale-again');
    expect(sweepStaleLocks(r)).toBe(0);
    expect(existsSync(join(r, 'stale-again'))).toBe(true);
    // A lock whose directory a sweep removed after it was made takes it again.
    const lock = new AccountLock('swept', r);
    rmSync(lock.dir, { recursive: true, force: true });
    (await lock.acquireShared(1000))();
    rmSync(lock.dir, { recursive: true, force: true });
    (await lock.acquireExclusive(1000))();
  });
});
