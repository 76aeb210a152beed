import { Decimal } from 'decimal.js';
import { Client, request } from 'undici';
import { describe, expect, test } from 'vitest';
import { FAULTS, type ReferenceHandle, startReference, VARIANTS } from '../../reference/start.ts';
import { REUSE_CLOSE_EVERY } from '../../reference/transport.ts';
import {
  type CallOptions,
  call,
  type Exchange,
  errorCode,
  fetchWithin,
  parseSse,
  referencePool,
  streamEnds,
} from './helpers.ts';
import { ACK, createJob, inputId, jobBody, pollJob, readJob, sleep, TABLE, upload } from './media-helpers.ts';
import { RACE_FAULT_PROBES } from './race-probes.ts';

const pool = referencePool();
// Short media stages keep the lifecycle probes quick; 40 ms still lets a poll see every stage.
const start = (opts: Parameters<typeof pool>[0] = {}) => pool({ mediaStepMs: 40, ...opts });

const models = (ref: ReferenceHandle, role = 'primary') => call(ref, '/v1/models', { role });
const balance = (ref: ReferenceHandle) => call(ref, '/v1/balance', { role: 'primary' });
const openapi = async (ref: ReferenceHandle) => (await call(ref, '/openapi.json')).body;
const withKey = (ref: ReferenceHandle, headers: (key: string) => Record<string, string>, query = '') =>
  call(ref, `/v1/models${query}`, { headers: headers(ref.keys.primary as string) });
// biome-ignore lint/suspicious/noExplicitAny: model entries are probed field by field
const unpriced = (entries: any[]) => entries.find((m) => m.id === 'tx-chat-unpriced');

const LEGACY = { accept: 'application/vnd.service.currency.v1+json' };
const chatBody = (ref: ReferenceHandle, extra: Record<string, unknown> = {}) => ({
  model: ref.hints.chat,
  messages: [{ role: 'user', content: 'Say ok.' }],
  max_tokens: 2,
  ...extra,
});
const chat = (ref: ReferenceHandle, extra: Record<string, unknown> = {}, opts: CallOptions = {}) =>
  call(ref, '/v1/chat/completions', { method: 'POST', role: 'primary', json: chatBody(ref, extra), ...opts });
const responses = (ref: ReferenceHandle, extra: Record<string, unknown> = {}) =>
  call(ref, '/v1/responses', {
    method: 'POST',
    role: 'primary',
    json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 3, ...extra },
  });
const events = async (ref: ReferenceHandle) => parseSse((await responses(ref, { stream: true })).text);
const TERMINALS = ['response.completed', 'response.incomplete', 'response.failed'];
const embed = (ref: ReferenceHandle, body: Record<string, unknown>) =>
  call(ref, '/v1/embeddings', { method: 'POST', role: 'primary', json: body });
const embedOk = async (ref: ReferenceHandle, extra: Record<string, unknown>) =>
  (await embed(ref, { model: ref.hints.embedding, input: 'ok', ...extra })).status === 200;
const replayCharges = async (ref: ReferenceHandle, headers: Record<string, string>) => {
  const first = await chat(ref, {}, { headers: { 'idempotency-key': 'probe-key' } });
  const before = (await balance(ref)).body.total_points;
  const again = await chat(ref, {}, { headers: { 'idempotency-key': 'probe-key', ...headers } });
  return first.body.id !== again.body.id && (await balance(ref)).body.total_points !== before;
};
const ledgerAfterChat = async (ref: ReferenceHandle) => {
  await chat(ref);
  const newest = (await call(ref, '/v1/ledger', { role: 'primary' })).body.data[0];
  return newest.balance_after_points !== (await balance(ref)).body.total_points;
};
// Tickets, payments, protections.
const TICKETS = '/v1/support/tickets';
const ticket = (ref: ReferenceHandle, patch: Record<string, unknown>, role = 'primary') =>
  call(ref, TICKETS, {
    method: 'POST',
    role,
    json: { category: 'technical', subject: 'Probe', message: 'Probe; please ignore.', ...patch },
  });
const payOrder = (ref: ReferenceHandle, patch: Record<string, unknown>, role = 'primary') =>
  call(ref, '/v1/payment-orders', {
    method: 'POST',
    role,
    json: { method: 'alipay', amount_cny: '100.00', note: 'probe', ...patch },
  });
/** The first 429 of six requests of the rate-limited key, if any. */
// Media.
const jobStatus = async (ref: ReferenceHandle, body: Record<string, unknown>, opts: CallOptions = {}) =>
  (await createJob(ref, body, opts)).status;
const accepted = async (ref: ReferenceHandle, body: Record<string, unknown>) =>
  (await jobStatus(ref, body)) === 201;
const withParams = (model: string, params: Record<string, unknown>, refs: string[] = []) =>
  jobBody(model, refs, params);
const withPrompt = (model: string, prompt: string) => ({ ...jobBody(model), prompt });
const uploaded = async (ref: ReferenceHandle, file: string, opts: Parameters<typeof upload>[2] = {}) =>
  (await upload(ref, file, opts)).status === 201;
const succeededJob = async (ref: ReferenceHandle, model = 'wc-100010') => {
  const created = await createJob(ref, jobBody(model));
  return (await pollJob(ref, created.body.id)).last.body;
};
const UNCERTAIN = { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_UNCERTAIN_JOB' };
const keyed = (k: string, role = 'primary'): CallOptions => ({ role, headers: { 'idempotency-key': k } });
/** Reads the job until `stop` holds for a read (true) or the job ends (false). */
const readsUntil = async (
  ref: ReferenceHandle,
  id: string,
  stop: (read: Exchange) => boolean,
  role = 'primary',
) => {
  const until = Date.now() + 3000;
  while (Date.now() < until) {
    const read = await readJob(ref, id, role);
    if (stop(read)) return true;
    if (['succeeded', 'failed', 'settlement_pending'].includes(read.body?.status)) return false;
    await sleep(3);
  }
  return false;
};
/** A settlement_pending job of the poor account, created with the key. */
const pendingJob = async (ref: ReferenceHandle, k: string) => {
  const created = await createJob(ref, jobBody('wc-100010'), keyed(k, 'poor'));
  await sleep(250);
  return created.body.id as string;
};
const catalogEntry = async (ref: ReferenceHandle, id: string) =>
  (await call(ref, '/v1/media/models', { role: 'primary' })).body.data.find(
    (m: { id: string }) => m.id === id,
  );

const rateLimited = async (ref: ReferenceHandle) => {
  for (let i = 0; i < 6; i++) {
    const res = await call(ref, '/v1/balance', { role: 'ratelimited' });
    if (res.status === 429) return res;
  }
  return undefined;
};

/** Per toggle, a probe that is true when its deviation is visible (and false on the plain server). */
const FAULT_PROBES: Record<string, (ref: ReferenceHandle) => Promise<boolean>> = {
  'openapi-absent': async (ref) => (await call(ref, '/openapi.json')).status === 404,
  'auth-query-key': async (ref) =>
    (await withKey(ref, () => ({}), `?api_key=${ref.keys.primary}`)).status === 200,
  'auth-scheme-lax': async (ref) =>
    (await withKey(ref, (k) => ({ authorization: `Token ${k}` }))).status === 200,
  'auth-prefix-key': async (ref) =>
    (await withKey(ref, (k) => ({ authorization: `Bearer ${k.slice(0, 24)}` }))).status === 200,
  'auth-suffix-key': async (ref) =>
    (await withKey(ref, (k) => ({ authorization: `Bearer ${k}xyz` }))).status === 200,
  'auth-cookie': async (ref) => (await withKey(ref, (k) => ({ cookie: `session=${k}` }))).status === 200,
  'auth-revoked-accepted': async (ref) => (await models(ref, 'revoked')).status === 200,
  'auth-expired-accepted': async (ref) => (await models(ref, 'expired')).status === 200,
  'auth-wrong-code': async (ref) => (await call(ref, '/v1/models')).body.error.code === 'unauthorized',
  'error-shape-flat': async (ref) => typeof (await call(ref, '/v1/models')).body.error === 'string',
  'ip-allowlist-ignored': async (ref) => (await models(ref, 'ip_blocked')).status === 200,
  'balance-key-header': async (ref) =>
    (await balance(ref)).status === 401 &&
    (await call(ref, '/v1/balance', { headers: { 'x-api-key': ref.keys.primary as string } })).status === 200,
  'healthz-auth': async (ref) => (await call(ref, '/healthz')).status === 401,
  'status-500': async (ref) => (await call(ref, '/status')).status === 500,
  'openapi-invalid': async (ref) => (await openapi(ref)).info === undefined,
  'openapi-missing-endpoint': async (ref) => (await openapi(ref)).paths['/v1/embeddings'] === undefined,
  'openapi-usage-optional': async (ref) => {
    const { ChatCompletion, ChatCompletionResponse } = (await openapi(ref)).components.schemas;
    const required = [...ChatCompletion.required, ...ChatCompletionResponse.allOf[1].required];
    return !required.includes('usage') && 'usage' in (await chat(ref)).body;
  },
  'openapi-no-health': async (ref) => {
    const paths = (await openapi(ref)).paths;
    return !paths['/healthz'] && !paths['/status'] && (await call(ref, '/healthz')).status === 200;
  },
  'openapi-deep-inline': async (ref) =>
    JSON.stringify((await openapi(ref)).components.schemas.ModelEntry).split('"value":').length === 81,
  'openapi-enum-drift': async (ref) =>
    (await openapi(ref)).components.schemas.ChatCompletionRequest.properties.temperature.maximum === 1,
  'openapi-schema-cycle': async (ref) =>
    (await openapi(ref)).components.schemas.EntryLoop?.allOf?.[0]?.$ref === '#/components/schemas/EntryLoop',
  'openapi-invalid-pattern': async (ref) =>
    JSON.stringify((await openapi(ref)).components.schemas.ModelEntry).includes('"pattern":"([a-z"'),
  'openapi-undeclared-401': async (ref) =>
    (await openapi(ref)).paths['/v1/models'].get.responses['401'] === undefined,
  'models-undocumented-shape': async (ref) => (await models(ref)).body.data[0].context_length === undefined,
  'balance-text-plain': async (ref) =>
    (await balance(ref)).headers.get('content-type')?.startsWith('text/plain') ?? false,
  'models-price-number': async (ref) =>
    typeof (await models(ref)).body.data[0].request_points_per_million_tokens === 'number',
  'models-prices-dropped': async (ref) => {
    const entry = (await models(ref)).body.data.find((m: { id: string }) => m.id === ref.hints.embedding);
    return !('points_configured' in entry) && !('request_points_per_million_tokens' in entry);
  },
  'models-price-float-noise': async (ref) =>
    (await models(ref)).body.data[0].request_points_per_million_tokens === '0.7500000000000001',
  'models-zero-quote': async (ref) =>
    unpriced((await models(ref)).body.data).request_points_per_million_tokens === '0',
  'models-forbidden-listed': async (ref) =>
    (await models(ref)).body.data.some((m: { id: string }) => m.id === ref.hints.forbidden),
  'models-empty-401': async (ref) => (await models(ref, 'no_models')).status === 401,
  'balance-number': async (ref) => typeof (await balance(ref)).body.total_points === 'number',
  'balance-missing-held': async (ref) => !('held_points' in (await balance(ref)).body),
  'balance-available-off': async (ref) => (await balance(ref)).body.available_points !== '988.25',
  'key-echo': async (ref) => (await models(ref)).headers.get('x-debug-key') === ref.keys.primary,
  'chat-temperature-lax': async (ref) => (await chat(ref, { temperature: 2.5 })).status === 200,
  'chat-temperature-strict': async (ref) => (await chat(ref, { temperature: 2 })).status === 400,
  'chat-top-p-unchecked': async (ref) => (await chat(ref, { top_p: 1.5 })).status === 200,
  'chat-max-tokens-negative': async (ref) => (await chat(ref, { max_tokens: -1 })).status === 200,
  'responses-replay-new': async (ref) => {
    const opts = {
      method: 'POST',
      role: 'primary',
      headers: { 'idempotency-key': 'probe-responses' },
      json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 3 },
    };
    const [a, b] = [await call(ref, '/v1/responses', opts), await call(ref, '/v1/responses', opts)];
    return a.body.id !== b.body.id;
  },
  'chat-max-tokens-zero': async (ref) => (await chat(ref, { max_tokens: 0 })).status !== 200,
  'chat-missing-content': async (ref) => (await chat(ref, { messages: [{ role: 'user' }] })).status === 200,
  'chat-developer-refused': async (ref) =>
    (await chat(ref, { messages: [{ role: 'developer', content: 'Be brief.' }] })).status === 400,
  'chat-model-default': async (ref) => (await chat(ref, { model: undefined })).status === 200,
  'chat-no-id': async (ref) => !('id' in (await chat(ref)).body),
  'chat-role-model': async (ref) => (await chat(ref)).body.choices[0].message.role === 'model',
  'chat-model-substituted': async (ref) => (await chat(ref)).body.model !== ref.hints.chat,
  'chat-usage-total-off': async (ref) => {
    const { usage } = (await chat(ref)).body;
    return usage.total_tokens !== usage.prompt_tokens + usage.completion_tokens;
  },
  'chat-billing-numbers': async (ref) => typeof (await chat(ref)).body.billing.charged_points === 'number',
  'chat-credits-names': async (ref) => 'charged_credits' in (await chat(ref)).body.billing,
  'auth-missing-403': async (ref) => (await call(ref, '/v1/models')).status === 403,
  'auth-unknown-key-403': async (ref) =>
    (await call(ref, '/v1/models', { headers: { authorization: 'Bearer sk-no-such-key' } })).status === 403,
  'media-model-chat-400': async (ref) => (await chat(ref, { model: 'wc-100010' })).status === 400,
  'unknown-model-400': async (ref) => (await chat(ref, { model: 'no-such-model' })).status === 400,
  'request-id-promised': async (ref) =>
    (await call(ref, '/healthz')).headers.get('x-request-id') === null &&
    (await openapi(ref)).components.headers.RequestId.required === true,
  'v1-doubled-served': async (ref) => (await call(ref, '/v1/v1/models', { role: 'primary' })).status === 200,
  'billing-unit-credits': async (ref) => (await chat(ref)).body.billing.unit === 'credits',
  'usage-tokens-as-strings': async (ref) => typeof (await chat(ref)).body.usage.prompt_tokens === 'string',
  'chat-forbidden-callable': async (ref) => (await chat(ref, { model: ref.hints.forbidden })).status === 200,
  'chat-stream-never-ends': async (ref) =>
    !(await streamEnds(
      ref,
      '/v1/chat/completions',
      { role: 'primary', json: chatBody(ref, { stream: true }) },
      400,
    )),
  'responses-any-model': async (ref) =>
    (await responses(ref, { model: ref.hints.no_responses })).status === 200,
  'responses-stream-only': async (ref) => (await responses(ref)).status === 400,
  'responses-no-terminal': async (ref) => !(await events(ref)).some((e) => TERMINALS.includes(e.event ?? '')),
  'responses-two-terminals': async (ref) =>
    (await events(ref)).filter((e) => TERMINALS.includes(e.event ?? '')).length === 2,
  'responses-json-stream': async (ref) =>
    (await responses(ref, { stream: true })).headers.get('content-type')?.startsWith('application/json') ??
    false,
  'responses-unnamed-events': async (ref) => (await events(ref)).every((e) => e.event === undefined),
  'responses-empty-delta': async (ref) =>
    (await events(ref)).some((e) => e.event === 'response.output_text.delta' && e.data === ''),
  'embed-1023': async (ref) =>
    (await embed(ref, { model: ref.hints.embedding, input: 'ok' })).body.data[0].embedding.length === 1023,
  'embed-array-input': async (ref) => embedOk(ref, { input: ['a', 'b'] }),
  'embed-min-2': async (ref) => !(await embedOk(ref, { input: 'a' })),
  'embed-unknown-field': async (ref) => embedOk(ref, { extra: true }),
  'embed-dimensions-lax': async (ref) => embedOk(ref, { dimensions: 512 }),
  'embed-encoding-lax': async (ref) => embedOk(ref, { encoding_format: 'base64' }),
  'embed-model-optional': async (ref) => (await embed(ref, { input: 'ok' })).status === 200,
  'idem-double-charge': async (ref) => replayCharges(ref, {}),
  'idem-key-only': async (ref) => {
    const keyed = { headers: { 'idempotency-key': 'probe-key-only' } };
    await chat(ref, {}, keyed);
    const other = await chat(ref, { messages: [{ role: 'user', content: 'Something else.' }] }, keyed);
    return other.status === 200;
  },
  'legacy-reexecute': async (ref) => replayCharges(ref, LEGACY),
  'legacy-ignored': async (ref) =>
    'total_points' in (await call(ref, '/v1/balance', { role: 'primary', headers: LEGACY })).body,
  'legacy-added': async (ref) => {
    const { body } = await call(ref, '/v1/balance', { role: 'primary', headers: LEGACY });
    return 'total_points' in body && 'total_amount' in body;
  },
  'legacy-model-ids': async (ref) =>
    (await call(ref, '/v1/models', { role: 'primary', headers: LEGACY })).body.data[0].id.endsWith('-legacy'),
  'ledger-balance-off': ledgerAfterChat,
  'balance-not-settled': async (ref) => {
    const before = (await balance(ref)).body.total_points;
    const charged = (await chat(ref)).body.billing.charged_points;
    return !new Decimal(before).minus(charged).eq((await balance(ref)).body.total_points);
  },
  'snapshot-drift': async (ref) => {
    await chat(ref);
    const charged = (await chat(ref)).body.billing.charged_points;
    return (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0].charged_points !== charged;
  },
  'usage-cross-tenant': async (ref) => {
    await chat(ref, {}, { role: 'other_tenant' });
    const ids = async (role: string) =>
      ((await call(ref, '/v1/usage', { role })).body.data as Array<{ id: string }>).map((r) => r.id);
    const mine = await ids('primary');
    return (await ids('other_tenant')).some((id) => mine.includes(id));
  },
  'usage-unavailable': async (ref) => (await call(ref, '/v1/usage', { role: 'primary' })).status === 500,
  'ledger-unavailable': async (ref) => (await call(ref, '/v1/ledger', { role: 'primary' })).status === 404,
  // ==== scopes, enterprise, tickets, payments, protections, internal data (deeper tests in
  // tickets.test.ts, payments.test.ts and guards.test.ts)
  'scope-ignored': async (ref) =>
    (await call(ref, '/v1/balance', { role: 'restricted_models' })).status === 200,
  'scope-too-strict': async (ref) =>
    (await call(ref, '/v1/balance', { role: 'restricted_balance' })).status === 403,
  'support-scope-ignored': async (ref) =>
    (await call(ref, TICKETS, { role: 'restricted_models' })).status === 200,
  'enterprise-balance-split': async (ref) =>
    (await call(ref, '/v1/balance', { role: 'enterprise_second' })).body.total_points !==
    (await call(ref, '/v1/balance', { role: 'enterprise' })).body.total_points,
  'tickets-cross-tenant': async (ref) => {
    await ticket(ref, {});
    return (await call(ref, TICKETS, { role: 'other_tenant' })).body.data.length > 0;
  },
  'ticket-list-lag': async (ref) => {
    await ticket(ref, { subject: 'Probe lag' });
    return !(await call(ref, TICKETS, { role: 'primary' })).text.includes('Probe lag');
  },
  'ticket-limit-ignored': async (ref) => {
    for (let i = 0; i < 10; i++) await ticket(ref, {}, 'ticket_limit');
    return (await ticket(ref, {}, 'ticket_limit')).status === 201;
  },
  'ticket-subject-newline': async (ref) => (await ticket(ref, { subject: 'a\nb' })).status === 201,
  'ticket-subject-121': async (ref) => (await ticket(ref, { subject: 's'.repeat(121) })).status === 201,
  'ticket-message-2001': async (ref) => (await ticket(ref, { message: 'm'.repeat(2001) })).status === 201,
  'ticket-contact-161': async (ref) =>
    (await ticket(ref, { preferred_contact: 'c'.repeat(161) })).status === 201,
  'ticket-unknown-field': async (ref) => (await ticket(ref, { priority: 'high' })).status === 201,
  'ticket-category-lax': async (ref) => (await ticket(ref, { category: 'sales' })).status === 201,
  'ticket-category-dropped': async (ref) =>
    (await ticket(ref, { category: 'enterprise_onboarding' })).status !== 201,
  'ticket-200': async (ref) => (await ticket(ref, {})).status === 200,
  'ticket-list-envelope': async (ref) => Array.isArray((await call(ref, TICKETS, { role: 'primary' })).body),
  'enterprise-payment-allowed': async (ref) => (await payOrder(ref, {}, 'enterprise')).status === 201,
  'order-credits-wallet': async (ref) => {
    const before = (await balance(ref)).body.total_points;
    await payOrder(ref, {});
    return (await balance(ref)).body.total_points !== before;
  },
  'order-three-decimals': async (ref) => (await payOrder(ref, { amount_cny: '10.005' })).status === 201,
  'order-over-max': async (ref) => (await payOrder(ref, { amount_cny: '100000.01' })).status === 201,
  'order-method-lax': async (ref) => (await payOrder(ref, { method: 'paypal' })).status === 201,
  'order-note-newline': async (ref) => (await payOrder(ref, { note: 'a\nb' })).status === 201,
  'order-min-inclusive': async (ref) => (await payOrder(ref, { amount_cny: '1.00' })).status === 201,
  'order-note-119': async (ref) => (await payOrder(ref, { note: 'n'.repeat(120) })).status !== 201,
  'order-credits-mismatch': async (ref) => (await payOrder(ref, {})).body.amount_credits !== 100_000_000,
  'order-approved': async (ref) => (await payOrder(ref, {})).body.status === 'approved',
  'payment-methods-personal-refused': async (ref) =>
    (await call(ref, '/v1/payment-methods', { role: 'primary' })).status === 403,
  'ratelimit-missing': async (ref) => !(await rateLimited(ref)),
  'ratelimit-plain': async (ref) =>
    ((await rateLimited(ref))?.headers.get('content-type') ?? '').startsWith('text/plain'),
  'retry-after-unit': async (ref) =>
    /^\d+s$/.test((await rateLimited(ref))?.headers.get('retry-after') ?? ''),
  'upstream-key-header': async (ref) => (await models(ref)).headers.get('x-upstream-key') !== null,
  'node-header': async (ref) => (await call(ref, '/healthz')).headers.get('x-upstream-node') !== null,
  'purchase-cost-field': async (ref) => (await models(ref)).body.data[0].purchase_cost !== undefined,
  'routing-field-host': async (ref) => (await models(ref)).body.data[0].upstream_endpoint !== undefined,
  // ==== end of the scopes/tickets/payments/protections/internal block
  // ==== media (deeper tests in media.test.ts)
  'ack-missing-accepted': async (ref) => accepted(ref, { model: 'wc-100010', prompt: 'cat', parameters: {} }),
  'ack-false-accepted': async (ref) =>
    accepted(ref, withParams('wc-100010', { provider_processing_acknowledged: false })),
  'top-level-extra-accepted': async (ref) => accepted(ref, { ...jobBody('wc-100010'), seed: 1 }),
  'frame-images-accepted': async (ref) => accepted(ref, withParams('wc-100010', { frame_images: [] })),
  'foreign-param-accepted': async (ref) => accepted(ref, withParams('wc-100010', { quality: 'high' })),
  'output-format-wc100012': async (ref) => accepted(ref, withParams('wc-100012', { output_format: 'png' })),
  'prompt-utf16': async (ref) => (await jobStatus(ref, withPrompt('wc-100017', '😀'.repeat(400)))) === 400,
  'prompt-untrimmed': async (ref) => accepted(ref, withPrompt('wc-100031', '  ab  ')),
  'prompt-bytes-ignored': async (ref) => accepted(ref, withPrompt('wc-100010', '漢'.repeat(1334))),
  'min3-unenforced': async (ref) => accepted(ref, withPrompt('wc-100031', 'ab')),
  'prompt-wc100018': async (ref) =>
    accepted(ref, { ...jobBody('wc-100018', [await inputId(ref)]), prompt: 'a house' }),
  'size-step-ignored': async (ref) => accepted(ref, withParams('wc-100040', { size: '1000x1000' })),
  'size-ratio-ignored': async (ref) => accepted(ref, withParams('wc-100010', { size: '4352x241' })),
  'list-b-refused': async (ref) =>
    (await jobStatus(ref, withParams('wc-100013', { size: 'auto_4K' }, [await inputId(ref)]))) === 400,
  'aspect-4-1-refused': async (ref) =>
    (await jobStatus(ref, withParams('wc-100034', { aspect_ratio: '4:1' }, [await inputId(ref)]))) === 400,
  'custom-star-refused': async (ref) =>
    (await jobStatus(ref, withParams('wc-100010', { size: '4096*256' }))) === 400,
  'max-pixels-exclusive': async (ref) =>
    (await jobStatus(ref, withParams('wc-100010', { size: '2048x2048' }))) === 400,
  'ref-max-refused': async (ref) =>
    (await jobStatus(
      ref,
      jobBody('wc-100032', await Promise.all(Array.from({ length: 14 }, () => inputId(ref)))),
    )) === 400,
  'duration-max-31': async (ref) => accepted(ref, withParams('wc-100014', { duration: 31 })),
  'resolution-case': async (ref) => accepted(ref, withParams('wc-100019', { resolution: '1080p' })),
  'ref-max-off-by-one': async (ref) =>
    accepted(ref, jobBody('wc-100041', [await inputId(ref), await inputId(ref), await inputId(ref)])),
  'both-id-fields': async (ref) => {
    const id = await inputId(ref);
    return accepted(ref, withParams('wc-100011', { studio_asset_ids: [id] }, [id]));
  },
  'duplicate-ids': async (ref) => {
    const id = await inputId(ref);
    return accepted(ref, jobBody('wc-100011', [id, id]));
  },
  'ref-id-161': async (ref) => accepted(ref, jobBody('wc-100011', ['x'.repeat(161)])),
  'mix-image-video': async (ref) =>
    accepted(ref, jobBody('wc-100016', [await inputId(ref), await inputId(ref, 'h264-2s.mp4')])),
  'input-id-161': async (ref) => (await inputId(ref)).length > 160,
  'kind-refused': async (ref) =>
    !(await accepted(ref, { ...jobBody('wc-100014'), kind: 'video_generation' })),
  'media-model-case': async (ref) => accepted(ref, { ...jobBody('wc-100010'), model: 'WC-100010' }),
  'video-window-short': async (ref) =>
    accepted(ref, jobBody('wc-100016', [await inputId(ref, 'h264-1.5s.mp4')])),
  'video-as-image': async (ref) => accepted(ref, jobBody('wc-100011', [await inputId(ref, 'h264-2s.mp4')])),
  'studio-ids-unknown': async (ref) =>
    !(await accepted(ref, withParams('wc-100011', { studio_asset_ids: [await inputId(ref)] }))),
  'foreign-input-accepted': async (ref) =>
    accepted(ref, jobBody('wc-100011', [await inputId(ref, 'png-64x48.png', 'other_tenant')])),
  'deleted-input-accepted': async (ref) => {
    const id = await inputId(ref);
    await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' });
    return accepted(ref, jobBody('wc-100011', [id]));
  },
  'sniff-skipped': async (ref) => uploaded(ref, 'png-as-jpeg.jpg'),
  'upload-octet-stream': async (ref) =>
    (await upload(ref, 'png-64x48.png', { type: 'application/octet-stream' })).body?.input?.content_type ===
    'image/png',
  'sha-uppercase': async (ref) => /[A-F]/.test((await upload(ref, 'png-64x48.png')).body.input.sha256),
  'image-duration-nonzero': async (ref) => (await upload(ref, 'png-64x48.png')).body.input.duration_ms !== 0,
  'envelope-extra-field': async (ref) => 'quota_remaining_bytes' in (await upload(ref, 'png-64x48.png')).body,
  'expires-on-new': async (ref) => 'expires_at' in (await upload(ref, 'png-64x48.png')).body.input,
  'edge-8193': async (ref) => uploaded(ref, 'png-8193x1.png'),
  'video-31s': async (ref) => uploaded(ref, 'h264-31s.mp4'),
  'hevc-accepted': async (ref) => uploaded(ref, 'hevc-2s.mp4'),
  'upload-replay-new': async (ref) => {
    const headers = { 'idempotency-key': 'probe-upload' };
    const [a, b] = [
      await upload(ref, 'png-64x48.png', { headers }),
      await upload(ref, 'png-64x48.png', { headers }),
    ];
    return a.body.input.id !== b.body.input.id;
  },
  'delete-while-active': async (ref) => {
    const id = await inputId(ref);
    await createJob(ref, jobBody('wc-100011', [id]));
    return (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status === 204;
  },
  'quota-ignored': async (ref) => uploaded(ref, 'jpeg-1024x576.jpg', { role: 'quota_nearly_full' }),
  'job-replay-new': async (ref) => {
    const headers = { 'idempotency-key': 'probe-job' };
    const [a, b] = [
      await createJob(ref, jobBody('wc-100010'), { headers }),
      await createJob(ref, jobBody('wc-100010'), { headers }),
    ];
    return a.body.id !== b.body.id;
  },
  'succeeded-no-asset': async (ref) => !('asset_id' in (await succeededJob(ref))),
  'progress-101': async (ref) => {
    const created = await createJob(ref, jobBody('wc-100010'));
    return (await pollJob(ref, created.body.id)).percents.includes(101);
  },
  'failed-flips': async (ref) => {
    const created = await createJob(ref, { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_FAIL_JOB' });
    await pollJob(ref, created.body.id);
    await sleep(200);
    return (await readJob(ref, created.body.id)).body.status !== 'failed';
  },
  'failed-no-error': async (ref) => {
    const created = await createJob(ref, { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_FAIL_JOB' });
    await pollJob(ref, created.body.id);
    const job = (await readJob(ref, created.body.id)).body;
    return job.status === 'failed' && !('error_code' in job) && !('error_message' in job);
  },
  'asset-no-key': async (ref) =>
    (await call(ref, `/v1/media/assets/${(await succeededJob(ref)).asset_id}`)).status === 200,
  'asset-other-tenant': async (ref) =>
    (await readJob(ref, (await createJob(ref, jobBody('wc-100010'))).body.id, 'other_tenant')).status === 200,
  'asset-wrong-format': async (ref) => {
    const res = await fetch(`${ref.url}/v1/media/assets/${(await succeededJob(ref, 'wc-100040')).asset_id}`, {
      headers: { authorization: `Bearer ${ref.keys.primary}` },
    });
    return Buffer.from(await res.arrayBuffer())[0] === 0xff;
  },
  'catalog-wider': async (ref) =>
    (await catalogEntry(ref, 'wc-100014')).parameters.duration.maximum === 60 &&
    (await accepted(ref, withParams('wc-100014', { duration: 60 }))),
  'catalog-missing-data': async (ref) =>
    Array.isArray((await call(ref, '/v1/media/models', { role: 'primary' })).body),
  'catalog-capabilities-string': async (ref) =>
    typeof (await catalogEntry(ref, 'wc-100010')).capabilities === 'string',
  'kind-missing': async (ref) => !('kind' in (await createJob(ref, jobBody('wc-100010'))).body),
  'invalid-code': async (ref) =>
    (await createJob(ref, withParams('wc-100010', { quality: 'high' }))).body.error.code === 'bad_parameter',
  'undocumented-unenforced': async (ref) =>
    (await catalogEntry(ref, 'wc-900001')).parameters.steps.step === 5 &&
    (await accepted(ref, { model: 'wc-900001', prompt: 'x', parameters: { ...ACK, steps: 12 } })),
  'settlement-pending-lost': async (ref) =>
    (await readJob(ref, await pendingJob(ref, 'probe-pending'), 'poor')).status === 404,
  'settlement-replay-new-job': async (ref) => {
    const id = await pendingJob(ref, 'probe-pending');
    return (await createJob(ref, jobBody('wc-100010'), keyed('probe-pending', 'poor'))).body.id !== id;
  },
  'uncertain-job-lost': async (ref) =>
    readsUntil(ref, (await createJob(ref, UNCERTAIN)).body.id, (read) => read.status === 404),
  'uncertain-replay-new-job': async (ref) => {
    // The replay must meet submission_uncertain (one 40 ms stage); a miss is tried again with a new key.
    for (let attempt = 0; attempt < 5; attempt++) {
      const k = `probe-uncertain-${attempt}`;
      const id = (await createJob(ref, UNCERTAIN, keyed(k))).body.id;
      await readsUntil(ref, id, (read) => read.body?.status === 'submission_uncertain');
      const again = await createJob(ref, UNCERTAIN, keyed(k));
      if (again.body.id !== id) return true;
      if (again.body.status === 'submission_uncertain') return false;
    }
    return false;
  },
  // ==== end of the media block
  // ==== transport (transport.test.ts has the details)
  'transport-hang': async (ref) =>
    fetchWithin(ref, '/v1/balance', { role: 'primary', ms: 300 }).then(
      () => false,
      (e) => errorCode(e) === 'TIMEOUT',
    ),
  'transport-reset': async (ref) =>
    fetchWithin(ref, '/v1/usage', { role: 'primary' }).then(
      () => false,
      (e) => errorCode(e) === 'ECONNRESET',
    ),
  'transport-500': async (ref) => (await call(ref, '/v1/ledger', { role: 'primary' })).status === 500,
  'transport-truncated': async (ref) =>
    fetchWithin(ref, '/v1/models', { role: 'primary' }).then(
      () => false,
      (e) => errorCode(e) === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ),
  'transport-invalid-json': async (ref) => {
    const res = await call(ref, '/v1/support/tickets', { role: 'primary' });
    const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
    return res.status === 200 && json && res.body === undefined;
  },
  // ==== end of the transport block
  ...RACE_FAULT_PROBES,
  // --- inputs --- (issue 22)
  'wrong-method-200': async (ref) =>
    (await call(ref, '/v1/balance', { method: 'DELETE', role: 'primary' })).status === 200,
  'wrong-method-plain': async (ref) =>
    (await call(ref, '/v1/models', { method: 'DELETE', role: 'primary' })).body?.error === undefined,
  'chat-stream-truthy': async (ref) => (await chat(ref, { stream: 'true' })).status === 200,
  'chat-user-any': async (ref) => (await chat(ref, { user: 42 })).status === 200,
  'embed-format-case': async (ref) => embedOk(ref, { encoding_format: 'FLOAT' }),
  'embed-user-any': async (ref) => embedOk(ref, { user: 42 }),
  'responses-stream-truthy': async (ref) => (await responses(ref, { stream: 1 })).status === 200,
  'responses-input-any': async (ref) => (await responses(ref, { input: 42 })).status === 200,
  'order-method-case': async (ref) => (await payOrder(ref, { method: 'ALIPAY' })).status === 201,
  'ticket-numbers-as-text': async (ref) => (await ticket(ref, { subject: 42 })).status === 201,
  'ref-id-chars': async (ref) => accepted(ref, jobBody('wc-100011', [`${'x'.repeat(159)}é`])),
  'job-kind-mismatch': async (ref) =>
    (await createJob(ref, jobBody('wc-100010'))).body.kind !== (await catalogEntry(ref, 'wc-100010')).kind,
  'kind-video-only': async (ref) =>
    !(await accepted(ref, { ...jobBody('wc-100010'), kind: (await catalogEntry(ref, 'wc-100010')).kind })),
  'scope-refusal-flat': async (ref) =>
    typeof (await call(ref, '/v1/balance', { role: 'restricted_models' })).body?.error === 'string',
  'spend-refusal-flat': async (ref) =>
    typeof (await chat(ref, { max_tokens: 4096 }, { role: 'poor' })).body?.error === 'string',
  'quota-refusal-flat': async (ref) => {
    for (let i = 0; i < 12; i++) {
      const res = await upload(ref, 'png-64x48.png', { role: 'quota_nearly_full' });
      if (res.status === 429) return typeof res.body?.error === 'string';
    }
    return false;
  },
  'catalog-ratio-flag-false': async (ref) =>
    (await catalogEntry(ref, 'wc-100015')).parameters.reference.aspect_ratio_follows_first_frame === false,
  // --- corpus ---
  'responses-blank-deltas': async (ref) => {
    const deltas = (await events(ref)).filter((e) => e.event === 'response.output_text.delta');
    return deltas.length > 0 && deltas.every((e) => JSON.parse(e.data).delta === '');
  },
  'upload-refuses-progressive-jpeg': async (ref) => !(await uploaded(ref, 'jpeg-progressive-48x64.jpg')),
  'upload-refuses-lossless-webp': async (ref) => !(await uploaded(ref, 'webp-lossless-40x30.webp')),
  'webp-alpha-refused': async (ref) => !(await uploaded(ref, 'webp-alpha-40x30.webp')),
  'png-alpha-refused': async (ref) => !(await uploaded(ref, 'png-alpha-30x40.png')),
  'upload-refuses-moov-last': async (ref) => !(await uploaded(ref, 'h264-moov-last-2s.mp4')),
  'duration-rounded-to-seconds': async (ref) =>
    (await upload(ref, 'h264-1.79s.mp4')).body?.input?.duration_ms === 2000,
  // 30.25 s is accepted at upload and as wc-100016's reference.
  'video-max-whole-seconds': async (ref) => {
    const u = await upload(ref, 'h264-30.25s.mp4');
    return u.status === 201 && accepted(ref, jobBody('wc-100016', [u.body.input.id]));
  },
  'video-window-min-exclusive': async (ref) =>
    !(await accepted(ref, jobBody('wc-100016', [await inputId(ref, 'h264-1.8s.mp4')]))),
  'video-window-min-1750': async (ref) =>
    accepted(ref, jobBody('wc-100016', [await inputId(ref, 'h264-1.79s.mp4')])),
  // --- consist ---
  'usage-charge-mismatch': async (ref) => {
    const res = await embed(ref, { model: ref.hints.embedding, input: 'ok' });
    const newest = (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0];
    return newest.charged_points !== res.body.billing.charged_points;
  },
  'ledger-missing-media': async (ref) => {
    const created = await createJob(ref, jobBody('wc-100010'));
    await pollJob(ref, created.body.id);
    const ledger = (await call(ref, '/v1/ledger', { role: 'primary' })).body.data;
    // biome-ignore lint/suspicious/noExplicitAny: ledger entries are probed field by field
    return !ledger.some((e: any) => e.type === 'charge' && e.usage_id === null);
  },
  'enterprise-second-separate-usage': async (ref) => {
    const listed = async () => (await call(ref, '/v1/usage', { role: 'enterprise_second' })).body.data.length;
    const before = await listed();
    await chat(ref, {}, { role: 'enterprise' });
    return (await listed()) === before;
  },
  'quota-not-released': async (ref) => {
    const role = 'quota_nearly_full';
    let id: string | undefined;
    for (let i = 0; i < 10; i++) {
      const res = await upload(ref, 'jpeg-64x48.jpg', { role });
      if (res.status !== 201) break;
      id = res.body.input.id;
    }
    await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role });
    await sleep(120);
    return (await upload(ref, 'jpeg-64x48.jpg', { role })).status === 429;
  },
  'responses-balance-off': async (ref) => {
    const before = (await balance(ref)).body.total_points;
    const charged = (await responses(ref)).body.billing.charged_points;
    return !new Decimal(before).minus(charged).eq((await balance(ref)).body.total_points);
  },
  'media-charged-misreported': async (ref) => {
    const before = (await balance(ref)).body.total_points;
    const created = await createJob(ref, jobBody('wc-100010'));
    const job = (await pollJob(ref, created.body.id)).last.body;
    return !new Decimal(before).minus(job.charged_points).eq((await balance(ref)).body.total_points);
  },
  'media-hold-unseen': async (ref) => {
    const before = (await balance(ref)).body.held_points;
    await createJob(ref, jobBody('wc-100010'));
    return (await balance(ref)).body.held_points === before;
  },
  // --- applic ---
  'embeddings-unknown-model-200': async (ref) =>
    (await embed(ref, { model: 'no-such-model', input: 'ok' })).status === 200,
  'responses-unknown-model-200': async (ref) =>
    (await responses(ref, { model: 'no-such-model' })).status === 200,
  'media-job-unknown-model-accepted': async (ref) =>
    accepted(ref, { ...jobBody('wc-100010'), model: 'no-such-model' }),
  'embeddings-forbidden-callable': async (ref) =>
    (await embed(ref, { model: ref.hints.forbidden, input: 'ok' })).status === 200,
  'responses-forbidden-callable': async (ref) =>
    (await responses(ref, { model: ref.hints.forbidden })).status === 200,
  'legacy-embeddings-points': async (ref) => {
    const res = await call(ref, '/v1/embeddings', {
      method: 'POST',
      role: 'primary',
      json: { model: ref.hints.embedding, input: 'ok' },
      headers: LEGACY,
    });
    return res.status === 200 && 'charged_points' in (res.body.billing ?? {});
  },
  'legacy-responses-points': async (ref) => {
    const res = await call(ref, '/v1/responses', {
      method: 'POST',
      role: 'primary',
      json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 3 },
      headers: LEGACY,
    });
    return res.status === 200 && 'charged_points' in (res.body.billing ?? {});
  },
  'studio-ids-duplicate-accepted': async (ref) => {
    const id = await inputId(ref);
    return accepted(ref, withParams('wc-100011', { studio_asset_ids: [id, id] }));
  },
  'studio-ids-foreign-accepted': async (ref) =>
    accepted(
      ref,
      withParams('wc-100011', { studio_asset_ids: [await inputId(ref, 'png-64x48.png', 'other_tenant')] }),
    ),
  'studio-ids-count-unchecked': async (ref) => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await inputId(ref));
    return accepted(ref, withParams('wc-100041', { studio_asset_ids: ids }));
  },
  'studio-ids-video-as-image': async (ref) =>
    accepted(ref, withParams('wc-100011', { studio_asset_ids: [await inputId(ref, 'h264-2s.mp4')] })),
  'studio-ids-mix-accepted': async (ref) =>
    accepted(
      ref,
      withParams('wc-100016', { studio_asset_ids: [await inputId(ref), await inputId(ref, 'h264-2s.mp4')] }),
    ),
  'studio-ids-short-video': async (ref) =>
    accepted(ref, withParams('wc-100016', { studio_asset_ids: [await inputId(ref, 'h264-1.5s.mp4')] })),
  'scope-embeddings-refused': async (ref) =>
    (
      await call(ref, '/v1/embeddings', {
        method: 'POST',
        role: 'restricted_inference',
        json: { model: ref.hints.embedding, input: 'ok' },
      })
    ).status === 403,
  'scope-media-job-read-refused': async (ref) => {
    const created = await createJob(ref, jobBody('wc-100010'));
    return (await readJob(ref, created.body.id, 'restricted_media')).status === 403;
  },
  'chat-stream-unknown-model-200': async (ref) =>
    (await chat(ref, { model: 'no-such-model', stream: true })).status === 200,
  'responses-stream-any-model': async (ref) =>
    (await responses(ref, { model: ref.hints.no_responses, stream: true })).status === 200,
  // --- end applic ---
  // --- budget ---
  'spend-numbers': async (ref) =>
    typeof (await chat(ref)).body.billing.charged_points === 'number' &&
    typeof (await createJob(ref, jobBody('wc-100010'))).body.pending_points === 'number',
  // --- traffic ---
  // A streamed reply's body comes in one piece (every event written at once), not one piece per event.
  'stream-buffered': async (ref) => {
    const res = await request(`${ref.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.keys.primary}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: ref.hints.responses,
        input: 'Say ok.',
        max_output_tokens: 3,
        stream: true,
      }),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });
    let pieces = 0;
    for await (const _ of res.body) pieces++;
    return pieces === 1;
  },
};

const VARIANT_PROBES: Record<string, (ref: ReferenceHandle) => Promise<boolean>> = {
  'models-envelope': async (ref) => Array.isArray((await models(ref)).body.models),
  'extra-fields': async (ref) => {
    const [ok, error] = [await models(ref), await call(ref, '/v1/models')];
    return (
      ok.body.x_vendor !== undefined &&
      ok.body.data[0].x_vendor !== undefined &&
      error.body.error.x_vendor !== undefined
    );
  },
  'no-request-id': async (ref) => (await call(ref, '/healthz')).headers.get('x-request-id') === null,
  'error-codes': async (ref) =>
    (await call(ref, '/v1/nowhere', { role: 'primary' })).body.error.code === 'route_not_found',
  'expired-403': async (ref) => (await models(ref, 'expired')).body.error.code === 'key_expired',
  'long-ids': async (ref) =>
    Buffer.byteLength((await call(ref, '/healthz')).headers.get('x-request-id') ?? '') === 160 &&
    (ref.hints.chat ?? '').length === 120,
  'balance-envelope': async (ref) => (await balance(ref)).body.data?.total_points !== undefined,
  'unpriced-omitted': async (ref) => !('points_configured' in unpriced((await models(ref)).body.data)),
  'fractional-prices': async (ref) => (await balance(ref)).body.total_points === '1234567.123456789012',
  'healthz-text': async (ref) => (await call(ref, '/healthz')).text === 'ok',
  'openapi-lookahead-pattern': async (ref) =>
    JSON.stringify((await openapi(ref)).components.schemas.ModelEntry).includes('(?!\\\\s)'),
  'openapi-default-errors': async (ref) =>
    (await openapi(ref)).paths['/v1/models'].get.responses.default !== undefined,
  'chat-stream-ndjson': async (ref) =>
    (await chat(ref, { stream: true })).headers.get('content-type')?.startsWith('application/x-ndjson') ??
    false,
  'no-billing': async (ref) => !('billing' in (await chat(ref)).body),
  'ledger-ascending': async (ref) =>
    Array.isArray((await call(ref, '/v1/ledger', { role: 'primary' })).body.entries),
  'usage-envelope': async (ref) =>
    Array.isArray((await call(ref, '/v1/usage', { role: 'primary' })).body.records),
  'idem-conflict-422': async (ref) => {
    await chat(ref, {}, { headers: { 'idempotency-key': 'probe-key' } });
    return (
      (await chat(ref, { max_tokens: 1 }, { headers: { 'idempotency-key': 'probe-key' } })).status === 422
    );
  },
  'responses-extra-events': async (ref) =>
    (await events(ref)).some((e) => e.event === 'response.in_progress'),
  'unknown-model-403': async (ref) => (await chat(ref, { model: 'no-such-model' })).status === 403,
  // ==== tickets, payments, protections
  'enterprise-methods-allowed': async (ref) =>
    (await call(ref, '/v1/payment-methods', { role: 'enterprise' })).status === 200,
  'ticket-shape': async (ref) => (await ticket(ref, {})).body.ticket.ticket_id !== undefined,
  'order-status-pending': async (ref) => (await payOrder(ref, {})).body.status === 'pending',
  'ratelimit-no-retry-after': async (ref) => (await rateLimited(ref))?.headers.get('retry-after') === null,
  // ==== end of the tickets/payments/protections block
  // ==== media
  'media-subset': async (ref) =>
    (await call(ref, '/v1/media/models', { role: 'primary' })).body.data.length === 8,
  'input-200': async (ref) => (await upload(ref, 'png-64x48.png')).status === 200,
  'sniff-at-job': async (ref) => (await upload(ref, 'hevc-2s.mp4')).status === 201,
  'progress-object': async (ref) =>
    (await createJob(ref, jobBody('wc-100010'))).body.progress.phase !== undefined,
  'foreign-ids-403': async (ref) =>
    (await readJob(ref, (await createJob(ref, jobBody('wc-100010'))).body.id, 'other_tenant')).status === 403,
  'job-202': async (ref) => (await jobStatus(ref, jobBody('wc-100010'))) === 202,
  'create-drop-once': async (ref) => {
    const dropped = await createJob(ref, jobBody('wc-100010'), keyed('probe-drop')).then(
      () => false,
      () => true,
    );
    const again = await createJob(ref, jobBody('wc-100010'), keyed('probe-drop'));
    return dropped && again.status === 201 && again.headers.get('idempotent-replayed') === 'true';
  },
  // ==== end of the media block
  'account-runs-out': async (ref) => {
    if ((await balance(ref)).body.total_points !== '50') return false;
    // 67 images at 0.75 points hold 50.25: the account is spent before the last one settles.
    for (let i = 0; i < 67; i++) await createJob(ref, jobBody('wc-100010'));
    const input = await inputId(ref);
    const job = await createJob(ref, jobBody('wc-100011', [input]));
    const pending = await readsUntil(ref, job.body.id, (read) => read.body?.status === 'settlement_pending');
    const del = await call(ref, `/v1/media/inputs/${input}`, { method: 'DELETE', role: 'primary' });
    return pending && del.status === 409;
  },
  'empty-prompt-zero-bytes': async (ref) =>
    (await catalogEntry(ref, 'wc-100018')).prompt_contract.maximum_utf8_bytes === 0,
  'scope-404-on-ids': async (ref) =>
    (await call(ref, '/v1/media/jobs/job_probe', { role: 'restricted_models' })).status === 404 &&
    (await call(ref, '/v1/balance', { role: 'restricted_models' })).status === 403,
  'payment-min-unstated': async (ref) =>
    ref.limits.payment_min_cny === undefined &&
    (await payOrder(ref, { amount_cny: '1500.00' })).status === 400 &&
    (await payOrder(ref, { amount_cny: '1500.00' }, 'enterprise')).status === 400,
  'customer-cost-field': async (ref) => (await models(ref)).body.data[0].cost !== undefined,
  'settlement-replay-refused': async (ref) => {
    await pendingJob(ref, 'probe-pending');
    return (await jobStatus(ref, jobBody('wc-100010'), keyed('probe-pending', 'poor'))) === 409;
  },
  'legacy-credits-json': async (ref) => {
    const res = await call(ref, '/v1/balance', { role: 'primary', headers: LEGACY });
    return (
      res.body.total_credits !== undefined &&
      res.headers.get('content-type')?.startsWith('application/json') === true
    );
  },
  'openapi-errors-undescribed': async (ref) =>
    (await openapi(ref)).paths['/v1/models'].get.responses['401'].content === undefined,
  'openapi-narrow-responses': async (ref) =>
    JSON.stringify((await openapi(ref)).components.schemas.EmbeddingListResponse).includes('"minimum":1'),
  'balance-storage-unit': async (ref) => (await balance(ref)).body.storage?.unit === 'bytes',
  'embeddings-201': async (ref) =>
    (await embed(ref, { model: ref.hints.embedding, input: 'ok' })).status === 201,
  'usage-points-field': async (ref) => 'charged_points' in (await chat(ref)).body.usage,
  'openapi-model-enum': async (ref) =>
    (await openapi(ref)).components.schemas.MediaJobCreate.properties.model.enum?.includes('wc-100041') ===
    false,
  'openapi-large-enum': async (ref) =>
    // biome-ignore lint/suspicious/noExplicitAny: the entry's allOf branches are probed field by field
    (await openapi(ref)).components.schemas.ModelEntry.allOf.find((s: any) => s.properties?.languages)
      ?.properties.languages.items.enum.length === 2_500,
  'ref-unknown-404': async (ref) =>
    (await jobStatus(ref, jobBody('wc-100011', ['in_probe_unknown']))) === 404,
  // The 3rd refusal is a 429 with Retry-After: 1; the 7th balance read a 429 without Retry-After.
  'guard-429-refusals': async (ref) => {
    const refused: Exchange[] = [];
    for (let i = 0; i < 3; i++) refused.push(await chat(ref, { model: 'no-such-model' }));
    const reads: Exchange[] = [];
    for (let i = 0; i < 7; i++) reads.push(await balance(ref));
    return (
      refused.map((r) => r.status).join() === '404,404,429' &&
      refused[2]?.headers.get('retry-after') === '1' &&
      reads[6]?.status === 429 &&
      reads[6].headers.get('retry-after') === null &&
      reads.slice(0, 6).every((r) => r.status === 200)
    );
  },
  'guard-429-sometimes': async (ref) => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(ref, '/v1/embeddings', {
        method: 'POST',
        role: 'primary',
        json: { model: ref.hints.embedding, input: 'probe' },
      });
      statuses.push(res.status);
      if (res.status === 429 && res.headers.get('retry-after') !== '1') return false;
    }
    return statuses.slice(0, 4).every((s) => s === 200) && statuses[4] === 429;
  },
  'trim-ascii-only': async (ref) => accepted(ref, withPrompt('wc-100031', 'ab\u3000')),
  // An image job still runs after 1 s (0.16 s with the pool's 40 ms stages otherwise).
  'jobs-slow': async (ref) => {
    const model = Object.keys(TABLE.models).find(
      (id) => TABLE.models[id].output === 'image' && !TABLE.models[id].references.required,
    )!;
    const job = await createJob(ref, jobBody(model));
    await sleep(1000);
    return (await readJob(ref, job.body.id)).body.status !== 'succeeded';
  },
  // A bucket of 1000 requests: 1300 at once are not all served, and those refused carry Retry-After.
  'guard-rpm': async (ref) => {
    const replies = await Promise.all(Array.from({ length: 1300 }, () => models(ref)));
    const limited = replies.filter((r) => r.status === 429);
    return (
      limited.length > 0 &&
      replies.filter((r) => r.status === 200).length >= 1000 &&
      limited.every((r) => /^[1-9]\d*$/.test(r.headers.get('retry-after') ?? ''))
    );
  },
  // --- corpus ---
  'responses-zero-length-delta': async (ref) =>
    (await events(ref)).some(
      (e) => e.event === 'response.output_text.delta' && JSON.parse(e.data).delta === '',
    ),
  'input-delete-idempotent': async (ref) => {
    const id = await inputId(ref);
    const del = () => call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' });
    return (await del()).status === 204 && (await del()).status === 204;
  },
  // --- transient ---
  // One kept-alive connection reused REUSE_CLOSE_EVERY times: the last reuse is closed without a reply.
  'keepalive-close-on-reuse': async (ref) => {
    const client = new Client(ref.url, { keepAliveTimeout: 10_000 });
    try {
      for (let i = 0; i <= REUSE_CLOSE_EVERY; i++) {
        const res = await client
          .request({ path: '/healthz', method: 'GET', headersTimeout: 2_000, bodyTimeout: 2_000 })
          .catch((e: unknown) => e as Error);
        if (res instanceof Error) return errorCode(res) === 'UND_ERR_SOCKET';
        await res.body.dump();
      }
      return false;
    } finally {
      await client.destroy();
    }
  },
  // --- budget ---
  'spend-unreported': async (ref) =>
    !('billing' in (await chat(ref)).body) &&
    !('pending_points' in (await createJob(ref, jobBody('wc-100010'))).body),
};

describe('faults', () => {
  test('names are unique and each lists the requirements it breaks', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const fault of FAULTS) {
      expect(fault.description, fault.name).not.toBe('');
      expect(fault.breaks.length, fault.name).toBeGreaterThan(0);
      for (const id of fault.breaks) expect(id, fault.name).toMatch(/^[A-Z]+(-[A-Z]+)*-\d{3}$/);
    }
  });

  test.for(FAULTS.map((f) => f.name))('%s starts and shows its deviation', async (name) => {
    const probe = FAULT_PROBES[name];
    expect(probe, `a probe for ${name}`).toBeDefined();
    expect(await probe?.(await start({ fault: name }))).toBe(true);
    expect(await probe?.(await start())).toBe(false);
  });

  test('an unknown fault name is refused with the valid names', async () => {
    await expect(startReference({ fault: 'no-such-fault' })).rejects.toThrow(
      /Unknown fault "no-such-fault".*auth-query-key/,
    );
  });
});

describe('variants', () => {
  test('names are unique and distinct from fault names', () => {
    const names = VARIANTS.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(FAULTS.map((f) => f.name)).not.toContain(name);
  });

  test.for(VARIANTS.map((v) => v.name))('%s starts and shows its choice', async (name) => {
    const probe = VARIANT_PROBES[name];
    expect(probe, `a probe for ${name}`).toBeDefined();
    expect(await probe?.(await start({ variant: name }))).toBe(true);
    expect(await probe?.(await start())).toBe(false);
  });

  test('an unknown variant name is refused with the valid names', async () => {
    await expect(startReference({ variant: 'nope' })).rejects.toThrow(
      /Unknown variant "nope".*models-envelope/,
    );
  });
});
