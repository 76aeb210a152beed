import { Decimal } from 'decimal.js';
import {
  balanceOf,
  type CheckContext,
  check,
  documentedViolations,
  expectStatus,
  findField,
  isPlainObject,
  pointsFields,
} from '../../src/suite/index.ts';
import { refusalProvesNothing } from './support.ts';

/**
 * The account's total points (balanceOf: undefined where it is no exact decimal string) and its text.
 * What PAY-004 compares: "it ... adds no points" is the total not rising. The available points may rise
 * meanwhile without any points added (a hold of an earlier call or job released late: when is not
 * stated), and the total may fall (a charge settled late): neither is the order's.
 */
async function totalPoints(t: CheckContext): Promise<{ total?: Decimal; text: string }> {
  const res = await t.get('/v1/balance');
  const total = balanceOf(res.json)?.total;
  const text = JSON.stringify(pointsFields(res.json, ['total_points'])[0]?.value ?? null);
  return total ? { total, text } : { text };
}

const REQUIRED = ['id', 'tenant_id', 'amount_credits', 'points', 'status', 'has_qr_code', 'created_at'];

check(
  { ids: ['PAY-003', 'PAY-004', 'PAY-008'], effect: 'payments', account: 'exclusive' },
  'creates an order awaiting review that adds no points',
  async (t) => {
    const min = t.target.limits.payment_min_cny;
    const amount = min === undefined ? '1000.50' : new Decimal(String(min)).plus(2.5).toFixed(2);
    const before = await totalPoints(t);
    const res = await t.post('/v1/payment-orders', {
      method: 'alipay',
      amount_cny: amount,
      note: 'conformance probe',
    });
    refusalProvesNothing(t, res);
    if (!expectStatus(t, res, 'PAY-003', 201, 'a valid order')) return;
    // The order (CompatibilityRechargeOrder) is the reply or sits in an envelope, which is not shown:
    // the object that carries its amount_credits (or has_qr_code), at any depth.
    const held = findField(res.json, 'amount_credits')[0] ?? findField(res.json, 'has_qr_code')[0];
    const order = held ? held.parent : res.json;
    const at = held ? held.pointer.replace(/\/[^/]*$/, '') : '';
    if (
      !t.ensure(isPlainObject(order), 'PAY-003', 'the order is not a JSON object', {
        exchange: res.exchange,
      }) ||
      !isPlainObject(order)
    )
      return;
    for (const f of REQUIRED)
      t.ensure(f in order, 'PAY-003', `the order lacks the required field ${f}`, {
        pointer: `${at}/${f}`,
        exchange: res.exchange,
      });
    // The field table's types and formats (schemas/compatibility-recharge-order.json), whatever the
    // deployment's own description says of them.
    documentedViolations(t, res, 'compatibility-recharge-order.json', () => 'PAY-003', { at, value: order });
    // Readings (judging.md): pending_admin_review or pending; qr_code null or absent; has_qr_code false.
    t.ensure(
      ['pending_admin_review', 'pending'].includes(order.status as string),
      'PAY-003',
      `a new order is reported ${JSON.stringify(order.status)}`,
      {
        pointer: `${at}/status`,
        received: order.status,
        expected: 'pending_admin_review or pending',
        exchange: res.exchange,
      },
    );
    t.ensure(
      order.qr_code === null || order.qr_code === undefined,
      'PAY-003',
      'a new order carries a QR code',
      { pointer: `${at}/qr_code`, received: order.qr_code, exchange: res.exchange },
    );
    t.ensure(order.has_qr_code === false, 'PAY-003', 'a new order does not report has_qr_code false', {
      pointer: `${at}/has_qr_code`,
      received: order.has_qr_code,
      exchange: res.exchange,
    });
    const credits = new Decimal(amount).times(1_000_000);
    t.ensure(
      Number.isInteger(order.amount_credits) && credits.equals(order.amount_credits as number),
      'PAY-008',
      `amount_credits ${JSON.stringify(order.amount_credits)} is not amount_cny ${amount} x 1000000`,
      {
        pointer: `${at}/amount_credits`,
        received: order.amount_credits,
        expected: credits.toNumber(),
        exchange: res.exchange,
      },
    );
    const after = await totalPoints(t);
    // A total not read as a decimal (BAL-001 and PTS-001 judge that) leaves PAY-004 not judged here.
    if (before.total === undefined || after.total === undefined) return;
    t.ensure(
      after.total.lte(before.total),
      'PAY-004',
      `creating an order added points: total_points ${before.text} -> ${after.text}`,
      {
        received: after.text,
        expected: `at most ${before.text}`,
        exchange: res.exchange,
        ...(t.sharedAccount ? { level: 'notable' as const } : {}),
      },
    );
  },
);
