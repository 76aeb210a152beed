// Place faults (issue 36 item 8): for each place of the applicability map (fixtures/applicability.yaml)
// where the reference enforces a rule through data, one fault that breaks the rule there only, as a
// table patch (reference/patch.ts): an endpoint that serves a request without a key (AUTH-001), one
// check of the key skipped on one endpoint (AUTH-002..010), one restricted role let through or refused
// on one endpoint (SCOPE-001/003, SCOPE-002), one refusal answered with another status on one endpoint
// and form (the rules whose status the map states as their predicate: MODEL-002/003/004), one media
// model refusing one separator of custom sizes (MJOB-009). Generated from the fixtures the suite shares
// (endpoints, restricted roles, the media table), never from the suite: test/unit/place-faults.test.ts
// checks each declared place against src/applicability.ts and lists the places no fault breaks.
//
// Their matrix rows run from a script (`npm run mutants -- --places`); `npm test` runs a sample chosen
// by the commit (tools/mutation/matrix.ts), so every row runs over time.
import { ENDPOINTS, type EndpointFixture, RESTRICTED_ROLES as RESTRICTED } from '../fixtures.ts';
import { type CustomSize, TABLE } from '../media/table.ts';
import type { KeyCheck, TablePatch } from '../patch.ts';
import { type Fault, type ProbeReply, type ProbeRequest, type ProbeTarget, withParams } from './probe.ts';

/** The endpoints that stream (their places split by form), as the map has them. */
const STREAMING = ['/v1/chat/completions', '/v1/responses'];
/** Text calls: the endpoints of MODEL-002 and MODEL-004. */
const TEXT_CALLS = ['/v1/chat/completions', '/v1/responses', '/v1/embeddings'];

export type PlaceFaultName = `place:${string}`;
export type PlaceFault = Fault & { name: PlaceFaultName };

/** Whether a fault is a generated place fault (by its name). */
export const isPlaceFault = (name: string): boolean => name.startsWith('place:');

const label = (e: EndpointFixture) => `${e.method} ${e.path}`;
/**
 * A CLI-safe name: no space, no comma (`--only` splits on commas), no `*` (a shell pattern), e.g.
 * `place:AUTH-001:GET:/v1/balance`, `place:MJOB-009:model=wc-100010:form=size:star`.
 */
export const placeFaultName = (id: string, place: string): PlaceFaultName =>
  `place:${id}:${place.replace(/ · /g, ':').replace(/ /g, ':').replace(/\*/g, 'star')}`;
const concrete = (e: EndpointFixture) =>
  e.path.replace(/\{(\w+)\}/g, (_, name: string) => e.path_params?.[name] ?? name);

const business = ENDPOINTS.filter((e) => !e.public);
const KEYLESS_BREAKS = ['AUTH-001', 'AUTH-005', 'AUTH-006'];

/**
 * AUTH-001 per business endpoint: a request without any key served. A key in the query string or a
 * cookie comes without one too, so AUTH-005 and AUTH-006 break at the same place.
 */
function keylessFaults(): PlaceFault[] {
  return business.map((e) => {
    const place = label(e);
    return {
      name: placeFaultName('AUTH-001', place),
      description: `${place} serves a request without any key as the primary account's`,
      breaks: KEYLESS_BREAKS,
      places: KEYLESS_BREAKS.map((id) => ({ id, place })),
      patch: { keyless: [place] },
      probe: { request: { path: concrete(e), method: e.method }, holds: (r: ProbeReply) => r.status !== 401 },
    };
  });
}

/** Per rule of the key, the check skipped and the probe that shows it (its role's key, its header). */
const KEY_CHECKS: {
  ids: string[];
  skip: KeyCheck;
  what: string;
  probe: (t: ProbeTarget) => { role?: string; headers: Record<string, string> };
}[] = [
  // An unknown token taken as the primary key: a truncated or extended key is unknown too (AUTH-004).
  {
    ids: ['AUTH-002', 'AUTH-004'],
    skip: 'unknown',
    what: 'takes a Bearer token that is no key as the primary key',
    probe: () => ({ headers: { authorization: 'Bearer sk-no-such-key-0000000000' } }),
  },
  {
    ids: ['AUTH-003'],
    skip: 'scheme',
    what: 'takes the key under any scheme word (Token, Basic)',
    probe: (t) => ({ headers: { authorization: `Token ${t.keys.primary}` } }),
  },
  {
    ids: ['AUTH-004'],
    skip: 'exact',
    what: "takes a key's prefix or extension as the key",
    probe: (t) => ({ headers: { authorization: `Bearer ${t.keys.primary}x9` } }),
  },
  {
    ids: ['AUTH-007'],
    skip: 'revoked',
    what: 'takes a revoked key',
    probe: (t) => ({ headers: { authorization: `Bearer ${t.keys.revoked}` } }),
  },
  {
    ids: ['AUTH-008'],
    skip: 'expiry',
    what: 'takes an expired key',
    probe: (t) => ({ headers: { authorization: `Bearer ${t.keys.expired}` } }),
  },
  {
    ids: ['AUTH-010'],
    skip: 'allowlist',
    what: 'takes a key whose IP allowlist excludes the caller',
    probe: (t) => ({ headers: { authorization: `Bearer ${t.keys.ip_blocked}` } }),
  },
];

/**
 * Places where a generated fault survives the suite (a gap of the suite, not of the generation): not
 * generated, so that the matrix stays green, and listed by test/unit/place-faults.test.ts until a test
 * can tell there (its places count among those no fault breaks).
 */
const PAYMENTS_GAP =
  'the expired and ip_blocked roles are enterprise keys, which the payment API refuses 403 whatever the key (PAY-002); AUTH-008 and AUTH-010 accept 403 as a reading, so a deployment that skips the check there passes: it needs a personal key of that state';
export const SUITE_GAPS: Record<string, string> = {
  'AUTH-008 @ GET /v1/payment-methods': PAYMENTS_GAP,
  'AUTH-008 @ POST /v1/payment-orders': PAYMENTS_GAP,
  'AUTH-010 @ GET /v1/payment-methods': PAYMENTS_GAP,
  'AUTH-010 @ POST /v1/payment-orders': PAYMENTS_GAP,
};

/** Per business endpoint and key check: the check skipped there. */
function keyCheckFaults(): PlaceFault[] {
  return KEY_CHECKS.flatMap((k) =>
    business.flatMap((e) => {
      const place = label(e);
      if (k.ids.some((id) => SUITE_GAPS[`${id} @ ${place}`])) return [];
      return {
        name: placeFaultName(k.ids[0] as string, place),
        description: `${place} ${k.what}`,
        breaks: k.ids,
        places: k.ids.map((id) => ({ id, place })),
        patch: { keyChecks: [{ endpoint: place, skip: k.skip }] },
        probe: {
          request: (t: ProbeTarget) => ({ path: concrete(e), method: e.method, ...k.probe(t) }),
          holds: (r: ProbeReply) => r.status !== 401 && r.status !== 403,
        },
      };
    }),
  );
}

/** AUTH-009 per business endpoint: a missing or wrong key refused 401 under another code. */
function codeFaults(): PlaceFault[] {
  return business.map((e) => {
    const place = label(e);
    return {
      name: placeFaultName('AUTH-009', place),
      description: `${place} refuses a missing or wrong key with 401 under the code unauthorized`,
      breaks: ['AUTH-009'],
      places: [{ id: 'AUTH-009', place }],
      patch: { errors: [{ endpoint: place, error: 'invalid_api_key', as: 'unauthorized' }] },
      probe: {
        request: { path: concrete(e), method: e.method },
        holds: (r: ProbeReply) => r.status === 401 && r.body?.error?.code === 'unauthorized',
      },
    };
  });
}

/** The separators of a custom size the table's pattern admits (`[0-9]+[x*][0-9]+`: x and *). */
const SEPARATORS = [...(/\]\+\[([^\]]+)\]/.exec(TABLE.custom_size_pattern)?.[1] ?? '')];

/** The side of a square custom size within the bounds, on the step, that no preset of the list names. */
function validSquare(c: CustomSize, presets: readonly string[]): number {
  let side = Math.ceil(Math.sqrt(c.min_pixels) / c.step) * c.step;
  while (SEPARATORS.some((sep) => presets.includes(`${side}${sep}${side}`))) side += c.step;
  if (side * side > c.max_pixels || side > c.max_edge)
    throw new Error(`places: no custom square within ${JSON.stringify(c)}`);
  return side;
}

/**
 * MJOB-009 per documented model with custom sizes and per separator: that model refuses a valid custom
 * size written with that separator (its pattern admits the others only).
 */
function separatorFaults(): PlaceFault[] {
  const out: PlaceFault[] = [];
  for (const [model, def] of Object.entries(TABLE.models)) {
    const sized = Object.entries(def.parameters).find(([, p]) => p.custom);
    if (!sized) continue;
    const [name, p] = sized;
    const side = validSquare(p.custom as CustomSize, TABLE.size_lists[p.presets ?? ''] ?? []);
    const refs = (def.references.accepted ?? []).length > 0 ? Math.max(1, def.references.min ?? 1) : 0;
    for (const sep of SEPARATORS) {
      const place = `model=${model} · form=size ${sep}`;
      const others = SEPARATORS.filter((x) => x !== sep).join('');
      const size = `${side}${sep}${side}`;
      out.push({
        name: placeFaultName('MJOB-009', place),
        description: `${model} refuses a custom size written with ${sep} (${size})`,
        breaks: ['MJOB-009'],
        places: [{ id: 'MJOB-009', place }],
        patch: { mediaTable: { custom_size_pattern: `^[0-9]+[${others}][0-9]+$`, models: [model] } },
        probe: {
          run: async ({ ref, jobStatus, inputId }) => {
            const ids = await Promise.all(Array.from({ length: refs }, () => inputId(ref)));
            return (await jobStatus(ref, withParams(model, { [name]: size }, ids))) === 400;
          },
        },
      });
    }
  }
  return out;
}

/**
 * Per restricted role and endpoint with a scope: out of the role's scope, the role let through
 * (SCOPE-001; on the ticket API SCOPE-003 too); inside it, refused (SCOPE-002). An endpoint two scopes
 * may cover is the map's exclusion for SCOPE-002 (which one is not stated): none generated there.
 */
function scopeFaults(): PlaceFault[] {
  const out: PlaceFault[] = [];
  for (const [role, scope] of Object.entries(RESTRICTED)) {
    for (const e of business) {
      const scopes = e.scopes ?? [];
      if (scopes.length === 0) continue;
      const endpoint = label(e);
      const place = `${endpoint} · role=${role}`;
      const request: ProbeRequest = { path: concrete(e), method: e.method, role };
      if (scopes.includes(scope)) {
        if (scopes.length > 1) continue;
        out.push({
          name: placeFaultName('SCOPE-002', place),
          description: `a key restricted to the ${scope} scope is refused on ${endpoint}`,
          breaks: ['SCOPE-002'],
          places: [{ id: 'SCOPE-002', place }],
          patch: { scopes: [{ role, endpoint, allow: false }] },
          probe: { request, holds: (r: ProbeReply) => r.status === 403 },
        });
        continue;
      }
      // On the ticket API the refusal is judged under SCOPE-003 (a restricted key needs `support`) too.
      const ids = e.path.startsWith('/v1/support/') ? ['SCOPE-001', 'SCOPE-003'] : ['SCOPE-001'];
      out.push({
        name: placeFaultName(ids[0] as string, place),
        description: `a key restricted to the ${scope} scope is let through on ${endpoint}`,
        breaks: ids,
        places: ids.map((id) => ({ id, place })),
        patch: { scopes: [{ role, endpoint, allow: true }] },
        probe: { request, holds: (r: ProbeReply) => r.status !== 403 },
      });
    }
  }
  return out;
}

/** The refusals whose status the map states (`predicate`), each answered as another kind at one place. */
const REFUSALS: {
  id: string;
  endpoints: (e: EndpointFixture) => boolean;
  error: string;
  /** The kind it is answered as, and that kind's status, per endpoint. */
  as: (e: EndpointFixture) => { as: string; status: number };
  /** The model of the request that meets the refusal. */
  model: (t: ProbeTarget, e: EndpointFixture) => string;
}[] = [
  {
    id: 'MODEL-002',
    endpoints: (e) => TEXT_CALLS.includes(e.path),
    error: 'model_not_allowed',
    as: () => ({ as: 'model_not_found', status: 404 }),
    model: (t, e) =>
      (e.path === '/v1/embeddings'
        ? t.hints.forbidden_embedding
        : e.path === '/v1/responses'
          ? t.hints.forbidden_responses
          : t.hints.forbidden) ?? '',
  },
  {
    id: 'MODEL-003',
    endpoints: (e) => typeof e.probe?.json?.model === 'string',
    error: 'model_not_found',
    // On media jobs another 4xx is the suite's advisory (the model field is a parameter rule too, MJOB-044
    // accepts any 4xx): the broken form there is a server error.
    as: (e) =>
      e.path === '/v1/media/jobs'
        ? { as: 'internal_error', status: 500 }
        : { as: 'invalid_request', status: 400 },
    model: () => 'no-such-model-anywhere',
  },
  {
    id: 'MODEL-004',
    endpoints: (e) => TEXT_CALLS.includes(e.path),
    error: 'wrong_endpoint_type',
    // On /v1/responses another 4xx is the suite's advisory (the call meets RSP-002 too, "only for models
    // whose catalog entry marks native responses support", no status stated): the broken form there is a
    // server error.
    as: (e) =>
      e.path === '/v1/responses'
        ? { as: 'internal_error', status: 500 }
        : { as: 'invalid_request', status: 400 },
    model: () => 'wc-100010',
  },
];

function refusalFaults(): PlaceFault[] {
  const out: PlaceFault[] = [];
  for (const r of REFUSALS) {
    for (const e of business.filter(r.endpoints)) {
      const endpoint = label(e);
      const { as, status } = r.as(e);
      const forms = STREAMING.includes(e.path) ? (['streamed', 'not streamed'] as const) : [undefined];
      for (const form of forms) {
        const place = form ? `${endpoint} · form=${form}` : endpoint;
        const patch: TablePatch = {
          errors: [{ endpoint, ...(form ? { form } : {}), error: r.error, as }],
        };
        out.push({
          name: placeFaultName(r.id, place),
          description: `${endpoint}${form ? ` ${form}` : ''} answers ${r.error} with ${status} (${as})`,
          // A server error for the refusal breaks "Error body" (a 500, ERR-002) and the declared statuses
          // (RESP-001) as well: rules a target breaks apart (GROUP_REASONS).
          breaks: status === 500 ? [r.id, 'ERR-002', 'RESP-001'] : [r.id],
          places: [{ id: r.id, place }],
          patch,
          probe: {
            request: (t: ProbeTarget) => ({
              path: e.path,
              method: e.method,
              role: 'primary',
              json: {
                ...e.probe?.json,
                model: r.model(t, e),
                ...(form === 'streamed' ? { stream: true } : {}),
              },
            }),
            holds: (reply: ProbeReply) => reply.status === status,
          },
        });
      }
    }
  }
  return out;
}

export const PLACE_FAULTS: readonly PlaceFault[] = [
  ...keylessFaults(),
  ...keyCheckFaults(),
  ...codeFaults(),
  ...scopeFaults(),
  ...refusalFaults(),
  ...separatorFaults(),
];
