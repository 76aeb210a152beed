// Faults and variants of the service as a whole: health, status, routing, request ids, added fields (app.ts, routes/public.ts).

import { TABLE } from '../media/table.ts';
import type { JsonObject } from '../schemas.ts';
import { allResponses, type Fault, jobBody, keyed, req, sleep, type Variant } from './probe.ts';

export const SERVICE_FAULTS = [
  // routes/public.ts + openapi.ts: /status answers 500 (described so)
  {
    name: 'status-500',
    description: 'GET /status answers 500 with an APIError',
    breaks: ['HEALTH-002', 'ERR-002'],
    openapi: ({ paths, errorResponse }) => {
      paths['/status'].get.responses['500'] = errorResponse('500');
    },
    probe: { request: req.call('/status'), holds: (r) => r.status === 500 },
  },
  // routes/public.ts: no /status route: GET /status answers 404 not_found (an APIError) as every other
  // method does, so a refusal of POST /status says nothing of the method (ERR-070 stands beside GET /status)
  {
    name: 'status-absent',
    description:
      'GET /status answers 404 not_found (an APIError, described so), as any method there: no status route',
    breaks: ['HEALTH-002'],
    openapi: ({ paths, errorResponse }) => {
      paths['/status'].get.responses['404'] = errorResponse('404');
    },
    probe: { request: req.call('/status'), holds: (r) => r.status === 404 },
  },
  // routes/public.ts: GET /openapi.json answers the framework's 404 (every response is then validated
  // against the documented schemas, so the rest of the API is still judged)
  {
    name: 'openapi-absent',
    description:
      "GET /openapi.json answers the framework's 404 (no APIError shape): no description is served",
    breaks: ['OAS-001', 'ERR-001'],
    probe: { request: req.call('/openapi.json'), holds: (r) => r.status === 404 },
  },
  // app.ts: the caller's key echoed in a response header
  {
    name: 'key-echo',
    description: 'every authenticated response carries X-Debug-Key: <the caller key>',
    breaks: ['SEC-001'],
    probe: {
      run: async ({ ref, models }) => (await models(ref)).headers.get('x-debug-key') === ref.keys.primary,
    },
  },
  // app.ts + openapi.ts: X-Request-ID "may" be sent, but this description promises it and it never comes
  {
    name: 'request-id-promised',
    description: 'the description declares X-Request-ID a required header of every response; none is sent',
    breaks: ['RESP-004'],
    openapi: ({ doc }) => {
      (doc.components as { headers: { RequestId: JsonObject } }).headers.RequestId.required = true;
    },
    probe: {
      run: async ({ ref, call, openapi }) =>
        (await call(ref, '/healthz')).headers.get('x-request-id') === null &&
        (await openapi(ref)).components.headers.RequestId.required === true,
    },
  },
  // inference.ts (markReplayed): every replay is marked Idempotent-Replayed: yes, while the described
  // header (a $ref to #/components/headers/IdempotentReplayed) says const "true"
  {
    name: 'replay-header-yes',
    description:
      'every replay (chat, responses, media jobs and inputs) answers Idempotent-Replayed: yes, against the $ref\'d header schema of its own description (const "true")',
    breaks: ['RESP-004'],
    probe: {
      run: async ({ ref, chat, openapi }) => {
        await chat(ref, {}, keyed('probe-replay-header'));
        const again = await chat(ref, {}, keyed('probe-replay-header'));
        return (
          again.headers.get('idempotent-replayed') === 'yes' &&
          (await openapi(ref)).components.headers.IdempotentReplayed.schema.const === 'true'
        );
      },
    },
  },
  // app.ts: the router collapses a duplicated /v1/v1 prefix
  {
    name: 'v1-doubled-served',
    description: 'GET /v1/v1/models (any /v1/v1/...) is served as /v1/models, not answered 404',
    breaks: ['ERR-004'],
    probe: { request: req.call('/v1/v1/models', { role: 'primary' }), holds: (r) => r.status === 200 },
  },
  // app.ts: the doubled prefix served on one path only (a proxy rule for the balance)
  {
    name: 'v1-doubled-balance-served',
    description: 'GET /v1/v1/balance is served as /v1/balance (the other doubled paths answer 404)',
    breaks: ['ERR-004'],
    probe: { request: req.call('/v1/v1/balance', { role: 'primary' }), holds: (r) => r.status === 200 },
  },
  // app.ts: a proxy rule collapses the doubled prefix on writes only (GETs under it still answer 404)
  {
    name: 'v1-doubled-post-served',
    description:
      'POST /v1/v1/... is served as POST /v1/... (a request the endpoint refuses answers its 400, not 404); GET /v1/v1/... answers 404',
    breaks: ['ERR-004'],
    probe: {
      request: req.call('/v1/v1/embeddings', { method: 'POST', role: 'primary', json: {} }),
      holds: (r) => r.status !== 404,
    },
  },
  // app.ts: a known path called with another method answers a text/plain 405
  {
    name: 'wrong-method-plain',
    description:
      'a known path called with a method it is not given answers a text/plain 405, not the APIError',
    breaks: ['ERR-001'],
    probe: {
      request: req.call('/v1/models', { method: 'DELETE', role: 'primary' }),
      holds: (r) => r.body?.error === undefined,
    },
  },
] as const satisfies readonly Fault[];

export const SERVICE_VARIANTS = [
  // app.ts: "Health, status and openapi bodies are not shown": a static server's HTML 405 on them
  {
    name: 'public-errors-own-bodies',
    readings: ['ERR-001', 'ERR-070'],
    description:
      'POST, PUT, PATCH or DELETE on /healthz, /status or /openapi.json is answered 405 text/html, as a static site answers',
    probe: {
      request: { path: '/healthz', method: 'POST', role: 'none', json: {} },
      holds: (r) => r.status === 405 && (r.headers.get('content-type') ?? '').startsWith('text/html'),
    },
  },
  // app.ts: preSerialization adds x_vendor to every JSON object (the closed MediaInputEnvelope excepted)
  {
    name: 'extra-fields',
    readings: ['RESP-003', 'MIN-001'],
    description:
      'every JSON object in responses (errors and nested entries too) carries an extra x_vendor object',
    probe: {
      run: async ({ ref, models, call }) => {
        const [ok, error] = [await models(ref), await call(ref, '/v1/models')];
        return (
          ok.body.x_vendor !== undefined &&
          ok.body.data[0].x_vendor !== undefined &&
          error.body.error.x_vendor !== undefined
        );
      },
    },
  },
  // app.ts + openapi.ts
  {
    name: 'no-request-id',
    readings: ['GEN-004'],
    description: 'no X-Request-ID header is sent or described',
    openapi: ({ paths }) => {
      for (const responses of allResponses(paths))
        for (const response of Object.values(responses)) {
          const headers = response.headers as JsonObject | undefined;
          if (!headers) continue;
          delete headers['X-Request-ID'];
          if (Object.keys(headers).length === 0) delete response.headers;
        }
    },
    probe: { request: req.call('/healthz'), holds: (r) => r.headers.get('x-request-id') === null },
  },
  // app.ts + state.ts: 160-byte request ids, ~120-byte model ids
  {
    name: 'long-ids',
    readings: ['GEN-004', 'MODELS-001'],
    description: 'X-Request-ID values are 160 bytes; text model ids are about 120 bytes',
    probe: {
      run: async ({ ref, call }) =>
        Buffer.byteLength((await call(ref, '/healthz')).headers.get('x-request-id') ?? '') === 160 &&
        (ref.hints.chat ?? '').length === 120,
    },
  },
  // routes/public.ts + openapi.ts
  {
    name: 'healthz-text',
    readings: ['HEALTH-001', 'HEALTH-002', 'OAS-005'],
    description: '/healthz answers text/plain "ok" and /status text/html',
    openapi: ({ paths }) => {
      paths['/healthz'].get.responses['200'].content = { 'text/plain': { schema: { type: 'string' } } };
      paths['/status'].get.responses['200'].content = { 'text/html': { schema: { type: 'string' } } };
    },
    probe: { request: req.call('/healthz'), holds: (r) => r.text === 'ok' },
  },
  // app.ts + media/store.ts: longer generation times (the start option mediaJobMs sets any)
  {
    name: 'jobs-slow',
    readings: ['MJOB-021'],
    description:
      'image and 3D jobs take 2 s and video jobs 6 s instead of 0.6 s (a suite must not assume how long generation takes)',
    // An image job still runs after 1 s (0.16 s with the pool's 40 ms stages otherwise).
    probe: {
      run: async ({ ref, createJob, readJob }) => {
        const [model] = Object.entries(TABLE.models).find(
          ([, def]) => def.output === 'image' && !def.references.required,
        )!;
        const job = await createJob(ref, jobBody(model));
        await sleep(1000);
        return (await readJob(ref, job.body.id)).body.status !== 'succeeded';
      },
    },
  },
] as const satisfies readonly Variant[];
