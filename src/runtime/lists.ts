/**
 * Lists read whole: usage, ledger (and any list the contract leaves unshown) may come in pages, in either
 * order (judging.md: "Usage and ledger lists may come in pages, in either order ... A check that needs
 * the records a test just made reads the whole list"). A page's next page is found where a client would
 * find it: a `next` link the page gives (in its body or an RFC 8288 `Link: <…>; rel="next"` header), a
 * cursor the page gives sent under the query parameter the live description documents for the operation,
 * a next page number (or the page's own number and a page count beyond it) under a documented `page`,
 * or "more follow" (`has_more`, `has_next`, `hasNextPage`, `last: false`, at the top or under
 * `pagination`, `meta`, `paging`, `pageInfo`) with the last entry's id under a documented
 * `starting_after`/`after`, or, where a page names none but states a larger total than was read, the
 * documented `offset`. A list whose next page cannot be followed is *incomplete*: a check that needs
 * the whole list is then not judged, never failed.
 */
import { findEntryList, isPlainObject } from '../checks/json.ts';
import type { HttpResponse } from '../http/client.ts';
import { memoize } from '../memo.ts';
import { isObj } from '../openapi/document.ts';
import type { CheckContext, Req } from './check.ts';

/** Pages read at most per list: a longer history is not read whole (incomplete), never failed. */
export const MAX_PAGES = 100;

/** Where a page names its next page as a link (a path or a URL). */
const NEXT_LINKS = ['next', 'next_url', 'next_page_url', 'links/next', 'paging/next', '_links/next/href'];
/** Where a page gives an opaque cursor for its next page. */
const NEXT_CURSORS = [
  'next_cursor',
  'next_page_token',
  'nextPageToken',
  'cursor/next',
  'paging/cursor',
  'pagination/next_cursor',
  'meta/next_cursor',
];
/** Query parameters that take a cursor, in the order they are tried against the live description. */
const CURSOR_PARAMS = [
  'cursor',
  'page_token',
  'pageToken',
  'after',
  'next_cursor',
  'continuation_token',
  'next',
];
/** Where a page says more entries follow (`true`), under the names list envelopes commonly give it. */
const HAS_MORE = [
  'has_more',
  'hasMore',
  'has_next',
  'hasNext',
  'has_next_page',
  'hasNextPage',
  'more',
].flatMap((name) => [
  name,
  ...['pagination', 'meta', 'paging', 'pageInfo', 'page_info'].map((at) => `${at}/${name}`),
]);
/** Where a page says whether it is the last (`false`: more follow; Spring's `last`). */
const IS_LAST = ['last', 'is_last', 'isLast', 'pagination/last', 'meta/last'];
/** Query parameters that take the last entry's id (`has_more` style). */
const AFTER_ID_PARAMS = ['starting_after', 'after', 'after_id'];
/** Where a page gives the number of its next page (`?page=`). */
const NEXT_PAGE_NUMBERS = [
  'next_page',
  'nextPage',
  'pagination/next_page',
  'meta/next_page',
  'paging/next_page',
];
/** Where a page gives its own number, counted from 1. */
const PAGE_NUMBERS = [
  'page',
  'current_page',
  'currentPage',
  'pagination/page',
  'pagination/current_page',
  'meta/page',
  'meta/current_page',
];
/** Where a page gives how many pages the list has. */
const PAGE_COUNTS = [
  'total_pages',
  'totalPages',
  'last_page',
  'page_count',
  'pagination/total_pages',
  'pagination/last_page',
  'meta/total_pages',
  'meta/last_page',
];
/** Query parameters that take a page number. */
const PAGE_PARAMS = ['page', 'page_number', 'pageNumber'];

const integerAt = (body: unknown, places: readonly string[]): number | undefined => {
  for (const where of places) {
    const v = at(body, where);
    if (typeof v === 'number' && Number.isInteger(v)) return v;
  }
  return undefined;
};

export interface WholeList {
  /** Every page's entries, in the order served (which order that is, is not assumed). */
  entries: Array<Record<string, unknown>>;
  /** The first page's answer (the list's own tests judge its shape). */
  first: HttpResponse;
  /** The last page read. */
  last: HttpResponse;
  pages: number;
  /** Set when the whole list was not read: why (a page not answered 2xx, a next page that cannot be followed). */
  incomplete?: string;
}

/** Whether `entry` (by its id) is among `read`. */
const knownAlready = (
  read: ReadonlyArray<Record<string, unknown>>,
  entry: Record<string, unknown> | undefined,
) => entry !== undefined && entry.id !== undefined && read.some((e) => e.id === entry.id);

/** The value at a `/`-separated path of field names (the places above: each split once). */
function at(root: unknown, path: string): unknown {
  let node = root;
  for (const k of placeKeys(path)) node = isObj(node) ? node[k] : undefined;
  return node;
}
const placeKeys = memoize((path: string) => path.split('/'));

/** The query parameters the live description documents for `GET path` (empty without a description). */
function queryParams(t: CheckContext, path: string): string[] {
  const live = t.live;
  const op = live?.document.operationFor('GET', path);
  if (!live || !op) return [];
  const params = [
    ...(Array.isArray(op.item.parameters) ? op.item.parameters : []),
    ...(Array.isArray(op.op.parameters) ? op.op.parameters : []),
  ];
  return params
    .map((p) => live.document.deref(p))
    .filter((p): p is Record<string, unknown> => !!p && p.in === 'query' && typeof p.name === 'string')
    .map((p) => p.name as string);
}

/** A link as a path to request: a path as given, a URL's path and query; undefined when it is neither. */
function linkPath(link: string): string | undefined {
  if (link.startsWith('/')) return link;
  try {
    const u = new URL(link);
    return `${u.pathname}${u.search}`;
  } catch {
    return undefined;
  }
}

/**
 * The target of the `rel="next"` link of an RFC 8288 `Link` header (`<url>; rel="next"`, among others
 * separated by commas; `rel` may list several relation types), or undefined where it names none.
 */
export function linkHeaderNext(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/s.exec(part);
    const rel = m && /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(m[2] ?? '');
    if (rel && (rel[1] ?? rel[2] ?? '').toLowerCase().split(/\s+/).includes('next')) return m[1];
  }
  return undefined;
}

/**
 * The next page's path, `null` at the end of the list, or a string saying why it cannot be followed.
 * A next link wins (the body's, then a `Link` header's, `link` its value); then a cursor under a
 * documented parameter; then has_more with the last entry's id.
 */
export function nextPage(
  body: unknown,
  path: string,
  documented: readonly string[],
  lastEntry: Record<string, unknown> | undefined,
  link?: string,
): { path: string } | null | string {
  const headed = linkHeaderNext(link);
  const fromHeader = headed === undefined ? undefined : linkPath(headed);
  if (!isPlainObject(body)) return fromHeader ? { path: fromHeader } : null;
  for (const where of NEXT_LINKS) {
    const link = at(body, where);
    if (typeof link !== 'string' || link === '') continue;
    const next = linkPath(link);
    if (next) return { path: next };
    // not a link: it may be a cursor under that name (below)
  }
  if (fromHeader) return { path: fromHeader };
  if (headed !== undefined)
    return `the page's Link header names a next page that is not a link (${headed.slice(0, 80)})`;
  // Page numbers: this page's (from 1) and how many there are, where the page says them.
  const pageNo = integerAt(body, PAGE_NUMBERS);
  const pageCount = integerAt(body, PAGE_COUNTS);
  const hasMore =
    HAS_MORE.some((where) => at(body, where) === true) ||
    IS_LAST.some((where) => at(body, where) === false) ||
    (pageCount !== undefined && (pageNo === undefined ? pageCount > 1 : pageCount > pageNo));
  const sep = path.includes('?') ? '&' : '?';
  const pageParam = PAGE_PARAMS.find((p) => documented.includes(p));
  const nextNo = integerAt(body, NEXT_PAGE_NUMBERS);
  if (nextNo !== undefined) {
    if (pageParam) return { path: `${path}${sep}${encodeURIComponent(pageParam)}=${nextNo}` };
    return `the page gives the number of its next page (${nextNo}) but the live description documents no page parameter to ask for it`;
  }
  for (const where of [...NEXT_CURSORS, ...NEXT_LINKS]) {
    const cursor = at(body, where);
    if (typeof cursor !== 'string' || cursor === '') continue;
    const param =
      CURSOR_PARAMS.find((p) => documented.includes(p)) ??
      (documented.length === 1 ? documented[0] : undefined);
    if (!param)
      return `the page gives a next cursor (${where}) but the live description documents no query parameter to send it under`;
    return { path: `${path}${sep}${encodeURIComponent(param)}=${encodeURIComponent(cursor)}` };
  }
  if (hasMore) {
    // The page after this one by its number, where the page says it and a page parameter is documented.
    if (pageNo !== undefined && pageParam)
      return { path: `${path}${sep}${encodeURIComponent(pageParam)}=${pageNo + 1}` };
    const param = AFTER_ID_PARAMS.find((p) => documented.includes(p));
    const id = lastEntry?.id;
    if (param && typeof id === 'string')
      return { path: `${path}${sep}${encodeURIComponent(param)}=${encodeURIComponent(id)}` };
    return 'the page says more entries follow (has_more, has_next, a page count beyond it) but gives no next link or cursor, and the live description documents no parameter to page with';
  }
  return null;
}

/** Where a page states the size of the whole list (`{data, total, offset, limit}` and the like). */
const TOTALS = [
  'total',
  'total_count',
  'totalCount',
  'count',
  'meta/total',
  'pagination/total',
  'paging/total',
];

/** The size of the whole list a page states, if it states one above the `read` entries: more to read. */
export function statedBeyond(body: unknown, read: number): number | undefined {
  if (!isPlainObject(body)) return undefined;
  for (const where of TOTALS) {
    const v = at(body, where);
    if (typeof v === 'number' && Number.isInteger(v)) return v > read ? v : undefined;
  }
  return undefined;
}

/**
 * A page that names no next page but states more entries than were read (statedBeyond): its next page
 * by a documented `offset` (the entries read so far), `null` where it states no more, or a string
 * saying why the rest cannot be read.
 */
export function offsetPage(
  body: unknown,
  path: string,
  documented: readonly string[],
  read: number,
): { path: string } | null | string {
  const total = statedBeyond(body, read);
  if (total === undefined) return null;
  if (documented.includes('offset'))
    return { path: `${path}${path.includes('?') ? '&' : '?'}offset=${read}` };
  return `the page says the list holds ${total} entries, ${read} were read, and names no next page (no link or cursor, no documented offset)`;
}

/**
 * Read a list whole: its first page, then each next page (nextPage) up to MAX_PAGES. The first page
 * answered other than 2xx: undefined (the list's own tests judge that answer). `req` is sent with every page.
 */
export async function readWholeList(
  t: CheckContext,
  path: string,
  req: Req = {},
  /** What an entry of this list is, where a page may hold other lists (a catalog's entries name an id). */
  isEntry?: (e: unknown) => boolean,
): Promise<WholeList | undefined> {
  const first = await t.get(path, req);
  if (first.status < 200 || first.status >= 300) return undefined;
  const documented = queryParams(t, path.split('?')[0] ?? path);
  const out: WholeList = { entries: [], first, last: first, pages: 1 };
  const seen = new Set<string>([path]);
  let res = first;
  /** Whether the page in hand was asked for by offset (its list states a total, names no next page). */
  let byOffset = false;
  for (;;) {
    const entries = (findEntryList(res.json, isEntry)?.entries ?? []).filter(isPlainObject);
    // A page asked for by offset that brings nothing new ends the list: a total that counts something
    // else, or an offset the server ignores (its first entry read already).
    if (byOffset && entries.length === 0) return out;
    if (byOffset && knownAlready(out.entries, entries[0]))
      return { ...out, incomplete: `page ${out.pages} (asked for by offset) repeats an entry already read` };
    out.entries.push(...entries);
    let next = nextPage(res.json, path, documented, entries.at(-1), res.headers.link);
    byOffset = next === null;
    next ??= offsetPage(res.json, path, documented, out.entries.length);
    if (next === null) return out;
    if (typeof next === 'string') return { ...out, incomplete: next };
    if (seen.has(next.path))
      return { ...out, incomplete: `the page's next page is one already read (${next.path})` };
    if (out.pages >= MAX_PAGES)
      return { ...out, incomplete: `more than ${MAX_PAGES} pages: the list was not read whole` };
    seen.add(next.path);
    res = await t.get(next.path, req);
    out.pages++;
    out.last = res;
    if (res.status < 200 || res.status >= 300)
      return { ...out, incomplete: `page ${out.pages} (${next.path}) was answered ${res.status}` };
  }
}
