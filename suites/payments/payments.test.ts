import { Decimal } from 'decimal.js';
import * as accounts from '../../src/rules/accounts.ts';
import {
  type CheckContext,
  caseTableChecks,
  check,
  checkProperty,
  isSuccess,
  verdictMismatch,
} from '../../src/suite.ts';
import { refusalProvesNothing } from './support.ts';

const PATH = '/v1/payment-orders';

/** A valid amount: just above the target's configured minimum when known, else a moderate one. */
function validAmount(t: CheckContext): string {
  const min = t.target.limits.payment_min_cny;
  return min === undefined ? '1000.00' : new Decimal(String(min)).plus(1).toFixed(2);
}

check({ ids: ['PAY-001'], effect: 'read' }, 'lists payment methods to a personal account', async (t) => {
  const res = await t.get('/v1/payment-methods');
  t.ensure(
    isSuccess(res.status),
    'PAY-001',
    `GET /v1/payment-methods with a personal account's key was answered ${res.status}`,
    {
      received: res.status,
      expected: '2xx',
      exchange: res.exchange,
    },
  );
});

check(
  { ids: ['PAY-002'], effect: 'payments', roles: ['enterprise'] },
  'refuses order creation to an enterprise with 403',
  async (t) => {
    const res = await t.post(
      PATH,
      { method: 'alipay', amount_cny: validAmount(t), note: 'conformance probe' },
      { as: 'enterprise' },
    );
    refusalProvesNothing(t, res, 403);
    t.ensure(
      res.status === 403,
      'PAY-002',
      `an enterprise key creating a payment order was answered ${res.status}`,
      { received: res.status, expected: 403, exchange: res.exchange },
    );
  },
);

caseTableChecks({
  table: 'payment-orders',
  effect: 'payments',
  path: PATH,
  base: (t) => ({ method: 'alipay', amount_cny: validAmount(t), note: 'conformance probe' }),
});

check(
  { ids: ['PAY-006'], effect: 'payments' },
  'accepts amounts with 0, 1 and 2 decimals up to 100000',
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
      floor.plus(1.25).toFixed(2),
      '100000',
    ].filter((a) => floor.lessThan(a));
    for (const amount_cny of amounts) {
      const res = await t.post(PATH, { method: 'wechat_pay', amount_cny, note: 'conformance probe' });
      t.ensure(res.status === 201, 'PAY-006', `the amount ${amount_cny} was answered ${res.status}`, {
        received: res.status,
        expected: 201,
        exchange: res.exchange,
      });
    }
  },
);

check(
  { ids: ['PAY-006'], effect: 'payments' },
  'refuses generated amounts with more than two decimals, above 100000 or malformed',
  async (t) => {
    await checkProperty(t, {
      id: 'PAY-006',
      arbitrary: accounts.invalidAmount(),
      run: async (amount_cny) =>
        verdictMismatch(
          await t.post(PATH, { method: 'alipay', amount_cny, note: 'conformance probe' }),
          false,
          `amount_cny ${JSON.stringify(amount_cny)}`,
        ),
    });
  },
);
