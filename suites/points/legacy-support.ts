/** The legacy currency format as the suites request and judge it ("Legacy currency format"). */
import {
  type CheckContext,
  type Exchange,
  expectStatus,
  type HttpResponse,
  isSuccess,
  pointsFieldPointers,
  replyBody,
  walkFields,
} from '../../src/suite/index.ts';

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

/** Every property name anywhere in a JSON value (a streamed reply: in any event's data). */
function names(v: unknown): Set<string> {
  const out = new Set<string>();
  walkFields(v, (k) => out.add(k));
  return out;
}

/**
 * "selects the legacy amount fields in place of points fields", its second side: where the plain reply
 * (`plain`) shows points fields, the legacy one has a field the plain one lacks (the legacy names are not
 * shown). Not judged where the plain reply shows none: there is nothing to replace.
 */
export function inPlaceOf(
  t: CheckContext,
  plain: unknown,
  legacy: unknown,
  what: string,
  exchange: Exchange,
): void {
  const shown = pointsFieldPointers(plain);
  if (shown.length === 0) return;
  const plainNames = names(plain);
  const added = [...names(legacy)].filter((n) => !plainNames.has(n));
  t.ensure(
    added.length > 0,
    'LEGACY-001',
    `${what} in the legacy currency format has no field the plain reply lacks: its points fields (${shown.slice(0, 3).join(', ')}) are not replaced by legacy amount fields`,
    { exchange, expected: 'legacy amount fields in place of the points fields' },
  );
}

/**
 * A billable call under the legacy Accept header, after the same call without it: its points fields (at
 * any depth; in a streamed reply, in any event's data) are violations, legacy amount fields stand in
 * place of the plain reply's (inPlaceOf), and the model it names is the one requested.
 */
export async function legacyCall(
  t: CheckContext,
  path: string,
  body: { model: string } & Record<string, unknown>,
): Promise<HttpResponse | undefined> {
  const plain = await t.post(path, body);
  const res = await t.post(path, body, { headers: LEGACY });
  if (!expectStatus(t, res, 'LEGACY-001', '2xx', `POST ${path} with the legacy Accept header`))
    return undefined;
  const legacy = replyBody(res);
  for (const p of pointsFieldPointers(legacy))
    t.violate('LEGACY-001', `the legacy reply of POST ${path} still carries the points field ${p}`, {
      pointer: p,
      exchange: res.exchange,
      verdictCase: { wrong: 'carried', what: `${p} of POST ${path}`, family: 'legacy' },
    });
  if (isSuccess(plain.status)) inPlaceOf(t, replyBody(plain), legacy, `POST ${path}`, res.exchange);
  modelUnchanged(t, res, body.model, `the reply of POST ${path}`);
  return res;
}
