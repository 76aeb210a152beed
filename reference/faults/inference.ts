// Faults and variants of chat completions, responses and embeddings (routes/chat.ts, routes/responses.ts,
// routes/embeddings.ts, inference.ts).
import {
  type Fault,
  jobBody,
  LEGACY,
  type ProbeKit,
  req,
  successAs,
  TERMINALS,
  type Variant,
} from './probe.ts';

/** The places of the media job's replays in the legacy currency format. */
const LEGACY_JOB_PLACES = [
  { id: 'IDEM-003', place: 'POST /v1/media/jobs' },
  { id: 'LEGACY-002', place: 'POST /v1/media/jobs' },
];

/** A probe: a job create with `first` headers, replayed with the same key and `replay` headers, makes a second job. */
const secondJob =
  (first: Record<string, string>, replay: Record<string, string>) =>
  async ({ ref, createJob }: ProbeKit): Promise<boolean> => {
    const body = jobBody('wc-100010');
    const key = `probe-legacy-${Date.now()}-${Math.random()}`;
    const a = await createJob(ref, body, { headers: { 'idempotency-key': key, ...first } });
    const b = await createJob(ref, body, { headers: { 'idempotency-key': key, ...replay } });
    return a.body.id !== b.body.id;
  };

export const INFERENCE_FAULTS = [
  // routes/chat.ts: temperature 2.5 (any value above 2) accepted
  {
    name: 'chat-temperature-lax',
    description: 'chat accepts temperature above 2 (2.5)',
    breaks: ['CHAT-005'],
    probe: { request: req.chat({ temperature: 2.5 }), holds: (r) => r.status === 200 },
  },
  // routes/chat.ts: the inclusive upper bound 2 refused
  {
    name: 'chat-temperature-strict',
    description: 'chat refuses temperature 2.0',
    breaks: ['CHAT-005'],
    probe: { request: req.chat({ temperature: 2 }), holds: (r) => r.status === 400 },
  },
  // routes/chat.ts: the inclusive upper bound 1 of top_p refused
  {
    name: 'chat-top-p-strict',
    description: 'chat refuses top_p 1',
    breaks: ['CHAT-006'],
    probe: { request: req.chat({ top_p: 1 }), holds: (r) => r.status === 400 },
  },
  // routes/chat.ts: top_p never checked
  {
    name: 'chat-top-p-unchecked',
    description: 'chat accepts any top_p',
    breaks: ['CHAT-006'],
    probe: { request: req.chat({ top_p: 1.5 }), holds: (r) => r.status === 200 },
  },
  // routes/chat.ts: negative max_tokens accepted
  {
    name: 'chat-max-tokens-negative',
    description: 'chat accepts max_tokens -1',
    breaks: ['CHAT-007'],
    probe: { request: req.chat({ max_tokens: -1 }), holds: (r) => r.status === 200 },
  },
  // routes/responses.ts: the Idempotency-Key of /v1/responses ignored (a replay executes again)
  {
    name: 'responses-replay-new',
    description: '/v1/responses ignores the Idempotency-Key: a replay executes and charges again',
    // Also under the legacy currency format, which the model-based sequences replay with.
    breaks: ['IDEM-001', 'IDEM-003'],
    places: [{ id: 'IDEM-001', place: 'POST /v1/responses' }],
    probe: {
      run: async ({ ref, call }) => {
        const opts = {
          method: 'POST',
          role: 'primary',
          headers: { 'idempotency-key': 'probe-responses' },
          json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 3 },
        };
        const [a, b] = [await call(ref, '/v1/responses', opts), await call(ref, '/v1/responses', opts)];
        return a.body.id !== b.body.id;
      },
    },
  },
  // routes/chat.ts: max_tokens 0 (the bound itself) refused
  {
    name: 'chat-max-tokens-zero',
    description: 'chat refuses max_tokens 0',
    breaks: ['CHAT-007'],
    probe: { request: req.chat({ max_tokens: 0 }), holds: (r) => r.status !== 200 },
  },
  // routes/chat.ts: a message without content accepted
  {
    name: 'chat-missing-content',
    description: 'chat accepts a message without content',
    breaks: ['CHAT-008'],
    probe: { request: req.chat({ messages: [{ role: 'user' }] }), holds: (r) => r.status === 200 },
  },
  // routes/chat.ts: a message whose content is an array of parts accepted
  {
    name: 'chat-content-parts',
    description: 'chat accepts a message whose content is an array of text parts',
    breaks: ['CHAT-008'],
    probe: {
      request: req.chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Say ok.' }] }] }),
      holds: (r) => r.status === 200,
    },
  },
  // routes/chat.ts: the developer role refused
  {
    name: 'chat-developer-refused',
    description: 'chat refuses a developer message',
    breaks: ['CHAT-011'],
    probe: {
      request: req.chat({ messages: [{ role: 'developer', content: 'Be brief.' }] }),
      holds: (r) => r.status === 400,
    },
  },
  // routes/chat.ts: a request without model is served by the default chat model
  {
    name: 'chat-model-default',
    description: 'a chat request without `model` is answered 200 by the default chat model (tx-chat-1)',
    breaks: ['CHAT-009'],
    probe: { request: req.chat({ model: undefined }), holds: (r) => r.status === 200 },
  },
  // routes/chat.ts: the ChatCompletion has no id (the description still requires it: RESP-003 too)
  {
    name: 'chat-no-id',
    description: 'a (non-streamed) chat reply omits `id`, which the live description still requires',
    breaks: ['CHAT-001', 'RESP-003'],
    probe: { request: req.chat(), holds: (r) => !('id' in r.body) },
  },
  // routes/chat.ts: the upstream's reply role `model` passed through (the description says assistant: RESP-003 too)
  {
    name: 'chat-role-model',
    description: "a (non-streamed) chat reply's message role is `model`, not one of the four roles",
    breaks: ['CHAT-002', 'RESP-003'],
    probe: { request: req.chat(), holds: (r) => r.body.choices[0].message.role === 'model' },
  },
  // routes/chat.ts: tx-chat-2 answers (and is named) when tx-chat-1 is asked
  {
    name: 'chat-model-substituted',
    description: 'a chat reply for tx-chat-1 names tx-chat-2',
    breaks: ['MODEL-001'],
    probe: { run: async ({ ref, chat }) => (await chat(ref)).body.model !== ref.hints.chat },
  },
  // routes/chat.ts: usage.total_tokens = prompt + completion + 1
  {
    name: 'chat-usage-total-off',
    description: 'chat usage.total_tokens is prompt + completion + 1',
    breaks: ['CHAT-004'],
    level: 'implied',
    probe: {
      run: async ({ ref, chat }) => {
        const { usage } = (await chat(ref)).body;
        return usage.total_tokens !== usage.prompt_tokens + usage.completion_tokens;
      },
    },
  },
  // inference.ts: "404 | ... wrong endpoint type (media model sent to chat)"
  {
    name: 'media-model-chat-400',
    description:
      'a media model sent to chat, responses or embeddings is refused 400 invalid_request, not 404',
    breaks: ['MODEL-004'],
    probe: { request: req.chat({ model: 'wc-100010' }), holds: (r) => r.status === 400 },
  },
  // inference.ts: "exact catalog id": a text call's model found whatever its case
  {
    name: 'text-model-case',
    description:
      'chat, responses and embeddings find their model whatever its case: the chat model in capitals is answered as if it were an exact catalog id',
    breaks: ['MODEL-003'],
    probe: {
      request: (t) => req.chat({ model: String(t.hints.chat).toUpperCase() })(t),
      holds: (r) => r.status === 200,
    },
  },
  // inference.ts: "exact embedding model id": /v1/embeddings answers a chat model
  {
    name: 'embeddings-any-text-model',
    description: '/v1/embeddings answers any text model of the catalog, a chat model too',
    breaks: ['EMB-006'],
    probe: {
      request: (t) => req.embedding({ model: t.hints.chat })(t),
      holds: (r) => r.status === 200,
    },
  },
  // routes/chat.ts: a streamed chat skips the parameter checks
  {
    name: 'chat-stream-params-unchecked',
    description: 'a chat request with stream true skips the parameter checks (temperature 2.5 is answered)',
    breaks: ['CHAT-005', 'CHAT-006', 'CHAT-007'],
    probe: { request: req.chat({ temperature: 2.5, stream: true }), holds: (r) => r.status === 200 },
  },
  // routes/chat.ts: a streamed chat takes the upper bounds of temperature and top_p as exclusive
  {
    name: 'chat-stream-bounds-exclusive',
    description:
      'a chat request with stream true refuses temperature 2 and top_p 1 (the inclusive upper bounds); not streamed they are accepted',
    breaks: ['CHAT-005', 'CHAT-006'],
    probe: {
      run: async ({ ref, chat }) =>
        (await chat(ref, { temperature: 2 })).status === 200 &&
        (await chat(ref, { temperature: 2, stream: true })).status === 400,
    },
  },
  // routes/chat.ts: a streamed chat answers a model outside the account's catalog
  {
    name: 'chat-stream-forbidden-callable',
    description: "a streamed chat for a model outside the account's catalog is answered by the chat model",
    // Answered, a streamed call is not refused with 403 either (MODEL-002 streamed).
    breaks: ['MODELS-004', 'MODEL-002'],
    places: [{ id: 'MODELS-004', place: 'POST /v1/chat/completions · form=streamed' }],
    probe: {
      request: (t) => req.chat({ model: t.hints.forbidden, stream: true })(t),
      holds: (r) => r.status === 200,
    },
  },
  // inference.ts: the same on /v1/responses only, and on /v1/embeddings only
  {
    name: 'media-model-responses-400',
    description:
      'a media model and the embedding model sent to /v1/responses are refused 400 invalid_request, not 404',
    breaks: ['MODEL-004'],
    // /v1/responses is "only for models whose catalog entry marks native responses support" (RSP-002, no
    // status): a refusal for that is one of the two readings of the call, advisory (MODEL-004's reading).
    level: 'notable',
    probe: { request: req.responses({ model: 'wc-100010' }), holds: (r) => r.status === 400 },
  },
  {
    name: 'media-model-embeddings-400',
    description: 'a media model sent to /v1/embeddings is refused 400 invalid_request, not 404',
    breaks: ['MODEL-004'],
    places: [{ id: 'MODEL-004', place: 'POST /v1/embeddings' }],
    probe: { request: req.embedding({ model: 'wc-100010' }), holds: (r) => r.status === 400 },
  },
  // inference.ts: "404 | ... wrong model id": an id no catalog lists is refused 400, not 404 (or 403)
  {
    name: 'unknown-model-400',
    description: 'a model id that no catalog lists is refused 400 invalid_request, not 404',
    breaks: ['MODEL-003'],
    probe: { request: req.chat({ model: 'no-such-model' }), holds: (r) => r.status === 400 },
  },
  // routes/chat.ts + openapi.ts: chat usage token counts as strings (described so)
  {
    name: 'usage-tokens-as-strings',
    description: 'chat usage token fields are strings (and described so)',
    // The description's ChatCompletion says strings where the contract says integers: drift (OAS-003);
    // a token count as a decimal string is what PTS-005 rules out ("token fields ... are not points").
    breaks: ['CHAT-003', 'OAS-003', 'PTS-005'],
    openapi: ({ schemas }) => {
      const usage = schemas.ChatCompletion.properties.usage;
      for (const field of Object.keys(usage.properties)) usage.properties[field] = { type: 'string' };
      schemas.ChatCompletionResponse.allOf[1].properties.usage = {
        type: 'object',
        required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
      };
    },
    probe: { request: req.chat(), holds: (r) => typeof r.body.usage.prompt_tokens === 'string' },
  },
  // inference.ts resolveModel: chat and /v1/responses answer the embedding model
  {
    name: 'text-calls-any-embedding-model',
    description: 'chat and /v1/responses answer a call naming the embedding model (the wrong endpoint type)',
    breaks: ['MODEL-004'],
    probe: {
      request: (t) => req.chat({ model: t.hints.embedding })(t),
      holds: (r) => r.status === 200,
    },
  },
  // routes/responses.ts + chat.ts: streams ignore the legacy currency format
  {
    name: 'legacy-stream-points',
    description:
      'a streamed chat or responses reply keeps its points fields under the legacy currency Accept header (the non-streamed ones do not)',
    breaks: ['LEGACY-001'],
    probe: {
      run: async ({ ref, call }) => {
        const r = await call(ref, '/v1/responses', {
          method: 'POST',
          role: 'primary',
          headers: LEGACY,
          json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 2, stream: true },
        });
        return String(r.text ?? '').includes('charged_points');
      },
    },
  },
  // routes/responses.ts: the streamed response's billing.charged_points a JSON number
  {
    name: 'stream-billing-numbers',
    description:
      "the response.completed event's billing.charged_points is a JSON number (non-streamed replies keep strings)",
    breaks: ['PTS-001'],
    probe: {
      run: async ({ ref, call }) => {
        const r = await call(ref, '/v1/responses', {
          method: 'POST',
          role: 'primary',
          json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 50, stream: true },
        });
        return /"charged_points":\d/.test(String(r.text ?? ''));
      },
    },
  },
  // routes/chat.ts: usage carries total_tokens only (and is described so)
  {
    name: 'chat-usage-partial',
    description:
      'chat usage carries total_tokens only, no prompt_tokens nor completion_tokens (described so)',
    breaks: ['CHAT-003'],
    openapi: ({ schemas }) => {
      delete schemas.ChatCompletion.properties.usage.required;
      schemas.ChatCompletionResponse.allOf[1].properties.usage = { type: 'object' };
    },
    probe: { request: req.chat(), holds: (r) => r.body.usage.prompt_tokens === undefined },
  },
  // routes/embeddings.ts: an empty list of embeddings (and described so)
  {
    name: 'embeddings-no-data',
    description: 'an embeddings reply for one input lists no embedding (described so)',
    breaks: ['EMB-001'],
    openapi: ({ schemas }) => {
      delete schemas.EmbeddingList.properties.data.minItems;
    },
    probe: {
      request: req.embed({ model: 'tx-embed-1', input: 'ok' }),
      holds: (r) => r.body.data.length === 0,
    },
  },
  // inference.ts: tx-chat-premium callable from the primary account (still not listed)
  {
    name: 'chat-forbidden-callable',
    description: 'tx-chat-premium answers chat for the primary account, outside its catalog',
    // Streamed too: not refused at all (MODELS-004), not with 403 (MODEL-002).
    breaks: ['MODEL-002', 'MODELS-004'],
    probe: { run: async ({ ref, chat }) => (await chat(ref, { model: ref.hints.forbidden })).status === 200 },
  },
  // routes/responses.ts: a stream's end names another model than the one asked
  {
    name: 'responses-stream-model-substituted',
    description:
      "a streamed /v1/responses reply names `<model>-mini` in its events' response (its end included), not the model asked",
    breaks: ['MODEL-001'],
    probe: {
      run: async ({ ref, events }) =>
        (await events(ref)).some(
          (e) => /^response\.(completed|incomplete)$/.test(e.event ?? '') && /-mini"/.test(e.data),
        ),
    },
  },
  // routes/chat.ts, routes/responses.ts: the idempotency store keeps JSON replies only
  {
    name: 'stream-replay-reexecutes',
    description:
      'a streamed chat or responses call replayed with its Idempotency-Key executes and charges again (the store keeps JSON replies only)',
    breaks: ['IDEM-001'],
    probe: {
      run: async ({ ref, call, chatBody, balance }) => {
        const streamed = () =>
          call(ref, '/v1/chat/completions', {
            method: 'POST',
            role: 'primary',
            headers: { 'idempotency-key': 'probe-stream-key' },
            json: chatBody(ref, { stream: true }),
          });
        await streamed();
        const before = (await balance(ref)).body.total_points;
        await streamed();
        return (await balance(ref)).body.total_points !== before;
      },
    },
  },
  // inference.ts: an empty catalog read as no restriction (an empty allow-list allows all)
  {
    name: 'empty-catalog-calls-all',
    description:
      'an account whose catalog is empty (no_models) may call every model: chat, responses and embeddings answer it',
    breaks: ['MODELS-004', 'MODEL-002'],
    probe: {
      run: async ({ ref, call, chatBody }) =>
        (
          await call(ref, '/v1/chat/completions', {
            method: 'POST',
            role: 'no_models',
            json: chatBody(ref),
          })
        ).status === 200,
    },
  },
  // routes/chat.ts: a streamed chat reply sends its first chunk and never ends
  {
    name: 'chat-stream-never-ends',
    description: 'stream: true sends the first chunk, then keeps the connection open forever',
    breaks: ['CHAT-010'],
    probe: {
      run: async ({ ref, streamEnds, chatBody }) =>
        !(await streamEnds(
          ref,
          '/v1/chat/completions',
          { role: 'primary', json: chatBody(ref, { stream: true }) },
          400,
        )),
    },
  },
  // inference.ts: a model without native responses support accepted on /v1/responses
  {
    name: 'responses-any-model',
    description: 'tx-chat-2 (no native responses support) is accepted on /v1/responses',
    breaks: ['RSP-002'],
    probe: {
      run: async ({ ref, responses }) =>
        (await responses(ref, { model: ref.hints.no_responses })).status === 200,
    },
  },
  // routes/responses.ts: only streamed calls are served (400 is declared, so the description still holds)
  {
    name: 'responses-stream-only',
    description: '/v1/responses refuses a call without stream: true (400 invalid_request)',
    breaks: ['RSP-001'],
    probe: { request: req.responses(), holds: (r) => r.status === 400 },
  },
  // routes/responses.ts: the stream ends without a terminal event
  {
    name: 'responses-no-terminal',
    description: 'a streamed response ends without a terminal event',
    breaks: ['RSP-006'],
    probe: {
      run: async ({ ref, events }) => !(await events(ref)).some((e) => TERMINALS.includes(e.event ?? '')),
    },
  },
  // routes/responses.ts: a reply that ends before its cap has no terminal event (a cut one ends
  // response.incomplete): only a stream that ends naturally shows it
  {
    name: 'responses-no-terminal-natural',
    description: 'a streamed response that ends before its cap has no terminal event',
    breaks: ['RSP-006'],
    probe: {
      run: async ({ ref, responses }) => {
        const text = (await responses(ref, { max_output_tokens: 256, stream: true })).text;
        return (
          text.includes('event: response.output_text.delta') &&
          !/event: response\.(completed|incomplete|failed)/.test(text)
        );
      },
    },
  },
  // routes/responses.ts: response.completed followed by response.failed
  {
    name: 'responses-two-terminals',
    description: 'a streamed response sends response.completed, then response.failed',
    breaks: ['RSP-006'],
    probe: {
      run: async ({ ref, events }) =>
        (await events(ref)).filter((e) => TERMINALS.includes(e.event ?? '')).length === 2,
    },
  },
  // routes/responses.ts + openapi.ts: the stream is served as application/json (described so)
  {
    name: 'responses-json-stream',
    description: 'a streamed response has content-type application/json (and is described so)',
    breaks: ['RSP-003', 'RESP-003'],
    openapi: ({ paths }) => {
      delete paths['/v1/responses'].post.responses['200'].content['text/event-stream'];
    },
    probe: {
      request: req.responses({ stream: true }),
      holds: (r) => r.headers.get('content-type')?.startsWith('application/json') ?? false,
    },
  },
  // routes/responses.ts: data lines without event: lines
  {
    name: 'responses-unnamed-events',
    description: 'streamed response events carry no `event:` names',
    breaks: ['RSP-004', 'RSP-006'],
    probe: { run: async ({ ref, events }) => (await events(ref)).every((e) => e.event === undefined) },
  },
  // routes/responses.ts: delta events with empty data
  {
    name: 'responses-empty-delta',
    description:
      'response.output_text.delta events carry empty data (zero-length plain-text increments) while the completed response has the text',
    breaks: ['RSP-005'],
    level: 'notable',
    probe: {
      run: async ({ ref, events }) =>
        (await events(ref)).some((e) => e.event === 'response.output_text.delta' && e.data === ''),
    },
  },
  // routes/embeddings.ts + openapi.ts: 1023 floats (described so)
  {
    name: 'embed-1023',
    description: 'embeddings have 1023 floats (and the description says 1023)',
    // The description's 1023 contradicts the contract's 1024: drift (OAS-003).
    breaks: ['EMB-001', 'OAS-003'],
    openapi: ({ schemas }) => {
      const item = schemas.EmbeddingList.properties.data.items.properties;
      item.embedding = { ...item.embedding, minItems: 1023, maxItems: 1023 };
    },
    probe: {
      run: async ({ ref, embed }) =>
        (await embed(ref, { model: ref.hints.embedding, input: 'ok' })).body.data[0].embedding.length ===
        1023,
    },
  },
  // routes/embeddings.ts: an input of one character (the minimum length) refused
  {
    name: 'embed-min-2',
    description: 'embeddings refuse an input of one character',
    breaks: ['EMB-003'],
    probe: { request: req.embedding({ input: 'a' }), holds: (r) => !(r.status === 200) },
  },
  // routes/embeddings.ts: an array input accepted
  {
    name: 'embed-array-input',
    description: 'embeddings accept an array of strings as input',
    breaks: ['EMB-003'],
    probe: { request: req.embedding({ input: ['a', 'b'] }), holds: (r) => r.status === 200 },
  },
  // routes/embeddings.ts: unknown request fields accepted
  {
    name: 'embed-unknown-field',
    description: 'embeddings accept unknown request fields',
    breaks: ['EMB-002'],
    probe: { request: req.embedding({ extra: true }), holds: (r) => r.status === 200 },
  },
  // routes/embeddings.ts: dimensions other than 1024 accepted
  {
    name: 'embed-dimensions-lax',
    description: 'embeddings accept dimensions 512',
    breaks: ['EMB-004'],
    probe: { request: req.embedding({ dimensions: 512 }), holds: (r) => r.status === 200 },
  },
  // routes/embeddings.ts: encoding_format base64 accepted
  {
    name: 'embed-encoding-lax',
    description: 'embeddings accept encoding_format base64',
    breaks: ['EMB-005'],
    probe: { request: req.embedding({ encoding_format: 'base64' }), holds: (r) => r.status === 200 },
  },
  // routes/embeddings.ts: a request without model accepted (tx-embed-1 by default)
  {
    name: 'embed-model-optional',
    description: 'embeddings accept a request without model (default tx-embed-1)',
    breaks: ['EMB-006'],
    probe: { request: req.embed({ input: 'ok' }), holds: (r) => r.status === 200 },
  },
  // inference.ts: a replay with the same key and body executes and charges again
  {
    name: 'idem-double-charge',
    description: 'a repeated Idempotency-Key with the same body executes and charges again',
    breaks: ['IDEM-001', 'IDEM-003'],
    probe: { run: async ({ ref, replayCharges }) => replayCharges(ref, {}) },
  },
  // inference.ts: the key's fingerprint is the method and path only (notable: the contract leaves a reused key with another body open)
  {
    name: 'idem-key-only',
    description:
      'the same Idempotency-Key with another body replays the first reply (the body is not compared)',
    breaks: ['IDEM-002'],
    level: 'notable',
    probe: {
      run: async ({ ref, chat }) => {
        const keyed = { headers: { 'idempotency-key': 'probe-key-only' } };
        await chat(ref, {}, keyed);
        const other = await chat(ref, { messages: [{ role: 'user', content: 'Something else.' }] }, keyed);
        return other.status === 200;
      },
    },
  },
  // inference.ts: a chat replay under the legacy Accept header executes and charges again
  {
    name: 'legacy-reexecute',
    description:
      'a chat replay with the legacy currency Accept header executes and charges again (/v1/responses does not)',
    breaks: ['IDEM-003'],
    places: [{ id: 'IDEM-003', place: 'POST /v1/chat/completions' }],
    probe: { run: async ({ ref, replayCharges }) => replayCharges(ref, LEGACY) },
  },
  // inference.ts: a /v1/responses replay under the legacy Accept header executes and charges again
  {
    name: 'legacy-responses-reexecute',
    description:
      'a /v1/responses replay with the legacy currency Accept header executes and charges again (chat does not)',
    breaks: ['IDEM-003'],
    places: [{ id: 'IDEM-003', place: 'POST /v1/responses' }],
    probe: { run: async ({ ref, replayCharges }) => replayCharges(ref, LEGACY, '/v1/responses') },
  },
  // routes/media-jobs.ts: a job create replayed under the legacy Accept header runs as a new job
  {
    name: 'legacy-job-reexecute',
    description:
      'a media job create replayed with the same Idempotency-Key and the legacy currency Accept header creates a second job',
    // Any replay in the legacy format, so one made in it too ("idempotency semantics are unchanged").
    breaks: ['IDEM-003', 'LEGACY-002'],
    places: LEGACY_JOB_PLACES,
    probe: { run: secondJob({}, LEGACY) },
  },
  // routes/media-jobs.ts: the idempotency store written by the points format's path only
  {
    name: 'legacy-job-unrecorded',
    description:
      'a media job created in the legacy currency format is not kept under its Idempotency-Key: its replay, in either format, creates a second job',
    breaks: ['LEGACY-002', 'IDEM-003'],
    places: LEGACY_JOB_PLACES,
    probe: { run: secondJob(LEGACY, LEGACY) },
  },
  // routes/chat.ts: stream "true" or 1 is taken as its truth value
  {
    name: 'chat-stream-truthy',
    description: 'a chat request whose stream is the string "true" or the number 1 is accepted',
    breaks: ['CHAT-070'],
    probe: { request: req.chat({ stream: 'true' }), holds: (r) => r.status === 200 },
  },
  // routes/chat.ts: user of any type
  {
    name: 'chat-user-any',
    description: 'a chat request whose user is a number is accepted',
    breaks: ['CHAT-071'],
    probe: { request: req.chat({ user: 42 }), holds: (r) => r.status === 200 },
  },
  // routes/embeddings.ts: encoding_format compared whatever its case
  {
    name: 'embed-format-case',
    description: 'encoding_format FLOAT (capitals) is accepted as float',
    breaks: ['EMB-005'],
    probe: { request: req.embedding({ encoding_format: 'FLOAT' }), holds: (r) => r.status === 200 },
  },
  // routes/embeddings.ts: user of any type
  {
    name: 'embed-user-any',
    description: 'an embedding request whose user is a number is accepted',
    breaks: ['EMB-070'],
    probe: { request: req.embedding({ user: 42 }), holds: (r) => r.status === 200 },
  },
  // routes/responses.ts: stream "true" or 1 is taken as its truth value
  {
    name: 'responses-stream-truthy',
    description: 'a responses call whose stream is the string "true" or the number 1 is accepted',
    breaks: ['RSP-070'],
    probe: { request: req.responses({ stream: 1 }), holds: (r) => r.status === 200 },
  },
  // routes/responses.ts: a number or boolean input is taken as its text
  {
    name: 'responses-input-any',
    description: 'a responses call whose input is a number or a boolean is accepted',
    breaks: ['RSP-071'],
    probe: { request: req.responses({ input: 42 }), holds: (r) => r.status === 200 },
  },
  // routes/responses.ts: every increment is zero-length, the text arrives only in response.completed
  {
    name: 'responses-blank-deltas',
    description:
      "every response.output_text.delta carries delta: '' while the completed response has the text",
    breaks: ['RSP-005'],
    level: 'notable',
    probe: {
      run: async ({ ref, events }) => {
        const deltas = (await events(ref)).filter((e) => e.event === 'response.output_text.delta');
        return deltas.length > 0 && deltas.every((e) => JSON.parse(e.data).delta === '');
      },
    },
  },
  // routes/responses.ts: the deltas name their part (item_id, indexes) and carry no text at all
  {
    name: 'responses-delta-textless',
    description:
      'every response.output_text.delta carries {type, item_id, output_index, content_index} and no text (the increment lost)',
    breaks: ['RSP-005'],
    probe: {
      run: async ({ ref, events }) => {
        const deltas = (await events(ref)).filter((e) => e.event === 'response.output_text.delta');
        return deltas.length > 0 && deltas.every((e) => !('delta' in JSON.parse(e.data)));
      },
    },
  },
  // inference.ts: an id no catalog lists is answered on /v1/embeddings (by the account's embedding model)
  {
    name: 'embeddings-unknown-model-200',
    description:
      'POST /v1/embeddings answers a model id no catalog lists with 200 (chat and responses refuse it)',
    breaks: ['MODEL-003'],
    probe: { request: req.embed({ model: 'no-such-model', input: 'ok' }), holds: (r) => r.status === 200 },
  },
  // inference.ts: an id no catalog lists is answered on /v1/responses (by the account's responses model)
  {
    name: 'responses-unknown-model-200',
    description:
      'POST /v1/responses answers a model id no catalog lists with 200 (chat and embeddings refuse it)',
    breaks: ['MODEL-003'],
    probe: { request: req.responses({ model: 'no-such-model' }), holds: (r) => r.status === 200 },
  },
  // inference.ts: the forbidden model is answered on /v1/embeddings (by the account's embedding model)
  {
    name: 'embeddings-forbidden-callable',
    description:
      "POST /v1/embeddings answers a model outside the account's catalog (chat still refuses it with 403)",
    breaks: ['MODELS-004'],
    places: [{ id: 'MODELS-004', place: 'POST /v1/embeddings' }],
    probe: {
      run: async ({ ref, embed }) =>
        (await embed(ref, { model: ref.hints.forbidden, input: 'ok' })).status === 200,
    },
  },
  // routes/responses.ts: a stream that ends before its cap ends response.incomplete all the same
  {
    name: 'responses-never-completed',
    description:
      'every /v1/responses stream ends response.incomplete (reason max_output_tokens), also one whose reply ended long before its cap',
    breaks: ['RSP-006'],
    // Notable: the contract does not say when each terminal event is sent (a reasoning model may reach
    // its cap with little text shown), so a natural end read as incomplete is worth knowing, not a failure.
    level: 'notable',
    probe: {
      run: async ({ ref, responses }) =>
        (await responses(ref, { max_output_tokens: 256, stream: true })).text.includes(
          'event: response.incomplete',
        ),
    },
  },
  // patch: an unauthorised model of the right type is refused 404 on responses (403 is stated)
  {
    name: 'responses-forbidden-404',
    description: 'POST /v1/responses refuses a model outside the account catalog with 404, not 403',
    breaks: ['MODEL-002'],
    places: [
      { id: 'MODEL-002', place: 'POST /v1/responses · form=not streamed' },
      { id: 'MODEL-002', place: 'POST /v1/responses · form=streamed' },
    ],
    patch: {
      errors: [{ endpoint: 'POST /v1/responses', error: 'model_not_allowed', as: 'model_not_found' }],
    },
    probe: {
      run: async ({ ref, responses }) =>
        (await responses(ref, { model: ref.hints.forbidden_responses })).status === 404,
    },
  },
  // patch: the same on embeddings, with an embedding model outside the catalog
  {
    name: 'embeddings-forbidden-404',
    description:
      'POST /v1/embeddings refuses an embedding model outside the account catalog with 404, not 403',
    breaks: ['MODEL-002'],
    places: [{ id: 'MODEL-002', place: 'POST /v1/embeddings' }],
    patch: {
      errors: [{ endpoint: 'POST /v1/embeddings', error: 'model_not_allowed', as: 'model_not_found' }],
    },
    probe: {
      run: async ({ ref, embed }) =>
        (await embed(ref, { model: ref.hints.forbidden_embedding, input: 'ok' })).status === 404,
    },
  },
  // inference.ts: embeddings looks models up in every catalog, type checked: a chat model outside the
  // catalog is still refused (as the wrong type), an embedding model outside it is answered
  {
    name: 'embeddings-catalog-unchecked',
    description:
      "POST /v1/embeddings answers an embedding model outside the account's catalog (a chat model outside it is refused as the wrong type)",
    breaks: ['MODELS-004', 'MODEL-002'],
    places: [
      { id: 'MODELS-004', place: 'POST /v1/embeddings' },
      { id: 'MODEL-002', place: 'POST /v1/embeddings' },
    ],
    probe: {
      run: async ({ ref, embed }) =>
        (await embed(ref, { model: ref.hints.forbidden_embedding, input: 'ok' })).status === 200 &&
        (await embed(ref, { model: ref.hints.forbidden, input: 'ok' })).status === 404,
    },
  },
  // inference.ts: the forbidden model is answered on /v1/responses (by the account's responses model)
  {
    name: 'responses-forbidden-callable',
    description:
      "POST /v1/responses answers a model outside the account's catalog (chat still refuses it with 403)",
    breaks: ['MODELS-004', 'MODEL-002'],
    probe: {
      run: async ({ ref, responses }) =>
        (await responses(ref, { model: ref.hints.forbidden })).status === 200,
    },
  },
  // routes/embeddings.ts: the legacy Accept header is ignored on embeddings only
  {
    name: 'legacy-embeddings-points',
    description: 'POST /v1/embeddings keeps the points fields under the legacy currency Accept header',
    breaks: ['LEGACY-001'],
    places: [{ id: 'LEGACY-001', place: 'POST /v1/embeddings' }],
    probe: {
      run: async ({ ref, call }) => {
        const res = await call(ref, '/v1/embeddings', {
          method: 'POST',
          role: 'primary',
          json: { model: ref.hints.embedding, input: 'ok' },
          headers: LEGACY,
        });
        return res.status === 200 && 'charged_points' in (res.body.billing ?? {});
      },
    },
  },
  // routes/responses.ts: the legacy Accept header is ignored on non-streamed responses only
  {
    name: 'legacy-responses-points',
    description:
      'POST /v1/responses (not streamed) keeps the points fields under the legacy currency Accept header',
    breaks: ['LEGACY-001'],
    places: [{ id: 'LEGACY-001', place: 'POST /v1/responses' }],
    probe: {
      run: async ({ ref, call }) => {
        const res = await call(ref, '/v1/responses', {
          method: 'POST',
          role: 'primary',
          json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 3 },
          headers: LEGACY,
        });
        return res.status === 200 && 'charged_points' in (res.body.billing ?? {});
      },
    },
  },
  // routes/chat.ts: a streamed chat call for an unknown model id is answered by the chat model
  {
    name: 'chat-stream-unknown-model-200',
    description:
      'a streamed chat call naming a model id no catalog lists is answered 200 (not streamed: refused)',
    breaks: ['MODEL-003'],
    probe: { request: req.chat({ model: 'no-such-model', stream: true }), holds: (r) => r.status === 200 },
  },
  // routes/responses.ts: a streamed responses call skips the native-responses check
  {
    name: 'responses-stream-any-model',
    description:
      'a streamed responses call for a model without native responses support is answered (not streamed: refused)',
    breaks: ['RSP-002'],
    places: [{ id: 'RSP-002', place: 'POST /v1/responses · form=streamed' }],
    probe: {
      run: async ({ ref, responses }) =>
        (await responses(ref, { model: ref.hints.no_responses, stream: true })).status === 200,
    },
  },
  // --- traffic ---
  // inference.ts: a stream buffered on the way (a proxy that holds the body), streamed in name only
  {
    name: 'stream-buffered',
    description:
      'every text/event-stream reply (chat and responses) is sent whole at once, all its events in one write',
    breaks: ['RSP-090'],
    level: 'notable',
    probe: {
      run: async ({ ref, streamPieces }) =>
        (await streamPieces(ref, '/v1/responses', {
          role: 'primary',
          json: { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 3, stream: true },
        })) === 1,
    },
  },
  // routes/responses.ts: one delta loses its text (its member left out) while the end shows the whole text
  {
    name: 'responses-delta-text-dropped',
    description:
      "the second response.output_text.delta of a stream carries {type, item_id, output_index, content_index} and no text: the other deltas' increments miss that token of the text response.completed shows",
    breaks: ['RSP-005'],
    probe: {
      run: async ({ ref, events }) => {
        const deltas = (await events(ref)).filter((e) => e.event === 'response.output_text.delta');
        return deltas.length > 2 && !('delta' in JSON.parse(deltas[1]!.data));
      },
    },
  },
  // inference.ts resolveModel: /v1/responses refuses every model, those with native support too (the
  // refusals of RSP-002 are then not run, beside no accepted control: test/case-controls.test.ts)
  {
    name: 'responses-refused',
    description:
      'every /v1/responses call is refused 400 unsupported_endpoint, for models with native responses support too',
    breaks: ['RSP-001'],
    probe: {
      request: req.responses(),
      holds: (r) => r.status === 400,
    },
  },
] as const satisfies readonly Fault[];

export const INFERENCE_VARIANTS = [
  // inference.ts resolveModel: "When a model is unavailable the service returns an error"; judging.md: a
  // 502/503/504 is advisory, never promoted
  {
    name: 'upstream-unavailable-sometimes',
    readings: ['ERR-003', 'CHAT-001', 'RSP-001', 'EMB-001'],
    description:
      'every 13th chat, responses or embeddings call that found its model is refused 503 model_unavailable (an upstream down), before anything is held or charged',
    probe: {
      run: async ({ ref, chat }) => {
        const statuses: number[] = [];
        for (let i = 0; i < 13; i++) statuses.push((await chat(ref)).status);
        return (
          statuses.filter((s) => s === 503).length === 1 && statuses.filter((s) => s === 200).length === 12
        );
      },
    },
  },
  // The same, with a description that declares no 503 for the calls: "a 502/503/504" is advisory, never
  // promoted (judging.md), and a description "is not expected to cover all possible HTTP response codes"
  // (OpenAPI 3.1): an undeclared 503 is reported (RESP-001 advisory), not failed.
  {
    name: 'upstream-unavailable-undeclared',
    readings: ['ERR-003', 'RESP-001', 'CHAT-001', 'RSP-001', 'EMB-001'],
    description:
      'as upstream-unavailable-sometimes (every 13th call refused 503 model_unavailable), and the description declares no 503 for chat, responses or embeddings',
    openapi: ({ paths }) => {
      for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/embeddings'])
        delete paths[path].post.responses['503'];
    },
    probe: {
      run: async ({ ref, chat, openapi }) => {
        const statuses: number[] = [];
        for (let i = 0; i < 13; i++) statuses.push((await chat(ref)).status);
        const described = (await openapi(ref)).paths['/v1/chat/completions'].post.responses;
        return statuses.includes(503) && described['503'] === undefined;
      },
    },
  },
  // errors.ts: the same upstream down met by the load balancer in front (nginx's HTML 502): "a 502/503/504" is
  // advisory, never promoted (judging.md), and the page is no answer of the service's (ERR-001 and
  // RESP-002 advisory on it: unavailablePage in src/vocabulary.ts), or the verdict would turn on an outage
  {
    name: 'proxy-502-page',
    readings: ['ERR-001', 'ERR-003', 'RESP-002', 'CHAT-001', 'RSP-001', 'EMB-001'],
    description:
      "every 13th chat, responses or embeddings call that found its model is answered 502 text/html by the load balancer in front (nginx's page), before anything is held or charged",
    probe: {
      run: async ({ ref, chat }) => {
        const replies: Array<{ status: number; type: string }> = [];
        for (let i = 0; i < 13; i++) {
          const r = await chat(ref);
          replies.push({ status: r.status, type: r.headers.get('content-type') ?? '' });
        }
        return (
          replies.filter((r) => r.status === 502 && r.type.startsWith('text/html')).length === 1 &&
          replies.filter((r) => r.status === 200).length === 12
        );
      },
    },
  },
  // app.ts: null reads as the member left out (as a media parameter's does)
  {
    name: 'null-as-omitted',
    readings: ['CHAT-005', 'CHAT-006', 'CHAT-007', 'EMB-004', 'EMB-005', 'EMB-070', 'TICKET-007', 'PAY-007'],
    description:
      'a top-level member sent as null on a chat, responses or embeddings call, a ticket or a payment order is read as left out (temperature null takes the default; a required one is then missing)',
    probe: {
      run: async ({ ref, chat }) =>
        (await chat(ref, { temperature: null, top_p: null, max_tokens: null })).status === 200,
    },
  },
  // inference.ts completionFor: replies to the same request differ in length, so in cost
  {
    name: 'reply-length-varies',
    readings: ['IDEM-001', 'IDEM-004', 'BAL-004'],
    description:
      'every other chat or responses reply is one token shorter than its cap allows (at least one token): two executions of one request cost different amounts',
    probe: {
      run: async ({ ref, chat }) => {
        const a = await chat(ref, { max_tokens: 3 });
        const b = await chat(ref, { max_tokens: 3 });
        return a.body.usage.completion_tokens !== b.body.usage.completion_tokens;
      },
    },
  },
  // routes/chat.ts + openapi.ts
  {
    name: 'chat-stream-ndjson',
    readings: ['CHAT-010'],
    description: 'a streamed chat reply is application/x-ndjson (one chunk per line), not SSE',
    openapi: ({ paths }) => {
      const reply = paths['/v1/chat/completions'].post.responses['200'];
      reply.description = 'A chat completion, or chunks as NDJSON lines when `stream` is true.';
      delete reply.content['text/event-stream'];
      reply.content['application/x-ndjson'] = { schema: { type: 'string' } };
    },
    probe: {
      request: req.chat({ stream: true }),
      holds: (r) => r.headers.get('content-type')?.startsWith('application/x-ndjson') ?? false,
    },
  },
  // routes/responses.ts
  {
    name: 'responses-extra-events',
    readings: ['RSP-004', 'RSP-006'],
    description: 'streamed responses carry extra events (response.in_progress, content_part.added, ...)',
    probe: {
      run: async ({ ref, events }) => (await events(ref)).some((e) => e.event === 'response.in_progress'),
    },
  },
  // routes/chat.ts, responses.ts, embeddings.ts: the reply's `model` ("| model | string | |") names the
  // dated snapshot of the model asked
  {
    name: 'model-snapshot-names',
    readings: ['MODEL-001'],
    description:
      'chat, responses and embedding replies name the dated snapshot of the model asked (tx-chat-1-2024-08-06), as an upstream names its snapshot of an alias',
    probe: {
      request: req.chat({}),
      holds: (r) => typeof r.body.model === 'string' && r.body.model.endsWith('-2024-08-06'),
    },
  },
  // routes/chat.ts: max_tokens 0 refused for lack of room, under a code of its own (CHAT-007's reading)
  {
    name: 'max-tokens-zero-no-room',
    readings: ['CHAT-007'],
    description:
      'chat refuses max_tokens 0 for leaving no room for a reply, with code no_output_room (not invalid_request)',
    probe: {
      request: req.chat({ max_tokens: 0 }),
      holds: (r) => r.status === 400 && r.body.error.code === 'no_output_room',
    },
  },
  // routes/embeddings.ts + openapi.ts: the contract gives no status for the embedding list
  {
    name: 'embeddings-201',
    readings: ['EMB-001'],
    description: 'a valid embedding request is answered 201 (described so), not 200',
    openapi: ({ paths }) => successAs(paths['/v1/embeddings'].post, '200', '201'),
    probe: {
      run: async ({ ref, embed }) =>
        (await embed(ref, { model: ref.hints.embedding, input: 'ok' })).status === 201,
    },
  },
  // routes/chat.ts: the chat usage object is not closed; only its token fields "are not points"
  {
    name: 'usage-points-field',
    readings: ['PTS-005'],
    description:
      'chat usage carries charged_points (the settled charge, also in billing) beside its token counts',
    probe: { request: req.chat(), holds: (r) => 'charged_points' in r.body.usage },
  },
  // routes/responses.ts: "carries a text increment" does not say the increment is never zero-length
  {
    name: 'responses-zero-length-delta',
    readings: ['RSP-005'],
    description:
      "the stream's first response.output_text.delta carries a zero-length increment (delta: ''), before the text's",
    probe: {
      run: async ({ ref, events }) =>
        (await events(ref)).some(
          (e) => e.event === 'response.output_text.delta' && JSON.parse(e.data).delta === '',
        ),
    },
  },
  // routes/responses.ts: "carries a text increment", the data's shape not shown: plain text
  {
    name: 'responses-plain-deltas',
    readings: ['RSP-004', 'RSP-005'],
    description:
      'each response.output_text.delta carries its increment as plain text: the first one empty (`data:`), one the token `42`',
    probe: {
      run: async ({ ref, events }) => {
        const deltas = (await events(ref)).filter((e) => e.event === 'response.output_text.delta');
        return deltas[0]?.data === '' && deltas.some((e) => e.data === '42');
      },
    },
  },
  // routes/responses.ts: the contract gives max_output_tokens no range; OpenAI's upstream refuses one below 16
  {
    name: 'responses-min-output-16',
    readings: ['RSP-001', 'RSP-003'],
    description: 'a /v1/responses call with max_output_tokens below 16 is refused 400 invalid_request',
    probe: {
      run: async ({ ref, responses }) =>
        (await responses(ref, { max_output_tokens: 8 })).status === 400 &&
        (await responses(ref, { max_output_tokens: 16 })).status === 200,
    },
  },
  // routes/responses.ts: a zero-length increment whose empty `delta` member a serializer leaves out
  {
    name: 'responses-empty-delta-omitted',
    readings: ['RSP-005'],
    description:
      "the stream's first response.output_text.delta is a zero-length increment written without its empty `delta` member ({type, item_id, output_index, content_index}: Go's omitempty); the other deltas carry the text, response.completed the whole of it",
    probe: {
      run: async ({ ref, events }) => {
        const deltas = (await events(ref)).filter((e) => e.event === 'response.output_text.delta');
        const has = (e: { data: string }) => 'delta' in JSON.parse(e.data);
        return deltas.length > 1 && !has(deltas[0]!) && deltas.slice(1).every(has);
      },
    },
  },
] as const satisfies readonly Variant[];
