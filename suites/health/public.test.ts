import { businessEndpoints, check, expectStatus, isSuccess } from '../../src/suite/index.ts';

check({ ids: ['HEALTH-001'], effect: 'read' }, 'GET /healthz answers without a key', async (t) => {
  const res = await t.get('/healthz', { as: 'none' });
  expectStatus(t, res, 'HEALTH-001', '2xx', 'GET /healthz without a key');
});

check({ ids: ['HEALTH-002'], effect: 'read' }, 'GET /status answers without a key', async (t) => {
  const res = await t.get('/status', { as: 'none' });
  expectStatus(t, res, 'HEALTH-002', '2xx', 'GET /status without a key');
});

// "404 | ... duplicated `/v1/v1`": on every read of the API that names no resource (a write served under
// the doubled prefix would act; its refusal is the same rule).
// Each 404 stands beside its control: the same read without the doubled prefix, answered 2xx (a gateway
// that answers 404 to everything shows no rule of the doubled prefix).
check({ ids: ['ERR-004', 'ERR-001'], effect: 'read' }, 'a duplicated /v1/v1 prefix gives 404', async (t) => {
  const unshown: string[] = [];
  let judged = 0;
  for (const e of businessEndpoints()) {
    if (e.method !== 'GET' || e.path.includes('{') || !e.path.startsWith('/v1/')) continue;
    const path = `/v1${e.path}`;
    const res = await t.get(path);
    if (t.notJudged429(res, `GET ${path}`)) continue;
    if (res.status === 404) {
      const plain = await t.get(e.path);
      if (!isSuccess(plain.status)) {
        unshown.push(`GET ${e.path} ${plain.status}`);
        continue;
      }
    }
    expectStatus(t, res, 'ERR-004', 404, `GET ${path}`);
    judged++;
  }
  if (judged === 0)
    t.skip(
      unshown.length > 0
        ? `the reads without the doubled prefix were not answered 2xx (${unshown.join(', ')}): a 404 under /v1/v1 shows nothing of the rule`
        : 'every read under /v1/v1 was answered 429: not judged',
    );
});

// The same row on the writes: POST under the doubled prefix with an empty JSON object, a body every
// documented write refuses (each needs its fields; an upload needs its file's media type) and no server
// could act on, so the probe is a read. Valid JSON, so a gateway that parses bodies before it routes
// still routes it: a target that serves the doubled path answers the body's refusal (400, 415, 422).
for (const e of businessEndpoints()) {
  if (e.method !== 'POST' || e.path.includes('{') || !e.path.startsWith('/v1/')) continue;
  const path = `/v1${e.path}`;
  check(
    { ids: ['ERR-004', 'ERR-001'], effect: 'read' },
    `a duplicated /v1/v1 prefix gives 404 on POST ${e.path}`,
    async (t) => {
      const res = await t.request('POST', path, { json: {} });
      if (t.notJudged429(res, `POST ${path}`)) return;
      // No control is sent here: the same body on the path itself is a request to a write (a billable call
      // among them) that a faulty target might act on, and this test is a read.
      expectStatus(t, res, 'ERR-004', 404, `POST ${path}`);
    },
  );
}
