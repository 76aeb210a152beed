// Named seeded faults and conformant variants of the reference server. One is chosen per start;
// the code checks `ctx.fault === 'name'` / `ctx.variant === 'name'` at the point of the deviation.
// A fault's `breaks` lists the requirement ids that must catch it; `level: 'implied'` faults break
// only an implied invariant and are caught only under --strict.

export interface Fault {
  name: string;
  description: string;
  breaks: string[];
  level?: 'implied';
}

export interface Variant {
  name: string;
  description: string;
}

const FAULT_LIST = [
  // auth.ts: a key in the query string is used when the header gives none
  {
    name: 'auth-query-key',
    description: 'accepts the key from ?api_key= or ?key= when the header gives none',
    breaks: ['AUTH-005'],
  },
  // auth.ts: any scheme word before the key is accepted
  {
    name: 'auth-scheme-lax',
    description: 'accepts any scheme word (Token <key>, Basic <key>, bearer <key>)',
    breaks: ['AUTH-003'],
  },
  // auth.ts: a prefix (>= 8 chars) of a real key is accepted as that key
  {
    name: 'auth-prefix-key',
    description: 'accepts a truncated key (a prefix of a real key, length >= 8)',
    breaks: ['AUTH-004'],
  },
  // auth.ts: a real key followed by extra characters is accepted
  {
    name: 'auth-suffix-key',
    description: 'accepts a real key with extra characters appended',
    breaks: ['AUTH-004'],
  },
  // auth.ts: any cookie value equal to a key authenticates
  { name: 'auth-cookie', description: 'accepts the key from any cookie value', breaks: ['AUTH-006'] },
  // auth.ts: revoked keys pass
  { name: 'auth-revoked-accepted', description: 'a revoked key still authenticates', breaks: ['AUTH-007'] },
  // auth.ts: expired keys pass
  { name: 'auth-expired-accepted', description: 'an expired key still authenticates', breaks: ['AUTH-008'] },
  // errors.ts: 401 carries code `unauthorized`
  {
    name: 'auth-wrong-code',
    description: '401 answers carry code `unauthorized` instead of `invalid_api_key`',
    breaks: ['AUTH-009'],
  },
  // errors.ts + openapi.ts: 401 body is {"error":"invalid api key"} (and described so)
  {
    name: 'error-shape-flat',
    description: '401 body is {"error":"invalid api key"}, not the APIError object',
    breaks: ['ERR-001'],
  },
  // auth.ts: the IP allowlist is not enforced
  {
    name: 'ip-allowlist-ignored',
    description: 'a key whose IP allowlist excludes the caller still authenticates',
    breaks: ['AUTH-010'],
  },
  // auth.ts + openapi.ts: /healthz requires a key (described so)
  { name: 'healthz-auth', description: 'GET /healthz answers 401 without a key', breaks: ['HEALTH-001'] },
  // routes/public.ts + openapi.ts: /status answers 500 (described so)
  {
    name: 'status-500',
    description: 'GET /status answers 500 with an APIError',
    breaks: ['HEALTH-002', 'ERR-002'],
  },
  // openapi.ts: `info` removed and a path item of the wrong type
  {
    name: 'openapi-invalid',
    description: '/openapi.json is not a valid OpenAPI 3.1 document',
    breaks: ['OAS-001'],
  },
  // openapi.ts: POST /v1/embeddings left out
  {
    name: 'openapi-missing-endpoint',
    description: 'the description omits POST /v1/embeddings',
    breaks: ['OAS-002'],
  },
  // openapi.ts: chat temperature maximum 1, role enum without developer
  {
    name: 'openapi-enum-drift',
    description: "the description's chat request has temperature maximum 1 and no `developer` role",
    breaks: ['OAS-003'],
  },
  // openapi.ts: no 401 declared on GET /v1/models
  {
    name: 'openapi-undeclared-401',
    description: 'GET /v1/models declares no 401 response',
    breaks: ['RESP-001'],
  },
  // routes/models.ts: entries lack context_length, which the description requires
  {
    name: 'models-undocumented-shape',
    description: 'model entries omit context_length while the description requires it',
    breaks: ['RESP-003'],
  },
  // routes/balance.ts: JSON text served as text/plain
  {
    name: 'balance-text-plain',
    description: 'GET /v1/balance is served with content-type text/plain',
    breaks: ['RESP-002'],
  },
  // routes/models.ts + openapi.ts: prices as JSON numbers (described so)
  {
    name: 'models-price-number',
    description: 'model prices are JSON numbers (and described as numbers)',
    breaks: ['PTS-001'],
  },
  // routes/models.ts: the unpriced model shows "0" prices with points_configured false
  {
    name: 'models-zero-quote',
    description: 'the unpriced model shows invented "0" prices',
    breaks: ['MODELS-003'],
  },
  // state.ts: tx-chat-premium added to non-enterprise catalogs
  {
    name: 'models-forbidden-listed',
    description: "tx-chat-premium is listed in (and callable from) the primary account's catalog",
    breaks: ['MODELS-004'],
  },
  // routes/balance.ts + openapi.ts: points as JSON numbers (described so)
  {
    name: 'balance-number',
    description: 'balance points are JSON numbers (and described as numbers)',
    breaks: ['PTS-001'],
  },
  // routes/balance.ts + openapi.ts: held_points omitted (and not required by the description)
  { name: 'balance-missing-held', description: 'the balance omits held_points', breaks: ['BAL-001'] },
  // routes/balance.ts: available = total - held + 1
  {
    name: 'balance-available-off',
    description: 'available_points = total - held + 1',
    breaks: ['BAL-003'],
    level: 'implied',
  },
  // app.ts: the caller's key echoed in a response header
  {
    name: 'key-echo',
    description: 'every authenticated response carries X-Debug-Key: <the caller key>',
    breaks: ['SEC-001'],
  },
] as const satisfies readonly Fault[];

const VARIANT_LIST = [
  // routes/models.ts + openapi.ts
  {
    name: 'models-envelope',
    description:
      '/v1/models answers {models:[{model_id, features, max_context_tokens, ...prices, points_configured}]}',
  },
  // app.ts: preSerialization adds x_vendor to every JSON object (the closed MediaInputEnvelope excepted)
  {
    name: 'extra-fields',
    description:
      'every JSON object in responses (errors and nested entries too) carries an extra x_vendor object',
  },
  // app.ts + openapi.ts
  { name: 'no-request-id', description: 'no X-Request-ID header is sent or described' },
  // errors.ts: other codes and types, except 401 invalid_api_key and the stated invalid_request
  {
    name: 'error-codes',
    description:
      'error codes and types other than the stated ones differ (403 permission_denied, 404 route_not_found, ...)',
  },
  // errors.ts: expired keys get 403 key_expired
  { name: 'expired-403', description: 'an expired key answers 403 key_expired instead of 401' },
  // app.ts + state.ts: 160-byte request ids, ~120-byte model ids
  { name: 'long-ids', description: 'X-Request-ID values are 160 bytes; text model ids are about 120 bytes' },
  // routes/balance.ts + openapi.ts
  {
    name: 'balance-envelope',
    description: '/v1/balance answers {data:{total_points, held_points, available_points, unit}}',
  },
  // routes/models.ts + openapi.ts: no price fields and no points_configured on the unpriced model
  {
    name: 'unpriced-omitted',
    description: 'the unpriced model carries neither price fields nor points_configured',
  },
  // state.ts: long fractional prices and balances
  {
    name: 'fractional-prices',
    description: 'prices and balances with many decimals (e.g. "0.000001234567891234")',
  },
  // routes/public.ts + openapi.ts
  { name: 'healthz-text', description: '/healthz answers text/plain "ok" and /status text/html' },
  // openapi.ts
  {
    name: 'openapi-default-errors',
    description: 'the description declares errors under `default` instead of explicit statuses',
  },
] as const satisfies readonly Variant[];

export type FaultName = (typeof FAULT_LIST)[number]['name'];
export type VariantName = (typeof VARIANT_LIST)[number]['name'];

export const FAULTS: readonly Fault[] = FAULT_LIST;
export const VARIANTS: readonly Variant[] = VARIANT_LIST;

export function parseFault(name: string | undefined): FaultName | undefined {
  return pick(name, FAULT_LIST, 'fault');
}

export function parseVariant(name: string | undefined): VariantName | undefined {
  return pick(name, VARIANT_LIST, 'variant');
}

function pick<N extends string>(
  name: string | undefined,
  list: readonly { name: N }[],
  what: string,
): N | undefined {
  if (name === undefined || name === '') return undefined;
  const found = list.find((entry) => entry.name === name);
  if (!found) {
    throw new Error(`Unknown ${what} "${name}". Valid ${what}s: ${list.map((e) => e.name).join(', ')}`);
  }
  return found.name;
}
