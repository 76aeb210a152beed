/** The legacy currency format as the suites request and judge it ("Legacy currency format"). */
import {
  type CheckContext,
  type Exchange,
  expectStatus,
  type HttpResponse,
  isPlainObject,
  isSuccess,
  namedModelProblem,
  pointsFieldPointers,
  replyBody,
  valueAt,
  walkFields,
} from '../../src/suite/index.ts';

/** "the header `Accept: application/vnd.service.currency.v1+json` selects the legacy amount fields". */
export const LEGACY = { accept: 'application/vnd.service.currency.v1+json' } as const;

/**
 * "Model ids ... are unchanged": a legacy reply that names a model names the one requested, as a plain
 * reply does (MODEL-001's judgement: a version or provider-qualified name of it is MODEL-001's advisory,
 * the format changes nothing there). A reply without `model` passes (chat leaves it optional).
 */
export function modelUnchanged(t: CheckContext, res: HttpResponse, requested: string, what: string): void {
  const named = (res.json as { model?: unknown } | undefined)?.model;
  if (named === undefined) return;
  const p = namedModelProblem(requested, named, what);
  t.ensure(
    p === undefined || p.level === 'notable',
    'LEGACY-002',
    `${what} in the legacy currency format names the model ${JSON.stringify(named)}, not the ${requested} requested`,
    { pointer: '/model', received: named, expected: requested, exchange: res.exchange },
  );
}

/** The objects of a JSON value that carry an `id`, by that id (the first of each). */
function byId(root: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  walkFields(root, (key, id, parent) => {
    if (key === 'id' && (typeof id === 'string' || typeof id === 'number') && !out.has(String(id)))
      out.set(String(id), parent);
  });
  return out;
}

/**
 * The legacy reply's counterpart of the plain reply's object at `pointer`: found through its nearest
 * ancestor (itself included) whose `id` the legacy reply has too (the same record in the other read,
 * wherever the list placed it), then the same path below it; else the same pointer (a reply of its own,
 * as two calls' replies are, or objects without ids).
 */
function counterpart(
  plain: unknown,
  legacy: unknown,
  legacyIds: Map<string, unknown>,
  pointer: string,
): unknown {
  const tokens = pointer.split('/').slice(1);
  for (let n = tokens.length; n >= 0; n--) {
    const ancestor = valueAt(plain, n === 0 ? '' : `/${tokens.slice(0, n).join('/')}`);
    const id = isPlainObject(ancestor) ? ancestor.id : undefined;
    const same = typeof id === 'string' || typeof id === 'number' ? legacyIds.get(String(id)) : undefined;
    if (same === undefined) continue;
    const below = tokens.slice(n);
    return valueAt(same, below.length ? `/${below.join('/')}` : '');
  }
  return valueAt(legacy, pointer);
}

/**
 * "selects the legacy amount fields in place of points fields", its second side: each object of the
 * plain reply (`plain`) that shows points fields has, in the legacy reply, a counterpart with a field it
 * lacks (the legacy names are not shown). Compared object by object, so that names the plain reply
 * already uses elsewhere count: a media job's record keeps the older `*_credits` names beside a chat
 * record's `charged_points`, and the legacy chat record's `charged_credits` is still new to that record.
 * Not judged where the plain reply shows no points field (nothing to replace) or where no counterpart
 * is found (a record listed in one read only).
 */
export function inPlaceOf(
  t: CheckContext,
  plain: unknown,
  legacy: unknown,
  what: string,
  exchange: Exchange,
): void {
  const holders = new Set(pointsFieldPointers(plain).map((p) => p.slice(0, p.lastIndexOf('/'))));
  if (holders.size === 0) return;
  const legacyIds = byId(legacy);
  const unreplaced: string[] = [];
  let judged = 0;
  for (const at of holders) {
    const own = valueAt(plain, at);
    const other = counterpart(plain, legacy, legacyIds, at);
    if (!isPlainObject(own) || !isPlainObject(other)) continue;
    judged++;
    if (!Object.keys(other).some((k) => !Object.hasOwn(own, k))) unreplaced.push(at || '/');
  }
  if (judged === 0) return;
  t.ensure(
    unreplaced.length === 0,
    'LEGACY-001',
    `${what} in the legacy currency format has no field the plain reply lacks at ${unreplaced.slice(0, 3).join(', ')}: its points fields are not replaced by legacy amount fields`,
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
