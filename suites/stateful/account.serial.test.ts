// Serial (a quiet account: after every other suite, one test at a time, the account lock exclusive; beside
// the others on the isolated account when the target names one): the model-based run that judges balance
// deltas, and the races whose evidence is a charge or a hold.
// @conformance isolated-account
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import {
  chargedOf,
  check,
  isPlainObject,
  isSuccess,
  ledgerAddsUpProblem,
  ledgerBalanceProblem,
  ledgerChainProblem,
  ledgerOf,
  newKey,
  readWholeList,
  reportedSpend,
} from '../../src/suite/index.ts';
import { cheapParameters, PROMPT, postJob } from '../media/support.ts';
import { atOnce, balance, deltaLevel, idOf, modelBasedTest, raceModel, raceSize, report } from './support.ts';

check(
  {
    ids: [
      'BAL-003',
      'BAL-004',
      'LEDGER-002',
      'LEDGER-003',
      'PTS-005',
      'CHAT-004',
      'PTS-006',
      'IDEM-001',
      'IDEM-003',
      'TICKET-010',
    ],
    effect: 'billable',
    account: 'exclusive',
  },
  'keeps balance, ledger and usage consistent through random sequences of calls, replays, reads and tickets',
  async (t) => {
    await modelBasedTest(t, 'exclusive');
  },
);

check(
  { ids: ['IDEM-001', 'IDEM-004', 'LEDGER-002', 'LEDGER-003'], effect: 'billable', account: 'exclusive' },
  'charges once for a chat sent several times at once with one key, once per key for different keys, and the ledger adds up',
  async (t) => {
    const model = await t.hint('chat');
    const n = raceSize(t);
    const body = { model, messages: [{ role: 'user', content: `Say ok. ${randomUUID()}` }], max_tokens: 2 };
    const chat = (key: string) =>
      t.post('/v1/chat/completions', body, { headers: { 'idempotency-key': key }, retry429: false });
    const whole0 = await readWholeList(t, '/v1/ledger');
    const ledger0 = whole0 && !whole0.incomplete ? ledgerOf(whole0.entries) : undefined;
    const b0 = await balance(t);
    const first = await chat(newKey('race-chat'));
    if (!isSuccess(first.status)) return t.skip(`a chat call was answered ${first.status}`);
    const b1 = await balance(t);
    const one = b0.total.minus(b1.total);
    if (!one.isPositive()) return t.skip('a chat call moved no points: a second execution could not be seen');

    // What one execution costs is not fixed: a reply a token longer or shorter than the first call's costs
    // more or less. Where the replies report their charge (billing.charged_points), one execution moves the
    // balance by the first call's move plus the difference between its charge and the first call's; where
    // they do not, by the first call's move, and a mismatch is then advisory (a longer reply or a second
    // execution: not told apart).
    const firstCharge = chargedOf(first.json);
    const moveOf = (r: { json?: unknown }): Decimal | undefined => {
      const c = chargedOf(r.json);
      return c !== undefined && firstCharge !== undefined ? one.plus(c).minus(firstCharge) : undefined;
    };
    const key = newKey('race-chat');
    const same = await atOnce(n, () => chat(key));
    const b2 = await balance(t);
    const moved = b1.total.minus(b2.total);
    const answered = same.filter((r) => isSuccess(r.status));
    // A replay reports the first execution's reply (or is refused): one execution moves as one of them.
    const reported = answered.map(moveOf).filter((m): m is Decimal => m !== undefined);
    const single = reported.length > 0 ? reported : answered.length > 0 ? [one] : [new Decimal(0)];
    const unreported = answered.length > 0 && reported.length === 0;
    if (!single.some((m) => moved.equals(m)))
      t.violate(
        'IDEM-001',
        `${n} identical chat requests sent at once with one Idempotency-Key moved total_points by ${moved}, ${moved.div(one).toSignificantDigits(3)} times the move of one call (${one})${reported.length > 0 ? `; one execution of the charges their replies report moves it by ${[...new Set(reported.map(String))].join(' or ')}` : unreported ? '; their replies report no charge to tell a second execution from a longer reply' : '; none was accepted'}`,
        {
          received: moved.toString(),
          expected: [...new Set(single.map(String))].join(' or '),
          exchange: same.at(-1)?.exchange,
          ...(unreported ? { level: 'notable' as const } : deltaLevel(t)),
        },
      );
    else t.observe('IDEM-001', same.at(-1)?.exchange);

    const distinct = await atOnce(n, () => chat(newKey('race-chat')));
    const b3 = await balance(t);
    const acceptedReplies = distinct.filter((r) => isSuccess(r.status));
    const accepted = acceptedReplies.length;
    const movedAll = b2.total.minus(b3.total);
    const moves = acceptedReplies.map(moveOf);
    const exact = moves.every((m) => m !== undefined);
    const want = exact ? moves.reduce((a: Decimal, m) => a.plus(m!), new Decimal(0)) : one.times(accepted);
    if (!movedAll.equals(want))
      t.violate(
        movedAll.lt(want) ? 'IDEM-004' : 'BAL-004',
        `${n} chat requests sent at once with different Idempotency-Keys: ${accepted} accepted, total_points moved by ${movedAll}, not ${want} (${accepted} x ${one}${exact ? ', adjusted by the differences of their reported charges from the first call' : '; their replies do not all report a charge'})`,
        {
          received: movedAll.toString(),
          expected: want.toString(),
          ...(exact ? deltaLevel(t) : { level: 'notable' as const }),
        },
      );

    // The whole ledger (pages followed, either order); one not read whole judges nothing of it.
    const whole1 = await readWholeList(t, '/v1/ledger');
    if (!whole1 || whole1.incomplete) return;
    const ledger1 = ledgerOf(whole1.entries);
    const exchange = whole1.last.exchange;
    const b4 = await balance(t);
    report(t, ledgerChainProblem(ledger1), exchange);
    report(t, ledgerBalanceProblem(ledger1, b4.total), exchange);
    if (ledger0) report(t, ledgerAddsUpProblem(ledger0, ledger1, b4.total.minus(b0.total)), exchange);
  },
);

check(
  { ids: ['MJOB-024'], effect: 'billable', account: 'exclusive' },
  'holds points once for a job create sent several times at once with one Idempotency-Key',
  async (t) => {
    const m = await raceModel(t, false);
    const n = raceSize(t);
    const b0 = await balance(t);
    if (!b0.held) return t.skip('the balance has no held_points to compare');
    const body = {
      model: m.id,
      ...(m.rule.prompt.empty_only ? {} : { prompt: PROMPT }),
      parameters: cheapParameters(m.rule),
    };
    const key = newKey('race-hold');
    const same = await atOnce(n, () => postJob(t, body, { headers: { 'idempotency-key': key } }));
    const b1 = await balance(t);
    const hold = same
      .filter((r) => isSuccess(r.status) && isPlainObject(r.json))
      .map((r) => reportedSpend(r.json))
      .find((d) => d !== undefined);
    if (!hold || !b1.held) return t.skip('the job replies report no pending_points to compare the hold with');
    const ids = new Set(same.map((r) => idOf(r)).filter(Boolean));
    const heldMore = b1.held.minus(b0.held);
    t.ensure(
      heldMore.lte(hold),
      'MJOB-024',
      `${n} identical job creates sent at once with one Idempotency-Key (${ids.size} job id(s)) raised held_points by ${heldMore}, more than one hold of ${hold}`,
      {
        received: heldMore.toString(),
        expected: `at most ${hold}`,
        exchange: same.at(-1)?.exchange,
        ...deltaLevel(t),
      },
    );
  },
);
