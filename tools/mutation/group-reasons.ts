/**
 * The seeded faults that show as more than one group of findings, each with why (issue 39: one seeded
 * fault, one group; a few two, with the reason). What stays apart is what a user fixes apart, or a
 * fact two checks place differently: never one cause that src/report/groups.ts could fold without
 * folding distinct rules a target can break alone. The matrix prints each such row with its reason, and
 * names the rows beyond one group that have none here (a grouping to look at).
 */
const DESCRIBED =
  'the reference serves a description built from the table the fault patches, so the description itself documents the deviation (OAS-003, no exchange): a second thing to fix, apart from the replies';
const EDGE =
  'the upload accepts what its own description bounds (RESP-003 on POST /v1/media/inputs) and the job that references it is accepted (MIN-006 on POST /v1/media/jobs): two endpoints, and a target whose description admits the size fails MIN-006 alone';
const LEAK =
  'a header named like an upstream or internal one (SEC-002) that carries a secret (SEC-001): two rules a target breaks apart (a secret in a body; such a header without one)';

const CRASH =
  'a malformed job makes the server fail: no refusal where the rule wants one (MJOB-001, MJOB-002 or MJOB-012), a 500 without the APIError shape (ERR-002) and a status its description does not declare (RESP-001): three rules a target breaks apart (a described 4xx without the shape breaks ERR-002 alone)';

/** A place fault whose refusal is a server error (places.ts refusalFaults: where another 4xx is an allowed reading). */
const REFUSAL_CRASH =
  "the refusal the rule wants is a 500 (another 4xx there is an allowed reading, so the broken form is a server error): no refusal with the rule's status, a 500 (ERR-002) and a status its description does not declare (RESP-001): rules a target breaks apart";

export const GROUP_REASONS: Readonly<Record<string, string>> = {
  'place:MODEL-004:POST:/v1/responses:form=streamed': REFUSAL_CRASH,
  'place:MODEL-004:POST:/v1/responses:form=not:streamed': REFUSAL_CRASH,
  'body-shape-unchecked': CRASH,
  'parameters-shape-unchecked': CRASH,
  'ref-id-type-unchecked': CRASH,
  'usage-tokens-as-strings': DESCRIBED,
  'embed-1023': DESCRIBED,
  'catalog-capabilities-string': DESCRIBED,
  'model-jobs-refused':
    "every job of one model refused: its covering design lays each refused value at its own rule (MJOB-005 for the parameters' values, MJOB-006/MJOB-007 for the prompts) and a lifecycle test's job at MJOB-020: a target that refuses one value breaks one of them alone",
  'edge-8193': EDGE,
  'edge-height-unchecked': EDGE,
  'video-31s': EDGE,
  'video-max-whole-seconds': EDGE,
  'models-forbidden-listed':
    "the catalog lists a model the target declares outside it (MODELS-004 on GET /v1/models) and the calls with it are answered (MODEL-002 and MODELS-004 on the calls): the catalog and the calls' authorisation are two things to fix, which a target breaks apart (a model listed and refused; one not listed and answered)",
  'concurrency-guard-503':
    'the guard\'s 503 is advisory twice over (judging.md: "a 502/503/504" never promoted): ERR-003 notes every 503 as a model or upstream unavailable, RATE-004 notes it as a guard\'s refusal under another status than 429; which one it was the answer does not say',
  'ratelimit-plain':
    "the guard's text/plain 429 is met by the burst of reads (GET /v1/balance) and by the burst of chat calls (POST /v1/chat/completions), which RATE-001 sends because what the guard counts is not stated: one guard, answered on two endpoints that the groups keep apart",
  'node-header': LEAK,
  'upstream-key-header': LEAK,
  'duration-rounded-to-seconds':
    'every duration rounded to whole seconds: the upload reports the rounded value (MIN-002), and two bounds judge it (MJOB-041 at 1.5 s, MIN-006 at 30.25 s): three rules a target breaks apart',
  'idem-double-charge':
    'a replay charged again (IDEM-001) and a replay in the legacy currency format charged again (IDEM-003), which a target breaks alone (the legacy-reexecute fault)',
  'responses-replay-new':
    'a /v1/responses replay charged again (IDEM-001) and one in the legacy currency format charged again (IDEM-003), which a target breaks alone (the legacy-responses-reexecute fault)',
  'responses-unnamed-events':
    'events without a name (RSP-004), so no terminal event either (RSP-006): a rule a target breaks alone (a stream cut before its end)',
  'responses-empty-delta':
    'events without data (RSP-004) and a delta event without its text increment (RSP-005): two rules of the stream a target breaks apart',
  'responses-json-stream':
    "a stream sent as application/json: the stream's rule (RSP-003, the content type) and the description's (RESP-003, a body that is no JSON, at the description's location) on one reply",
  'transport-invalid-json':
    "a list that is no JSON: the tickets rule reads no list (TICKET-002) and the description's check finds no JSON (RESP-003, at the description's location) in one reply",
  'prompt-bytes-ignored':
    "two properties, the count bound (MJOB-006) and the UTF-8 byte cap (MJOB-007), each shrink to their own counterexample; a property's case is not typed as let through (its mismatch may be a wrong error code), so the two do not fold as cases of one endpoint",
  'input-id-161':
    'an input id past 160 bytes (MIN-013) and DELETE of that id answering a 400 its operation does not declare (RESP-001): a consequence, on another endpoint',
};
