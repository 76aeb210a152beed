import { check, PROBE_CREDENTIALS } from '../../src/suite/index.ts';

// The per-exchange checks (RESP-*, ERR-*, SEC-*) run on every response of every test; this test makes
// them the subject: a spread of public, catalog, balance and error responses.
check(
  {
    ids: [
      'RESP-001',
      'RESP-002',
      'RESP-003',
      'RESP-004',
      'ERR-001',
      'ERR-002',
      'ERR-003',
      'GEN-001',
      'SEC-001',
      'SEC-002',
    ],
    effect: 'read',
  },
  'public, catalog, balance and error responses match the live description',
  async (t) => {
    await t.get('/healthz', { as: 'none' });
    await t.get('/status', { as: 'none' });
    await t.get('/v1/models');
    await t.get('/v1/balance');
    await t.get('/v1/models', { as: 'none' });
    await t.get('/v1/balance', {
      as: 'none',
      headers: { authorization: `Bearer ${PROBE_CREDENTIALS.notAKey}` },
    });
  },
);
