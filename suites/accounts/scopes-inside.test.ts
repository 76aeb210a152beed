import {
  businessEndpoints,
  type CheckContext,
  check,
  concretePath,
  type Endpoint,
  type HttpResponse,
  isSuccess,
  label,
  probeRequest,
  type Role,
  upload,
} from '../../src/suite.ts';
import { postJob } from '../media/support.ts';

// The calls of a scope that change something (scopes.test.ts judges its reads): a key restricted to the
// scope is accepted wherever the account's full-scope key is. The full key goes first, so a refusal of
// the account itself (its catalog, its balance) is never laid at the scope.
const RESTRICTED: Array<[Role, string]> = [
  ['restricted_inference', 'inference'],
  ['restricted_media', 'media'],
  ['restricted_support', 'support'],
];

async function send(t: CheckContext, e: Endpoint, as: Role): Promise<HttpResponse> {
  if (e.path === '/v1/media/inputs') return (await upload(t, 'png-1x1.png', { as })).res;
  const valid = await probeRequest(t, e);
  if (e.path === '/v1/media/jobs') return postJob(t, valid.json, { as });
  return t.request(e.method, concretePath(e), { ...valid, as });
}

for (const [role, scope] of RESTRICTED) {
  for (const e of businessEndpoints()) {
    if (e.method !== 'POST' || e.path.includes('{') || (e.scopes ?? []).join() !== scope) continue;
    check(
      { ids: ['SCOPE-002'], effect: e.effect, roles: [role, 'enterprise'] },
      `accepts a call inside its scope as the full key does: ${label(e)} (${role})`,
      async (t) => {
        const full = await send(t, e, 'enterprise');
        if (!isSuccess(full.status))
          return t.skip(`${label(e)} with the account's full-scope key was answered ${full.status}`);
        const res = await send(t, e, role);
        t.ensure(
          ![401, 403].includes(res.status),
          'SCOPE-002',
          `${label(e)} refused a key restricted to its own scope ${scope}: ${res.status} (the full-scope key: ${full.status})`,
          { received: res.status, expected: 'not a 401/403 refusal', exchange: res.exchange },
        );
      },
    );
  }
}
