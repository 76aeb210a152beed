import {
  type CheckContext,
  caseTableChecks,
  check,
  expectStatus,
  type HttpResponse,
  incrementOf,
  isSuccess,
  judgeNamedModel,
  parseSse,
  refusalControl,
  streamEventProblems,
  streamedModel,
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
      { model, input: 'Say ok.', max_output_tokens: 16, stream: true },
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
    const res = await t.post(PATH, { model, input: 'Say ok.', max_output_tokens: 16 });
    const ok = expectStatus(t, res, 'RSP-001', '2xx', `a responses call for ${model}`);
    const named = (res.json as { model?: unknown } | undefined)?.model;
    if (ok) judgeNamedModel(t, model, named, 'the reply', res.exchange, '/model');
  },
);

check(
  { ids: ['RSP-002'], effect: 'billable' },
  'refuses a model without native responses support',
  async (t) => {
    const model = await t.hint('no_responses');
    const res = await t.post(PATH, { model, input: 'Say ok.', max_output_tokens: 16 });
    const refused = expectStatus(
      t,
      res,
      'RSP-002',
      '4xx',
      `a responses call for ${model} (no native responses support)`,
    );
    // Beside the same call for a model with native support, accepted: not an endpoint refusing all.
    if (refused) {
      const native = await t.hint('responses');
      await refusalControl(t, {
        table: 'responses call',
        what: `the same responses call for ${native} (native responses support)`,
        send: () => t.post(PATH, { model: native, input: 'Say ok.', max_output_tokens: 16 }),
      });
    }
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
  { ids: ['RSP-004', 'RSP-005', 'RSP-006', 'MODEL-001'], effect: 'billable' },
  'names every event, carries text in deltas and ends with one terminal event naming the model asked',
  async (t) => {
    const res = await stream(t);
    if (!isSuccess(res.status)) return t.skip(`the streamed call was answered ${res.status} (see RSP-001)`);
    const events = parseSse(res.text);
    // The one judgement of a stream's events (a captured stream gets it too).
    const { judged, problems } = streamEventProblems(events);
    for (const id of judged) t.observe(id, res.exchange);
    for (const p of problems) t.violate(p.id, p.message, { ...p, exchange: res.exchange });
    if (events.length === 0) return;
    endsWithOneTerminal(t, res, events);
    // "it never substitutes another model silently": where the stream's end names a model, it is the one asked.
    const model = await t.hint('responses');
    judgeNamedModel(t, model, streamedModel(events), "the stream's end", res.exchange);
  },
);

/** Caps tried in turn for a stream that ends before its cap: the larger is sent only when the smaller was reached. */
const NATURAL_CAPS = [256, 2048];

/** The text a stream's deltas carry, in UTF-8 bytes: a token encodes one byte at least. */
const textBytes = (events: ReturnType<typeof parseSse>): number =>
  events
    .filter((e) => e.event === 'response.output_text.delta')
    .reduce((n, e) => n + Buffer.byteLength(incrementOf(e.data)), 0);

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

// "response.incomplete" read as a reply cut short: a stream whose text is shorter (in UTF-8 bytes, so in
// tokens) than its max_output_tokens was not cut by its cap, and ends response.completed (or
// response.failed). The cap is raised until a reply ends before it, within NATURAL_CAPS. Notable, not a
// failure: the contract names the three terminal events and says nothing of when each is sent, and a
// model that spends output tokens the stream does not show (reasoning) reaches its cap with little text.
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
          level: 'notable',
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
  base: async (t) => ({ model: await t.hint('responses'), input: 'Say ok.', max_output_tokens: 16 }),
});
