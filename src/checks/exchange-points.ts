import type { HttpResponse } from '../http/client.ts';
import { mediaTable } from '../rules/media-models.ts';
import type { Finding } from './exchange.ts';
import { TERMINAL_STATUSES } from './job-statuses.ts';
import { isPlainObject } from './json.ts';
import { fieldFindings, judgePoints, type PointsField, pointsFieldPointers } from './points.ts';
import { isCreditsName, isExtraPointsName, isPointsName, replyFields } from './reply-fields.ts';
import { replyBody } from './sse.ts';

/** The media type that selects the legacy currency format ("Legacy currency format"). */
export const LEGACY_CURRENCY_TYPE = 'application/vnd.service.currency.v1+json';

/**
 * Whether a reply is in the legacy currency format: its request asked for it (the `Accept` header the
 * suite sent), or its own media type says so. The request decides, not the reply's Content-Type: the
 * contract says the header "selects the legacy amount fields", not which media type the reply then
 * carries, nor the legacy names (which may well be the older `*_credits` ones).
 */
export function legacyReply(res: HttpResponse): boolean {
  const accept = Object.entries(res.exchange.requestHeaders).find(([h]) => h.toLowerCase() === 'accept')?.[1];
  return (
    accept?.toLowerCase().includes(LEGACY_CURRENCY_TYPE) === true ||
    res.mediaType?.includes('vnd.service.currency') === true
  );
}

/** "On models, balance, usage, ledger, media job and inference requests" the legacy header applies. */
const LEGACY_PATHS =
  /^\/v1\/(models|balance|usage|ledger|media\/jobs(\/[^/?]+)?|chat\/completions|responses|embeddings)(\?|$)/;

/**
 * LEGACY-001 on every reply in the legacy currency format (legacyReply) of those requests: "selects the
 * legacy amount fields in place of points fields", so no field of the points table is left in it (a
 * streamed reply's events too). Judged where such a reply (2xx, with a body) stands; live, the legacy
 * tests look for the legacy fields in their place, which one reply cannot show.
 */
export function legacyJudged(res: HttpResponse): { findings: Finding[]; observed: string[] } {
  if (res.status < 200 || res.status >= 300 || !LEGACY_PATHS.test(res.rawPath) || !legacyReply(res))
    return { findings: [], observed: [] };
  const body = replyBody(res);
  if (body === undefined) return { findings: [], observed: [] };
  const where = `${res.method} ${res.exchange.path}`;
  return {
    findings: pointsFieldPointers(body).map((pointer) => ({
      id: 'LEGACY-001',
      message: `${where} in the legacy currency format still carries the points field ${pointer}`,
      pointer,
    })),
    observed: ['LEGACY-001'],
  };
}

/** Replies of the "new conversation interfaces" and account reads, where `*_credits` names must not appear. */
const POINTS_PATHS = /^\/v1\/(chat\/completions|responses|embeddings|balance|usage|ledger|models)(\?|$)/;

/**
 * Points checks every JSON reply gets: any field of the points table, at any depth, is an exact decimal
 * string (PTS-001; exponent or float noise: PTS-002), a `unit` beside one is `service_points`
 * (PTS-003), and the conversation and account interfaces use
 * `*_points`, never `*_credits` (PTS-004). Replies in the legacy currency format are exempt: they
 * replace the points fields by design, under names the contract does not show (legacyReply).
 */
export function pointsChecks(res: HttpResponse): Finding[] {
  return pointsJudged(res).findings;
}

/**
 * pointsChecks' findings, and the ids whose form the reply showed (observed): PTS-001 and PTS-002 where
 * a points field stands, PTS-003 where a unit stands beside one, PTS-004 on a conversation or account
 * reply. A reply with no points field judges neither PTS-001 nor PTS-002: it is no evidence of them.
 */
export function pointsJudged(res: HttpResponse): { findings: Finding[]; observed: string[] } {
  // Business replies only: the description (/openapi.json) names points fields in its schemas.
  // A streamed reply's events too (replyBody): its terminal event carries the response and its billing.
  const body = replyBody(res);
  if (body === undefined || res.status >= 400 || !res.rawPath.startsWith('/v1/'))
    return { findings: [], observed: [] };
  if (legacyReply(res)) return { findings: [], observed: [] };
  const where = `${res.method} ${res.exchange.path}`;
  const out: Finding[] = [];
  const observed: string[] = [];
  const units = new Set<Record<string, unknown>>();
  const named = replyFields(body);
  const fields: PointsField[] = [];
  for (const f of named) {
    const table = isPointsName(f.name);
    if (table || (isExtraPointsName(f.name) && extraPointsValue(f.value)))
      fields.push({
        pointer: f.pointer,
        value: f.value,
        parent: f.parent,
        field: f.name,
        verdict: judgePoints(f.value),
        ...(table ? {} : { beyondTable: true as const }),
      });
  }
  if (fields.length) observed.push('PTS-001', 'PTS-002');
  for (const f of fields) {
    // "the unit is `service_points`": a `unit` beside points fields names it (PTS-003); a unit
    // elsewhere (a quota in bytes) is not a points unit.
    if ('unit' in f.parent && !units.has(f.parent)) {
      units.add(f.parent);
      if (f.parent.unit !== 'service_points')
        out.push({
          id: 'PTS-003',
          message: `${where}: the unit beside ${f.field} is not service_points`,
          pointer: f.pointer.replace(/[^/]*$/, 'unit'),
          received: f.parent.unit,
          expected: 'service_points',
        });
    }
  }
  if (units.size) observed.push('PTS-003');
  out.push(...fieldFindings(fields, where, provisionalIn(res, body)));
  // A captured reply whose request's headers the log did not keep may be in the legacy currency format
  // (selected by the request's Accept): its *_credits names are then not judged.
  if (POINTS_PATHS.test(res.rawPath) && !res.exchange.requestHeadersUnknown) {
    observed.push('PTS-004');
    const usage = USAGE_PATH.test(res.rawPath);
    for (const f of named) {
      if (!isCreditsName(f.name)) continue;
      const whose = usage ? recordKind(recordOf(body, f.pointer)) : 'conversation';
      if (whose === 'studio') continue;
      out.push({
        id: 'PTS-004',
        message:
          whose === 'conversation'
            ? `${where}: a *_credits field in a conversation or account reply`
            : `${where}: a *_credits field in a usage record that shows neither a media job's nor a conversation call's (studio metering may keep *_credits names)`,
        pointer: f.pointer,
        expected: '*_points',
        ...(whose === 'unknown' ? { level: 'notable' as const } : {}),
      });
    }
  }
  return { findings: out, observed };
}

/**
 * Whether a `*_points` field beyond the table holds a value judged as points: a number or a string (a
 * boolean too, which is no decimal). An object or an array under such a name, and null, are not judged:
 * their names are not shown, and null states no value.
 */
const extraPointsValue = (v: unknown): boolean =>
  typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';

const USAGE_PATH = /^\/v1\/usage(\?|$)/;
/** The documented media models' ids (recordKind). */
let mediaModelIds: Set<string> | undefined;
const JOB_PATH = /^\/v1\/media\/jobs(\/[^/?]+)?(\?|$)/;

/**
 * Where a reply's points fields may have no value yet: a streamed reply's events before its last (its
 * terminal event carries the settlement), and a media job that has not ended (it is settled at its end).
 */
function provisionalIn(res: HttpResponse, body: unknown): ((f: PointsField) => boolean) | undefined {
  if (Array.isArray(body) && res.json === undefined) {
    const last = String(body.length - 1);
    return (f) => f.pointer.split('/')[1] !== last;
  }
  if (JOB_PATH.test(res.rawPath) && isPlainObject(body) && typeof body.status === 'string')
    return TERMINAL_STATUSES.includes(body.status) ? undefined : () => true;
  // A media job's usage record may be listed before its job settles (when it is written is not shown);
  // a record not known to be a conversation call's may be a job's.
  if (USAGE_PATH.test(res.rawPath)) return (f) => recordKind(recordOf(body, f.pointer)) !== 'conversation';
  return undefined;
}

/**
 * The record of a listing that holds the field at `pointer`: the item of the first array on the way,
 * else the reply itself.
 */
function recordOf(json: unknown, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = json;
  for (const raw of pointer.split('/').slice(1)) {
    if (Array.isArray(node)) {
      const item: unknown = node[Number(raw)];
      return isPlainObject(item) ? item : undefined;
    }
    if (!isPlainObject(node)) return undefined;
    node = node[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isPlainObject(json) ? json : undefined;
}

/**
 * Whose usage record it is, by what it names (its fields are not shown): a media job's ("Studio metering
 * fields keep the older `*_credits` names": its `*_credits` are allowed) when it names a media path, a
 * job id or a documented media model (a record may name its job by its model alone); a conversation
 * call's when it names chat, responses or embeddings; else unknown.
 */
export function recordKind(
  record: Record<string, unknown> | undefined,
): 'studio' | 'conversation' | 'unknown' {
  if (!record) return 'unknown';
  let kind: 'studio' | 'conversation' | 'unknown' = 'unknown';
  mediaModelIds ??= new Set(Object.keys(mediaTable().models));
  for (const [name, value] of Object.entries(record)) {
    if (/(^|_)job_id$/.test(name)) return 'studio';
    if (typeof value !== 'string') continue;
    if (value.includes('/v1/media/') || mediaModelIds.has(value)) return 'studio';
    if (/\/v1\/(chat\/completions|responses|embeddings)\b/.test(value)) kind = 'conversation';
  }
  return kind;
}
