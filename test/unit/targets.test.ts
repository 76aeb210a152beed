import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BUDGET_POINTS,
  loadTargetsFile,
  parseBudget,
  resolveTarget,
} from '../../src/config/targets.ts';
import { UsageError } from '../../src/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'gc-targets-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('targets.yaml validation', () => {
  it('names the file, the line and the path of a bad side-effect class', () => {
    const p = file(
      'bad-allow.yaml',
      'targets:\n  - name: a\n    base_url: http://x.test\n    allow: [read, wrte]\n',
    );
    expect(() => loadTargetsFile(p)).toThrowError(
      new RegExp(`${p.replace(/[.]/g, '\\.')}: line 4, /targets/0/allow/1: must be one of`),
    );
  });

  it('refuses a key value in place of an environment variable name', () => {
    const p = file(
      'key.yaml',
      'targets:\n  - name: a\n    base_url: http://x.test\n    keys:\n      primary: sk-live-123\n',
    );
    expect(() => loadTargetsFile(p)).toThrowError(
      /line 5, \/targets\/0\/keys\/primary: must be the NAME of an environment variable/,
    );
  });

  it('refuses an unknown setting and an unknown role', () => {
    const p = file(
      'unknown.yaml',
      'targets:\n  - name: a\n    base_url: http://x.test\n    colour: red\n    keys: { admin: X }\n',
    );
    expect(() => loadTargetsFile(p)).toThrowError(/unknown setting 'colour'[\s\S]*unknown setting 'admin'/);
  });

  it('says which setting a misspelled key meant, at the line of the key itself', () => {
    const p = file(
      'typo.yaml',
      'targets:\n  - name: a\n    base_url: http://x.test\n    allow: [read]\n    budget_point: 5\n',
    );
    expect(() => loadTargetsFile(p)).toThrowError(
      /typo\.yaml: line 5, \/targets\/0: unknown setting 'budget_point' \(did you mean 'budget_points'\?\)/,
    );
  });

  it('reports broken YAML with its line', () => {
    const p = file('broken.yaml', 'targets:\n  - name: a\n    base_url: [http://x\n');
    expect(() => loadTargetsFile(p)).toThrowError(/broken\.yaml: line \d+: not valid YAML/);
  });

  it('refuses duplicate target names', () => {
    const p = file(
      'dup.yaml',
      'targets:\n  - { name: a, base_url: embedded }\n  - { name: a, base_url: embedded }\n',
    );
    expect(() => loadTargetsFile(p)).toThrowError(/line 3, \/targets\/1\/name: duplicate target name 'a'/);
  });

  it('accepts the shipped targets.yaml', () => {
    expect(
      loadTargetsFile(join(import.meta.dirname, '..', '..', 'targets.yaml')).map((t) => t.name),
    ).toContain('embedded');
  });
});

describe('target resolution', () => {
  const p = file(
    'ok.yaml',
    'targets:\n  - name: stage\n    base_url: https://stage.test/\n    keys: { primary: STAGE_KEY, revoked: STAGE_REVOKED }\n    allow: [read, write]\n    models: { chat: m1 }\n',
  );

  it('defaults to the embedded reference with every class allowed', () => {
    const t = resolveTarget({}, {});
    expect(t.embedded).toBe(true);
    expect(t.allow).toEqual(['read', 'write', 'billable', 'tickets', 'payments']);
  });

  it('single-target mode reads the URL, the keys and the hints from the environment, read-only by default', () => {
    const t = resolveTarget(
      {},
      {
        CONFORMANCE_BASE_URL: 'http://127.0.0.1:9/',
        CONFORMANCE_API_KEY: 'k',
        CONFORMANCE_KEY_OTHER_TENANT: 'o',
        CONFORMANCE_MODEL_CHAT: 'c1',
      },
    );
    expect(t.baseUrl).toBe('http://127.0.0.1:9');
    expect(t.keys).toEqual({ primary: 'CONFORMANCE_API_KEY', other_tenant: 'CONFORMANCE_KEY_OTHER_TENANT' });
    expect(t.models.chat).toBe('c1');
    expect(t.allow).toEqual(['read']);
  });

  it('takes an isolated key only when it is no other role key (its account is the balance checks alone)', () => {
    const env = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'k' };
    expect(resolveTarget({}, { ...env, CONFORMANCE_KEY_ISOLATED: 'i' }).keys.isolated).toBe(
      'CONFORMANCE_KEY_ISOLATED',
    );
    expect(() => resolveTarget({}, { ...env, CONFORMANCE_KEY_ISOLATED: 'k' })).toThrow(
      "target '127.0.0.1_9': the isolated key (CONFORMANCE_KEY_ISOLATED) is also the primary key (CONFORMANCE_API_KEY); the isolated role needs a key of an account of its own that nothing else uses",
    );
  });

  it('flags beat the environment, which beats the file', () => {
    const env = { STAGE_KEY: 'k', CONFORMANCE_ALLOW: 'read', CONFORMANCE_MODEL_CHAT: 'from-env' };
    expect(resolveTarget({ targets: p, target: 'stage' }, env).allow).toEqual(['read']);
    expect(resolveTarget({ targets: p, target: 'stage', allow: 'all' }, env).allow).toHaveLength(5);
    expect(resolveTarget({ targets: p, target: 'stage' }, env).models.chat).toBe('from-env');
    expect(resolveTarget({ targets: p, target: 'stage' }, { STAGE_KEY: 'k' }).allow).toEqual([
      'read',
      'write',
    ]);
  });

  it('a test without a test_ms lasts the whole media poll window and its margin; one given is kept', () => {
    const env = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'k' };
    // 5 s x 120 polls = 600 s, and 120 s for the cleanup and the test's own requests.
    expect(resolveTarget({}, env).timeouts.testMs).toBe(720_000);
    expect(resolveTarget({}, { ...env, CONFORMANCE_MEDIA_POLL_CAP: '1440' }).timeouts.testMs).toBe(7_320_000);
    // Never below the 300 s of before; the embedded reference keeps it.
    expect(resolveTarget({}, { ...env, CONFORMANCE_MEDIA_POLL_CAP: '10' }).timeouts.testMs).toBe(300_000);
    expect(resolveTarget({}, {}).timeouts.testMs).toBe(300_000);
    const q = file(
      'test-ms.yaml',
      'targets:\n  - name: t\n    base_url: https://t.test\n    keys: { primary: STAGE_KEY }\n    timeouts: { test_ms: 90000 }\n',
    );
    const given = resolveTarget(
      { targets: q, target: 't' },
      { STAGE_KEY: 'k', CONFORMANCE_MEDIA_POLL_CAP: '1440' },
    );
    expect([given.timeouts.testMs, given.testMsSource]).toEqual([90_000, 'file']);
  });

  it('records where the concurrency came from: a URL target without one adapts', () => {
    const env = { STAGE_KEY: 'k', CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'k' };
    expect(resolveTarget({ targets: p, target: 'stage' }, env).concurrencySource).toBe('default');
    expect(resolveTarget({}, env).concurrencySource).toBe('default');
    const flagged = resolveTarget({ targets: p, target: 'stage', concurrency: 3 }, env);
    expect([flagged.concurrency, flagged.concurrencySource]).toEqual([3, 'flag']);
    const q = file(
      'concurrency.yaml',
      'targets:\n  - name: c\n    base_url: https://c.test\n    keys: { primary: STAGE_KEY }\n    concurrency: 5\n',
    );
    const fromFile = resolveTarget({ targets: q, target: 'c' }, env);
    expect([fromFile.concurrency, fromFile.concurrencySource]).toEqual([5, 'file']);
  });

  it('drops a role whose variable is unset, and refuses a missing primary key', () => {
    expect(resolveTarget({ targets: p, target: 'stage' }, { STAGE_KEY: 'k' }).keys).toEqual({
      primary: 'STAGE_KEY',
    });
    expect(() => resolveTarget({ targets: p, target: 'stage' }, {})).toThrowError(/STAGE_KEY is not set/);
    expect(() => resolveTarget({ baseUrl: 'http://x.test' }, {})).toThrowError(UsageError);
  });

  it('refuses an unknown target, a bad URL and an unknown class', () => {
    expect(() => resolveTarget({ targets: p, target: 'nope' }, {})).toThrowError(
      /no target named 'nope' \(targets: stage\)/,
    );
    expect(() => resolveTarget({ baseUrl: 'ftp://x' }, { CONFORMANCE_API_KEY: 'k' })).toThrowError(
      /must be an http or https URL/,
    );
    expect(() => resolveTarget({ allow: 'read,pay' }, {})).toThrowError(/unknown side-effect class 'pay'/);
  });
});

describe('points budget', () => {
  const env = { K: 'sk-test-0123456789' };
  const real = (extra = '') =>
    file(
      `budget-${Math.random()}.yaml`,
      `targets:\n  - name: a\n    base_url: http://x.test\n    keys: { primary: K }\n${extra}`,
    );

  it('a real target defaults to 100 points, the embedded reference to none', () => {
    expect(resolveTarget({ targets: real(), target: 'a' }, env).budget).toEqual({
      points: DEFAULT_BUDGET_POINTS,
      source: 'default',
    });
    expect(DEFAULT_BUDGET_POINTS).toBe('100');
    expect(resolveTarget({}, {}).budget).toEqual({ points: null, source: 'default' });
  });

  it('resolves flags > environment > file > default; unlimited is no budget', () => {
    const p = real('    budget_points: 40\n');
    expect(resolveTarget({ targets: p, target: 'a' }, env).budget).toEqual({
      points: '40',
      source: 'targets file',
    });
    expect(
      resolveTarget({ targets: p, target: 'a' }, { ...env, CONFORMANCE_BUDGET_POINTS: '12.5' }).budget,
    ).toEqual({ points: '12.5', source: 'CONFORMANCE_BUDGET_POINTS' });
    expect(
      resolveTarget(
        { targets: p, target: 'a', budgetPoints: 'unlimited' },
        { ...env, CONFORMANCE_BUDGET_POINTS: '12.5' },
      ).budget,
    ).toEqual({ points: null, source: '--budget-points' });
    expect(resolveTarget({ budgetPoints: '0' }, {}).budget).toEqual({
      points: '0',
      source: '--budget-points',
    });
  });

  it('refuses a negative or non-numeric budget, saying which', () => {
    expect(() => parseBudget('-1', '--budget-points')).toThrowError(UsageError);
    expect(() => parseBudget('-1', '--budget-points')).toThrowError(/'-1' is negative/);
    expect(() => parseBudget('ten', '--budget-points')).toThrowError(/'ten' is not a number of points/);
    expect(() => parseBudget('1e3', 'X')).toThrowError(/not a number of points/);
    expect(parseBudget(' 7.25 ', 'X')).toBe('7.25');
  });
});
