// Faults and variants of the catalogue, balance, billing, usage, ledger and legacy currency format (routes/models.ts,
// routes/balance.ts, billing.ts, internal.ts, routes/usage.ts, routes/ledger.ts, legacy.ts, state.ts).
import { Decimal } from 'decimal.js';
import {
  type Fault,
  jobBody,
  LEGACY,
  type OpenApiDraft,
  optional,
  req,
  unpriced,
  type Variant,
} from './probe.ts';

/** The live description of faults that send points as JSON numbers: the spend of billable replies. */
function spendAsNumbers(schemas: OpenApiDraft['schemas']): void {
  for (const field of ['charged_points', 'released_points'])
    schemas.Billing.properties[field] = { type: 'number' };
  const job = schemas.MediaJobResponse.allOf[1].properties;
  for (const field of ['pending_points', 'charged_points', 'released_points'])
    job[field] = { type: 'number' };
}

/** The same for the balance's points. */
function balanceAsNumbers(schemas: OpenApiDraft['schemas']): void {
  for (const field of ['total_points', 'held_points', 'available_points'])
    schemas.Balance.properties[field] = { type: 'number' };
}

const INTEGER = { type: 'integer', minimum: 0 };

/**
 * The description of variants pages-oldest-first and pages-by-offset: usage and ledger take the query
 * parameter `param` for their next page, and their list envelope has `fields` besides its data.
 */
function pagedLists(
  param: { name: string; description: string; schema: Record<string, unknown> },
  follow: string,
  fields: Record<string, Record<string, unknown>>,
): NonNullable<Variant['openapi']> {
  return ({ paths, schemas }) => {
    for (const [path, list] of [
      ['/v1/usage', 'UsageList'],
      ['/v1/ledger', 'LedgerList'],
    ] as const) {
      paths[path].get.parameters = [
        ...(paths[path].get.parameters ?? []),
        { ...param, in: 'query', required: false },
      ];
      paths[path].get.responses['200'].description = `Pages of ten, oldest first; ${follow}.`;
      Object.assign(schemas[list].properties, fields);
    }
  };
}

/** A media job's charged_points and released_points described as nullable. */
function settlementNullable(schemas: OpenApiDraft['schemas']): void {
  const props = schemas.MediaJobResponse.allOf[1].properties;
  for (const k of ['charged_points', 'released_points']) props[k] = { anyOf: [props[k], { type: 'null' }] };
}

/** A media job described without its points fields (none required, none named). */
function jobPointsUndescribed(schemas: OpenApiDraft['schemas']): void {
  const job = schemas.MediaJobResponse.allOf[1];
  job.required = job.required.filter((f: string) => f !== 'pending_points');
  for (const field of ['pending_points', 'charged_points', 'released_points']) delete job.properties[field];
}

/** No points field is required anywhere in the description, nor its legacy twin (`*_amount`). */
function noPointsRequired(schemas: OpenApiDraft['schemas']): void {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const x of node) walk(x);
    else if (node && typeof node === 'object') {
      const o = node as { required?: unknown };
      if (Array.isArray(o.required))
        o.required = o.required.filter((f) => !/_(points|amount)(_|$)/.test(String(f)));
      for (const v of Object.values(node)) walk(v);
    }
  };
  walk(schemas);
}

export const POINTS_FAULTS = [
  // billing.ts: replies that report no spend, and an embeddings call that writes no usage record
  {
    name: 'unreported-usage-unrecorded',
    description:
      'inference replies carry no billing object (as variant no-billing; described so), and an /v1/embeddings call is charged (and in the ledger) but writes no usage record',
    breaks: ['USAGE-080'],
    probe: {
      run: async ({ ref, embed, usageCount }) => {
        const before = await usageCount(ref);
        const reply = await embed(ref, { model: ref.hints.embedding, input: 'ok' });
        return reply.body.billing === undefined && (await usageCount(ref)) === before;
      },
    },
  },
  // billing.ts: "Reserved (held) points are not settled charges": a call's hold is never released
  {
    name: 'call-hold-kept',
    description:
      "what a call's hold did not charge stays held: held_points grows with every call (total_points moves by the charge alone)",
    breaks: ['BAL-004'],
    level: 'implied',
    probe: {
      run: async ({ ref, chat, balance }) => {
        const before = (await balance(ref)).body.held_points;
        await chat(ref, { max_tokens: 64 });
        return (await balance(ref)).body.held_points !== before;
      },
    },
  },
  // media/view.ts: an ended job's charge null: the settlement is made, its value missing
  {
    name: 'settled-points-null',
    description:
      'a media job that has ended shows charged_points null (its settlement made; described as nullable)',
    breaks: ['PTS-001'],
    openapi: ({ schemas }) => settlementNullable(schemas),
    probe: {
      run: async ({ ref, succeededJob }) => (await succeededJob(ref, 'wc-100010')).charged_points === null,
    },
  },
  // routes/models.ts: entries lack context_length, which the description requires
  {
    name: 'models-undocumented-shape',
    description: 'model entries omit context_length while the description requires it',
    breaks: ['RESP-003'],
    probe: { request: req.models(), holds: (r) => r.body.data[0].context_length === undefined },
  },
  // routes/balance.ts: JSON text served as text/plain
  {
    name: 'balance-text-plain',
    description: 'GET /v1/balance is served with content-type text/plain',
    breaks: ['RESP-002'],
    probe: {
      request: req.balance(),
      holds: (r) => r.headers.get('content-type')?.startsWith('text/plain') ?? false,
    },
  },
  // routes/models.ts + openapi.ts: prices as JSON numbers (described so)
  {
    name: 'models-price-number',
    description: 'model prices are JSON numbers (and described as numbers)',
    breaks: ['PTS-001'],
    openapi: ({ schemas }) => {
      const entry = schemas.TextModelEntry.properties;
      entry.request_points_per_million_tokens = { type: 'number' };
      entry.response_points_per_million_tokens = { type: 'number' };
    },
    probe: {
      request: req.models(),
      holds: (r) => typeof r.body.data[0].request_points_per_million_tokens === 'number',
    },
  },
  // routes/models.ts: the unpriced model shows "0" prices with points_configured false
  {
    name: 'models-zero-quote',
    description: 'the unpriced model shows invented "0" prices',
    breaks: ['MODELS-003'],
    probe: {
      request: req.models(),
      holds: (r) => unpriced(r.body.data).request_points_per_million_tokens === '0',
    },
  },
  // routes/models.ts + openapi.ts: the price join misses the embedding model (its calls are still charged)
  {
    name: 'models-prices-dropped',
    description: "the embedding model's entry carries neither price fields nor points_configured",
    breaks: ['MODELS-002'],
    level: 'notable',
    probe: {
      run: async ({ ref, models }) => {
        const entry = (await models(ref)).body.data.find((m: { id: string }) => m.id === ref.hints.embedding);
        return !('points_configured' in entry) && !('request_points_per_million_tokens' in entry);
      },
    },
  },
  // routes/models.ts: prices kept as binary floats per 100,000 tokens, scaled by 10 on output
  {
    name: 'models-price-float-noise',
    description: 'catalog prices are printed from binary floats: 0.7500000000000001, 1.5000000000000002',
    breaks: ['PTS-002'],
    level: 'notable',
    probe: {
      request: req.models(),
      holds: (r) => r.body.data[0].request_points_per_million_tokens === '0.7500000000000001',
    },
  },
  // state.ts: tx-chat-premium added to non-enterprise catalogs
  {
    name: 'models-forbidden-listed',
    description: "tx-chat-premium is listed in (and callable from) the primary account's catalog",
    // Callable, it is not refused with 403 either (MODEL-002), streamed or not.
    breaks: ['MODELS-004', 'MODEL-002'],
    probe: {
      run: async ({ ref, models }) =>
        (await models(ref)).body.data.some((m: { id: string }) => m.id === ref.hints.forbidden),
    },
  },
  // routes/models.ts: the forbidden embedding model listed in the primary catalog (not callable)
  {
    name: 'models-forbidden-embedding-listed',
    description:
      "the forbidden_embedding model is listed in the primary account's catalog, though its calls are refused",
    breaks: ['MODELS-004'],
    probe: {
      run: async ({ ref, models }) =>
        (await models(ref)).body.data.some((m: { id: string }) => m.id === ref.hints.forbidden_embedding),
    },
  },
  // routes/models.ts: an account with no effective model is refused 401 instead of given an empty list
  {
    name: 'models-empty-401',
    description: 'GET /v1/models answers 401 invalid_api_key to a valid key whose account has no model',
    breaks: ['MODELS-005'],
    probe: { request: req.models('no_models'), holds: (r) => r.status === 401 },
  },
  // routes/models.ts: the catalog leaves out the embedding models, which the embeddings call still takes
  {
    name: 'catalog-omits-embedding',
    description: 'GET /v1/models lists no embedding model, though POST /v1/embeddings takes them',
    breaks: ['MODELS-004'],
    probe: {
      run: async ({ ref, models }) => !JSON.stringify((await models(ref)).body).includes('"embedding"'),
    },
  },
  // routes/balance.ts + openapi.ts: points as JSON numbers (described so)
  {
    name: 'balance-number',
    description: 'balance points are JSON numbers (and described as numbers)',
    breaks: ['PTS-001'],
    openapi: ({ schemas }) => balanceAsNumbers(schemas),
    probe: { request: req.balance(), holds: (r) => typeof r.body.total_points === 'number' },
  },
  // routes/balance.ts + openapi.ts: held_points omitted (and not required by the description)
  {
    name: 'balance-missing-held',
    description: 'the balance omits held_points',
    breaks: ['BAL-001'],
    openapi: ({ schemas }) => optional(schemas.Balance, 'held_points'),
    probe: { request: req.balance(), holds: (r) => !('held_points' in r.body) },
  },
  // routes/balance.ts: available = total - held + 1
  {
    name: 'balance-available-off',
    description: 'available_points = total - held + 1',
    breaks: ['BAL-003'],
    level: 'implied',
    probe: { request: req.balance(), holds: (r) => r.body.available_points !== '988.25' },
  },
  // billing.ts + openapi.ts: billing points as JSON numbers (described so)
  {
    name: 'chat-billing-numbers',
    description: 'billing charged/released points are JSON numbers (and described so)',
    breaks: ['PTS-001'],
    openapi: ({ schemas }) => {
      for (const field of ['charged_points', 'released_points'])
        schemas.Billing.properties[field] = { type: 'number' };
    },
    probe: { request: req.chat(), holds: (r) => typeof r.body.billing.charged_points === 'number' },
  },
  // billing.ts + openapi.ts: billing carries charged_credits/released_credits (described so)
  {
    name: 'chat-credits-names',
    description: 'billing uses charged_credits/released_credits instead of *_points (described so)',
    breaks: ['PTS-004'],
    openapi: ({ schemas }) => {
      const { unit, charged_points, released_points } = schemas.Billing.properties;
      schemas.Billing.required = ['unit', 'charged_credits', 'released_credits'];
      schemas.Billing.properties = {
        unit,
        charged_credits: charged_points,
        released_credits: released_points,
      };
    },
    probe: { request: req.chat(), holds: (r) => 'charged_credits' in r.body.billing },
  },
  // billing.ts + openapi.ts: the billing object of inference replies names its unit `credits` (described so)
  {
    name: 'billing-unit-credits',
    description:
      'the billing object of chat, responses and embedding replies says unit: credits (described so)',
    breaks: ['PTS-003'],
    probe: { request: req.chat(), holds: (r) => r.body.billing.unit === 'credits' },
  },
  // legacy.ts: the legacy Accept header is ignored (points fields, application/json)
  {
    name: 'legacy-ignored',
    description: 'the legacy currency Accept header is ignored: points fields are returned',
    breaks: ['LEGACY-001'],
    probe: {
      request: req.call('/v1/balance', { role: 'primary', headers: LEGACY }),
      holds: (r) => 'total_points' in r.body,
    },
  },
  // legacy.ts: "Model ids ... are unchanged": a legacy reply names its model by an alias
  {
    name: 'legacy-model-alias',
    description: 'under the legacy format a reply names its model legacy:<id> instead of the id requested',
    breaks: ['LEGACY-002'],
    probe: {
      run: async ({ ref, chat }) => {
        const { body } = await chat(ref, {}, { headers: LEGACY });
        return typeof body.model === 'string' && body.model.startsWith('legacy:');
      },
    },
  },
  // legacy.ts: the legacy fields are added next to the points fields
  {
    name: 'legacy-added',
    description: 'under the legacy format the points fields stay, next to the legacy ones',
    breaks: ['LEGACY-001'],
    probe: {
      run: async ({ ref, call }) => {
        const { body } = await call(ref, '/v1/balance', { role: 'primary', headers: LEGACY });
        return 'total_points' in body && 'total_amount' in body;
      },
    },
  },
  // legacy.ts: the points fields are left out under the legacy format, nothing in their place
  {
    name: 'legacy-drops-points',
    description:
      'under the legacy format the points fields are left out, no legacy amount field in their place (described so: no points field is required, nor its legacy twin)',
    breaks: ['LEGACY-001'],
    openapi: ({ schemas }) => noPointsRequired(schemas),
    probe: {
      run: async ({ ref, call }) => {
        const { body } = await call(ref, '/v1/balance', { role: 'primary', headers: LEGACY });
        return !('total_points' in body) && !('total_amount' in body);
      },
    },
  },
  // legacy.ts: the same in the replies of calls (chat, responses, embeddings, media jobs) only
  {
    name: 'legacy-call-drops-points',
    description:
      'under the legacy format the points fields of the replies to calls (POST) are left out, no legacy amount field in their place (described so: no points field is required, nor its legacy twin)',
    breaks: ['LEGACY-001'],
    openapi: ({ schemas }) => noPointsRequired(schemas),
    probe: {
      run: async ({ ref, chat }) => {
        const { body } = await chat(ref, {}, { headers: LEGACY });
        return !('charged_points' in body.billing) && !('charged_amount' in body.billing);
      },
    },
  },
  // routes/models.ts: model ids gain "-legacy" under the legacy format
  {
    name: 'legacy-model-ids',
    description: 'under the legacy format the catalog ids gain a "-legacy" suffix',
    breaks: ['LEGACY-002'],
    probe: {
      request: req.call('/v1/models', { role: 'primary', headers: LEGACY }),
      holds: (r) => r.body.data[0].id.endsWith('-legacy'),
    },
  },
  // billing.ts: balance_after_points of charge entries off by 0.01
  {
    name: 'ledger-balance-off',
    description: 'ledger charge entries state balance_after_points 0.01 too high',
    breaks: ['LEDGER-002', 'LEDGER-003'],
    level: 'implied',
    probe: { run: ({ ref, ledgerAfterChat }) => ledgerAfterChat(ref) },
  },
  // billing.ts: the balance moves by the charge + 0.001
  {
    name: 'balance-not-settled',
    description: 'each call lowers the balance by its charge + 0.001',
    breaks: ['BAL-004', 'LEDGER-002', 'LEDGER-003'],
    level: 'implied',
    probe: {
      run: async ({ ref, balance, chat }) => {
        const before = (await balance(ref)).body.total_points;
        const charged = (await chat(ref)).body.billing.charged_points;
        return !new Decimal(before).minus(charged).eq((await balance(ref)).body.total_points);
      },
    },
  },
  // billing.ts: usage charged_points recomputed at the current price, which rises with every chat call
  {
    name: 'snapshot-drift',
    description: 'usage charged_points follow the current price; tx-chat-1 gets dearer on every chat call',
    breaks: ['PTS-006'],
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref);
        const charged = (await chat(ref)).body.billing.charged_points;
        return (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0].charged_points !== charged;
      },
    },
  },
  // routes/usage.ts + openapi.ts: GET /v1/usage answers 500 (described so)
  {
    name: 'usage-unavailable',
    description: 'GET /v1/usage answers 500',
    breaks: ['USAGE-001', 'ERR-002'],
    openapi: ({ paths, errorResponse }) => {
      paths['/v1/usage'].get.responses['500'] = errorResponse('500');
    },
    probe: { request: req.call('/v1/usage', { role: 'primary' }), holds: (r) => r.status === 500 },
  },
  // routes/ledger.ts: GET /v1/ledger answers 404
  {
    name: 'ledger-unavailable',
    description: 'GET /v1/ledger answers 404',
    breaks: ['LEDGER-001'],
    probe: { request: req.call('/v1/ledger', { role: 'primary' }), holds: (r) => r.status === 404 },
  },
  // routes/usage.ts: the account filter dropped (implied: another tenant's usage is never listed)
  {
    name: 'usage-cross-tenant',
    description: "GET /v1/usage lists every tenant's usage records",
    breaks: ['ISO-002'],
    level: 'implied',
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref, {}, { role: 'other_tenant' });
        const ids = async (role: string) =>
          ((await call(ref, '/v1/usage', { role })).body.data as Array<{ id: string }>).map((r) => r.id);
        const mine = await ids('primary');
        return (await ids('other_tenant')).some((id) => mine.includes(id));
      },
    },
  },
  // internal.ts: X-Upstream-Key: <the model's upstream key> on authenticated responses (a canary)
  {
    name: 'upstream-key-header',
    description: "authenticated responses carry X-Upstream-Key: <the model's sk-upstream- key>",
    breaks: ['SEC-001', 'SEC-002'],
    probe: { request: req.models(), holds: (r) => r.headers.get('x-upstream-key') !== null },
  },
  // internal.ts: X-Upstream-Node: node-internal-<n> on every response (a canary)
  {
    name: 'node-header',
    description: 'responses carry X-Upstream-Node: node-internal-7',
    breaks: ['SEC-001', 'SEC-002'],
    probe: { request: req.call('/healthz'), holds: (r) => r.headers.get('x-upstream-node') !== null },
  },
  // internal.ts + openapi.ts: /v1/models entries carry purchase_cost (described so)
  {
    name: 'purchase-cost-field',
    description: 'each /v1/models entry carries purchase_cost: "0.0021" (and is described so)',
    breaks: ['SEC-002'],
    probe: { request: req.models(), holds: (r) => r.body.data[0].purchase_cost !== undefined },
  },
  // internal.ts + openapi.ts: /v1/models entries carry upstream_endpoint (described so)
  {
    name: 'routing-field-host',
    description: 'each /v1/models entry carries upstream_endpoint: "10.2.3.4:8443" (and is described so)',
    breaks: ['SEC-002'],
    probe: { request: req.models(), holds: (r) => r.body.data[0].upstream_endpoint !== undefined },
  },
  // routes/balance.ts: POST, PUT, PATCH and DELETE /v1/balance answer 200 {}
  {
    name: 'wrong-method-200',
    description:
      'DELETE (and POST, PUT, PATCH) /v1/balance answer 200, methods the endpoint table does not give',
    breaks: ['ERR-070'],
    level: 'implied',
    probe: {
      request: req.call('/v1/balance', { method: 'DELETE', role: 'primary' }),
      holds: (r) => r.status === 200,
    },
  },
  // billing.ts: the usage record of an embeddings call states 0.000001 more than its billing (and the ledger)
  {
    name: 'usage-charge-mismatch',
    description:
      "the usage record of an embeddings call states charged_points 0.000001 above the reply's billing.charged_points",
    breaks: ['USAGE-080'],
    level: 'implied',
    probe: {
      run: async ({ ref, embed, call }) => {
        const res = await embed(ref, { model: ref.hints.embedding, input: 'ok' });
        const newest = (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0];
        return newest.charged_points !== res.body.billing.charged_points;
      },
    },
  },
  // billing.ts: a usage record states what the call held (the quote for its largest completion), not
  // what it was charged: told apart only where the hold exceeds the charge (a cap above the reply)
  {
    name: 'usage-records-hold',
    description:
      "a usage record's charged_points is the call's hold, not its charge (equal when the reply fills its cap)",
    breaks: ['USAGE-080'],
    level: 'implied',
    probe: {
      run: async ({ ref, chat, call }) => {
        const res = await chat(ref, { max_tokens: 64 });
        const newest = (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0];
        return newest.charged_points !== res.body.billing.charged_points;
      },
    },
  },
  // billing.ts + openapi.ts: usage records' token counts as strings (described so: the contract does not
  // show a usage record's fields, so the description may say what it likes; PTS-005 still rules it out)
  {
    name: 'usage-record-tokens-as-strings',
    description: "usage records' token counts are strings (and described so)",
    breaks: ['PTS-005'],
    openapi: ({ schemas }) => {
      for (const field of ['prompt_tokens', 'completion_tokens', 'total_tokens'])
        schemas.CallUsageRecord.properties[field] = { type: 'string' };
    },
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref, {});
        const newest = (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0];
        return typeof newest.prompt_tokens === 'string';
      },
    },
  },
  // billing.ts: /v1/responses calls are charged and in the ledger, but never get a usage record
  {
    name: 'responses-usage-unrecorded',
    description:
      'a /v1/responses call is charged (billing, ledger, balance) but no usage record is ever listed for it',
    breaks: ['USAGE-080'],
    probe: {
      run: async ({ ref, responses, call }) => {
        const before = (await call(ref, '/v1/usage', { role: 'primary' })).body.data.length;
        await responses(ref);
        return (await call(ref, '/v1/usage', { role: 'primary' })).body.data.length === before;
      },
    },
  },
  // billing.ts usageView: a chat call's usage record names its charge charged_credits (a conversation
  // interface's record, not studio metering: the *_points name is required there)
  {
    name: 'usage-call-credits',
    description: "a chat call's usage record states its charge as charged_credits, no charged_points",
    breaks: ['PTS-004'],
    openapi: ({ schemas }) => {
      schemas.CallUsageRecord.properties.charged_credits = schemas.CallUsageRecord.properties.charged_points;
      schemas.CallUsageRecord.required = schemas.CallUsageRecord.required.filter(
        (f: string) => f !== 'charged_points',
      );
    },
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref, {});
        const newest = (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0];
        return 'charged_credits' in newest && !('charged_points' in newest);
      },
    },
  },
  // media/store.ts: a media job is charged (ledger, balance) but writes no usage record
  // media/view.ts + store.ts: the same with jobs that state no charge (their points fields are not shown)
  {
    name: 'job-usage-unrecorded-unstated',
    description:
      'a media job reports no points fields (described so) but is charged (ledger, balance), and no usage record is ever listed for it',
    breaks: ['USAGE-080'],
    openapi: ({ schemas }) => jobPointsUndescribed(schemas),
    probe: {
      run: async ({ ref, succeededJob, call }) => {
        const job = await succeededJob(ref, 'wc-100010');
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<{
          job_id?: string;
        }>;
        return job.charged_points === undefined && !records.some((r) => r.job_id !== undefined);
      },
    },
  },
  {
    name: 'media-usage-unrecorded',
    description:
      'a media job is charged (its charged_points, ledger, balance) but no usage record is ever listed for it',
    breaks: ['USAGE-080'],
    probe: {
      run: async ({ ref, succeededJob, call }) => {
        await succeededJob(ref, 'wc-100010');
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<{
          job_id?: string;
        }>;
        return !records.some((r) => r.job_id !== undefined);
      },
    },
  },
  // routes/usage.ts: the second enterprise key keeps its own usage list (a copy taken at its first read)
  {
    name: 'enterprise-second-separate-usage',
    description:
      'the enterprise_second key lists the usage its account had at its first read; later calls of the other key never show',
    breaks: ['ENT-001'],
    probe: {
      run: async ({ ref, call, chat }) => {
        const listed = async () =>
          (await call(ref, '/v1/usage', { role: 'enterprise_second' })).body.data.length;
        const before = await listed();
        await chat(ref, {}, { role: 'enterprise' });
        return (await listed()) === before;
      },
    },
  },
  // routes/balance.ts: held_points leaves out the holds of media jobs (available = total - the shown held)
  {
    name: 'media-hold-unseen',
    description: "the balance's held_points leaves out the holds of open media jobs",
    breaks: ['BAL-004'],
    level: 'implied',
    probe: {
      run: async ({ ref, balance, createJob }) => {
        const before = (await balance(ref)).body.held_points;
        await createJob(ref, jobBody('wc-100010'));
        return (await balance(ref)).body.held_points === before;
      },
    },
  },
  // billing.ts: a responses call lowers the balance by its charge + 0.001 (billing, usage and ledger amount say the charge)
  {
    name: 'responses-balance-off',
    description: 'each /v1/responses call lowers the balance by its charge + 0.001',
    breaks: ['BAL-004', 'LEDGER-002', 'LEDGER-003'],
    level: 'implied',
    probe: {
      run: async ({ ref, balance, responses }) => {
        const before = (await balance(ref)).body.total_points;
        const charged = (await responses(ref)).body.billing.charged_points;
        return !new Decimal(before).minus(charged).eq((await balance(ref)).body.total_points);
      },
    },
  },
  // --- budget ---
  // billing.ts + media/view.ts: every billable reply reports its spend as JSON numbers (described so)
  {
    name: 'spend-numbers',
    description:
      'billing charged/released points and media job pending/charged/released points are JSON numbers (described so)',
    breaks: ['PTS-001'],
    openapi: ({ schemas }) => spendAsNumbers(schemas),
    probe: {
      run: async ({ ref, chat, createJob }) =>
        typeof (await chat(ref)).body.billing.charged_points === 'number' &&
        typeof (await createJob(ref, jobBody('wc-100010'))).body.pending_points === 'number',
    },
  },
  // billing.ts + media/view.ts + routes/balance.ts: every spend and the balance as JSON numbers (issue 37)
  {
    name: 'points-numbers',
    description:
      'every points field a billable reply or the balance reports is a JSON number (described so): a budget that reads only decimal strings spends without counting',
    breaks: ['PTS-001'],
    openapi: ({ schemas }) => {
      spendAsNumbers(schemas);
      balanceAsNumbers(schemas);
    },
    probe: {
      run: async ({ ref, chat, balance }) =>
        typeof (await chat(ref)).body.billing.charged_points === 'number' &&
        typeof (await balance(ref)).body.available_points === 'number',
    },
  },
  // billing.ts + media/view.ts: the replies report a tenth of what the account pays
  {
    name: 'spend-misreported',
    description:
      'billable replies report a tenth of their charge and hold (charged, released and pending points); the balance moves by the whole',
    breaks: ['BAL-004', 'USAGE-080'],
    level: 'implied',
    probe: {
      run: async ({ ref, balance, chat }) => {
        const before = (await balance(ref)).body.total_points;
        const charged = (await chat(ref)).body.billing.charged_points;
        const after = (await balance(ref)).body.total_points;
        return new Decimal(before).minus(after).eq(new Decimal(charged).times(10));
      },
    },
  },
  // routes/balance.ts: the balance never moves
  {
    name: 'balance-stuck',
    description: 'GET /v1/balance always shows the balance of its first read, whatever was spent since',
    breaks: ['BAL-004', 'LEDGER-003'],
    level: 'implied',
    probe: {
      run: async ({ ref, balance, chat }) => {
        const before = (await balance(ref)).body.total_points;
        const charged = (await chat(ref)).body.billing.charged_points;
        return new Decimal(charged).isPositive() && (await balance(ref)).body.total_points === before;
      },
    },
  },
  // billing.ts + media/view.ts + routes/balance.ts + openapi.ts: no spend anywhere, no available points
  {
    name: 'spend-unmeasurable',
    description:
      'no billable reply reports its spend (as variant spend-unreported) and GET /v1/balance carries no available_points: nothing can measure what a run spends',
    breaks: ['BAL-001'],
    openapi: ({ schemas }) => {
      const job = schemas.MediaJobResponse.allOf[1];
      job.required = job.required.filter((f: string) => f !== 'pending_points');
      for (const field of ['pending_points', 'charged_points', 'released_points'])
        delete job.properties[field];
      optional(schemas.Balance, 'available_points');
    },
    probe: {
      run: async ({ ref, chat, balance }) =>
        !('billing' in (await chat(ref)).body) && !('available_points' in (await balance(ref)).body),
    },
  },
  // routes/balance.ts: "GET | /v1/balance | balance, held points, platform points"; a `*_points` field
  // beyond the table is a points value too ("A points value is an exact decimal string")
  {
    name: 'platform-points-number',
    description: 'the balance carries platform_points as the JSON number 0 (its other points are strings)',
    breaks: ['PTS-001'],
    // judging.md: "a points value is an exact decimal string" applies to the points fields of the points
    // table; a *_points name beyond it is reported, not failed.
    level: 'notable',
    probe: { request: req.balance(), holds: (r) => r.body.platform_points === 0 },
  },
  // billing.ts chargeOf: "points per million tokens" read per thousand (every call 1000 times its price)
  {
    name: 'charge-per-thousand',
    description:
      'chat, responses and embeddings calls are charged their token usage at the catalog prices per thousand tokens, not per million (billing, usage, ledger and balance agree on it)',
    breaks: ['PTS-007'],
    level: 'implied',
    probe: {
      run: async ({ ref, chat }) => {
        const { body } = await chat(ref, { max_tokens: 16 });
        const { prompt_tokens: p, completion_tokens: c } = body.usage;
        return new Decimal(body.billing.charged_points).eq(
          new Decimal(p).times('0.75').plus(new Decimal(c).times('2.5')).div(1000),
        );
      },
    },
  },
  // billing.ts chargeOf: the request price applied to the completion tokens and the response price to the prompt
  {
    name: 'charge-prices-swapped',
    description:
      "chat, responses and embeddings calls are charged their prompt tokens at the model's response price and their completion tokens at its request price",
    breaks: ['PTS-007'],
    level: 'implied',
    probe: {
      run: async ({ ref, chat }) => {
        const { body } = await chat(ref, { max_tokens: 16 });
        const { prompt_tokens: p, completion_tokens: c } = body.usage;
        return (
          p !== c &&
          new Decimal(body.billing.charged_points).eq(
            new Decimal(p).times('2.5').plus(new Decimal(c).times('0.75')).div(1e6),
          )
        );
      },
    },
  },
] as const satisfies readonly Fault[];

/** What the paged-list variants read otherwise: the whole list, wherever a record is looked for. */
const PAGED_READINGS = [
  'USAGE-001',
  'LEDGER-001',
  'USAGE-080',
  'LEDGER-002',
  'LEDGER-003',
  'PTS-006',
  'ENT-001',
];

export const POINTS_VARIANTS = [
  // billing.ts usageView: a media job's usage record with null token counts
  {
    name: 'usage-job-null-tokens',
    readings: ['PTS-005'],
    description:
      "a media job's usage record carries prompt_tokens, completion_tokens and total_tokens as null (a job has no token usage)",
    probe: {
      run: async ({ ref, succeededJob, call }) => {
        await succeededJob(ref, 'wc-100010');
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        return records.some((r) => r.job_id !== undefined && r.prompt_tokens === null);
      },
    },
  },
  // billing.ts usageView: an embedding's record has no completion count (the embeddings usage is
  // prompt_tokens and total_tokens)
  {
    name: 'usage-embeddings-completion-null',
    readings: ['PTS-005'],
    description:
      "an embeddings call's usage record and its reply's usage carry completion_tokens as null (an embedding has no completion), described so",
    openapi: ({ schemas }) => {
      schemas.CallUsageRecord.properties.completion_tokens = { type: ['integer', 'null'] };
    },
    probe: {
      run: async ({ ref, call, embed }) => {
        const reply = await embed(ref, { model: ref.hints.embedding, input: 'ok' });
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        return (
          reply.body.usage.completion_tokens === null &&
          records.some((r) => r.endpoint === '/v1/embeddings' && r.completion_tokens === null)
        );
      },
    },
  },
  // routes/media-jobs.ts + media/store.ts: a job's usage record listed from its creation, charged at settlement
  {
    name: 'usage-job-record-early',
    readings: ['PTS-006', 'USAGE-080'],
    description:
      "a media job's usage record is listed from the job's creation with charged_points 0 and charged when the job settles (a hold is no settled charge)",
    probe: {
      run: async ({ ref, createJob, call }) => {
        const job = await createJob(ref, jobBody('wc-100010'));
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        return records.some((r) => r.job_id === job.body.id && r.charged_points === '0');
      },
    },
  },
  // billing.ts usageView + routes/media-jobs.ts: a job's record named by its model only, null until settled
  {
    name: 'usage-job-record-bare',
    readings: ['PTS-001', 'PTS-005', 'PTS-006', 'USAGE-080'],
    description:
      "a media job's usage record names the job only by its model and request_id (no job_id, no media path), gives its token counts as null, and is listed from the job's creation with charged_points null until the job settles",
    openapi: ({ schemas }) => {
      schemas.UsageRecord.anyOf.push({
        type: 'object',
        description:
          "A media job's record: its model and charge (null until the job settles), no token counts.",
        required: ['id', 'request_id', 'model', 'charged_points', 'created_at'],
        properties: {
          id: { type: 'string' },
          request_id: { type: 'string' },
          model: { type: 'string' },
          prompt_tokens: { type: 'null' },
          completion_tokens: { type: 'null' },
          total_tokens: { type: 'null' },
          charged_points: { type: ['string', 'null'] },
          created_at: { type: 'string', format: 'date-time' },
        },
      });
    },
    probe: {
      run: async ({ ref, createJob, call }) => {
        const job = await createJob(ref, jobBody('wc-100010'));
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        return records.some(
          (r) => r.request_id === job.body.id && r.charged_points === null && r.job_id === undefined,
        );
      },
    },
  },
  // routes/usage.ts: a usage record's charge written with a trailing zero more on every other read
  {
    name: 'usage-charge-respelled',
    readings: ['PTS-006'],
    description:
      'every other read of /v1/usage writes each charged_points with one more trailing zero ("1.5", then "1.50"): the same exact decimal, written otherwise',
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref);
        const read = async () =>
          (
            (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<{
              charged_points?: string;
            }>
          )[0]?.charged_points;
        const first = await read();
        return first !== (await read());
      },
    },
  },
  // billing.ts usageView: a call's usage record shows its price snapshot by the points table's names
  {
    name: 'usage-price-snapshot',
    readings: ['PTS-005', 'PTS-001'],
    description:
      "a call's usage record carries request_points_per_million_tokens and response_points_per_million_tokens (decimal strings, the price snapshot it was charged at): points fields whose names end in _tokens, not token counts",
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref);
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        return records.some((r) => typeof r.request_points_per_million_tokens === 'string');
      },
    },
  },
  // billing.ts usageView: a media job's usage record states its charge as charged_credits
  {
    name: 'usage-studio-credits',
    readings: ['PTS-004', 'USAGE-080'],
    description:
      'the usage record of a media job states its charge as charged_credits, no charged_points ("Studio metering fields keep the older `*_credits` names")',
    probe: {
      run: async ({ ref, succeededJob, call }) => {
        await succeededJob(ref, 'wc-100010');
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        return records.some((r) => r.job_id !== undefined && 'charged_credits' in r);
      },
    },
  },
  // routes/models.ts + openapi.ts
  {
    name: 'models-envelope',
    readings: ['MODELS-001'],
    description:
      '/v1/models answers {models:[{model_id, features, max_context_tokens, ...prices, points_configured}]}',
    probe: { request: req.models(), holds: (r) => Array.isArray(r.body.models) },
  },
  // routes/models.ts: "The exact field names for id, capabilities and context limit ... are not shown"
  {
    name: 'catalog-entry-ids',
    readings: ['MODELS-001', 'MODELS-004'],
    description:
      "each /v1/models entry has an id of its own (mdl_...) and names its model in `model`: the model's id is not the entry's `id`",
    probe: {
      run: async ({ ref, models }) => {
        const entries = (await models(ref)).body.data as Array<Record<string, unknown>>;
        return (
          entries.length > 0 &&
          entries.every((e) => String(e.id).startsWith('mdl_') && typeof e.model === 'string')
        );
      },
    },
  },
  // routes/models.ts: the envelope is not shown; links to the list itself stand before its entries
  {
    name: 'catalog-links',
    readings: ['MODELS-001', 'MODELS-005'],
    description:
      "/v1/models answers {object, links: [{rel: 'self', href}], data: [...]}: another array of objects before the entries (an empty catalog's data is still [])",
    probe: {
      run: async ({ ref, models }) => {
        const own = await models(ref);
        const empty = await models(ref, 'no_models');
        return (
          own.body.links?.[0]?.rel === 'self' && own.body.data.length > 0 && empty.body.data.length === 0
        );
      },
    },
  },
  // routes/balance.ts + openapi.ts
  {
    name: 'balance-envelope',
    readings: ['BAL-001'],
    description: '/v1/balance answers {data:{total_points, held_points, available_points, unit}}',
    probe: { request: req.balance(), holds: (r) => r.body.data?.total_points !== undefined },
  },
  // routes/models.ts + openapi.ts: no price fields and no points_configured on the unpriced model
  {
    name: 'unpriced-omitted',
    readings: ['MODELS-003'],
    description: 'the unpriced model carries neither price fields nor points_configured',
    probe: { request: req.models(), holds: (r) => !('points_configured' in unpriced(r.body.data)) },
  },
  // routes/models.ts: the unpriced model's price fields present with null, beside points_configured false
  {
    name: 'unpriced-null',
    readings: ['MODELS-003', 'PTS-001'],
    description:
      'the unpriced model carries request_ and response_points_per_million_tokens as null beside points_configured false (no quote), and is described so',
    openapi: ({ schemas }) => {
      for (const field of ['request_points_per_million_tokens', 'response_points_per_million_tokens']) {
        const typed = schemas.TextModelEntry.properties[field];
        schemas.TextModelEntry.properties[field] = { anyOf: [typed, { type: 'null' }] };
      }
    },
    probe: {
      request: req.models(),
      holds: (r) => unpriced(r.body.data)?.request_points_per_million_tokens === null,
    },
  },
  // state.ts: long fractional prices and balances, hence charges with many decimals
  {
    name: 'fractional-prices',
    readings: ['PTS-001'],
    description:
      'prices (18 decimals) and balances with many decimals, so charges and ledger amounts have many decimals',
    probe: { request: req.balance(), holds: (r) => r.body.total_points === '1234567.123456789012' },
  },
  // billing.ts + openapi.ts
  {
    name: 'no-billing',
    readings: ['PTS-005'],
    description: 'inference replies carry no billing object',
    probe: { request: req.chat(), holds: (r) => !('billing' in r.body) },
  },
  // routes/ledger.ts + openapi.ts
  {
    name: 'ledger-ascending',
    readings: ['LEDGER-001', 'LEDGER-002'],
    description: '/v1/ledger answers {entries:[oldest first], has_more:false}',
    probe: {
      request: req.call('/v1/ledger', { role: 'primary' }),
      holds: (r) => Array.isArray(r.body.entries),
    },
  },
  // routes/usage.ts: judging.md "When the record a test just caused is not listed yet, read again for a
  // bounded time (when it appears is not stated)"
  {
    name: 'usage-record-lag',
    readings: ['USAGE-080'],
    description: 'a usage record is listed only 3 s after its call',
    probe: {
      run: async ({ ref, chat, call }) => {
        const before = (await call(ref, '/v1/usage', { role: 'primary' })).body.data.length;
        await chat(ref);
        return (await call(ref, '/v1/usage', { role: 'primary' })).body.data.length === before;
      },
    },
  },
  // routes/pages.ts (usage.ts, ledger.ts) + openapi: judging.md "Usage and ledger lists may come in
  // pages, in either order"
  {
    name: 'pages-oldest-first',
    readings: PAGED_READINGS,
    description:
      '/v1/usage and /v1/ledger answer pages of ten, oldest first, with next_cursor sent back as ?cursor= (described so)',
    strict: true,
    probe: {
      request: req.call('/v1/ledger', { role: 'primary' }),
      holds: (r) => 'next_cursor' in r.body,
    },
    openapi: pagedLists(
      {
        name: 'cursor',
        description: 'The next_cursor of the previous page; absent for the first page (the oldest records).',
        schema: { type: 'string' },
      },
      'follow next_cursor',
      { next_cursor: { type: ['string', 'null'] } },
    ),
  },
  // routes/pages.ts (usage.ts, ledger.ts) + openapi: the same pages, by offset and a stated total
  {
    name: 'pages-by-offset',
    readings: PAGED_READINGS,
    description:
      '/v1/usage and /v1/ledger answer pages of ten, oldest first, as {data, total, offset, limit} with no next link or cursor; the next page is asked for by ?offset= (described so)',
    strict: true,
    probe: {
      request: req.call('/v1/ledger', { role: 'primary' }),
      holds: (r) => typeof r.body.total === 'number' && r.body.offset === 0 && !('next_cursor' in r.body),
    },
    openapi: pagedLists(
      {
        name: 'offset',
        description: 'How many entries to skip (the oldest first); absent for the first page.',
        schema: { type: 'integer', minimum: 0 },
      },
      'ask for the next by offset',
      { total: INTEGER, offset: INTEGER, limit: INTEGER },
    ),
  },
  // routes/pages.ts (usage.ts, ledger.ts) + openapi: the same pages by number, no link or cursor
  {
    name: 'pages-by-number',
    readings: PAGED_READINGS,
    description:
      '/v1/usage and /v1/ledger answer pages of ten, oldest first, as {data, page, per_page, total_pages, has_next}; the next page is asked for by ?page=N (described so)',
    strict: true,
    probe: {
      request: req.call('/v1/ledger', { role: 'primary' }),
      holds: (r) => r.body.page === 1 && typeof r.body.total_pages === 'number' && !('next_cursor' in r.body),
    },
    openapi: pagedLists(
      {
        name: 'page',
        description: 'The page to read, from 1 (the oldest first); absent for the first page.',
        schema: { type: 'integer', minimum: 1 },
      },
      'ask for the next by page number',
      { page: INTEGER, per_page: INTEGER, total_pages: INTEGER, has_next: { type: 'boolean' } },
    ),
  },
  // routes/pages.ts (usage.ts, ledger.ts) + openapi: the same pages, the next one named by a Link header
  {
    name: 'pages-link-header',
    readings: PAGED_READINGS,
    description:
      '/v1/usage and /v1/ledger answer pages of ten, oldest first, as {data, pagination: {has_more}}; the next page is named only by a `Link: <url>; rel="next"` header (described so)',
    strict: true,
    probe: {
      request: req.call('/v1/ledger', { role: 'primary' }),
      holds: (r) =>
        typeof r.body.pagination === 'object' && !('next_cursor' in r.body) && !('total' in r.body),
    },
    openapi: pagedLists(
      {
        name: 'page',
        description: 'Opaque; taken from the `Link` header of the previous page (rel="next").',
        schema: { type: 'string' },
      },
      'the next page is the rel="next" link of the `Link` header, absent on the last page',
      {
        pagination: {
          type: 'object',
          required: ['has_more'],
          properties: { has_more: { type: 'boolean' } },
        },
      },
    ),
  },
  // media/view.ts, routes/responses.ts: "a points value is an exact decimal string"; a settlement not
  // made yet has no value, and omitting the field would say the same
  {
    name: 'points-null-until-settled',
    readings: ['PTS-001'],
    description:
      "a media job's charged_points and released_points are null until it is settled, and a streamed response's events before its terminal one carry billing with both null (described so)",
    openapi: ({ schemas }) => settlementNullable(schemas),
    probe: {
      run: async ({ ref, createJob }) => {
        const job = await createJob(ref, jobBody('wc-100010'));
        return job.body.charged_points === null && job.body.status !== 'succeeded';
      },
    },
  },
  // media/view.ts: "Media job | pending_points (in addition)" to the call settlement's charged_points and
  // released_points, whose values before the settlement are not shown: nothing charged nor released yet
  {
    name: 'points-zero-until-settled',
    readings: ['MJOB-024'],
    description:
      'a media job not settled yet shows charged_points and released_points as "0" beside its pending_points hold',
    probe: {
      run: async ({ ref, createJob }) => {
        const job = await createJob(ref, jobBody('wc-100010'));
        return job.body.charged_points === '0' && job.body.status !== 'succeeded';
      },
    },
  },
  // billing.ts + openapi.ts
  {
    name: 'usage-envelope',
    readings: ['USAGE-001'],
    description: '/v1/usage answers {records:[...]} with other field names (charged_points and model kept)',
    probe: {
      request: req.call('/v1/usage', { role: 'primary' }),
      holds: (r) => Array.isArray(r.body.records),
    },
  },
  // billing.ts + openapi.ts: "per-request token usage, model and charged amount", and "Fields of usage and
  // ledger records beyond the names above are not shown": a call's record with those only, under --strict
  // (ISO-002 compares whole records of two tenants: a model's id is no record's own name)
  {
    name: 'usage-records-bare',
    readings: ['ISO-002', 'USAGE-001'],
    description:
      "a call's usage record is its model (as model_id), its token counts and charged_points: no id, request id, endpoint or time",
    strict: true,
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref);
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        return (
          records.length > 0 &&
          records.every(
            (r) =>
              Object.keys(r).join() ===
              'model_id,prompt_tokens,completion_tokens,total_tokens,charged_points',
          )
        );
      },
    },
  },
  // billing.ts + openapi.ts: both lists with the named fields only ("Fields of usage and ledger records beyond
  // the names above are not shown"), under --strict: no record names itself (no id, no time), so ISO-002
  // compares none and says isolation is not shown (test/case-controls.test.ts), never a leak nor a pass
  {
    name: 'records-bare',
    readings: ['ISO-002', 'LEDGER-002'],
    description:
      'usage records as usage-records-bare, and a ledger entry is its amount_points, held_change_points and balance_after_points: no id, type, usage id or time',
    strict: true,
    probe: {
      run: async ({ ref, chat, call }) => {
        await chat(ref);
        const keys = async (path: string) =>
          ((await call(ref, path, { role: 'primary' })).body.data as Array<Record<string, unknown>>).map(
            (r) => Object.keys(r).join(),
          );
        const usage = await keys('/v1/usage');
        const ledger = await keys('/v1/ledger');
        return (
          usage.length > 0 &&
          ledger.length > 0 &&
          usage.every((k) => k === 'model_id,prompt_tokens,completion_tokens,total_tokens,charged_points') &&
          ledger.every((k) => k === 'amount_points,held_change_points,balance_after_points')
        );
      },
    },
  },
  // internal.ts + openapi.ts: "What the customer is charged is not a secret" (judging.md)
  {
    name: 'customer-cost-field',
    readings: ['SEC-002'],
    description:
      "each /v1/models entry carries cost: its request price in points (the customer's own bill, not a purchase cost; described so)",
    probe: { request: req.models(), holds: (r) => r.body.data[0].cost !== undefined },
  },
  // routes/balance.ts: "GET | /v1/balance | balance, held points, platform points"; a name with
  // "purchase" in it is not the service's purchase cost
  {
    name: 'balance-purchased-points',
    readings: ['SEC-002'],
    description:
      'the balance also says where its points come from: purchased_points (the points the customer bought) and platform_points',
    probe: {
      request: req.call('/v1/balance', { role: 'primary' }),
      holds: (r) => typeof r.body.purchased_points === 'string' && r.body.platform_points === '0',
    },
  },
  // state.ts + routes/media-inputs.ts: a real account that runs dry mid-run (issue 12)
  {
    name: 'account-runs-out',
    readings: ['MJOB-026', 'MIN-010'],
    description:
      'the primary account starts with 50 points (0 held); a job it cannot pay stays settlement_pending forever and still holds its inputs (their delete answers 409)',
    probe: {
      run: async ({ ref, balance, createJob, inputId, readsUntil, call }) => {
        if ((await balance(ref)).body.total_points !== '50') return false;
        // 67 images at 0.75 points hold 50.25: the account is spent before the last one settles.
        for (let i = 0; i < 67; i++) await createJob(ref, jobBody('wc-100010'));
        const input = await inputId(ref);
        const job = await createJob(ref, jobBody('wc-100011', [input]));
        const pending = await readsUntil(
          ref,
          job.body.id,
          (read) => read.body?.status === 'settlement_pending',
        );
        const del = await call(ref, `/v1/media/inputs/${input}`, { method: 'DELETE', role: 'primary' });
        return pending && del.status === 409;
      },
    },
  },
  // state.ts + errors.ts: the same account, a call its balance cannot cover refused 403 (not 429):
  // "403 | not stated | account, model or call policy forbids"; that refusal's status is not stated (RATE-005)
  {
    name: 'runs-out-refused-403',
    readings: ['MJOB-026', 'ERR-001'],
    description:
      'as account-runs-out (a primary account of 50 points), and a call its available points cannot cover is refused 403 insufficient_points (permission_error), not 429',
    probe: {
      run: async ({ ref, balance, createJob, chat }) => {
        if ((await balance(ref)).body.total_points !== '50') return false;
        for (let i = 0; i < 70; i++) await createJob(ref, jobBody('wc-100010'));
        const res = await chat(ref, { max_tokens: 64 });
        return res.status === 403 && res.body.error?.code === 'insufficient_points';
      },
    },
  },
  // routes/models.ts + openapi.ts: "The entry carries: the exact model id, capabilities, context limit and
  // public prices"; the entry's full shape is not shown
  {
    name: 'catalog-pricing-object',
    readings: ['PTS-007', 'MODELS-002', 'MODELS-003'],
    description:
      'each /v1/models entry carries its prices and points_configured in an object of their own, pricing: {request_points_per_million_tokens, response_points_per_million_tokens, points_configured} (described so)',
    openapi: ({ schemas }) => {
      const [text, entry, priced] = schemas.ModelEntry.allOf;
      entry.required = entry.required.filter((f: string) => f !== 'points_configured');
      entry.properties.pricing = {
        allOf: [text, { type: 'object', required: ['points_configured'] }, priced],
      };
      schemas.ModelEntry = { allOf: [entry] };
    },
    probe: {
      request: req.models(),
      holds: (r) => typeof r.body.data[0].pricing?.request_points_per_million_tokens === 'string',
    },
  },
  // routes/models.ts: "The exact field names for id, capabilities and context limit ... are not shown"; an
  // entry's extra field naming another model does not list that model
  {
    name: 'catalog-names-upgrade',
    readings: ['MODELS-004'],
    description:
      "the chat model's catalog entry carries upgrade_model: the id of the forbidden model (the one an enterprise plan offers instead), which the catalog does not list",
    probe: {
      run: async ({ ref, models }) => {
        const entries = (await models(ref)).body.data as Array<Record<string, unknown>>;
        return (
          entries.some((e) => e.upgrade_model === ref.hints.forbidden) &&
          !entries.some((e) => e.id === ref.hints.forbidden)
        );
      },
    },
  },
  // routes/models.ts + openapi.ts: "Price fields are `request_points_per_million_tokens` and
  // `response_points_per_million_tokens`"; an embedding produces no completion tokens to price
  {
    name: 'embedding-prompt-price-only',
    readings: ['PTS-007', 'MODELS-002'],
    description:
      "the embedding model's catalog entry quotes request_points_per_million_tokens alone (points_configured true, no response price: an embedding has no completion), described so",
    openapi: ({ schemas }) => {
      schemas.ModelEntry.allOf[2].then.required = ['request_points_per_million_tokens'];
    },
    probe: {
      run: async ({ ref, models }) => {
        const entry = (await models(ref)).body.data.find((m: { id: string }) => m.id === ref.hints.embedding);
        return (
          entry.request_points_per_million_tokens !== undefined &&
          !('response_points_per_million_tokens' in entry)
        );
      },
    },
  },
  // state.ts + routes/media-jobs.ts + errors.ts: a 50-point account whose unaffordable jobs are refused 402
  {
    name: 'unaffordable-job-402',
    readings: ['MJOB-026', 'ERR-001'],
    description:
      'as account-runs-out (a primary account of 50 points), but a media job whose quote exceeds the available points is refused at its creation with 402 insufficient_points (as is any call it cannot cover), never left settlement_pending (described so)',
    openapi: ({ paths, errorResponse }) => {
      for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/embeddings', '/v1/media/jobs'])
        paths[path].post.responses['402'] = errorResponse('402');
    },
    probe: {
      run: async ({ ref, balance, createJob }) => {
        if ((await balance(ref)).body.total_points !== '50') return false;
        for (let i = 0; i < 70; i++) {
          const res = await createJob(ref, jobBody('wc-100010'));
          if (res.status !== 200 && res.status !== 201) return res.status === 402;
        }
        return false;
      },
    },
  },
  // billing.ts chargeOf: "Price fields are `request_points_per_million_tokens` and ..."; no rounding is stated
  {
    name: 'charge-rounded-up',
    readings: ['PTS-007'],
    description:
      'every chat, responses and embeddings call is charged its exact price rounded up to 0.01 points (a call of a few tokens costs 0.01), in billing, usage, ledger and balance alike',
    probe: {
      run: async ({ ref, chat }) =>
        (await chat(ref, { max_tokens: 16 })).body.billing.charged_points === '0.01',
    },
  },
  // legacy.ts + openapi.ts: "selects the legacy amount fields"; their names and the reply's media type are not shown
  {
    name: 'legacy-credits-json',
    readings: ['PTS-004', 'LEGACY-001'],
    description:
      'the legacy currency format names its amounts the older *_credits way (total_credits, charged_credits, amount_credits, ...) and is sent as application/json (described so)',
    probe: {
      run: async ({ ref, call }) => {
        const res = await call(ref, '/v1/balance', { role: 'primary', headers: LEGACY });
        return (
          res.body.total_credits !== undefined &&
          res.headers.get('content-type')?.startsWith('application/json') === true
        );
      },
    },
  },
  // legacy.ts + billing.ts: both readings at once, "Studio metering fields keep the older `*_credits`
  // names" and legacy amounts named the older *_credits way: a chat record's legacy name is one a job's
  // plain record already uses
  {
    name: 'legacy-credits-studio',
    readings: ['PTS-004', 'LEGACY-001'],
    description:
      "legacy-credits-json and usage-studio-credits at once: a media job's usage record states charged_credits, and the legacy format names a chat record's charge charged_credits too",
    probe: {
      run: async ({ ref, succeededJob, call }) => {
        await succeededJob(ref, 'wc-100010');
        const records = (await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<
          Record<string, unknown>
        >;
        const res = await call(ref, '/v1/balance', { role: 'primary', headers: LEGACY });
        return (
          records.some((r) => r.job_id !== undefined && 'charged_credits' in r) &&
          res.body.total_credits !== undefined
        );
      },
    },
  },
  // routes/balance.ts + openapi.ts: "the unit is `service_points`" is the unit of points, not of everything
  {
    name: 'balance-storage-unit',
    readings: ['PTS-003'],
    description:
      "the balance also carries the account's input space, storage: {limit: 10737418240, unit: bytes} (described so)",
    probe: { request: req.balance(), holds: (r) => r.body.storage?.unit === 'bytes' },
  },
  // --- budget ---
  // billing.ts + media/view.ts + openapi.ts: no billable reply reports its spend (only the balance shows it)
  {
    name: 'spend-unreported',
    readings: ['PTS-005'],
    description:
      'inference replies carry no billing object and media job replies no points fields (the MediaJob table lists none; the balance and ledger show the spend)',
    openapi: ({ schemas }) => jobPointsUndescribed(schemas),
    probe: {
      run: async ({ ref, chat, createJob }) =>
        !('billing' in (await chat(ref)).body) &&
        !('pending_points' in (await createJob(ref, jobBody('wc-100010'))).body),
    },
  },
] as const satisfies readonly Variant[];
