import {
  type CheckContext,
  check,
  findEntryList,
  findField,
  isPlainObject,
  isSuccess,
} from '../../src/suite/index.ts';

async function read(t: CheckContext, path: string, id: string) {
  const res = await t.get(path);
  t.ensure(isSuccess(res.status) && res.json !== undefined, id, `GET ${path} did not answer 2xx JSON`, {
    received: `${res.status} ${res.mediaType ?? ''}`,
    expected: '2xx application/json',
    exchange: res.exchange,
  });
  return res;
}

check({ ids: ['USAGE-001'], effect: 'read' }, 'lists per-request usage', async (t) => {
  await read(t, '/v1/usage', 'USAGE-001');
});

check({ ids: ['LEDGER-001'], effect: 'read' }, 'lists the public record of fund movements', async (t) => {
  await read(t, '/v1/ledger', 'LEDGER-001');
});

check(
  { ids: ['PTS-004', 'PTS-001', 'PTS-003'], effect: 'billable' },
  'answers chat, usage, ledger and balance with *_points fields only, in service_points',
  async (t) => {
    // The per-exchange points checks judge every reply; this test makes sure each interface is read.
    const model = await t.hint('chat');
    await t.post('/v1/chat/completions', {
      model,
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 2,
    });
    for (const p of ['/v1/usage', '/v1/ledger', '/v1/balance']) await t.get(p);
  },
);

check({ ids: ['PTS-005'], effect: 'read' }, 'keeps token counts of usage records as integers', async (t) => {
  const res = await read(t, '/v1/usage', 'USAGE-001');
  // Every token count the list shows: a record's own *_tokens fields, and those of a usage object in it.
  const counts: Array<{ where: string; value: unknown }> = [];
  for (const [i, r] of (findEntryList(res.json)?.entries ?? []).entries()) {
    if (!isPlainObject(r)) continue;
    for (const f of Object.keys(r).filter((k) => /_tokens$/.test(k)))
      counts.push({ where: `usage record #${i}: ${f}`, value: r[f] });
  }
  for (const u of findField(res.json, 'usage')) {
    if (!isPlainObject(u.value)) continue;
    for (const [k, v] of Object.entries(u.value))
      if (/_tokens$/.test(k)) counts.push({ where: `${u.pointer}/${k}`, value: v });
  }
  if (counts.length === 0)
    return t.skip(
      'the usage list shows no token count (no field ending in _tokens): nothing for PTS-005 to judge',
      {
        kind: 'precondition',
        subject: 'a token count in the usage list',
      },
    );
  for (const c of counts)
    t.ensure(
      Number.isInteger(c.value),
      'PTS-005',
      `${c.where} is ${JSON.stringify(c.value)}, not an integer`,
      {
        received: c.value,
        exchange: res.exchange,
      },
    );
});
