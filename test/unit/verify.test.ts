import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pkgPath, SUITE_VERSION } from '../../src/paths.ts';
import { MANIFEST, verifyBundle } from '../../src/report/bundle.ts';
import { loadPublicKey, loadSigningKey } from '../../src/report/signature.ts';
import { aggregate, type Summary } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import { writeReport } from '../../src/report/write.ts';

const cert = parse(readFileSync(pkgPath('fixtures', 'certification.yaml'), 'utf8')) as {
  classes: string[];
  roles: string[];
};

/** A complete run (every class and role certification asks for) with the given tests. */
function completeRun(tests: TestResultRecord[], embedded = false): Summary {
  return {
    suite: { name: 'gateway-conformance', version: SUITE_VERSION },
    target: {
      name: 'partner',
      baseUrl: 'https://api.partner.test',
      embedded,
      allow: cert.classes as never,
      roles: cert.roles as never,
      models: {},
    },
    strict: false,
    profile: 'standard',
    seed: 1,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    openapi: { valid: true, errors: [] },
    ...aggregate(tests, []),
    exchanges: { file: 'exchanges.ndjson', count: 0 },
    tests,
  } as Summary;
}

const passed: TestResultRecord = {
  title: 'HEALTH-001 GET /healthz answers without a key',
  file: 'suites/health/public.test.ts',
  ids: ['HEALTH-001'],
  outcome: 'passed',
  durationMs: 1,
  violations: [],
  exchanges: [],
  exchangeCount: 0,
};
const failed: TestResultRecord = {
  ...passed,
  title: 'AUTH-005 refuses a request without a key',
  ids: ['AUTH-005'],
  outcome: 'failed',
  violations: [{ id: 'AUTH-005', level: 'failure', severity: 'failure', message: 'got 200', count: 1 }],
};

function keyFiles(): { priv: string; pub: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gc-keys-'));
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const priv = join(dir, 'sign.pem');
  const pub = join(dir, 'sign.pub.pem');
  writeFileSync(priv, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
  return { priv, pub };
}

function bundle(summary: Summary, signWith?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-verify-'));
  writeFileSync(join(dir, 'exchanges.ndjson'), '');
  writeReport(dir, summary, [], undefined, signWith ? loadSigningKey(signWith) : undefined);
  return dir;
}

/** What a forger does without the key: edit summary.json and recompute its sha256 in the manifest. */
function forge(dir: string): void {
  const file = join(dir, 'summary.json');
  const s = JSON.parse(readFileSync(file, 'utf8'));
  s.target.name = 'someone-else';
  const text = JSON.stringify(s, null, 2);
  writeFileSync(file, text);
  const m = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  for (const f of m.files)
    if (f.path === 'summary.json') {
      f.sha256 = createHash('sha256').update(text).digest('hex');
      f.bytes = Buffer.byteLength(text);
    }
  writeFileSync(join(dir, MANIFEST), JSON.stringify(m, null, 2));
}

const last = (lines: string[]) => lines[lines.length - 1]!;

describe('verify says exactly what it proves', () => {
  it('names the requirements the run did not judge (aimed at, their form never shown): certified says nothing of them', () => {
    const seen = {
      ...passed,
      title: 'HEALTH-002 GET /status answers without a key',
      ids: ['HEALTH-002'],
      observed: { 'HEALTH-002': [] },
    };
    const v = verifyBundle(bundle(completeRun([passed, seen])));
    expect(v.lines.join('\n')).toMatch(
      /• not judged \(1; the target never showed what they need, so this certificate says nothing of them\): HEALTH-001$/m,
    );
    expect(v.certified).toBe(true);
  });

  it('an unsigned bundle, forged or not, is intact only "as far as the manifest says"', () => {
    const dir = bundle(completeRun([passed]));
    forge(dir);
    const v = verifyBundle(dir);
    expect(v.certified).toBe(true);
    expect(v.lines.join('\n')).toContain(
      'files intact as far as the manifest says; the manifest itself is not signed (sign a run with --sign-key FILE), so this does not prove the files unchanged since the run',
    );
    expect(last(v.lines)).toMatch(
      /^CERTIFIED: .*\(intact as far as the manifest says; nothing proves who wrote the manifest \(it is not signed\)\)$/,
    );
    expect(v.lines.join('\n')).not.toContain('unchanged since the run:');
  });

  it('with --public-key, a bundle whose manifest.sig was deleted (a forger re-hashed an edit) is NOT CERTIFIED', () => {
    const { priv, pub } = keyFiles();
    const dir = bundle(completeRun([passed]), priv);
    forge(dir);
    rmSync(join(dir, 'manifest.sig'));
    const v = verifyBundle(dir, loadPublicKey(pub));
    expect(v.certified).toBe(false);
    expect(v.lines.join('\n')).toMatch(/✗ signature: no manifest\.sig: the bundle is not signed/);
    expect(last(v.lines)).toMatch(/^NOT CERTIFIED: the bundle is not intact/);
  });

  it('a signed bundle checked with its public key is "unchanged since the run"; a forged one is not certified', () => {
    const { priv, pub } = keyFiles();
    const dir = bundle(completeRun([passed]), priv);
    const good = verifyBundle(dir, loadPublicKey(pub));
    expect(good.certified).toBe(true);
    expect(good.lines.join('\n')).toMatch(
      /files unchanged since the run: the manifest is signed by key [0-9a-f]{16}…/,
    );
    expect(last(good.lines)).toMatch(/\(signed and unchanged since the run\)$/);

    // Without the public key the signature is said to be there but not checked.
    expect(verifyBundle(dir).lines.join('\n')).toContain('but not checked: give verify --public-key FILE');

    forge(dir);
    const bad = verifyBundle(dir, loadPublicKey(pub));
    expect(bad.certified).toBe(false);
    expect(bad.lines.join('\n')).toContain('✗ signature: manifest.json does not match its signature');
    expect(last(bad.lines)).toMatch(/^NOT CERTIFIED: the bundle is not intact/);

    // Another key's public half does not vouch for it either.
    const other = keyFiles();
    const wrongKey = verifyBundle(bundle(completeRun([passed]), priv), loadPublicKey(other.pub));
    expect(wrongKey.certified).toBe(false);
    expect(wrongKey.lines.join('\n')).toMatch(
      /✗ signature: signed by key [0-9a-f]{16}…, not by the given public key/,
    );
  });

  it('a manifest this suite does not write is NOT CERTIFIED, said, and none of its paths is read', () => {
    const edits: Array<[(m: { files: Array<{ path: unknown }>; suite?: unknown }) => void, RegExp]> = [
      [
        (m) => {
          m.files[0]!.path = '../../etc/passwd';
        },
        /it lists "\.\.\/\.\.\/etc\/passwd", outside the report/,
      ],
      [
        (m) => {
          m.files[0]!.path = '/etc/passwd';
        },
        /it lists "\/etc\/passwd", outside the report/,
      ],
      [
        (m) => {
          m.files[0]!.path = null;
        },
        /\/files\/0\/path must be string/,
      ],
      [
        (m) => {
          m.files = true as never;
        },
        /\/files must be array/,
      ],
      [(m) => void delete m.suite, /must have required property 'suite'/],
    ];
    for (const [edit, why] of edits) {
      const dir = bundle(completeRun([passed]));
      const file = join(dir, MANIFEST);
      const m = JSON.parse(readFileSync(file, 'utf8'));
      edit(m);
      writeFileSync(file, JSON.stringify(m));
      const v = verifyBundle(dir);
      expect(v.certified).toBe(false);
      expect(v.intact).toBe(false);
      expect(v.lines[0]).toMatch(/^✗ manifest\.json is not a bundle manifest of gateway-conformance: /);
      expect(v.lines[0]).toMatch(why);
      expect(last(v.lines)).toMatch(/^NOT CERTIFIED: the bundle is not intact/);
    }
  });

  it('a run against the embedded reference is never certified', () => {
    const v = verifyBundle(bundle(completeRun([passed], true)));
    expect(v.certified).toBe(false);
    expect(v.lines).toContain('✗ the target is the embedded reference server, not a deployment');
    expect(last(v.lines)).toContain('the target is the embedded reference server');
  });

  it('a failed run lists its failed requirement ids', () => {
    const v = verifyBundle(bundle(completeRun([passed, failed])));
    expect(v.certified).toBe(false);
    expect(v.lines).toContain('✗ failed requirements: AUTH-005');
    expect(last(v.lines)).toBe('NOT CERTIFIED: the verdict is failed (1 failed requirement)');
  });

  it('refuses a key file that is not an Ed25519 key, with the flag and the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-keys-'));
    const rsa = join(dir, 'rsa.pem');
    writeFileSync(
      rsa,
      generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    expect(() => loadSigningKey(rsa)).toThrow(/--sign-key: .*rsa\.pem holds a rsa key, not Ed25519/);
    expect(() => loadSigningKey(join(dir, 'none.pem'))).toThrow(/--sign-key: cannot read/);
    expect(() => loadPublicKey(join(dir, 'none.pem'))).toThrow(/--public-key: cannot read/);
  });
});
