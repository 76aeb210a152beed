/**
 * The end of a run: its test records and typed facts (cut, budget, expectations, drift) made into the
 * summary, written by the one report writer (src/report/write.ts), then printed.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { UsageError } from '../errors.ts';
import type { Redactor } from '../http/redact.ts';
import { diffDescriptions } from '../openapi/diff.ts';
import { documentedBecause, responseSource } from '../openapi/fallback.ts';
import { SUITE_VERSION } from '../paths.ts';
import { compareRuns, loadCompared, previousReport } from '../report/compare.ts';
import { applyExpectations, expectationFailures, type loadExpectations } from '../report/expectations.ts';
import { clearControlFiles, ExchangeLog, REPORT_FILES, reportFile } from '../report/layout.ts';
import { appendStepSummary } from '../report/markdown.ts';
import { loadSigningKey } from '../report/signature.ts';
import {
  aggregate,
  type BalanceDeltaWhy,
  type CutKind,
  exitCodeOf,
  type RunCut,
  type Summary,
} from '../report/summary.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { writeReport } from '../report/write.ts';
import { balanceOut, type RunBudget, spendOf, spentPoints } from '../runtime/budget.ts';
import { deadTarget } from '../runtime/liveness.ts';
import type { RunConfig } from '../runtime/run-config.ts';
import { HarEntries } from '../traffic/har-record.ts';
import type { Role } from '../vocabulary.ts';
import { printPlan, printVerdict } from './print.ts';
import type { RunOptions, RunResult } from './run-options.ts';

/** What a run found: its test records, the errors outside any test, and how it ended. */
export interface RunFindings {
  startedAt: Date;
  tests: TestResultRecord[];
  harnessErrors: string[];
  /** What cut the run short in this process (a signal, the deadline), if anything. */
  cut?: RunCut | undefined;
  /** The primary account's available points before the run minus after (decimal string), if both were read. */
  balanceDelta?: string | undefined;
  /** held_points (total - available) of the primary account after the run minus before, where both were read. */
  heldDelta?: Decimal;
}

/** What finish needs: the run as asked and as its workers saw it, its keys, and what it found. */
export interface FinishInput {
  opts: RunOptions;
  /** The run's config (target, report directory, exchange log, budget, description, dry run). */
  run: RunConfig;
  keys: Partial<Record<Role, string>>;
  redactor: Redactor;
  /** The target's known failures (--expectations), loaded once at the start. */
  expectations?: ReturnType<typeof loadExpectations> | undefined;
  found: RunFindings;
  /** A dry run's billable estimate (RunOptions.planBillable). */
  plan?: NonNullable<Summary['plan']>;
  log: (s: string) => void;
}

export async function finish(c: FinishInput): Promise<RunResult> {
  const { opts, keys, run, redactor, log } = c;
  const { target, reportDir, exchangesFile, openapi } = run;
  const { startedAt, harnessErrors, tests } = c.found;
  const expectationStatus = c.expectations ? applyExpectations(tests, c.expectations) : undefined;
  if (expectationStatus && opts.expectationsFile)
    // One shard cannot tell a stale entry (its failing test may be in another shard): merge judges those.
    tests.push(
      ...expectationFailures(
        expectationStatus.filter((e) => !(opts.shard && e.status === 'stale')),
        opts.expectationsFile,
      ),
    );

  // --har: the run's traffic as a capture, assembled before the control files (its entries) are cleared
  // and before the verdict: a capture asked for and not written is the harness's error, said with the
  // report (never a report lost to it).
  let har: number | undefined;
  if (opts.harFile !== undefined)
    try {
      har = await new HarEntries(reportFile(reportDir, 'har')).assemble(opts.harFile, SUITE_VERSION);
    } catch (err) {
      harnessErrors.push(
        `--har: the capture could not be written to ${opts.harFile} (${(err as Error).message}); the rest of the report is complete`,
      );
    }

  const summary: Summary = {
    suite: { name: 'gateway-conformance', version: SUITE_VERSION, node: process.version },
    target: {
      name: target.name,
      baseUrl: target.baseUrl,
      embedded: target.embedded,
      allow: target.allow,
      roles: Object.keys(keys) as Role[],
      models: target.models as Record<string, string>,
    },
    strict: !!opts.strict,
    seed: run.seed,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    openapi: {
      ...(openapi
        ? {
            sha256: openapi.sha256,
            valid: openapi.valid,
            ...(openapi.valid && openapi.version ? { version: openapi.version } : {}),
            errors: openapi.errors,
            ...(openapi.tooLarge ? { tooLarge: openapi.tooLarge } : {}),
          }
        : { valid: false, errors: ['not fetched'] }),
      validatedAgainst: responseSource(openapi),
      ...(responseSource(openapi) === 'documented' ? { documentedBecause: documentedBecause(openapi) } : {}),
    },
    ...aggregate(tests, harnessErrors, {
      cut: runCut(c.found.cut, reportDir, tests, run.budget),
      // A dry run judges nothing: never PASSED.
      partial: !!(opts.filter || opts.files?.length || opts.shard || opts.dryRun),
    }),
    exchanges: { file: REPORT_FILES.exchanges.name, count: 0 },
    tests,
    profile: run.profile,
    points: {
      spent: spentPoints(reportDir).toString(),
      ...spendDetails(reportDir),
      budget: run.budget?.points ?? null,
      ...(run.budget ? { budgetSource: run.budget.source } : {}),
      ...(ranOut(reportDir, run.budget) ? { balanceRanOut: ranOut(reportDir, run.budget) } : {}),
      source:
        'charged_points and media pending_points reported in the replies of billable requests (a JSON number read as its value; unreadable ones the balance did not measure at the most they could have cost), or the fall of the primary available_points where larger',
      ...(c.found.balanceDelta !== undefined ? { balanceDelta: c.found.balanceDelta } : {}),
      ...balanceWhy(
        spentPoints(reportDir),
        c.found.balanceDelta,
        c.found.heldDelta,
        target.sharedAccount,
        spendOf(reportDir).elsewhere,
      ),
    },
    skippedByClass: skippedByClass(tests),
  };
  if (summary.cut && STOPPED.includes(summary.cut.kind)) summary.interrupted = summary.cut.reason;
  if (opts.shard) summary.shard = opts.shard;
  if (opts.filter) summary.filter = opts.filter;
  if (opts.files?.length) summary.suites = opts.files;
  if (run.dryRun) summary.dryRun = true;
  if (expectationStatus) summary.expectations = expectationStatus;
  if (opts.driftAgainst && openapi) summary.drift = drift(opts.driftAgainst, openapi.file, reportDir);
  summary.exchanges.count = new ExchangeLog(exchangesFile).count();
  if (opts.compareWith) {
    const found =
      opts.compareWith === 'previous'
        ? previousReport(reportDir, {
            target: target.name,
            filter: opts.filter,
            suites: opts.files,
            shard: opts.shard,
          })
        : { dir: opts.compareWith, why: undefined };
    if ('dir' in found)
      summary.comparison = compareRuns(summary, reportDir, loadCompared(found.dir), found.dir, found.why);
    else summary.comparisonMissing = found.missing;
  }
  // A dry run's billable estimate is part of its plan (computed by a run of its own before this one ends).
  if (c.plan) summary.plan = c.plan;
  clearControlFiles(reportDir);
  writeReport(
    reportDir,
    summary,
    harnessErrors,
    redactor,
    opts.signKeyFile ? loadSigningKey(opts.signKeyFile) : undefined,
  );
  const stepSummary = appendStepSummary(reportDir);
  if (stepSummary) log(stepSummary);
  const exitCode = exitCodeOf(summary);
  if (!opts.quiet) {
    if (har !== undefined)
      log(`  har: ${opts.harFile} (${har} exchanges; judge it again with check-traffic ${opts.harFile})`);
    if (run.dryRun) printPlan(summary, reportDir, log);
    else printVerdict(summary, harnessErrors, reportDir, log);
  }
  return { summary, reportDir, exitCode };
}

/** Cuts that stop the whole run (no test or request starts any more): the report says interrupted. */
const STOPPED: CutKind[] = ['signal', 'deadline', 'dead_target'];

/**
 * What cut the run short, if anything: a stop (signal, deadline: asked in this process), a dead target
 * (a worker saw too many consecutive transport failures), the balance running out, or the points
 * budget reached with billable tests left unrun. A budget of 0 is a choice (free tests only), not a cut.
 */
/**
 * Why the primary account's balance ran out, if it did: a reply showed it (balanceOut), or the run's
 * budget is the account's available points and the balance reads measured them spent.
 */
function ranOut(reportDir: string, budget: RunBudget | undefined): string | undefined {
  const shown = balanceOut(reportDir);
  if (shown || budget?.kind !== 'balance') return shown;
  const spent = spentPoints(reportDir);
  return spent.gte(budget.points)
    ? `the account's balance ran out: ${spent.toString()} of the ${budget.points} points available before the run spent`
    : undefined;
}

function runCut(
  stop: RunCut | undefined,
  reportDir: string,
  tests: TestResultRecord[],
  budget: RunBudget | undefined,
): RunCut | undefined {
  if (stop) return stop;
  const dead = deadTarget(reportDir);
  if (dead) return { kind: 'dead_target', reason: dead };
  const balance = balanceOut(reportDir);
  if (balance) return { kind: 'balance', reason: balance };
  const unpaid = tests.filter((t) => t.unpaid).length;
  if (unpaid > 0 && budget && budget.points !== '0')
    return {
      kind: budget.kind === 'balance' ? 'balance' : 'budget',
      reason: `${unpaid} billable ${unpaid === 1 ? 'test' : 'tests'} not run: ${budget.kind === 'balance' ? `the account's ${budget.points} available points` : `the points budget of ${budget.points}`} ran out`,
    };
  return undefined;
}

/**
 * What changed in the live description since `against`: a file, or `previous` (the newest other report
 * directory beside this one holding an openapi.json). Written to drift.json as well.
 */
function drift(against: string, currentFile: string, reportDir: string): Summary['drift'] {
  let file = against;
  if (against === 'previous') {
    // Reports of one target sit side by side (reports/<target>/<timestamp>/): the siblings.
    const root = dirname(reportDir);
    const candidates = existsSync(root)
      ? readdirSync(root)
          .map((d) => reportFile(join(root, d), 'openapi'))
          .filter((f) => existsSync(f) && resolve(dirname(f)) !== resolve(reportDir))
          .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
      : [];
    if (!candidates[0]) return { against: 'previous (none found)', changes: [], breaking: 0 };
    file = candidates[0];
  }
  let previous: unknown;
  try {
    previous = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--drift-against: cannot read ${file} as JSON (${(err as Error).message})`);
  }
  const diff = diffDescriptions(previous, JSON.parse(readFileSync(currentFile, 'utf8')));
  const out = { against: file, changes: diff.changes, breaking: diff.breaking };
  writeFileSync(reportFile(reportDir, 'drift'), JSON.stringify(out, null, 2));
  return out;
}

function skippedByClass(tests: TestResultRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of tests)
    if (t.outcome === 'not_run' && t.effect && t.cause?.kind === 'class')
      out[t.effect] = (out[t.effect] ?? 0) + 1;
  return out;
}

/** What the replies reported, what the balance measured, and the media prices learned (summary.json `points`). */
/**
 * Why the points counted as spent and the primary balance's move differ (absent when they agree): holds
 * still pending at the end, points spent with other roles' keys (the isolated account's, an enterprise
 * key's), holds counted in full and released or settled lower, charges no reply reported, a shared account. Computed from the run's own figures, never parsed back from a line.
 */
export function balanceWhy(
  spent: Decimal,
  balanceDelta: string | undefined,
  heldDelta: Decimal | undefined,
  shared: boolean,
  elsewhere: Decimal = new Decimal(0),
): { balanceDeltaWhy?: BalanceDeltaWhy } {
  if (balanceDelta === undefined) return {};
  const moved = new Decimal(balanceDelta);
  if (moved.equals(spent)) return {};
  const held = heldDelta && !heldDelta.isZero() ? heldDelta : undefined;
  const other = elsewhere.isZero() ? undefined : elsewhere;
  const rest = spent
    .minus(moved)
    .minus(held ?? 0)
    .minus(other ?? 0);
  const why: BalanceDeltaWhy = {
    ...(held ? { stillHeld: held.toString() } : {}),
    ...(other ? { elsewhere: other.toString() } : {}),
    ...(rest.isZero() ? {} : { rest: rest.toString() }),
    ...(shared ? { shared: true as const } : {}),
  };
  return { balanceDeltaWhy: why };
}

function spendDetails(
  reportDir: string,
): Pick<NonNullable<Summary['points']>, 'replies' | 'measured' | 'prices'> {
  const s = spendOf(reportDir);
  const prices = s.prices.learned();
  return {
    replies: s.total.toString(),
    ...(s.measured ? { measured: s.measured.toString() } : {}),
    ...(Object.keys(prices).length > 0 ? { prices } : {}),
  };
}
