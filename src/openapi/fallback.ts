/**
 * Body validation when the live description is not used (invalid, beyond what the suite examines, or a
 * schema of it that does not compile): a 2xx JSON body is checked against the documented schema (`schemas/`) of its
 * endpoint (fixtures/endpoints.yaml `response_schema`), so RESP-003 never silently switches off.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { HttpResponse } from '../http/client.ts';
import { pkgPath } from '../paths.ts';
import { readYaml } from '../yaml-cache.ts';
import { templateRegex, valueAt } from './document.ts';
import { Documented, documented } from './documented.ts';
import { capEvidence, type DescriptionFacts, onlyTooLarge } from './guard.ts';

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

/** RESP-003 findings of a 2xx JSON body against its endpoint's documented schema; why names the cause. */
export function documentedBodyFindings(res: HttpResponse, why: string): ResponseFinding[] {
  if (res.status < 200 || res.status >= 300 || res.json === undefined) return [];
  const path = res.rawPath.split('?')[0]!;
  const row = documentedRows().find((r) => r.method === res.method && r.re.test(path));
  if (!row) return [];
  // As for the live description: every error only for a body small enough (ajv's is quadratic).
  const big = res.body.length > 1_000_000;
  firstErrorOnly ??= new Documented(pkgPath('schemas'), false);
  const v = (big ? firstErrorOnly : documented()).validator(row.schema);
  if (v(res.json)) return [];
  return schemaErrorFindings(
    res,
    v.errors ?? [],
    big,
    (e) =>
      `${res.method} ${path} ${res.status}: body ${e.instancePath || '/'} ${e.message ?? e.keyword} (documented schema ${row.schema}; ${why})`,
  );
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

/** The response checker of a run whose live description is not used. */
export function documentedFallback(openapi: DescriptionFacts | undefined): {
  checkResponse(res: HttpResponse): ResponseFinding[];
} {
  const why = documentedBecause(openapi);
  return { checkResponse: (res) => documentedBodyFindings(res, why) };
}

/**
 * What a run validates responses against: the target's live description when it is a valid OpenAPI 3.1
 * document, else the documented contract (schemas/): missing, unparsable, invalid or beyond what the
 * suite examines.
 */
export function responseSource(openapi: { valid: boolean } | undefined): 'live' | 'documented' {
  return openapi?.valid ? 'live' : 'documented';
}
