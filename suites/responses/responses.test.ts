import {
  type CheckContext,
  caseTableChecks,
  check,
  expectStatus,
  isSuccess,
  parseSse,
  TERMINAL_EVENTS,
  terminalEventProblems,
} from '../../src/suite/index.ts';

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
    const ok = expectStatus(t, res, 'RSP-001', '2xx', `a responses call for ${model}`);
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
    expectStatus(t, res, 'RSP-002', '4xx', `a responses call for ${model} (no native responses support)`);
  },
);

check(
  { ids: ['RSP-003', 'RSP-090'], effect: 'billable' },
  'streams as text/event-stream, event by event',
  async (t) => {
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
  },
);

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
    const increments: string[] = [];
    for (const d of deltas) {
      t.observe('RSP-005', res.exchange);
      const text = incrementOf(d.data);
      if (text !== undefined) increments.push(text);
      else
        t.violate('RSP-005', 'a response.output_text.delta event carries no text increment', {
          received: d.data,
          expected: 'a string increment (a zero-length one counts)',
          exchange: res.exchange,
        });
    }
    const final = events.find((e) => TERMINAL_EVENTS.includes(e.event ?? ''));
    if (
      increments.length > 0 &&
      increments.every((s) => s === '') &&
      final &&
      /"text"\s*:\s*"[^"]/.test(final.data)
    )
      t.violate(
        'RSP-005',
        `all ${increments.length} delta events carry zero-length increments while the reply has text`,
        {
          level: 'notable',
          received: deltas.map((d) => d.data).slice(0, 3),
          exchange: res.exchange,
        },
      );
    t.observe('RSP-006', res.exchange);
    for (const p of terminalEventProblems(events))
      t.violate('RSP-006', p.message, { ...p, exchange: res.exchange });
  },
);

caseTableChecks({
  table: 'responses',
  effect: 'billable',
  path: PATH,
  base: async (t) => ({ model: await t.hint('responses'), input: 'Say ok.', max_output_tokens: 8 }),
});
/**
 * The text increment of a delta event's data, or undefined when it carries none. The data's shape is not
 * shown: a JSON string, a JSON object with a string `delta` or `text` field (or any other object), or
 * plain text. A zero-length increment is still an increment (judging.md).
 */
function incrementOf(data: string): string | undefined {
  if (data === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return data;
  }
  if (typeof parsed === 'string') return parsed;
  if (!parsed || typeof parsed !== 'object') return undefined;
  const field = JSON.stringify(parsed).match(/"(?:delta|text)"\s*:\s*"((?:[^"\\]|\\.)*)"/)?.[1];
  return field !== undefined ? (JSON.parse(`"${field}"`) as string) : JSON.stringify(parsed);
}
