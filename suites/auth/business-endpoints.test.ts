import {
  businessForms,
  type CheckContext,
  check,
  concretePath,
  type Endpoint,
  expectErrorCode,
  expectStatus,
  group,
  idempotencyHeader,
  isClientError,
  isSuccess,
  label,
  PROBE_CREDENTIALS,
  probeRequest,
  type Role,
} from '../../src/suite/index.ts';

interface Probe {
  ids: string[];
  title: string;
  /** Carries (a mutation of) a real key: if wrongly accepted it acts on a real account. */
  keyMaterial: boolean;
  role?: Role;
  /** Accepted statuses and whether a 401 must carry `invalid_api_key`. */
  expect: { statuses: number[]; code401: boolean };
  build(t: CheckContext): { headers: Record<string, string>; query?: string };
}

const REFUSED = { statuses: [401], code401: true };
const fakeKey = PROBE_CREDENTIALS.unknownKey;

const probes: Probe[] = [
  {
    ids: ['AUTH-001', 'AUTH-009'],
    title: 'refuses a request without a key',
    keyMaterial: false,
    expect: REFUSED,
    build: () => ({ headers: {} }),
  },
  {
    // "Every business endpoint needs `Authorization: Bearer <API_KEY>`": the key in another header (as
    // gateways compatible with other APIs read it) is no Authorization, so the request has no key.
    ids: ['AUTH-001', 'AUTH-009'],
    title: 'refuses the key in an X-API-Key or api-key header instead of Authorization',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => {
      const k = t.keyOf('primary');
      return { headers: { 'x-api-key': k, 'api-key': k } };
    },
  },
  {
    ids: ['AUTH-002', 'AUTH-009'],
    title: 'refuses a well-formed key that does not exist',
    keyMaterial: false,
    expect: REFUSED,
    build: () => ({ headers: { authorization: `Bearer ${fakeKey}` } }),
  },
  {
    ids: ['AUTH-003', 'AUTH-009'],
    title: 'refuses the key under the Token scheme',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => ({ headers: { authorization: `Token ${t.keyOf('primary')}` } }),
  },
  {
    ids: ['AUTH-003', 'AUTH-009'],
    title: 'refuses the key under the Basic scheme',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => ({ headers: { authorization: `Basic ${t.keyOf('primary')}` } }),
  },
  {
    ids: ['AUTH-003', 'AUTH-009'],
    title: 'refuses the bare key without a scheme',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => ({ headers: { authorization: t.keyOf('primary') } }),
  },
  {
    ids: ['AUTH-004', 'AUTH-009'],
    title: 'refuses a truncated key',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => {
      const k = t.keyOf('primary');
      return { headers: { authorization: `Bearer ${k.slice(0, Math.max(1, k.length - 6))}` } };
    },
  },
  {
    ids: ['AUTH-004', 'AUTH-009'],
    title: 'refuses the key with characters appended',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => ({ headers: { authorization: `Bearer ${t.keyOf('primary')}x9` } }),
  },
  {
    ids: ['AUTH-005', 'AUTH-009'],
    title: 'refuses the key in the query string',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => {
      const k = encodeURIComponent(t.keyOf('primary'));
      return { headers: {}, query: `api_key=${k}&key=${k}&access_token=${k}` };
    },
  },
  {
    ids: ['AUTH-006', 'AUTH-009'],
    title: 'refuses a cookie carrying the key instead of the header',
    keyMaterial: true,
    expect: REFUSED,
    build: (t) => {
      const k = t.keyOf('primary');
      return { headers: { cookie: `session=${k}; api_key=${k}; token=${k}` } };
    },
  },
  {
    ids: ['AUTH-007', 'AUTH-009'],
    title: 'refuses a revoked key',
    keyMaterial: true,
    role: 'revoked',
    expect: REFUSED,
    build: (t) => ({ headers: { authorization: `Bearer ${t.keyOf('revoked')}` } }),
  },
  {
    ids: ['AUTH-008'],
    title: 'refuses an expired key',
    keyMaterial: true,
    role: 'expired',
    // Readings: 401 (invalid_api_key lists no expiry) or 403 (expiry is a key restriction).
    expect: { statuses: [401, 403], code401: false },
    build: (t) => ({ headers: { authorization: `Bearer ${t.keyOf('expired')}` } }),
  },
  {
    ids: ['AUTH-010'],
    title: 'refuses a key whose IP allowlist excludes the caller',
    keyMaterial: true,
    role: 'ip_blocked',
    expect: { statuses: [401, 403], code401: false },
    build: (t) => ({ headers: { authorization: `Bearer ${t.keyOf('ip_blocked')}` } }),
  },
];

/**
 * A body no server could act on: JSON cut off mid-object. Why: a probe without a real key runs in every
 * run (class read), but a server with an auth bypass would act on a valid body (file a ticket, order a
 * payment, bill a call) in a run whose user did not allow that class.
 */
const INERT_BODY = {
  body: Buffer.from('{"conformance_probe": '),
  headers: { 'content-type': 'application/json' },
};
/** Statuses that say the body was judged before the key: the auth check is then not judged. */
const BODY_FIRST = [400, 413, 415, 422];

/** Whether a probe of this endpoint must not carry a valid body: its class is not allowed in this run. */
const inert = (t: CheckContext, e: Endpoint) =>
  e.effect !== 'read' && !t.target.allow.includes(e.effect) && !['GET', 'HEAD', 'DELETE'].includes(e.method);

async function probe(t: CheckContext, e: Endpoint, p: Probe, name = label(e)): Promise<void> {
  const safe = inert(t, e);
  // Without a valid body the streamed form is the plain one's probe again: not sent.
  if (safe && name !== label(e))
    t.skip(
      `not judged: class '${e.effect}' is not allowed, and ${name} is a form of its body; allow '${e.effect}' to judge ${p.ids.join(' ')} here`,
      {
        kind: 'precondition',
        subject: `key probes of '${e.effect}' endpoints carried an unparseable body (the class is not allowed), which the target judged before the key`,
        remedy: `allow '${e.effect}' (--allow) to send them a valid body`,
      },
    );
  const valid = safe
    ? { ...INERT_BODY, headers: { ...INERT_BODY.headers, ...idempotencyHeader(e) } }
    : await probeRequest(t, e);
  const { headers, query } = p.build(t);
  const path = concretePath(e) + (query ? `?${query}` : '');
  const res = await t.request(e.method, path, {
    ...valid,
    as: 'none',
    // Every probe's key is one the contract refuses: a small budget sends it before media purchases.
    refusal: true,
    headers: { ...(valid.headers ?? {}), ...headers },
  });
  if (safe && BODY_FIRST.includes(res.status))
    t.skip(
      `not judged: class '${e.effect}' is not allowed, so the probe carried an unparseable body (no valid one), and ${name} answered ${res.status} to the body before judging the key; allow '${e.effect}' to judge ${p.ids.join(' ')} here`,
      // One line for every probe so left unjudged: the class is the cause, allowing it the remedy.
      {
        kind: 'precondition',
        subject: `key probes of '${e.effect}' endpoints carried an unparseable body (the class is not allowed), which the target judged before the key`,
        remedy: `allow '${e.effect}' (--allow) to send them a valid body`,
      },
    );
  const [main] = p.ids;
  const what = p.title.replace(/^refuses /, '');
  const statuses = p.expect.statuses;
  // Answered as if the key were good, or refused with another status than the contract's: with the
  // other probes so answered, one cause each (no auth; one status for every key problem).
  const wrong = isSuccess(res.status) ? 'accepted' : isClientError(res.status) ? 'status' : undefined;
  if (
    !t.ensure(
      statuses.includes(res.status),
      main!,
      wrong === 'status'
        ? `${name}: refused ${what} with ${res.status}, not ${statuses.join(' or ')}`
        : `${name}: ${p.title.replace(/^refuses/, 'did not refuse')}`,
      {
        received: res.status,
        expected: statuses.join(' or '),
        exchange: res.exchange,
        ...(wrong ? { verdictCase: { wrong, what, family: 'authentication' as const } } : {}),
      },
    )
  ) {
    return;
  }
  if (res.status === 401 && p.expect.code401)
    // One message per endpoint, whatever the probe: a wrong code is one cause on that endpoint.
    expectErrorCode(t, res, 'AUTH-009', 'invalid_api_key', `${name} without a valid key`);
}

for (const { e, name } of businessForms()) {
  group(name, () => {
    for (const p of probes) {
      check(
        { ids: p.ids, effect: p.keyMaterial ? e.effect : 'read', ...(p.role ? { roles: [p.role] } : {}) },
        `${p.title}: ${name}`,
        (t) => probe(t, e, p, name),
      );
    }
  });
}

check(
  { ids: ['AUTH-011'], effect: 'read' },
  'accepts the primary key as Bearer on the catalog and the balance',
  async (t) => {
    for (const path of ['/v1/models', '/v1/balance']) {
      const res = await t.get(path);
      expectStatus(t, res, 'AUTH-011', '2xx', `GET ${path} with the primary key`);
    }
  },
);
