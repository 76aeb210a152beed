/**
 * The request rules the contract states as a body's shape, judged by the documented request schemas
 * (schemas/): which rules a request body breaks, each under its requirement. A capture's requests are
 * judged by it (src/traffic/rules.ts: a body that breaks one must be refused); test/unit/request-rules.test.ts
 * holds it to the case tables the live suites send (fixtures/cases/), so both sides give one verdict.
 */
import type { ErrorObject } from 'ajv';
import { isPlainObject } from '../checks/json.ts';
import { memoize } from '../memo.ts';
import { valueAt } from '../openapi/document.ts';
import { documented } from '../openapi/documented.ts';
import { withoutBranchSummaries } from '../openapi/fallback.ts';

/** A requirement a request body can break, and what a capture must hold to judge it. */
export interface RequestRule {
  id: string;
  needs: string;
}

interface FieldRule extends RequestRule {
  /** The field's pointer, `*` standing for any one segment (an array index). */
  at: string;
  /** Only for this schema keyword (the rule of one constraint on an object, not of the object). */
  keyword?: string;
  /** Not for the field's absence: that breaks the rule of the object holding it. */
  valueOnly?: true;
}

interface RequestShape {
  method: 'POST';
  path: string;
  /** The documented request schema (schemas/). */
  schema: string;
  /** The rule of each field. A field no rule names is not judged (the contract states nothing there). */
  fields: FieldRule[];
  /** The rule of a field the schema does not name, where the contract closes the body. */
  unknown?: RequestRule;
}

/** The names MediaJobCreate never accepts, as its documented schema lists them (`parameters`' propertyNames). */
function neverAccepted(): string[] {
  const parameters = valueAt(documented().file('media-job-create.json'), '/$defs/parameters') as {
    propertyNames: { not: { enum: string[] } };
  };
  return parameters.propertyNames.not.enum;
}

const CHAT_008 = {
  id: 'CHAT-008',
  needs: 'a chat request whose messages are missing, not an array, or lack role or content',
};
const MJOB_003 = { id: 'MJOB-003', needs: 'a media job request with a name that is never accepted' };
const MJOB_001 = {
  id: 'MJOB-001',
  needs: 'a media job request without provider_processing_acknowledged = true',
};

let shapes: RequestShape[] | undefined;
/** The documented request bodies and the rule of each of their fields ("Chat request", "Embedding request", ...). */
export function requestShapes(): readonly RequestShape[] {
  shapes ??= [
    {
      method: 'POST',
      path: '/v1/chat/completions',
      schema: 'chat-completion-request.json',
      // "Rejection of unknown fields in chat requests" is not stated (judging.md): no `unknown` rule.
      fields: [
        { at: '/model', id: 'CHAT-009', needs: 'a chat request without a string model' },
        { at: '/messages', ...CHAT_008 },
        {
          at: '/messages/*/role',
          valueOnly: true,
          id: 'CHAT-011',
          needs: 'a chat request with a message role other than system, developer, user or assistant',
        },
        {
          at: '/max_tokens',
          id: 'CHAT-007',
          needs: 'a chat request with a max_tokens that is not an integer >= 0',
        },
        { at: '/temperature', id: 'CHAT-005', needs: 'a chat request with a temperature outside 0 to 2' },
        { at: '/top_p', id: 'CHAT-006', needs: 'a chat request with a top_p outside 0 to 1' },
        { at: '/stream', id: 'CHAT-070', needs: 'a chat request with a stream that is not a boolean' },
        { at: '/user', id: 'CHAT-071', needs: 'a chat request with a user that is not a string' },
      ],
    },
    {
      method: 'POST',
      path: '/v1/responses',
      schema: 'responses-request.json',
      // "Other request fields ... are not shown": no `unknown` rule.
      fields: [
        { at: '/input', id: 'RSP-071', needs: 'a responses request whose input is a number or a boolean' },
        { at: '/stream', id: 'RSP-070', needs: 'a responses request with a stream that is not a boolean' },
      ],
    },
    {
      method: 'POST',
      path: '/v1/embeddings',
      schema: 'embedding-request.json',
      fields: [
        { at: '/model', id: 'EMB-006', needs: 'an embedding request without a string model' },
        {
          at: '/input',
          id: 'EMB-003',
          needs: 'an embedding request whose input is not one text string of at least 1 character',
        },
        { at: '/dimensions', id: 'EMB-004', needs: 'an embedding request with dimensions other than 1024' },
        {
          at: '/encoding_format',
          id: 'EMB-005',
          needs: 'an embedding request with an encoding_format other than float',
        },
        { at: '/user', id: 'EMB-070', needs: 'an embedding request with a user that is not a string' },
      ],
      unknown: { id: 'EMB-002', needs: 'an embedding request with a field EmbeddingRequest does not name' },
    },
    {
      method: 'POST',
      path: '/v1/media/jobs',
      schema: 'media-job-create.json',
      // The prompt's presence and bounds are the model table's (an undocumented model's are not stated);
      // `kind` has no stated values.
      fields: [
        { at: '/model', id: 'MJOB-044', needs: 'a media job request without a string model' },
        { at: '/parameters', ...MJOB_001 },
        { at: '/parameters/provider_processing_acknowledged', ...MJOB_001 },
        ...neverAccepted().flatMap((n) => [
          { at: `/${n}`, ...MJOB_003 },
          { at: `/parameters/${n}`, ...MJOB_003 },
        ]),
        {
          at: '/parameters',
          keyword: 'not',
          id: 'MJOB-011',
          needs: 'a media job request with both input_asset_ids and studio_asset_ids',
        },
        ...['input_asset_ids', 'studio_asset_ids'].map((n) => ({
          at: `/parameters/${n}`,
          valueOnly: true as const,
          id: 'MJOB-012',
          needs:
            'a media job request whose reference ids are not an array of unique strings of 1 to 160 characters',
        })),
      ],
      unknown: {
        id: 'MJOB-002',
        needs: 'a media job request with a top-level field other than kind, model, prompt and parameters',
      },
    },
    {
      method: 'POST',
      path: '/v1/support/tickets',
      schema: 'support-ticket-create.json',
      fields: [
        {
          at: '/category',
          id: 'TICKET-003',
          needs: 'a ticket without a category of enterprise_onboarding, billing, api_access or technical',
        },
        {
          at: '/subject',
          id: 'TICKET-004',
          needs: 'a ticket without a single-line subject of at most 120 characters',
        },
        { at: '/message', id: 'TICKET-005', needs: 'a ticket without a message of at most 2000 characters' },
        {
          at: '/preferred_contact',
          id: 'TICKET-006',
          needs: 'a ticket whose preferred_contact is not a single line of at most 160 characters',
        },
      ],
      unknown: { id: 'TICKET-007', needs: 'a ticket with a field the create parameters do not name' },
    },
    {
      method: 'POST',
      path: '/v1/payment-orders',
      schema: 'payment-order-create.json',
      // The configured minimum is not shown: only the stated upper bounds and format of amount_cny.
      fields: [
        { at: '/method', id: 'PAY-005', needs: 'a payment order without a method of alipay or wechat_pay' },
        {
          at: '/amount_cny',
          id: 'PAY-006',
          needs: 'a payment order without an amount_cny string of at most two decimals and at most 100000',
        },
        {
          at: '/note',
          id: 'PAY-007',
          needs: 'a payment order whose note is not a single line of at most 120 characters',
        },
      ],
    },
  ];
  return shapes;
}

/** Every rule a request body can break, once per id (what a capture must hold to judge each). */
export function requestRules(): RequestRule[] {
  const byId = new Map<string, RequestRule>();
  for (const s of requestShapes())
    for (const r of [...s.fields, ...(s.unknown ? [s.unknown] : [])])
      if (!byId.has(r.id)) byId.set(r.id, { id: r.id, needs: r.needs });
  return [...byId.values()];
}

export interface BrokenRule {
  id: string;
  /** Where in the body, e.g. `/temperature` or `/messages/0/role`. */
  pointer: string;
  /** What is wrong, in words: `temperature 2.5: must be <= 2`, `no messages`. */
  what: string;
  received?: unknown;
}

const segments = (p: string) => p.split('/').slice(1);
/** A field rule's `at` as segments, split once (ruleAt reads every rule of a shape for each error). */
const segmentsOfAt = memoize(segments);

/** The rule of a field at `pointer` broken by `keyword`: the longest `at` that matches, a keyword's own first. */
function ruleAt(
  shape: RequestShape,
  pointer: string,
  keyword: string,
  absent: boolean,
): RequestRule | undefined {
  const parts = segments(pointer);
  let best: FieldRule | undefined;
  let bestScore = -1;
  for (const f of shape.fields) {
    if (f.keyword !== undefined && f.keyword !== keyword) continue;
    if (absent && f.valueOnly) continue;
    const at = segmentsOfAt(f.at);
    if (at.length > parts.length || !at.every((s, i) => s === '*' || s === parts[i])) continue;
    const score = at.length * 2 + (f.keyword !== undefined ? 1 : 0);
    if (score > bestScore) {
      best = f;
      bestScore = score;
    }
  }
  return best;
}

/** `/messages/0/role` as words: `messages[0].role`. */
const named = (pointer: string) =>
  segments(pointer)
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');

function brokenBy(shape: RequestShape, body: unknown, e: ErrorObject): BrokenRule | undefined {
  // Inside propertyNames ajv reports the name's own failure too: the propertyNames error says it.
  if ((e as { propertyName?: string }).propertyName !== undefined) return undefined;
  const p = e.params as { missingProperty?: string; additionalProperty?: string; propertyName?: string };
  if (e.keyword === 'required' && p.missingProperty !== undefined) {
    const pointer = `${e.instancePath}/${p.missingProperty}`;
    const rule = ruleAt(shape, pointer, e.keyword, true);
    return rule && { id: rule.id, pointer, what: `no ${named(pointer)}` };
  }
  const name =
    e.keyword === 'additionalProperties'
      ? p.additionalProperty
      : e.keyword === 'propertyNames'
        ? p.propertyName
        : undefined;
  if (name !== undefined) {
    const pointer = `${e.instancePath}/${name}`;
    const rule =
      ruleAt(shape, pointer, e.keyword, false) ?? (e.instancePath === '' ? shape.unknown : undefined);
    return rule && { id: rule.id, pointer, what: `the field ${named(pointer)}`, received: name };
  }
  const rule = ruleAt(shape, e.instancePath, e.keyword, false);
  if (!rule || e.instancePath === '') return undefined;
  const received = valueAt(body, e.instancePath);
  return {
    id: rule.id,
    pointer: e.instancePath,
    what: `${named(e.instancePath)} ${JSON.stringify(received) ?? 'undefined'}: ${e.message ?? e.keyword}`,
    received,
  };
}

/**
 * The rules a request body breaks (one finding per id, the first error of each), or undefined where the
 * contract documents no body for this call. A body that is not an object breaks none here: what it is
 * is not a field's rule.
 */
export function brokenRequestRules(method: string, path: string, body: unknown): BrokenRule[] | undefined {
  const shape = requestShapes().find((s) => s.method === method && s.path === path);
  if (!shape) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  // A member sent as null may be read as left out (MJOB-014's reading, on every documented body): judged
  // as if absent, so a required one is then missing.
  const v = documented().validator(shape.schema);
  if (v(body)) return [];
  const judged = withoutNulls(body as Record<string, unknown>);
  if (v(judged)) return [];
  const out = new Map<string, BrokenRule>();
  for (const e of withoutBranchSummaries(v.errors ?? [])) {
    const broken = brokenBy(shape, judged, e);
    if (broken && !out.has(broken.id)) out.set(broken.id, broken);
  }
  return [...out.values()];
}

/** An object without its members that are null, at every depth of objects (array items are kept). */
function withoutNulls(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null) continue;
    out[k] = isPlainObject(v)
      ? withoutNulls(v)
      : Array.isArray(v)
        ? v.map((x) => (isPlainObject(x) ? withoutNulls(x) : x))
        : v;
  }
  return out;
}
