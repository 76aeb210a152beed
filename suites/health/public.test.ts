import { check, expectStatus } from '../../src/suite/index.ts';

check({ ids: ['HEALTH-001'], effect: 'read' }, 'GET /healthz answers without a key', async (t) => {
  const res = await t.get('/healthz', { as: 'none' });
  expectStatus(t, res, 'HEALTH-001', '2xx', 'GET /healthz without a key');
});

check({ ids: ['HEALTH-002'], effect: 'read' }, 'GET /status answers without a key', async (t) => {
  const res = await t.get('/status', { as: 'none' });
  expectStatus(t, res, 'HEALTH-002', '2xx', 'GET /status without a key');
});

check({ ids: ['ERR-004', 'ERR-001'], effect: 'read' }, 'a duplicated /v1/v1 prefix gives 404', async (t) => {
  const res = await t.get('/v1/v1/models');
  expectStatus(t, res, 'ERR-004', 404, 'GET /v1/v1/models');
});
