/**
 * `gateway-conformance merge --report-dir OUT DIR...`: combine the reports of the shards of one run
 * (`--shard i/n`) into one summary and exchange log, written as one report (src/report/write.ts). The shards must
 * be of one target and one live description; known-failure entries that no shard saw fail are judged
 * stale here (a single shard cannot tell).
 */
import type { KeyObject } from 'node:crypto';
import { copyFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { UsageError } from '../errors.ts';
import { expectationFailures } from './expectations.ts';
import { ExchangeLog, makeReportDir, REPORT_FILES, reportFile } from './layout.ts';
import { mergeCaptureFacts, mergeCaptureTests } from './merge-capture.ts';
import { loadSummary } from './stored.ts';
import { aggregate, type Summary } from './summary.ts';
import type { TestResultRecord } from './test-result.ts';
import { writeReport } from './write.ts';

const RANK = { matched: 3, stale: 2, expired: 1, unused: 0 } as Record<string, number>;

export function mergeReports(dirs: string[], out: string, signKey?: KeyObject): Summary {
  if (dirs.length < 1) throw new UsageError('merge: name the shard report directories to combine');
  const parts = dirs.map((d) => ({ dir: resolve(d), s: loadSummary(d, 'merge') }));
  const first = parts[0]!.s;
  for (const { dir, s } of parts) {
    // Each embedded run starts its own reference on its own port: the name identifies it.
    const sameUrl = s.target.embedded || s.target.baseUrl === first.target.baseUrl;
    if (s.target.name !== first.target.name || !sameUrl)
      throw new UsageError(
        `merge: ${dir} is a report of target ${s.target.name} (${s.target.baseUrl}), not ${first.target.name} (${first.target.baseUrl})`,
      );
    if (s.openapi.sha256 !== first.openapi.sha256)
      throw new UsageError(
        `merge: ${dir} saw another live description (sha256 ${s.openapi.sha256 ?? 'none'}; the first report's: ${first.openapi.sha256 ?? 'none'})`,
      );
    if (!s.shard) throw new UsageError(`merge: ${dir} is not a shard (run with --shard i/n)`);
  }
  const shards = parts.map((p) => p.s.shard!);
  const dup = shards.find((x, i) => shards.indexOf(x) !== i);
  if (dup) throw new UsageError(`merge: shard ${dup} appears twice`);
  const n = new Set(shards.map((x) => x.split('/')[1]));
  if (n.size !== 1) throw new UsageError(`merge: the shards do not split one run (${shards.join(', ')})`);

  // Expectation failures each shard wrote are recomputed here from the combined statuses.
  const isExpectationRecord = (t: TestResultRecord) => t.origin === 'expectations';
  // check-traffic shards hold one record per rule each: combined per rule (merge-capture.ts).
  const captures = parts.map((p) => p.s.capture).filter((c) => c !== undefined);
  const capture = captures.length === parts.length;
  const tests = capture
    ? mergeCaptureTests(parts.map((p) => p.s.tests))
    : parts.flatMap((p) => p.s.tests.filter((t) => !isExpectationRecord(t)));
  const harnessErrors = parts.flatMap((p) => p.s.harnessErrors ?? []);
  let expectations: Summary['expectations'];
  if (first.expectations) {
    expectations = first.expectations.map((e, i) => {
      const all = parts.map((p) => p.s.expectations?.[i]).filter((x) => x !== undefined);
      const best = all.reduce((a, b) => ((RANK[b.status] ?? 0) > (RANK[a.status] ?? 0) ? b : a), e);
      return { ...best, tests: all.flatMap((x) => x.tests) };
    });
    tests.push(
      ...expectationFailures(
        expectations.map((e) => ({ ...e, status: e.status as 'matched' | 'expired' | 'stale' | 'unused' })),
        'expectations',
      ),
    );
  }
  const starts = parts.map((p) => Date.parse(p.s.startedAt));
  const ends = parts.map((p) => Date.parse(p.s.startedAt) + p.s.durationMs);
  const spent = parts.reduce((a, p) => a.plus(p.s.points?.spent ?? '0'), new Decimal(0));
  makeReportDir(out);
  const log = ExchangeLog.of(out);
  log.create();
  let exchanges = 0;
  for (const { dir } of parts) {
    const part = ExchangeLog.of(dir);
    if (part.exists()) exchanges += log.appendText(part.text());
  }
  if (existsSync(reportFile(parts[0]!.dir, 'openapi')))
    copyFileSync(reportFile(parts[0]!.dir, 'openapi'), reportFile(out, 'openapi'));
  const skippedByClass: Record<string, number> = {};
  for (const p of parts)
    for (const [k, v] of Object.entries(p.s.skippedByClass ?? {}))
      skippedByClass[k] = (skippedByClass[k] ?? 0) + v;
  const { shard: _shard, cut: _cut, inconclusive: _inconclusive, ...rest } = first;
  const summary: Summary = {
    ...rest,
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    ...aggregate(tests, harnessErrors, {
      cut: parts.map((p) => p.s.cut).find(Boolean),
      partial: !!(first.filter || first.suites?.length) || shards.length < Number([...n][0]),
    }),
    exchanges: { file: REPORT_FILES.exchanges.name, count: exchanges },
    tests,
    shards: shards.sort(),
    skippedByClass,
    points: {
      spent: spent.toString(),
      budget: first.points?.budget ?? null,
      source: first.points?.source ?? '',
    },
  };
  if (expectations) summary.expectations = expectations;
  if (capture) {
    summary.capture = mergeCaptureFacts(captures, tests);
    // A capture spends no points.
    delete summary.points;
  }
  const interrupted = parts.map((p) => p.s.interrupted).find(Boolean);
  if (interrupted) summary.interrupted = interrupted;
  else delete summary.interrupted;
  writeReport(out, summary, harnessErrors, undefined, signKey);
  return summary;
}
