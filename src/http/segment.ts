import { TransportError } from '../errors.ts';

/**
 * An id a target handed out that cannot be one path segment (`.`, `..`, empty, not a string): the URL
 * parser would remove or merge it and the request would reach another resource (`DELETE
 * /v1/media/inputs/..` goes out as `DELETE /v1/media/`). Never sent: it is the target's failure, like a
 * transport failure (a GEN-001 violation with this message), never the harness's.
 */
export class UnsendableId extends TransportError {
  override name = 'UnsendableId';
  constructor(what: string, id: unknown) {
    super(
      `${what} ${JSON.stringify(id) ?? String(id)} cannot be one path segment (a dot segment or empty): not sent`,
      'UNSENDABLE_ID',
    );
  }
}

/**
 * One id, one path segment: every character the URL syntax gives a meaning (`/ ? # % :` and the rest)
 * percent-encoded, and the ids no encoding keeps in place (`.`, `..`, empty: the WHATWG parser also
 * reads `%2e` as a dot) refused before sending. `what` names the id in the message (`input id`).
 */
export function segment(id: unknown, what = 'id'): string {
  if (typeof id !== 'string' && typeof id !== 'number') throw new UnsendableId(what, id);
  const s = String(id);
  if (s === '' || s === '.' || s === '..') throw new UnsendableId(what, id);
  return encodeURIComponent(s);
}

/** A dot segment (`.` `..` or their `%2e` forms) in a path: the URL parser would rewrite the path. */
export function hasDotSegment(path: string): boolean {
  const p = path.split(/[?#]/, 1)[0] ?? '';
  return p.split('/').some((s) => /^(\.|%2e){1,2}$/i.test(s));
}
