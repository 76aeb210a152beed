import {
  accepted,
  type CheckContext,
  check,
  isSuccess,
  parseSse,
  terminalEventProblems,
} from '../../src/suite.ts';

const PATH = '/v1/responses';

async function stream(t: CheckContext) {
  const model = await t.hint('responses');
  const ms = t.target.timeouts.streamMs;
  try {
    return await t.post(
      PATH,
      { model, input: 'Say ok.', max_output_tokens: 8, stream: true },
      { timeoutMs: ms },
    );
  } catch (err) {
    if ((err as { code?: string }).code !== 'TIMEOUT') throw err;
    t.violate('RSP-006', `the responses stream did not end within ${ms} ms`);
    return t.abort();
  }
}

check(
  { ids: ['RSP-001', 'MODEL-001'], effect: 'billable' },
  'answers a model with native responses support',
  async (t) => {
    const model = await t.hint('responses');
    const res = await t.post(PATH, { model, input: 'Say ok.', max_output_tokens: 8 });
    const ok = accepted(t, res, 'RSP-001', `a responses call for ${model}`);
    const named = (res.json as { model?: unknown } | undefined)?.model;
    if (ok && named !== undefined) {
      t.ensure(named === model, 'MODEL-001', `requested ${model}, the reply names ${JSON.stringify(named)}`, {
        pointer: '/model',
        received: named,
        expected: model,
        exchange: res.exchange,
      });
    }
  },
);

check(
  { ids: ['RSP-002'], effect: 'billable' },
  'refuses a model without native responses support',
  async (t) => {
    const model = await t.hint('no_responses');
    const res = await t.post(PATH, { model, input: 'Say ok.', max_output_tokens: 8 });
    t.ensure(
      t.refusal(res, `a responses call for ${model}`),
      'RSP-002',
      `a responses call for ${model}, which lacks native responses support, was answered ${res.status}`,
      {
        received: res.status,
        expected: 'a 4xx refusal',
        exchange: res.exchange,
      },
    );
  },
);

check({ ids: ['RSP-003'], effect: 'billable' }, 'streams as text/event-stream', async (t) => {
  const res = await stream(t);
  t.ensure(
    isSuccess(res.status) && res.mediaType === 'text/event-stream',
    'RSP-003',
    `a streamed responses call answered ${res.status} ${res.mediaType ?? '(no content type)'}`,
    {
      received: res.mediaType ?? null,
      expected: 'text/event-stream',
      exchange: res.exchange,
    },
  );
});

check(
  { ids: ['RSP-004', 'RSP-005', 'RSP-006'], effect: 'billable' },
  'names every event, carries text in deltas and ends with one terminal event',
  async (t) => {
    const res = await stream(t);
    if (!isSuccess(res.status)) return t.skip(`the streamed call was answered ${res.status} (see RSP-001)`);
    const events = parseSse(res.text);
    if (
      !t.ensure(events.length > 0, 'RSP-004', 'the stream holds no event', {
        received: res.exchange.responseBody?.preview,
        exchange: res.exchange,
      })
    )
      return;
    events.forEach((e, i) => {
      t.ensure(!!e.event, 'RSP-004', `event #${i} has no event name`, {
        received: e.data.slice(0, 120),
        exchange: res.exchange,
      });
      t.ensure(e.data.length > 0, 'RSP-004', `event #${i} (${e.event ?? 'unnamed'}) has no data`, {
        exchange: res.exchange,
      });
    });
    const deltas = events.filter((e) => e.event === 'response.output_text.delta');
    for (const d of deltas) {
      let text: unknown = d.data;
      try {
        const parsed = JSON.parse(d.data) as unknown;
        text =
          typeof parsed === 'string'
            ? parsed
            : (JSON.stringify(parsed).match(/"(?:delta|text)"\s*:\s*"((?:[^"\\]|\\.)*)"/)?.[1] ??
              (parsed && typeof parsed === 'object' ? JSON.stringify(parsed) : parsed));
      } catch {
        // plain-text data: the increment itself
      }
      t.ensure(
        typeof text === 'string' && text.length > 0,
        'RSP-005',
        'a response.output_text.delta event carries no text',
        { received: d.data, exchange: res.exchange },
      );
    }
    for (const p of terminalEventProblems(events))
      t.violate('RSP-006', p.message, { ...p, exchange: res.exchange });
  },
);
