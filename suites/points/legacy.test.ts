import {
  type CheckContext,
  check,
  entryId,
  expectStatus,
  findCatalog,
  isPlainObject,
  isSuccess,
  pointsFieldPointers,
} from '../../src/suite/index.ts';
import { inPlaceOf, LEGACY, legacyCall } from './legacy-support.ts';

async function legacyRead(t: CheckContext, path: string) {
  const res = await t.get(path, { headers: LEGACY });
  if (!expectStatus(t, res, 'LEGACY-001', '2xx', `GET ${path} with the legacy currency Accept header`))
    return undefined;
  for (const p of pointsFieldPointers(res.json)) {
    t.violate('LEGACY-001', `GET ${path} in the legacy currency format still carries the points field ${p}`, {
      pointer: p,
      exchange: res.exchange,
      verdictCase: { wrong: 'carried', what: `${p} of GET ${path}`, family: 'legacy' },
    });
  }
  return res;
}

// "selects the legacy amount fields in place of points fields": both sides, where the plain reply shows
// points fields to replace. Usage and ledger show none before a charge: a cheap chat call makes one.
for (const path of ['/v1/models', '/v1/balance', '/v1/usage', '/v1/ledger']) {
  const records = path === '/v1/usage' || path === '/v1/ledger';
  check(
    { ids: ['LEGACY-001'], effect: records ? 'billable' : 'read' },
    `replaces the points fields of GET ${path} under the legacy Accept header`,
    async (t) => {
      if (records)
        await t.post('/v1/chat/completions', {
          model: await t.hint('chat'),
          messages: [{ role: 'user', content: 'Say ok.' }],
          max_tokens: 2,
        });
      const plain = await t.get(path);
      const shown = isSuccess(plain.status) ? pointsFieldPointers(plain.json) : [];
      if (shown.length === 0)
        return t.skip(`the plain GET ${path} shows no points field to replace (answered ${plain.status})`);
      const res = await legacyRead(t, path);
      if (!res) return;
      inPlaceOf(t, plain.json, res.json, `GET ${path}`, res.exchange);
    },
  );
}

check(
  { ids: ['LEGACY-001', 'LEGACY-002'], effect: 'billable' },
  'replaces the points fields of a chat reply and keeps its usage and model id',
  async (t) => {
    const res = await legacyCall(t, '/v1/chat/completions', {
      model: await t.hint('chat'),
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 2,
    });
    if (!res) return;
    const u = (res.json as { usage?: Record<string, unknown> } | undefined)?.usage;
    t.ensure(
      isPlainObject(u) &&
        ['prompt_tokens', 'completion_tokens', 'total_tokens'].every((k) => Number.isInteger(u[k])),
      'LEGACY-002',
      'the legacy chat reply does not carry the usage token integers',
      { pointer: '/usage', received: u, exchange: res.exchange },
    );
  },
);

const idsOf = (json: unknown): string[] =>
  (findCatalog(json)?.entries ?? [])
    .map(entryId)
    .filter((v): v is string => !!v)
    .sort();

check(
  { ids: ['LEGACY-002'], effect: 'read' },
  'lists the same model ids under the legacy Accept header',
  async (t) => {
    const plain = await t.get('/v1/models');
    const legacy = await t.get('/v1/models', { headers: LEGACY });
    if (!isSuccess(plain.status) || !isSuccess(legacy.status))
      return t.skip('a catalog read failed (see MODELS-001, LEGACY-001)');
    const a = idsOf(plain.json);
    const b = idsOf(legacy.json);
    t.ensure(
      JSON.stringify(a) === JSON.stringify(b),
      'LEGACY-002',
      'the catalog lists other model ids under the legacy currency format',
      {
        received: b,
        expected: a,
        exchange: legacy.exchange,
      },
    );
  },
);
