/**
 * Lists read whole: usage, ledger (and any list the contract leaves unshown) may come in pages, in either
 * order (judging.md: "Usage and ledger lists may come in pages, in either order ... A check that needs
 * the records a test just made reads the whole list"). A page's next page is found where a client would
 * find it: a `next` link the page gives, a cursor the page gives sent under the query parameter the live
 * description documents for the operation, or `has_more` with the last entry's id under a documented
 * `starting_after`/`after`. A list whose next page cannot be followed is *incomplete*: a check that needs
 * the whole list is then not judged, never failed.
 */
import { findEntryList, isPlainObject } from '../checks/json.ts';
import type { HttpResponse } from '../http/client.ts';
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
/** Query parameters that take the last entry's id (`has_more` style). */
const AFTER_ID_PARAMS = ['starting_after', 'after', 'after_id'];

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

const at = (root: unknown, path: string): unknown =>
  path.split('/').reduce<unknown>((node, k) => (isObj(node) ? node[k] : undefined), root);

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

/**
 * The next page's path, `null` at the end of the list, or a string saying why it cannot be followed.
 * A next link wins; then a cursor under a documented parameter; then has_more with the last entry's id.
 */
export function nextPage(
  body: unknown,
  path: string,
  documented: readonly string[],
  lastEntry: Record<string, unknown> | undefined,
): { path: string } | null | string {
  if (!isPlainObject(body)) return null;
  for (const where of NEXT_LINKS) {
    const link = at(body, where);
    if (typeof link !== 'string' || link === '') continue;
    if (link.startsWith('/')) return { path: link };
    try {
      const u = new URL(link);
      return { path: `${u.pathname}${u.search}` };
    } catch {
      // not a link: it may be a cursor under that name (below)
    }
  }
  const hasMore = body.has_more === true || body.hasMore === true;
  const sep = path.includes('?') ? '&' : '?';
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
    const param = AFTER_ID_PARAMS.find((p) => documented.includes(p));
    const id = lastEntry?.id;
    if (param && typeof id === 'string')
      return { path: `${path}${sep}${encodeURIComponent(param)}=${encodeURIComponent(id)}` };
    return 'the page says has_more but gives no next link or cursor, and the live description documents no parameter to page with';
  }
  return null;
}

/**
 * Read a list whole: its first page, then each next page (nextPage) up to MAX_PAGES. The first page
 * answered other than 2xx: undefined (the list's own tests judge that answer). `req` is sent with every page.
 */
export async function readWholeList(
  t: CheckContext,
  path: string,
  req: Req = {},
): Promise<WholeList | undefined> {
  const first = await t.get(path, req);
  if (first.status < 200 || first.status >= 300) return undefined;
  const documented = queryParams(t, path.split('?')[0] ?? path);
  const out: WholeList = { entries: [], first, last: first, pages: 1 };
  const seen = new Set<string>([path]);
  let res = first;
  for (;;) {
    const entries = (findEntryList(res.json)?.entries ?? []).filter(isPlainObject);
    out.entries.push(...entries);
    const next = nextPage(res.json, path, documented, entries.at(-1));
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
