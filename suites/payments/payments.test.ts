import { Decimal } from 'decimal.js';
import {
  accounts,
  type CheckContext,
  caseTableChecks,
  check,
  checkProperty,
  ENTERPRISE_ROLES,
  expectStatus,
  noteAccepted,
  refusalControl,
} from '../../src/suite/index.ts';
import { refusalProvesNothing } from './support.ts';

const PATH = '/v1/payment-orders';

/** The case table of this endpoint, and the name its refusals' control is kept under. */
const TABLE = 'payment-orders';
const baseOrder = (t: CheckContext) => ({
  method: 'alipay',
  amount_cny: validAmount(t),
  note: 'conformance probe',
});
/** Why no order is known valid for the target (the control of a refusal is then one the run was given). */
const unsent = (t: CheckContext) =>
  t.target.limits.payment_min_cny === undefined
    ? "no amount is known to be valid without the deployment's minimum (set limits.payment_min_cny, CONFORMANCE_LIMIT_PAYMENT_MIN_CNY)"
    : undefined;
/** The control of a refusal: an order of a personal account accepted in this run (see refusalControl). */
const orderControl = (t: CheckContext) =>
  refusalControl(t, {
    table: TABLE,
    what: 'a valid order of the personal account',
    send: () => t.post(PATH, baseOrder(t)),
    unsent: unsent(t),
  });

/** A valid amount: just above the target's configured minimum when known, else a moderate one. */
function validAmount(t: CheckContext): string {
  const min = t.target.limits.payment_min_cny;
  return min === undefined ? '1000.00' : new Decimal(String(min)).plus(1).toFixed(2);
}

check({ ids: ['PAY-001'], effect: 'read' }, 'lists payment methods to a personal account', async (t) => {
  const res = await t.get('/v1/payment-methods');
  expectStatus(t, res, 'PAY-001', '2xx', "GET /v1/payment-methods with a personal account's key");
});

check(
  { ids: ['PAY-001'], effect: 'read', roles: ['enterprise'] },
  'lists payment methods to an enterprise, or refuses it with 403 (both readings)',
  async (t) => {
    const res = await t.get('/v1/payment-methods', { as: 'enterprise' });
    // "creation is permitted only to personal tenants; an enterprise request returns 403": whether the
    // 403 covers the listing too is left open, so a 403 is one reading and a 2xx the other; any other
    // answer is neither.
    if (res.status === 403) return t.observe('PAY-001', res.exchange);
    expectStatus(t, res, 'PAY-001', '2xx', 'GET /v1/payment-methods with an enterprise key', {
      expected: '2xx or 403',
    });
  },
);

check(
  { ids: ['PAY-006', 'PAY-005', 'PAY-007'], effect: 'payments' },
  'accepts amounts with 0, 1 and 2 decimals from one cent above the minimum up to 100000, both methods and a note of 120 characters',
  async (t) => {
    const min = t.target.limits.payment_min_cny;
    if (min === undefined)
      return t.skip(
        'limits.payment_min_cny is not configured for the target: valid amounts cannot be chosen',
      );
    const floor = new Decimal(String(min));
    const amounts = [
      floor.plus(1).toFixed(0),
      floor.plus(1).toFixed(1),
      floor.plus(0.01).toFixed(2),
      '100000',
    ].filter((a) => floor.lessThan(a));
    // The orders these amounts create anyway also put both methods and the note's bounds at stake.
    const plain = { method: 'alipay', note: 'conformance probe' };
    const extras: Array<[string | undefined, Record<string, unknown>]> = [
      ['PAY-007', { method: 'alipay', note: 'conformance probe '.padEnd(120, '票') }],
      ['PAY-007', { method: 'wechat_pay' }],
      ['PAY-005', { method: 'wechat_pay', note: 'conformance probe' }],
      [undefined, plain],
    ];
    for (const [i, amount_cny] of amounts.entries()) {
      const [rule, extra] = extras[i % extras.length]!;
      const res = await t.post(PATH, { amount_cny, ...extra });
      if (res.status === 201) {
        noteAccepted(TABLE, res);
        // Accepted, as the contract wants: the amount's rule, and the method's or note's it carries.
        for (const id of rule ? ['PAY-006', rule] : ['PAY-006']) t.observe(id, res.exchange);
        continue;
      }
      const what = `an order of ${amount_cny} (${extra.method}, ${'note' in extra ? `a note of ${[...String(extra.note)].length} characters` : 'no note'})`;
      // Which value was refused: the same amount with the plain method and note (created only after a
      // wrong refusal). Its acceptance blames the method or note; its refusal, the amount.
      const again = rule === undefined ? undefined : await t.post(PATH, { amount_cny, ...plain });
      const blamed = rule && again?.status === 201 ? rule : 'PAY-006';
      expectStatus(t, res, blamed, 201, what);
    }
  },
);

// After the test above: an order it made is the control of the table's refusals.
caseTableChecks({ table: TABLE, effect: 'payments', path: PATH, base: baseOrder, unsent });

// "an enterprise request returns 403": a request with any key of the enterprise account, its full-scope
// keys and those restricted by scope ("Enterprise keys can be restricted by scope"). A restricted key may
// meet a scope check first (the payment endpoints are in none of the scopes), and an out-of-scope key is
// refused with 403 or 401 (judging.md): for those keys either refusal is the rule's answer.
for (const as of ENTERPRISE_ROLES) {
  const refusals = as.startsWith('restricted_') ? [401, 403] : [403];
  check(
    { ids: ['PAY-002'], effect: 'payments', roles: [as] },
    as === 'enterprise'
      ? 'refuses order creation to an enterprise with 403'
      : `refuses order creation to an enterprise with 403 (its key ${as})`,
    async (t) => {
      const res = await t.post(
        PATH,
        { method: 'alipay', amount_cny: validAmount(t), note: 'conformance probe' },
        { as },
      );
      refusalProvesNothing(t, res, refusals);
      expectStatus(
        t,
        res,
        'PAY-002',
        refusals.length === 1 ? 403 : refusals,
        `an enterprise key (${as}) creating a payment order`,
        refusals.length === 1 ? {} : { expected: '403 (or 401: an out-of-scope key)' },
      );
      // A 403 tells the rule only where a personal account's order is accepted: not a barred endpoint.
      if (refusals.includes(res.status)) await orderControl(t);
    },
  );
}

check(
  { ids: ['PAY-006'], effect: 'payments' },
  'refuses the configured minimum itself ("above a configured minimum")',
  async (t) => {
    const min = t.target.limits.payment_min_cny;
    if (min === undefined)
      return t.skip('limits.payment_min_cny is not configured for the target: the minimum is not known');
    const amount_cny = new Decimal(String(min)).toFixed(2);
    const msg = t.verdict(
      await t.post(PATH, { method: 'alipay', amount_cny, note: 'conformance probe' }),
      false,
      `amount_cny ${amount_cny} (the configured minimum)`,
    ).mismatch;
    if (msg) t.violate('PAY-006', msg);
    await orderControl(t);
  },
);

check(
  { ids: ['PAY-006'], effect: 'payments' },
  'refuses generated amounts with more than two decimals, above 100000 or malformed',
  async (t) => {
    await checkProperty(t, {
      id: 'PAY-006',
      arbitrary: accounts.invalidAmount(),
      examples: accounts.invalidAmountExamples(),
      run: async (amount_cny) =>
        t.verdict(
          await t.post(PATH, { method: 'alipay', amount_cny, note: 'conformance probe' }),
          false,
          `amount_cny ${JSON.stringify(amount_cny)}`,
        ).mismatch,
    });
    await orderControl(t);
  },
);
