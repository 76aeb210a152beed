import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonExact, pruneCache, readYaml, trustedDir, YAML_CACHE_DIR } from '../../src/yaml-cache.ts';

const cacheFile = (text: string) =>
  join(YAML_CACHE_DIR, `${createHash('sha256').update(text).digest('hex')}.json`);

describe('readYaml (fixtures parsed once per content)', () => {
  it('returns what the YAML parser returns, from the cache on the second read, and re-parses an edited file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-yaml-'));
    const file = join(dir, 'f.yaml');
    const text = `a: 1\nb: [x, "y", {c: true}]\nnonce: ${Math.random()}\n`;
    writeFileSync(file, text);
    expect(existsSync(cacheFile(text))).toBe(false);
    expect(readYaml(file)).toEqual(parse(text));
    expect(existsSync(cacheFile(text))).toBe(true);
    expect(readYaml(file)).toEqual(parse(text));
    writeFileSync(file, `${text}d: 2\n`);
    expect(readYaml(file)).toMatchObject({ d: 2 });
  });

  it('never caches what JSON cannot hold exactly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-yaml-'));
    const file = join(dir, 'inf.yaml');
    const text = `big: .inf\nnonce: ${Math.random()}\n`;
    writeFileSync(file, text);
    expect(readYaml(file)).toMatchObject({ big: Number.POSITIVE_INFINITY });
    expect(existsSync(cacheFile(text))).toBe(false);
    expect(readYaml(file)).toMatchObject({ big: Number.POSITIVE_INFINITY });
    expect(jsonExact({ a: [1, 'x', null, false] })).toBe(true);
    expect(jsonExact({ a: Number.NaN })).toBe(false);
    expect(jsonExact({ d: new Date(0) })).toBe(false);
  });

  it('reads every fixture of the suite the same as the YAML parser does', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { pkgPath } = await import('../../src/paths.ts');
    const files = [
      ...readdirSync(pkgPath('fixtures'))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => pkgPath('fixtures', f)),
      ...readdirSync(pkgPath('fixtures', 'cases')).map((f) => pkgPath('fixtures', 'cases', f)),
    ];
    for (const f of files) {
      readYaml(f);
      expect(readYaml(f), f).toEqual(parse(readFileSync(f, 'utf8')));
    }
  });
});

describe('trustedDir (the suite caches only in a directory of this user’s alone)', () => {
  it('makes a missing directory private, and refuses one others may write, a file, or another user’s', () => {
    const base = mkdtempSync(join(tmpdir(), 'gc-trust-'));
    const made = join(base, 'a', 'b');
    expect(trustedDir(made)).toBe(true);
    expect(statSync(made).mode & 0o077).toBe(0);
    chmodSync(made, 0o777);
    expect(trustedDir(made)).toBe(false);
    chmodSync(made, 0o755);
    expect(trustedDir(made)).toBe(true);
    const file = join(base, 'file');
    writeFileSync(file, '');
    expect(trustedDir(file)).toBe(false);
    // Another user's directory (only root can make one here).
    if (process.getuid?.() === 0) {
      chownSync(made, 4321, 4321);
      expect(trustedDir(made)).toBe(false);
    }
  });
});

describe('pruneCache (a cache directory stays bounded)', () => {
  it('past its bound, removes the least recently written entries down to three quarters of it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-prune-'));
    for (let i = 0; i < 10; i++) {
      writeFileSync(join(dir, `e${i}`), String(i));
      utimesSync(join(dir, `e${i}`), 1_000 + i, 1_000 + i);
    }
    expect(pruneCache(dir, 10)).toBe(0);
    writeFileSync(join(dir, 'e10'), '10');
    expect(pruneCache(dir, 8)).toBe(5);
    expect(readdirSync(dir).sort()).toEqual(['e10', 'e5', 'e6', 'e7', 'e8', 'e9']);
    expect(pruneCache(join(dir, 'absent'), 1)).toBe(0);
  });
});
