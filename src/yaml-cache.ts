/**
 * The suite's YAML fixtures, parsed once per content: every worker thread of every run needs the
 * requirement catalogue and the media table, and parsing them cold costs more than the rest of a
 * worker's start-up. The parsed value is kept as JSON in a cache directory under the system's
 * temporary directory, named by the sha256 of the file's text, so an edited fixture is parsed again;
 * a value JSON cannot hold exactly (e.g. .inf) is never cached. Cache trouble (read-only, full disk)
 * only costs the parse. readCached and writeCached serve the suite's other caches (src/openapi/live.ts).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
/**
 * The YAML parser, loaded on first use: a worker thread that finds every fixture in the cache (the usual
 * case) and reads no targets file never loads it (about 45 ms of CPU per thread).
 */
export const yaml = (): typeof import('yaml') => require('yaml') as typeof import('yaml');

/** The suite's caches (this one, vitest's transformed modules): under the system's temp directory, per user. */
export const CACHE_ROOT = join(tmpdir(), `gateway-conformance-cache-${process.getuid?.() ?? 'user'}`);
export const YAML_CACHE_DIR = join(CACHE_ROOT, 'yaml-v1');

export function readYaml(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const name = `${createHash('sha256').update(text).digest('hex')}.json`;
  const cached = readCached(YAML_CACHE_DIR, name);
  if (cached !== undefined) {
    try {
      return JSON.parse(cached);
    } catch {
      // unreadable: parse it
    }
  }
  const value: unknown = yaml().parse(text);
  if (jsonExact(value)) writeCached(YAML_CACHE_DIR, name, JSON.stringify(value));
  return value;
}

let trusted: boolean | undefined;
/**
 * Whether the suite's caches may be used: CACHE_ROOT is a directory of this user's that nobody else may
 * write (trustedDir). What they hold decides verdicts and runs as code (transformed modules, validators),
 * so a directory someone else made or can write under the shared temporary directory is not used.
 */
export function cacheRootTrusted(): boolean {
  trusted ??= trustedDir(CACHE_ROOT);
  return trusted;
}

/** `dir` (made with mode 0700 when absent) is a directory of this user's that no one else may write. */
export function trustedDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** A file of one of the suite's caches (`dir` under CACHE_ROOT): its text, or undefined when absent or unreadable. */
export function readCached(dir: string, name: string): string | undefined {
  if (!cacheRootTrusted()) return undefined;
  try {
    return readFileSync(join(dir, name), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Keep `text` in one of the suite's caches, written whole or not at all (a temporary file renamed into
 * place), so a reader in another thread or process never reads half of it. Cache trouble (read-only,
 * full disk) is ignored: the next reader computes the value again.
 */
export function writeCached(dir: string, name: string, text: string): void {
  if (!cacheRootTrusted()) return;
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = join(dir, `${name}.${process.pid}.${Math.random().toString(36).slice(2)}`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(dir, name));
  } catch {
    // no cache: the next reader computes it again
  }
  if (!pruned.has(dir)) {
    pruned.add(dir);
    pruneCache(dir, CACHE_MAX_FILES);
  }
}

/** A cache directory holds at most this many entries (each description adds a few hundred validators). */
export const CACHE_MAX_FILES = 20_000;
const pruned = new Set<string>();

/**
 * Keep a cache directory bounded (entries of descriptions and code long gone would pile up in the temp
 * directory): past `max` entries, the least recently written are removed down to three quarters of it.
 * Done at most once per process and directory, on its first write. Returns how many were removed.
 */
export function pruneCache(dir: string, max: number): number {
  try {
    const names = readdirSync(dir);
    if (names.length <= max) return 0;
    const byAge = names
      .map((n) => {
        try {
          return { n, at: statSync(join(dir, n)).mtimeMs };
        } catch {
          return { n, at: 0 };
        }
      })
      .sort((a, b) => a.at - b.at);
    const drop = byAge.slice(0, names.length - Math.floor((max * 3) / 4));
    for (const { n } of drop) rmSync(join(dir, n), { force: true });
    return drop.length;
  } catch {
    return 0;
  }
}

/** Whether JSON round-trips the value unchanged: null, booleans, finite numbers, strings, arrays, plain objects. */
export function jsonExact(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(jsonExact);
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
    return Object.values(v as object).every(jsonExact);
  return false;
}
