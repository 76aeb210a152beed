/**
 * Where the balance checks run (src/app/suites.ts balanceChecks, suiteProjects; runtime/account.ts) and
 * the account lock's name per account (src/runtime/lock.ts accountLockKey): alone after the other files
 * without an `isolated` key, exactly as before it existed; beside them on the isolated account with one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { balanceChecks, suiteProjects } from '../../src/app/suites.ts';
import { pkgPath } from '../../src/paths.ts';
import { accountOf, runsAlone } from '../../src/runtime/account.ts';
import { AccountLock, accountLockKey } from '../../src/runtime/lock.ts';

const experimental = { fsModuleCache: false, fsModuleCachePath: '/nowhere' };
/** The balance checks of the primary account, as their files declare them (`@conformance isolated-account`). */
const MOVABLE = [
  'suites/points/records.serial.test.ts',
  'suites/points/settlement.serial.test.ts',
  'suites/stateful/account.serial.test.ts',
];
/** The serial files that stay alone after the others with an isolated key (another account's balance, payments). */
const ALONE_WITH_ISOLATED = [
  'suites/accounts/enterprise.serial.test.ts',
  'suites/payments/order.serial.test.ts',
  'suites/points/records-accounts.serial.test.ts',
];

describe('where the balance checks run', () => {
  it('without an isolated key: every serial file runs alone after the others, on the primary account', () => {
    const b = balanceChecks({ keys: { primary: 'K' } });
    expect(b).toMatchObject({ on: 'serial', files: [] });
    expect(b.after).toEqual([...ALONE_WITH_ISOLATED, ...MOVABLE].sort());
    expect(b.line).toMatch(
      /^balance checks: serial, after the other files \(a target key of role 'isolated'/,
    );
    for (const f of b.after) {
      expect(runsAlone(pkgPath(f), undefined)).toBe(true);
      expect(accountOf(pkgPath(f), undefined)).toBe('primary');
    }
    expect(runsAlone(pkgPath('suites/chat/basic.test.ts'), undefined)).toBe(false);
  });

  it('one project for every file: no group or project of its own for any (their threads would load the modules again)', () => {
    const projects = suiteProjects(16, experimental);
    expect(projects).toHaveLength(1);
    const [suites] = projects.map((p) => p.test as Record<string, unknown>);
    expect(suites).toMatchObject({
      include: ['suites/**/*.test.ts'],
      pool: 'threads',
      isolate: false,
      maxConcurrency: 16,
    });
    expect(suites).not.toHaveProperty('exclude');
    expect(suites).not.toHaveProperty('sequence');
    expect(suites).not.toHaveProperty('provide');
  });

  it('with an isolated key: the marked serial files beside the others, on the isolated account', () => {
    const b = balanceChecks({ keys: { primary: 'K', isolated: 'I' } });
    expect(b.on).toBe('isolated');
    // The suite's own files: the primary account's balance checks move; another account's (enterprise,
    // the quota), and payments, stay serial.
    expect(b.files).toEqual(MOVABLE);
    expect(b.after).toEqual(ALONE_WITH_ISOLATED);
    expect(b.line).toBe(
      "balance checks: on the isolated account, beside the other files (3 file(s) of the primary account's balance checks; the other serial files after them)",
    );
    // Their tests speak for the isolated account, beside the others; every other file's for the primary one.
    for (const f of MOVABLE) {
      expect(accountOf(pkgPath(f), b.files)).toBe('isolated');
      expect(runsAlone(pkgPath(f), b.files)).toBe(false);
    }
    for (const f of b.after) expect(runsAlone(pkgPath(f), b.files)).toBe(true);
    for (const f of [...b.after, 'suites/chat/basic.test.ts'])
      expect(accountOf(pkgPath(f), b.files)).toBe('primary');
    expect(accountOf(pkgPath(MOVABLE[0]!), undefined)).toBe('primary');
  });

  it('moves only serial files that declare it, and stays serial when none does', () => {
    const hints = (f: string) => ({ isolatedAccount: f.includes('marked') });
    const files = [
      'suites/a/marked.test.ts',
      'suites/a/marked.serial.test.ts',
      'suites/a/other.serial.test.ts',
    ];
    const keys = { primary: 'K', isolated: 'I' };
    expect(balanceChecks({ keys }, files, hints).files).toEqual(['suites/a/marked.serial.test.ts']);
    expect(balanceChecks({ keys }, files.slice(2), hints)).toMatchObject({
      on: 'serial',
      files: [],
      after: ['suites/a/other.serial.test.ts'],
    });
  });
});

describe('the account lock per account', () => {
  it('is named by the deployment and a digest of the key, never the key', () => {
    const key = 'sk-secret-0123456789abcdef';
    const name = accountLockKey('http://127.0.0.1:8787', key);
    expect(name).toBe(accountLockKey('http://127.0.0.1:8787', key));
    expect(name).not.toContain(key);
    expect(name).not.toBe(accountLockKey('http://127.0.0.1:8787', `${key}x`));
    expect(name).not.toBe(accountLockKey('http://127.0.0.1:8788', key));
    expect(new AccountLock(name, mkdtempSync(join(tmpdir(), 'gc-lock-'))).dir).not.toContain(key);
  });

  it('lets an exclusive holder of one account leave the other account free', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gc-lock-'));
    const url = 'http://127.0.0.1:8787';
    const primary = await new AccountLock(accountLockKey(url, 'sk-primary'), root).acquireShared(1000);
    // The isolated account's balance check does not wait for a billable test of the primary account...
    const isolated = await new AccountLock(accountLockKey(url, 'sk-isolated'), root).acquireExclusive(300);
    // ...while the primary account's own exclusive taker does.
    await expect(
      new AccountLock(accountLockKey(url, 'sk-primary'), root).acquireExclusive(150),
    ).rejects.toThrow(/billable tests kept the account busy/);
    isolated();
    primary();
  });
});
