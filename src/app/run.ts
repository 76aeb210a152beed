/**
 * One conformance run: its report directory, keys and redaction, stop requests (signal, deadline), the
 * preflight, the budget, the suites, and the finish that writes the report.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { keysFromEnv } from '../config/env.ts';
import type { Exchange } from '../http/client.ts';
import { Redactor } from '../http/redact.ts';
import { targetClient } from '../http/target-client.ts';
import { loadExpectations } from '../report/expectations.ts';
import { ExchangeLog, reportFile, SpendLog } from '../report/layout.ts';
import { consoleText, redactConsole } from '../report/neutral.ts';
import { Progress } from '../report/progress.ts';
import type { CutKind, RunCut } from '../report/summary.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { coveringPlanLine } from '../rules/covering.ts';
import { mediaTable } from '../rules/media-models.ts';
import { noteBalanceSpent, notePrices } from '../runtime/budget.ts';
import { jobsInFlight, requestStop } from '../runtime/liveness.ts';
import { cleanupBoundMs, concurrencyPlan, type RunConfig } from '../runtime/run-config.ts';
import type { Role } from '../vocabulary.ts';
import { dryRunBudget, planBudget, planBudgetLines, readBalance } from './budget.ts';
import { type FinishInput, finish } from './finish.ts';
import { preflight } from './preflight.ts';
import { pricePlanLines } from './price-plan.ts';
import { loadPrices } from './prices-file.ts';
import { type RunOptions, type RunResult, runConfigOf } from './run-options.ts';
import { checkSelection, suiteFiles } from './selection.ts';
import { suiteHints } from './suite-hints.ts';
import { loadVitest, runSuites } from './suites.ts';

/** The run in progress, so that a signal handler can ask it to stop gracefully. */
let active: { reportDir: string; cut?: RunCut; preflight: AbortController } | undefined;

/** Ask the run in progress to stop: no new test or request; cleanups and the report still happen. */
export function stopActiveRun(reason: string, kind: CutKind = 'signal'): boolean {
  if (!active) return false;
  active.cut ??= { kind, reason };
  requestStop(active.reportDir, reason);
  active.preflight.abort(reason);
  return true;
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/**
 * One conformance run against a resolved target: preflight (reachable, key accepted, description
 * fetched once), the vitest suites, then summary.json, junit.xml and exchanges.ndjson in the report dir.
 * Throws UsageError for what the caller must fix (exit 2).
 */
export async function runConformance(
  opts: RunOptions,
  log: (s: string) => void = console.log,
): Promise<RunResult> {
  const ran = await activeRun(opts, log);
  return 'found' in ran ? planThenFinish(ran) : ran;
}

/** The run as the active one (signals stop it), up to its report written; a priced dry run's before it. */
async function activeRun(opts: RunOptions, log: (s: string) => void): Promise<RunResult | FinishInput> {
  // From the first step to the report written, a signal asks this run to stop (the preflight
  // included) and the report is still written.
  const reportDir = resolve(opts.reportDir ?? join('reports', opts.target.name, stamp()));
  const createdDir = !existsSync(reportDir);
  mkdirSync(reportDir, { recursive: true });
  const keys = keysFromEnv(opts.target.keys);
  const redactor = new Redactor(keys);
  // vitest's node API loads (about a second of module loading) while the preflight runs.
  loadVitest().catch(() => {});
  // What reaches the console (vitest's reporter, worker logs relayed to it) is redacted too.
  const restoreConsole = redactConsole(redactor);
  active = { reportDir, preflight: new AbortController() };
  const deadline =
    opts.deadlineMs !== undefined
      ? {
          at: (opts.startedAt ?? Date.now()) + opts.deadlineMs,
          reason: `run deadline of ${Math.round(opts.deadlineMs / 1000)} s reached`,
        }
      : undefined;
  const timer = deadline
    ? setTimeout(() => stopActiveRun(deadline.reason, 'deadline'), Math.max(0, deadline.at - Date.now()))
    : undefined;
  try {
    const input = await conformanceRun({ ...opts, reportDir, createdDir }, keys, redactor, log, deadline);
    return priced(opts) ? input : await finish(input);
  } finally {
    if (timer) clearTimeout(timer);
    active = undefined;
    restoreConsole();
  }
}

/** A dry run whose billable tests are priced (RunOptions.planBillable). */
const priced = (opts: RunOptions): boolean => !!(opts.dryRun && opts.planBillable);

/**
 * A dry run's billable estimate is part of its plan, so it is computed before the report is written:
 * the planned billable tests run on the embedded reference as a run of their own, after the dry run's
 * suites ended (never a run inside a run), then the dry run's report is written with the plan.
 */
async function planThenFinish(input: FinishInput): Promise<RunResult> {
  const { opts, run } = input;
  const tests = input.found.tests;
  // It takes a while (the planned billable tests run on the embedded reference): said, not silent.
  const billable = tests.filter((t) => t.planned && t.effect === 'billable').length;
  if (!opts.quiet && billable > 0)
    input.log(
      `… pricing the plan: its ${billable} billable tests run on the embedded reference (no request to the target)`,
    );
  const plan = await opts.planBillable!({ tests, profile: run.profile }, run.reportDir);
  const restoreConsole = redactConsole(input.redactor);
  try {
    return await finish({ ...input, plan });
  } finally {
    restoreConsole();
  }
}

async function conformanceRun(
  opts: RunOptions & { reportDir: string; createdDir: boolean },
  keys: Partial<Record<Role, string>>,
  redactor: Redactor,
  out: (s: string) => void,
  deadline: RunConfig['deadline'],
): Promise<FinishInput> {
  const { target } = opts;
  // A heartbeat while the run goes (non-TTY), or a live line (TTY); what the run prints clears it first.
  const progress =
    opts.quiet || opts.dryRun ? undefined : new Progress(process.stdout, () => jobsInFlight(reportDir));
  const log = (s: string) => {
    progress?.clearLive();
    out(consoleText(s));
    progress?.noteOutput();
  };
  progress?.setPhase(`preflight: reading ${target.baseUrl}/openapi.json and the catalog`);
  progress?.start();
  const startedAt = new Date();
  const { reportDir } = opts;
  const exchangeLog = ExchangeLog.of(reportDir);
  exchangeLog.create();
  SpendLog.of(reportDir).create();
  const exchangesFile = exchangeLog.file;
  const preflightExchanges: Exchange[] = [];
  const clientOptions = {
    testName: 'preflight',
    ...(deadline ? { deadlineAt: deadline.at } : {}),
    onExchange: (ex: Exchange) => {
      preflightExchanges.push(ex);
      exchangeLog.append(ex);
    },
  };
  // A stop asked during the preflight ends its request in flight (the run then writes its report);
  // the balance reads around the suites use a client the stop does not end.
  const preflightClient = targetClient(target, redactor, {
    ...clientOptions,
    ...(active ? { signal: active.preflight.signal } : {}),
  });
  const client = targetClient(target, redactor, clientOptions);
  const auth = { authorization: `Bearer ${keys.primary ?? ''}` };
  const expectations = opts.expectationsFile ? loadExpectations(opts.expectationsFile) : undefined;
  const profile = opts.profile ?? 'standard';

  const run = runConfigOf(opts, { reportDir, exchangesFile, deadline });
  const runFile = reportFile(reportDir, 'run');
  // A selection (--filter, --suite) that matches no test is a usage error, found before any request.
  if ((opts.filter !== undefined || opts.files?.length) && !opts.selectionKnown) {
    try {
      await checkSelection(opts, run, runFile);
    } catch (err) {
      // Nothing ran and nothing was sent: a report directory this run made holds nothing worth keeping.
      if (opts.createdDir) rmSync(reportDir, { recursive: true, force: true });
      throw err;
    }
  }

  let openapi: RunConfig['openapi'];
  let descriptionFailure: TestResultRecord | undefined;
  let preflightNote: TestResultRecord | undefined;
  if (!opts.dryRun) {
    try {
      ({ openapi, descriptionFailure, preflightNote } = await preflight(
        target,
        preflightClient,
        auth,
        reportDir,
        preflightExchanges,
      ));
    } catch (err) {
      // Interrupted during the preflight: no verdict on the target, but a report all the same.
      if (!active?.cut) throw err;
    }
  }

  if (!opts.quiet && !opts.dryRun)
    log(concurrencyPlan(target, availableParallelism(), opts.workers).describe);

  if (openapi) run.openapi = openapi;
  // A dry run sends the target nothing, not even these reads.
  let balanceBefore: Decimal | undefined;
  /** held_points (total - available) before the run: what holds the account had already. */
  let heldBefore: Decimal | undefined;
  if (!opts.dryRun && !active?.cut) {
    const balance = await readBalance(client, auth, target);
    balanceBefore = balance.total;
    heldBefore = heldOf(balance);
    const planned = await planBudget(target, balance, client, auth);
    if (planned.budget) run.budget = planned.budget;
    // The balance's measure of the spend starts at 0 with the available points read just now.
    if (planned.budget?.baseline !== undefined) noteBalanceSpent(reportDir, new Decimal(0));
    // Prices known before the run: admission predicts from them before the run's own jobs refine them.
    if (planned.budget && opts.pricesFile) notePrices(reportDir, loadPrices(opts.pricesFile));
    if (!opts.quiet) for (const line of planned.lines) log(line);
    if (!opts.quiet && !target.embedded && target.allow.includes('billable'))
      for (const line of opts.pricesFile
        ? pricePlanLines(
            mediaTable(),
            profile,
            loadPrices(opts.pricesFile),
            opts.pricesFile,
            planned.budget?.points ?? null,
          )
        : [NO_PRICES])
        log(line);
    if (!opts.quiet && (target.allow.includes('write') || target.allow.includes('billable')))
      log(
        `cleanup: an input a job holds is waited for only while the job progresses, at most ${Math.round(cleanupBoundMs(target) / 1000)} s per test; what stays held is reported left behind`,
      );
  } else if (opts.dryRun) {
    if (!opts.quiet) for (const line of planBudgetLines(target)) log(line);
    const budget = dryRunBudget(target);
    if (budget) run.budget = budget;
  }
  writeFileSync(runFile, JSON.stringify(run, null, 2));

  let tests: TestResultRecord[] = [];
  let harnessErrors: string[] = [];
  // No usable description is the target's failure (OAS-001), not the end of the run: every response is
  // then validated against the documented contract (schemas/), so every other rule is still judged.
  if (descriptionFailure)
    log(
      `✗ ${descriptionFailure.violations[0]!.message}; responses are validated against the documented schemas`,
    );
  if (!active?.cut) {
    // What media acceptance will buy, said before it starts where it matters (thorough buys every preset).
    const collected = suiteFiles(opts.files ?? []).some((file) => suiteHints(file).mediaAcceptance);
    if (
      !opts.quiet &&
      collected &&
      target.allow.includes('billable') &&
      (profile === 'thorough' || opts.dryRun)
    )
      log(coveringPlanLine(mediaTable(), profile));
    progress?.setPhase('starting the test workers');
    ({ tests, harnessErrors } = await runSuites(opts, target, redactor, runFile, progress));
  }
  if (preflightNote) tests.unshift(preflightNote);
  if (descriptionFailure) tests.unshift(descriptionFailure);
  // Nothing is sent after the deadline (the balance read after the suites neither).
  const after =
    balanceBefore !== undefined && active?.cut?.kind !== 'deadline'
      ? await readBalance(client, auth, target)
      : undefined;
  const balanceAfter = after?.total;
  const heldAfter = after ? heldOf(after) : undefined;
  const cut = active?.cut;
  progress?.stop();
  return {
    opts,
    run,
    keys,
    redactor,
    expectations,
    found: {
      startedAt,
      tests,
      harnessErrors,
      cut,
      balanceDelta:
        balanceBefore !== undefined && balanceAfter !== undefined
          ? balanceBefore.minus(balanceAfter).toString()
          : undefined,
      ...(heldBefore && heldAfter ? { heldDelta: heldAfter.minus(heldBefore) } : {}),
    },
    log,
  };
}

/** held_points as the balance implies them (total - available), where both were read. */
const heldOf = (b: { total?: Decimal; available?: Decimal }): Decimal | undefined =>
  b.total && b.available ? b.total.minus(b.available) : undefined;

/** A billable run against a real target without --prices: the prices are learned from its first jobs. */
const NO_PRICES =
  "prices: the target's media prices are not known before its first job of each model (the report keeps them as learned: --prices REPORT_DIR prices the next plan, and --dry-run --prices REPORT_DIR what it will cost)";
