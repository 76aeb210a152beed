/**
 * nextPage: where a client finds the next page of a list whose envelope and query the contract does not
 * show (judging.md: "the cursor the live description documents, or the `next` link or cursor the page
 * itself gives"); a next page that cannot be followed is a reason, never a guess.
 */
import { describe, expect, it } from 'vitest';
import { linkHeaderNext, nextPage, offsetPage, statedBeyond } from '../../src/runtime/lists.ts';

const entry = { id: 'u_9' };

describe('nextPage', () => {
  it('ends where the page names no next page', () => {
    expect(nextPage({ object: 'list', data: [entry] }, '/v1/usage', [], entry)).toBeNull();
    expect(nextPage({ data: [entry], next_cursor: null }, '/v1/usage', ['cursor'], entry)).toBeNull();
    expect(nextPage({ data: [entry], has_more: false }, '/v1/usage', ['starting_after'], entry)).toBeNull();
    expect(nextPage([entry], '/v1/usage', [], entry)).toBeNull();
  });

  it('follows a next link the page gives, a path or a URL (its path and query)', () => {
    expect(nextPage({ data: [], next: '/v1/usage?page=2' }, '/v1/usage', [], entry)).toEqual({
      path: '/v1/usage?page=2',
    });
    expect(
      nextPage(
        { data: [], links: { next: 'https://api.example/v1/ledger?after=x' } },
        '/v1/ledger',
        [],
        entry,
      ),
    ).toEqual({ path: '/v1/ledger?after=x' });
  });

  it('follows the rel="next" link of a Link header (RFC 8288) where the body names none', () => {
    const header =
      '<https://api.example/v1/usage?page=b2>; rel="next", <https://api.example/v1/usage>; rel="first"';
    expect(linkHeaderNext(header)).toBe('https://api.example/v1/usage?page=b2');
    expect(linkHeaderNext('</v1/usage?p=2>; rel=next')).toBe('/v1/usage?p=2');
    expect(linkHeaderNext('</v1/usage?p=1>; rel="prev last"')).toBeUndefined();
    expect(linkHeaderNext('</a>; title="x"; REL="prev next"')).toBe('/a');
    expect(linkHeaderNext(undefined)).toBeUndefined();
    const page = { data: [entry], pagination: { has_more: true } };
    expect(nextPage(page, '/v1/usage', [], entry, header)).toEqual({ path: '/v1/usage?page=b2' });
    // Not a body: a header still names the next page.
    expect(nextPage([entry], '/v1/usage', [], entry, '</v1/usage?p=2>; rel="next"')).toEqual({
      path: '/v1/usage?p=2',
    });
    // The body's own link wins.
    expect(nextPage({ data: [], next: '/v1/usage?x=1' }, '/v1/usage', [], entry, header)).toEqual({
      path: '/v1/usage?x=1',
    });
    // A header with no next, at the end of the list.
    expect(
      nextPage(
        { data: [entry], pagination: { has_more: false } },
        '/v1/usage',
        [],
        entry,
        '</v1/usage>; rel="first"',
      ),
    ).toBeNull();
  });

  it('reads has_more under pagination, meta or paging as well as at the top', () => {
    for (const page of [
      { pagination: { has_more: true } },
      { meta: { has_more: true } },
      { paging: { has_more: true } },
    ])
      expect(nextPage({ data: [entry], ...page }, '/v1/usage', ['after'], entry)).toEqual({
        path: '/v1/usage?after=u_9',
      });
    expect(nextPage({ data: [entry], pagination: { has_more: true } }, '/v1/usage', [], entry)).toMatch(
      /has_more/,
    );
  });

  it('sends a cursor the page gives under the query parameter the live description documents', () => {
    expect(nextPage({ data: [], next_cursor: 'b2:10' }, '/v1/usage', ['limit', 'cursor'], entry)).toEqual({
      path: '/v1/usage?cursor=b2%3A10',
    });
    // The only documented query parameter takes it, whatever its name.
    expect(nextPage({ data: [], next_page_token: 't' }, '/v1/ledger', ['pos'], entry)).toEqual({
      path: '/v1/ledger?pos=t',
    });
    // A first page that has a query of its own keeps it.
    expect(nextPage({ data: [], next_cursor: 'c' }, '/v1/usage?limit=5', ['cursor'], entry)).toEqual({
      path: '/v1/usage?limit=5&cursor=c',
    });
  });

  it('says why, rather than guessing, when the cursor has no documented parameter', () => {
    expect(nextPage({ data: [], next_cursor: 'c' }, '/v1/usage', [], entry)).toMatch(
      /documents no query parameter/,
    );
    expect(nextPage({ data: [], next_cursor: 'c' }, '/v1/usage', ['limit', 'sort'], entry)).toMatch(
      /documents no query parameter/,
    );
  });

  it('pages has_more with the last entry id under a documented starting_after or after', () => {
    expect(nextPage({ data: [entry], has_more: true }, '/v1/usage', ['starting_after'], entry)).toEqual({
      path: '/v1/usage?starting_after=u_9',
    });
    expect(nextPage({ data: [entry], has_more: true }, '/v1/usage', [], entry)).toMatch(/has_more/);
  });
});

describe('nextPage: more follow, said otherwise', () => {
  it('hears has_next, hasNextPage, pageInfo, last: false and a page count beyond the page as more', () => {
    for (const page of [
      { has_next: true },
      { hasNextPage: true },
      { pageInfo: { hasNextPage: true } },
      { meta: { has_next: true } },
      { last: false },
      { total_pages: 3, page: 2 },
      { totalPages: 2 },
    ])
      expect(nextPage({ data: [entry], ...page }, '/v1/usage', [], entry)).toMatch(/more entries follow/);
    for (const page of [{ has_next: false }, { last: true }, { total_pages: 2, page: 2 }, { totalPages: 1 }])
      expect(nextPage({ data: [entry], ...page }, '/v1/usage', [], entry)).toBeNull();
  });

  it('asks for the next page by its number under a documented page parameter', () => {
    expect(nextPage({ data: [entry], next_page: 3 }, '/v1/usage', ['page'], entry)).toEqual({
      path: '/v1/usage?page=3',
    });
    expect(
      nextPage({ data: [entry], page: 1, total_pages: 4 }, '/v1/usage?limit=5', ['page'], entry),
    ).toEqual({
      path: '/v1/usage?limit=5&page=2',
    });
    expect(nextPage({ data: [entry], has_next: true, page: 2 }, '/v1/usage', ['page_number'], entry)).toEqual(
      {
        path: '/v1/usage?page_number=3',
      },
    );
    expect(nextPage({ data: [entry], next_page: 3 }, '/v1/usage', [], entry)).toMatch(
      /documents no page parameter/,
    );
    expect(nextPage({ data: [entry], next_page: null, page: 3 }, '/v1/usage', ['page'], entry)).toBeNull();
  });
});

describe('offsetPage: a page that names no next page but states a larger total', () => {
  const page = { data: [{ id: 'a' }, { id: 'b' }], total: 5, offset: 0, limit: 2 };
  it('asks for the rest by a documented offset', () => {
    expect(offsetPage(page, '/v1/usage', ['offset', 'limit'], 2)).toEqual({ path: '/v1/usage?offset=2' });
    expect(offsetPage(page, '/v1/usage?x=1', ['offset'], 4)).toEqual({ path: '/v1/usage?x=1&offset=4' });
  });
  it('says why the rest cannot be read without one (the list is then incomplete, never whole)', () => {
    expect(offsetPage(page, '/v1/usage', [], 2)).toMatch(/holds 5 entries, 2 were read/);
  });
  it('ends where the total is reached, or where no total is stated', () => {
    expect(offsetPage(page, '/v1/usage', ['offset'], 5)).toBeNull();
    expect(offsetPage({ data: [] }, '/v1/usage', ['offset'], 0)).toBeNull();
    expect(statedBeyond({ data: [], meta: { total: 3 } }, 1)).toBe(3);
    expect(statedBeyond({ data: [], total: '3' }, 1)).toBeUndefined();
  });
});
