// Named seeded faults and conformant variants of the reference server. One is chosen per start;
// the code checks `ctx.fault === 'name'` / `ctx.variant === 'name'` at the point of the deviation.
// A fault's `breaks` lists the requirement ids that must catch it, and the matrix fails a row on any
// other id failing in those tests (specificity), so it also lists ids the fault legitimately implies
// (a reply breaking a stated rule usually breaks the target's own description too: RESP-00x); `level: 'implied'` faults break
// only an implied invariant and are caught only under --strict; `level: 'notable'` faults break a
// notable-level requirement (advisory verdicts, such as checks of an undocumented model's entry).

export interface Fault {
  name: string;
  description: string;
  breaks: string[];
  level?: 'implied' | 'notable';
  /**
   * The request timeout (ms) the fault's matrix run gives the suite (`timeouts.request_ms` of its
   * targets file), for a fault that makes requests hang: the run then ends in seconds, not minutes.
   */
  requestMs?: number;
}

export interface Variant {
  name: string;
  description: string;
  /** The requirements whose other allowed reading the variant takes (its row in the README's table). */
  readings: string[];
}

const FAULT_LIST = [
  // auth.ts: a key in the query string is used when the header gives none
  {
    name: 'auth-query-key',
    description: 'accepts the key from ?api_key= or ?key= when the header gives none',
    breaks: ['AUTH-005'],
  },
  // auth.ts: any scheme word before the key is accepted
  {
    name: 'auth-scheme-lax',
    description: 'accepts any scheme word (Token <key>, Basic <key>, bearer <key>)',
    breaks: ['AUTH-003'],
  },
  // auth.ts: a prefix (>= 8 chars) of a real key is accepted as that key
  {
    name: 'auth-prefix-key',
    description: 'accepts a truncated key (a prefix of a real key, length >= 8)',
    breaks: ['AUTH-004'],
  },
  // auth.ts: a real key followed by extra characters is accepted
  {
    name: 'auth-suffix-key',
    description: 'accepts a real key with extra characters appended',
    breaks: ['AUTH-004'],
  },
  // auth.ts: any cookie value equal to a key authenticates
  { name: 'auth-cookie', description: 'accepts the key from any cookie value', breaks: ['AUTH-006'] },
  // auth.ts: revoked keys pass
  { name: 'auth-revoked-accepted', description: 'a revoked key still authenticates', breaks: ['AUTH-007'] },
  // auth.ts: expired keys pass
  { name: 'auth-expired-accepted', description: 'an expired key still authenticates', breaks: ['AUTH-008'] },
  // errors.ts: 401 carries code `unauthorized`
  {
    name: 'auth-wrong-code',
    description: '401 answers carry code `unauthorized` instead of `invalid_api_key`',
    breaks: ['AUTH-009'],
  },
  // errors.ts + openapi.ts: 401 body is {"error":"invalid api key"} (and described so)
  {
    name: 'error-shape-flat',
    description: '401 body is {"error":"invalid api key"}, not the APIError object',
    breaks: ['ERR-001'],
  },
  // auth.ts: the IP allowlist is not enforced
  {
    name: 'ip-allowlist-ignored',
    description: 'a key whose IP allowlist excludes the caller still authenticates',
    breaks: ['AUTH-010'],
  },
  // auth.ts: GET /v1/balance (a billing service's own auth) reads the key from X-API-Key, not the Bearer header
  {
    name: 'balance-key-header',
    description:
      'GET /v1/balance takes the key from X-API-Key only: the primary key as Bearer is refused 401',
    // A Bearer caller then cannot read the balance at all: BAL-001 ("answers 2xx") fails too (other
    // tests reading the balance fail under their own ids, but the row does not select them).
    breaks: ['AUTH-011', 'BAL-001'],
  },
  // auth.ts + openapi.ts: /healthz requires a key (described so)
  { name: 'healthz-auth', description: 'GET /healthz answers 401 without a key', breaks: ['HEALTH-001'] },
  // routes/public.ts + openapi.ts: /status answers 500 (described so)
  {
    name: 'status-500',
    description: 'GET /status answers 500 with an APIError',
    breaks: ['HEALTH-002', 'ERR-002'],
  },
  // openapi.ts: `info` removed and a path item of the wrong type
  {
    name: 'openapi-invalid',
    description: '/openapi.json is not a valid OpenAPI 3.1 document',
    breaks: ['OAS-001'],
  },
  // routes/public.ts: GET /openapi.json answers the framework's 404 (every response is then validated
  // against the documented schemas, so the rest of the API is still judged)
  {
    name: 'openapi-absent',
    description:
      "GET /openapi.json answers the framework's 404 (no APIError shape): no description is served",
    breaks: ['OAS-001', 'ERR-001'],
  },
  // openapi.ts: POST /v1/embeddings left out
  {
    name: 'openapi-missing-endpoint',
    description: 'the description omits POST /v1/embeddings',
    breaks: ['OAS-002'],
  },
  // openapi.ts: chat temperature maximum 1, role enum without developer
  {
    name: 'openapi-enum-drift',
    description: "the description's chat request has temperature maximum 1 and no `developer` role",
    breaks: ['OAS-003'],
  },
  // openapi.ts: no 401 declared on GET /v1/models
  {
    name: 'openapi-undeclared-401',
    description: 'GET /v1/models declares no 401 response',
    breaks: ['RESP-001'],
  },
  // openapi.ts: the model entry applies a schema whose allOf applies itself
  {
    name: 'openapi-schema-cycle',
    description: "the description's model entry applies a schema whose allOf includes itself (a cycle)",
    breaks: ['OAS-001'],
  },
  // openapi.ts: the model entry's id has a pattern that is not a regular expression
  {
    name: 'openapi-invalid-pattern',
    description: "the description's model entry id has pattern `([a-z`, not a regular expression",
    breaks: ['OAS-001'],
  },
  // openapi.ts: the chat reply's usage described as optional, as OpenAI's own description has it (the contract requires it)
  {
    name: 'openapi-usage-optional',
    description: "the description leaves the chat reply's usage optional (the server still sends it)",
    breaks: ['OAS-004'],
    level: 'notable',
  },
  // openapi.ts: operational routes hidden from the description (/healthz and /status still answer)
  {
    name: 'openapi-no-health',
    description: 'the description lists neither GET /healthz nor GET /status',
    breaks: ['OAS-005'],
    level: 'notable',
  },
  // openapi.ts: a generator that inlines a recursive schema to a fixed depth, past the suite's nesting bound
  {
    name: 'openapi-deep-inline',
    description:
      "the description's model entry has an optional `metadata` field whose recursive schema is inlined 80 levels deep (nesting beyond the suite's bound of 128)",
    breaks: ['OAS-006'],
    level: 'notable',
  },
  // routes/models.ts: entries lack context_length, which the description requires
  {
    name: 'models-undocumented-shape',
    description: 'model entries omit context_length while the description requires it',
    breaks: ['RESP-003'],
  },
  // routes/balance.ts: JSON text served as text/plain
  {
    name: 'balance-text-plain',
    description: 'GET /v1/balance is served with content-type text/plain',
    breaks: ['RESP-002'],
  },
  // routes/models.ts + openapi.ts: prices as JSON numbers (described so)
  {
    name: 'models-price-number',
    description: 'model prices are JSON numbers (and described as numbers)',
    breaks: ['PTS-001'],
  },
  // routes/models.ts: the unpriced model shows "0" prices with points_configured false
  {
    name: 'models-zero-quote',
    description: 'the unpriced model shows invented "0" prices',
    breaks: ['MODELS-003'],
  },
  // routes/models.ts + openapi.ts: the price join misses the embedding model (its calls are still charged)
  {
    name: 'models-prices-dropped',
    description: "the embedding model's entry carries neither price fields nor points_configured",
    breaks: ['MODELS-002'],
    level: 'notable',
  },
  // routes/models.ts: prices kept as binary floats per 100,000 tokens, scaled by 10 on output
  {
    name: 'models-price-float-noise',
    description: 'catalog prices are printed from binary floats: 0.7500000000000001, 1.5000000000000002',
    breaks: ['PTS-002'],
    level: 'notable',
  },
  // state.ts: tx-chat-premium added to non-enterprise catalogs
  {
    name: 'models-forbidden-listed',
    description: "tx-chat-premium is listed in (and callable from) the primary account's catalog",
    breaks: ['MODELS-004'],
  },
  // routes/models.ts: an account with no effective model is refused 401 instead of given an empty list
  {
    name: 'models-empty-401',
    description: 'GET /v1/models answers 401 invalid_api_key to a valid key whose account has no model',
    breaks: ['MODELS-005'],
  },
  // routes/balance.ts + openapi.ts: points as JSON numbers (described so)
  {
    name: 'balance-number',
    description: 'balance points are JSON numbers (and described as numbers)',
    breaks: ['PTS-001'],
  },
  // routes/balance.ts + openapi.ts: held_points omitted (and not required by the description)
  { name: 'balance-missing-held', description: 'the balance omits held_points', breaks: ['BAL-001'] },
  // routes/balance.ts: available = total - held + 1
  {
    name: 'balance-available-off',
    description: 'available_points = total - held + 1',
    breaks: ['BAL-003'],
    level: 'implied',
  },
  // app.ts: the caller's key echoed in a response header
  {
    name: 'key-echo',
    description: 'every authenticated response carries X-Debug-Key: <the caller key>',
    breaks: ['SEC-001'],
  },
  // routes/chat.ts: temperature 2.5 (any value above 2) accepted
  {
    name: 'chat-temperature-lax',
    description: 'chat accepts temperature above 2 (2.5)',
    breaks: ['CHAT-005'],
  },
  // routes/chat.ts: the inclusive upper bound 2 refused
  { name: 'chat-temperature-strict', description: 'chat refuses temperature 2.0', breaks: ['CHAT-005'] },
  // routes/chat.ts: top_p never checked
  { name: 'chat-top-p-unchecked', description: 'chat accepts any top_p', breaks: ['CHAT-006'] },
  // routes/chat.ts: negative max_tokens accepted
  { name: 'chat-max-tokens-negative', description: 'chat accepts max_tokens -1', breaks: ['CHAT-007'] },
  // routes/responses.ts: the Idempotency-Key of /v1/responses ignored (a replay executes again)
  {
    name: 'responses-replay-new',
    description: '/v1/responses ignores the Idempotency-Key: a replay executes and charges again',
    // Also under the legacy currency format, which the model-based sequences replay with.
    breaks: ['IDEM-001', 'IDEM-003'],
  },
  // routes/chat.ts: max_tokens 0 (the bound itself) refused
  { name: 'chat-max-tokens-zero', description: 'chat refuses max_tokens 0', breaks: ['CHAT-007'] },
  // routes/tickets.ts: the first listed category (enterprise_onboarding) refused
  {
    name: 'ticket-category-dropped',
    description: 'tickets refuse the category enterprise_onboarding',
    breaks: ['TICKET-003'],
  },
  // routes/payments.ts: the configured minimum itself accepted
  {
    name: 'order-min-inclusive',
    description: 'payment orders accept the configured minimum itself',
    breaks: ['PAY-006'],
  },
  // routes/payments.ts: a note of exactly 120 characters refused
  {
    name: 'order-note-119',
    description: 'payment orders refuse a note of 120 characters',
    breaks: ['PAY-007'],
  },
  // routes/chat.ts: a message without content accepted
  {
    name: 'chat-missing-content',
    description: 'chat accepts a message without content',
    breaks: ['CHAT-008'],
  },
  // routes/chat.ts: the developer role refused
  { name: 'chat-developer-refused', description: 'chat refuses a developer message', breaks: ['CHAT-011'] },
  // routes/chat.ts: a request without model is served by the default chat model
  {
    name: 'chat-model-default',
    description: 'a chat request without `model` is answered 200 by the default chat model (tx-chat-1)',
    breaks: ['CHAT-009'],
  },
  // routes/chat.ts: the ChatCompletion has no id (the description still requires it: RESP-003 too)
  {
    name: 'chat-no-id',
    description: 'a (non-streamed) chat reply omits `id`, which the live description still requires',
    breaks: ['CHAT-001', 'RESP-003'],
  },
  // routes/chat.ts: the upstream's reply role `model` passed through (the description says assistant: RESP-003 too)
  {
    name: 'chat-role-model',
    description: "a (non-streamed) chat reply's message role is `model`, not one of the four roles",
    breaks: ['CHAT-002', 'RESP-003'],
  },
  // routes/chat.ts: tx-chat-2 answers (and is named) when tx-chat-1 is asked
  {
    name: 'chat-model-substituted',
    description: 'a chat reply for tx-chat-1 names tx-chat-2',
    breaks: ['MODEL-001'],
  },
  // routes/chat.ts: usage.total_tokens = prompt + completion + 1
  {
    name: 'chat-usage-total-off',
    description: 'chat usage.total_tokens is prompt + completion + 1',
    breaks: ['CHAT-004'],
    level: 'implied',
  },
  // billing.ts + openapi.ts: billing points as JSON numbers (described so)
  {
    name: 'chat-billing-numbers',
    description: 'billing charged/released points are JSON numbers (and described so)',
    breaks: ['PTS-001'],
  },
  // billing.ts + openapi.ts: billing carries charged_credits/released_credits (described so)
  {
    name: 'chat-credits-names',
    description: 'billing uses charged_credits/released_credits instead of *_points (described so)',
    breaks: ['PTS-004'],
  },
  // app.ts + openapi.ts: X-Request-ID "may" be sent, but this description promises it and it never comes
  {
    name: 'request-id-promised',
    description: 'the description declares X-Request-ID a required header of every response; none is sent',
    breaks: ['RESP-004'],
  },
  // auth.ts: "401 | invalid_api_key | key missing, ..."
  {
    name: 'auth-missing-403',
    description: 'a business request without any key is refused 403 permission_denied, not 401',
    breaks: ['AUTH-001'],
  },
  // auth.ts: "401 | invalid_api_key | key missing, wrong, ..." (a truncated or appended key is a wrong key too)
  {
    name: 'auth-unknown-key-403',
    description:
      'a well-formed Bearer header whose token is no key (unknown, truncated, appended) is refused 403, not 401',
    breaks: ['AUTH-002', 'AUTH-004'],
  },
  // inference.ts: "404 | ... wrong endpoint type (media model sent to chat)"
  {
    name: 'media-model-chat-400',
    description:
      'a media model sent to chat, responses or embeddings is refused 400 invalid_request, not 404',
    breaks: ['MODEL-004'],
  },
  // inference.ts: "404 | ... wrong model id": an id no catalog lists is refused 400, not 404 (or 403)
  {
    name: 'unknown-model-400',
    description: 'a model id that no catalog lists is refused 400 invalid_request, not 404',
    breaks: ['MODEL-003'],
  },
  // app.ts: the router collapses a duplicated /v1/v1 prefix
  {
    name: 'v1-doubled-served',
    description: 'GET /v1/v1/models (any /v1/v1/...) is served as /v1/models, not answered 404',
    breaks: ['ERR-004'],
  },
  // billing.ts + openapi.ts: the billing object of inference replies names its unit `credits` (described so)
  {
    name: 'billing-unit-credits',
    description:
      'the billing object of chat, responses and embedding replies says unit: credits (described so)',
    breaks: ['PTS-003'],
  },
  // routes/chat.ts + openapi.ts: chat usage token counts as strings (described so)
  {
    name: 'usage-tokens-as-strings',
    description: 'chat usage token fields are strings (and described so)',
    // The description's ChatCompletion says strings where the contract says integers: drift (OAS-003);
    // a token count as a decimal string is what PTS-005 rules out ("token fields ... are not points").
    breaks: ['CHAT-003', 'OAS-003', 'PTS-005'],
  },
  // inference.ts: tx-chat-premium callable from the primary account (still not listed)
  {
    name: 'chat-forbidden-callable',
    description: 'tx-chat-premium answers chat for the primary account, outside its catalog',
    breaks: ['MODEL-002'],
  },
  // routes/chat.ts: a streamed chat reply sends its first chunk and never ends
  {
    name: 'chat-stream-never-ends',
    description: 'stream: true sends the first chunk, then keeps the connection open forever',
    breaks: ['CHAT-010'],
  },
  // inference.ts: a model without native responses support accepted on /v1/responses
  {
    name: 'responses-any-model',
    description: 'tx-chat-2 (no native responses support) is accepted on /v1/responses',
    breaks: ['RSP-002'],
  },
  // routes/responses.ts: only streamed calls are served (400 is declared, so the description still holds)
  {
    name: 'responses-stream-only',
    description: '/v1/responses refuses a call without stream: true (400 invalid_request)',
    breaks: ['RSP-001'],
  },
  // routes/responses.ts: the stream ends without a terminal event
  {
    name: 'responses-no-terminal',
    description: 'a streamed response ends without a terminal event',
    breaks: ['RSP-006'],
  },
  // routes/responses.ts: response.completed followed by response.failed
  {
    name: 'responses-two-terminals',
    description: 'a streamed response sends response.completed, then response.failed',
    breaks: ['RSP-006'],
  },
  // routes/responses.ts + openapi.ts: the stream is served as application/json (described so)
  {
    name: 'responses-json-stream',
    description: 'a streamed response has content-type application/json (and is described so)',
    breaks: ['RSP-003', 'RESP-003'],
  },
  // routes/responses.ts: data lines without event: lines
  {
    name: 'responses-unnamed-events',
    description: 'streamed response events carry no `event:` names',
    breaks: ['RSP-004', 'RSP-006'],
  },
  // routes/responses.ts: delta events with empty data
  {
    name: 'responses-empty-delta',
    description: 'response.output_text.delta events carry empty data',
    breaks: ['RSP-005', 'RSP-004'],
  },
  // routes/embeddings.ts + openapi.ts: 1023 floats (described so)
  {
    name: 'embed-1023',
    description: 'embeddings have 1023 floats (and the description says 1023)',
    // The description's 1023 contradicts the contract's 1024: drift (OAS-003).
    breaks: ['EMB-001', 'OAS-003'],
  },
  // routes/embeddings.ts: an input of one character (the minimum length) refused
  { name: 'embed-min-2', description: 'embeddings refuse an input of one character', breaks: ['EMB-003'] },
  // routes/embeddings.ts: an array input accepted
  {
    name: 'embed-array-input',
    description: 'embeddings accept an array of strings as input',
    breaks: ['EMB-003'],
  },
  // routes/embeddings.ts: unknown request fields accepted
  {
    name: 'embed-unknown-field',
    description: 'embeddings accept unknown request fields',
    breaks: ['EMB-002'],
  },
  // routes/embeddings.ts: dimensions other than 1024 accepted
  { name: 'embed-dimensions-lax', description: 'embeddings accept dimensions 512', breaks: ['EMB-004'] },
  // routes/embeddings.ts: encoding_format base64 accepted
  {
    name: 'embed-encoding-lax',
    description: 'embeddings accept encoding_format base64',
    breaks: ['EMB-005'],
  },
  // routes/embeddings.ts: a request without model accepted (tx-embed-1 by default)
  {
    name: 'embed-model-optional',
    description: 'embeddings accept a request without model (default tx-embed-1)',
    breaks: ['EMB-006'],
  },
  // inference.ts: a replay with the same key and body executes and charges again
  {
    name: 'idem-double-charge',
    description: 'a repeated Idempotency-Key with the same body executes and charges again',
    breaks: ['IDEM-001', 'IDEM-003'],
  },
  // inference.ts: the key's fingerprint is the method and path only (notable: the contract leaves a reused key with another body open)
  {
    name: 'idem-key-only',
    description:
      'the same Idempotency-Key with another body replays the first reply (the body is not compared)',
    breaks: ['IDEM-002'],
    level: 'notable',
  },
  // inference.ts: a replay under the legacy Accept header executes and charges again
  {
    name: 'legacy-reexecute',
    description: 'a replay with the legacy currency Accept header executes and charges again',
    breaks: ['IDEM-003'],
  },
  // legacy.ts: the legacy Accept header is ignored (points fields, application/json)
  {
    name: 'legacy-ignored',
    description: 'the legacy currency Accept header is ignored: points fields are returned',
    breaks: ['LEGACY-001'],
  },
  // legacy.ts: the legacy fields are added next to the points fields
  {
    name: 'legacy-added',
    description: 'under the legacy format the points fields stay, next to the legacy ones',
    breaks: ['LEGACY-001'],
  },
  // routes/models.ts: model ids gain "-legacy" under the legacy format
  {
    name: 'legacy-model-ids',
    description: 'under the legacy format the catalog ids gain a "-legacy" suffix',
    breaks: ['LEGACY-002'],
  },
  // billing.ts: balance_after_points of charge entries off by 0.01
  {
    name: 'ledger-balance-off',
    description: 'ledger charge entries state balance_after_points 0.01 too high',
    breaks: ['LEDGER-002', 'LEDGER-003'],
    level: 'implied',
  },
  // billing.ts: the balance moves by the charge + 0.001
  {
    name: 'balance-not-settled',
    description: 'each call lowers the balance by its charge + 0.001',
    breaks: ['BAL-004', 'LEDGER-002', 'LEDGER-003'],
    level: 'implied',
  },
  // billing.ts: usage charged_points recomputed at the current price, which rises with every chat call
  {
    name: 'snapshot-drift',
    description: 'usage charged_points follow the current price; tx-chat-1 gets dearer on every chat call',
    breaks: ['PTS-006'],
  },
  // routes/usage.ts + openapi.ts: GET /v1/usage answers 500 (described so)
  { name: 'usage-unavailable', description: 'GET /v1/usage answers 500', breaks: ['USAGE-001', 'ERR-002'] },
  // routes/ledger.ts: GET /v1/ledger answers 404
  { name: 'ledger-unavailable', description: 'GET /v1/ledger answers 404', breaks: ['LEDGER-001'] },
  // ==== scopes, enterprise, tickets, payments, rate limit, internal data (one block; keep together)
  // auth.ts: a restricted key is accepted on GET /v1/balance and GET /v1/usage whatever its scopes
  {
    name: 'scope-ignored',
    description: 'a restricted key (restricted_models) is accepted on GET /v1/balance and GET /v1/usage',
    breaks: ['SCOPE-001'],
  },
  // auth.ts: the balance scope no longer covers GET /v1/balance
  {
    name: 'scope-too-strict',
    description: 'a restricted_balance key is refused on GET /v1/balance',
    breaks: ['SCOPE-002'],
  },
  // auth.ts: the ticket API needs no support scope
  {
    name: 'support-scope-ignored',
    description: 'restricted keys without the support scope use the ticket API',
    breaks: ['SCOPE-003'],
  },
  // auth.ts: enterprise_second is bound to a copy of the account with its own balance
  {
    name: 'enterprise-balance-split',
    description: 'enterprise_second sees its own separate balance (5000), not the shared one',
    breaks: ['ENT-001'],
  },
  // routes/tickets.ts: GET lists every tenant's tickets
  {
    name: 'tickets-cross-tenant',
    description: "GET /v1/support/tickets lists every tenant's tickets",
    breaks: ['ISO-001'],
  },
  // routes/usage.ts: the account filter dropped (implied: another tenant's usage is never listed)
  {
    name: 'usage-cross-tenant',
    description: "GET /v1/usage lists every tenant's usage records",
    breaks: ['ISO-002'],
    level: 'implied',
  },
  // routes/tickets.ts: no limit on unresolved tickets
  {
    name: 'ticket-limit-ignored',
    description: 'an 11th unresolved ticket is accepted',
    breaks: ['TICKET-008'],
  },
  // routes/tickets.ts: the list lags a minute behind creation (implied: a created ticket is listed)
  {
    name: 'ticket-list-lag',
    description:
      'GET /v1/support/tickets lists a ticket only a minute after its creation (a lagging replica)',
    breaks: ['TICKET-010'],
    level: 'implied',
  },
  // routes/tickets.ts: a subject with a line feed or carriage return accepted
  {
    name: 'ticket-subject-newline',
    description: 'a ticket subject with \\n is accepted',
    breaks: ['TICKET-004'],
  },
  // routes/tickets.ts: subject limit 121
  {
    name: 'ticket-subject-121',
    description: 'a 121-character ticket subject is accepted',
    breaks: ['TICKET-004'],
  },
  // routes/tickets.ts: message limit 2001
  {
    name: 'ticket-message-2001',
    description: 'a 2001-character ticket message is accepted',
    breaks: ['TICKET-005'],
  },
  // routes/tickets.ts: preferred_contact limit 161
  {
    name: 'ticket-contact-161',
    description: 'a 161-character preferred_contact is accepted',
    breaks: ['TICKET-006'],
  },
  // routes/tickets.ts: unknown fields accepted
  { name: 'ticket-unknown-field', description: 'unknown ticket fields are accepted', breaks: ['TICKET-007'] },
  // routes/tickets.ts: any category accepted
  {
    name: 'ticket-category-lax',
    description: 'the ticket category "sales" is accepted',
    breaks: ['TICKET-003'],
  },
  // routes/tickets.ts + openapi.ts: creation answers 200 (described so)
  { name: 'ticket-200', description: 'ticket creation answers 200 instead of 201', breaks: ['TICKET-001'] },
  // routes/tickets.ts + openapi.ts: GET answers a bare array (described so)
  {
    name: 'ticket-list-envelope',
    description: 'GET /v1/support/tickets answers a bare array (and is described so)',
    breaks: ['TICKET-002'],
  },
  // routes/payments.ts: enterprise keys may create payment orders
  {
    name: 'enterprise-payment-allowed',
    description: 'an enterprise key may create payment orders',
    breaks: ['PAY-002'],
  },
  // routes/payments.ts: the order's points are added to the balance
  {
    name: 'order-credits-wallet',
    description: 'creating a payment order adds its points to the balance',
    breaks: ['PAY-004'],
  },
  // routes/payments.ts: three decimals accepted
  { name: 'order-three-decimals', description: 'the amount "10.005" is accepted', breaks: ['PAY-006'] },
  // routes/payments.ts: the maximum is 1000000
  { name: 'order-over-max', description: 'the amount "100000.01" is accepted', breaks: ['PAY-006'] },
  // routes/payments.ts: any method accepted (the order then names none)
  { name: 'order-method-lax', description: 'the payment method "paypal" is accepted', breaks: ['PAY-005'] },
  // routes/payments.ts: a note with a line feed accepted
  {
    name: 'order-note-newline',
    description: 'a payment order note with \\n is accepted',
    breaks: ['PAY-007'],
  },
  // routes/payments.ts: amount_credits = amount_cny x 100000
  {
    name: 'order-credits-mismatch',
    description: 'amount_credits is amount_cny x 100000 instead of x 1000000',
    breaks: ['PAY-008'],
  },
  // routes/payments.ts + openapi.ts: a new order is approved with a QR code (described so)
  {
    name: 'order-approved',
    description: 'a new order is reported approved, with has_qr_code true and a qr_code',
    breaks: ['PAY-003'],
  },
  // routes/payments.ts: personal tenants are refused the method list
  {
    name: 'payment-methods-personal-refused',
    description: 'GET /v1/payment-methods answers 403 to personal tenants',
    breaks: ['PAY-001'],
  },
  // guards.ts: the requests-per-minute guard never refuses
  { name: 'ratelimit-missing', description: 'the ratelimited key is never limited', breaks: ['RATE-001'] },
  // guards.ts + openapi.ts: the guard's 429 is text/plain "slow down" (described so)
  {
    name: 'ratelimit-plain',
    description: 'the rate-limit 429 body is text/plain "slow down" (and is described so)',
    breaks: ['RATE-001', 'ERR-001'],
  },
  // guards.ts + openapi.ts: Retry-After written as a duration with a unit (described as a string; notable)
  {
    name: 'retry-after-unit',
    description:
      'the rate-limit 429 carries Retry-After "42s" (a duration with a unit, neither delay-seconds nor an HTTP-date; described as a string)',
    breaks: ['RATE-002'],
    level: 'notable',
  },
  // internal.ts: X-Upstream-Key: <the model's upstream key> on authenticated responses (a canary)
  {
    name: 'upstream-key-header',
    description: "authenticated responses carry X-Upstream-Key: <the model's sk-upstream- key>",
    breaks: ['SEC-001', 'SEC-002'],
  },
  // internal.ts: X-Upstream-Node: node-internal-<n> on every response (a canary)
  {
    name: 'node-header',
    description: 'responses carry X-Upstream-Node: node-internal-7',
    breaks: ['SEC-001', 'SEC-002'],
  },
  // internal.ts + openapi.ts: /v1/models entries carry purchase_cost (described so)
  {
    name: 'purchase-cost-field',
    description: 'each /v1/models entry carries purchase_cost: "0.0021" (and is described so)',
    breaks: ['SEC-002'],
  },
  // internal.ts + openapi.ts: /v1/models entries carry upstream_endpoint (described so)
  {
    name: 'routing-field-host',
    description: 'each /v1/models entry carries upstream_endpoint: "10.2.3.4:8443" (and is described so)',
    breaks: ['SEC-002'],
  },
  // ==== end of the scopes/tickets/payments/protections/internal block
  // ==== media (one block; keep together)
  // media/validate.ts: a job without the acknowledgement accepted
  {
    name: 'ack-missing-accepted',
    description: 'a media job without parameters.provider_processing_acknowledged is accepted',
    breaks: ['MJOB-001'],
  },
  // media/validate.ts: provider_processing_acknowledged false accepted
  {
    name: 'ack-false-accepted',
    description: 'a media job with provider_processing_acknowledged false is accepted',
    breaks: ['MJOB-001'],
  },
  // media/validate.ts: unknown top-level fields accepted
  {
    name: 'top-level-extra-accepted',
    description: 'a media job with an extra top-level field is accepted',
    breaks: ['MJOB-002'],
  },
  // media/validate.ts: the never-accepted frame_images accepted
  { name: 'frame-images-accepted', description: 'parameters.frame_images is accepted', breaks: ['MJOB-003'] },
  // media/validate.ts: quality accepted (and ignored) for wc-100010
  {
    name: 'foreign-param-accepted',
    description: 'wc-100010 accepts parameters.quality, which it does not have',
    breaks: ['MJOB-004'],
  },
  // media/validate.ts: output_format accepted for wc-100012
  {
    name: 'output-format-wc100012',
    description: 'wc-100012 accepts parameters.output_format, which it does not have',
    breaks: ['MJOB-004'],
  },
  // media/validate.ts: prompt length in UTF-16 units
  {
    name: 'prompt-utf16',
    description: 'prompts are counted in UTF-16 units (an emoji counts twice)',
    breaks: ['MJOB-006'],
  },
  // media/validate.ts: prompt counted before trimming
  {
    name: 'prompt-untrimmed',
    description: 'prompts are counted without trimming surrounding white space',
    breaks: ['MJOB-006', 'MJOB-007'],
  },
  // media/validate.ts: no UTF-8 byte cap
  {
    name: 'prompt-bytes-ignored',
    description: 'the 4000 UTF-8 byte cap of prompts is not enforced',
    breaks: ['MJOB-007', 'MJOB-006'],
  },
  // media/validate.ts: wc-100031 prompt minimum 1 instead of 3
  {
    name: 'min3-unenforced',
    description: 'wc-100031 accepts prompts of 1 or 2 characters',
    breaks: ['MJOB-006'],
  },
  // media/validate.ts: a text prompt accepted for wc-100018
  { name: 'prompt-wc100018', description: 'wc-100018 accepts a non-empty prompt', breaks: ['MJOB-008'] },
  // media/validate.ts: custom-size step not checked for wc-100040
  {
    name: 'size-step-ignored',
    description: 'wc-100040 accepts custom sizes off its 16-pixel step',
    breaks: ['MJOB-009'],
  },
  // media/validate.ts: custom-size aspect-ratio cap not checked
  {
    name: 'size-ratio-ignored',
    description: 'custom sizes beyond the maximum aspect ratio are accepted',
    breaks: ['MJOB-009'],
  },
  // media/validate.ts: wc-100013 refuses the list B presets list A lacks
  {
    name: 'list-b-refused',
    description: 'wc-100013 refuses list B presets such as auto_4K',
    breaks: ['MJOB-009'],
  },
  // media/validate.ts: wc-100034 refuses a middle aspect_ratio value (sampling may never send it)
  {
    name: 'aspect-4-1-refused',
    description: 'wc-100034 refuses its aspect_ratio 4:1, a listed value',
    breaks: ['MJOB-005'],
  },
  // media/validate.ts: custom sizes written W*H refused (presets with * still accepted)
  {
    name: 'custom-star-refused',
    description: 'custom sizes written with the separator * are refused; only WxH is read',
    breaks: ['MJOB-009'],
  },
  // media/validate.ts: the exact maximum pixel count of a custom size refused (< instead of <=)
  {
    name: 'max-pixels-exclusive',
    description: 'a custom size of exactly the maximum pixel count is refused',
    breaks: ['MJOB-009'],
  },
  // media/validate.ts: wc-100032 refuses its largest reference count (14 images)
  {
    name: 'ref-max-refused',
    description: 'wc-100032 refuses 14 reference images, its stated maximum',
    breaks: ['MJOB-010'],
  },
  // media/validate.ts: wc-100014 duration up to 31
  { name: 'duration-max-31', description: 'wc-100014 accepts duration 31', breaks: ['MJOB-005'] },
  // media/validate.ts: wc-100019 resolution 1080p (lower case) accepted
  {
    name: 'resolution-case',
    description: 'wc-100019 accepts resolution 1080p besides 1080P',
    breaks: ['MJOB-005'],
  },
  // media/validate.ts: one reference more than the maximum accepted
  {
    name: 'ref-max-off-by-one',
    description: 'a job with one reference image more than the model maximum is accepted',
    breaks: ['MJOB-010'],
  },
  // media/validate.ts: input_asset_ids and studio_asset_ids together accepted
  {
    name: 'both-id-fields',
    description: 'input_asset_ids and studio_asset_ids together are accepted',
    breaks: ['MJOB-011'],
  },
  // media/validate.ts: duplicate reference ids accepted (deduplicated silently)
  { name: 'duplicate-ids', description: 'duplicate reference ids are accepted', breaks: ['MJOB-012'] },
  // media/validate.ts: reference ids over 160 UTF-8 bytes dropped silently
  {
    name: 'ref-id-161',
    description: 'a reference id over 160 UTF-8 bytes is ignored and the job created',
    breaks: ['MJOB-012'],
  },
  // media/validate.ts: image and video references mixed for wc-100016
  {
    name: 'mix-image-video',
    description: 'wc-100016 accepts images and a video together',
    breaks: ['MJOB-013'],
  },
  // routes/media-inputs.ts: input ids of 161 bytes
  // (The router refuses so long a path parameter: the cleanup's DELETE of such an id is answered 400,
  // which the description does not declare for that operation.)
  {
    name: 'input-id-161',
    description: 'uploaded inputs get ids of 161 bytes',
    breaks: ['MIN-013', 'RESP-001'],
  },
  // media/validate.ts: a `kind` in the create request is refused, even the model's own
  { name: 'kind-refused', description: 'a media job that sends `kind` is refused', breaks: ['MJOB-002'] },
  // media/validate.ts: media model ids resolved without regard to case
  {
    name: 'media-model-case',
    description: 'a media job for WC-100010 (capitals) is created for wc-100010',
    breaks: ['MJOB-044'],
  },
  // media/validate.ts: wc-100016's video window starts at the upload rule's 1 s, not 1.8 s
  {
    name: 'video-window-short',
    description: 'wc-100016 accepts a reference video of 1 to 1.8 s',
    breaks: ['MJOB-041'],
  },
  // media/validate.ts: an image-only model counts a video reference as an image
  {
    name: 'video-as-image',
    description: 'a model that takes image references only accepts a video as one',
    breaks: ['MJOB-042'],
  },
  // media/validate.ts: `studio_asset_ids` is not a known name (refused as an unsupported parameter)
  {
    name: 'studio-ids-unknown',
    description: '`studio_asset_ids` alone is refused as an unsupported parameter',
    breaks: ['MJOB-043'],
  },
  // media/validate.ts: another tenant's input usable as a reference
  {
    name: 'foreign-input-accepted',
    description: "a job may reference another tenant's input",
    breaks: ['MIN-012'],
  },
  // media/validate.ts: a deleted input usable as a reference
  {
    name: 'deleted-input-accepted',
    description: 'a job may reference a deleted input',
    // The model then sees a delete of the input accepted while the job that references it is active.
    breaks: ['MIN-009', 'MIN-010'],
  },
  // routes/media-inputs.ts + media/validate.ts: the declared type is trusted, never sniffed
  {
    name: 'sniff-skipped',
    description: 'uploads are not sniffed: the declared Content-Type is trusted everywhere',
    breaks: ['MIN-005'],
  },
  // media/upload.ts: application/octet-stream accepted, typed by its bytes (201 is declared: no RESP-00x)
  {
    name: 'upload-octet-stream',
    description: 'an upload declared application/octet-stream is accepted and typed by its sniffed bytes',
    breaks: ['MIN-004'],
  },
  // routes/media-inputs.ts + media/openapi.ts: uppercase sha256 (pattern removed from the description)
  {
    name: 'sha-uppercase',
    description: 'input sha256 is uppercase hex (and described without the pattern)',
    breaks: ['MIN-002'],
  },
  // routes/media-inputs.ts: duration_ms 1 for images
  {
    name: 'image-duration-nonzero',
    description: 'image inputs report duration_ms 1',
    breaks: ['MIN-002', 'RESP-003'],
  },
  // routes/media-inputs.ts + media/openapi.ts: quota_remaining_bytes in the closed envelope (described)
  {
    name: 'envelope-extra-field',
    description: 'the MediaInputEnvelope carries quota_remaining_bytes (and is described so)',
    breaks: ['MIN-001'],
  },
  // routes/media-inputs.ts: expires_at on new inputs
  {
    name: 'expires-on-new',
    description: 'new inputs carry an expires_at 30 days ahead',
    breaks: ['MIN-003'],
  },
  // routes/media-inputs.ts: 8193-pixel edges accepted
  { name: 'edge-8193', description: 'an 8193-pixel image edge is accepted', breaks: ['MIN-006', 'RESP-003'] },
  // routes/media-inputs.ts + media/validate.ts: 31 s video accepted
  {
    name: 'video-31s',
    description: 'a 31 s video is accepted at upload and at job creation',
    breaks: ['MIN-006', 'RESP-003'],
  },
  // routes/media-inputs.ts + media/validate.ts: HEVC accepted
  {
    name: 'hevc-accepted',
    description: 'HEVC video is accepted at upload and at job creation',
    breaks: ['MIN-007'],
  },
  // routes/media-inputs.ts: a replayed upload creates another input
  {
    name: 'upload-replay-new',
    description: 'the same upload with the same Idempotency-Key creates a second input',
    breaks: ['MIN-008'],
  },
  // routes/media-inputs.ts: no active-job check on delete
  {
    name: 'delete-while-active',
    description: 'an input referenced by an active job can be deleted',
    breaks: ['MIN-010'],
  },
  // routes/media-inputs.ts: no input quota
  {
    name: 'quota-ignored',
    description: 'the input quota (10 GiB; 4096 bytes left for quota_nearly_full) is never enforced',
    breaks: ['MIN-011'],
  },
  // routes/media-jobs.ts: a replayed job creates another job and hold
  {
    name: 'job-replay-new',
    description: 'the same job with the same Idempotency-Key creates a second job and hold',
    breaks: ['MJOB-024'],
  },
  // media/view.ts: succeeded without asset_id
  {
    name: 'succeeded-no-asset',
    description: 'succeeded jobs carry no asset_id',
    breaks: ['MJOB-021', 'RESP-003'],
  },
  // media/store.ts + media/openapi.ts: progress_percent 101 (described without maximum)
  {
    name: 'progress-101',
    description:
      'jobs before their end report progress_percent 101 (described as an integer without maximum)',
    breaks: ['MJOB-022'],
  },
  // media/store.ts: a failed job reads as running later
  {
    name: 'failed-flips',
    description: 'a failed job reads as running two stages later',
    breaks: ['MJOB-025'],
  },
  // media/view.ts: failed jobs without error_code and error_message (notable: "may be present" for failed)
  {
    name: 'failed-no-error',
    description: 'failed jobs carry no error_code and no error_message',
    breaks: ['MJOB-023'],
    level: 'notable',
  },
  // auth.ts: assets served without a key
  {
    name: 'asset-no-key',
    description: 'GET /v1/media/assets/{id} answers without a key',
    breaks: ['MASSET-002'],
  },
  // routes/media-jobs.ts + routes/media-assets.ts: no owner check on jobs and assets
  {
    name: 'asset-other-tenant',
    description: 'another tenant can read a job and download its asset',
    breaks: ['MASSET-003'],
  },
  // routes/media-assets.ts: JPEG bytes (labelled image/png) for png output
  {
    name: 'asset-wrong-format',
    description: 'image jobs asking output_format png get JPEG bytes',
    breaks: ['MASSET-001'],
  },
  // media/catalog.ts: wc-100014 duration advertised and accepted up to 60
  {
    name: 'catalog-wider',
    description: 'the catalog advertises (and the server accepts) wc-100014 duration up to 60',
    breaks: ['MCAT-003'],
  },
  // routes/media-assets.ts + media/openapi.ts: a bare array (described so)
  {
    name: 'catalog-missing-data',
    description: 'GET /v1/media/models answers a bare array (and is described so)',
    breaks: ['MCAT-001'],
  },
  // media/catalog.ts + media/openapi.ts: capabilities as one comma-separated string (described so)
  {
    name: 'catalog-capabilities-string',
    description: 'media catalog capabilities are one comma-separated string (and described as a string)',
    // The description's string contradicts the contract's array: drift (OAS-003).
    breaks: ['MCAT-002', 'OAS-003'],
  },
  // media/view.ts + media/openapi.ts: no kind when the request sent none (described so)
  {
    name: 'kind-missing',
    description: 'jobs created without kind omit kind (and kind is described as optional)',
    breaks: ['MJOB-020'],
  },
  // routes/media-jobs.ts: media validation code bad_parameter
  {
    name: 'invalid-code',
    description: 'media job validation refusals carry code bad_parameter instead of invalid_request',
    breaks: ['MJOB-014'],
  },
  // media/catalog.ts: wc-900001 advertised with its bounds, enforced with almost none
  {
    name: 'undocumented-unenforced',
    description:
      'the undocumented wc-900001 is advertised as before but accepts prompts of 1 char to 4000 bytes, steps 1..1000 off its step, any style',
    breaks: ['MCAT-004'],
    level: 'notable',
  },
  // routes/media-jobs.ts: a settlement_pending job reads as 404
  {
    name: 'settlement-pending-lost',
    description: 'GET /v1/media/jobs/{id} of a job in settlement_pending answers 404',
    breaks: ['MJOB-026'],
    level: 'implied',
  },
  // routes/media-jobs.ts: a replay of a settlement_pending job creates another job and hold
  {
    name: 'settlement-replay-new-job',
    description:
      'repeating the create of a settlement_pending job with the same Idempotency-Key and body creates a new job',
    breaks: ['MJOB-026'],
    level: 'implied',
  },
  // routes/media-jobs.ts: a submission_uncertain job reads as 404
  {
    name: 'uncertain-job-lost',
    description: 'GET /v1/media/jobs/{id} of a job in submission_uncertain answers 404',
    breaks: ['MJOB-027'],
    level: 'implied',
  },
  // routes/media-jobs.ts: a replay of a submission_uncertain job creates another job and hold
  {
    name: 'uncertain-replay-new-job',
    description:
      'repeating the create of a submission_uncertain job with the same Idempotency-Key and body creates a new job',
    breaks: ['MJOB-024', 'MJOB-027'],
  },
  // ==== end of the media block
  // ==== transport (transport.ts; one block, keep together). Each fault hits one read endpoint. A
  // request that gets no complete response is reported under GEN-001 (the suite's client turns a
  // timeout, reset or short body into a TransportError, the test into a GEN-001 failure), whatever
  // the test checks; `breaks` also names the endpoint's own id so that the filtered run selects the
  // tests requesting it (GEN-001 alone selects only the response-conformance test).
  // transport.ts: GET /v1/balance holds the socket without answering (dropped by the server after 120 s)
  {
    name: 'transport-hang',
    description: 'GET /v1/balance never answers: no status line, the connection stays open (120 s)',
    breaks: ['GEN-001', 'BAL-001'],
    requestMs: 2000,
  },
  // transport.ts: GET /v1/usage resets the connection
  {
    name: 'transport-reset',
    description: 'GET /v1/usage resets the connection (TCP RST) without a response',
    breaks: ['GEN-001', 'USAGE-001'],
  },
  // transport.ts: GET /v1/ledger answers 500 (not described)
  {
    name: 'transport-500',
    description: 'GET /v1/ledger answers 500 with an APIError body',
    breaks: ['ERR-002', 'LEDGER-001', 'RESP-001'],
  },
  // transport.ts: GET /v1/models announces its whole length, sends half the body, then closes
  {
    name: 'transport-truncated',
    description: 'GET /v1/models sends half its body under a Content-Length of the whole, then closes',
    breaks: ['GEN-001', 'MODELS-001'],
  },
  // transport.ts: GET /v1/support/tickets answers 200 application/json with `{"data": [`
  {
    name: 'transport-invalid-json',
    description: 'GET /v1/support/tickets answers 200 application/json with a body that is not JSON',
    breaks: ['RESP-003', 'TICKET-002'],
  },
  // ==== end of the transport block
  // ==== sequences and races (race.ts; one block, keep together). The race faults open a delay window
  // (--race-window-ms, default 200 ms) between a check and its write: requests sent at once fall inside
  // it, one after the other never do, so only the concurrency tests see them. The replay faults show
  // only after a particular order of operations, which the model-based sequences produce.
  // routes/media-jobs.ts: creates with one Idempotency-Key inside the window each create a job
  {
    name: 'race-job-double',
    description: 'media job creates with one Idempotency-Key sent at once each create a job and a hold',
    breaks: ['MJOB-024'],
  },
  // routes/chat.ts: chat requests with one Idempotency-Key inside the window each execute and charge
  {
    name: 'race-chat-double',
    description: 'chat requests with one Idempotency-Key sent at once each execute and charge',
    breaks: ['IDEM-001'],
  },
  // routes/media-inputs.ts: uploads with one Idempotency-Key inside the window each create an input
  {
    name: 'race-upload-double',
    description: 'uploads with one Idempotency-Key sent at once each create an input',
    breaks: ['MIN-008'],
  },
  // routes/media-inputs.ts: uploads of the same bytes in flight at once share the first one's input,
  // whatever their Idempotency-Keys (a single-flight keyed by content, not by key; implied invariant)
  {
    name: 'race-upload-coalesce',
    description:
      'uploads of the same bytes sent at once with different Idempotency-Keys all answer one input',
    breaks: ['IDEM-004'],
    level: 'implied',
  },
  // routes/media-jobs.ts + media-inputs.ts: a window between checking the references and storing the job,
  // and between the delete's check for active jobs and the delete: whichever comes first, both succeed
  {
    name: 'race-delete-vs-job',
    description:
      'a delete and a job creation referencing the input, sent at once, both succeed: the job holds a deleted input',
    breaks: ['MIN-010'],
  },
  // routes/chat.ts: the ledger entry of a charge is written over a copy taken before the window
  {
    name: 'race-ledger-skip',
    description: 'chat charges settled at the same time lose ledger entries (the balance still moves)',
    breaks: ['LEDGER-002', 'LEDGER-003'],
    level: 'implied',
  },
  // routes/media-jobs.ts: a replayed create drops the job's references
  {
    name: 'replay-releases-input',
    description:
      "after a job's create is replayed, the inputs it references can be deleted while it is still active",
    breaks: ['MIN-010'],
  },
  // routes/chat.ts: a replay re-prices the settled usage record of the first call
  {
    name: 'replay-reprices-usage',
    description:
      'a replayed chat request is not charged again, but its usage record now shows 1% more charged_points',
    breaks: ['PTS-006'],
  },
  // ==== end of the sequences and races block
  // --- inputs --- (issue 22: inputs never sent, catalog vs behaviour)
  // routes/balance.ts: POST, PUT, PATCH and DELETE /v1/balance answer 200 {}
  {
    name: 'wrong-method-200',
    description:
      'DELETE (and POST, PUT, PATCH) /v1/balance answer 200, methods the endpoint table does not give',
    breaks: ['ERR-070'],
  },
  // app.ts: a known path called with another method answers a text/plain 405
  {
    name: 'wrong-method-plain',
    description:
      'a known path called with a method it is not given answers a text/plain 405, not the APIError',
    breaks: ['ERR-001'],
  },
  // routes/chat.ts: stream "true" or 1 is taken as its truth value
  {
    name: 'chat-stream-truthy',
    description: 'a chat request whose stream is the string "true" or the number 1 is accepted',
    breaks: ['CHAT-070'],
  },
  // routes/chat.ts: user of any type
  {
    name: 'chat-user-any',
    description: 'a chat request whose user is a number is accepted',
    breaks: ['CHAT-071'],
  },
  // routes/embeddings.ts: encoding_format compared whatever its case
  {
    name: 'embed-format-case',
    description: 'encoding_format FLOAT (capitals) is accepted as float',
    breaks: ['EMB-005'],
  },
  // routes/embeddings.ts: user of any type
  {
    name: 'embed-user-any',
    description: 'an embedding request whose user is a number is accepted',
    breaks: ['EMB-070'],
  },
  // routes/responses.ts: stream "true" or 1 is taken as its truth value
  {
    name: 'responses-stream-truthy',
    description: 'a responses call whose stream is the string "true" or the number 1 is accepted',
    breaks: ['RSP-070'],
  },
  // routes/responses.ts: a number or boolean input is taken as its text
  {
    name: 'responses-input-any',
    description: 'a responses call whose input is a number or a boolean is accepted',
    breaks: ['RSP-071'],
  },
  // routes/payments.ts: the method matched whatever its case
  {
    name: 'order-method-case',
    description: 'the payment method ALIPAY (capitals) is accepted as alipay',
    breaks: ['PAY-005'],
  },
  // routes/tickets.ts: numbers for subject, message and preferred_contact taken as their text
  {
    name: 'ticket-numbers-as-text',
    description: 'a ticket whose subject, message or preferred_contact is a number is accepted',
    breaks: ['TICKET-004', 'TICKET-005', 'TICKET-006'],
  },
  // media/validate.ts: the 160-byte bound of a reference id counts characters (such an id is then not
  // looked up and counts as an image, as under ref-id-161)
  {
    name: 'ref-id-chars',
    description:
      'a reference id of 160 characters and 161 UTF-8 bytes passes the 160-byte bound (counted in characters)',
    breaks: ['MJOB-012'],
  },
  // media/view.ts: a job reports another kind than its model's catalog kind
  {
    name: 'job-kind-mismatch',
    description:
      "a job's kind is not its model's catalog kind (image models' jobs say video_generation, video models' image_generation)",
    breaks: ['MJOB-070'],
  },
  // media/catalog.ts: wc-100015's reference says its aspect ratio does not follow the first frame
  {
    name: 'catalog-ratio-flag-false',
    description:
      'the catalog sets aspect_ratio_follows_first_frame false for wc-100015 ("ratio follows the first frame")',
    breaks: ['MCAT-003'],
  },
  // media/validate.ts: a sent kind other than video_generation is refused, even the model's own
  {
    name: 'kind-video-only',
    description: "an image or 3D job that sends its model's catalog kind (image_generation) is refused",
    breaks: ['MJOB-070'],
  },
  // errors.ts: the scope refusal (403 insufficient_scope) is {"error": "<message>"}
  {
    name: 'scope-refusal-flat',
    description: 'the refusal of a key without the scope is {"error": "<message>"}, not the APIError object',
    breaks: ['ERR-001', 'SCOPE-001'],
  },
  // errors.ts: the spend refusal (429 insufficient_points) is {"error": "<message>"}
  {
    name: 'spend-refusal-flat',
    description:
      'the refusal of a call the balance cannot cover is {"error": "<message>"}, not the APIError object',
    breaks: ['ERR-001'],
  },
  // errors.ts: the input quota refusal (429 input_quota_exceeded) is {"error": "<message>"}
  {
    name: 'quota-refusal-flat',
    description:
      'the refusal of an upload over the input quota is {"error": "<message>"}, not the APIError object',
    breaks: ['ERR-001', 'MIN-011'],
  },
  // --- corpus ---
  // routes/responses.ts: every increment is zero-length, the text arrives only in response.completed
  {
    name: 'responses-blank-deltas',
    description:
      "every response.output_text.delta carries delta: '' while the completed response has the text",
    breaks: ['RSP-005'],
    level: 'notable',
  },
  // routes/media-inputs.ts: one coding of a format refused at upload (media/sniff.ts measures the coding)
  {
    name: 'upload-refuses-progressive-jpeg',
    description: 'a progressive JPEG (SOF2) is refused at upload as not image/jpeg',
    breaks: ['MIN-085'],
  },
  {
    name: 'upload-refuses-lossless-webp',
    description: 'a lossless WebP (VP8L) is refused at upload as not image/webp',
    breaks: ['MIN-085'],
  },
  {
    name: 'webp-alpha-refused',
    description: 'a WebP with an alpha channel (VP8X with ALPH) is refused at upload',
    breaks: ['MIN-085'],
  },
  {
    name: 'png-alpha-refused',
    description: 'a PNG with an alpha channel (colour type 6) is refused at upload',
    breaks: ['MIN-085'],
  },
  {
    name: 'upload-refuses-moov-last',
    description: 'an MP4 whose moov box follows its mdat (no faststart) is refused at upload',
    breaks: ['MIN-085'],
  },
  // routes/media-inputs.ts: the measured duration is rounded to whole seconds, reported and validated so
  {
    name: 'duration-rounded-to-seconds',
    description:
      'video durations are rounded to whole seconds: 1.79 s reads 2000 ms (and passes the 1.8 s window), 0.5 s reads 1000 ms',
    breaks: ['MIN-002', 'MIN-006', 'MJOB-041'],
  },
  // routes/media-inputs.ts + media/validate.ts: the 30 s maximum compared in whole seconds
  {
    name: 'video-max-whole-seconds',
    description:
      'the 30 s video maximum is compared in whole seconds (floor), at upload and at job creation: 30.25 s is accepted',
    breaks: ['MIN-006', 'RESP-003'],
  },
  // media/validate.ts: wc-100016's window edges
  {
    name: 'video-window-min-exclusive',
    description:
      'wc-100016 refuses a reference video of exactly 1.8 s (the window minimum taken as exclusive)',
    breaks: ['MJOB-041'],
  },
  {
    name: 'video-window-min-1750',
    description: 'wc-100016 accepts reference videos from 1750 ms, 50 ms under the 1.8 s minimum',
    breaks: ['MJOB-041'],
  },
  // --- consist ---
  // billing.ts: the usage record of an embeddings call states 0.000001 more than its billing (and the ledger)
  {
    name: 'usage-charge-mismatch',
    description:
      "the usage record of an embeddings call states charged_points 0.000001 above the reply's billing.charged_points",
    breaks: ['USAGE-080'],
    level: 'implied',
  },
  // media/store.ts: a media job's charge moves the balance but writes no ledger entry
  {
    name: 'ledger-missing-media',
    description: "a succeeded media job's charge moves total_points but never appears in the ledger",
    breaks: ['LEDGER-003', 'LEDGER-002'],
    level: 'implied',
  },
  // routes/usage.ts: the second enterprise key keeps its own usage list (a copy taken at its first read)
  {
    name: 'enterprise-second-separate-usage',
    description:
      'the enterprise_second key lists the usage its account had at its first read; later calls of the other key never show',
    breaks: ['ENT-001'],
  },
  // media/store.ts: a deleted input keeps counting against the input quota
  {
    name: 'quota-not-released',
    description:
      'a deleted input (cleaned up) still counts against the account quota, so a re-upload is refused 429',
    breaks: ['MIN-080'],
    level: 'implied',
  },
  // routes/balance.ts: held_points leaves out the holds of media jobs (available = total - the shown held)
  {
    name: 'media-hold-unseen',
    description: "the balance's held_points leaves out the holds of open media jobs",
    breaks: ['BAL-004'],
    level: 'implied',
  },
  // billing.ts: a responses call lowers the balance by its charge + 0.001 (billing, usage and ledger amount say the charge)
  {
    name: 'responses-balance-off',
    description: 'each /v1/responses call lowers the balance by its charge + 0.001',
    breaks: ['BAL-004', 'LEDGER-002', 'LEDGER-003'],
    level: 'implied',
  },
  // media/view.ts: a charged job shows charged_points 0.01 below what its settlement took from the balance
  {
    name: 'media-charged-misreported',
    description:
      "a charged media job's charged_points is 0.01 below what its settlement took from total_points",
    breaks: ['BAL-004'],
    level: 'implied',
  },
  // --- applic ---
  // inference.ts: an id no catalog lists is answered on /v1/embeddings (by the account's embedding model)
  {
    name: 'embeddings-unknown-model-200',
    description:
      'POST /v1/embeddings answers a model id no catalog lists with 200 (chat and responses refuse it)',
    breaks: ['MODEL-003'],
  },
  // inference.ts: an id no catalog lists is answered on /v1/responses (by the account's responses model)
  {
    name: 'responses-unknown-model-200',
    description:
      'POST /v1/responses answers a model id no catalog lists with 200 (chat and embeddings refuse it)',
    breaks: ['MODEL-003'],
  },
  // media/validate.ts: a media job for an id no catalog lists runs as wc-100010
  {
    name: 'media-job-unknown-model-accepted',
    description: 'POST /v1/media/jobs creates a job for a model id no catalog lists (run as wc-100010)',
    breaks: ['MODEL-003'],
  },
  // inference.ts: the forbidden model is answered on /v1/embeddings (by the account's embedding model)
  {
    name: 'embeddings-forbidden-callable',
    description:
      "POST /v1/embeddings answers a model outside the account's catalog (chat still refuses it with 403)",
    breaks: ['MODELS-004'],
  },
  // inference.ts: the forbidden model is answered on /v1/responses (by the account's responses model)
  {
    name: 'responses-forbidden-callable',
    description:
      "POST /v1/responses answers a model outside the account's catalog (chat still refuses it with 403)",
    breaks: ['MODELS-004'],
  },
  // routes/embeddings.ts: the legacy Accept header is ignored on embeddings only
  {
    name: 'legacy-embeddings-points',
    description: 'POST /v1/embeddings keeps the points fields under the legacy currency Accept header',
    breaks: ['LEGACY-001'],
  },
  // routes/responses.ts: the legacy Accept header is ignored on non-streamed responses only
  {
    name: 'legacy-responses-points',
    description:
      'POST /v1/responses (not streamed) keeps the points fields under the legacy currency Accept header',
    breaks: ['LEGACY-001'],
  },
  // media/validate.ts: duplicate ids accepted under studio_asset_ids (refused under input_asset_ids)
  {
    name: 'studio-ids-duplicate-accepted',
    description: 'duplicate reference ids are accepted under studio_asset_ids only',
    breaks: ['MJOB-012'],
  },
  // media/validate.ts: another tenant's input accepted under studio_asset_ids
  {
    name: 'studio-ids-foreign-accepted',
    description: "another tenant's input is accepted as a reference under studio_asset_ids only",
    breaks: ['MJOB-012', 'MIN-012'],
  },
  // media/validate.ts: the reference count maximum is not checked under studio_asset_ids
  {
    name: 'studio-ids-count-unchecked',
    description: "more references than the model's maximum are accepted under studio_asset_ids only",
    breaks: ['MJOB-010'],
  },
  // media/validate.ts: an image-only model counts a video as an image under studio_asset_ids only
  {
    name: 'studio-ids-video-as-image',
    description: 'an image-only model accepts a video reference under studio_asset_ids only',
    breaks: ['MJOB-042'],
  },
  // media/validate.ts: images and a video mixed under studio_asset_ids only
  {
    name: 'studio-ids-mix-accepted',
    description: 'wc-100016 accepts images and a video together under studio_asset_ids only',
    breaks: ['MJOB-013'],
  },
  // media/validate.ts: wc-100016's video window starts at 1 s under studio_asset_ids only
  {
    name: 'studio-ids-short-video',
    description: 'wc-100016 accepts a reference video of 1 to 1.8 s under studio_asset_ids only',
    breaks: ['MJOB-041'],
  },
  // auth.ts: a key restricted to inference is refused on POST /v1/embeddings
  {
    name: 'scope-embeddings-refused',
    description:
      'a key restricted to the inference scope is refused on POST /v1/embeddings (chat and responses accept it)',
    breaks: ['SCOPE-002'],
  },
  // auth.ts: a key restricted to media is refused on GET /v1/media/jobs/{job_id}
  {
    name: 'scope-media-job-read-refused',
    description:
      'a key restricted to the media scope is refused on GET /v1/media/jobs/{job_id} (it may create jobs)',
    breaks: ['SCOPE-002'],
  },
  // routes/chat.ts: a streamed chat call for an unknown model id is answered by the chat model
  {
    name: 'chat-stream-unknown-model-200',
    description:
      'a streamed chat call naming a model id no catalog lists is answered 200 (not streamed: refused)',
    breaks: ['MODEL-003'],
  },
  // routes/responses.ts: a streamed responses call skips the native-responses check
  {
    name: 'responses-stream-any-model',
    description:
      'a streamed responses call for a model without native responses support is answered (not streamed: refused)',
    breaks: ['RSP-002'],
  },
  // --- end applic ---
  // --- budget ---
  // billing.ts + media/view.ts + openapi.ts: every billable reply reports its spend as JSON numbers (described so)
  {
    name: 'spend-numbers',
    description:
      'billing charged/released points and media job pending/charged/released points are JSON numbers (described so)',
    breaks: ['PTS-001'],
  },
  // --- traffic ---
  // inference.ts: a stream buffered on the way (a proxy that holds the body), streamed in name only
  {
    name: 'stream-buffered',
    description:
      'every text/event-stream reply (chat and responses) is sent whole at once, all its events in one write',
    breaks: ['RSP-090'],
    level: 'notable',
  },
] as const satisfies readonly Fault[];

const VARIANT_LIST = [
  // routes/models.ts + openapi.ts
  {
    name: 'models-envelope',
    readings: ['MODELS-001'],
    description:
      '/v1/models answers {models:[{model_id, features, max_context_tokens, ...prices, points_configured}]}',
  },
  // app.ts: preSerialization adds x_vendor to every JSON object (the closed MediaInputEnvelope excepted)
  {
    name: 'extra-fields',
    readings: ['RESP-003', 'MIN-001'],
    description:
      'every JSON object in responses (errors and nested entries too) carries an extra x_vendor object',
  },
  // app.ts + openapi.ts
  {
    name: 'no-request-id',
    readings: ['GEN-004'],
    description: 'no X-Request-ID header is sent or described',
  },
  // errors.ts: other codes and types, except 401 invalid_api_key and the stated invalid_request
  {
    name: 'error-codes',
    readings: ['ERR-001', 'ERR-002'],
    description:
      'error codes and types other than the stated ones differ (403 permission_denied, 404 route_not_found, ...)',
  },
  // errors.ts: expired keys get 403 key_expired
  {
    name: 'expired-403',
    readings: ['AUTH-008'],
    description: 'an expired key answers 403 key_expired instead of 401',
  },
  // app.ts + state.ts: 160-byte request ids, ~120-byte model ids
  {
    name: 'long-ids',
    readings: ['GEN-004', 'MODELS-001'],
    description: 'X-Request-ID values are 160 bytes; text model ids are about 120 bytes',
  },
  // routes/balance.ts + openapi.ts
  {
    name: 'balance-envelope',
    readings: ['BAL-001'],
    description: '/v1/balance answers {data:{total_points, held_points, available_points, unit}}',
  },
  // routes/models.ts + openapi.ts: no price fields and no points_configured on the unpriced model
  {
    name: 'unpriced-omitted',
    readings: ['MODELS-003'],
    description: 'the unpriced model carries neither price fields nor points_configured',
  },
  // state.ts: long fractional prices and balances, hence charges with many decimals
  {
    name: 'fractional-prices',
    readings: ['PTS-001'],
    description:
      'prices (18 decimals) and balances with many decimals, so charges and ledger amounts have many decimals',
  },
  // routes/public.ts + openapi.ts
  {
    name: 'healthz-text',
    readings: ['HEALTH-001', 'HEALTH-002', 'OAS-005'],
    description: '/healthz answers text/plain "ok" and /status text/html',
  },
  // openapi.ts
  {
    name: 'openapi-default-errors',
    readings: ['RESP-001'],
    description: 'the description declares errors under `default` instead of explicit statuses',
  },
  // routes/chat.ts + openapi.ts
  {
    name: 'chat-stream-ndjson',
    readings: ['CHAT-010'],
    description: 'a streamed chat reply is application/x-ndjson (one chunk per line), not SSE',
  },
  // billing.ts + openapi.ts
  { name: 'no-billing', readings: ['PTS-005'], description: 'inference replies carry no billing object' },
  // routes/ledger.ts + openapi.ts
  {
    name: 'ledger-ascending',
    readings: ['LEDGER-001', 'LEDGER-002'],
    description: '/v1/ledger answers {entries:[oldest first], has_more:false}',
  },
  // billing.ts + openapi.ts
  {
    name: 'usage-envelope',
    readings: ['USAGE-001'],
    description: '/v1/usage answers {records:[...]} with other field names (charged_points and model kept)',
  },
  // errors.ts + openapi.ts
  {
    name: 'idem-conflict-422',
    readings: ['IDEM-001'],
    description: 'a reused Idempotency-Key with another body answers 422, not 409',
  },
  // routes/responses.ts
  {
    name: 'responses-extra-events',
    readings: ['RSP-004', 'RSP-006'],
    description: 'streamed responses carry extra events (response.in_progress, content_part.added, ...)',
  },
  // errors.ts + openapi.ts
  {
    name: 'unknown-model-403',
    readings: ['MODEL-003'],
    description: 'a model id no catalog knows answers 403 instead of 404',
  },
  // ==== tickets, payments, protections (one block; keep together)
  // routes/payments.ts: enterprise tenants may list the payment methods (creation stays refused)
  {
    name: 'enterprise-methods-allowed',
    readings: ['PAY-001'],
    description: 'GET /v1/payment-methods answers 200 to enterprise tenants too',
  },
  // routes/tickets.ts + openapi.ts
  {
    name: 'ticket-shape',
    readings: ['TICKET-001', 'TICKET-002'],
    description:
      'the ticket object is {ticket_id, state, category, topic, body, preferred_contact?, created_at}',
  },
  // routes/payments.ts + openapi.ts
  {
    name: 'order-status-pending',
    readings: ['PAY-003'],
    description: 'a new payment order reports status "pending" and omits qr_code',
  },
  // guards.ts + openapi.ts
  {
    name: 'ratelimit-no-retry-after',
    readings: ['RATE-001', 'RATE-002'],
    description: 'the rate-limit 429 carries no Retry-After header',
  },
  // ==== end of the tickets/payments/protections block
  // ==== media (one block; keep together)
  // media/catalog.ts: eight of the sixteen models
  {
    name: 'media-subset',
    readings: ['MCAT-001', 'MCAT-003'],
    description: 'the media catalog lists 8 of the 16 documented models; the others answer 403',
  },
  // routes/media-inputs.ts + openapi.ts
  { name: 'input-200', readings: ['MIN-001'], description: 'uploads answer 200 instead of 201' },
  // routes/media-inputs.ts + media/validate.ts: type and codec checked at job creation
  {
    name: 'sniff-at-job',
    readings: ['MIN-005'],
    description:
      'content type and codec are checked at job creation: mismatched or HEVC uploads become inputs, jobs using them are refused',
  },
  // media/view.ts + media/openapi.ts
  {
    name: 'progress-object',
    readings: ['MJOB-022'],
    description: 'job progress is {phase, updated_at, eta_seconds}',
  },
  // routes/media-*.ts + errors.ts
  {
    name: 'foreign-ids-403',
    readings: ['MASSET-002', 'MASSET-003'],
    description: "another tenant's inputs, jobs and assets answer 403 instead of 404",
  },
  // routes/media-jobs.ts + openapi.ts
  { name: 'job-202', readings: ['MJOB-020'], description: 'media job creation answers 202 instead of 201' },
  // routes/media-jobs.ts: the first create of each Idempotency-Key creates the job, then drops the connection
  {
    name: 'create-drop-once',
    readings: ['GEN-001', 'MJOB-027'],
    description:
      'the first job create of each Idempotency-Key creates the job and drops the connection unanswered; its replay returns the job',
  },
  // ==== end of the media block
  // openapi.ts: a pattern in ECMA-262 syntax that RE2 cannot run (JSON Schema patterns are ECMA-262)
  {
    name: 'openapi-lookahead-pattern',
    readings: ['OAS-001', 'RESP-003'],
    description: "the description's model entry id has pattern ^(?!\\s)\\S+$ (a lookahead)",
  },
  // guards.ts: "four guards exist per account ... requests per minute, tokens per minute, concurrency and
  // spend"; a 429 "rate limit or protection" may meet any request
  {
    name: 'guard-429-sometimes',
    readings: ['RATE-001'],
    description:
      'every 5th POST without an Idempotency-Key (every 25th with one) of an account to chat, responses, embeddings or media jobs is answered 429 rate_limited with Retry-After: 1 (a guard tripping)',
  },
  // media/catalog.ts: wc-100018's prompt "must be empty", so no byte cap binds
  {
    name: 'empty-prompt-zero-bytes',
    readings: ['MCAT-003', 'MJOB-008'],
    description:
      "wc-100018's catalog entry advertises prompt_contract.maximum_utf8_bytes 0 (its prompt must be empty)",
  },
  // auth.ts: "a 404 is also a refusal (the order of lookup and scope check is not shown)" (judging.md)
  {
    name: 'scope-404-on-ids',
    readings: ['SCOPE-001'],
    description:
      'an out-of-scope key gets 404 not_found on a path naming a resource id (job, input, asset, ticket), 403 elsewhere',
  },
  // routes/payments.ts + start.ts: "above a configured minimum", not shown (judging.md)
  {
    name: 'payment-min-unstated',
    readings: ['PAY-003', 'PAY-006'],
    description:
      'payment orders need more than 2000.00 CNY, a minimum the suite is not told (no limits.payment_min_cny), and the body is validated before the account kind',
  },
  // internal.ts + openapi.ts: "What the customer is charged is not a secret" (judging.md)
  {
    name: 'customer-cost-field',
    readings: ['SEC-002'],
    description:
      "each /v1/models entry carries cost: its request price in points (the customer's own bill, not a purchase cost; described so)",
  },
  // routes/media-jobs.ts: settlement_pending "keep tracking the same job; do not generate again"
  {
    name: 'settlement-replay-refused',
    readings: ['MJOB-024', 'MJOB-026'],
    description:
      'repeating the create of a settlement_pending job with the same Idempotency-Key is refused 409 (do not generate again), not answered with the job',
  },
  // openapi.ts: "the catalog is extended over time"
  {
    name: 'openapi-model-enum',
    readings: ['OAS-003'],
    description:
      "the description's MediaJobCreate.model enumerates the deployed ids (8 documented ones and the reference's own), not the 16 documented",
  },
  // openapi.ts: "the machine-readable description is OpenAPI 3.1 at /openapi.json", no size limit
  {
    name: 'openapi-large-enum',
    readings: ['OAS-001', 'OAS-006'],
    description:
      "the description's model entry has an optional `languages` field whose items enumerate 2,500 language codes (beyond the suite's 2,000-value bound on one enum)",
  },
  // media/validate.ts: "Foreign or deleted ids may be 403 or 404" (judging.md); an unknown id is no named cause of invalid_request
  {
    name: 'ref-unknown-404',
    readings: ['MJOB-012', 'MJOB-014'],
    description:
      'a job referencing an input id that is unknown, foreign or deleted is refused 404 not_found, not 400 invalid_request',
  },
  // errors.ts + guards.ts: 429 may meet any request ("rate limit or protection"), invalid ones too
  {
    name: 'guard-429-refusals',
    readings: ['RATE-001'],
    description:
      'every 3rd 4xx refusal of an account is answered 429 rate_limited with Retry-After: 1 instead, and every 7th read of its balance, catalogs, usage or ledger 429 without Retry-After (a guard that trips on invalid requests and reads)',
  },
  // media/validate.ts: prompts trimmed of ASCII white space only (NBSP, U+3000 count as characters)
  {
    name: 'trim-ascii-only',
    readings: ['MJOB-006'],
    description: 'prompts are trimmed of ASCII white space only; other Unicode white space counts',
  },
  // state.ts + routes/media-inputs.ts: a real account that runs dry mid-run (issue 12)
  {
    name: 'account-runs-out',
    readings: ['MJOB-026', 'MIN-010'],
    description:
      'the primary account starts with 50 points (0 held); a job it cannot pay stays settlement_pending forever and still holds its inputs (their delete answers 409)',
  },
  // app.ts + media/store.ts: longer generation times (the start option mediaJobMs sets any)
  {
    name: 'jobs-slow',
    readings: ['MJOB-021'],
    description:
      'image and 3D jobs take 2 s and video jobs 6 s instead of 0.6 s (a suite must not assume how long generation takes)',
  },
  // guards.ts: a requests-per-minute guard on every account (start option rateLimitPerMinute)
  {
    name: 'guard-rpm',
    readings: ['RATE-001', 'RATE-002'],
    description:
      'every account has a requests-per-minute guard of 6000 (a bucket of 1000 refilled at 100 a second): past it, 429 rate_limited with Retry-After in whole seconds',
  },
  // legacy.ts + openapi.ts: "selects the legacy amount fields"; their names and the reply's media type are not shown
  {
    name: 'legacy-credits-json',
    readings: ['PTS-004', 'LEGACY-001'],
    description:
      'the legacy currency format names its amounts the older *_credits way (total_credits, charged_credits, amount_credits, ...) and is sent as application/json (described so)',
  },
  // openapi.ts: a Response Object without content leaves its payload undescribed
  {
    name: 'openapi-errors-undescribed',
    readings: ['RESP-002'],
    description: 'the description declares every error response with a description only, no content',
  },
  // openapi.ts: replies described inside the documented ranges
  {
    name: 'openapi-narrow-responses',
    readings: ['OAS-003'],
    description:
      "the description gives a chat reply's message role as enum [assistant] and an embedding reply's token counts a minimum of 1",
  },
  // routes/balance.ts + openapi.ts: "the unit is `service_points`" is the unit of points, not of everything
  {
    name: 'balance-storage-unit',
    readings: ['PTS-003'],
    description:
      "the balance also carries the account's input space, storage: {limit: 10737418240, unit: bytes} (described so)",
  },
  // routes/embeddings.ts + openapi.ts: the contract gives no status for the embedding list
  {
    name: 'embeddings-201',
    readings: ['EMB-001'],
    description: 'a valid embedding request is answered 201 (described so), not 200',
  },
  // routes/chat.ts: the chat usage object is not closed; only its token fields "are not points"
  {
    name: 'usage-points-field',
    readings: ['PTS-005'],
    description:
      'chat usage carries charged_points (the settled charge, also in billing) beside its token counts',
  },
  // --- corpus ---
  // routes/responses.ts: "carries a text increment" does not say the increment is never zero-length
  {
    name: 'responses-zero-length-delta',
    readings: ['RSP-005'],
    description:
      "the stream's first response.output_text.delta carries a zero-length increment (delta: ''), before the text's",
  },
  // routes/media-inputs.ts: the contract defines the delete of a ready input only
  {
    name: 'input-delete-idempotent',
    readings: ['MIN-009'],
    description: "a repeated DELETE of the caller's already deleted input answers 204 again (idempotent)",
  },
  // --- transient ---
  // transport.ts: a load balancer that drops an idle kept-alive connection just as the client reuses it
  {
    name: 'keepalive-close-on-reuse',
    readings: ['GEN-001'],
    description:
      'every 4th request that arrives on a reused kept-alive connection is read, then its socket is closed without a byte of reply',
  },
  // --- budget ---
  // billing.ts + media/view.ts + openapi.ts: no billable reply reports its spend (only the balance shows it)
  {
    name: 'spend-unreported',
    readings: ['PTS-005'],
    description:
      'inference replies carry no billing object and media job replies no points fields (the MediaJob table lists none; the balance and ledger show the spend)',
  },
] as const satisfies readonly Variant[];

export type FaultName = (typeof FAULT_LIST)[number]['name'];
export type VariantName = (typeof VARIANT_LIST)[number]['name'];

export const FAULTS: readonly Fault[] = FAULT_LIST;
export const VARIANTS: readonly Variant[] = VARIANT_LIST;

export function parseFault(name: string | undefined): FaultName | undefined {
  return pick(name, FAULT_LIST, 'fault');
}

export function parseVariant(name: string | undefined): VariantName | undefined {
  return pick(name, VARIANT_LIST, 'variant');
}

function pick<N extends string>(
  name: string | undefined,
  list: readonly { name: N }[],
  what: string,
): N | undefined {
  if (name === undefined || name === '') return undefined;
  const found = list.find((entry) => entry.name === name);
  if (!found) {
    throw new Error(`Unknown ${what} "${name}". Valid ${what}s: ${list.map((e) => e.name).join(', ')}`);
  }
  return found.name;
}
