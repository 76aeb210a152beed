import { type CheckContext, check, pointsFields, readWholeList } from '../../src/suite/index.ts';

async function snapshot(t: CheckContext, role: 'enterprise' | 'enterprise_second') {
  const balance = await t.get('/v1/balance', { as: role });
  // Whole lists (every page): two keys may be served the same first page of different lists.
  const ids = async (path: string) => {
    const list = await readWholeList(t, path, { as: role });
    if (!list || list.incomplete) return undefined;
    return list.entries.map((e) => JSON.stringify(e.id ?? e)).sort();
  };
  return {
    total: pointsFields(balance.json, ['total_points'])[0]?.value,
    usage: await ids('/v1/usage'),
    ledger: await ids('/v1/ledger'),
    exchange: balance.exchange,
  };
}

check(
  { ids: ['ENT-001'], effect: 'read', account: 'exclusive', roles: ['enterprise', 'enterprise_second'] },
  'shows two keys of one enterprise account one balance, usage and ledger',
  async (t) => {
    const a = await snapshot(t, 'enterprise');
    const b = await snapshot(t, 'enterprise_second');
    const level = t.sharedAccount ? { level: 'notable' as const } : {};
    t.ensure(
      JSON.stringify(a.total) === JSON.stringify(b.total),
      'ENT-001',
      `the two keys read different balances (${JSON.stringify(a.total)} and ${JSON.stringify(b.total)})`,
      {
        received: b.total,
        expected: a.total,
        exchange: b.exchange,
        ...level,
      },
    );
    for (const part of ['usage', 'ledger'] as const) {
      if (a[part] === undefined || b[part] === undefined) continue;
      t.ensure(
        JSON.stringify(a[part]) === JSON.stringify(b[part]),
        'ENT-001',
        `the two keys list different ${part} records (${a[part]!.length} and ${b[part]!.length})`,
        level,
      );
    }
  },
);
