/**
 * The fields of a reply's JSON that the per-exchange checks look for by name: the points table's fields
 * and `*_credits` (exchange-points.ts, PTS-001..004), and names that suggest a leak (leaks.ts, SEC-002).
 * Found in one walk of the body, the last body's kept: the checks of one exchange run one after another,
 * each reads the list in document order, as its own walk would have found them. Why one walk: on a
 * capture the walks of every reply, three per body, were a large part of the per-exchange checks' cost.
 * Why only the last: a weak map of every body met made the collector's work grow with the bodies alive.
 */
import { type Found, pointerOf, walkFields } from './json.ts';
import { kindOfName } from './leak-names.ts';
import { POINTS_FIELDS } from './points.ts';

export interface NamedField extends Found {
  /** The field's name (the last segment of its pointer). */
  name: string;
}

const POINTS = new Set<string>(POINTS_FIELDS);
/** A field of the points table ("Points representation"). */
export const isPointsName = (name: string): boolean => POINTS.has(name);
/** A field named in the older `*_credits` form. */
export const isCreditsName = (name: string): boolean => name.endsWith('_credits');

/** The last body walked and what was found in it (a parsed body is never changed). */
let last: { json: object; fields: readonly NamedField[] } | undefined;

/** Every field of a JSON value named as a points field, a `*_credits` field or a leak's, in document order. */
export function replyFields(json: unknown): readonly NamedField[] {
  if (json === null || typeof json !== 'object') return [];
  if (last?.json === json) return last.fields;
  const fields: NamedField[] = [];
  walkFields(json, (name, value, parent, path) => {
    if (isPointsName(name) || isCreditsName(name) || kindOfName(name) !== null)
      fields.push({ name, value, parent, pointer: pointerOf(path) });
  });
  last = { json, fields };
  return fields;
}
