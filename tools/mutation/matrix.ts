/**
 * The mutation matrix: the suite against every seeded fault of the reference (each must be killed by
 * the requirement ids it breaks) and every conformant variant (each must pass with 0 failures), plus
 * the conformant reference itself. Each run is the CLI's own entry on a user's arguments (a targets
 * file, keys in environment variables, a report directory) against a reference started here. Rows run
 * in a few long-lived child processes (row-runner.ts), each running one row after another with its own
 * vitest instance, worker threads and report; `spawn: true` starts one CLI process per row instead.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPlaceFault } from '../../reference/faults/places.ts';
import { FAULTS, ReachRecorder, startReference, VARIANTS } from '../../reference/start.ts';
import type { Json } from '../../src/openapi/document.ts';
import { pkgPath } from '../../src/paths.ts';
import type { FindingGroup } from '../../src/report/groups.ts';
import type { Summary } from '../../src/report/summary.ts';
import { HANG_BOUND_MS } from '../bounds.ts';
import { writeRefTargets } from '../ref-target.ts';
import { type CliRun, runCli } from '../run-cli.ts';
import { GROUP_REASONS } from './group-reasons.ts';
import { titlesFilter, type VariantPlan, variantFiles, variantPlan } from './variant-plan.ts';

/**
 * A row that has not ended after this long is ended and reported as an ERROR row: a bound on a hung row
 * only (a row takes seconds to a few minutes: the longest, a whole-suite variant answering 429s, 228 s in
 * a CI run at load 10), wide enough that a slow or loaded machine never reaches it: the bound on a hung
 * test of `npm test`.
 */
export const ROW_TIMEOUT_MS = HANG_BOUND_MS;

/** A runner process is replaced after this many rows, or once it holds this much memory. */
const RUNNER_MAX_ROWS = 40;
const RUNNER_MAX_RSS = 1_500_000_000;

/** A row's CLI run, with the CPU its process used when a row runner ran it. */
type RowRun = CliRun & { cpuMs?: number };

/** One long-lived row runner: a child process running the CLI's entry on one row at a time. */
class RowRunner {
  private child: ChildProcess | undefined;
  private rows = 0;
  private output = '';

  run(argv: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RowRun> {
    const child = this.child ?? this.start();
    this.output = '';
    return new Promise((resolve) => {
      const done = (code: number | null, note?: string, cpuMs?: number) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve({ code, stdout: this.output, stderr: note ?? '', ...(cpuMs !== undefined ? { cpuMs } : {}) });
      };
      const onMessage = (m: { code: number; rss: number; cpuMs: number }) => {
        done(m.code, undefined, m.cpuMs);
        if (++this.rows >= RUNNER_MAX_ROWS || m.rss > RUNNER_MAX_RSS) this.close();
      };
      const onExit = (code: number | null) => {
        this.child = undefined;
        done(null, `the row runner exited (${code}) before the row ended`);
      };
      const timer = setTimeout(() => {
        this.close(true);
        done(null, `the row did not end within ${timeoutMs} ms`);
      }, timeoutMs);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ argv, env });
    });
  }

  close(kill = false): void {
    const child = this.child;
    this.child = undefined;
    this.rows = 0;
    if (!child) return;
    if (kill) child.kill('SIGKILL');
    else if (child.connected) child.disconnect();
  }

  private start(): ChildProcess {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONFORMANCE_')) env[k] = v;
    const child = fork(pkgPath('tools', 'mutation', 'row-runner.mjs'), [], {
      cwd: pkgPath(),
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.child = child;
    return child;
  }
}

export interface MatrixRow {
  kind: 'reference' | 'fault' | 'variant';
  name: string;
  strict: boolean;
  expected: string[];
  /** Requirement ids that failed / were advisory in the run. */
  failed: string[];
  advisory: string[];
  /** A fault row's failed ids outside its expected ones: a fault caught by the wrong check too, or a check that fires on everything. */
  collateral: string[];
  counts?: Summary['counts'];
  /**
   * A fault row's groups of findings, as the console, summary.md and the HTML list them: its failure
   * groups (advisory ones for a fault that must show only as advisory). One cause, one group: the goal is 1.
   */
  groups?: number;
  /** Those groups as the console heads them: `[ids] cause (on N endpoints)`. */
  groupHeads?: string[];
  status: 'killed' | 'SURVIVED' | 'COLLATERAL' | 'passed' | 'FALSE-ALARM' | 'ERROR' | 'advisory-only';
  ok: boolean;
  note?: string;
  ms: number;
  /** CPU time of the run's CLI process (its worker threads included) while the row ran, when a row runner ran it. */
  cpuMs?: number;
  /** An implied fault's strict row: its plain row as read off this run (plainReading). */
  plain?: MatrixRow;
}

export interface Job {
  kind: MatrixRow['kind'];
  name: string;
  strict: boolean;
  expected: string[];
  /** implied-level fault run without --strict: must show as advisory and not fail. */
  expectAdvisoryOnly?: boolean;
  /**
   * An implied fault's plain row read off its strict row's run (plainReading), not run: --strict changes only
   * an implied violation's severity. A sample of them runs for real, each compared with its reading.
   */
  derived?: boolean;
}

/** How many implied faults' plain rows run for real (the rest are read off their strict rows). */
export const PLAIN_SAMPLE = 2;

/** How many generated place-fault rows the default matrix (and so `npm test`) runs: a sample. */
export const PLACE_SAMPLE = 10;

/**
 * `npm test` runs one in MATRIX_STRIDE of the hand-written faults and of the variants (strideSample: spread
 * over each list, from an offset taken from the commit; every row over commits), and the reference rows
 * always; `npm run mutants` runs them all. Why: the whole matrix is most of `.ci/run`'s CPU (1,500 of its
 * 2,778 CPU-s, 536 rows, in the run at a1a457c), and on this 2-core machine, slower than when the matrix
 * was sized (the same work 1,566 CPU-s then), .ci/run took 1,458-1,828 s against its 15-minute mark.
 * One in three (e198efe: 188 rows) still took 987 s and 1,828 CPU-s, the matrix's rows 597 CLI CPU-s;
 * one in four (1d8f4b1: 142 rows) 928 s and 1,725 CPU-s, the rows 477 CLI CPU-s: one in five.
 */
export const MATRIX_STRIDE = 5;

/**
 * The place-fault rows of a run: `size` of the generated list spread evenly over it (every n/size-th,
 * wrapping, so each family of the list is met), from an offset taken from the commit hash: the same
 * sample for one commit, and every row runs over commits (the offset takes each value).
 */
export function placeSample(names: readonly string[], commit: string, size = PLACE_SAMPLE): string[] {
  if (names.length <= size) return [...names];
  const start = Number.parseInt(commit.slice(0, 8), 16) % names.length || 0;
  const stride = Math.floor(names.length / size);
  return Array.from({ length: size }, (_, i) => names[(start + i * stride) % names.length] as string);
}

/**
 * Every k-th of `names`, from an offset taken from the commit hash (0 to k-1): spread over the whole list,
 * so each family of it is met; the same rows for one commit, and k commits of different offsets run all.
 */
export function strideSample(names: readonly string[], commit: string, k: number): string[] {
  const offset = (Number.parseInt(commit.slice(0, 8), 16) || 0) % k;
  return names.filter((_, i) => i % k === offset);
}

/** The commit the checkout is at (`git rev-parse HEAD`), or '0' outside a git checkout. */
export function headCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: pkgPath(),
      encoding: 'utf8',
      timeout: 10_000,
    }).trim();
  } catch {
    return '0';
  }
}

/**
 * The rows: the reference (plain and strict), every hand-written fault, every variant and a sample of
 * the generated place faults chosen by the commit (`places: 'all'`: the place faults alone, every one).
 * `rows: 'sample'` (npm test) keeps one in MATRIX_STRIDE of the hand-written faults and of the variants,
 * chosen by the commit. `only` names rows of either kind.
 */
export function plan(
  only?: string[],
  places: 'sample' | 'all' = 'sample',
  commit = headCommit(),
  rows: 'sample' | 'all' = 'all',
): Job[] {
  const generated = FAULTS.filter((f) => isPlaceFault(f.name)).map((f) => f.name);
  const chosen = new Set(places === 'all' || only?.length ? generated : placeSample(generated, commit));
  const written = FAULTS.filter((f) => !isPlaceFault(f.name)).map((f) => f.name);
  const sampled = (names: string[]) =>
    new Set(rows === 'all' || only?.length ? names : strideSample(names, commit, MATRIX_STRIDE));
  const faultsRun = sampled(written);
  const variantsRun = sampled(VARIANTS.map((v) => v.name));
  // The implied faults whose plain row runs (all of them under --only): the others read theirs off the
  // strict row, and the ones that run check that reading.
  const implied = FAULTS.filter((f) => f.level === 'implied' && faultsRun.has(f.name)).map((f) => f.name);
  const plainRun = new Set(only?.length ? implied : placeSample(implied, commit, PLAIN_SAMPLE));
  const jobs: Job[] = [];
  if (places !== 'all') {
    jobs.push({ kind: 'reference', name: 'reference', strict: false, expected: [] });
    jobs.push({ kind: 'reference', name: 'reference', strict: true, expected: [] });
  }
  for (const f of FAULTS) {
    if (isPlaceFault(f.name) ? !chosen.has(f.name) : places === 'all' || !faultsRun.has(f.name)) continue;
    // A notable-level fault (e.g. a target that ignores its own catalog for a model the contract does
    // not document) can only ever be advisory: it must show as advisory and never fail, even --strict.
    if (f.level === 'notable') {
      jobs.push({ kind: 'fault', name: f.name, strict: true, expected: f.breaks, expectAdvisoryOnly: true });
      continue;
    }
    jobs.push({ kind: 'fault', name: f.name, strict: f.level === 'implied', expected: f.breaks });
    if (f.level === 'implied')
      jobs.push({
        kind: 'fault',
        name: f.name,
        strict: false,
        expected: f.breaks,
        expectAdvisoryOnly: true,
        ...(plainRun.has(f.name) ? {} : { derived: true }),
      });
  }
  if (places !== 'all')
    for (const v of VARIANTS)
      if (variantsRun.has(v.name))
        jobs.push({ kind: 'variant', name: v.name, strict: !!v.strict, expected: [] });
  return only?.length ? jobs.filter((j) => only.includes(j.name)) : jobs;
}

/**
 * A fault run needs only the tests that cite the ids the fault breaks (titles start with their ids);
 * the reference runs the whole suite, since a false alarm can come from anywhere (a variant: the tests
 * that reach its branches, variant-plan.ts).
 */
export function faultFilter(ids: string[]): string {
  return `\\b(${ids.map((id) => id.replace(/[-]/g, '\\-')).join('|')})\\b`;
}

/**
 * Which suite files hold the tests citing each requirement id, from a dry run of the whole suite (no
 * request is sent) against the plain reference as the rows see it (the same targets file), with a
 * filter that selects every test: its selection check collects every file's titles once into the cache
 * that every row's own check then reads (keyed by what shapes titles, the same for the rows), instead of
 * each row collecting its files anew. A fault run then collects only those files (`--suite`).
 */
export async function filesById(): Promise<Map<string, Set<string>>> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-plan-'));
  const ref = await startReference({ port: 0 });
  const env = writeRefTargets(ref, join(dir, 'targets.yaml'));
  const run = await runCli(
    [
      ...['--targets', join(dir, 'targets.yaml'), '--target', 'ref'],
      ...['--dry-run', '--filter', '.', '--quiet', '--report-dir', join(dir, 'report')],
      // No billable test planned, so none priced (a run of them on an embedded reference, about three
      // quarters of a dry run's CPU): the map needs each test's ids and file, which every test has.
      ...['--budget-points', '0'],
    ],
    env,
  );
  const map = new Map<string, Set<string>>();
  try {
    const s = JSON.parse(readFileSync(join(dir, 'report', 'summary.json'), 'utf8')) as Summary;
    for (const t of s.tests) for (const id of t.ids) map.set(id, (map.get(id) ?? new Set()).add(t.file));
  } catch {
    throw new Error(
      `the dry run that maps ids to suite files failed (exit ${run.code}): ${run.stderr.slice(0, 300)}`,
    );
  } finally {
    await ref.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return map;
}

/** How one row runs: the files of fault rows, the seed and reach of the plain reference, a variant's plan. */
interface RowSetup {
  timeoutMs: number;
  full: boolean;
  files: Map<string, Set<string>> | undefined;
  runner: RowRunner | undefined;
  /** The plain reference row: the seed its run uses and where the variants' branches are reached. */
  reach?: { recorder: ReachRecorder; seed: number; done: (plan: VariantPlan | undefined) => void };
  /** A variant row: the plan made from the plain reference's run (none: the whole suite, any seed). */
  plan?: VariantPlan | undefined;
}

/** The longest --filter a variant row passes (one argument of a spawned row stays below Linux's 128 KiB). */
const MAX_FILTER_CHARS = 100_000;

/** Runs per property test in a variant row (the run's default is 25). */
const VARIANT_PROPERTY_RUNS = 5;

async function runOne(job: Job, setup: RowSetup): Promise<MatrixRow> {
  const { timeoutMs, full, files, runner, reach, plan } = setup;
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'gc-mutant-'));
  const ref = await startReference({
    port: 0,
    ...(job.kind === 'fault' ? { fault: job.name } : {}),
    ...(job.kind === 'variant' ? { variant: job.name } : {}),
    ...(reach ? { reach: reach.recorder } : {}),
  });
  // A fault that makes requests hang asks for a short request timeout, so that its run stays bounded.
  const requestMs = job.kind === 'fault' ? FAULTS.find((f) => f.name === job.name)?.requestMs : undefined;
  // A variant about a duration beside the test timeout asks for a short one (its row stays short).
  const testMs = job.kind === 'variant' ? VARIANTS.find((v) => v.name === job.name)?.testMs : undefined;
  const env = writeRefTargets(ref, join(dir, 'targets.yaml'), {
    ...(requestMs !== undefined ? { requestMs } : {}),
    ...(testMs !== undefined ? { testMs } : {}),
  });
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
    // A few tests in a few files: one worker thread loads the suite's modules once for all of them.
    args.push('--filter', faultFilter(job.expected), '--workers', '1');
    const suites = new Set(job.expected.flatMap((id) => [...(files?.get(id) ?? [])]));
    if (suites.size > 0) args.push('--suite', [...suites].join(','));
  }
  if (reach) args.push('--seed', String(reach.seed));
  // Only a variant that describes itself needs its description (compared with the plain one).
  const scope =
    job.kind === 'variant' && plan
      ? variantFiles(plan, job.name, plan.described.has(job.name) ? await described(ref.url) : undefined)
      : undefined;
  // A variant reached by some tests only replays the plain reference's seed on those tests (their files
  // collected alone; a selection too long for one argument keeps their files' other tests).
  if (plan && scope && 'files' in scope) {
    args.push('--seed', String(plan.seed), '--suite', [...scope.files].join(','));
    const filter = titlesFilter(scope.tests);
    if (filter.length <= MAX_FILTER_CHARS) args.push('--filter', filter);
  }
  // Every variant row, like a fault row, runs in one worker thread: it loads the suite's modules and
  // compiles its validators once, not once per thread. The rows fill the cores between them, so a row's
  // second thread bought no wall time and cost about a third of its CPU (4 whole-suite variant rows, 2 at
  // once, alternating: 12.4-16.3 CLI CPU-s a row with the run's 2 threads, 8.8-11.8 with 1). The same
  // tests run either way; the reference rows keep the run's own threads (the workers' shared locks).
  // A variant row runs each property VARIANT_PROPERTY_RUNS times, not the run's 25: it proves that a
  // reading the contract allows fails nothing, which every fixed test and each property's first cases
  // show; the fault rows keep 25 (a kill needs the case that breaks). The whole-suite variant rows were
  // most of the matrix's time (2,171-2,519 of 3,700-4,150 slot-s), and the matrix bounds .ci/run. 10 runs
  // became 5 when the matrix reached 495 rows and .ci/run 905 s (1,566 CPU-s): four whole-suite variant
  // rows took 7.6-8.6 CLI CPU-s at 10 and 7.0-8.3 at 5; each property's examples (its bounds and the
  // values just outside them, the distinguishing cases) are sent whatever the number of runs.
  if (job.kind === 'variant') args.push('--workers', '1', '--property-runs', String(VARIANT_PROPERTY_RUNS));
  const row: MatrixRow = {
    kind: job.kind,
    name: job.name,
    strict: job.strict,
    expected: job.expected,
    failed: [],
    advisory: [],
    collateral: [],
    status: 'ERROR',
    ok: false,
    ms: 0,
  };
  try {
    const run: RowRun = runner ? await runner.run(args, env, timeoutMs) : await runCli(args, env, timeoutMs);
    if (run.cpuMs !== undefined) row.cpuMs = run.cpuMs;
    const code = run.code;
    const output = run.stdout + run.stderr;
    let summary: Summary | undefined;
    try {
      summary = JSON.parse(readFileSync(join(dir, 'report', 'summary.json'), 'utf8')) as Summary;
    } catch {
      row.note = `no summary (exit ${code}): ${output.trim().split('\n').slice(-3).join(' | ')}`;
    }
    if (summary) {
      row.failed = idsWith(summary, 'failed');
      row.advisory = idsWith(summary, 'advisory');
      row.counts = summary.counts;
      judge(row, job, summary);
      if (job.kind === 'fault') {
        const shown = faultGroups(summary, job);
        row.groups = shown.length;
        row.groupHeads = shown.map(groupHead);
      }
      if (job.kind === 'fault' && job.strict && isImplied(job.name))
        row.plain = plainReading(row, summary, job);
    }
    if (job.kind === 'variant')
      row.note = !scope
        ? 'whole suite'
        : 'files' in scope
          ? `${scope.tests.size} test(s) in ${scope.files.size} suite file(s) reach it, seed ${plan!.seed}`
          : `whole suite: ${scope.whole}`;
    // Only a complete conformant run is a plan: the variants' reach in a run that failed is not known.
    if (reach && summary && row.ok) reach.done(variantPlan(reach.recorder, join(dir, 'report'), reach.seed));
  } finally {
    await ref.close();
    rmSync(dir, { recursive: true, force: true });
    row.ms = Date.now() - started;
  }
  return row;
}

/** A variant reference's description (undefined when it cannot be read: the row then runs whole). */
async function described(url: string): Promise<Json | undefined> {
  try {
    const res = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(30_000) });
    return res.ok ? ((await res.json()) as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** The ids the run's per-requirement rollup lists as failed (or advisory) in at least one test. */
const idsWith = (s: Summary, list: 'failed' | 'advisory'): string[] =>
  Object.entries(s.requirements)
    .filter(([, r]) => r[list].length > 0)
    .map(([id]) => id)
    .sort();

const isImplied = (name: string): boolean => FAULTS.some((f) => f.name === name && f.level === 'implied');

/**
 * An implied fault's row without --strict, read off its --strict run: --strict changes only the severity
 * of a violation whose level is implied (src/catalogue.ts violation; no suite file reads it), so without
 * it a failed test's violations of level `failure` still fail and every other violation is advisory. Its
 * groups are the strict row's (the same findings, severity aside).
 */
export function plainReading(strict: MatrixRow, s: Summary, job: Job): MatrixRow {
  const failed = new Set<string>();
  const advisory = new Set<string>();
  let failedTests = 0;
  for (const t of s.tests) {
    let fails = false;
    for (const v of t.violations) {
      if (t.outcome === 'failed' && v.severity === 'failure' && v.level === 'failure') {
        failed.add(v.id);
        fails = true;
      } else if (v.severity === 'advisory' || v.level !== 'failure') advisory.add(v.id);
    }
    if (fails) failedTests++;
  }
  const row: MatrixRow = {
    ...strict,
    strict: false,
    failed: [...failed].sort(),
    advisory: [...advisory].sort(),
    collateral: [],
    status: 'ERROR',
    ok: false,
    ms: 0,
  };
  delete row.plain;
  delete row.cpuMs;
  delete row.note;
  judge(
    row,
    { ...job, strict: false, expectAdvisoryOnly: true },
    { ...s, counts: { ...s.counts, failed: failedTests } },
  );
  return row;
}

/** Where a plain row that ran and its reading off the strict row differ (undefined: they agree). */
export function readingDiffers(ran: MatrixRow, read: MatrixRow): string | undefined {
  const shown = (r: MatrixRow) =>
    `${r.status}; failed: ${r.failed.join(' ') || '-'}; advisory: ${r.advisory.join(' ') || '-'}`;
  return shown(ran) === shown(read)
    ? undefined
    : `ran: ${shown(ran)}; read off its --strict row: ${shown(read)}`;
}

/** The groups a fault row shows for its fault: failure groups, or advisory ones where it must stay advisory. */
const faultGroups = (s: Summary, job: Job): FindingGroup[] =>
  (s.groups ?? []).filter((g) => g.severity === (job.expectAdvisoryOnly ? 'advisory' : 'failure'));

/** A group's head as the console shows it: its ids, its cause, and how many endpoints it spans. */
const groupHead = (g: FindingGroup): string =>
  `[${g.ids.join(' ')}] ${g.endpoint ? `${g.endpoint}: ` : ''}${g.cause}${g.endpoints ? ` (on ${g.endpoints.length} endpoints)` : ''}`;

/**
 * How many fault rows show how many groups (issue 39: one seeded fault, one group), then each row beyond
 * one group with its reason (tools/mutation/group-reasons.ts), and the rows beyond one that have none:
 * `groups per fault row (324 rows): 1 group: 306 rows · 2 groups: 17 rows · 3 groups: 1 row`.
 */
export function groupDistribution(
  rows: readonly MatrixRow[],
  reasons: Readonly<Record<string, string>> = GROUP_REASONS,
): string {
  const counted = rows.filter((r) => r.kind === 'fault' && r.ok && r.groups !== undefined);
  const by = new Map<number, number>();
  for (const r of counted) by.set(r.groups!, (by.get(r.groups!) ?? 0) + 1);
  const parts = [...by.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, rowsWith]) => `${n} group${n === 1 ? '' : 's'}: ${rowsWith} row${rowsWith === 1 ? '' : 's'}`);
  const beyond = counted.filter((r) => r.groups! > 1).sort((a, b) => b.groups! - a.groups!);
  const name = (r: MatrixRow) => `${r.name}${r.strict ? ' (strict)' : ''}`;
  const without = beyond.filter((r) => !reasons[r.name]);
  const lines = [
    `groups per fault row (${counted.length} row${counted.length === 1 ? '' : 's'}): ${parts.join(' · ')}`,
  ];
  if (beyond.length > 0)
    lines.push(
      `  ${beyond.length} row${beyond.length === 1 ? '' : 's'} beyond 1 group, ${beyond.length - without.length} with the reason (tools/mutation/group-reasons.ts)${without.length ? `; without one: ${without.map((r) => `${name(r)} ${r.groups}`).join(', ')}` : ''}`,
      ...beyond.filter((r) => reasons[r.name]).map((r) => `    ${name(r)} ${r.groups}: ${reasons[r.name]}`),
    );
  return lines.join('\n');
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
  // Specificity: a fault is caught by its expected ids and by nothing else (its tests run filtered to
  // those ids, so collateral is another id failing inside the same tests).
  row.collateral = row.failed.filter((id) => !job.expected.includes(id));
  row.ok = hit.length > 0 && row.collateral.length === 0;
  row.status = hit.length === 0 ? 'SURVIVED' : row.ok ? 'killed' : 'COLLATERAL';
  if (hit.length === 0 && row.failed.length > 0)
    row.note = `failed only other ids (${row.failed.join(' ')}), not ${job.expected.join(' ')}`;
  else if (row.collateral.length > 0)
    row.note = `also failed ${row.collateral.join(' ')}, outside ${job.expected.join(' ')}`;
}

/**
 * Where a variant row stands in the queue once the plain reference's plan is known: the longest rows
 * first, so that short ones end the matrix. 0: it runs the whole suite (in CI these rows ended last, the
 * final one 18 s after the others, and guard-429-refusals' waits for Retry-After take minutes); 1: it
 * describes itself (most such rows run the whole suite too); 2: it runs the files that reach it. A stable
 * sort keeps each rank in its order.
 */
export function variantRank(
  name: string,
  plan: Pick<VariantPlan, 'whole' | 'described'> | undefined,
): number {
  return plan?.whole.has(name) ? 0 : plan?.described.has(name) ? 1 : 2;
}

export async function runMatrix(
  opts: {
    only?: string[];
    /** The generated place faults: a sample chosen by the commit (default), or all of them alone. */
    places?: 'sample' | 'all';
    /** The hand-written faults and the variants: all (default), or npm test's sample (plan). */
    rows?: 'sample' | 'all';
    /** Rows at once (default 2 per core, at most 8). */
    parallel?: number;
    /** Of those, how many may run the whole suite at once (default: the cores). */
    wholeSuiteSlots?: number;
    timeoutMs?: number;
    /** Every row on the whole suite: faults unfiltered, variants without the plan of their reach. */
    full?: boolean;
    /** The seed of the plain reference's run and the variant rows that replay it (default: random). */
    seed?: number;
    /** One CLI process per row (slower: start-up is paid by every row). */
    spawn?: boolean;
    /** Each row as it ends, with how many rows have ended out of all. */
    log?: (s: string, done: number, total: number) => void;
  } = {},
): Promise<MatrixRow[]> {
  const jobs = plan(opts.only, opts.places, undefined, opts.rows);
  const cores = cpus().length;
  // Rows running the whole suite keep the cores busy; fault rows mostly wait (start-up, polling, race
  // windows). So a few whole-suite rows run at a time while the other slots run fault rows beside them.
  // Not more: every runnable thread beyond the cores costs CPU of its own (switches, caches, JIT). In
  // `.ci/run` on 2 cores, 4 rows (2 whole-suite) against 6 (3): 19.1 CPU-min against 26.6, 12 min 22 s
  // against 14 min 5 s, in the same hour; 30 fault rows alone: 33.6 CPU-s at 2 rows, 38.2 at 6, the
  // same wall time.
  // Two more slots than that for fault rows (a fault row waits far more than it computes: 0.7-2 CLI CPU-s
  // over 1-9 s): on 2 cores 6 rows, 2 of them whole-suite. With 5 the .ci/run of 7b13e3d kept the cores
  // busy 1.67 of 2 on average (1,547 CPU-s in 923 s), the matrix 852 s of it. Since npm test runs a
  // sample of the matrix (MATRIX_STRIDE), the machine is busy without those two: .ci/run at e198efe kept
  // 1.85 of 2 cores busy at a load of 10-12 (1,828 CPU-s in 987 s), so 2 rows per core.
  const parallel = opts.parallel ?? Math.max(2, Math.min(8, 2 * cores));
  const wholeSlots = Math.max(1, Math.min(parallel - 1, opts.wholeSuiteSlots ?? cores));
  const rows: MatrixRow[] = new Array(jobs.length);
  const index = jobs.map((_, i) => i);
  const isFault = (j: Job) => j.kind === 'fault' && !opts.full;
  // A derived row is not run: its strict row's run fills it (plainReading).
  const plainOf = new Map<string, number>();
  index.forEach((i) => {
    const j = jobs[i]!;
    if (j.kind === 'fault' && !j.strict && isImplied(j.name)) plainOf.set(j.name, i);
  });
  const runs = index.filter((i) => !jobs[i]!.derived);
  // The fault rows wait for the map of ids to files (a dry run of the whole suite); the other rows start
  // meanwhile, the plain reference's first (the variants wait for its plan).
  let files: Map<string, Set<string>> | undefined;
  const faults: number[] = [];
  let filesSettled = !runs.some((i) => isFault(jobs[i]!));
  let filesFailed: { error: unknown } | undefined;
  const filesKnown = filesSettled
    ? Promise.resolve()
    : filesById().then(
        (map) => {
          files = map;
          // Faults tested by the model-based and race suites have the longest rows: they start first.
          const slow = (j: Job) =>
            j.expected.some((id) => [...(map.get(id) ?? [])].some((f) => f.includes('/stateful/')));
          faults.push(
            ...runs.filter((i) => isFault(jobs[i]!) && slow(jobs[i]!)),
            ...runs.filter((i) => isFault(jobs[i]!) && !slow(jobs[i]!)),
          );
          filesSettled = true;
        },
        (error: unknown) => {
          filesFailed = { error };
          filesSettled = true;
        },
      );
  const refs = runs.filter((i) => !isFault(jobs[i]!) && jobs[i]!.kind !== 'variant');
  const variants = runs.filter((i) => !isFault(jobs[i]!) && jobs[i]!.kind === 'variant');
  // The variant rows run the tests that reach each variant (variantPlan), learnt from the plain
  // reference's run: they wait for it (the other rows meanwhile). Without that row, or with --full,
  // every variant runs the whole suite.
  const planner = opts.full ? undefined : refs.find((i) => !jobs[i]!.strict);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  // Settled once (a later call changes nothing): by the planner row with its plan, or without one when
  // that row failed, threw, or there is none.
  let planned: { plan: VariantPlan | undefined } | undefined;
  let wake = () => {};
  const whenPlanned = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const settle = (plan: VariantPlan | undefined) => {
    if (planned) return;
    planned = { plan };
    variants.sort((a, b) => variantRank(jobs[a]!.name, plan) - variantRank(jobs[b]!.name, plan));
    wake();
  };
  if (planner === undefined) settle(undefined);
  const reach = { recorder: new ReachRecorder(), seed, done: settle };
  const take = (slot: number): number | undefined => {
    const ready = planned ? variants : [];
    const order = slot < wholeSlots ? [refs, ready, faults] : [faults, refs, ready];
    for (const q of order) if (q.length) return q.shift();
    return undefined;
  };
  let done = 0;
  const workers = Array.from({ length: Math.min(parallel, jobs.length) }, async (_, slot) => {
    const runner = opts.spawn ? undefined : new RowRunner();
    try {
      for (;;) {
        const i = filesFailed ? undefined : take(slot);
        if (i === undefined) {
          if (!filesSettled) await filesKnown;
          else if (variants.length === 0 || filesFailed) return;
          else await whenPlanned;
          continue;
        }
        const job = jobs[i]!;
        try {
          rows[i] = await runOne(job, {
            timeoutMs: opts.timeoutMs ?? ROW_TIMEOUT_MS,
            full: opts.full ?? false,
            files,
            runner,
            ...(i === planner ? { reach } : {}),
            ...(job.kind === 'variant' ? { plan: planned?.plan } : {}),
          });
        } finally {
          // The variant rows never wait for a plain reference row that ended without a plan.
          if (i === planner) settle(undefined);
        }
        opts.log?.(formatRow(rows[i]!), ++done, jobs.length);
        // An implied fault's strict row: its plain row read off it (derived), or compared with it (ran).
        const p = job.kind === 'fault' && job.strict ? plainOf.get(job.name) : undefined;
        if (p !== undefined && jobs[p]!.derived) {
          rows[p] = rows[i]!.plain ?? {
            ...rows[i]!,
            strict: false,
            status: 'ERROR',
            ok: false,
            note: 'its --strict row, which it is read off, has no summary',
          };
          rows[p]!.note =
            rows[p]!.note ?? 'read off its --strict row (not run: --strict changes only severities)';
          opts.log?.(formatRow(rows[p]!), ++done, jobs.length);
        }
      }
    } finally {
      runner?.close();
    }
  });
  await Promise.all(workers);
  if (filesFailed) throw filesFailed.error;
  // The plain rows that ran check the reading the others are made by.
  for (const [name, p] of plainOf) {
    const strict = rows.find((r) => r?.kind === 'fault' && r.strict && r.name === name);
    const ran = rows[p];
    if (jobs[p]!.derived || !ran || !strict?.plain) continue;
    const differs = readingDiffers(ran, strict.plain);
    if (differs) {
      ran.ok = false;
      ran.note = `its reading off the --strict row differs (${differs})`;
    }
  }
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
  const cpu = r.cpuMs !== undefined ? `, CLI ${(r.cpuMs / 1000).toFixed(1)} CPU-s` : '';
  const groups = r.groups !== undefined ? ` (${r.groups} group${r.groups === 1 ? '' : 's'})` : '';
  return `${r.ok ? 'ok  ' : 'FAIL'} ${name} ${r.status.padEnd(13)}${ids}${groups}${r.note ? ` (${r.note})` : ''} [${(r.ms / 1000).toFixed(1)}s${cpu}]`;
}
