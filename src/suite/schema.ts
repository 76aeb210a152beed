/** Findings of a documented JSON Schema (schemas/). */
import type { HttpResponse } from '../http/client.ts';
import { documented } from '../openapi/documented.ts';
import type { CheckContext } from '../runtime/check.ts';

/** Violations of a documented schema (schemas/), each attributed to a requirement by its pointer. */
export function documentedViolations(
  t: CheckContext,
  res: HttpResponse,
  schema: string,
  idFor: (pointer: string) => string,
): void {
  const v = documented().validator(schema);
  if (v(res.json)) return;
  for (const e of v.errors ?? []) {
    const pointer = e.instancePath || '/';
    t.violate(
      idFor(pointer),
      `${res.method} ${res.exchange.path}: ${pointer} ${e.message ?? e.keyword} (${schema})`,
      {
        pointer,
        expected: e.params,
        exchange: res.exchange,
      },
    );
  }
}
