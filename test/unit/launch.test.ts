import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pkgPath } from '../../src/paths.ts';

/**
 * bin/launch.mjs in a package of its own (two TypeScript files, esbuild and tsx linked from ours): each
 * load is a new node process, as each start of the CLI is.
 */
function tinyPackage(sharing?: string) {
  const root = mkdtempSync(join(tmpdir(), 'gc-launch-'));
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'src', 'deep'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
  copyFileSync(pkgPath('bin', 'launch.mjs'), join(root, 'bin', 'launch.mjs'));
  // `sharing`: another tiny package whose node_modules this one links (as a git worktree links main's).
  if (sharing) symlinkSync(join(sharing, 'node_modules'), join(root, 'node_modules'));
  else {
    mkdirSync(join(root, 'node_modules'));
    for (const dep of ['esbuild', 'tsx'])
      symlinkSync(pkgPath('node_modules', dep), join(root, 'node_modules', dep));
  }
  writeFileSync(
    join(root, 'src', 'entry.ts'),
    "import { word, where } from './deep/word.ts';\nexport const said: string = word() + ' from ' + where;\n",
  );
  const word = (w: string) =>
    writeFileSync(
      join(root, 'src', 'deep', 'word.ts'),
      `export const word = (): string => '${w}';\nexport const where: string = new URL('.', import.meta.url).pathname;\n`,
    );
  word('hello');
  const load = (): string =>
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { loadEntry } = await import(process.argv[1]); console.log((await loadEntry('src/entry.ts')).said);",
        join(root, 'bin', 'launch.mjs'),
      ],
      { encoding: 'utf8' },
    ).trim();
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 12);
  const manifest = join(root, 'node_modules', '.cache', 'gateway-conformance', `src-entry-${checkout}.json`);
  return { root, word, load, manifest };
}

describe('bin/launch.mjs: the CLI bundled once per change of its sources', () => {
  it('builds on first use, reuses the bundle while no source changes, builds again when one does', () => {
    const p = tinyPackage();
    // import.meta.url stays each file's own: the nested file names its own folder.
    expect(p.load()).toBe(`hello from ${join(p.root, 'src', 'deep')}/`);
    const built = statSync(p.manifest).mtimeMs;
    expect(Object.keys(JSON.parse(readFileSync(p.manifest, 'utf8')).inputs).sort()).toEqual([
      'src/deep/word.ts',
      'src/entry.ts',
    ]);
    expect(p.load()).toBe(`hello from ${join(p.root, 'src', 'deep')}/`);
    expect(statSync(p.manifest).mtimeMs).toBe(built);
    // An imported file changes (same size, so the check is of contents): the next start builds again.
    p.word('howdy');
    expect(p.load()).toBe(`howdy from ${join(p.root, 'src', 'deep')}/`);
    expect(statSync(p.manifest).mtimeMs).toBeGreaterThan(built);
  });

  it('keeps one bundle per checkout when checkouts share node_modules: none builds over the other', () => {
    const a = tinyPackage();
    const b = tinyPackage(a.root);
    b.word('howdy');
    expect(a.load()).toBe(`hello from ${join(a.root, 'src', 'deep')}/`);
    const built = statSync(a.manifest).mtimeMs;
    expect(b.load()).toBe(`howdy from ${join(b.root, 'src', 'deep')}/`);
    expect(b.manifest).not.toBe(a.manifest);
    expect(a.load()).toBe(`hello from ${join(a.root, 'src', 'deep')}/`);
    expect(statSync(a.manifest).mtimeMs).toBe(built);
  });

  it('a bundle that is not the one its manifest names is not used', () => {
    const p = tinyPackage();
    p.load();
    const bundle = p.manifest.replace(/\.json$/, '.mjs');
    writeFileSync(bundle, "export const said = 'stale';\n");
    expect(p.load()).toBe(`hello from ${join(p.root, 'src', 'deep')}/`);
  });

  it('without a place to write the bundle, the sources run through tsx', () => {
    const p = tinyPackage();
    // node_modules/.cache is a file: no directory can be made there.
    writeFileSync(join(p.root, 'node_modules', '.cache'), '');
    expect(p.load()).toBe(`hello from ${join(p.root, 'src', 'deep')}/`);
  });
});
