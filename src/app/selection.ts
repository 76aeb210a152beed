/**
 * The selection of a run (--suite, --filter), checked before the target gets any request: a selection
 * that matches no test is a usage error (exit 2), never a run that judged nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { UsageError } from '../errors.ts';
import { PKG_ROOT } from '../paths.ts';
import { sourceDigest } from '../report/bundle.ts';
import { RUN_FILE_ENV, type RunConfig } from '../runtime/run-config.ts';

/** The suite files of a run (src/app/run.ts runSuites runs them; vitest's include). */
export const SUITE_GLOB = 'suites/**/*.test.ts';

type SignalHandlers = Map<NodeJS.Signals, NodeJS.SignalsListener[]>;
const guards = new WeakMap<SignalHandlers, (event: string | symbol) => void>();
/**
 * The run's own SIGINT/SIGTERM handlers, before vitest is created; until keepOurSignalHandlers, a
 * handler added meanwhile (vitest's: it exits the process) is removed as soon as it is added, so that a
 * signal that comes while vitest starts meets the run's handler alone (cleanups and the report happen).
 */
export function ourSignalHandlers(): SignalHandlers {
  const ours: SignalHandlers = new Map(
    (['SIGINT', 'SIGTERM'] as const).map((sig) => [sig, process.listeners(sig)]),
  );
  // 'newListener' comes before the listener is added; a signal is delivered only between event-loop
  // tasks, never before this microtask.
  const guard = (event: string | symbol) => {
    if (event === 'SIGINT' || event === 'SIGTERM') queueMicrotask(() => dropOthers(ours));
  };
  guards.set(ours, guard);
  process.on('newListener', guard);
  return ours;
}
function dropOthers(ours: SignalHandlers): void {
  for (const [sig, mine] of ours)
    for (const l of process.listeners(sig)) if (!mine.includes(l)) process.off(sig, l);
}
/** Vitest's own SIGINT/SIGTERM handlers (it exits the process) removed: the run's handler decides. */
export function keepOurSignalHandlers(ours: SignalHandlers): void {
  const guard = guards.get(ours);
  if (guard) process.off('newListener', guard);
  dropOthers(ours);
}

type VitestNode = typeof import('vitest/node');

/**
 * vitest made for the suites, by the run and by the collection of titles alike: the package as its
 * root, no config file, no watching, and the run's own signal handlers kept (vitest's would exit the
 * process on SIGINT; the run's stops it gracefully, cleanups and the report still happen).
 */
export async function suitesVitest(
  createVitest: VitestNode['createVitest'],
  options: Parameters<VitestNode['createVitest']>[1],
  config: unknown,
): Promise<Awaited<ReturnType<VitestNode['createVitest']>>> {
  const ours = ourSignalHandlers();
  const vitest = await createVitest(
    'test',
    { config: false, root: PKG_ROOT, watch: false, ...options },
    config as never,
  );
  keepOurSignalHandlers(ours);
  return vitest;
}

/** The suite files (paths from the package root, `/`-separated) that --suite strings select, as vitest does. */
export function suiteFiles(filters: string[]): string[] {
  const root = join(PKG_ROOT, 'suites');
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((f) => relative(PKG_ROOT, join(root, f)).split(sep).join('/'))
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => filters.length === 0 || filters.some((x) => f.toLowerCase().includes(x.toLowerCase())))
    .sort();
}

/** A titles cache file's entries (none when it is absent or unreadable). */
function readTitles(file: string): Record<string, string[]> {
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string[]>) : {};
  } catch {
    return {};
  }
}

/**
 * The full test names (as vitest's testNamePattern sees them: suite names and the title, joined by a
 * space) of each file, collected without running a test (vitest's collect). Kept in a cache under the
 * system's temp directory, keyed by the suite's source digest and what of the run config may shape
 * titles, so that repeated runs (the mutation matrix) collect each file once.
 */
async function titlesOf(files: string[], run: RunConfig, runFile: string): Promise<Map<string, string[]>> {
  const key = createHash('sha256')
    .update(sourceDigest())
    .update(
      JSON.stringify([
        run.profile,
        run.target.models,
        run.target.capabilities,
        run.target.allow,
        Object.keys(run.target.keys).sort(),
      ]),
    )
    .digest('hex')
    .slice(0, 32);
  const dir = join(tmpdir(), 'gateway-conformance-titles');
  const cacheFile = join(dir, `${key}.json`);
  const cache = readTitles(cacheFile);
  const missing = files.filter((f) => !cache[f]);
  if (missing.length > 0) {
    // The files are loaded by vitest's workers, which read the run file (no test body runs).
    writeFileSync(runFile, JSON.stringify({ ...run, dryRun: true }, null, 2));
    process.env[RUN_FILE_ENV] = runFile;
    const { createVitest } = await import('vitest/node');
    // Not isolated: a worker loads the suite's modules once for all the files it collects, not once per
    // file (all files: about 2 CPU-s against 28). A collection runs no test body; the titles are the same.
    const vitest = await suitesVitest(
      createVitest,
      { reporters: [], include: [SUITE_GLOB], pool: 'threads', isolate: false },
      {},
    );
    try {
      const collected = await vitest.collect(missing.map((f) => join(PKG_ROOT, f)));
      const fullName = (t: { name: string; parent: { type: string } }): string =>
        t.parent.type === 'suite' ? `${fullName(t.parent as never)} ${t.name}` : t.name;
      let complete = collected.unhandledErrors.length === 0;
      for (const mod of collected.testModules) {
        if (mod.errors().length > 0) complete = false;
        const file = relative(PKG_ROOT, mod.moduleId).split(sep).join('/');
        cache[file] = [...mod.children.allTests()].map((tc) => fullName(tc));
      }
      // A file that failed to load is not cached (its titles are unknown, not none). Runs at once (the
      // matrix's rows) each add what they collected to what the file holds by now, and each replaces it
      // whole (renamed into place): none loses another's titles or reads a file half written.
      if (complete) {
        mkdirSync(dir, { recursive: true });
        const tmp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
        writeFileSync(tmp, JSON.stringify({ ...readTitles(cacheFile), ...cache }));
        renameSync(tmp, cacheFile);
      }
    } finally {
      await vitest.close();
    }
  }
  return new Map(files.map((f) => [f, cache[f] ?? []]));
}

/** The suite files `--suite` selects, or a usage error when it selects none (cheap: no collection). */
export function checkSuiteFiles(filters: string[]): string[] {
  const files = suiteFiles(filters);
  if (files.length === 0)
    throw new UsageError(
      `--suite ${filters.join(',')}: no suite file matches (the suite files are under suites/, e.g. --suite media,auth)`,
    );
  return files;
}

/**
 * Refuse a selection that matches no test (exit 2), before the target gets any request: the suite
 * files of --suite are listed, and with --filter their tests' full names are matched as vitest matches them.
 */
export async function checkSelection(
  opts: { files?: string[]; filter?: string },
  run: RunConfig,
  runFile: string,
): Promise<void> {
  const filters = opts.files ?? [];
  const files = checkSuiteFiles(filters);
  if (opts.filter === undefined) return;
  const pattern = new RegExp(opts.filter);
  const titles = [...(await titlesOf(files, run, runFile)).values()].flat();
  if (!titles.some((t) => pattern.test(t)))
    throw new UsageError(
      `--filter ${opts.filter}: no test title matches (of ${titles.length} tests${filters.length ? ` in --suite ${filters.join(',')}` : ''}); titles start with their requirement ids, e.g. --filter AUTH-005`,
    );
}
