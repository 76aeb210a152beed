/** Findings of a documented JSON Schema (schemas/). */
import type { HttpResponse } from '../http/client.ts';
import { valueAt } from '../openapi/document.ts';
import { documented } from '../openapi/documented.ts';
import { withoutBranchSummaries } from '../openapi/fallback.ts';
import type { CheckContext } from '../runtime/check.ts';

/** Keywords whose failing value is the object that holds the problem, not the problem: no `received`. */
const CONTAINER_KEYWORDS = new Set([
  'required',
  'additionalProperties',
  'dependentRequired',
  'unevaluatedProperties',
]);

/**
 * Violations of a documented schema (schemas/), each attributed to a requirement by its pointer. The
 * reply's body is validated, or `part.value` found at `part.at` in it (an entry of a list): the
 * pointers are the reply's either way.
 */
export function documentedViolations(
  t: CheckContext,
  res: HttpResponse,
  schema: string,
  idFor: (pointer: string) => string,
  part: { at: string; value: unknown } = { at: '', value: res.json },
): void {
  const v = documented().validator(schema);
  // The schema judged the whole part: every id the test cites for it is observed, met or not.
  t.observeOwn(res.exchange);
  if (v(part.value)) return;
  for (const e of withoutBranchSummaries(v.errors ?? [])) {
    const pointer = `${part.at}${e.instancePath}` || '/';
    // A missing property belongs to the rule of that property (a reply without `usage` breaks the
    // usage rule, not the object's), so the id is found by the property's own pointer.
    const missing =
      e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
    t.violate(
      idFor(missing === undefined ? pointer : `${part.at}${e.instancePath}/${missing}`),
      `${res.method} ${res.exchange.path}: ${pointer} ${e.message ?? e.keyword} (${schema})`,
      {
        pointer,
        ...(CONTAINER_KEYWORDS.has(e.keyword) ? {} : { received: valueAt(part.value, e.instancePath) }),
        expected: e.params,
        exchange: res.exchange,
      },
    );
  }
}
