import {
  businessForms,
  type CheckContext,
  check,
  concretePath,
  type Endpoint,
  entryIds,
  expectStatus,
  findCatalog,
  group,
  isSuccess,
  label,
  probeRequest,
  type Role,
  refusalControl,
} from '../../src/suite/index.ts';
import { insideScope } from './scope-control.ts';

const RESTRICTED: Array<[Role, string]> = [
  ['restricted_models', 'models'],
  ['restricted_inference', 'inference'],
  ['restricted_media', 'media'],
  ['restricted_support', 'support'],
  ['restricted_usage', 'usage'],
  ['restricted_balance', 'balance'],
];

/**
 * The model a probe's body names, where the enterprise account's own catalog does not list it: a refusal
 * of that body by a restricted key of the account could be the model's (outside the catalog: 403, or a
 * 4xx where the body is judged before the scope), not the scope's. Read with the account's full key; not
 * looked at where that key is not configured.
 */
async function outsideTheAccount(t: CheckContext, e: Endpoint, json: unknown): Promise<string | undefined> {
  const model = (json as { model?: unknown } | undefined)?.model;
  if (typeof model !== 'string' || !t.hasRole('enterprise')) return undefined;
  const path = e.path.startsWith('/v1/media/') ? '/v1/media/models' : '/v1/models';
  const ids = await enterpriseCatalog(t, path);
  return ids === undefined || ids.includes(model) ? undefined : model;
}

/** The enterprise account's catalog, read once per file and path (a read that failed is tried again). */
const catalogs = new Map<string, ReadonlyArray<string | undefined>>();
async function enterpriseCatalog(
  t: CheckContext,
  path: string,
): Promise<ReadonlyArray<string | undefined> | undefined> {
  const known = catalogs.get(path);
  if (known) return known;
  const catalog = await t.get(path, { as: 'enterprise' });
  if (!isSuccess(catalog.status)) return undefined;
  const ids = (findCatalog(catalog.json)?.entries ?? []).flatMap(entryIds);
  catalogs.set(path, ids);
  return ids;
}

async function send(t: CheckContext, e: Endpoint, role: Role) {
  const valid = await probeRequest(t, e);
  // Outside its scope: the contract refuses it, so a small budget sends it before media purchases.
  return t.request(e.method, concretePath(e), { ...valid, as: role, refusal: true });
}

/**
 * The control of a restricted key's refusals: the same key accepted inside its own scope, by a read the
 * scope alone covers (a key that is not live, or not provisioned, is refused everywhere: 401 or 403 would
 * pass every refusal). A scope with no such read (inference, media: its calls are billable) has none:
 * its refusals stand beside a call inside the scope accepted anywhere in the run (insideScope).
 */
const insideRead = (scope: string) =>
  businessForms().find(
    ({ e }) =>
      e.effect === 'read' && e.scopes?.length === 1 && e.scopes[0] === scope && !e.path.includes('{'),
  )?.e;

for (const [role, scope] of RESTRICTED) {
  const inside = insideRead(scope);
  group(`a key restricted to ${scope}`, () => {
    for (const { e, name } of businessForms()) {
      const scopes = e.scopes ?? [];
      if (scopes.length === 0) continue;
      if (!scopes.includes(scope)) {
        const { ids } = e.path.startsWith('/v1/support/')
          ? { ids: ['SCOPE-001', 'SCOPE-003'] }
          : { ids: ['SCOPE-001'] };
        check(
          { ids, effect: e.effect, roles: [role] },
          `is refused outside its scope: ${name}`,
          async (t) => {
            // A scope without a read of its own (inference, media: its calls buy points) stands beside
            // a call of the same key inside its scope accepted anywhere in the run (scopes-inside.test.ts).
            if (!inside)
              t.standBeside(
                insideScope(role),
                `call inside its scope ${scope} with the key restricted to it`,
              );
            const outside = await outsideTheAccount(t, e, (await probeRequest(t, e)).json);
            if (outside)
              return t.skip(
                `the enterprise account's catalog does not list ${outside}: a refusal of ${name} could be the model's, not the scope's`,
              );
            const res = await send(t, e, role);
            // On a path naming a resource id a 404 refuses too: the order of lookup and scope check is not shown.
            const refusals = e.path.includes('{') ? [401, 403, 404] : [401, 403];
            // The support scope's refusal is the scope rule's too (SCOPE-001): the same answer judges both,
            // and one let through breaks both (one cause: the scope family groups them).
            for (const id of ids)
              expectStatus(
                t,
                res,
                id,
                refusals,
                `${name} (scope ${scopes.join(' or ')}) with a key restricted to ${scope}`,
                { expected: refusals.length > 2 ? '403, 401 or 404' : '403 (or 401)', family: 'scope' },
              );
            if (inside && refusals.includes(res.status))
              await refusalControl(t, {
                table: `inside the scope of ${role}`,
                what: `${label(inside)} inside its scope ${scope} with the same key`,
                send: () => send(t, inside, role),
              });
          },
        );
      } else if (scopes.length === 1 && e.effect === 'read' && !e.path.includes('{')) {
        check(
          { ids: ['SCOPE-002'], effect: 'read', roles: [role] },
          `is accepted inside its scope: ${label(e)}`,
          async (t) => {
            const res = await send(t, e, role);
            expectStatus(
              t,
              res,
              'SCOPE-002',
              { not: [401, 403] },
              `${label(e)} with a key restricted to its own scope ${scope}`,
            );
          },
        );
      }
    }
  });
}
