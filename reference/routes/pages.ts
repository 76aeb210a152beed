// Variant pages-oldest-first: usage and ledger served in pages of ten, oldest first, each page naming
// the next by an opaque cursor (`next_cursor`, null on the last page) sent back as `?cursor=`, as its
// live description documents (openapi patch of the variant). The contract shows neither the envelope
// nor the query parameters of these lists, so this is one allowed reading.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { sendJson } from '../legacy.ts';

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
