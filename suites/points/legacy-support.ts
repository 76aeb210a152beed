/** The legacy currency format as the suites request and judge it ("Legacy currency format"). */
import type { CheckContext, HttpResponse } from '../../src/suite/index.ts';

/** "the header `Accept: application/vnd.service.currency.v1+json` selects the legacy amount fields". */
export const LEGACY = { accept: 'application/vnd.service.currency.v1+json' } as const;

/**
 * "Model ids ... are unchanged": a legacy reply that names a model names the one requested. A reply
 * without `model` passes (chat leaves it optional, MODEL-001's reading).
 */
export function modelUnchanged(t: CheckContext, res: HttpResponse, requested: string, what: string): void {
  const named = (res.json as { model?: unknown } | undefined)?.model;
  if (named === undefined) return;
  t.ensure(
    named === requested,
    'LEGACY-002',
    `${what} in the legacy currency format names the model ${JSON.stringify(named)}, not the ${requested} requested`,
    { pointer: '/model', received: named, expected: requested, exchange: res.exchange },
  );
}
