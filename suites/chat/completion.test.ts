import {
  type CheckContext,
  capabilityWords,
  check,
  documentedViolations,
  entryId,
  expectStatus,
  findCatalog,
  isPlainObject,
  isProblem,
  isSuccess,
  judgeNamedModel,
  tokenJudgements,
} from '../../src/suite/index.ts';

const PATH = '/v1/chat/completions';

async function chat(t: CheckContext, model?: string, extra: Record<string, unknown> = {}) {
  const m = model ?? (await t.hint('chat'));
  return {
    model: m,
    res: await t.post(PATH, {
      model: m,
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 2,
      ...extra,
    }),
  };
}

const idForPointer = (p: string) =>
  p.startsWith('/choices') ? 'CHAT-002' : p.startsWith('/usage') ? 'CHAT-003' : 'CHAT-001';

check(
  { ids: ['CHAT-001', 'CHAT-002', 'CHAT-003'], effect: 'billable' },
  'answers a valid request with a ChatCompletion',
  async (t) => {
    const { res } = await chat(t);
    if (
      !t.ensure(
        res.status === 200 && isPlainObject(res.json),
        'CHAT-001',
        'a valid chat request was not answered 200 with a JSON object',
        {
          received: `${res.status} ${res.mediaType ?? ''}`,
          expected: '200 application/json',
          exchange: res.exchange,
        },
      )
    ) {
      return;
    }
    documentedViolations(t, res, 'chat-completion.json', idForPointer);
  },
);

check(
  { ids: ['CHAT-004'], effect: 'billable' },
  'reports total_tokens as prompt plus completion tokens',
  async (t) => {
    const { res } = await chat(t);
    const u = (res.json as { usage?: Record<string, unknown> } | undefined)?.usage;
    if (!u || ![u.prompt_tokens, u.completion_tokens, u.total_tokens].every(Number.isInteger)) {
      return t.skip('the reply carries no integer usage figures (see CHAT-003)');
    }
    const sum = (u.prompt_tokens as number) + (u.completion_tokens as number);
    t.ensure(
      u.total_tokens === sum,
      'CHAT-004',
      `usage.total_tokens ${u.total_tokens} is not prompt + completion = ${sum}`,
      {
        pointer: '/usage/total_tokens',
        received: u.total_tokens,
        expected: sum,
        exchange: res.exchange,
      },
    );
  },
);

check(
  { ids: ['MODEL-001'], effect: 'billable' },
  'never names another model than the one requested',
  async (t) => {
    for (const hint of ['chat', 'no_responses'] as const) {
      const model = t.target.models[hint] ?? (hint === 'chat' ? await t.hint('chat') : undefined);
      if (!model) continue;
      const { res } = await chat(t, model);
      const named = (res.json as { model?: unknown } | undefined)?.model;
      if (isSuccess(res.status)) judgeNamedModel(t, model, named, 'the reply', res.exchange, '/model');
    }
  },
);

check(
  { ids: ['PTS-005'], effect: 'billable' },
  'reports usage token figures as integers, never as points',
  async (t) => {
    const { res } = await chat(t);
    const u = (res.json as { usage?: Record<string, unknown> } | undefined)?.usage;
    if (!isPlainObject(u)) return t.skip('the reply carries no usage object (see CHAT-003)');
    // The one judgement of token figures (live calls, sequences and captures alike).
    for (const j of tokenJudgements({ usage: u }, 'the chat reply', PATH))
      if (isProblem(j) && j.id === 'PTS-005')
        t.violate(j.id, j.message, { received: j.received, pointer: j.pointer, exchange: res.exchange });
      else if (j?.id === 'PTS-005') t.observe(j.id, res.exchange);
    // Only the token fields "are not points": the usage object is not closed, so a points field beside
    // them is an extra field (variant usage-points-field), worth knowing but no failure.
    for (const k of Object.keys(u)) {
      t.ensure(
        !/_points$|_credits$/.test(k),
        'PTS-005',
        `usage carries a points field ${k}; the contract reports the settlement in billing`,
        {
          pointer: `/usage/${k}`,
          exchange: res.exchange,
          level: 'notable',
        },
      );
    }
  },
);

// RESP-003: the streamed reply, item by item, against the itemSchema a 3.2 description gives it.
check(
  { ids: ['CHAT-010', 'RESP-003'], effect: 'billable' },
  'delivers a streamed reply that ends',
  async (t) => {
    const model = await t.hint('chat');
    const streamMs = t.target.timeouts.streamMs;
    try {
      const res = await t.post(
        PATH,
        { model, messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 2, stream: true },
        { timeoutMs: streamMs },
      );
      t.ensure(
        isSuccess(res.status) && res.body.length > 0,
        'CHAT-010',
        `a streamed chat reply was ${res.status} with ${res.body.length} bytes`,
        {
          received: res.status,
          expected: '2xx with a body',
          exchange: res.exchange,
        },
      );
    } catch (err) {
      if ((err as { code?: string }).code !== 'TIMEOUT') throw err;
      t.violate('CHAT-010', `the streamed chat reply did not end within ${streamMs} ms`);
    }
  },
);

check(
  { ids: ['MODEL-005'], effect: 'billable' },
  'answers chat for every chat model the catalog lists',
  async (t) => {
    const catalog = await t.get('/v1/models');
    const entries = findCatalog(catalog.json)?.entries ?? [];
    // What an entry affirms (capabilityWords, as hint discovery reads it): `supports_chat: false` or a
    // description "not for chat" names no chat model.
    const ids = entries
      .filter((e) => {
        const id = entryId(e);
        const idField = isPlainObject(e) ? Object.keys(e).find((k) => e[k] === id) : undefined;
        return (
          isPlainObject(e) && idField !== undefined && /chat/i.test(capabilityWords(e, idField).join(' '))
        );
      })
      .map(entryId)
      .filter((v): v is string => !!v);
    if (ids.length === 0) return t.skip('no catalog entry is recognisably a chat model');
    for (const id of ids) {
      const { res } = await chat(t, id);
      expectStatus(t, res, 'MODEL-005', '2xx', `a chat call with the listed model ${id}`, {
        level: 'notable',
      });
    }
  },
);
