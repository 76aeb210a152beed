/**
 * What changed since an earlier run of the same target (`--compare-with previous|DIR`): per requirement
 * and per test, what newly fails, what was fixed, what is newly not run and what is newly judged, and
 * the operations whose typical time grew most. Why: release CI wants "2 new failures since the last
 * release", not the whole list again. Computed once at the end of a run into summary.json
 * (`comparison`); the console, report.html and summary.md read it from there.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathTemplate } from './groups.ts';
import { ExchangeLog, isReportDir, reportFile } from './layout.ts';
import { judgedOutcome, type RequirementOutcome } from './requirements.ts';
import { loadSummary } from './stored.ts';
import type { Changes, Comparison, SlowerOperation, StoredSummary, Summary } from './summary.ts';
import type { TestResultRecord } from './test-result.ts';

const MAX_SLOWER = 5;
/** Fewer exchanges than this on either side and a median says nothing. */
const MIN_SAMPLES = 3;
/** A growth smaller than this (ms, and 20%) is noise. */
const MIN_GROWTH_MS = 20;
/** Exchange logs beyond this are not read for timings (a hostile target's run may be huge). */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

/** What a run judged: its target, and the selection of the plan it ran (filter, suites, shard). */
export interface RunSelection {
  target: string;
  filter?: string | undefined;
  suites?: readonly string[] | undefined;
  shard?: string | undefined;
}

const sameSelection = (s: StoredSummary, sel: RunSelection) =>
  (s.filter ?? '') === (sel.filter ?? '') &&
  [...(s.suites ?? [])].sort().join(',') === [...(sel.suites ?? [])].sort().join(',') &&
  (s.shard ?? '') === (sel.shard ?? '');

/**
 * The report directory `previous` names: the newest other report beside `reportDir` of a completed live
 * run of the same target and selection (never a dry run, nor a run a signal, the deadline or a dead
 * target cut short, nor another selection), with why it was chosen and what was passed over; or why
 * none was found.
 */
export function previousReport(
  reportDir: string,
  sel: RunSelection,
): { dir: string; why: string } | { missing: string } {
  const root = dirname(resolve(reportDir));
  const passed = { dry: 0, interrupted: 0, selection: 0 };
  const candidates = existsSync(root)
    ? readdirSync(root)
        .map((d) => join(root, d))
        .filter((d) => d !== resolve(reportDir) && isReportDir(d))
        .sort(
          (a, b) => statSync(reportFile(b, 'summary')).mtimeMs - statSync(reportFile(a, 'summary')).mtimeMs,
        )
    : [];
  for (const d of candidates) {
    let s: StoredSummary;
    try {
      s = loadSummary(d, '--compare-with');
    } catch {
      continue;
    }
    if (s.target?.name !== sel.target) continue;
    if (s.dryRun) passed.dry++;
    else if (s.interrupted) passed.interrupted++;
    else if (!sameSelection(s, sel)) passed.selection++;
    else {
      const over = [
        passed.dry && `${passed.dry} dry run(s)`,
        passed.interrupted && `${passed.interrupted} interrupted run(s)`,
        passed.selection && `${passed.selection} run(s) of another selection`,
      ].filter(Boolean);
      return {
        dir: d,
        why: `the newest completed live run of target ${sel.target} with the same selection${over.length ? `; newer, passed over: ${over.join(', ')}` : ''}`,
      };
    }
  }
  return {
    missing: `no earlier report of a completed live run of target ${sel.target} with the same selection beside ${reportDir}${passed.dry + passed.interrupted + passed.selection ? ` (passed over: ${passed.dry} dry, ${passed.interrupted} interrupted, ${passed.selection} of another selection)` : ''}`,
  };
}

/** The summary of the report to compare with, or a usage error saying why it cannot be read. */
export function loadCompared(dir: string): StoredSummary {
  return loadSummary(dir, '--compare-with');
}

function changes(now: Map<string, RequirementOutcome>, before: Map<string, RequirementOutcome>): Changes {
  const out: Changes = { newlyFailing: [], fixed: [], newlyNotRun: [], newlyJudged: [] };
  for (const key of new Set([...now.keys(), ...before.keys()])) {
    const n = now.get(key);
    const b = before.get(key);
    const judgedNow = n !== undefined && judgedOutcome(n);
    const judgedThen = b !== undefined && judgedOutcome(b);
    if (n === 'failed' && b !== 'failed') out.newlyFailing.push(key);
    else if (b === 'failed' && judgedNow && n !== 'failed') out.fixed.push(key);
    if (judgedThen && !judgedNow) out.newlyNotRun.push(key);
    else if (!judgedThen && judgedNow) out.newlyJudged.push(key);
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

const testKey = (t: Pick<TestResultRecord, 'file' | 'title'>) => `${t.title} (${t.file})`;

/** Median exchange time per operation of a report directory's exchange log. */
function operationTimes(dir: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const log = ExchangeLog.of(dir);
  if (!log.exists() || log.size() > MAX_LOG_BYTES) return out;
  for (const ex of log.all()) {
    if (typeof ex.durationMs !== 'number' || ex.error || typeof ex.path !== 'string') continue;
    const op = `${ex.method} ${pathTemplate(ex.path)}`;
    out.set(op, [...(out.get(op) ?? []), ex.durationMs]);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function slower(nowDir: string, beforeDir: string): SlowerOperation[] {
  const now = operationTimes(nowDir);
  const before = operationTimes(beforeDir);
  const out: SlowerOperation[] = [];
  for (const [operation, times] of now) {
    const then = before.get(operation);
    if (!then || times.length < MIN_SAMPLES || then.length < MIN_SAMPLES) continue;
    const [beforeMs, nowMs] = [median(then), median(times)];
    if (nowMs - beforeMs >= MIN_GROWTH_MS && nowMs >= beforeMs * 1.2)
      out.push({ operation, beforeMs: Math.round(beforeMs), nowMs: Math.round(nowMs) });
  }
  return out.sort((a, b) => b.nowMs - b.beforeMs - (a.nowMs - a.beforeMs)).slice(0, MAX_SLOWER);
}

/** Compare a finished run (its summary and report directory) with an earlier report. */
export function compareRuns(
  now: Summary,
  nowDir: string,
  before: Summary,
  beforeDir: string,
  why?: string,
): Comparison {
  const reqs = (s: Summary) =>
    new Map(Object.entries(s.requirements ?? {}).map(([id, r]) => [id, r.outcome] as const));
  const tests = (s: Summary) => new Map((s.tests ?? []).map((t) => [testKey(t), t.outcome] as const));
  return {
    against: beforeDir,
    ...(why ? { why } : {}),
    againstStartedAt: before.startedAt,
    againstVerdict: before.verdict,
    requirements: changes(reqs(now), reqs(before)),
    tests: changes(tests(now), tests(before)),
    slower: slower(nowDir, beforeDir),
  };
}

const list = (ids: string[], max = 8) =>
  ids.length === 0
    ? ''
    : `: ${ids.slice(0, max).join(', ')}${ids.length > max ? `, … ${ids.length - max} more` : ''}`;

/** The few lines the console and summary.md give a comparison. */
export function comparisonLines(c: Comparison): string[] {
  const r = c.requirements;
  const t = c.tests;
  const lines = [
    `since ${c.against} (${c.againstStartedAt}, ${c.againstVerdict.toUpperCase().replace('_', ' ')}${c.why ? `; ${c.why}` : ''}): ${r.newlyFailing.length} newly failing requirement(s)${list(r.newlyFailing)}; ${r.fixed.length} fixed${list(r.fixed)}`,
    `  tests: ${t.newlyFailing.length} newly failing, ${t.fixed.length} fixed, ${t.newlyNotRun.length} newly not run, ${t.newlyJudged.length} newly judged; requirements newly not run ${r.newlyNotRun.length}${list(r.newlyNotRun, 5)}, newly judged ${r.newlyJudged.length}${list(r.newlyJudged, 5)}`,
  ];
  if (c.slower.length)
    lines.push(
      `  slower: ${c.slower.map((s) => `${s.operation} ${s.beforeMs} → ${s.nowMs} ms (median)`).join('; ')}`,
    );
  return lines;
}
