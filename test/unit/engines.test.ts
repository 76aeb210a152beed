/**
 * Today's Node: the suite declares the maintained LTS lines (22, 24) beside the machines' 20, and no
 * package it installs refuses one of them (npm ci would warn EBADENGINE). .ci/node-lts-smoke runs the
 * suite on 22 and 24.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { pkgPath } from '../../src/paths.ts';

/** The first release of each line the suite supports (22.13: the first 22 that every dependency admits). */
const LINES = ['20.19.0', '22.13.0', '24.0.0'];

interface Locked {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
}
const pkg = JSON.parse(readFileSync(pkgPath('package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(pkgPath('package-lock.json'), 'utf8')) as {
  packages: Record<string, Locked>;
};

/** The installed packages whose engines refuse `version`: `name@version wants range`. */
function refusing(version: string): string[] {
  const out: string[] = [];
  for (const [path, p] of Object.entries(lock.packages)) {
    const range = !Array.isArray(p.engines) ? p.engines?.node : undefined;
    // An optional package (a platform binding) is skipped by npm where it does not fit, without a warning.
    if (path === '' || p.optional || !range) continue;
    if (!semver.satisfies(version, range))
      out.push(`${path.replace(/^.*node_modules\//, '')}@${p.version} wants ${range}`);
  }
  return out;
}

describe('the Node.js lines the suite runs on', () => {
  it("engines admits the machines' 20 and the maintained LTS lines 22 and 24, and no line before them", () => {
    for (const v of LINES) expect(semver.satisfies(v, pkg.engines.node), v).toBe(true);
    for (const v of ['18.20.0', '20.18.0', '21.7.0', '23.11.0'])
      expect(semver.satisfies(v, pkg.engines.node), v).toBe(false);
  });

  it.for(LINES)('no installed package refuses Node %s', (v) => {
    expect(refusing(v)).toEqual([]);
  });

  it('a package that refuses a line is found (the check can fail)', () => {
    const saved = lock.packages['node_modules/yaml'];
    lock.packages['node_modules/yaml'] = { ...saved, engines: { node: '>=22' } };
    try {
      expect(refusing('20.19.0')).toEqual([expect.stringMatching(/^yaml@.* wants >=22$/)]);
    } finally {
      if (saved) lock.packages['node_modules/yaml'] = saved;
    }
  });
});
