import { pkgPath } from './paths.ts';
import type { Level } from './vocabulary.ts';
import { readYaml } from './yaml-cache.ts';

export interface Requirement {
  id: string;
  section: string;
  words: string;
  level: Level;
  testable: boolean;
  why?: string;
  readings?: string[];
}

export const ID_PATTERN = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*-\d{3}$/;

let cached: Map<string, Requirement> | undefined;

/** The requirement catalogue (fixtures/requirements.yaml), by id. */
export function catalogue(): Map<string, Requirement> {
  if (!cached) {
    const doc = readYaml(pkgPath('fixtures', 'requirements.yaml')) as {
      requirements: Requirement[];
    };
    cached = new Map(doc.requirements.map((r) => [r.id, r]));
  }
  return cached;
}

export function requirement(id: string): Requirement {
  const r = catalogue().get(id);
  if (!r) throw new Error(`unknown requirement id ${id}: add it to fixtures/requirements.yaml`);
  return r;
}

/** Requirement ids at the front of a test title (`AUTH-001 AUTH-009 rejects ...`). */
export function idsOfTitle(title: string): string[] {
  const ids: string[] = [];
  for (const word of title.split(/\s+/)) {
    if (!ID_PATTERN.test(word)) break;
    ids.push(word);
  }
  return ids;
}
