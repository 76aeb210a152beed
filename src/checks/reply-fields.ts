/**
 * The fields of a reply's JSON that the per-exchange checks look for by name: the points table's fields
 * and `*_credits` (exchange-points.ts, PTS-001..004), and names that suggest a leak (leaks.ts, SEC-002).
 * Found in one walk of the body, the last body's kept: the checks of one exchange run one after another,
 * each reads the list in document order, as its own walk would have found them. Why one walk: on a
 * capture the walks of every reply, three per body, were a large part of the per-exchange checks' cost.
 * Why only the last: a weak map of every body met made the collector's work grow with the bodies alive.
 */
import { type Found, pointerOf } from './json.ts';
import { kindOfName } from './leak-names.ts';
import { POINTS_FIELDS } from './points.ts';

export interface NamedField extends Found {
  /** The field's name (the last segment of its pointer). */
  name: string;
}

const POINTS = new Set<string>(POINTS_FIELDS);
/** A field of the points table ("Points representation"). */
export const isPointsName = (name: string): boolean => POINTS.has(name);
/**
 * A points field beyond the table: a name in the `*_points` form ("new conversation interfaces return
 * `*_points`"), such as the balance's platform points ("GET | /v1/balance | balance, held points, platform
 * points") or a usage record's cost_points, whose names are not shown.
 */
export const isExtraPointsName = (name: string): boolean => name.endsWith('_points') && !POINTS.has(name);
/** A field named in the older `*_credits` form. */
export const isCreditsName = (name: string): boolean => name.endsWith('_credits');

/** The last body walked and what was found in it (a parsed body is never changed). */
let last: { json: object; fields: readonly NamedField[] } | undefined;

/**
 * Whether a name is one of those (names recur across replies: each decided once, up to a bound of names
 * and of their length, as the target chooses them).
 */
const wanted = new Map<string, boolean>();
function isNamed(name: string): boolean {
  let w = wanted.get(name);
  if (w === undefined) {
    w = isPointsName(name) || isExtraPointsName(name) || isCreditsName(name) || kindOfName(name) !== null;
    if (wanted.size < 50_000 && name.length <= 256) wanted.set(name, w);
  }
  return w;
}

/**
 * Every field of a JSON value named as a points field, a `*_credits` field or a leak's, in document order
 * (json.ts walkFields' order: depth first, each property before what it holds). Its own walk rather than
 * walkFields with a visitor: this one runs on every reply, and the visitor's call per property was half
 * of its cost.
 */
export function replyFields(json: unknown): readonly NamedField[] {
  if (json === null || typeof json !== 'object') return [];
  if (last?.json === json) return last.fields;
  const fields: NamedField[] = [];
  const path: Array<string | number> = [];
  const go = (node: object): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (v !== null && typeof v === 'object') {
          path.push(i);
          go(v);
          path.pop();
        }
      }
      return;
    }
    for (const name in node) {
      if (!Object.hasOwn(node, name)) continue;
      const value: unknown = (node as Record<string, unknown>)[name];
      path.push(name);
      if (isNamed(name))
        fields.push({ name, value, parent: node as Record<string, unknown>, pointer: pointerOf(path) });
      if (value !== null && typeof value === 'object') go(value);
      path.pop();
    }
  };
  go(json);
  last = { json, fields };
  return fields;
}
