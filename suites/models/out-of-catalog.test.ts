import {
  answeredCause,
  type CheckContext,
  check,
  controlAccepted,
  entryId,
  entryIds,
  expectStatus,
  type ForbiddenHint,
  findCatalog,
  type HttpResponse,
  isClientError,
  isSuccess,
  readWholeList,
} from '../../src/suite/index.ts';
import { ACK, besideAnyJob, PROMPT, postJob } from '../media/support.ts';

/** The model calls of the contract other than media jobs, each with a minimal body for a model id. */
const CALLS: Array<{
  path: string;
  name: string;
  /** The model hint the call takes. */
  hint: 'chat' | 'responses' | 'embedding';
  /** A model of that type outside the primary account's catalog (the hint the target declares). */
  forbidden: ForbiddenHint;
  body: (model: string) => Record<string, unknown>;
}> = [
  {
    path: '/v1/chat/completions',
    name: 'chat',
    hint: 'chat',
    forbidden: 'forbidden',
    body: (model) => ({ model, messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 1 }),
  },
  {
    path: '/v1/responses',
    name: 'responses',
    hint: 'responses',
    forbidden: 'forbidden_responses',
    body: (model) => ({ model, input: 'Say ok.', max_output_tokens: 16 }),
  },
  {
    path: '/v1/embeddings',
    name: 'embeddings',
    hint: 'embedding',
    forbidden: 'forbidden_embedding',
    body: (model) => ({ model, input: 'ok' }),
  },
];

// "Only logical models published in the calling account's catalog can be called. A model missing from the
// catalog cannot be called", and "Text and embedding models are listed by `GET /v1/models`": a model a
// call of the key is accepted with is one its catalog lists. A listed model needs no call; one not listed
// is called once, and its refusal agrees.
check(
  { ids: ['MODELS-004'], effect: 'billable' },
  'lists each model a call of the key is accepted with (the chat, responses and embedding models)',
  async (t) => {
    const list = await readWholeList(t, '/v1/models', {}, (e) => entryId(e) !== undefined);
    if (!list) return t.skip('GET /v1/models was not answered 2xx');
    if (list.incomplete) return t.skip(`the catalog was not read whole: ${list.incomplete}`);
    const listed = new Set(list.entries.flatMap(entryIds));
    for (const call of CALLS) {
      const model = await t.hint(call.hint);
      if (listed.has(model)) continue;
      const res = await t.post(call.path, call.body(model));
      if (t.notJudged429(res, `${model} on ${call.name}`)) continue;
      t.ensure(
        !isSuccess(res.status),
        'MODELS-004',
        `${call.name} accepted the model ${model} (${res.status}), which the key's catalog (GET /v1/models, ${list.entries.length} entries in ${list.pages} page(s)) does not list`,
        { received: res.status, expected: `${model} listed, or the call refused`, exchange: res.exchange },
      );
    }
  },
);

const unknownId = (t: CheckContext) => `conformance-no-such-model-${t.run.seed}`;

/**
 * The control of every refusal below: the same call (key, body, streamed or not) with the call's own
 * model of the catalog, accepted first. The refusal that follows then differs from it in the model alone
 * (an unknown id, a media model, a model outside the catalog); a control refused leaves the rule not judged.
 */
async function control(
  t: CheckContext,
  call: (typeof CALLS)[number],
  extra: Record<string, unknown> = {},
): Promise<void> {
  const own = await t.hint(call.hint);
  const opts = extra.stream ? { timeoutMs: t.target.timeouts.streamMs } : {};
  await controlAccepted(t, `POST ${call.path} with ${own}, of the account's catalog`, () =>
    t.post(call.path, { ...call.body(own), ...extra }, opts),
  );
}

/** A model of the call's type outside the primary account's catalog, after the call's control. */
async function forbiddenAfterControl(
  t: CheckContext,
  call: (typeof CALLS)[number],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const forbidden = await t.hint(call.forbidden);
  await control(t, call, extra);
  return forbidden;
}

function notFoundOrForbidden(t: CheckContext, res: HttpResponse, what: string): void {
  if (t.notJudged429(res, what)) return;
  expectStatus(t, res, 'MODEL-003', [403, 404], what, { expected: '404 (or 403)' });
}

for (const call of CALLS) {
  check(
    { ids: ['MODEL-003'], effect: 'billable' },
    `refuses a model id that no catalog lists on ${call.name}`,
    async (t) => {
      await control(t, call);
      const res = await t.post(call.path, call.body(unknownId(t)));
      notFoundOrForbidden(t, res, `POST ${call.path} with a model id no catalog lists`);
    },
  );
}

// "model ... exact catalog id" / "exact embedding model id": the model the call takes, in capitals, is an
// id no catalog lists (unless the account's catalog lists that spelling too): a lookup that ignores case
// answers it.
for (const call of CALLS) {
  check(
    { ids: ['MODEL-003'], effect: 'billable' },
    `refuses the id of its ${call.hint} model in capitals on ${call.name}`,
    async (t) => {
      const id = await t.hint(call.hint);
      const upper = id.toUpperCase();
      if (upper === id) return t.skip(`the ${call.hint} model id ${id} has no lower-case letter to change`);
      const models = await t.get('/v1/models');
      const listed = isSuccess(models.status)
        ? findCatalog(models.json)?.entries.flatMap(entryIds)
        : undefined;
      if (!listed)
        return t.skip(
          `the catalog cannot tell whether ${upper} is listed (GET /v1/models answered ${models.status})`,
          answeredCause('GET', '/v1/models', models.status),
        );
      if (listed.includes(upper)) return t.skip(`the account's catalog lists ${upper} as a model of its own`);
      await control(t, call);
      const res = await t.post(call.path, call.body(upper));
      notFoundOrForbidden(
        t,
        res,
        `POST ${call.path} with ${upper}, the ${call.hint} model ${id} in capitals`,
      );
    },
  );
}

// The same refusal when the reply would be streamed ("With `stream` true the reply is streamed").
for (const call of CALLS.filter((c) => c.name !== 'embeddings')) {
  check(
    { ids: ['MODEL-003'], effect: 'billable' },
    `refuses a model id that no catalog lists on ${call.name}, streamed`,
    async (t) => {
      await control(t, call, { stream: true });
      const res = await t.post(
        call.path,
        { ...call.body(unknownId(t)), stream: true },
        { timeoutMs: t.target.timeouts.streamMs },
      );
      notFoundOrForbidden(t, res, `a streamed POST ${call.path} with a model id no catalog lists`);
    },
  );
}

check(
  { ids: ['MODEL-003'], effect: 'billable' },
  'refuses a media job whose model no catalog lists',
  async (t) => {
    const what = 'POST /v1/media/jobs with a model id no catalog lists';
    besideAnyJob(t);
    const res = await postJob(
      t,
      { model: unknownId(t), prompt: PROMPT, parameters: { [ACK]: true } },
      { refusal: true },
    );
    if (t.notJudged429(res, what)) return;
    if (isSuccess(res.status) || res.status >= 500) return notFoundOrForbidden(t, res, what);
    t.observe('MODEL-003', res.exchange);
    // "model ... must be one of the exact ids in the table below and in the account's media catalog" is
    // also a parameter rule of MediaJobCreate (MJOB-044 accepts any 4xx): another 4xx is advisory here.
    if (![403, 404].includes(res.status))
      t.violate('MODEL-003', `${what} was refused with ${res.status}, not 404 or 403 ("wrong model id")`, {
        level: 'notable',
        received: res.status,
        expected: '404 (or 403)',
        exchange: res.exchange,
      });
  },
);

/**
 * A model of the account's media catalog, or why there is none (the test is then not run): "wrong
 * endpoint type (media model sent to chat)" needs one.
 */
async function mediaModel(t: CheckContext): Promise<string> {
  const media = await t.get('/v1/media/models');
  const list = isSuccess(media.status) ? findCatalog(media.json) : undefined;
  // One the text catalog does not list too (such a model would not be the wrong type there).
  const text = await t.get('/v1/models');
  const textIds = new Set(findCatalog(text.json)?.entries.flatMap(entryIds) ?? []);
  const id = list?.entries.map(entryId).find((v): v is string => typeof v === 'string' && !textIds.has(v));
  if (!id)
    return t.skip(
      `the account's media catalog lists no model that the text catalog does not list too (GET /v1/media/models answered ${media.status})`,
      isSuccess(media.status) ? undefined : answeredCause('GET', '/v1/media/models', media.status),
    );
  return id;
}

/**
 * A model of the wrong endpoint type refused: 404, the status the row gives ("| 404 | ... wrong endpoint
 * type (media model sent to chat)"). On /v1/responses a second rule meets the same call: it is "only for
 * models whose catalog entry marks native responses support", with no status (RSP-002: any 4xx), and
 * which check comes first is not shown; there another 4xx is one reading of the two, advisory.
 */
function wrongEndpointType(t: CheckContext, res: HttpResponse, call: string, what: string): void {
  if (call === 'responses' && isClientError(res.status) && res.status !== 404) {
    t.violate(
      'MODEL-004',
      `${what} was refused ${res.status}, not 404 (wrong endpoint type): allowed as a model without native responses support (RSP-002, no status stated)`,
      { expected: 404, received: res.status, exchange: res.exchange, level: 'notable' },
    );
    return;
  }
  expectStatus(t, res, 'MODEL-004', 404, what);
}

// "| 404 | ... wrong endpoint type (media model sent to chat)": a media model is the wrong type on every
// text call, not only chat, streamed or not.
for (const call of CALLS) {
  check(
    { ids: ['MODEL-004'], effect: 'billable' },
    `refuses a media model sent to ${call.name} with 404`,
    async (t) => {
      const id = await mediaModel(t);
      await control(t, call);
      const res = await t.post(call.path, call.body(id));
      if (t.notJudged429(res, `the media model ${id} sent to ${call.name}`)) return;
      wrongEndpointType(t, res, call.name, `the media model ${id} sent to ${call.name}`);
    },
  );
}
for (const call of CALLS.filter((c) => c.name !== 'embeddings')) {
  check(
    { ids: ['MODEL-004'], effect: 'billable' },
    `refuses a media model sent to ${call.name} with 404, streamed`,
    async (t) => {
      const id = await mediaModel(t);
      await control(t, call, { stream: true });
      const what = `the media model ${id} sent to ${call.name}, streamed`;
      const res = await t.post(
        call.path,
        { ...call.body(id), stream: true },
        { timeoutMs: t.target.timeouts.streamMs },
      );
      if (t.notJudged429(res, what)) return;
      wrongEndpointType(t, res, call.name, what);
    },
  );
}

// "| 404 | ... wrong endpoint type ...": the embedding model (of the account's catalog) is the wrong type
// on chat and responses as a media model is, and the row gives its status.
for (const call of CALLS.filter((c) => c.name !== 'embeddings')) {
  check(
    { ids: ['MODEL-004'], effect: 'billable' },
    `refuses the embedding model sent to ${call.name} with 404 (wrong endpoint type)`,
    async (t) => {
      const embedding = await t.hint('embedding');
      // A catalog that shows the embedding model able to answer this call makes it no wrong type here.
      const models = await t.get('/v1/models');
      const entry = findCatalog(models.json)?.entries.find((e) => entryIds(e).includes(embedding));
      if (!isSuccess(models.status) || entry === undefined)
        return t.skip(
          `the catalog does not list the embedding model ${embedding} (GET /v1/models: ${models.status})`,
        );
      if (new RegExp(call.name === 'chat' ? 'chat|completion' : 'responses', 'i').test(JSON.stringify(entry)))
        return t.skip(`the catalog shows the embedding model ${embedding} answering ${call.name}`);
      await control(t, call);
      const what = `the embedding model ${embedding} sent to ${call.name}`;
      const res = await t.post(call.path, call.body(embedding));
      if (t.notJudged429(res, what)) return;
      wrongEndpointType(t, res, call.name, what);
    },
  );
}

// "Model visibility and call permission follow the account; an unauthorised model gives 403": on every
// model call, with a model of the call's own type.
for (const call of CALLS) {
  check(
    { ids: ['MODEL-002'], effect: 'billable' },
    `refuses a model outside the account catalog with 403 on ${call.name}`,
    async (t) => {
      const forbidden = await forbiddenAfterControl(t, call);
      const res = await t.post(call.path, call.body(forbidden));
      if (t.notJudged429(res, `${forbidden} on ${call.name}`)) return;
      expectStatus(
        t,
        res,
        'MODEL-002',
        403,
        `POST ${call.path} with ${forbidden}, outside the account's catalog,`,
      );
    },
  );
}

for (const call of CALLS) {
  check(
    { ids: ['MODELS-004'], effect: 'billable' },
    `refuses a model outside the account catalog on ${call.name}`,
    async (t) => {
      const forbidden = await forbiddenAfterControl(t, call);
      const res = await t.post(call.path, call.body(forbidden));
      const what = `POST ${call.path} with ${forbidden}, outside the account's catalog`;
      expectStatus(t, res, 'MODELS-004', '4xx', what, {
        expected: 'a 4xx refusal (403 for an unauthorised model)',
      });
    },
  );
}
// "An empty list means the key is valid but the account has no effective model" and "A model missing
// from the catalog cannot be called": the `no_models` account calls the model the primary catalog lists
// (accepted there first, the control), on each model call; refused, with 403 ("an unauthorised model").
for (const call of CALLS) {
  check(
    { ids: ['MODELS-004', 'MODEL-002'], effect: 'billable', roles: ['no_models'] },
    `refuses every model on ${call.name} for an account whose catalog is empty`,
    async (t) => {
      const model = await t.hint(call.hint);
      const catalog = await t.get('/v1/models', { as: 'no_models' });
      const listed = isSuccess(catalog.status)
        ? findCatalog(catalog.json)?.entries.flatMap(entryIds)
        : undefined;
      if (!listed)
        return t.skip(
          `the no_models account's catalog cannot be read (GET /v1/models answered ${catalog.status})`,
          answeredCause('GET', '/v1/models', catalog.status),
        );
      // An account whose catalog lists it is no empty catalog (MODELS-005 judges that): nothing to judge.
      if (listed.includes(model)) return t.skip(`the no_models account's catalog lists ${model}`);
      await control(t, call);
      const res = await t.post(call.path, call.body(model), { as: 'no_models' });
      const what = `POST ${call.path} with ${model} by an account whose catalog is empty`;
      if (t.notJudged429(res, what)) return;
      expectStatus(t, res, 'MODELS-004', '4xx', what, {
        expected: 'a 4xx refusal (403 for an unauthorised model)',
      });
      expectStatus(t, res, 'MODEL-002', 403, `${what},`);
    },
  );
}

// Streamed, the same call: refused (MODELS-004), with 403 (MODEL-002: "an unauthorised model gives 403").
for (const call of CALLS.filter((c) => c.name !== 'embeddings')) {
  check(
    { ids: ['MODELS-004', 'MODEL-002'], effect: 'billable' },
    `refuses a model outside the account catalog on ${call.name}, streamed`,
    async (t) => {
      const forbidden = await forbiddenAfterControl(t, call, { stream: true });
      const res = await t.post(
        call.path,
        { ...call.body(forbidden), stream: true },
        { timeoutMs: t.target.timeouts.streamMs },
      );
      const what = `a streamed POST ${call.path} with ${forbidden}, outside the account's catalog`;
      if (t.notJudged429(res, what)) return;
      expectStatus(t, res, 'MODELS-004', '4xx', what, {
        expected: 'a 4xx refusal (403 for an unauthorised model)',
      });
      expectStatus(t, res, 'MODEL-002', 403, `${what},`);
    },
  );
}
