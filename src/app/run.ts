/**
 * One conformance run: its report directory, keys and redaction, stop requests (signal, deadline), the
 * preflight, the budget, the suites, and the finish that writes the report.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { keysFromEnv } from '../config/env.ts';
import { UsageError } from '../errors.ts';
import type { Exchange, HttpClient, HttpResponse, RequestSpec } from '../http/client.ts';
import { Redactor } from '../http/redact.ts';
import { targetClient } from '../http/target-client.ts';
import { loadExpectations } from '../report/expectations.ts';
import { clearControlFiles, ExchangeLog, makeReportDir, reportFile, SpendLog } from '../report/layout.ts';
import { consoleText, redactConsole } from '../report/neutral.ts';
import { Progress } from '../report/progress.ts';
import type { CutKind, RunCut } from '../report/summary.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { coveringPlanLine } from '../rules/covering.ts';
import { mediaTable } from '../rules/media-models.ts';
import { noteBalanceSpent, notePrices } from '../runtime/budget.ts';
import { jobsInFlight, requestStop } from '../runtime/liveness.ts';
import { AccountLock, LockTimeout } from '../runtime/lock.ts';
import { cleanupBoundMs, concurrencyPlan, pastDeadline, type RunConfig } from '../runtime/run-config.ts';
import { recordHar } from '../traffic/har-record.ts';
import type { Role } from '../vocabulary.ts';
import { dryRunBudget, planBudget, planBudgetLines, readBalance } from './budget.ts';
import { type FinishInput, finish } from './finish.ts';
import { preflight } from './preflight.ts';
import { pricePlanLines } from './price-plan.ts';
import { loadPrices } from './prices-file.ts';
import { type RunOptions, type RunResult, runConfigOf, showsProgress } from './run-options.ts';
import { checkSelection, suiteFiles } from './selection.ts';
import { suiteHints } from './suite-hints.ts';
import { type BalanceChecks, balanceChecks, loadVitest, runSuites } from './suites.ts';

/** The run in progress, so that a signal handler can ask it to stop gracefully. */
let active:
  | { reportDir: string; cut?: RunCut; preflight: AbortController; deadline?: RunConfig['deadline'] }
  | undefined;

/** Ask the run in progress to stop: no new test or request; cleanups and the report still happen. */
export function stopActiveRun(reason: string, kind: CutKind = 'signal'): boolean {
  if (!active) return false;
  active.cut ??= { kind, reason };
  requestStop(active.reportDir, reason);
  active.preflight.abort(reason);
  return true;
}

/**
 * Whether the run's deadline is behind the wall clock; if it is, the run's stop is asked now. Its timer
 * alone may fire after the run's next request went out (a timer counts on the monotonic clock, the
 * deadline on the wall clock, and a loaded machine runs a due timer late), and nothing is sent after
 * the deadline.
 */
function deadlineDue(): boolean {
  const reason = active?.deadline ? pastDeadline({ deadline: active.deadline }) : undefined;
  if (reason === undefined) return false;
  stopActiveRun(reason, 'deadline');
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
  const reportDir = resolve(opts.reportDir ?? join('reports', opts.target.name, stamp()));
  const releaseDir = await ownReportDir(reportDir);
  try {
    const ran = await activeRun(opts, reportDir, log);
    return 'found' in ran ? await planThenFinish(ran) : ran;
  } finally {
    releaseDir();
  }
}

/**
 * One run per report directory at a time on this machine: the workers of a run read its run.json there,
 * so a second run writing the same directory would point them at its own target (and the two reports
 * would mix). The second is refused before it writes anything (exit 2).
 */
export async function ownReportDir(reportDir: string, lockRoot?: string): Promise<() => void> {
  const lock = new AccountLock(`report directory ${reportDir}`, lockRoot);
  try {
    return await lock.acquireExclusive(0);
  } catch (err) {
    if (!(err instanceof LockTimeout)) throw err;
    throw new UsageError(
      `the report directory ${reportDir} is in use by another run on this machine: give each run at the same time its own --report-dir (the default, reports/<target>/<time>, is one per run)`,
    );
  }
}

/** The run as the active one (signals stop it), up to its report written; a priced dry run's before it. */
async function activeRun(
  opts: RunOptions,
  reportDir: string,
  log: (s: string) => void,
): Promise<RunResult | FinishInput> {
  // From the first step to the report written, a signal asks this run to stop (the preflight
  // included) and the report is still written.
  const createdDir = !existsSync(reportDir);
  makeReportDir(reportDir);
  // The directory is this run's (ownReportDir): what a run killed in it left to coordinate is not.
  clearControlFiles(reportDir);
  const keys = keysFromEnv(opts.target.keys);
  const redactor = new Redactor(keys);
  // vitest's node API loads (about a second of module loading) while the preflight runs.
  loadVitest().catch(() => {});
  // What reaches the console (vitest's reporter, worker logs relayed to it) is redacted too.
  const restoreConsole = redactConsole(redactor);
  const deadline =
    opts.deadlineMs !== undefined
      ? {
          at: (opts.startedAt ?? Date.now()) + opts.deadlineMs,
          reason: `run deadline of ${Math.round(opts.deadlineMs / 1000)} s reached`,
        }
      : undefined;
  active = { reportDir, preflight: new AbortController(), ...(deadline ? { deadline } : {}) };
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

/**
 * The run's steps in their order: its console, its logs and clients, the selection checked before any
 * request, the preflight, the budget (and run.json the workers read), the suites, the balance after.
 * Each step is a function of its own; what one finds reaches the next as a typed value.
 */
async function conformanceRun(
  opts: RunOptions & { reportDir: string; createdDir: boolean },
  keys: Partial<Record<Role, string>>,
  redactor: Redactor,
  out: (s: string) => void,
  deadline: RunConfig['deadline'],
): Promise<FinishInput> {
  const { target, reportDir } = opts;
  const { progress, log } = runConsole(opts, out);
  progress?.setPhase(`preflight: reading ${target.baseUrl}/openapi.json and the catalog`);
  progress?.start();
  const startedAt = new Date();
  const clients = runClients(opts, keys, redactor, deadline);
  const expectations = opts.expectationsFile ? loadExpectations(opts.expectationsFile) : undefined;
  const profile = opts.profile ?? 'standard';

  const run = runConfigOf(opts, { reportDir, exchangesFile: clients.exchangesFile, deadline });
  const balance = balanceChecks(target);
  if (balance.on === 'isolated') run.isolatedFiles = balance.files;
  const runFile = reportFile(reportDir, 'run');
  await selectionFirst(opts, run, runFile);
  const { openapi, descriptionFailure, preflightNote } = await preflightOf(opts, clients);
  if (!opts.quiet && !opts.dryRun)
    log(concurrencyPlan(target, availableParallelism(), opts.workers).describe);
  if (openapi) run.openapi = openapi;
  const before = await budgetBefore(opts, run, clients, profile, log);
  writeFileSync(runFile, JSON.stringify(run, null, 2));

  // No usable description is the target's failure (OAS-001), not the end of the run: every response is
  // then validated against the documented contract (schemas/), so every other rule is still judged.
  if (descriptionFailure)
    log(
      `✗ ${descriptionFailure.violations[0]!.message}; responses are validated against the documented schemas`,
    );
  const { tests, harnessErrors } = await suitesOf(opts, redactor, runFile, progress, profile, log, balance);
  if (preflightNote) tests.unshift(preflightNote);
  if (descriptionFailure) tests.unshift(descriptionFailure);
  const moved = await balanceFound(opts, clients, before);
  const cut = active?.cut;
  progress?.stop();
  return {
    opts,
    run,
    keys,
    redactor,
    expectations,
    found: { startedAt, tests, harnessErrors, cut, ...moved },
    log,
  };
}

/**
 * The run's console: a heartbeat while the run goes (non-TTY), or a live line (TTY); what the run
 * prints clears it first.
 */
function runConsole(
  opts: RunOptions & { reportDir: string },
  out: (s: string) => void,
): { progress: Progress | undefined; log: (s: string) => void } {
  const progress = showsProgress(opts)
    ? new Progress(process.stdout, () => jobsInFlight(opts.reportDir))
    : undefined;
  const log = (s: string) => {
    progress?.clearLive();
    out(consoleText(s));
    progress?.noteOutput();
  };
  return { progress, log };
}

/** The run's own clients and the exchange log they append to (the workers have their own). */
interface RunClients {
  /** The preflight's: a stop asked during the preflight ends its request in flight. */
  preflightClient: HttpClient;
  /** The balance reads around the suites: a stop does not end them. */
  client: HttpClient;
  /** The preflight's exchanges, which the preflight judges. */
  preflightExchanges: Exchange[];
  exchangesFile: string;
  auth: { authorization: string };
}

/** A fresh exchange log and spend log in the report directory, and the clients that write the first. */
function runClients(
  opts: RunOptions & { reportDir: string },
  keys: Partial<Record<Role, string>>,
  redactor: Redactor,
  deadline: RunConfig['deadline'],
): RunClients {
  const exchangeLog = ExchangeLog.of(opts.reportDir);
  exchangeLog.create();
  SpendLog.of(opts.reportDir).create();
  const preflightExchanges: Exchange[] = [];
  const clientOptions = {
    testName: 'preflight',
    ...(deadline
      ? {
          deadlineAt: deadline.at,
          // No request of the run's own starts after the deadline.
          beforeAttempt: () => {
            if (deadlineDue()) throw new Error(deadline.reason);
          },
        }
      : {}),
    onExchange: (ex: Exchange, res?: HttpResponse, spec?: RequestSpec) => {
      preflightExchanges.push(ex);
      exchangeLog.append(ex);
      if (opts.harFile !== undefined && res && spec) recordHar(opts, spec, res, redactor);
    },
  };
  // A stop asked during the preflight ends its request in flight (the run then writes its report);
  // the balance reads around the suites use a client the stop does not end.
  const preflightClient = targetClient(opts.target, redactor, {
    ...clientOptions,
    ...(active ? { signal: active.preflight.signal } : {}),
  });
  const client = targetClient(opts.target, redactor, clientOptions);
  const auth = { authorization: `Bearer ${keys.primary ?? ''}` };
  return { preflightClient, client, preflightExchanges, exchangesFile: exchangeLog.file, auth };
}

/** A selection (--filter, --suite) that matches no test is a usage error, found before any request. */
async function selectionFirst(
  opts: RunOptions & { reportDir: string; createdDir: boolean },
  run: RunConfig,
  runFile: string,
): Promise<void> {
  if ((opts.filter === undefined && !opts.files?.length) || opts.selectionKnown) return;
  try {
    await checkSelection(opts, run, runFile);
  } catch (err) {
    // Nothing ran and nothing was sent: a report directory this run made holds nothing worth keeping.
    if (opts.createdDir) rmSync(opts.reportDir, { recursive: true, force: true });
    throw err;
  }
}

/** The preflight's findings; none in a dry run (it sends nothing) or when a stop interrupted it. */
async function preflightOf(
  opts: RunOptions & { reportDir: string },
  clients: RunClients,
): Promise<Partial<Awaited<ReturnType<typeof preflight>>>> {
  if (opts.dryRun) return {};
  try {
    return await preflight(
      opts.target,
      clients.preflightClient,
      clients.auth,
      opts.reportDir,
      clients.preflightExchanges,
    );
  } catch (err) {
    // Interrupted during the preflight: no verdict on the target, but a report all the same.
    if (!active?.cut) throw err;
    return {};
  }
}

/**
 * The balance read before the suites: its total, and held_points (total - available), the holds the
 * account had already.
 */
interface BalanceBefore {
  total?: Decimal;
  held?: Decimal;
}

/**
 * The run's budget (into `run`) and what it says of it: from the balance read before the suites in a
 * real run, from the target's settings alone in a dry run (a dry run sends the target nothing, not even
 * these reads). Returns the balance read, if it was.
 */
async function budgetBefore(
  opts: RunOptions & { reportDir: string },
  run: RunConfig,
  clients: RunClients,
  profile: NonNullable<RunOptions['profile']>,
  log: (s: string) => void,
): Promise<BalanceBefore | undefined> {
  const { target, reportDir } = opts;
  if (opts.dryRun) {
    if (!opts.quiet) for (const line of planBudgetLines(target)) log(line);
    const budget = dryRunBudget(target);
    if (budget) run.budget = budget;
    return undefined;
  }
  if (deadlineDue() || active?.cut) return undefined;
  const balance = await readBalance(clients.client, clients.auth, target);
  const planned = planBudget(target, balance);
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
  return { total: balance.total, held: heldOf(balance) };
}

/** The suites' test records and harness errors; none when the run was stopped before them. */
async function suitesOf(
  opts: RunOptions,
  redactor: Redactor,
  runFile: string,
  progress: Progress | undefined,
  profile: NonNullable<RunOptions['profile']>,
  log: (s: string) => void,
  balance: BalanceChecks,
): Promise<{ tests: TestResultRecord[]; harnessErrors: string[] }> {
  if (deadlineDue() || active?.cut) return { tests: [], harnessErrors: [] };
  const { target } = opts;
  // What media acceptance will buy, said before it starts where it matters (thorough buys every preset).
  const collected = suiteFiles(opts.files ?? []).some((file) => suiteHints(file).mediaAcceptance);
  if (
    !opts.quiet &&
    collected &&
    target.allow.includes('billable') &&
    (profile === 'thorough' || opts.dryRun)
  )
    log(coveringPlanLine(mediaTable(), profile));
  // Where the balance checks run (decided with run.json: the workers read the files moved), said when
  // the selection holds them.
  if (!opts.quiet && suiteFiles(opts.files ?? []).some((file) => suiteHints(file).isolatedAccount))
    log(balance.line);
  progress?.setPhase('starting the test workers');
  return runSuites(opts, target, redactor, runFile, progress, balance);
}

/**
 * What the balance says the run spent, read again after the suites where it was read before them;
 * nothing is sent after the deadline (this read neither).
 */
async function balanceFound(
  opts: RunOptions,
  clients: RunClients,
  before: BalanceBefore | undefined,
): Promise<Pick<FinishInput['found'], 'balanceDelta' | 'heldDelta'>> {
  const after =
    before?.total !== undefined && !deadlineDue() && active?.cut?.kind !== 'deadline'
      ? await readBalance(clients.client, clients.auth, opts.target)
      : undefined;
  const balanceAfter = after?.total;
  const heldAfter = after ? heldOf(after) : undefined;
  return {
    balanceDelta:
      before?.total !== undefined && balanceAfter !== undefined
        ? before.total.minus(balanceAfter).toString()
        : undefined,
    ...(before?.held && heldAfter ? { heldDelta: heldAfter.minus(before.held) } : {}),
  };
}

/** held_points as the balance implies them (total - available), where both were read. */
const heldOf = (b: { total?: Decimal; available?: Decimal }): Decimal | undefined =>
  b.total && b.available ? b.total.minus(b.available) : undefined;

/** A billable run against a real target without --prices: the prices are learned from its first jobs. */
const NO_PRICES =
  "prices: the target's media prices are not known before its first job of each model (the report keeps them as learned: --prices REPORT_DIR prices the next plan, and --dry-run --prices REPORT_DIR what it will cost)";
