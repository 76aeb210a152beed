/**
 * One conformance run: its report directory, keys and redaction, stop requests (signal, deadline), the
 * preflight, the budget, the suites, and the finish that writes the report.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { Decimal } from 'decimal.js';
import { keysFromEnv } from '../config/env.ts';
import type { Exchange } from '../http/client.ts';
import { Redactor, redactConsole } from '../http/redact.ts';
import { targetClient } from '../http/target-client.ts';
import { SUITE_VERSION } from '../paths.ts';
import { loadExpectations } from '../report/expectations.ts';
import { consoleText } from '../report/neutral.ts';
import { Progress } from '../report/progress.ts';
import type { CutKind, RunCut, TestResultRecord } from '../report/summary.ts';
import { coveringPlanLine } from '../rules/covering.ts';
import { mediaTable } from '../rules/media-models.ts';
import { jobsInFlight, requestStop } from '../runtime/control.ts';
import {
  cleanupBoundMs,
  concurrencyPlan,
  PROFILE_PROPERTY_RUNS,
  type RunConfig,
} from '../runtime/run-config.ts';
import type { Role } from '../vocabulary.ts';
import { planBudget, planBudgetLines, readBalance } from './budget.ts';
import { finish } from './finish.ts';
import { preflight } from './preflight.ts';
import type { RunOptions, RunResult } from './run-options.ts';
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
  // A dry run's billable estimate runs a nested run: the outer one is the active one again after it.
  const outer = active;
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
    return await conformanceRun({ ...opts, reportDir, createdDir }, keys, redactor, log, deadline);
  } finally {
    if (timer) clearTimeout(timer);
    active = outer;
    restoreConsole();
  }
}

async function conformanceRun(
  opts: RunOptions & { reportDir: string; createdDir: boolean },
  keys: Partial<Record<Role, string>>,
  redactor: Redactor,
  out: (s: string) => void,
  deadline: RunConfig['deadline'],
): Promise<RunResult> {
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
  const exchangesFile = join(reportDir, 'exchanges.ndjson');
  writeFileSync(exchangesFile, '');
  const preflightExchanges: Exchange[] = [];
  const clientOptions = {
    testName: 'preflight',
    ...(deadline ? { deadlineAt: deadline.at } : {}),
    onExchange: (ex: Exchange) => {
      preflightExchanges.push(ex);
      writeFileSync(exchangesFile, `${JSON.stringify(ex)}\n`, { flag: 'a' });
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

  const run: RunConfig = {
    target,
    strict: !!opts.strict,
    reportDir,
    exchangesFile,
    suiteVersion: SUITE_VERSION,
    seed: opts.seed ?? Math.floor(Math.random() * 2 ** 31),
    propertyRuns: opts.propertyRuns ?? PROFILE_PROPERTY_RUNS[profile],
    profile,
  };
  if (opts.path !== undefined) run.path = opts.path;
  if (opts.dryRun) run.dryRun = true;
  if (deadline) run.deadline = deadline;
  const runFile = join(reportDir, 'run.json');
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

  if (!opts.quiet && !opts.dryRun) log(concurrencyPlan(target, availableParallelism()).describe);

  if (openapi) run.openapi = openapi;
  // A dry run sends the target nothing, not even these reads.
  let balanceBefore: Decimal | undefined;
  if (!opts.dryRun && !active?.cut) {
    const balance = await readBalance(client, auth, target);
    balanceBefore = balance.total;
    const planned = await planBudget(target, balance.available, client, auth);
    if (planned.budget) run.budget = planned.budget;
    if (!opts.quiet) for (const line of planned.lines) log(line);
    if (!opts.quiet && (target.allow.includes('write') || target.allow.includes('billable')))
      log(
        `cleanup: an input a job holds is waited for only while the job progresses, at most ${Math.round(cleanupBoundMs(target) / 1000)} s per test; what stays held is reported left behind`,
      );
  } else if (opts.dryRun && !opts.quiet) {
    for (const line of planBudgetLines(target)) log(line);
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
  const balanceAfter =
    balanceBefore !== undefined && active?.cut?.kind !== 'deadline'
      ? (await readBalance(client, auth, target)).total
      : undefined;
  const cut = active?.cut;
  progress?.stop();
  return finish({
    opts,
    target,
    keys,
    run,
    redactor,
    reportDir,
    exchangesFile,
    startedAt,
    tests,
    harnessErrors,
    expectations,
    cut,
    balanceDelta:
      balanceBefore !== undefined && balanceAfter !== undefined
        ? balanceBefore.minus(balanceAfter).toString()
        : undefined,
    log,
  });
}
