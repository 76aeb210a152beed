import {
  type CheckContext,
  check,
  findField,
  isSuccess,
  pointsFields,
  pointsFindings,
} from '../../src/suite/index.ts';

const FIELDS = ['total_points', 'held_points', 'available_points'] as const;

async function balance(t: CheckContext) {
  const res = await t.get('/v1/balance');
  if (
    !t.ensure(
      isSuccess(res.status) && res.json !== undefined,
      'BAL-001',
      'GET /v1/balance did not answer 2xx JSON',
      {
        received: `${res.status} ${res.mediaType ?? ''}`,
        expected: '2xx application/json',
        exchange: res.exchange,
      },
    )
  ) {
    t.abort();
  }
  return res;
}

check({ ids: ['BAL-001'], effect: 'read' }, 'reports total, held and available points', async (t) => {
  const res = await balance(t);
  for (const f of FIELDS) {
    t.ensure(findField(res.json, f).length > 0, 'BAL-001', `the balance has no ${f}`, {
      expected: f,
      exchange: res.exchange,
    });
  }
});

check(
  { ids: ['PTS-001', 'PTS-002'], effect: 'read' },
  'reports balance points as exact decimal strings',
  async (t) => {
    const res = await balance(t);
    for (const f of pointsFindings(res.json, FIELDS))
      t.violate(f.id, f.message, { ...f, exchange: res.exchange });
  },
);

check(
  { ids: ['PTS-003'], effect: 'read' },
  'names service_points wherever a unit stands beside its points',
  async (t) => {
    // The per-exchange points checks judge every reply's units; this test makes sure the balance is read.
    await balance(t);
  },
);

check({ ids: ['BAL-003'], effect: 'read' }, 'keeps available equal to total minus held', async (t) => {
  const res = await balance(t);
  const got = Object.fromEntries(FIELDS.map((f) => [f, pointsFields(res.json, [f])[0]]));
  const [total, held, available] = FIELDS.map((f) => got[f]?.verdict);
  if (!total?.ok || !held?.ok || !available?.ok)
    return t.skip('the balance lacks one of the three decimal fields (see BAL-001, PTS-001)');
  // The values are exact decimals (ExactDecimal): their difference is too.
  const expected = total.value.minus(held.value);
  t.ensure(
    expected.equals(available.value),
    'BAL-003',
    `available_points ${available.value} is not total_points - held_points = ${expected}`,
    {
      pointer: got.available_points?.pointer,
      received: got.available_points?.value,
      expected: expected.toString(),
      exchange: res.exchange,
    },
  );
});
