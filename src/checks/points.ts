import { Decimal } from 'decimal.js';
import type { Finding } from './exchange.ts';
import { entryIds, type Found, findCatalog, isPlainObject, pointerOf, walkFields } from './json.ts';

/** The points fields of the contract's points table ("Points representation"). */
export const POINTS_FIELDS = [
  'request_points_per_million_tokens',
  'response_points_per_million_tokens',
  'total_points',
  'held_points',
  'available_points',
  'amount_points',
  'held_change_points',
  'balance_after_points',
  'charged_points',
  'released_points',
  'pending_points',
] as const;

/**
 * Whether a field name is a token count ("The standard `usage` token fields report model usage and are
 * not points", PTS-005): it ends in `_tokens` and is no field of the points table, whose prices end so too
 * (`request_points_per_million_tokens` beside a record's counts is a points value, PTS-001).
 */
export const isTokenCountName = (name: string): boolean =>
  name.endsWith('_tokens') && !(POINTS_FIELDS as readonly string[]).includes(name);

/**
 * Decimals the suite computes with: exact for any points string a target sends (the default precision
 * of 20 significant digits rounded a balance of 1000 with 18 decimals, so a difference of exact values
 * came out 1e-14 off). Operations take the precision of their left operand: start sums from this.
 */
export const ExactDecimal = Decimal.clone({ precision: 200 });

const PLAIN_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const ANY_DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export type PointsVerdict = { ok: true; value: Decimal; note?: string } | { ok: false; reason: string };

/**
 * Judge one points value. A JSON number, or a string that is not a decimal, breaks "a points value is an
 * exact decimal string" (PTS-001). Exponent notation, a plus sign, leading zeros or binary-float noise
 * are still exact decimals: they come back with a `note` (PTS-002, advisory).
 */
export function judgePoints(value: unknown): PointsVerdict {
  if (typeof value !== 'string') return judgeValue(value);
  // The same values recur across replies (prices of a catalog, a zero charge): judged once each.
  let v = judged.get(value);
  if (!v) {
    if (judged.size >= MAX_JUDGED) judged.clear();
    v = judgeValue(value);
    judged.set(value, v);
  }
  return v;
}

/** Verdicts on points strings already judged (a verdict and its Decimal are never changed). */
const judged = new Map<string, PointsVerdict>();
const MAX_JUDGED = 10_000;

function judgeValue(value: unknown): PointsVerdict {
  if (typeof value === 'number')
    return { ok: false, reason: `a JSON number (${value}), not a decimal string` };
  if (typeof value !== 'string')
    return { ok: false, reason: `a ${value === null ? 'null' : typeof value}, not a decimal string` };
  const s = value.trim();
  if (s !== value || !ANY_DECIMAL.test(s))
    return { ok: false, reason: `${JSON.stringify(value)} is not a decimal number` };
  const d = new ExactDecimal(s);
  if (!PLAIN_DECIMAL.test(s))
    return { ok: true, value: d, note: `${JSON.stringify(value)} is not in plain decimal notation` };
  if (hasFloatNoise(s))
    return { ok: true, value: d, note: `${JSON.stringify(value)} looks like binary-float noise` };
  return { ok: true, value: d };
}

/**
 * A points value read for accounting (the budget's spend, the balance that measures it): an exact decimal
 * string, or a value that breaks PTS-001 but still carries a number (a finite JSON number, a decimal
 * string with surrounding white space). The checks report the violation; the budget still counts it, so
 * a reply that sends numbers is never a reply that spent nothing. Undefined: no number at all.
 */
export function accountingPoints(value: unknown): Decimal | undefined {
  const v = judgePoints(value);
  if (v.ok) return v.value;
  if (typeof value === 'number' && Number.isFinite(value)) return new ExactDecimal(value);
  if (typeof value === 'string' && ANY_DECIMAL.test(value.trim())) return new ExactDecimal(value.trim());
  return undefined;
}

/** The first `field` of a body (any depth) read for accounting (accountingPoints), if any carries a number. */
export function accountingField(body: unknown, field: string): Decimal | undefined {
  for (const f of pointsFields(body, [field])) {
    const v = accountingPoints(f.value);
    if (v) return v;
  }
  return undefined;
}

/**
 * 15+ fractional digits where a significant digit is followed by a long run of 0s or 9s and one to
 * three last digits (0.30000000000000004): the print of a binary float. A tiny exact value such as
 * 0.000000000000001 has no significant digit before its run and is not flagged.
 */
function hasFloatNoise(s: string): boolean {
  const [int = '', frac = ''] = s.replace(/^-/, '').split('.');
  return frac.length >= 15 && /[1-9]\d*?(0{6,}|9{6,})\d{1,3}$/.test(int + frac);
}

export interface PointsField extends Found {
  field: string;
  verdict: PointsVerdict;
  /**
   * A `*_points` name beyond the points table (a balance's platform points): "a points value is an exact
   * decimal string" applies to the points fields of the points table (judging.md), so such a field that
   * is none is advisory.
   */
  beyondTable?: true;
}

/** Every points field at any depth of a body, judged. */
export function pointsFields(body: unknown, fields: readonly string[] = POINTS_FIELDS): PointsField[] {
  const wanted = new Set(fields);
  const out: PointsField[] = [];
  walkFields(body, (field, value, parent, path) => {
    if (wanted.has(field))
      out.push({ pointer: pointerOf(path), value, parent, field, verdict: judgePoints(value) });
  });
  return out;
}

/**
 * The one judgement of points fields as findings: a field that is no exact decimal string breaks PTS-001,
 * one in another notation is a PTS-002 note. `where` (e.g. `GET /v1/balance`) starts each message.
 */
export function pointsFindings(
  body: unknown,
  fields: readonly string[] = POINTS_FIELDS,
  where?: string,
): Finding[] {
  return fieldFindings(pointsFields(body, fields), where);
}

/** PTS-001 and PTS-002 of points fields already found. */
export function fieldFindings(
  found: readonly PointsField[],
  where?: string,
  /** Whether a field stands where its value may not be known yet (before a settlement is made). */
  provisional?: (f: PointsField) => boolean,
): Finding[] {
  const at = where ? `${where}: ` : '';
  const out: Finding[] = [];
  for (const f of found) {
    const why = f.value === null ? nullStandsForOmitted(f, provisional) : undefined;
    if (why !== undefined) {
      out.push({
        id: 'PTS-001',
        message: `${at}${f.field} is null ${why}: no value, though the field is not omitted`,
        pointer: f.pointer,
        received: null,
        expected: 'omitted, or a decimal string',
        level: 'notable',
      });
      continue;
    }
    if (!f.verdict.ok) {
      out.push({
        id: 'PTS-001',
        message: `${at}${f.field} is ${f.verdict.reason}${f.beyondTable ? ' (a *_points name beyond the points table: advisory)' : ''}`,
        pointer: f.pointer,
        received: f.value,
        expected: 'a decimal string',
        ...(f.beyondTable ? { level: 'notable' as const } : {}),
        // Points fields written one way across replies are one cause (a number type, a placeholder).
        verdictCase: { wrong: 'carried', what: where ? `${f.field} of ${where}` : f.field, family: 'points' },
      });
    } else if (f.verdict.note) {
      out.push({
        id: 'PTS-002',
        message: `${at}${f.field}: ${f.verdict.note}`,
        pointer: f.pointer,
        received: f.value,
      });
    }
  }
  return out;
}

/**
 * Where a null points field stands for the field omitted, which the contract allows there (notable, not
 * a failure): why, or undefined where null is no decimal string (PTS-001). Two places:
 * - before the settlement is made (a job not ended, a stream's event before its terminal one), a field
 *   may be present with no value yet (`provisional`);
 * - "When points configuration is unavailable, `points_configured` is false or the points fields are
 *   omitted, and no zero quote is invented": a null price beside points_configured false is no quote.
 */
function nullStandsForOmitted(
  f: PointsField,
  provisional: ((f: PointsField) => boolean) | undefined,
): string | undefined {
  if (provisional?.(f)) return 'before the settlement is made';
  if ((f.parent as Record<string, unknown>).points_configured === false)
    return 'beside points_configured false';
  return undefined;
}

/** Pointers of every field of the points table at any depth (the legacy format must have none). */
export function pointsFieldPointers(root: unknown, pointer = ''): string[] {
  const names = new Set<string>(POINTS_FIELDS);
  const out: string[] = [];
  walkFields(root, (k, _v, _p, path) => {
    if (names.has(k)) out.push(pointerOf(path, pointer));
  });
  return out;
}

/** A call's charge beside the exact value its usage and its model's catalog prices give (PTS-007). */
export interface ChargeArithmetic {
  /** (prompt x request price + completion x response price) / 1000000, exactly. */
  exact: Decimal;
  /** Whether the charge is that value rounded, either way, to the decimals it is written with. */
  agrees: boolean;
}

/**
 * PTS-007: the prices are "points per million tokens", so a call of `prompt` and `completion` tokens costs
 * (prompt x request + completion x response) / 1000000. No rounding is stated: the charge agrees when it
 * is the exact value rounded in either direction to some number of decimals, that is when it differs from
 * it by less than one unit of its own last decimal (decimal.js drops trailing zeros: "0.010000" is 0.01,
 * one unit 0.01). A price read per thousand tokens, or the two prices swapped, differ by more.
 */
export function chargeArithmetic(
  charged: Decimal,
  tokens: { prompt: number; completion: number },
  prices: { request: Decimal; response: Decimal },
): ChargeArithmetic {
  const exact = new ExactDecimal(prices.request)
    .times(tokens.prompt)
    .plus(new ExactDecimal(prices.response).times(tokens.completion))
    .div(1_000_000);
  const unit = new ExactDecimal(10).pow(-new ExactDecimal(charged).decimalPlaces());
  return { exact, agrees: new ExactDecimal(charged).minus(exact).abs().lt(unit) };
}

/** A model's prices in a catalog entry: the response price absent where the entry prices its prompt only. */
export interface Prices {
  request: Decimal;
  response?: Decimal;
}

/**
 * The prices of `model` in a GET /v1/models reply: undefined where its entry is missing or not priced
 * (no request price, `points_configured` false, a price that is no exact decimal). The entry's full shape
 * is not shown: its prices may sit in an object of their own (`pricing`), the response price beside the
 * request price.
 */
export function modelPrices(catalog: unknown, model: string): Prices | undefined {
  return entryPrices(findCatalog(catalog)?.entries.find((e) => entryIds(e).includes(model)));
}

/** The prices of one catalog entry (see modelPrices). */
export function entryPrices(entry: unknown): Prices | undefined {
  if (!isPlainObject(entry)) return undefined;
  const found = pointsFields(entry, ['request_points_per_million_tokens'])[0];
  if (!found || entry.points_configured === false || found.parent.points_configured === false)
    return undefined;
  const request = found.verdict;
  const response = pointsFields(found.parent, ['response_points_per_million_tokens']).find(
    (p) => p.parent === found.parent,
  )?.verdict;
  if (!request.ok || (response && !response.ok)) return undefined;
  return response?.ok ? { request: request.value, response: response.value } : { request: request.value };
}

/** What a chat or embeddings reply charged, and the token counts its model's prices apply to. */
export interface CallCharge {
  charged: Decimal;
  /** Prompt, and completion (an embedding's: total_tokens - prompt_tokens). */
  tokens: { prompt: number; completion: number };
}

const PRICED_CALLS = ['/v1/chat/completions', '/v1/embeddings'];

/**
 * The charge of a chat or embeddings reply (`billing.charged_points`) and its `usage` counts: undefined
 * where it states either not (their inner fields are not shown), or for another path (a /v1/responses
 * reply's body is not shown).
 */
export function callCharge(path: string, reply: unknown): CallCharge | undefined {
  if (!PRICED_CALLS.includes(path) || !isPlainObject(reply) || !isPlainObject(reply.usage)) return undefined;
  const charge = pointsFields(reply.billing, ['charged_points'])[0]?.verdict;
  if (!charge?.ok) return undefined;
  const u = reply.usage;
  const prompt = u.prompt_tokens;
  const completion =
    path === '/v1/embeddings'
      ? Number.isInteger(u.total_tokens) && Number.isInteger(prompt)
        ? (u.total_tokens as number) - (prompt as number)
        : undefined
      : u.completion_tokens;
  return Number.isInteger(prompt) && Number.isInteger(completion)
    ? { charged: charge.value, tokens: { prompt: prompt as number, completion: completion as number } }
    : undefined;
}

/**
 * PTS-007 on one call: its charge beside its usage at its model's prices read just before the call and
 * again just after it ("Every request is bound to the price snapshot valid when it was confirmed": the
 * same prices in both reads are that snapshot). `unjudged` says why it is not judged; else `problem` is
 * the finding where the charge disagrees. The one judgement of a live run and of a capture.
 */
export function chargeJudgement(
  path: string,
  model: string,
  charge: CallCharge,
  before: Prices,
  after: Prices | undefined,
): { unjudged: string } | { problem?: Omit<Finding, 'id'> } {
  const same = (a?: Decimal, b?: Decimal) => (a && b ? a.equals(b) : a === b);
  if (!after || !same(after.request, before.request) || !same(after.response, before.response))
    return { unjudged: `the prices of ${model} changed around the call` };
  const { charged, tokens } = charge;
  if (!before.response && tokens.completion > 0)
    return {
      unjudged: `the catalog gives no response price for ${model}, whose reply counts ${tokens.completion} completion tokens`,
    };
  const prices = { request: before.request, response: before.response ?? before.request.times(0) };
  const { exact, agrees } = chargeArithmetic(charged, tokens, prices);
  if (agrees) return {};
  return {
    problem: {
      message: `POST ${path} charged ${charged.toFixed()}, but ${tokens.prompt} prompt and ${tokens.completion} completion tokens at ${prices.request.toFixed()} and ${prices.response.toFixed()} points per million tokens cost ${exact.toFixed()}`,
      pointer: '/billing/charged_points',
      received: charged.toFixed(),
      expected: `${exact.toFixed()} (rounded either way to the charge's own decimals)`,
    },
  };
}
