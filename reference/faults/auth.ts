// Faults and variants of authentication, scopes and the error object (auth.ts, errors.ts).

import { READ_429_EVERY, REFUSAL_429_EVERY } from '../guard-rates.ts';
import {
  EITHER_ERROR,
  errorShape,
  type Fault,
  jobBody,
  type ProbeReply,
  req,
  TICKETS,
  type Variant,
} from './probe.ts';

export const AUTH_FAULTS = [
  // auth.ts: a key in the query string is used when the header gives none
  {
    name: 'auth-query-key',
    description: 'accepts the key from ?api_key= or ?key= when the header gives none',
    breaks: ['AUTH-005'],
    probe: {
      run: async ({ ref, withKey }) =>
        (await withKey(ref, () => ({}), `?api_key=${ref.keys.primary}`)).status === 200,
    },
  },
  // auth.ts: the key is read from X-API-Key when no Authorization header is sent
  {
    name: 'auth-key-header',
    description: 'accepts the key from an X-API-Key header when no Authorization header is sent',
    breaks: ['AUTH-001'],
    probe: { request: req.withKey((k) => ({ 'x-api-key': k })), holds: (r) => r.status === 200 },
  },
  // auth.ts: a streamed chat or responses call is served without its key judged
  {
    name: 'stream-auth-skipped',
    description:
      'serves a streamed chat or responses call (`stream` true) without judging its key, as the primary key',
    breaks: ['AUTH-001'],
    probe: {
      run: async ({ ref, call, chatBody }) =>
        (await call(ref, '/v1/chat/completions', { method: 'POST', json: chatBody(ref, { stream: true }) }))
          .status === 200,
    },
  },
  // auth.ts: the streamed form's scope check skipped (a streaming route of its own)
  {
    name: 'stream-scope-skipped',
    description:
      'serves a streamed chat or responses call (`stream` true) of a key restricted by scope without judging its scopes',
    breaks: ['SCOPE-001'],
    probe: {
      run: async ({ ref, call, chatBody }) =>
        (
          await call(ref, '/v1/chat/completions', {
            method: 'POST',
            role: 'restricted_models',
            json: chatBody(ref, { stream: true }),
          })
        ).status === 200,
    },
  },
  // auth.ts: any scheme word before the key is accepted
  {
    name: 'auth-scheme-lax',
    description: 'accepts any scheme word (Token <key>, Basic <key>, bearer <key>)',
    breaks: ['AUTH-003'],
    probe: { request: req.withKey((k) => ({ authorization: `Token ${k}` })), holds: (r) => r.status === 200 },
  },
  // auth.ts: a prefix (>= 8 chars) of a real key is accepted as that key
  {
    name: 'auth-prefix-key',
    description: 'accepts a truncated key (a prefix of a real key, length >= 8)',
    breaks: ['AUTH-004'],
    probe: {
      request: req.withKey((k) => ({ authorization: `Bearer ${k.slice(0, 24)}` })),
      holds: (r) => r.status === 200,
    },
  },
  // auth.ts: a real key followed by extra characters is accepted
  {
    name: 'auth-suffix-key',
    description: 'accepts a real key with extra characters appended',
    breaks: ['AUTH-004'],
    probe: {
      request: req.withKey((k) => ({ authorization: `Bearer ${k}xyz` })),
      holds: (r) => r.status === 200,
    },
  },
  // auth.ts: any cookie value equal to a key authenticates
  {
    name: 'auth-cookie',
    description: 'accepts the key from any cookie value',
    breaks: ['AUTH-006'],
    probe: { request: req.withKey((k) => ({ cookie: `session=${k}` })), holds: (r) => r.status === 200 },
  },
  // auth.ts: revoked keys pass
  {
    name: 'auth-revoked-accepted',
    description: 'a revoked key still authenticates',
    breaks: ['AUTH-007'],
    probe: { request: req.models('revoked'), holds: (r) => r.status === 200 },
  },
  // auth.ts: expired keys pass
  {
    name: 'auth-expired-accepted',
    description: 'an expired key still authenticates',
    breaks: ['AUTH-008'],
    probe: { request: req.models('expired'), holds: (r) => r.status === 200 },
  },
  // errors.ts: 401 carries code `unauthorized`
  {
    name: 'auth-wrong-code',
    description: '401 answers carry code `unauthorized` instead of `invalid_api_key`',
    breaks: ['AUTH-009'],
    probe: { request: req.call('/v1/models'), holds: (r) => r.body.error.code === 'unauthorized' },
  },
  // errors.ts + openapi.ts: 401 body is {"error":"invalid api key"} (and described so)
  {
    name: 'error-shape-flat',
    description: '401 body is {"error":"invalid api key"}, not the APIError object',
    breaks: ['ERR-001'],
    openapi: ({ paths }) => errorShape(paths, '401', { $ref: '#/components/schemas/FlatError' }),
    probe: { request: req.call('/v1/models'), holds: (r) => typeof r.body.error === 'string' },
  },
  // errors.ts + openapi.ts: a media job, asset or input that is not found answers a flat error (described so)
  {
    name: 'media-not-found-flat',
    description: 'an unknown media job, asset or input answers 404 {"error": "..."}, not the APIError object',
    breaks: ['ERR-001'],
    openapi: ({ paths }) => {
      for (const [path, item] of Object.entries(paths))
        if (path.startsWith('/v1/media/')) errorShape({ [path]: item }, '404', EITHER_ERROR);
    },
    probe: {
      request: req.call('/v1/media/jobs/job_probe_unknown', { role: 'primary' }),
      holds: (r) => r.status === 404 && typeof r.body.error === 'string',
    },
  },
  // auth.ts: the IP allowlist is not enforced
  {
    name: 'ip-allowlist-ignored',
    description: 'a key whose IP allowlist excludes the caller still authenticates',
    breaks: ['AUTH-010'],
    probe: { request: req.models('ip_blocked'), holds: (r) => r.status === 200 },
  },
  // auth.ts: GET /v1/balance (a billing service's own auth) reads the key from X-API-Key, not the Bearer header
  {
    name: 'balance-key-header',
    description:
      'GET /v1/balance takes the key from X-API-Key only: the primary key as Bearer is refused 401',
    // A Bearer caller then cannot read the balance at all: BAL-001 ("answers 2xx") fails too (other
    // tests reading the balance fail under their own ids, but the row does not select them).
    breaks: ['AUTH-011', 'BAL-001'],
    probe: {
      run: async ({ ref, balance, call }) =>
        (await balance(ref)).status === 401 &&
        (await call(ref, '/v1/balance', { headers: { 'x-api-key': ref.keys.primary as string } })).status ===
          200,
    },
  },
  // auth.ts + openapi.ts: /healthz requires a key (described so)
  {
    name: 'healthz-auth',
    description: 'GET /healthz answers 401 without a key',
    breaks: ['HEALTH-001'],
    openapi: ({ paths, errorResponse }) => {
      const op = paths['/healthz'].get;
      // A business operation: key required, and the common refusals of one without a body.
      op.security = [{ bearerAuth: [] }];
      for (const status of ['401', '403', '404', '429']) op.responses[status] = errorResponse(status);
    },
    probe: { request: req.call('/healthz'), holds: (r) => r.status === 401 },
  },
  // auth.ts: "401 | invalid_api_key | key missing, ..."
  {
    name: 'auth-missing-403',
    description: 'a business request without any key is refused 403 permission_denied, not 401',
    breaks: ['AUTH-001'],
    probe: { request: req.call('/v1/models'), holds: (r) => r.status === 403 },
  },
  // auth.ts: "401 | invalid_api_key | key missing, wrong, ..." (a truncated or appended key is a wrong key too)
  {
    name: 'auth-unknown-key-403',
    description:
      'a well-formed Bearer header whose token is no key (unknown, truncated, appended) is refused 403, not 401',
    breaks: ['AUTH-002', 'AUTH-004'],
    probe: {
      request: req.call('/v1/models', { headers: { authorization: 'Bearer sk-no-such-key' } }),
      holds: (r) => r.status === 403,
    },
  },
  // auth.ts: a restricted key is accepted on GET /v1/balance and GET /v1/usage whatever its scopes
  {
    name: 'scope-ignored',
    description: 'a restricted key (restricted_models) is accepted on GET /v1/balance and GET /v1/usage',
    breaks: ['SCOPE-001'],
    // tickets.test.ts, payments.test.ts and guards.test.ts)
    probe: {
      request: req.call('/v1/balance', { role: 'restricted_models' }),
      holds: (r) => r.status === 200,
    },
  },
  // auth.ts: the media paths that name a resource are open to any restricted key of its account
  {
    name: 'scope-media-ids-ignored',
    description:
      "a restricted key without the media scope (restricted_models) reads its account's media jobs and assets and deletes its inputs",
    breaks: ['SCOPE-001'],
    probe: {
      run: async ({ ref, call, inputId }) => {
        const id = await inputId(ref, 'png-64x48.png', 'enterprise');
        const del = await call(ref, `/v1/media/inputs/${id}`, {
          method: 'DELETE',
          role: 'restricted_models',
        });
        return del.status === 204;
      },
    },
  },
  // auth.ts: keys restricted by scope refused everywhere (not provisioned), inside their scope too: their
  // refusals outside it are then not run, beside no accepted control (test/case-controls.test.ts)
  {
    name: 'scoped-keys-refused',
    description: 'every key restricted by scope is refused 403 insufficient_scope, inside its scope too',
    breaks: ['SCOPE-002'],
    probe: {
      request: req.call('/v1/balance', { role: 'restricted_balance' }),
      holds: (r) => r.status === 403,
    },
  },
  // auth.ts: the balance scope no longer covers GET /v1/balance
  {
    name: 'scope-too-strict',
    description: 'a restricted_balance key is refused on GET /v1/balance',
    breaks: ['SCOPE-002'],
    probe: {
      request: req.call('/v1/balance', { role: 'restricted_balance' }),
      holds: (r) => r.status === 403,
    },
  },
  // auth.ts: the ticket API needs no support scope
  {
    name: 'support-scope-ignored',
    description: 'restricted keys without the support scope use the ticket API',
    breaks: ['SCOPE-001', 'SCOPE-003'],
    probe: { request: req.call(TICKETS, { role: 'restricted_models' }), holds: (r) => r.status === 200 },
  },
  // auth.ts: enterprise_second is bound to a copy of the account with its own balance
  {
    name: 'enterprise-balance-split',
    description: 'enterprise_second sees its own separate balance (5000), not the shared one',
    breaks: ['ENT-001'],
    probe: {
      run: async ({ ref, call }) =>
        (await call(ref, '/v1/balance', { role: 'enterprise_second' })).body.total_points !==
        (await call(ref, '/v1/balance', { role: 'enterprise' })).body.total_points,
    },
  },
  // auth.ts: the keys restricted to a scope are bound to a copy of the account with its own balance
  {
    name: 'enterprise-restricted-split',
    description:
      "the enterprise account's keys restricted to a scope see their own separate balance (5000), not the shared one",
    breaks: ['ENT-001'],
    probe: {
      run: async ({ ref, call }) =>
        (await call(ref, '/v1/balance', { role: 'restricted_balance' })).body.total_points !==
        (await call(ref, '/v1/balance', { role: 'enterprise' })).body.total_points,
    },
  },
  // auth.ts: assets served without a key
  {
    name: 'asset-no-key',
    description: 'GET /v1/media/assets/{id} answers without a key',
    breaks: ['MASSET-002'],
    probe: {
      run: async ({ ref, call, succeededJob }) =>
        (await call(ref, `/v1/media/assets/${(await succeededJob(ref)).asset_id}`)).status === 200,
    },
  },
  // errors.ts: the scope refusal (403 insufficient_scope) is {"error": "<message>"}
  {
    name: 'scope-refusal-flat',
    description: 'the refusal of a key without the scope is {"error": "<message>"}, not the APIError object',
    breaks: ['ERR-001', 'SCOPE-001'],
    openapi: ({ paths }) => errorShape(paths, '403', EITHER_ERROR),
    probe: {
      request: req.call('/v1/balance', { role: 'restricted_models' }),
      holds: (r) => typeof r.body?.error === 'string',
    },
  },
  // errors.ts: the spend refusal (429 insufficient_points) is {"error": "<message>"}
  {
    name: 'spend-refusal-flat',
    description:
      'the refusal of a call the balance cannot cover is {"error": "<message>"}, not the APIError object',
    breaks: ['ERR-001'],
    openapi: ({ paths }) => errorShape(paths, '429', EITHER_ERROR),
    probe: {
      request: req.chat({ max_tokens: 4096 }, { role: 'poor' }),
      holds: (r) => typeof r.body?.error === 'string',
    },
  },
  // errors.ts: the input quota refusal (429 input_quota_exceeded) is {"error": "<message>"}
  {
    name: 'quota-refusal-flat',
    description:
      'the refusal of an upload over the input quota is {"error": "<message>"}, not the APIError object',
    breaks: ['ERR-001', 'MIN-011'],
    openapi: ({ paths }) => errorShape(paths, '429', EITHER_ERROR),
    probe: {
      run: async ({ ref, upload }) => {
        for (let i = 0; i < 12; i++) {
          const res = await upload(ref, 'png-64x48.png', { role: 'quota_nearly_full' });
          if (res.status === 429) return typeof res.body?.error === 'string';
        }
        return false;
      },
    },
  },
  // auth.ts: a key restricted to inference is refused on POST /v1/embeddings
  {
    name: 'scope-embeddings-refused',
    description:
      'a key restricted to the inference scope is refused on POST /v1/embeddings (chat and responses accept it)',
    breaks: ['SCOPE-002'],
    probe: {
      run: async ({ ref, call }) =>
        (
          await call(ref, '/v1/embeddings', {
            method: 'POST',
            role: 'restricted_inference',
            json: { model: ref.hints.embedding, input: 'ok' },
          })
        ).status === 403,
    },
  },
  // auth.ts: a key restricted to media is refused on GET /v1/media/jobs/{job_id}
  {
    name: 'scope-media-job-read-refused',
    description:
      'a key restricted to the media scope is refused on GET /v1/media/jobs/{job_id} (it may create jobs)',
    breaks: ['SCOPE-002'],
    probe: {
      run: async ({ ref, createJob, readJob }) => {
        const created = await createJob(ref, jobBody('wc-100010'));
        return (await readJob(ref, created.body.id, 'restricted_media')).status === 403;
      },
    },
  },
  // auth.ts: the streamed form's scope check demands a full-scope key (a streaming route of its own)
  {
    name: 'stream-scope-too-strict',
    description:
      'a key restricted to the inference scope is refused (403 insufficient_scope) on a streamed chat or responses call (`stream` true); the same call not streamed is answered',
    breaks: ['SCOPE-002'],
    probe: {
      run: async ({ ref, call, chatBody }) => {
        const as = (stream: boolean) =>
          call(ref, '/v1/chat/completions', {
            method: 'POST',
            role: 'restricted_inference',
            json: chatBody(ref, stream ? { stream: true } : {}),
          });
        return (await as(false)).status === 200 && (await as(true)).status === 403;
      },
    },
  },
] as const satisfies readonly Fault[];

export const AUTH_VARIANTS = [
  // app.ts: the upload and the job creation list an Idempotency-Key ("Headers: ... `Idempotency-Key`";
  // "header `Idempotency-Key`"); which check comes first is not shown
  {
    name: 'idempotency-key-first',
    readings: ['AUTH-001', 'SCOPE-001'],
    description:
      'an upload or a media job creation without an Idempotency-Key is refused 400 before its key and scope are looked at',
    probe: {
      request: { path: '/v1/media/jobs', method: 'POST', role: 'none', json: {} },
      holds: (r) => r.status === 400,
    },
  },
  // errors.ts: other codes and types, except 401 invalid_api_key and the stated invalid_request
  {
    name: 'error-codes',
    readings: ['ERR-001', 'ERR-002'],
    description:
      'error codes and types other than the stated ones differ (403 permission_denied, 404 route_not_found, ...)',
    probe: {
      request: req.call('/v1/nowhere', { role: 'primary' }),
      holds: (r) => r.body.error.code === 'route_not_found',
    },
  },
  // errors.ts: expired keys get 403 key_expired
  {
    name: 'expired-403',
    readings: ['AUTH-008'],
    description: 'an expired key answers 403 key_expired instead of 401',
    probe: { request: req.models('expired'), holds: (r) => r.body.error.code === 'key_expired' },
  },
  // errors.ts + openapi.ts
  {
    name: 'idem-conflict-422',
    readings: ['IDEM-001'],
    description: 'a reused Idempotency-Key with another body answers 422, not 409',
    openapi: ({ paths, errorResponse }) => {
      // The conflict of a reused Idempotency-Key is 422 (the 409 of an input in use stays).
      const idempotent = [paths['/v1/chat/completions'].post, paths['/v1/responses'].post];
      idempotent.push(paths['/v1/media/inputs'].post, paths['/v1/media/jobs'].post);
      for (const op of idempotent) {
        delete op.responses['409'];
        op.responses['422'] = errorResponse('422');
      }
    },
    probe: {
      run: async ({ ref, chat }) => {
        await chat(ref, {}, { headers: { 'idempotency-key': 'probe-key' } });
        return (
          (await chat(ref, { max_tokens: 1 }, { headers: { 'idempotency-key': 'probe-key' } })).status === 422
        );
      },
    },
  },
  // errors.ts + openapi.ts
  {
    name: 'unknown-model-403',
    readings: ['MODEL-003'],
    description: 'a model id no catalog knows answers 403 instead of 404',
    probe: { request: req.chat({ model: 'no-such-model' }), holds: (r) => r.status === 403 },
  },
  // errors.ts: judging.md, "Out-of-scope restricted key: refused with 403 or 401"; the payment API is in no
  // scope, so a restricted key creating an order may meet the scope check first
  {
    name: 'scope-refusal-401',
    readings: ['SCOPE-001', 'SCOPE-003', 'PAY-002'],
    description:
      'a key refused for its scope (payment orders included, which no scope covers) answers 401 insufficient_scope, not 403',
    probe: {
      request: req.call('/v1/balance', { role: 'restricted_models' }),
      holds: (r) => r.status === 401 && r.body.error?.code === 'insufficient_scope',
    },
  },
  // auth.ts: "a 404 is also a refusal (the order of lookup and scope check is not shown)" (judging.md)
  {
    name: 'scope-404-on-ids',
    readings: ['SCOPE-001'],
    description:
      'an out-of-scope key gets 404 not_found on a path naming a resource id (job, input, asset, ticket), 403 elsewhere',
    probe: {
      run: async ({ ref, call }) =>
        (await call(ref, '/v1/media/jobs/job_probe', { role: 'restricted_models' })).status === 404 &&
        (await call(ref, '/v1/balance', { role: 'restricted_models' })).status === 403,
    },
  },
  // errors.ts + guards.ts: 429 may meet any request ("rate limit or protection"), invalid ones too
  {
    name: 'guard-429-refusals',
    readings: ['RATE-001'],
    description:
      'every 16th 4xx refusal of an account is answered 429 rate_limited with Retry-After: 1 instead, and every 30th read of its balance, catalogs, usage or ledger 429 without Retry-After (a guard that trips on invalid requests and reads)',
    // The 8th refusal is a 429 with Retry-After: 1; the 15th balance read a 429 without Retry-After.
    probe: {
      run: async ({ ref, chat, balance }) => {
        const refused: ProbeReply[] = [];
        for (let i = 0; i < REFUSAL_429_EVERY; i++) refused.push(await chat(ref, { model: 'no-such-model' }));
        const reads: ProbeReply[] = [];
        for (let i = 0; i < READ_429_EVERY; i++) reads.push(await balance(ref));
        const last = reads[READ_429_EVERY - 1];
        return (
          refused.slice(0, -1).every((r) => r.status === 404) &&
          refused.at(-1)?.status === 429 &&
          refused.at(-1)?.headers.get('retry-after') === '1' &&
          last?.status === 429 &&
          last.headers.get('retry-after') === null &&
          reads.slice(0, -1).every((r) => r.status === 200)
        );
      },
    },
  },
] as const satisfies readonly Variant[];
