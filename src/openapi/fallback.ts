/**
 * Body validation when the live description is not used (invalid, beyond what the suite examines, or a
 * schema of it that does not compile): a 2xx JSON body is checked against the documented schema (`schemas/`) of its
 * endpoint (fixtures/endpoints.yaml `response_schema`), so RESP-003 never silently switches off.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { type HttpResponse, isJsonMediaType } from '../http/client.ts';
import { pkgPath } from '../paths.ts';
import { readYaml } from '../yaml-cache.ts';
import { templateRegex, valueAt } from './document.ts';
import { Documented, documented } from './documented.ts';
import { capEvidence, type DescriptionFacts, onlyTooLarge } from './guard.ts';

/**
 * A response judged against what responses are validated by: the findings, and the ids it was judged
 * on (`judged`: an id is judged on a response only where there was something to hold it to, a declared
 * status, a body's media type, a schema the body was validated against, declared headers; what the
 * description or the documented schemas say nothing of is not judged, never passed).
 */
export interface ResponseJudgement {
  findings: ResponseFinding[];
  judged: ReadonlyArray<ResponseFinding['id']>;
}

/** What responses are validated against (the live description, or the documented contract). */
export interface ResponseSource {
  judgeResponse(res: HttpResponse): ResponseJudgement;
}

/** A finding of a response against the description it is validated by, live or documented (RESP-001..004). */
export interface ResponseFinding {
  id: 'RESP-001' | 'RESP-002' | 'RESP-003' | 'RESP-004';
  message: string;
  pointer?: string;
  received?: unknown;
  expected?: unknown;
  /** Advisory: the description leaves the matter open rather than contradicted. */
  level?: 'notable';
}

interface Row {
  method: string;
  path: string;
  response_schema?: string;
}

let firstErrorOnly: Documented | undefined;
let rows: Array<{ method: string; re: RegExp; schema: string }> | undefined;
function documentedRows() {
  rows ??= (readYaml(pkgPath('fixtures', 'endpoints.yaml')) as { endpoints: Row[] }).endpoints
    .filter((e) => e.response_schema)
    .map((e) => ({
      method: e.method,
      re: templateRegex(e.path),
      schema: e.response_schema!,
    }));
  return rows;
}

/**
 * A 2xx JSON body judged against its endpoint's documented schema (RESP-003; `why` names the cause of
 * the fallback), a JSON body that does not parse failed as such, or undefined where there is none to
 * judge it by (another status, no JSON, an endpoint the contract shows no body of).
 */
export function documentedBody(res: HttpResponse, why: string): ResponseJudgement | undefined {
  if (res.status < 200 || res.status >= 300) return undefined;
  // No body at all where one is shown is no JSON either ("200 returns the chat response"); an empty
  // reply of another media type (an event stream that never began) is not this rule's to judge.
  const empty = res.body.length === 0 && (res.mediaType === undefined || isJsonMediaType(res.mediaType));
  if (res.json === undefined && res.jsonError === undefined && !empty) return undefined;
  const path = res.rawPath.split('?')[0]!;
  const row = documentedRows().find((r) => r.method === res.method && r.re.test(path));
  if (!row) return undefined;
  if (empty) {
    const finding: ResponseFinding = {
      id: 'RESP-003',
      message: `${res.method} ${path} ${res.status}: an empty body where the contract shows one (documented schema ${row.schema}; ${why})`,
      pointer: '/',
    };
    return { findings: [finding], judged: ['RESP-003'] };
  }
  // A JSON body that does not parse where the contract shows one: failed, as against a live schema.
  if (res.json === undefined) {
    const finding: ResponseFinding = {
      id: 'RESP-003',
      message: `${res.method} ${path} ${res.status}: the body is not valid JSON (${res.jsonError}; documented schema ${row.schema}; ${why})`,
      pointer: '/',
    };
    return { findings: [finding], judged: ['RESP-003'] };
  }
  // As for the live description: every error only for a body small enough (ajv's is quadratic).
  const big = res.body.length > 1_000_000;
  firstErrorOnly ??= new Documented(pkgPath('schemas'), false);
  const v = (big ? firstErrorOnly : documented()).validator(row.schema);
  const findings = v(res.json)
    ? []
    : schemaErrorFindings(
        res,
        v.errors ?? [],
        big,
        (e) =>
          `${res.method} ${path} ${res.status}: body ${e.instancePath || '/'} ${e.message ?? e.keyword} (documented schema ${row.schema}; ${why})`,
      );
  return { findings, judged: ['RESP-003'] };
}

/**
 * RESP-003 findings of a body's schema errors (the first 8), each at its instance path with its value
 * and the schema's parameters as capped evidence; `firstOnly`: a large body searched for its first
 * error only, which the message says.
 */
/**
 * The errors without ajv's `if` errors ("must match "then" schema") where others are there: an `if`
 * error only says that its branch failed, whose own errors (a required property missing) are listed
 * beside it. One fact, one error (a lone `if` error stays: nothing else says it).
 */
export function withoutBranchSummaries(errors: readonly ErrorObject[]): ErrorObject[] {
  const own = errors.filter((e) => e.keyword !== 'if');
  return own.length > 0 ? own : [...errors];
}

export function schemaErrorFindings(
  res: HttpResponse,
  errors: ErrorObject[],
  firstOnly: boolean,
  says: (e: ErrorObject) => string,
): ResponseFinding[] {
  const note = firstOnly ? ` (the first error; a ${res.body.length}-byte body is not searched for more)` : '';
  return withoutBranchSummaries(errors)
    .slice(0, 8)
    .map((e) => ({
      id: 'RESP-003' as const,
      message: `${says(e)}${note}`,
      pointer: e.instancePath || '/',
      received: capEvidence(valueAt(res.json, e.instancePath)),
      expected: capEvidence(e.params),
    }));
}

/**
 * Why a run validates responses against the documented schemas: its live description is beyond what the
 * suite examines and nothing else is wrong with it (advisory, OAS-006), or it is not usable (OAS-001).
 */
export function documentedBecause(openapi: DescriptionFacts | undefined): string {
  return onlyTooLarge(openapi)
    ? 'the live description is beyond what the suite examines, see OAS-006'
    : 'the live description is not usable, see OAS-001';
}

/**
 * The response checker of a run whose live description is not used; `why` is said with each finding (a
 * capture says its own: its description is judged by OAS-001 only where it holds one, judge.ts describe).
 */
export function documentedFallback(
  openapi: DescriptionFacts | undefined,
  why = documentedBecause(openapi),
): ResponseSource {
  // Without a usable description, only a body the documented schemas show is judged (RESP-003): no
  // status, media type or header is declared anywhere to hold a response to.
  return { judgeResponse: (res) => documentedBody(res, why) ?? { findings: [], judged: [] } };
}

/**
 * What a run validates responses against: the target's live description when it is a valid OpenAPI 3.1
 * document, else the documented contract (schemas/): missing, unparsable, invalid or beyond what the
 * suite examines.
 */
export function responseSource(openapi: { valid: boolean } | undefined): 'live' | 'documented' {
  return openapi?.valid ? 'live' : 'documented';
}
