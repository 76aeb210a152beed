/**
 * `merge` of check-traffic shards (`check-traffic --shard i/n`): each shard holds one record per rule it
 * knows, judged on its share of the exchanges. The merged record of a rule is judged when any shard
 * judged it; its exchange count is the shards' sum, its violations and cited exchanges are all of
 * theirs (a violation listed by two shards with the same words counted once, its counts added), and its
 * outcome is decided again from them, as check-traffic decides it on the capture judged whole.
 */
import { CAPTURE_ENDPOINTS_LISTED, type CaptureHolds, type Summary } from './summary.ts';
import type { TestResultRecord } from './test-result.ts';

type Capture = NonNullable<Summary['capture']>;

/** The parts of a capture no shard could read: one record, as the capture judged whole has. */
const UNREADABLE = '(unreadable)';

/** One record per rule (and one for what could not be read), from the shards' records in shard order. */
export function mergeCaptureTests(shards: TestResultRecord[][]): TestResultRecord[] {
  const byKey = new Map<string, TestResultRecord[]>();
  for (const tests of shards)
    for (const t of tests) {
      const key = t.ids.length === 1 ? t.ids[0]! : t.ids.length === 0 ? UNREADABLE : t.title;
      byKey.set(key, [...(byKey.get(key) ?? []), t]);
    }
  return [...byKey].map(([key, list]) =>
    list.length === 1 ? list[0]! : key === UNREADABLE ? unreadable(list) : rule(key, list),
  );
}

function rule(id: string, list: TestResultRecord[]): TestResultRecord {
  const judged = list.filter((t) => t.outcome !== 'not_run');
  if (judged.length === 0) {
    // Not judged anywhere: the reason of the first, with the bodies counted over every shard.
    const bodies = list.reduce(
      (n, t) => n + Number(/the response bodies of (\d+) exchange/.exec(t.reason ?? '')?.[1] ?? 0),
      0,
    );
    const first = list[0]!;
    return first.reason === undefined
      ? first
      : {
          ...first,
          reason: first.reason.replace(
            /the response bodies of \d+ exchange/,
            `the response bodies of ${bodies} exchange`,
          ),
        };
  }
  const violations: TestResultRecord['violations'] = [];
  const same = new Map<string, (typeof violations)[number]>();
  for (const v of judged.flatMap((t) => t.violations)) {
    const key = `${v.id}\n${v.message}\n${v.pointer ?? ''}`;
    const seen = same.get(key);
    if (seen) seen.count = (seen.count ?? 1) + (v.count ?? 1);
    else {
      const copy = { ...v };
      same.set(key, copy);
      violations.push(copy);
    }
  }
  const exchanges = new Map(judged.flatMap((t) => t.exchanges).map((x) => [x.id, x] as const));
  const count = judged.reduce((n, t) => n + t.exchangeCount, 0);
  return {
    ...judged[0]!,
    title: `${id} captured traffic: ${count} exchange(s) judged`,
    outcome: violations.some((v) => v.severity === 'failure')
      ? 'failed'
      : violations.length > 0
        ? 'advisory'
        : 'passed',
    violations,
    exchanges: [...exchanges.values()],
    exchangeCount: count,
  };
}

function unreadable(list: TestResultRecord[]): TestResultRecord {
  const parts = list.reduce((n, t) => n + Number(/: (\d+) parts? of the capture/.exec(t.title)?.[1] ?? 0), 0);
  return {
    ...list[0]!,
    title: `captured traffic: ${parts} ${parts === 1 ? 'part' : 'parts'} of the capture could not be read`,
    reason: `not judged: ${list.map((t) => (t.reason ?? '').replace(/^not judged: /, '')).join('; ')}`,
  };
}

/** What the shards' captures held, added up (each exchange was judged by one shard). */
export function mergeCaptureFacts(list: Capture[], tests: TestResultRecord[]): Capture {
  const first = list[0]!;
  const sum = (k: 'entries' | 'entriesRead' | 'exchangesJudged') => list.reduce((n, c) => n + c[k], 0);
  return {
    ...first,
    entries: sum('entries'),
    entriesRead: sum('entriesRead'),
    exchangesJudged: sum('exchangesJudged'),
    requirementsJudged: tests.filter((t) => t.outcome !== 'not_run' && t.ids.length > 0).length,
    notJudged: tests.filter((t) => t.outcome === 'not_run').flatMap((t) => t.ids),
    problems: list.flatMap((c) => c.problems),
    ...(list.some((c) => c.otherOrigins)
      ? { otherOrigins: mergeCounts(list.map((c) => c.otherOrigins)) }
      : {}),
    ...(list.some((c) => c.holds)
      ? { holds: mergeHolds(list.flatMap((c) => (c.holds ? [c.holds] : []))) }
      : {}),
  };
}

/** Counts by name added up over the shards. */
function mergeCounts(list: Array<Record<string, number> | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const counts of list) for (const [k, n] of Object.entries(counts ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** The shards' holds as one: the widest span, credentials added (a shard keeps each credential's exchanges), endpoints joined. */
function mergeHolds(list: CaptureHolds[]): CaptureHolds {
  const froms = list.flatMap((h) => (h.from ? [h.from] : [])).sort();
  const tos = list.flatMap((h) => (h.to ? [h.to] : [])).sort();
  const all = [...new Set(list.flatMap((h) => h.endpoints))].sort();
  const more =
    list.reduce((n, h) => n + (h.moreEndpoints ?? 0), 0) + Math.max(0, all.length - CAPTURE_ENDPOINTS_LISTED);
  return {
    ...(froms[0] ? { from: froms[0] } : {}),
    ...(tos.length ? { to: tos[tos.length - 1] } : {}),
    credentials: list.reduce((n, h) => n + h.credentials, 0),
    endpoints: all.slice(0, CAPTURE_ENDPOINTS_LISTED),
    ...(more ? { moreEndpoints: more } : {}),
  };
}
