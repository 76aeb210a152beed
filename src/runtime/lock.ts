/**
 * An account lock across the worker threads and the shards of one run on one machine: tests that
 * compare a balance before and after take it exclusively; every billable test takes it shared (it may
 * move a balance). One lock per account (accountLockKey): the balance checks on the isolated account
 * wait for each other only, never for the billable tests of the primary account. (The same lock makes
 * one run the owner of its report directory: src/app/run.ts ownReportDir.) Why files: shards are
 * separate processes, and mkdir / unlink are atomic. A holder that died (its pid is gone) no longer
 * counts. Shards on different machines cannot share it: run the balance-comparing `*.serial` tests in
 * one shard only there, or declare `shared_account: true` (which the isolated account's ignore).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 50;

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The lock's name for the account a key speaks for: the deployment and a digest of the key (a key is
 * what a client knows of an account; two keys of one account are two locks, which the roles' definitions
 * rule out for the ones that lock). Never the key itself: the name becomes a directory's (hashed again).
 */
export function accountLockKey(baseUrl: string, key: string): string {
  return `${baseUrl} key-sha256:${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** A lock directory untouched this long, with no live holder, is removed by the next run's sweep. */
export const STALE_LOCK_MS = 60 * 60 * 1000;
const SWEPT = '.swept';
/** At most this many removed per sweep (a few tenths of a second); a sweep that reached it lets the next run go on. */
export const SWEEP_MAX = 500;

/** A file's modification time in ms, or undefined when it is gone. */
function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Removes the lock directories of `root` that no live process holds and that nobody touched for
 * STALE_LOCK_MS: every embedded run has fresh keys, so each leaves one (thousands on a developer's
 * machine). At most once an hour per root, whichever process comes first (the `.swept` marker), and at
 * most SWEEP_MAX directories a time (the next run goes on where a full sweep stopped); a lock
 * taken on a directory removed meanwhile makes it again (acquireShared, acquireExclusive).
 */
export function sweepStaleLocks(root: string, now = Date.now()): number {
  const marker = join(root, SWEPT);
  const last = mtimeOf(marker);
  if (last !== undefined && now - last < STALE_LOCK_MS) return 0;
  try {
    mkdirSync(root, { recursive: true });
    writeFileSync(marker, '');
    utimesSync(marker, now / 1000, now / 1000);
  } catch {
    return 0; // a root we cannot write: no sweep
  }
  let removed = 0;
  for (const name of readdirSync(root)) {
    if (name === SWEPT) continue;
    const dir = join(root, name);
    const touched = Math.max(mtimeOf(dir) ?? now, mtimeOf(join(dir, 'shared')) ?? 0);
    if (now - touched < STALE_LOCK_MS) continue;
    let held = false;
    try {
      held = readdirSync(join(dir, 'shared')).some((f) => alive(Number(f.split('-')[0])));
      const pid = readFileSync(join(dir, 'exclusive', 'pid'), 'utf8');
      held ||= alive(Number(pid));
    } catch {
      // no shared or exclusive part: nothing holds it there
    }
    if (held) continue;
    rmSync(dir, { recursive: true, force: true });
    if (++removed >= SWEEP_MAX) {
      rmSync(marker, { force: true });
      break;
    }
  }
  return removed;
}

export class AccountLock {
  readonly dir: string;
  private readonly sharedDir: string;
  private readonly exclusiveDir: string;

  constructor(key: string, root = join(tmpdir(), 'gateway-conformance-locks')) {
    this.dir = join(root, createHash('sha256').update(key).digest('hex').slice(0, 20));
    this.sharedDir = join(this.dir, 'shared');
    this.exclusiveDir = join(this.dir, 'exclusive');
    sweepStaleLocks(root);
    mkdirSync(this.sharedDir, { recursive: true });
  }

  /** Writes a holder's file, making the directories again if a sweep removed them meanwhile. */
  private announce(file: string): void {
    try {
      writeFileSync(file, '');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(this.sharedDir, { recursive: true });
      writeFileSync(file, '');
    }
  }

  private exclusiveHeld(): boolean {
    if (!existsSync(this.exclusiveDir)) return false;
    let pid = Number.NaN;
    try {
      pid = Number(readFileSync(join(this.exclusiveDir, 'pid'), 'utf8'));
    } catch {
      return true; // being created right now
    }
    if (alive(pid)) return true;
    rmSync(this.exclusiveDir, { recursive: true, force: true });
    return false;
  }

  private sharedHolders(): number {
    let n = 0;
    if (!existsSync(this.sharedDir)) return 0;
    for (const f of readdirSync(this.sharedDir)) {
      const pid = Number(f.split('-')[0]);
      if (alive(pid)) n++;
      else rmSync(join(this.sharedDir, f), { force: true });
    }
    return n;
  }

  /** Take the lock shared (waits while an exclusive holder runs), at most `waitMs`; returns the release. */
  async acquireShared(waitMs: number): Promise<() => void> {
    const mine = join(this.sharedDir, `${process.pid}-${randomUUID()}`);
    const until = Date.now() + waitMs;
    for (;;) {
      // Announce first, then look: an exclusive taker that announced meanwhile sees us and waits.
      this.announce(mine);
      if (!this.exclusiveHeld()) break;
      rmSync(mine, { force: true });
      if (Date.now() > until)
        throw new LockTimeout(`the account was held exclusively for more than ${waitMs} ms`);
      await sleep(POLL_MS);
    }
    return () => rmSync(mine, { force: true });
  }

  /** Take the lock alone (no other exclusive or shared holder), at most `waitMs`; returns the release. */
  async acquireExclusive(waitMs: number): Promise<() => void> {
    const until = Date.now() + waitMs;
    // A dead holder's lock (a run killed with SIGKILL) is cleared and taken at once, whatever waitMs: a
    // few times at most, so that a lock that cannot be removed waits like a live one.
    let cleared = 0;
    for (;;) {
      try {
        mkdirSync(this.exclusiveDir);
        writeFileSync(join(this.exclusiveDir, 'pid'), String(process.pid));
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // ENOENT: a sweep removed the lock's directory meanwhile (its exclusive part never made).
        if (code === 'ENOENT') {
          mkdirSync(this.sharedDir, { recursive: true });
          continue;
        }
        if (code !== 'EEXIST') throw err;
        if (!this.exclusiveHeld() && cleared++ < 3) continue; // clears a dead holder's lock
      }
      if (Date.now() > until)
        throw new LockTimeout(`another test kept the account exclusively for more than ${waitMs} ms`);
      await sleep(POLL_MS);
    }
    const release = () => rmSync(this.exclusiveDir, { recursive: true, force: true });
    while (this.sharedHolders() > 0) {
      if (Date.now() > until) {
        release();
        throw new LockTimeout(`billable tests kept the account busy for more than ${waitMs} ms`);
      }
      await sleep(POLL_MS);
    }
    return release;
  }
}

export class LockTimeout extends Error {
  override name = 'LockTimeout';
}
