import {
  type CheckContext,
  check,
  entryIds,
  findCatalog,
  findField,
  isPlainObject,
  isSuccess,
  pointsFindings,
} from '../../src/suite/index.ts';

const PRICE_FIELDS = ['request_points_per_million_tokens', 'response_points_per_million_tokens'];

async function catalog(t: CheckContext, as: 'primary' | 'no_models' = 'primary') {
  const res = await t.get('/v1/models', { as });
  // "An empty list means the key is valid": the no_models key must be accepted too (MODELS-005).
  if (
    !t.ensure(
      isSuccess(res.status) && res.json !== undefined,
      as === 'no_models' ? 'MODELS-005' : 'MODELS-001',
      `GET /v1/models with the ${as} key did not answer 2xx JSON`,
      {
        received: `${res.status} ${res.mediaType ?? ''}`,
        expected: '2xx application/json',
        exchange: res.exchange,
      },
    )
  ) {
    t.abort();
  }
  return { res, list: findCatalog(res.json) };
}

check(
  { ids: ['MODELS-001'], effect: 'read' },
  'lists the account catalog as a list of entries',
  async (t) => {
    const { res, list } = await catalog(t);
    t.ensure(
      list !== undefined,
      'MODELS-001',
      'GET /v1/models holds no list of entries (neither an array nor an object with an array)',
      {
        received: res.exchange.responseBody?.preview,
        exchange: res.exchange,
      },
    );
  },
);

check(
  { ids: ['PTS-001', 'PTS-002', 'MODELS-002'], effect: 'read' },
  'quotes model prices as exact decimal strings',
  async (t) => {
    const { res, list } = await catalog(t);
    for (const f of pointsFindings(res.json, PRICE_FIELDS))
      t.violate(f.id, f.message, { ...f, exchange: res.exchange });
    (list?.entries ?? []).forEach((entry, i) => {
      if (!isPlainObject(entry)) return;
      t.observe('MODELS-002', res.exchange);
      // The entry's full shape is not shown: its prices and flag may sit in an object of their own.
      const priced = PRICE_FIELDS.some((f) => findField(entry, f).length > 0);
      if (!priced && findField(entry, 'points_configured').length === 0) {
        t.violate('MODELS-002', 'entry has no price fields and no points_configured flag', {
          pointer: `${list?.pointer}/${i}`,
          exchange: res.exchange,
        });
      }
    });
  },
);

check(
  { ids: ['MODELS-003'], effect: 'read' },
  'invents no zero quote where points are not configured',
  async (t) => {
    const { res } = await catalog(t);
    for (const flag of findField(res.json, 'points_configured')) {
      if (flag.value !== false) continue;
      t.observe('MODELS-003', res.exchange);
      for (const f of PRICE_FIELDS) {
        const v = flag.parent[f];
        if (v === undefined || v === null) continue;
        const zero =
          (typeof v === 'string' || typeof v === 'number') && /^[+-]?0*(\.0*)?$/.test(String(v).trim());
        t.ensure(
          !zero,
          'MODELS-003',
          `an entry with points_configured false quotes ${f} = ${JSON.stringify(v)}`,
          {
            pointer: flag.pointer.replace(/points_configured$/, f),
            received: v,
            expected: 'the price field omitted',
            exchange: res.exchange,
          },
        );
      }
    }
  },
);

// One model of each call type the target declares outside the primary account's catalog.
for (const hint of ['forbidden', 'forbidden_responses', 'forbidden_embedding'] as const)
  check(
    { ids: ['MODELS-004'], effect: 'read' },
    `does not list a model outside the account catalog (the ${hint} hint)`,
    async (t) => {
      const forbidden = await t.hint(hint);
      const { res, list } = await catalog(t);
      // Listed by an entry that names it by one of its id-like fields (entryIds; the field names are not
      // shown): another field naming it (an entry's upgrade_model) does not list it.
      if (!list) return t.skip('the catalog holds no list of entries (see MODELS-001)');
      const hits = list.entries.some((e) => entryIds(e).includes(forbidden));
      t.ensure(
        !hits,
        'MODELS-004',
        `the primary key's catalog lists the model '${forbidden}', which the target declares outside it`,
        {
          received: forbidden,
          exchange: res.exchange,
        },
      );
    },
  );

check(
  { ids: ['MODELS-005'], effect: 'read', roles: ['no_models'] },
  'answers an empty catalog for an account with no model',
  async (t) => {
    const { res, list } = await catalog(t, 'no_models');
    t.ensure(
      (list?.entries.length ?? 0) === 0,
      'MODELS-005',
      `the catalog of an account with no effective model lists ${list?.entries.length} entries`,
      {
        received: list?.entries.length,
        expected: 0,
        pointer: list?.pointer,
        exchange: res.exchange,
      },
    );
  },
);

check(
  { ids: ['PTS-003'], effect: 'read' },
  'names service_points wherever a unit stands beside its prices',
  async (t) => {
    // The per-exchange points checks judge every reply's units; this test makes sure the catalog is read.
    await catalog(t);
    // A catalog that states no unit beside its prices shows PTS-003 nothing here: not run, never passed.
    // Observed on the catalog's reply itself, not on another read of the test (the harness's balance
    // reads, which a unit beside the balance's points shows it on, carry no place).
    const touches = t.touches();
    if (!(t.observedIds()['PTS-003'] ?? []).some((i) => touches[i]?.path === '/v1/models'))
      return t.skip('the catalog states no unit beside its prices: nothing for PTS-003 to judge in it', {
        kind: 'precondition',
        subject: "a unit beside the catalog's prices",
      });
  },
);
