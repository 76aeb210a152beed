import { randomUUID } from 'node:crypto';
import { check, isSuccess, readWholeList } from '../../src/suite/index.ts';

/** An id this long (a UUID has 36 characters) is not another tenant's own ticket numbering. */
const DISTINCT_ID_LENGTH = 16;

check(
  { ids: ['ISO-001'], effect: 'tickets', roles: ['other_tenant'] },
  "never lists one tenant's ticket to another",
  async (t) => {
    const marker = `Conformance isolation probe ${randomUUID()}`;
    const created = await t.post('/v1/support/tickets', {
      category: 'technical',
      subject: marker,
      message: 'Automated conformance probe; please ignore.',
    });
    if (created.status === 429) return t.skip('the primary tenant is at its unresolved-ticket limit (429)');
    if (!isSuccess(created.status))
      return t.skip(`creating the probe ticket was answered ${created.status} (see TICKET-001)`);
    const id = (created.json as { ticket?: { id?: unknown } } | undefined)?.ticket?.id;
    // Every page the other tenant's list gives: a refused read (its status) shows no list, so nothing.
    const other = await readWholeList(t, '/v1/support/tickets', { as: 'other_tenant' });
    if (!other) return t.skip("the other tenant's ticket list could not be read whole: isolation not shown");
    // The ticket's id tells it apart only where it could not be the other tenant's own: ids may be
    // numbered per tenant ("3"), and their format is not shown. A long one (a list that shows no subject).
    const distinctId = typeof id === 'string' && id.length >= DISTINCT_ID_LENGTH ? id : undefined;
    const names = (text: string) =>
      text.includes(marker) || (distinctId !== undefined && text.includes(JSON.stringify(distinctId)));
    // In an entry, or anywhere in a page (a list whose envelope is not one of entries still shows it).
    const shown =
      other.entries.find((e) => names(JSON.stringify(e))) ??
      [other.first, other.last].find((page) => names(page.text))?.json;
    if (shown === undefined && other.incomplete)
      return t.skip(
        `the other tenant's ticket list was read in part (${other.incomplete}): isolation not shown`,
      );
    t.ensure(
      shown === undefined,
      'ISO-001',
      "the other tenant's ticket list shows the primary tenant's new ticket",
      {
        received: shown,
        exchange: other.last.exchange,
      },
    );
  },
);

check(
  { ids: ['ISO-002'], effect: 'billable', roles: ['other_tenant'] },
  "never lists another tenant's usage or ledger records",
  async (t) => {
    const model = await t.hint('chat');
    await t.post(
      '/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 2 },
      { as: 'other_tenant' },
    );
    // The lists whose records were compared: none compared shows no isolation (records that name nothing,
    // or lists that could not be read), and says so rather than pass.
    const compared: string[] = [];
    for (const path of ['/v1/usage', '/v1/ledger']) {
      // Every page of both lists; whole records are compared: ids alone need not be unique across tenants.
      const theirs = await readWholeList(t, path, { as: 'other_tenant' });
      // Only records that name themselves (an id, a time): two calls alike by two tenants may write
      // records alike when a record holds nothing else (its fields beyond the names shown are not shown).
      const records = new Set(
        (theirs?.entries ?? []).filter((e) => namesItself(e, model)).map((e) => JSON.stringify(e)),
      );
      if (records.size === 0) continue;
      const mine = await readWholeList(t, path);
      if (!mine) continue;
      compared.push(path);
      const leaked = mine.entries.map((e) => JSON.stringify(e)).filter((r) => records.has(r));
      t.ensure(
        leaked.length === 0,
        'ISO-002',
        `GET ${path} of the primary tenant lists ${leaked.length} record(s) of the other tenant`,
        {
          received: leaked.slice(0, 3),
          exchange: mine.last.exchange,
        },
      );
    }
    if (compared.length === 0)
      return t.skip(
        'no usage or ledger record of the other tenant names itself (an id or a time of its own), or a list could not be read: isolation not shown',
      );
  },
);

/**
 * Whether a record has a field that tells it from another alike: an id, or a time it was made. A model's
 * id (`model_id`, or the value of the model the call named) is the catalog's, the same in both tenants'
 * records of calls alike: it names no record (a call's record may be only "token usage, model and charged
 * amount": variant usage-records-bare).
 */
function namesItself(record: unknown, model: string): boolean {
  return (
    !!record &&
    typeof record === 'object' &&
    Object.entries(record).some(
      ([k, v]) =>
        (typeof v === 'string' || typeof v === 'number') &&
        /(^|_)(id|at|time|timestamp|created)$/i.test(k) &&
        !/model/i.test(k) &&
        v !== model,
    )
  );
}
