import {
  type CheckContext,
  caseTableChecks,
  check,
  expectStatus,
  type HttpResponse,
  isSuccess,
  parseSse,
  TERMINAL_EVENTS,
  terminalEventProblems,
} from '../../src/suite/index.ts';

const PATH = '/v1/responses';

/**
 * RSP-006 on a stream a test met ("The stream ends with one of response.completed, response.incomplete,
 * response.failed"): exactly one terminal event, and it is the last (terminalEventProblems), in each test
 * that reads a stream's end, not only the terminal-event test.
 */
function endsWithOneTerminal(t: CheckContext, res: HttpResponse, events: ReturnType<typeof parseSse>): void {
  t.observe('RSP-006', res.exchange);
  for (const p of terminalEventProblems(events))
    t.violate('RSP-006', p.message, { ...p, exchange: res.exchange });
}

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

// RESP-003: the stream, event by event, against the itemSchema a 3.2 description gives it.
check(
  { ids: ['RSP-003', 'RSP-090', 'RESP-003'], effect: 'billable' },
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
    // One finding per fault of the stream, not per event: its count and first event are the evidence.
    const unnamed = events.flatMap((e, i) => (e.event ? [] : [i]));
    const empty = events.flatMap((e, i) => (e.data.length > 0 ? [] : [i]));
    t.ensure(unnamed.length === 0, 'RSP-004', 'events of the stream have no event name', {
      received: {
        events: `${unnamed.length} of ${events.length}`,
        first: events[unnamed[0]!]?.data.slice(0, 120),
      },
      exchange: res.exchange,
    });
    t.ensure(empty.length === 0, 'RSP-004', 'events of the stream have no data', {
      received: {
        events: `${empty.length} of ${events.length}`,
        first: `#${empty[0]} (${events[empty[0]!]?.event ?? 'unnamed'})`,
      },
      exchange: res.exchange,
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
    endsWithOneTerminal(t, res, events);
  },
);

/** Caps tried in turn for a stream that ends before its cap: the larger is sent only when the smaller was reached. */
const NATURAL_CAPS = [256, 2048];

/** The text a stream's deltas carry, in UTF-8 bytes: a token encodes one byte at least. */
const textBytes = (events: ReturnType<typeof parseSse>): number =>
  events
    .filter((e) => e.event === 'response.output_text.delta')
    .reduce((n, e) => n + Buffer.byteLength(incrementOf(e.data) ?? ''), 0);

/** The reason a response.incomplete event's data names (`incomplete_details.reason`), if any. */
function incompleteReason(data: string): string | undefined {
  try {
    const d = JSON.parse(data) as { response?: { incomplete_details?: { reason?: unknown } } };
    const reason = d.response?.incomplete_details?.reason;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}

// "response.incomplete" is a reply cut short: a stream whose text is shorter (in UTF-8 bytes, so in
// tokens) than its max_output_tokens was not cut by its cap, and ends response.completed (or
// response.failed). The cap is raised until a reply ends before it, within NATURAL_CAPS.
check(
  { ids: ['RSP-006'], effect: 'billable' },
  'ends a stream whose reply stops before its cap with response.completed',
  async (t) => {
    const model = await t.hint('responses');
    for (const cap of NATURAL_CAPS) {
      const res = await t.post(
        PATH,
        { model, input: 'Say ok.', max_output_tokens: cap, stream: true },
        { timeoutMs: t.target.timeouts.streamMs },
      );
      if (!isSuccess(res.status)) return t.skip(`the streamed call was answered ${res.status} (see RSP-001)`);
      const events = parseSse(res.text);
      const bytes = textBytes(events);
      if (bytes >= cap) continue;
      // This stream's own end first: a natural end without a terminal event breaks RSP-006 here (a reply
      // that is no event stream is RSP-003's, judged by its own test, as a capture's rules leave it).
      if (res.mediaType === 'text/event-stream') endsWithOneTerminal(t, res, events);
      const terminal = events.filter((e) => TERMINAL_EVENTS.includes(e.event ?? '')).at(-1);
      if (!terminal) return;
      const reason = terminal.event === 'response.incomplete' ? incompleteReason(terminal.data) : undefined;
      // An incomplete reply for another stated cause (a content filter) is not a cut by the cap.
      if (reason !== undefined && reason !== 'max_output_tokens')
        return t.skip(`the reply was incomplete: ${reason}`);
      t.ensure(
        terminal.event !== 'response.incomplete',
        'RSP-006',
        `a stream whose reply (${bytes} bytes of text) ended before its cap of ${cap} output tokens ended response.incomplete`,
        {
          received: terminal.data.slice(0, 300),
          expected: 'response.completed (the reply was not cut by max_output_tokens)',
          exchange: res.exchange,
        },
      );
      return;
    }
    return t.skip(
      `no stream ended before its cap (max_output_tokens ${NATURAL_CAPS.join(', then ')}): a natural end was not reached`,
    );
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
