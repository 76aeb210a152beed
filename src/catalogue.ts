import { pkgPath } from './paths.ts';
import type { Level, Violation } from './vocabulary.ts';
import { readYaml } from './yaml-cache.ts';

export interface Requirement {
  id: string;
  section: string;
  words: string;
  level: Level;
  testable: boolean;
  why?: string;
  readings?: string[];
  /**
   * What a run must see for the requirement to be judged (an answer's status, a terminal event, a field
   * present, a refusal whose control was accepted): the reason it is *not judged* when no test observed it.
   */
  form?: string;
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

/**
 * The one way a violation is made: its level from the catalogue (a finding may lower it to `notable`),
 * its severity from that level (an implied invariant fails only under --strict).
 */
export function violation(
  id: string,
  message: string,
  /**
   * `level` overrides the catalogue's: `notable` for a finding the contract leaves open, `failure` for
   * the stated part of a requirement that is implied otherwise (judging.md: a usage record absent after
   * a bounded wait "is a failure of USAGE-080", while its charge compared with the reply's is implied).
   */
  opts: { strict?: boolean; level?: 'notable' | 'failure' } = {},
): Violation & { count: number } {
  const req = requirement(id); // an unknown id throws, whatever the level asked
  const level = opts.level ?? req.level;
  const severity = level === 'failure' || (level === 'implied' && opts.strict) ? 'failure' : 'advisory';
  return { id, level, severity, message, count: 1 };
}

/** A violation the run could not judge (the balance ran out, a 429 answered): kept as a note, not a failure. */
export function notJudged(v: Violation, because: string): void {
  v.level = 'notable';
  v.severity = 'advisory';
  v.message = `not judged, ${because}: ${v.message}`;
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

/** What a run must see to judge a requirement, in words (its catalogue `form`, else a general wording). */
export function formOf(id: string): string {
  return (
    catalogue().get(id)?.form ??
    'an answer of the form its rule speaks of (no judged test evaluated its rule)'
  );
}
