/**
 * The mutation matrix: the suite against every seeded fault of the reference (each must be killed by
 * the requirement ids it breaks) and every conformant variant (each must pass with 0 failures), plus
 * the conformant reference itself. Each run is the real CLI in a child process against a reference
 * started here, configured through a targets file, exactly as a user would run it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULTS, startReference, VARIANTS } from '../../reference/start.ts';
import type { Summary } from '../../src/report/summary.ts';
import { runCli } from '../helpers.ts';
import { writeRefTargets } from '../support/ref-target.ts';

export interface MatrixRow {
  kind: 'reference' | 'fault' | 'variant';
  name: string;
  strict: boolean;
  expected: string[];
  /** Requirement ids that failed / were advisory in the run. */
  failed: string[];
  advisory: string[];
  counts?: Summary['counts'];
  status: 'killed' | 'SURVIVED' | 'passed' | 'FALSE-ALARM' | 'ERROR' | 'advisory-only';
  ok: boolean;
  note?: string;
  ms: number;
}

interface Job {
  kind: MatrixRow['kind'];
  name: string;
  strict: boolean;
  expected: string[];
  /** implied-level fault run without --strict: must show as advisory and not fail. */
  expectAdvisoryOnly?: boolean;
}

export function plan(only?: string[]): Job[] {
  const jobs: Job[] = [{ kind: 'reference', name: 'reference', strict: false, expected: [] }];
  jobs.push({ kind: 'reference', name: 'reference', strict: true, expected: [] });
  for (const f of FAULTS) {
    // A notable-level fault (e.g. a target that ignores its own catalog for a model the contract does
    // not document) can only ever be advisory: it must show as advisory and never fail, even --strict.
    if (f.level === 'notable') {
      jobs.push({ kind: 'fault', name: f.name, strict: true, expected: f.breaks, expectAdvisoryOnly: true });
      continue;
    }
    jobs.push({ kind: 'fault', name: f.name, strict: f.level === 'implied', expected: f.breaks });
    if (f.level === 'implied')
      jobs.push({ kind: 'fault', name: f.name, strict: false, expected: f.breaks, expectAdvisoryOnly: true });
  }
  for (const v of VARIANTS) jobs.push({ kind: 'variant', name: v.name, strict: false, expected: [] });
  return only?.length ? jobs.filter((j) => only.includes(j.name)) : jobs;
}

/**
 * A fault run needs only the tests that cite the ids the fault breaks (titles start with their ids);
 * the reference and the variants always run the whole suite, since a false alarm can come from anywhere.
 */
export function faultFilter(ids: string[]): string {
  return `\\b(${ids.map((id) => id.replace(/[-]/g, '\\-')).join('|')})\\b`;
}

/**
 * Which suite files hold the tests citing each requirement id, from a dry run of the whole suite (no
 * request is sent). A fault run then collects only those files (`--suite`), not every suite file.
 */
export async function filesById(): Promise<Map<string, Set<string>>> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-plan-'));
  const run = await runCli(
    ['--base-url', 'http://127.0.0.1:9', '--allow', 'read', '--dry-run', '--quiet', '--report-dir', dir],
    { CONFORMANCE_API_KEY: 'sk-plan-only-0123456789' },
  );
  const map = new Map<string, Set<string>>();
  try {
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    for (const t of s.tests) for (const id of t.ids) map.set(id, (map.get(id) ?? new Set()).add(t.file));
  } catch {
    throw new Error(
      `the dry run that maps ids to suite files failed (exit ${run.code}): ${run.stderr.slice(0, 300)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return map;
}

async function runOne(
  job: Job,
  timeoutMs: number,
  full: boolean,
  files?: Map<string, Set<string>>,
): Promise<MatrixRow> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'gc-mutant-'));
  const ref = await startReference({
    port: 0,
    ...(job.kind === 'fault' ? { fault: job.name } : {}),
    ...(job.kind === 'variant' ? { variant: job.name } : {}),
  });
  // A fault that makes requests hang asks for a short request timeout, so that its run stays bounded.
  const requestMs = job.kind === 'fault' ? FAULTS.find((f) => f.name === job.name)?.requestMs : undefined;
  const env = writeRefTargets(ref, join(dir, 'targets.yaml'), requestMs !== undefined ? { requestMs } : {});
  const args = [
    '--targets',
    join(dir, 'targets.yaml'),
    '--target',
    'ref',
    '--report-dir',
    join(dir, 'report'),
    '--quiet',
  ];
  if (job.strict) args.push('--strict');
  if (job.kind === 'fault' && !full) {
    args.push('--filter', faultFilter(job.expected));
    const suites = new Set(job.expected.flatMap((id) => [...(files?.get(id) ?? [])]));
    if (suites.size > 0) args.push('--suite', [...suites].join(','));
  }
  const row: MatrixRow = {
    kind: job.kind,
    name: job.name,
    strict: job.strict,
    expected: job.expected,
    failed: [],
    advisory: [],
    status: 'ERROR',
    ok: false,
    ms: 0,
  };
  try {
    const run = await runCli(args, env, timeoutMs);
    const code = run.code;
    const output = run.stdout + run.stderr;
    let summary: Summary | undefined;
    try {
      summary = JSON.parse(readFileSync(join(dir, 'report', 'summary.json'), 'utf8')) as Summary;
    } catch {
      row.note = `no summary (exit ${code}): ${output.trim().split('\n').slice(-3).join(' | ')}`;
    }
    if (summary) {
      row.failed = Object.keys(summary.failedRequirements).sort();
      row.advisory = Object.keys(summary.advisoryRequirements).sort();
      row.counts = summary.counts;
      judge(row, job, summary);
    }
  } finally {
    await ref.close();
    rmSync(dir, { recursive: true, force: true });
    row.ms = Date.now() - started;
  }
  return row;
}

function judge(row: MatrixRow, job: Job, s: Summary): void {
  const c = s.counts;
  if (c.harness_error > 0) {
    row.status = 'ERROR';
    row.note = `${c.harness_error} harness error(s)`;
    return;
  }
  if (job.kind === 'reference' || job.kind === 'variant') {
    row.ok = c.failed === 0;
    row.status = row.ok ? 'passed' : 'FALSE-ALARM';
    return;
  }
  const hit = job.expected.filter((id) => row.failed.includes(id));
  if (job.expectAdvisoryOnly) {
    const shown = job.expected.filter((id) => row.advisory.includes(id));
    row.ok = c.failed === 0 && shown.length > 0;
    row.status = row.ok ? 'advisory-only' : c.failed > 0 ? 'FALSE-ALARM' : 'SURVIVED';
    if (!row.ok && c.failed > 0)
      row.note = job.strict
        ? 'a notable-level fault must stay advisory, even with --strict'
        : 'an implied-invariant fault must not fail without --strict';
    return;
  }
  row.ok = hit.length > 0;
  row.status = row.ok ? 'killed' : 'SURVIVED';
  if (!row.ok && row.failed.length > 0)
    row.note = `failed only other ids (${row.failed.join(' ')}), not ${job.expected.join(' ')}`;
}

export async function runMatrix(
  opts: {
    only?: string[];
    parallel?: number;
    timeoutMs?: number;
    full?: boolean;
    log?: (s: string) => void;
  } = {},
): Promise<MatrixRow[]> {
  const jobs = plan(opts.only);
  const parallel = opts.parallel ?? Math.max(1, Math.min(3, cpus().length));
  const rows: MatrixRow[] = new Array(jobs.length);
  const files = !opts.full && jobs.some((j) => j.kind === 'fault') ? await filesById() : undefined;
  let next = 0;
  const workers = Array.from({ length: Math.min(parallel, jobs.length) }, async () => {
    for (;;) {
      const i = next++;
      if (i >= jobs.length) return;
      rows[i] = await runOne(jobs[i]!, opts.timeoutMs ?? 240_000, opts.full ?? false, files);
      opts.log?.(formatRow(rows[i]!));
    }
  });
  await Promise.all(workers);
  return rows;
}

export function formatRow(r: MatrixRow): string {
  const name = `${r.kind.padEnd(9)} ${(r.name + (r.strict ? ' (strict)' : '')).padEnd(34)}`;
  const ids =
    r.kind === 'fault'
      ? ` failed: ${r.failed.join(' ') || '-'}${r.advisory.length ? `; advisory: ${r.advisory.join(' ')}` : ''}`
      : r.failed.length
        ? ` failed: ${r.failed.join(' ')}`
        : '';
  return `${r.ok ? 'ok  ' : 'FAIL'} ${name} ${r.status.padEnd(13)}${ids}${r.note ? ` (${r.note})` : ''} [${(r.ms / 1000).toFixed(1)}s]`;
}
