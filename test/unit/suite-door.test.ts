/**
 * The one door of the suites (src/suite/index.ts): biome.json's style/noRestrictedImports on suites/** refuses
 * an import of any other src/ module (the door's own topic files included) or of reference/. Proven on probe files in a temporary folder linted
 * once with the project's own configuration (nothing is written into the checkout).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkgPath } from '../../src/paths.ts';
import { HANG_BOUND_MS } from '../../tools/bounds.ts';

/** Probe file -> the module it imports. */
const PROBES: Record<string, string> = {
  'suites/media/client.test.ts': '../../src/http/client.ts',
  'suites/media/jobs.test.ts': '../../src/media-jobs.ts',
  'suites/media/check.test.ts': '../../src/runtime/check.ts',
  'suites/media/faults.test.ts': '../../reference/faults.ts',
  'suites/media/door.test.ts': '../../src/suite/index.ts',
  'suites/media/topic.test.ts': '../../src/suite/cases.ts',
  'suites/media/sibling.test.ts': './support.ts',
  'suites/stateful/other-suite.test.ts': '../media/support.ts',
  'suites/media/builtin.test.ts': 'node:crypto',
  'suites/media/package.test.ts': 'decimal.js',
  'test/unit/harness.test.ts': '../../src/http/client.ts',
};

const dir = mkdtempSync(join(tmpdir(), 'suite-door-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The import-rule diagnostics per probe file, and biome's exit code. */
let lint: { code: number | null; out: string; flagged: Map<string, string> };

beforeAll(() => {
  // The project's configuration without its git integration (the probe folder is no checkout).
  const config = JSON.parse(readFileSync(pkgPath('biome.json'), 'utf8')) as Record<string, unknown>;
  delete config.vcs;
  delete config.$schema;
  config.files = { includes: ['**'] };
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  for (const [file, from] of Object.entries(PROBES)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), `import { a } from '${from}';\n\nexport const b = a;\n`);
  }
  const r = spawnSync(pkgPath('node_modules', '.bin', 'biome'), ['lint', '--max-diagnostics=50', '.'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: HANG_BOUND_MS,
  });
  const out = `${r.stdout}${r.stderr}`;
  // Each diagnostic starts with `path:line:col lint/group/rule` and its message follows until the next one.
  const flagged = new Map<string, string>();
  for (const part of out.split(/^(?=\S+:\d+:\d+ lint\/)/m)) {
    const m = /^(\S+):\d+:\d+ lint\/style\/noRestrictedImports/.exec(part);
    if (m) flagged.set(m[1]!, part);
  }
  lint = { code: r.status, out, flagged };
});

describe('suites import the harness only through src/suite/index.ts', () => {
  it.each([
    'suites/media/client.test.ts',
    'suites/media/jobs.test.ts',
    'suites/media/check.test.ts',
    'suites/media/topic.test.ts',
  ])('refuses %s, which imports a src/ module past the door', (file) => {
    expect(lint.flagged.get(file), lint.out).toContain('only through its door, src/suite/index.ts');
  });

  it('refuses a suite importing the reference server', () => {
    expect(lint.flagged.get('suites/media/faults.test.ts'), lint.out).toContain(
      'never import the reference server',
    );
  });

  it('lets suites import the door, suite helpers, node builtins and packages; binds suites/ only', () => {
    expect([...lint.flagged.keys()].sort()).toEqual([
      'suites/media/check.test.ts',
      'suites/media/client.test.ts',
      'suites/media/faults.test.ts',
      'suites/media/jobs.test.ts',
      'suites/media/topic.test.ts',
    ]);
    expect(lint.code).toBe(1);
  });
});
