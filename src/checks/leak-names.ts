/**
 * The names that suggest a leak (SEC-002, fixtures/leak-patterns.yaml): the kinds, their name and value
 * patterns, and the kind a field or header name suggests. Apart from the check (leaks.ts) so that the
 * one walk of a reply's named fields (reply-fields.ts) asks the same question.
 */
import { pkgPath } from '../paths.ts';
import { readYaml } from '../yaml-cache.ts';

export interface Kind {
  description: string;
  names: RegExp[];
  values: RegExp[];
}

export interface Patterns {
  ignoreHeaders: Set<string>;
  kinds: Array<[string, Kind]>;
}

let cached: Patterns | undefined;

/** The leak patterns of fixtures/leak-patterns.yaml, compiled once. */
export function leakPatterns(): Patterns {
  if (!cached) {
    const doc = readYaml(pkgPath('fixtures', 'leak-patterns.yaml')) as {
      ignore_headers: string[];
      kinds: Record<string, { description: string; names: string[]; values: string[] }>;
    };
    cached = {
      ignoreHeaders: new Set(doc.ignore_headers.map((h) => h.toLowerCase())),
      kinds: Object.entries(doc.kinds).map(([k, v]) => [
        k,
        {
          description: v.description,
          names: v.names.map((n) => new RegExp(n, 'i')),
          values: v.values.map((n) => new RegExp(n, 'i')),
        },
      ]),
    };
  }
  return cached;
}

const nameKinds = new Map<string, [string, Kind] | null>();
/** The leak kind a field or header name suggests (names repeat across replies: cached). */
export function kindOfName(name: string, p: Patterns = leakPatterns()): [string, Kind] | null {
  let kind = nameKinds.get(name);
  if (kind === undefined) {
    kind = p.kinds.find(([, k]) => k.names.some((re) => re.test(name))) ?? null;
    // Bounded in number and length: the names are the target's to choose.
    if (nameKinds.size < 50_000 && name.length <= 256) nameKinds.set(name, kind);
  }
  return kind;
}
