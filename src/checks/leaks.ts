import type { HttpResponse } from '../http/client.ts';
import { pkgPath } from '../paths.ts';
import { readYaml } from '../yaml-cache.ts';
import type { Finding } from './exchange.ts';
import { pointerOf, walkFields } from './json.ts';

interface Kind {
  description: string;
  names: RegExp[];
  values: RegExp[];
}

interface Patterns {
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
function kindOfName(p: Patterns, name: string): [string, Kind] | null {
  let kind = nameKinds.get(name);
  if (kind === undefined) {
    kind = p.kinds.find(([, k]) => k.names.some((re) => re.test(name))) ?? null;
    if (nameKinds.size < 50_000) nameKinds.set(name, kind);
  }
  return kind;
}

/**
 * SEC-002 on suspicion: names that suggest upstream keys, purchase cost, nodes or routing; a failure
 * when the value looks like that kind, else advisory. Skips /openapi.json (a description names fields).
 */
export function suspiciousFields(res: HttpResponse): Finding[] {
  const p = leakPatterns();
  const out: Finding[] = [];
  const where = `${res.method} ${res.exchange.path}`;
  const judge = (name: string, value: unknown, location: string, pointer?: string) => {
    const kind = kindOfName(p, name);
    if (kind) {
      const k = kind[1];
      const text = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
      const looks = text !== undefined && k.values.some((re) => re.test(text));
      out.push({
        id: 'SEC-002',
        message: `${where}: ${location} is named like ${k.description} (${kind[0]})${looks ? ' and its value looks like one' : ''}`,
        ...(pointer ? { pointer } : {}),
        ...(looks ? {} : { level: 'notable' as const }),
      });
    }
  };
  for (const [name, value] of Object.entries(res.headers)) {
    if (!p.ignoreHeaders.has(name)) judge(name, value, `header ${name}`);
  }
  if (res.json !== undefined && !res.rawPath.startsWith('/openapi.json')) {
    walkFields(res.json, (name, value, _parent, path) => {
      if (kindOfName(p, name)) {
        const pointer = pointerOf(path);
        judge(name, value, `field ${pointer}`, pointer);
      }
    });
  }
  return out;
}
