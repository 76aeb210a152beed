// Variant pages-by-offset: the same pages, naming no next page but the list's `total`, the next one asked
// for by `?offset=` (documented so). Both are allowed readings of lists whose envelope and query
// parameters are not shown.
// Variant pages-oldest-first: usage and ledger served in pages of ten, oldest first, each page naming
// the next by an opaque cursor (`next_cursor`, null on the last page) sent back as `?cursor=`, as its
// live description documents (openapi patch of the variant). The contract shows neither the envelope
// nor the query parameters of these lists, so this is one allowed reading.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { sendJson } from '../legacy.ts';
import { isVariant } from '../reach.ts';

export const PAGE_SIZE = 10;

const cursorOf = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');

function offsetOf(cursor: unknown): number | undefined {
  if (cursor === undefined) return 0;
  if (typeof cursor !== 'string') return undefined;
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

/** One page of `items` (oldest first) at the request's cursor, or 400 for a cursor it never gave. */
export function sendPage(
  ctx: RefContext,
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly unknown[],
): FastifyReply {
  const offset = offsetOf((request.query as Record<string, unknown> | undefined)?.cursor);
  if (offset === undefined) return sendError(reply, ctx, 'invalid_request', 'Unknown cursor.');
  const end = offset + PAGE_SIZE;
  return sendJson(ctx, request, reply, {
    object: 'list',
    data: items.slice(offset, end),
    next_cursor: end < items.length ? cursorOf(end) : null,
  });
}

/** Variant pages-by-offset: one page of `items` (oldest first) at the request's `offset`, with the total. */
export function sendOffsetPage(
  ctx: RefContext,
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly unknown[],
): FastifyReply {
  const raw = (request.query as Record<string, unknown> | undefined)?.offset ?? '0';
  const offset = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
  if (offset === undefined) return sendError(reply, ctx, 'invalid_request', 'offset is a count of entries.');
  return sendJson(ctx, request, reply, {
    object: 'list',
    data: items.slice(offset, offset + PAGE_SIZE),
    total: items.length,
    offset,
    limit: PAGE_SIZE,
  });
}

/**
 * Variant pages-link-header: one page of `items` (oldest first) at the request's `page`, the next page
 * named only by an RFC 8288 `Link: <url>; rel="next"` header (an absolute URL), the body saying
 * `pagination.has_more`.
 */
export function sendLinkedPage(
  ctx: RefContext,
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly unknown[],
): FastifyReply {
  const offset = offsetOf((request.query as Record<string, unknown> | undefined)?.page);
  if (offset === undefined) return sendError(reply, ctx, 'invalid_request', 'Unknown page.');
  const end = offset + PAGE_SIZE;
  const more = end < items.length;
  if (more) {
    const path = request.url.split('?')[0] ?? request.url;
    reply.header('link', `<${request.protocol}://${request.host}${path}?page=${cursorOf(end)}>; rel="next"`);
  }
  return sendJson(ctx, request, reply, {
    object: 'list',
    data: items.slice(offset, end),
    pagination: { has_more: more },
  });
}

/**
 * Variant pages-by-number: page `?page=N` (from 1) of `items` (oldest first), saying its number, the
 * number of pages and whether another follows; no next link or cursor.
 */
export function sendNumberedPage(
  ctx: RefContext,
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly unknown[],
): FastifyReply {
  const raw = (request.query as Record<string, unknown> | undefined)?.page ?? '1';
  const page = typeof raw === 'string' && /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : undefined;
  if (page === undefined) return sendError(reply, ctx, 'invalid_request', 'page is a page number from 1.');
  const pages = Math.max(1, Math.ceil(items.length / PAGE_SIZE));
  return sendJson(ctx, request, reply, {
    object: 'list',
    data: items.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    page,
    per_page: PAGE_SIZE,
    total_pages: pages,
    has_next: page < pages,
  });
}

/** The page the list's variant serves, if any (pages-oldest-first, pages-by-offset, pages-link-header, pages-by-number). */
export function sendPaged(
  ctx: RefContext,
  request: FastifyRequest,
  reply: FastifyReply,
  items: readonly unknown[],
): FastifyReply | undefined {
  if (isVariant(ctx, 'pages-oldest-first')) return sendPage(ctx, request, reply, items);
  if (isVariant(ctx, 'pages-by-offset')) return sendOffsetPage(ctx, request, reply, items);
  if (isVariant(ctx, 'pages-link-header')) return sendLinkedPage(ctx, request, reply, items);
  if (isVariant(ctx, 'pages-by-number')) return sendNumberedPage(ctx, request, reply, items);
  return undefined;
}
