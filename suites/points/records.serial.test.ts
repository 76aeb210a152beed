// Serial (a quiet account: after every other suite, one test at a time, the account lock exclusive;
// beside the others on the isolated account when the target names one): after each billable kind the
// records of the account are compared with each other - the reply's billing, the usage record, the
// ledger entries and the balance. Records are matched by what the contract shows (the charged amount,
// the model, ids where they carry one, appearing after the call), never by a field name it does not
// show. Those of other accounts: records-accounts.serial.test.ts.
// @conformance isolated-account
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Decimal } from 'decimal.js';
import {
  ACTIVE_STATUSES,
  addedRecords,
  availableProblem,
  type BalanceFigures,
  balanceMoveProblem,
  type CheckContext,
  chargedOf,
  check,
  type Exchange,
  type HttpResponse,
  isPlainObject,
  isSuccess,
  ledgerAddsUpProblem,
  ledgerOf,
  pointsFields,
  pollJob,
  unfinished,
  usageChargeProblem,
  type WholeList,
} from '../../src/suite/index.ts';
import { cheapParameters, PROMPT, postJob } from '../media/support.ts';
import { balance, deltaLevel, raceModel, report } from '../stateful/support.ts';
import { judgeRecordTokens, listing } from './records-support.ts';

/**
 * When the usage record of a call appears is not stated (judging.md): the list is read again, every
 * USAGE_REREAD_MS for USAGE_APPEARS_MS at most, before its absence is a failure of USAGE-080.
 */
const USAGE_APPEARS_MS = 30_000;
const USAGE_REREAD_MS = 2_000;

async function usageAdded(
  t: CheckContext,
  before: WholeList,
): Promise<{ added: Array<Record<string, unknown>>; after?: WholeList }> {
  const until = Date.now() + USAGE_APPEARS_MS;
  for (;;) {
    const after = await listing(t, '/v1/usage');
    if (!after) return { added: [] };
    const added = addedRecords(before.entries, after.entries);
    if (added.length > 0 || Date.now() + USAGE_REREAD_MS > until) return { added, after };
    await sleep(USAGE_REREAD_MS);
  }
}

/**
 * USAGE-080 on what a charged call or job added to the usage list since `before`: a new record (absent after
 * the bounded wait, a failure), and one with charged_points equal to `charged` that names `model` (implied).
 * `source` names where the charge was read. Returns the records added and the last read (undefined: the
 * list could not be read whole, nothing judged).
 */
async function judgeUsageRecord(
  t: CheckContext,
  before: WholeList,
  charged: Decimal,
  model: string,
  where: string,
  source?: string,
): Promise<{ added: Array<Record<string, unknown>>; exchange: Exchange } | undefined> {
  const usage = await usageAdded(t, before);
  if (!usage.after) return undefined;
  const exchange = usage.after.last.exchange;
  if (usage.added.length === 0)
    t.violate(
      'USAGE-080',
      `${where} was charged ${charged.toFixed()}, but no new usage record is listed after it (the list read again for ${USAGE_APPEARS_MS / 1000} s)`,
      { exchange, expected: `a usage record with charged_points ${charged.toFixed()}`, level: 'failure' },
    );
  report(t, usageChargeProblem(usage.added, charged, model, where, source), exchange);
  return { added: usage.added, exchange };
}

/**
 * USAGE-080 where a call or a job states no charge but the balance moved by `moved`: it was billed, and
 * "GET /v1/usage | per-request token usage, model and charged amount" gives it a record (judging.md),
 * whatever its charge; absent after the bounded wait, a failure (notable on a shared account).
 */
async function judgeBilledRecord(
  t: CheckContext,
  before: WholeList,
  moved: Decimal,
  where: string,
): Promise<void> {
  const usage = await usageAdded(t, before);
  if (usage.after && usage.added.length === 0)
    t.violate(
      'USAGE-080',
      `${where} moved total_points by ${moved.toFixed()} (it states no charge), but no new usage record is listed after it (the list read again for ${USAGE_APPEARS_MS / 1000} s)`,
      {
        exchange: usage.after.last.exchange,
        expected: 'a usage record of it',
        level: t.sharedAccount ? 'notable' : 'failure',
      },
    );
}

interface Billable {
  kind: string;
  /** How the title names one call of the kind. */
  call: string;
  path: string;
  body: (t: CheckContext) => Promise<{ model: string } & Record<string, unknown>>;
}

/**
 * Output caps well above a short reply's length: the hold (the quote for the largest completion) then
 * exceeds the charge, so a usage record or a ledger entry carrying the hold is told from one carrying the
 * charge (billing.released_points > 0 shows it).
 */
const CAP = 64;

const KINDS: Billable[] = [
  {
    kind: 'chat',
    call: 'a chat call',
    path: '/v1/chat/completions',
    body: async (t) => ({
      model: await t.hint('chat'),
      messages: [{ role: 'user', content: `Say ok. ${randomUUID()}` }],
      max_tokens: CAP,
    }),
  },
  {
    kind: 'responses',
    call: 'a responses call',
    path: '/v1/responses',
    body: async (t) => ({
      model: await t.hint('responses'),
      input: `Say ok. ${randomUUID()}`,
      max_output_tokens: CAP,
    }),
  },
  {
    kind: 'embeddings',
    call: 'an embeddings call',
    path: '/v1/embeddings',
    body: async (t) => ({ model: await t.hint('embedding'), input: `ok ${randomUUID()}` }),
  },
];

const billingCharge = (res: HttpResponse): Decimal | undefined =>
  isPlainObject(res.json) ? chargedOf(res.json.billing) : undefined;

for (const k of KINDS) {
  check(
    { ids: ['USAGE-080', 'BAL-004', 'LEDGER-003', 'PTS-005'], effect: 'billable', account: 'exclusive' },
    `agrees in billing, usage record, ledger and balance after ${k.call}`,
    async (t) => {
      const body = await k.body(t);
      const usage0 = await listing(t, '/v1/usage');
      const ledger0 = await listing(t, '/v1/ledger');
      const b0 = await balance(t);
      const res = await t.post(k.path, body);
      if (!isSuccess(res.status)) return t.skip(`the ${k.kind} call was answered ${res.status}`);
      const ledger1 = await listing(t, '/v1/ledger');
      const b1 = await balance(t);
      const charged = billingCharge(res);
      const where = `POST ${k.path}`;
      // "Reserved (held) points are not settled charges": the call's hold ends with it (its settlement
      // releases what was not charged). When it is released is not stated: read again for a bounded time.
      const held = await heldAfter(t, b0, b1);
      // Judged only where both balance reads show held_points: else said, never passed.
      if (!b0.held || !b1.held)
        t.note(`BAL-004 on ${k.call} not judged: the balance shows no held_points before and after it`);
      else if (!held) t.observe('BAL-004', res.exchange);
      else
        t.violate(
          'BAL-004',
          `${where} has ended, but held_points is ${held.toFixed()}, not ${b0.held.toFixed()} as before it (${Math.round(HELD_SETTLES_MS / 1000)} s later)`,
          { received: held.toFixed(), expected: b0.held.toFixed(), ...deltaLevel(t) },
        );
      if (charged) {
        report(
          t,
          balanceMoveProblem(
            b0.total.minus(charged),
            b1.total,
            `after ${where} (billing.charged_points ${charged.toFixed()})`,
          ),
          res.exchange,
        );
        const usage = usage0 && (await judgeUsageRecord(t, usage0, charged, body.model, where));
        // The call's own record shows its token counts as integers (PTS-005), as the usage list's do.
        if (usage) judgeRecordTokens(t, usage.added, usage.exchange);
      } else if (usage0 && b1.total.lt(b0.total))
        // No charge in the reply (the billing object's inner fields are not shown), but the balance moved.
        await judgeBilledRecord(t, usage0, b1.total.minus(b0.total), where);
      if (ledger0 && ledger1)
        report(
          t,
          ledgerAddsUpProblem(ledgerOf(ledger0.entries), ledgerOf(ledger1.entries), b1.total.minus(b0.total)),
          ledger1.last.exchange,
        );
    },
  );
}

/** Jobs created at most to see one still active right after the balance read. */
const HOLD_TRIES = 3;

/** How long a call's hold may take to be released once the call has ended (not stated), read every second. */
const HELD_SETTLES_MS = 5_000;

/**
 * The balance once a call has ended, read again (every second, HELD_SETTLES_MS at most) while its
 * held_points differs from `b0`'s: the last read if it still differs, else undefined.
 */
async function heldAfter(
  t: CheckContext,
  b0: BalanceFigures,
  b1: BalanceFigures,
): Promise<Decimal | undefined> {
  if (!b0.held || !b1.held) return undefined;
  let b = b1;
  const until = Date.now() + HELD_SETTLES_MS;
  while (b.held && !b.held.equals(b0.held)) {
    if (Date.now() >= until) return b.held;
    await sleep(1_000);
    b = await balance(t);
  }
  return undefined;
}

check(
  // PTS-001 too: the job's points fields are judged on each read, its settled ones once it ended.
  {
    ids: ['BAL-004', 'BAL-003', 'LEDGER-003', 'USAGE-080', 'PTS-001'],
    effect: 'billable',
    account: 'exclusive',
  },
  'holds a media job’s pending points while it runs, then settles them in balance, ledger and a usage record',
  async (t) => {
    const m = await raceModel(t, false);
    const body = {
      model: m.id,
      ...(m.rule.prompt.empty_only ? {} : { prompt: PROMPT }),
      parameters: cheapParameters(m.rule),
    };
    // A job that ends before the balance read shows no hold: one more (at most HOLD_TRIES in all),
    // each after the one before it ended, so that the reads around the last one see it alone.
    let job:
      | { id: string; ledger0: WholeList | undefined; usage0: WholeList | undefined; b0: BalanceFigures }
      | undefined;
    for (let attempt = 1; attempt <= HOLD_TRIES; attempt++) {
      if (job) await pollJob(t, job.id);
      const usage0 = await listing(t, '/v1/usage');
      const ledger0 = await listing(t, '/v1/ledger');
      const b0 = await balance(t);
      const created = await postJob(t, body);
      const id = isPlainObject(created.json) ? created.json.id : undefined;
      if (!isSuccess(created.status) || typeof id !== 'string')
        return t.skip(`the job create was answered ${created.status}`);
      job = { id, ledger0, usage0, b0 };
      const b1 = await balance(t);
      const read = await t.get(`/v1/media/jobs/${encodeURIComponent(id)}`);
      const seen = isPlainObject(read.json) ? read.json : {};
      const pending = pointsFields(seen, ['pending_points'])[0];
      report(t, availableProblem(b1), read.exchange);
      if (!ACTIVE_STATUSES.includes(String(seen.status)) || !pending?.verdict.ok) continue;
      const held = b1.held && b0.held ? b1.held.minus(b0.held) : undefined;
      if (held && !held.equals(pending.verdict.value))
        t.violate(
          'BAL-004',
          `while job ${id} is ${String(seen.status)} with pending_points ${pending.verdict.value.toFixed()}, held_points moved by ${held.toFixed()}`,
          {
            received: held.toFixed(),
            expected: pending.verdict.value.toFixed(),
            exchange: read.exchange,
            ...deltaLevel(t),
          },
        );
      report(t, balanceMoveProblem(b0.total, b1.total, `while job ${id} holds its points`), read.exchange);
      break;
    }
    if (!job) return t.skip('no job was created');
    const { id, ledger0, usage0, b0 } = job;
    const trace = await pollJob(t, id);
    const status = trace.statuses.at(-1);
    if (trace.end !== 'until' || !trace.last || (status !== 'succeeded' && status !== 'failed'))
      return t.skip(`job ${id} did not end succeeded or failed: ${unfinished(t, trace)}`);
    // Whether a failed job costs anything is not stated: its total is judged only by its own charged_points.
    const charged = chargedOf(trace.last);
    const ledger1 = await listing(t, '/v1/ledger');
    const b2 = await balance(t);
    const exchange = trace.responses.at(-1)?.exchange;
    if (b2.held && b0.held && !b2.held.equals(b0.held))
      t.violate(
        'BAL-004',
        `job ${id} is ${status}, but held_points is ${b2.held.toFixed()}, not ${b0.held.toFixed()} as before it`,
        {
          received: b2.held.toFixed(),
          expected: b0.held.toFixed(),
          ...(exchange ? { exchange } : {}),
          // judging.md: a failed job's hold not yet released is notable only.
          ...(status === 'failed' ? { level: 'notable' as const } : deltaLevel(t)),
        },
      );
    if (charged)
      report(
        t,
        balanceMoveProblem(
          b0.total.minus(charged),
          b2.total,
          `after job ${id} ended ${status} (charged_points ${charged.toFixed()})`,
        ),
        exchange,
      );
    if (ledger0 && ledger1)
      report(
        t,
        ledgerAddsUpProblem(ledgerOf(ledger0.entries), ledgerOf(ledger1.entries), b2.total.minus(b0.total)),
        ledger1.last.exchange,
      );
    // judging.md: "GET /v1/usage | per-request token usage, model and charged amount" gives every billable
    // call, a media job included, a record; absent after the bounded wait, a failure of USAGE-080.
    if (charged?.isPositive() && usage0)
      await judgeUsageRecord(t, usage0, charged, m.id, `media job ${id} (${m.id})`, 'its charged_points');
    // A job that states no charge (the MediaJob table shows no charged_points) but moved the balance.
    else if (!charged && usage0 && b2.total.lt(b0.total))
      await judgeBilledRecord(t, usage0, b2.total.minus(b0.total), `media job ${id} (${m.id})`);
  },
);
