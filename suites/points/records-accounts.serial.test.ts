// Serial (a quiet account: after every other suite, one test at a time, the account lock exclusive):
// the records of accounts other than the primary one - what a call of one enterprise key shows its
// second key, and the media input quota a deletion gives back. The primary account's: records.serial.test.ts.
import { randomUUID } from 'node:crypto';
import {
  addedRecords,
  check,
  type HttpResponse,
  isSuccess,
  type Role,
  recordKey,
  upload,
} from '../../src/suite/index.ts';
import { balance, deltaLevel } from '../stateful/support.ts';
import { listing } from './records-support.ts';

check(
  {
    ids: ['ENT-001'],
    effect: 'billable',
    account: 'exclusive',
    roles: ['enterprise', 'enterprise_second'],
  },
  'shows a call made with one enterprise key to the second key in usage, ledger and balance',
  async (t) => {
    const reads = async (as: Role) => ({
      usage: await listing(t, '/v1/usage', as),
      ledger: await listing(t, '/v1/ledger', as),
    });
    const first0 = await reads('enterprise');
    const second0 = await reads('enterprise_second');
    const res = await t.post(
      '/v1/chat/completions',
      {
        model: await t.hint('chat'),
        messages: [{ role: 'user', content: `Say ok. ${randomUUID()}` }],
        max_tokens: 2,
      },
      { as: 'enterprise' },
    );
    if (!isSuccess(res.status))
      return t.skip(`the chat call of the enterprise key was answered ${res.status}`);
    const first1 = await reads('enterprise');
    const second1 = await reads('enterprise_second');
    for (const part of ['usage', 'ledger'] as const) {
      const [before, after, otherBefore, other] = [first0[part], first1[part], second0[part], second1[part]];
      if (!before || !after || !otherBefore || !other) continue;
      // What the call added as the first key sees it, against what the second key sees added meanwhile.
      const keys = new Set(addedRecords(otherBefore.entries, other.entries).map(recordKey));
      const added = addedRecords(before.entries, after.entries);
      // Nothing the first key sees added: nothing to find in the second's (the call's records are
      // judged by the usage and ledger tests).
      if (added.length === 0) continue;
      t.observe('ENT-001', other.last.exchange);
      const missing = added.filter((r) => !keys.has(recordKey(r)));
      if (missing.length > 0)
        t.violate(
          'ENT-001',
          `the chat call of the enterprise key added ${missing.length} ${part} record(s) that its second key does not list as added`,
          { received: missing, exchange: other.last.exchange, ...deltaLevel(t) },
        );
    }
    const [a, b] = [await balance(t, 'enterprise'), await balance(t, 'enterprise_second')];
    t.ensure(
      a.total.equals(b.total),
      'ENT-001',
      `after the chat call the two keys read total_points ${a.total.toFixed()} and ${b.total.toFixed()}`,
      {
        received: b.total.toFixed(),
        expected: a.total.toFixed(),
        ...deltaLevel(t),
      },
    );
  },
);

const SMALL = 'jpeg-64x48.jpg';

check(
  {
    ids: ['MIN-080'],
    effect: 'write',
    account: 'exclusive',
    roles: ['quota_nearly_full'],
    judges429: true,
  },
  'gives the quota of a deleted input back to a re-upload',
  async (t) => {
    const as = 'quota_nearly_full';
    const kept: string[] = [];
    let full: HttpResponse | undefined;
    for (let i = 0; i < 10 && !full; i++) {
      const u = await upload(t, SMALL, { as });
      if (u.res.status === 429) full = u.res;
      else if (u.id) kept.push(u.id);
      else return t.skip(`an upload was answered ${u.res.status}`);
    }
    if (!full)
      return t.skip(`ten uploads of ${SMALL} met no 429: the quota left is larger than the test fills`);
    const freed = kept.at(-1);
    if (!freed) return t.skip(`the first upload of ${SMALL} was refused with 429: no input to delete`);
    const del = await t.request('DELETE', `/v1/media/inputs/${encodeURIComponent(freed)}`, { as });
    if (!isSuccess(del.status)) return t.skip(`deleting input ${freed} was answered ${del.status}`);
    // The release waits for a cleanup whose duration is not shown: the suite's own bound.
    const { pollIntervalMs, pollCap } = t.target.media;
    const waitMs = Math.min(pollIntervalMs * pollCap, t.target.timeouts.testMs / 3);
    const deadline = Date.now() + waitMs;
    let again: HttpResponse;
    for (;;) {
      const u = await upload(t, SMALL, { as });
      again = u.res;
      if (u.res.status !== 429 || Date.now() + pollIntervalMs > deadline) break;
      await new Promise((r) => setTimeout(r, pollIntervalMs));
    }
    if (again.status !== 429 && !isSuccess(again.status))
      return t.skip(`the re-upload after the delete was answered ${again.status}`);
    t.ensure(
      isSuccess(again.status),
      'MIN-080',
      `after input ${freed} was deleted, an upload of the same ${SMALL} was still refused with 429 when the wait of ${Math.round(waitMs / 1000)} s ended`,
      {
        received: again.status,
        expected: 'a 2xx once the deleted input is cleaned up',
        exchange: again.exchange,
        ...deltaLevel(t),
      },
    );
  },
);
