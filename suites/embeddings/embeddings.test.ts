import {
  type CheckContext,
  caseTableChecks,
  check,
  controlAccepted,
  documentedViolations,
  entryIds,
  expectStatus,
  fieldPropertyChecks,
  findCatalog,
  isPlainObject,
  isSuccess,
  judgeNamedModel,
  rules,
} from '../../src/suite/index.ts';

const PATH = '/v1/embeddings';

async function base(t: CheckContext): Promise<Record<string, unknown>> {
  return { model: await t.hint('embedding'), input: 'conformance' };
}

check(
  { ids: ['EMB-001', 'MODEL-001'], effect: 'billable' },
  'answers with an EmbeddingList of 1024 floats for the requested model',
  async (t) => {
    const body = await base(t);
    const res = await t.post(PATH, body);
    if (
      !t.ensure(
        isSuccess(res.status) && isPlainObject(res.json),
        'EMB-001',
        `a valid embedding request was answered ${res.status}`,
        {
          received: `${res.status} ${res.mediaType ?? ''}`,
          expected: '2xx application/json',
          exchange: res.exchange,
        },
      )
    ) {
      return;
    }
    documentedViolations(t, res, 'embedding-list.json', () => 'EMB-001');
    const json = res.json as { model?: unknown; data?: Array<{ embedding?: unknown }> };
    for (const [i, d] of (json.data ?? []).entries()) {
      const e = d?.embedding;
      t.ensure(
        Array.isArray(e) &&
          e.length === rules.EMBEDDING_DIMENSIONS &&
          e.every((x) => typeof x === 'number' && Number.isFinite(x)),
        'EMB-001',
        `data[${i}].embedding holds ${Array.isArray(e) ? e.length : 'no'} numbers, not 1024 floats`,
        {
          pointer: `/data/${i}/embedding`,
          received: Array.isArray(e) ? e.length : typeof e,
          expected: 1024,
          exchange: res.exchange,
        },
      );
    }
    judgeNamedModel(t, String(body.model), json.model, 'the reply', res.exchange, '/model');
  },
);

caseTableChecks({ table: 'embeddings', effect: 'billable', path: PATH, base });

// "| model | string | yes | exact embedding model id |": the chat model is a catalog id but not an
// embedding model's. 404 is the error table's "wrong endpoint type"; the code and status of another
// refusal are not stated for this cause, so any 4xx refusal passes; an answer fails.
check(
  { ids: ['EMB-006'], effect: 'billable' },
  'refuses a chat model, which is no embedding model id',
  async (t) => {
    const chat = await t.hint('chat');
    if (chat === (await t.hint('embedding')))
      return t.skip(`the chat and embedding hints name the same model ${chat}`);
    // A model may have several capabilities, under field names not shown: an entry that mentions
    // embeddings at all may be an embedding model too.
    const models = await t.get('/v1/models');
    const entry = findCatalog(models.json)?.entries.find((e) => entryIds(e).includes(chat));
    if (!isSuccess(models.status) || entry === undefined || /embed/i.test(JSON.stringify(entry)))
      return t.skip(
        `the catalog does not show ${chat} as a model without embeddings (GET /v1/models: ${models.status})`,
      );
    // Its control: the same request with the embedding model, accepted (the refusal is for the type alone).
    const embedding = await t.hint('embedding');
    await controlAccepted(t, `an embedding request for the embedding model ${embedding}`, () =>
      t.post(PATH, { model: embedding, input: 'conformance' }),
    );
    const res = await t.post(PATH, { model: chat, input: 'conformance' });
    expectStatus(t, res, 'EMB-006', '4xx', `an embedding request for the chat model ${chat}`);
  },
);

fieldPropertyChecks({
  effect: 'billable',
  path: PATH,
  base,
  fields: [
    {
      id: 'EMB-003',
      field: 'input',
      arbitrary: rules.embeddingInput(),
      examples: rules.embeddingInputExamples(),
    },
    {
      id: 'EMB-004',
      field: 'dimensions',
      arbitrary: rules.dimensions(),
      examples: rules.dimensionsExamples(),
    },
  ],
});
