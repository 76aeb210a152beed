// How a command's TypeScript reaches node (Node 20 has no type stripping): one ES module bundled from
// the entry and everything it imports of ours (esbuild, the compiler tsx itself uses; packages stay
// external), built on first use and again whenever one of its sources changes, kept in
// node_modules/.cache/gateway-conformance/. Why not tsx's loader for these: it runs in a loader thread that
// every import of every module crosses, packages included (vitest's API alone loads in 1.6-2.2 s through
// it against 0.5 s plainly): 2 to 3 s of CPU at each start of the CLI, which CI pays for each of its many
// runs. Falls back to tsx when the bundle cannot be built or written (a read-only install, no esbuild).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'node_modules', '.cache', 'gateway-conformance');
/** Changes whenever how a bundle is built changes (a bundle of another format is never reused). */
const FORMAT = 1;

const digest = (text) => createHash('sha256').update(text).digest('hex');

/**
 * The module at `entry` (a path from the package root, e.g. `src/app/cli.ts`): from its bundle when that
 * is current (every source it was built from unchanged), else from a new bundle, else through tsx.
 */
export async function loadEntry(entry) {
  let file;
  try {
    file = current(entry) ?? (await bundle(entry));
  } catch {
    file = undefined;
  }
  if (file) {
    // A stack printed for CONFORMANCE_DEBUG names the TypeScript sources (the bundle's linked map).
    if (process.env.CONFORMANCE_DEBUG) process.setSourceMapsEnabled(true);
    return import(pathToFileURL(file).href);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(ROOT, entry)).href);
}

/**
 * A bundle's files, named by the entry and by the checkout: checkouts that share one node_modules (git
 * worktrees linking the main one's) each keep their own bundle, instead of each start from another
 * checkout building over the last one's (about 0.5-0.7 s of a start waiting on esbuild).
 */
const names = (entry) => {
  const checkout = digest(ROOT).slice(0, 12);
  const base = join(CACHE, `${entry.replace(/\.ts$/, '').split(/[\\/]/).join('-')}-${checkout}`);
  return { out: `${base}.mjs`, manifest: `${base}.json` };
};

/**
 * The key every bundle records: how it was built, by which esbuild, for which node, from which checkout
 * (a bundle requires its dependencies by absolute path: two checkouts sharing one node_modules, by a
 * symlink, must not run each other's bundles).
 */
function buildKey() {
  const esbuild = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'esbuild', 'package.json'), 'utf8'));
  return `${FORMAT} ${esbuild.version} ${process.version} ${ROOT}`;
}

/** The bundle's path when it exists and every source it was built from still reads the same. */
function current(entry) {
  const { out, manifest } = names(entry);
  let m;
  try {
    m = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch {
    return undefined;
  }
  if (m.key !== buildKey() || m.out !== relative(CACHE, out)) return undefined;
  // The bundle is the one this manifest was written for (two builds at once cannot pair another's).
  try {
    if (digest(readFileSync(out)) !== m.bundle) return undefined;
  } catch {
    return undefined;
  }
  for (const [path, sha] of Object.entries(m.inputs)) {
    let text;
    try {
      text = readFileSync(join(ROOT, path));
    } catch {
      return undefined;
    }
    if (digest(text) !== sha) return undefined;
  }
  return out;
}

/**
 * Build the bundle. Each source of ours is read once, by the plugin: the digest recorded is of exactly
 * the text bundled (a source edited during the build makes the next start build again), and its
 * `import.meta.url` stays its own file's URL (paths such as `../fixtures/` are relative to it). Each
 * file is written beside and renamed into place: CLIs starting at once each build, each reads whole files.
 */
async function bundle(entry) {
  const { build } = await import('esbuild');
  const key = buildKey();
  const { out, manifest } = names(entry);
  const inputs = {};
  const ours = {
    name: 'gateway-conformance-sources',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        inputs[relative(ROOT, args.path).split(sep).join('/')] = digest(text);
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: out,
    write: false,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [ours],
  });
  // Only sources the plugin read and recorded: any other kind of input would go unwatched.
  for (const input of Object.keys(result.metafile.inputs))
    if (!(input in inputs)) throw new Error(`${input}: a source the bundle would not watch`);
  mkdirSync(CACHE, { recursive: true });
  const put = (file, contents) => {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, contents);
    renameSync(tmp, file);
  };
  for (const f of result.outputFiles) put(f.path, f.contents);
  const code = result.outputFiles.find((f) => f.path === out);
  put(manifest, JSON.stringify({ key, out: relative(CACHE, out), bundle: digest(code.contents), inputs }));
  return out;
}
