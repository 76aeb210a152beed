/**
 * The invariants the model-based tests check after every command: pure functions of what the target
 * answered (and what the model remembers), each returning the broken rule under its requirement id.
 * Levels come from the catalogue (implied ones are advisory unless --strict).
 */
import type { Decimal } from 'decimal.js';
import { recordKind } from '../checks/exchange-points.ts';
import { allStrings, findEntryList, findField, isPlainObject } from '../checks/json.ts';
import { ExactDecimal, isTokenCountName, judgePoints, pointsFields } from '../checks/points.ts';
import { ENDED } from './account-state.ts';

export interface Problem {
  id: string;
  message: string;
  received?: unknown;
  expected?: unknown;
  /** Where in the reply's body, where one value is the evidence (`/usage/prompt_tokens`). */
  pointer?: string;
}

/**
 * A rule evaluated on what the target showed and found met: the form it needs was there (a charge to
 * compare, two balance reads, a record added). An invariant answers a Problem, Met, or undefined where
 * its inputs could not tell right from wrong (not judged), so that a pass is never counted for a rule
 * whose form never showed (CheckContext.observe).
 */
export interface Met {
  id: string;
  met: true;
}

export type Judged = Problem | Met | undefined;

export const met = (id: string): Met => ({ id, met: true });

/** A rule judged inline on what the target showed: met when `ok`, else `problem`. */
export const holds = (ok: boolean, problem: Problem): Problem | Met => (ok ? met(problem.id) : problem);

/** A judged invariant that found its rule broken. */
export const isProblem = (j: Judged): j is Problem => j !== undefined && !('met' in j);

const decimal = (v: unknown): Decimal | undefined => {
  const j = judgePoints(v);
  return j.ok ? j.value : undefined;
};

// ------------------------------------------------------------------ balance

export interface BalanceFigures {
  total: Decimal;
  held?: Decimal;
  available?: Decimal;
}

/** total/held/available_points of a balance reply, at any depth (the envelope is not shown). */
export function balanceOf(body: unknown): BalanceFigures | undefined {
  // One walk of the body for the three (a capture reads every balance reply).
  const found = pointsFields(body, ['total_points', 'held_points', 'available_points']);
  const first = (field: string) => {
    const f = found.find((x) => x.field === field);
    return f?.verdict.ok ? f.verdict.value : undefined;
  };
  const total = first('total_points');
  if (!total) return undefined;
  const out: BalanceFigures = { total };
  const held = first('held_points');
  const available = first('available_points');
  if (held) out.held = held;
  if (available) out.available = available;
  return out;
}

/** BAL-003: available = total - held, exactly. */
export function availableProblem(b: BalanceFigures): Problem | Met | undefined {
  if (!b.held || !b.available) return undefined;
  const want = b.total.minus(b.held);
  if (b.available.equals(want)) return met('BAL-003');
  return {
    id: 'BAL-003',
    message: `available_points ${b.available} is not total_points ${b.total} - held_points ${b.held}`,
    received: b.available.toString(),
    expected: want.toString(),
  };
}

/** BAL-004: on a quiet account the total moved by exactly what the replies said they charged. */
export function balanceMoveProblem(expected: Decimal, actual: Decimal, since: string): Problem | Met {
  if (expected.equals(actual)) return met('BAL-004');
  return {
    id: 'BAL-004',
    message: `total_points is ${actual}, but ${since} it should be ${expected} (moved by ${expected.minus(actual)} more than charged)`,
    received: actual.toString(),
    expected: expected.toString(),
  };
}

/** The points a reply reports as charged (`charged_points` at any depth, e.g. in `billing`). */
export function chargedOf(body: unknown): Decimal | undefined {
  const f = pointsFields(body, ['charged_points'])[0];
  return f?.verdict.ok ? f.verdict.value : undefined;
}

/**
 * What a billable reply reports as spent or held: the larger of charged_points and pending_points (a
 * media job's hold). Not charged_points alone where it is there: a job not settled yet may show
 * charged_points "0" beside its hold ("Media job | pending_points (in addition)" to the call settlement's
 * fields, whose value before the settlement is not shown; variant points-zero-until-settled).
 */
export function reportedSpend(body: unknown): Decimal | undefined {
  const charged = chargedOf(body);
  const pending = decimal(pointsFields(body, ['pending_points'])[0]?.value);
  return charged && pending ? (charged.gte(pending) ? charged : pending) : (charged ?? pending);
}

// ------------------------------------------------------------------ ledger

export interface LedgerLine {
  id?: string;
  /** What tells the entry apart between two reads: its id where it carries one, else its content. */
  key: string;
  amount?: Decimal;
  after?: Decimal;
}

/** Entries of a ledger reply (envelope not shown), with the points fields judged. */
export function ledgerOf(body: unknown): LedgerLine[] {
  return listedRecords(body).map((e) => {
    const line: LedgerLine = { key: recordKey(e) };
    if (typeof e.id === 'string') line.id = e.id;
    const amount = decimal(e.amount_points);
    const after = decimal(e.balance_after_points);
    if (amount) line.amount = amount;
    if (after) line.after = after;
    return line;
  });
}

/** LEDGER-002: consecutive entries agree in one of the two listing orders. */
export function ledgerChainProblem(lines: LedgerLine[]): Problem | Met | undefined {
  const pairs = lines
    .slice(1)
    .map((b, i) => [lines[i]!, b] as const)
    .filter(([a, b]) => a.amount && a.after && b.amount && b.after);
  if (pairs.length === 0) return undefined;
  const newestFirst = pairs.filter(([a, b]) => !a.after!.equals(b.after!.plus(a.amount!)));
  const oldestFirst = pairs.filter(([a, b]) => !b.after!.equals(a.after!.plus(b.amount!)));
  const broken = newestFirst.length <= oldestFirst.length ? newestFirst : oldestFirst;
  if (broken.length === 0) return met('LEDGER-002');
  const [a, b] = broken[0]!;
  return {
    id: 'LEDGER-002',
    message: `${broken.length} of ${pairs.length} consecutive ledger entries disagree with balance_after_points in either order`,
    received: [a, b].map((l) => ({
      amount_points: l.amount!.toString(),
      balance_after_points: l.after!.toString(),
    })),
  };
}

/** LEDGER-003: the newest entry (first or last listed) states the total read right after the ledger. */
export function ledgerBalanceProblem(lines: LedgerLine[], total: Decimal): Problem | Met | undefined {
  const ends = [lines[0], lines.at(-1)].filter((l): l is LedgerLine => !!l?.after);
  if (ends.length === 0) return undefined;
  if (ends.some((l) => l.after!.equals(total))) return met('LEDGER-003');
  return {
    id: 'LEDGER-003',
    message: `neither end of the ledger states the balance: balance_after_points ${ends.map((l) => l.after!.toString()).join(' and ')}, total_points ${total}`,
    received: ends.map((l) => l.after!.toString()),
    expected: total.toString(),
  };
}

/**
 * LEDGER-003: the entries added between two reads (told apart by id, or by content where they carry
 * none) add up to the move of the total between the balance reads next to them.
 */
export function ledgerAddsUpProblem(
  before: LedgerLine[],
  after: LedgerLine[],
  moved: Decimal,
): Problem | Met | undefined {
  const added = addedByKey(before, after);
  const sum = added.reduce((s, l) => s.plus(l.amount ?? 0), new ExactDecimal(0));
  // Nothing added and nothing moved: no entry was there to add up (a free call), nothing is judged.
  if (added.length === 0 && moved.isZero()) return undefined;
  if (sum.equals(moved)) return met('LEDGER-003');
  return {
    id: 'LEDGER-003',
    message: `the ${added.length} ledger entries added meanwhile sum to ${sum}, but total_points moved by ${moved}`,
    received: sum.toString(),
    expected: moved.toString(),
  };
}

// ------------------------------------------------------------------ records of two reads

/** The records of a usage or ledger reply (the envelope is not shown). */
export function listedRecords(body: unknown): Array<Record<string, unknown>> {
  return (findEntryList(body)?.entries ?? []).filter(isPlainObject);
}

const EMBEDDINGS_PATH = /\/v1\/embeddings\b/;
/** The token counts an embeddings call's usage gives ("usage": prompt_tokens and total_tokens). */
const EMBEDDING_COUNTS: ReadonlySet<string> = new Set(['prompt_tokens', 'total_tokens']);

/**
 * PTS-005 on a usage listing's records: every token count one shows (its own field ending in `_tokens`,
 * or one of a usage object in it) is an integer. None where the records show no token count (not judged).
 * A record not known to be a conversation call's (recordKind 'studio' or 'unknown') may give its token
 * counts as null: a media job has no token usage, the record's fields are not shown (a job's record may
 * name its job by a model the suite does not know as a media model), and null is no points value either.
 * So may an embeddings call's record for the counts an embedding has not (its completion_tokens).
 */
export function recordTokenJudgements(records: ReadonlyArray<Record<string, unknown>>): Judged[] {
  const problems: Problem[] = [];
  let counts = 0;
  records.forEach((r, i) => {
    const nullable = recordKind(r) !== 'conversation';
    // An embedding's record may say null for a count the embeddings usage does not give (completion_tokens).
    const embedding = Object.values(r).some((v) => typeof v === 'string' && EMBEDDINGS_PATH.test(v));
    const fields: Array<[string, string, unknown]> = Object.entries(r).map(([k, v]) => [k, k, v]);
    for (const u of findField(r, 'usage'))
      if (isPlainObject(u.value))
        for (const [k, v] of Object.entries(u.value)) fields.push([`${u.pointer.slice(1)}/${k}`, k, v]);
    for (const [where, name, value] of fields) {
      if (!isTokenCountName(name)) continue;
      if (value === null && (nullable || (embedding && !EMBEDDING_COUNTS.has(name)))) continue;
      counts++;
      if (!Number.isInteger(value))
        problems.push({
          id: 'PTS-005',
          message: `usage record #${i}: ${where} is ${JSON.stringify(value)}, not an integer`,
          received: value,
        });
    }
  });
  return counts === 0 ? [] : problems.length > 0 ? problems : [met('PTS-005')];
}

const CHAT_PATH = /\/v1\/chat\/completions\b/;
const CHAT_COUNTS: ReadonlySet<string> = new Set(['prompt_tokens', 'completion_tokens', 'total_tokens']);
const NONE: ReadonlySet<string> = new Set();
/** The token counts the contract names for the usage of a reply to `path`: "`prompt_tokens`, `completion_tokens`, `total_tokens`" (chat), "`{prompt_tokens, total_tokens}`" (embeddings); none elsewhere. */
const namedCounts = (path: string): ReadonlySet<string> =>
  CHAT_PATH.test(path) ? CHAT_COUNTS : EMBEDDINGS_PATH.test(path) ? EMBEDDING_COUNTS : NONE;

/** Fields that carry a usage record's id (its field names are not shown). */
const RECORD_ID = ['id', 'usage_id', 'record_id'];

/** What tells a listed record apart between two reads: its id where it carries one, else its content. */
export function recordKey(r: Record<string, unknown>): string {
  const idField = RECORD_ID.find((f) => typeof r[f] === 'string');
  return idField ? `${idField}=${r[idField] as string}` : JSON.stringify(r);
}

/**
 * What the second read lists that the first did not, by key, as a multiset (two records with the same
 * content are two records). The order of either listing does not matter (the ledger's is not shown).
 */
export function addedByKey<T extends { key: string }>(before: readonly T[], after: readonly T[]): T[] {
  const seen = new Map<string, number>();
  for (const b of before) seen.set(b.key, (seen.get(b.key) ?? 0) + 1);
  return after.filter((a) => {
    const n = seen.get(a.key) ?? 0;
    if (n > 0) seen.set(a.key, n - 1);
    return n === 0;
  });
}

/** Usage records listed by the second read and not by the first, with their keys. */
export function addedRecords(before: unknown, after: unknown): Array<Record<string, unknown>> {
  const keyed = (body: unknown) => listedRecords(body).map((r) => ({ key: recordKey(r), r }));
  return addedByKey(keyed(before), keyed(after)).map((k) => k.r);
}

/**
 * USAGE-080: among the usage records that appeared since a read just before a call, one states the
 * charge the reply's billing reports (compared as decimals) and names the model of the request (as a
 * value: the field's name is not shown). Records without charged_points cannot be compared: not judged.
 */
export function usageChargeProblem(
  added: ReadonlyArray<Record<string, unknown>>,
  charged: Decimal,
  model: string,
  where: string,
  /** Where the charge was read (a media job's own charged_points). */
  source = 'billing.charged_points',
): Problem | Met | undefined {
  const priced = added
    .map((r) => ({ r, charged: decimal(r.charged_points) }))
    .filter((p): p is { r: Record<string, unknown>; charged: Decimal } => p.charged !== undefined);
  if (priced.length === 0) return undefined;
  const same = priced.filter((p) => p.charged.equals(charged));
  if (same.length === 0)
    return {
      id: 'USAGE-080',
      message: `${where}: ${source} is ${charged.toFixed()}, but the ${priced.length} usage record(s) that appeared after it state charged_points ${priced.map((p) => p.charged.toFixed()).join(', ')}`,
      received: priced.map((p) => p.r),
      expected: `a record with charged_points ${charged.toFixed()}`,
    };
  if (same.some((p) => allStrings(p.r).some((s) => s.value === model))) return met('USAGE-080');
  return {
    id: 'USAGE-080',
    message: `${where}: the usage record charged ${charged.toFixed()} names no model ${model}`,
    received: same.map((p) => p.r),
    expected: `a record naming ${model}`,
  };
}

// ------------------------------------------------------------------ usage

/**
 * Usage record id -> its charged_points as sent (JSON text), for records that carry both and whose charge
 * is settled: a media job's record charging zero may be listed while its job runs ("Reserved (held)
 * points are not settled charges"), to be charged at settlement, so it is not followed.
 */
export function usageChargesOf(body: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of listedRecords(body)) {
    const idField = RECORD_ID.find((f) => typeof r[f] === 'string');
    // null: no charge yet (a record listed before its settlement), so none to follow.
    if (!idField || r.charged_points === undefined || r.charged_points === null) continue;
    if (recordKind(r) === 'studio' && decimal(r.charged_points)?.isZero()) continue;
    out.set(r[idField] as string, JSON.stringify(r.charged_points));
  }
  return out;
}

/** The same charge: the same text, or the same exact decimal written otherwise ("1.5" and "1.50"). */
function sameCharge(was: string, is: string): boolean {
  if (was === is) return true;
  const [a, b] = [decimal(JSON.parse(was)), decimal(JSON.parse(is))];
  return a !== undefined && b !== undefined && a.equals(b);
}

/** PTS-006 can be judged: a settled charge read before was read again (its form showed). */
export const chargesCompared = (
  seen: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
): boolean => [...now.keys()].some((id) => seen.has(id));

/** PTS-006: a settled charge read again never changed. */
export function chargeChanges(
  seen: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
): Problem[] {
  const out: Problem[] = [];
  for (const [id, was] of seen) {
    const is = now.get(id);
    if (is === undefined || sameCharge(was, is)) continue;
    out.push({
      id: 'PTS-006',
      message: `the settled charge of usage record ${id} changed from ${was} to ${is}`,
      received: is,
      expected: was,
    });
  }
  return out;
}

/**
 * PTS-005 and CHAT-004 on every usage object of a body: token figures are integers (never points), and
 * total = prompt + completion where the three are integers. Met where the form showed, problems first.
 * `path` is the request's: an embeddings reply's usage may add null for a count it does not give.
 */
export function tokenJudgements(body: unknown, where: string, path: string): Judged[] {
  return usageJudgements(findField(body, 'usage'), where, path);
}

/**
 * tokenJudgements on usage objects already found (a capture's reply facts: pointer and value). A count
 * the contract names for the reply (NAMED_COUNTS: chat's three, the embeddings' two) is an integer; a null
 * for any other (an embedding's completion_tokens, a chat reply's reasoning_tokens) is an extra field
 * that reports nothing, no points value.
 */
export function usageJudgements(
  usages: ReadonlyArray<{ pointer: string; value: unknown }>,
  where: string,
  path: string,
): Judged[] {
  const problems: Problem[] = [];
  const judged = new Set<string>();
  const named = namedCounts(path);
  for (const u of usages) {
    if (!isPlainObject(u.value)) continue;
    for (const [k, v] of Object.entries(u.value)) {
      if (!isTokenCountName(k)) continue;
      if (v === null && !named.has(k)) continue;
      judged.add('PTS-005');
      if (!Number.isInteger(v))
        problems.push({
          id: 'PTS-005',
          message: `${where}: ${u.pointer}/${k} is ${JSON.stringify(v)}, not an integer token count`,
          received: v,
          pointer: `${u.pointer}/${k}`,
        });
    }
    const { prompt_tokens: p, completion_tokens: c, total_tokens: tt } = u.value;
    if (![p, c, tt].every(Number.isInteger)) continue;
    judged.add('CHAT-004');
    if ((p as number) + (c as number) !== tt)
      problems.push({
        id: 'CHAT-004',
        message: `${where}: total_tokens ${tt} is not prompt_tokens ${p} + completion_tokens ${c}`,
        received: tt,
        expected: (p as number) + (c as number),
      });
  }
  return [...problems, ...[...judged].filter((id) => !problems.some((q) => q.id === id)).map(met)];
}

// ------------------------------------------------------------------ media

const FAILED_ENDS = ['failed', 'cancelled', 'expired'];

/**
 * MJOB-025: failed, cancelled and expired never change; succeeded may only become expired (judging.md).
 * Judged only after one of those ends was seen: other transitions are not shown.
 */
export function statusProblem(label: string, seen: readonly string[], next: string): Judged {
  const last = seen.at(-1);
  if (last === undefined || !(FAILED_ENDS.includes(last) || last === 'succeeded')) return undefined;
  const ok = last === next || (last === 'succeeded' && next === 'expired');
  if (ok) return met('MJOB-025');
  return {
    id: 'MJOB-025',
    message: `${label} read ${next} after ${seen.join(' > ')}: a ${last} job ${last === 'succeeded' ? 'may only become expired' : 'never changes'}`,
    received: next,
    expected: last === 'succeeded' ? 'succeeded or expired' : last,
  };
}

/**
 * Whether the answer to a repeated create (the same Idempotency-Key and body) may be the reply stored with
 * the key: it shows a status the job already showed. The contract asks a client to "repeat the same create
 * request with the same Idempotency-Key" to learn the job's id; that the answer reads the job's status now
 * is not stated, so such a snapshot is not held against the job's history (MJOB-025).
 */
export const isReplaySnapshot = (seen: readonly string[], status: string): boolean => seen.includes(status);

export const isEnded = (status: string | undefined): boolean => ENDED.includes(status ?? '');

/** MJOB-021: a succeeded job names its asset. */
export function assetIdProblem(label: string, job: Record<string, unknown>): Judged {
  if (job.status !== 'succeeded') return undefined;
  if (typeof job.asset_id === 'string' && job.asset_id !== '') return met('MJOB-021');
  return { id: 'MJOB-021', message: `${label} is succeeded but carries no asset_id`, received: job.asset_id };
}

const IMAGE_MIME: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** MASSET-001: the asset's real type is the model's output (the requested image format; video; GLB). */
export function assetProblem(
  label: string,
  output: 'image' | 'video' | 'glb' | null,
  format: string | undefined,
  sniffed: { ext: string; mime: string } | undefined,
  head: Buffer,
): Judged {
  const got = sniffed?.mime ?? 'not a known file type';
  if (output === 'image') {
    const want = format ? IMAGE_MIME[format] : undefined;
    if (sniffed?.mime.startsWith('image/') && (!want || sniffed.mime === want)) return met('MASSET-001');
    return {
      id: 'MASSET-001',
      message: `the asset of ${label} is ${got}, not ${want ?? 'an image'}`,
      received: sniffed?.mime ?? null,
      expected: want ?? 'an image',
    };
  }
  if (output === 'video') {
    if (sniffed && (sniffed.mime.startsWith('video/') || ['mp4', 'mov', 'webm', 'mkv'].includes(sniffed.ext)))
      return met('MASSET-001');
    return {
      id: 'MASSET-001',
      message: `the asset of ${label} is ${got}, not a video container`,
      received: sniffed?.mime ?? null,
      expected: 'a video container',
    };
  }
  if (output === 'glb') {
    if (sniffed?.ext === 'glb' || head.subarray(0, 4).toString('latin1') === 'glTF') return met('MASSET-001');
    return {
      id: 'MASSET-001',
      message: `the asset of ${label} is ${got}, not binary glTF`,
      received: sniffed?.mime ?? null,
      expected: 'model/gltf-binary',
    };
  }
  return undefined;
}
