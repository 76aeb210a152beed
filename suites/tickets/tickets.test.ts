import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  accounts,
  type CheckContext,
  caseTableChecks,
  check,
  checkProperty,
  expectStatus,
  isClientError,
  isPlainObject,
  isSuccess,
  listingMentions,
  noteAccepted,
  readWholeList,
  refusalControl,
  retryAfterMs,
} from '../../src/suite/index.ts';

const PATH = '/v1/support/tickets';
/** How long the ticket limit test waits out a 429 that cannot be the limit of 10 (a rate limit's window). */
const WINDOW_MS = 60_000;
/** The case table of this endpoint, and the name its refusals' control is kept under. */
const TABLE = 'tickets';
const base = () => ({
  category: 'technical',
  subject: 'Conformance probe',
  message: 'Automated conformance probe; please ignore.',
});

/** `prefix` padded to `max` characters (code points), alternately a CJK character and an emoji. */
function atMost(prefix: string, max: number): string {
  const pad = [...'票\u{1F600}'.repeat(max)].slice(0, max - [...prefix].length);
  return prefix + pad.join('');
}
const BOUNDS = [
  ['TICKET-004', 'subject', 120],
  ['TICKET-005', 'message', 2000],
  ['TICKET-006', 'preferred_contact', 160],
] as const;

check(
  { ids: ['TICKET-001', 'TICKET-004', 'TICKET-005', 'TICKET-006', 'TICKET-010'], effect: 'tickets' },
  'creates a ticket at every length bound with 201 and the support_ticket envelope, and lists it',
  async (t) => {
    const tag = randomUUID().slice(0, 8);
    // Each field at its maximum in characters (code points), half of them outside the BMP: a character
    // that is two UTF-16 code units and four UTF-8 bytes, and one grapheme (TICKET-004's reading).
    const body = {
      category: 'technical',
      subject: atMost(`Conformance ${tag} `, 120),
      // "`message` (max 2000 characters)": unlike subject and preferred_contact, not "single line".
      message: atMost('Automated conformance probe;\r\nplease ignore.\n', 2000),
      preferred_contact: atMost('conformance@example.com ', 160),
    };
    let res = await t.post(PATH, body);
    if (res.status === 429)
      return t.skip('the tenant is at its unresolved-ticket limit (429): no ticket can be created');
    if (isClientError(res.status)) {
      // Which rule the refusal breaks, the reply does not say: the same ticket with its message on one
      // line tells the message's line breaks apart from a length counted otherwise.
      const oneLine = { ...body, message: atMost('Automated conformance probe; please ignore. ', 2000) };
      const again = await t.post(PATH, oneLine);
      if (!isSuccess(again.status)) {
        // A plain ticket, far from every bound, tells a target that refuses every ticket (TICKET-001)
        // from one that counts a length otherwise.
        if (again.status === 429) return t.skip('the tenant is at its unresolved-ticket limit (429)');
        const plain = await t.post(PATH, { ...base(), subject: `Conformance ${tag}` });
        if (plain.status === 429) return t.skip('the tenant is at its unresolved-ticket limit (429)');
        if (!isSuccess(plain.status)) {
          t.violate(
            'TICKET-001',
            `a valid ticket was refused (${plain.status}), a plain one far from every bound as well as the one at every length bound (${res.status}, and ${again.status} with its message on one line)`,
            { received: plain.status, expected: 201, exchange: plain.exchange },
          );
          return;
        }
        noteAccepted(TABLE, plain);
        for (const [id, field, max] of BOUNDS)
          t.violate(
            id,
            `a ticket whose subject, message and preferred_contact are each at their maximum in characters (${field}: ${max} code points, half of them outside the BMP) was refused (${res.status}, and ${again.status} with its message on one line): a length is not counted in characters`,
            { received: again.status, expected: 201, exchange: again.exchange },
          );
        return;
      }
      t.violate(
        'TICKET-005',
        `a ticket whose message runs over several lines was refused (${res.status}) and the same ticket with its message on one line accepted (${again.status}): "single line" is said of subject and preferred_contact, not of message`,
        { received: res.status, expected: 201, exchange: res.exchange },
      );
      res = again;
    }
    if (!expectStatus(t, res, 'TICKET-001', 201, 'a valid ticket at every length bound')) return;
    // The control of this file's refusals (the case table's rows and the generated values after it).
    noteAccepted(TABLE, res);
    const json = res.json as { object?: unknown; ticket?: unknown } | undefined;
    t.ensure(
      json?.object === 'support_ticket' && isPlainObject(json.ticket),
      'TICKET-001',
      'the reply is not {object: "support_ticket", ticket: {...}}',
      {
        received: res.exchange.responseBody?.preview,
        exchange: res.exchange,
      },
    );
    // "if the outcome is uncertain, list tickets first": the list is where a client finds it.
    const list = await t.get(PATH);
    const listed = listingMentions(list.json, tag);
    t.ensure(
      isSuccess(list.status) && listed.found,
      'TICKET-010',
      isSuccess(list.status)
        ? `the ticket just created (answered 201, subject tag ${tag}) is not in the tenant's ticket list of ${listed.entries} ticket(s)`
        : `the ticket just created cannot be found: the ticket list was answered ${list.status}`,
      { expected: tag, exchange: list.exchange },
    );
  },
);

// After the test above: the ticket it made is the control of the table's refusals (none is made for them).
caseTableChecks({ table: TABLE, effect: 'tickets', path: PATH, base });

/** Whether the whole ticket list `as` reads shows `tag`: undefined where it could not be read whole. */
async function listsTag(t: CheckContext, as: 'enterprise' | 'enterprise_second', tag: string) {
  const list = await readWholeList(t, PATH, { as });
  if (!list) return undefined;
  const found =
    list.entries.some((e) => JSON.stringify(e).includes(tag)) ||
    [list.first, list.last].some((page) => listingMentions(page.json, tag).found);
  return found || !list.incomplete ? { found, list } : undefined;
}

// "GET /v1/support/tickets: returns `{object: "list", data: [tickets]}` for the calling tenant only", "at
// most 10 unresolved tickets per tenant": the tenant is the account, and an enterprise account's "up to
// 10 named keys" are one tenant (one balance, usage and ledger). A ticket one key created is the
// tenant's: the account's other key, listing tickets before it retries an uncertain creation ("list
// tickets first to avoid duplicates"), finds it. The creating key's own list showing it is the control.
check(
  { ids: ['TICKET-010'], effect: 'tickets', roles: ['enterprise', 'enterprise_second'] },
  "lists a ticket one key of an enterprise account created to the account's other key",
  async (t) => {
    const tag = randomUUID().slice(0, 8);
    const created = await t.post(
      PATH,
      { ...base(), subject: `Conformance enterprise ${tag}` },
      { as: 'enterprise' },
    );
    if (created.status === 429)
      return t.skip(
        'the enterprise tenant is at its unresolved-ticket limit (429): no ticket can be created',
      );
    if (!isSuccess(created.status))
      return t.skip(
        `creating the ticket with the enterprise key was answered ${created.status} (see TICKET-001)`,
      );
    const own = await listsTag(t, 'enterprise', tag);
    if (!own?.found)
      return t.skip(
        "the creating key's own ticket list does not show the ticket (see TICKET-010): the other key's list proves nothing",
      );
    const other = await listsTag(t, 'enterprise_second', tag);
    if (!other)
      return t.skip(
        "the second key's ticket list could not be read whole: the ticket's absence is not shown",
      );
    t.ensure(
      other.found,
      'TICKET-010',
      `the ticket the enterprise key created (answered ${created.status}, subject tag ${tag}), listed to that key, is not in the ticket list of ${other.list.entries.length} ticket(s) the same account's second key reads: the tenant's tickets are listed per key`,
      { expected: tag, exchange: other.list.last.exchange },
    );
  },
);

check(
  { ids: ['TICKET-002'], effect: 'read' },
  'lists tickets as {object: "list", data: [...]}',
  async (t) => {
    const res = await t.get(PATH);
    const json = res.json as { object?: unknown; data?: unknown } | undefined;
    t.ensure(
      isSuccess(res.status) && json?.object === 'list' && Array.isArray(json.data),
      'TICKET-002',
      `GET ${PATH} did not answer {object: "list", data: [...]}`,
      {
        received: res.exchange.responseBody?.preview ?? res.status,
        exchange: res.exchange,
      },
    );
  },
);

check(
  { ids: ['TICKET-008', 'TICKET-003'], effect: 'tickets', roles: ['ticket_limit'], judges429: true },
  'refuses an 11th unresolved ticket with 429 (the tickets before it take every category in turn)',
  async (t) => {
    // "the states of a ticket are not shown": the tickets listed before are at most that many unresolved.
    const listed = await readWholeList(t, PATH, { as: 'ticket_limit' });
    const atMost = listed && !listed.incomplete ? listed.entries.length : undefined;
    for (let i = 1; i <= 11; i++) {
      // The tickets this test creates anyway accept every listed category once at least (on an
      // account with fewer than 7 unresolved tickets before the run).
      const category = accounts.TICKET_CATEGORIES[(i - 1) % accounts.TICKET_CATEGORIES.length]!;
      const body = { ...base(), category, subject: `Conformance limit probe ${i}` };
      let res = await t.post(PATH, body, { as: 'ticket_limit', retry429: false });
      // Fewer than 10 unresolved for certain: a 429 is a rate limit ("wait for the limit window"), or a
      // limit below 10. After the window (Retry-After, bounded) a rate limit lets the ticket through.
      const below = atMost !== undefined && atMost + i - 1 < 10;
      if (res.status === 429 && below) {
        await sleep(Math.min(retryAfterMs(res.headers['retry-after']) ?? WINDOW_MS, WINDOW_MS));
        res = await t.post(PATH, body, { as: 'ticket_limit', retry429: false });
        if (res.status === 429)
          return t.violate(
            'TICKET-008',
            `ticket ${i} was refused 429 twice (again after the limit window) while the tenant held at most ${atMost + i - 1} unresolved tickets (${atMost} listed before, ${i - 1} created since): the limit is 10`,
            { received: 429, expected: 201, exchange: res.exchange },
          );
      }
      // The limit's refusal, after tickets of the same request were accepted (its control).
      if (res.status === 429) return void (i > 1 && t.observe('TICKET-008', res.exchange));
      if (isClientError(res.status))
        return void expectStatus(t, res, 'TICKET-003', 201, `a valid ticket of category ${category}`, {
          expected: '201 (or 429 at the limit)',
        });
      if (!isSuccess(res.status)) return t.skip(`creating ticket ${i} was answered ${res.status}`);
    }
    t.violate(
      'TICKET-008',
      'eleven tickets were created in a row: the limit of 10 unresolved tickets was not enforced',
      { expected: 429 },
    );
  },
);

const text = (max: number, singleLine: boolean) => ({
  arbitrary: () => accounts.invalidText(max, singleLine).map((c) => c.value),
  examples: accounts.invalidTextExamples(max, singleLine).map((c) => c.value),
});
const fields: Array<
  [string, string, { arbitrary: () => import('fast-check').Arbitrary<unknown>; examples: unknown[] }]
> = [
  [
    'TICKET-003',
    'category',
    { arbitrary: () => accounts.invalidCategory(), examples: accounts.invalidCategoryExamples() },
  ],
  ['TICKET-004', 'subject', text(120, true)],
  ['TICKET-005', 'message', text(2000, false)],
  ['TICKET-006', 'preferred_contact', text(160, true)],
];

for (const [id, field, generated] of fields) {
  check(
    { ids: [id], effect: 'tickets' },
    `refuses generated ${field} values the contract rules out`,
    async (t) => {
      await checkProperty(t, {
        id,
        arbitrary: generated.arbitrary(),
        examples: generated.examples,
        run: async (value) =>
          t.verdict(
            await t.post(PATH, { ...base(), [field]: value }),
            false,
            `${field} ${JSON.stringify(value).slice(0, 60)}`,
          ).mismatch,
      });
      await refusalControl(t, { table: TABLE, what: 'a valid ticket', send: () => t.post(PATH, base()) });
    },
  );
}
