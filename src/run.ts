import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import type { TestSpecification } from 'vitest/node';
import { findEntryList, isPlainObject } from './checks/json.ts';
import { pointsFields } from './checks/points.ts';
import type { TargetConfig } from './config/targets.ts';
import { TransportError, UsageError } from './errors.ts';
import { type Exchange, HttpClient, type HttpResponse } from './http/client.ts';
import { Redactor, redactConsole, redactFiles } from './http/redact.ts';
import type { Role } from './model.ts';
import { diffDescriptions, formatChanges } from './openapi/diff.ts';
import { responseSource } from './openapi/fallback.ts';
import { checkOpenApi31 } from './openapi/live.ts';
import { PKG_ROOT, SUITE_VERSION } from './paths.ts';
import { writeManifest } from './report/bundle.ts';
import { groupLines } from './report/console.ts';
import { applyExpectations, expectationFailures, loadExpectations } from './report/expectations.ts';
import { writeHtmlReport } from './report/html.ts';
import { Progress, ProgressReporter, useColour } from './report/progress.ts';
import { ConformanceReporter, writeJunit } from './report/reporter.ts';
import {
  aggregate,
  type CutKind,
  exitCodeOf,
  type RunCut,
  type Summary,
  type TestResultRecord,
  verdictLine,
} from './report/summary.ts';
import { coveringPlanLine } from './rules/covering.ts';
import { mediaTable } from './rules/media.ts';
import {
  BALANCE_FILE,
  balanceOut,
  DEAD_FILE,
  deadTarget,
  JOBS_FILE,
  jobsInFlight,
  type RunBudget,
  requestStop,
  STREAK_FILE,
  spentPoints,
} from './runtime/control.ts';
import {
  cleanupBoundMs,
  concurrencyPlan,
  PROFILE_PROPERTY_RUNS,
  type Profile,
  RUN_FILE_ENV,
  type RunConfig,
} from './runtime/run-config.ts';
import { checkSelection, keepOurSignalHandlers, ourSignalHandlers, SUITE_GLOB } from './selection.ts';
import { CACHE_ROOT } from './yaml-cache.ts';

export interface RunOptions {
  target: TargetConfig;
  reportDir?: string;
  strict?: boolean;
  filter?: string;
  quiet?: boolean;
  seed?: number;
  /** Replays one failing case of a model-based test (with its seed); see RunConfig.path. */
  path?: string;
  propertyRuns?: number;
  /** Restrict to suite files whose path contains one of these strings. */
  files?: string[];
  profile?: Profile;
  /** The plan without a single request to the target. */
  dryRun?: boolean;
  /**
   * A global deadline, counted from `startedAt` (the command's start; default: this call): when it
   * passes, no test or request starts any more (the preflight and every wait included); cleanups still run.
   */
  deadlineMs?: number;
  startedAt?: number;
  /** `i/n`: run the i-th of n shards (vitest's file sharding); `merge` combines the shard reports. */
  shard?: string;
  /** The target's known failures (see src/report/expectations.ts). */
  expectationsFile?: string;
  /** Diff the live description against this file, or `previous` (the latest earlier report of the target). */
  driftAgainst?: string;
  /** The selection names tests known to exist (a dry run's own titles): not checked again. */
  selectionKnown?: boolean;
}

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

export interface RunResult {
  summary: Summary;
  reportDir: string;
  exitCode: number;
}

export { EXIT } from './report/summary.ts';

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
  mkdirSync(reportDir, { recursive: true });
  const keys: Partial<Record<Role, string>> = {};
  for (const [role, env] of Object.entries(opts.target.keys))
    if (process.env[env]) keys[role as Role] = process.env[env];
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
    return await conformanceRun({ ...opts, reportDir }, keys, redactor, log, deadline);
  } finally {
    if (timer) clearTimeout(timer);
    active = undefined;
    restoreConsole();
  }
}

async function conformanceRun(
  opts: RunOptions & { reportDir: string },
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
    out(s);
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
    baseUrl: target.baseUrl,
    timeoutMs: target.timeouts.requestMs,
    redactor,
    testName: 'preflight',
    ...(deadline ? { deadlineAt: deadline.at } : {}),
    onExchange: (ex: Exchange) => {
      preflightExchanges.push(ex);
      writeFileSync(exchangesFile, `${JSON.stringify(ex)}\n`, { flag: 'a' });
    },
  };
  // A stop asked during the preflight ends its request in flight (the run then writes its report);
  // the balance reads around the suites use a client the stop does not end.
  const preflightClient = new HttpClient({
    ...clientOptions,
    ...(active ? { signal: active.preflight.signal } : {}),
  });
  const client = new HttpClient(clientOptions);
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
  if ((opts.filter !== undefined || opts.files?.length) && !opts.selectionKnown)
    await checkSelection(opts, run, runFile);

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
    const acceptance = ['suites/media/validation-image.test.ts', 'suites/media/validation-other.test.ts'];
    const collected = !opts.files || opts.files.some((f) => acceptance.some((file) => file.includes(f)));
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

/** Preflight: the description (fetched once) and the primary key. */
async function preflight(
  target: TargetConfig,
  client: HttpClient,
  auth: Record<string, string>,
  reportDir: string,
  preflightExchanges: Exchange[],
): Promise<{
  openapi?: RunConfig['openapi'];
  descriptionFailure?: TestResultRecord;
  preflightNote?: TestResultRecord;
}> {
  // Preflight 1: the description. A transport failure here means the target is unreachable (exit 2).
  let desc: HttpResponse;
  try {
    desc = await client.send({ method: 'GET', path: '/openapi.json', headers: auth });
  } catch (err) {
    if (err instanceof TransportError) throw new UsageError(unreachable(target, err));
    throw err;
  }
  // Preflight 2: the primary key. A refusal is a configuration error (exit 2), not a verdict.
  // The target answered its description, so it is reachable: a broken answer here (reset, truncated
  // body, timeout) is the target's failure with evidence, and the suite still runs.
  let models: HttpResponse | undefined;
  let preflightNote: TestResultRecord | undefined;
  try {
    models = await client.send({ method: 'GET', path: '/v1/models', headers: auth });
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    const ex = preflightExchanges.find((e) => e.id === err.exchangeId);
    preflightNote = {
      title: 'GEN-001 preflight: GET /v1/models with the primary key gets a complete answer',
      file: 'preflight',
      ids: ['GEN-001'],
      outcome: 'failed',
      durationMs: ex?.durationMs ?? 0,
      violations: [
        {
          id: 'GEN-001',
          level: 'failure',
          severity: 'failure',
          message: err.message,
          ...(ex ? { exchangeId: ex.id } : {}),
          count: 1,
        },
      ],
      exchanges: ex ? [ex] : [],
      exchangeCount: 1,
    };
  }
  if (models && (models.status === 401 || models.status === 403)) {
    throw new UsageError(
      `target '${target.name}' refuses the primary key (GET /v1/models answered ${models.status}); check ${target.keys.primary ?? 'the primary key variable'}`,
    );
  }

  let openapi: RunConfig['openapi'];
  let descriptionFailure: TestResultRecord | undefined;
  if (desc.jsonTooDeep && desc.status < 400) {
    // JSON too deep to examine: the target's failure (OAS-001); the run goes on with the documented schemas.
    const file = join(reportDir, 'openapi.json');
    writeFileSync(file, desc.body);
    openapi = {
      file,
      sha256: createHash('sha256').update(desc.body).digest('hex'),
      valid: false,
      errors: [desc.jsonError ?? 'JSON too deep'],
    };
  } else if (desc.json === undefined || desc.status >= 400) {
    const what =
      desc.status >= 400
        ? `status ${desc.status}`
        : `${desc.mediaType ?? 'no content type'} that is not JSON`;
    descriptionFailure = {
      title: 'OAS-001 preflight: GET /openapi.json answers the description',
      file: 'preflight',
      ids: ['OAS-001'],
      outcome: 'failed',
      durationMs: desc.exchange.durationMs,
      violations: [
        {
          id: 'OAS-001',
          level: 'failure',
          severity: 'failure',
          message: `GET /openapi.json answered ${what}: the target does not serve the API's description (is ${target.baseUrl} the API's base URL?)`,
          exchangeId: desc.exchange.id,
          count: 1,
        },
      ],
      exchanges: [desc.exchange],
      exchangeCount: 1,
    };
  } else {
    const file = join(reportDir, 'openapi.json');
    writeFileSync(file, desc.body);
    const check = await checkOpenApi31(desc.json);
    openapi = {
      file,
      sha256: createHash('sha256').update(desc.body).digest('hex'),
      valid: check.valid,
      errors: check.errors,
    };
  }
  return {
    ...(openapi ? { openapi } : {}),
    ...(descriptionFailure ? { descriptionFailure } : {}),
    ...(preflightNote ? { preflightNote } : {}),
  };
}

/** Why the target's first request got no HTTP answer, in the user's words (exit 2). */
function unreachable(target: TargetConfig, err: TransportError): string {
  const at = `target '${target.name}' at ${target.baseUrl}`;
  const tls = target.baseUrl.startsWith('http:') ? ' (a TLS port needs an https:// URL)' : '';
  if (err.code === 'HTTPParserError')
    return `${at} answered, but not with HTTP: is this the API's port?${tls} (${err.message})`;
  if (err.code === 'UND_ERR_SOCKET' || err.code === 'ECONNRESET')
    return `${at} accepted the connection, then closed it without an HTTP answer: is this the API's port?${tls} (${err.message})`;
  return `cannot reach ${at}: ${err.message}`;
}

/**
 * Suite files that start first: the longest chains of sequential requests (model-based sequences
 * first), then the files whose tests create media jobs and wait for them (against a target whose jobs
 * take a minute, the waits overlap only when these files start early).
 */
const LONG_CHAIN_FILES = [
  'suites/stateful/sequences.test.ts',
  'suites/media/validation-image.test.ts',
  'suites/media/validation-other.test.ts',
  'suites/media/lifecycle.test.ts',
  'suites/media/references.test.ts',
  'suites/stateful/races.test.ts',
  'suites/media/undocumented.test.ts',
  'suites/media/states.test.ts',
  'suites/media/inputs.test.ts',
];

let vitestNode: Promise<typeof import('vitest/node')> | undefined;
/** vitest's node API, imported once per process (started early by runConformance). */
const loadVitest = () => {
  vitestNode ??= import('vitest/node');
  return vitestNode;
};

/** The vitest suites: every suite in parallel, then the serial ones. */
async function runSuites(
  opts: RunOptions,
  target: TargetConfig,
  redactor: Redactor,
  runFile: string,
  progress: Progress | undefined,
): Promise<{ tests: TestResultRecord[]; harnessErrors: string[] }> {
  {
    process.env[RUN_FILE_ENV] = runFile;
    const reporter = new ConformanceReporter(redactor, opts.filter);
    const { createVitest, BaseSequencer } = await loadVitest();
    // The files holding the longest chains of dependent requests start first, so that they do not set
    // the end of a run against a slow target; the rest in vitest's order (longest last time, or largest).
    class LongChainsFirst extends BaseSequencer {
      override async sort(files: TestSpecification[]) {
        const sorted = await super.sort(files);
        const rank = (moduleId: string) => {
          const i = LONG_CHAIN_FILES.findIndex((f) => moduleId.replaceAll('\\', '/').endsWith(f));
          return i < 0 ? LONG_CHAIN_FILES.length : i;
        };
        return sorted
          .map((spec, i) => ({ spec, i, rank: rank(spec.moduleId) }))
          .sort((a, b) => a.rank - b.rank || a.i - b.i)
          .map(({ spec }) => spec);
      }
    }
    // Two groups: every suite in parallel, then the `*.serial.test.ts` files one at a time with no other
    // traffic of this run (balance-delta checks need a quiet account).
    // The target's concurrency is the number of requests in flight, split over the worker threads
    // (concurrencyPlan); each worker runs more tests than it has request slots.
    const { workers, testsPerWorker } = concurrencyPlan(target, availableParallelism());
    // The suite's modules as vite transformed them, kept between runs (keyed by each file's content) in
    // the suite's cache under the system's temp directory: every run and worker thread reuses them.
    const experimental = { fsModuleCache: true, fsModuleCachePath: join(CACHE_ROOT, 'vitest-modules') };
    const projects = [
      {
        test: {
          name: 'parallel',
          include: [SUITE_GLOB],
          exclude: ['suites/**/*.serial.test.ts'],
          pool: 'threads',
          isolate: false,
          // Tests are independent (each creates and cleans up its own resources): within a file they
          // run concurrently (check() marks them); the worker's request gate keeps its requests in flight
          // within its share of the target's concurrency, so a test that only waits costs nothing.
          // (A project's own `sequence.concurrent` is not honoured by vitest 4.1.)
          sequence: { groupOrder: 0 },
          maxConcurrency: testsPerWorker,
          experimental,
        },
      },
      {
        test: {
          name: 'serial',
          include: ['suites/**/*.serial.test.ts'],
          pool: 'threads',
          isolate: false,
          fileParallelism: false,
          // One test at a time, even those check() marks concurrent.
          maxConcurrency: 1,
          sequence: { groupOrder: 1 },
          experimental,
        },
      },
    ];
    const ours = ourSignalHandlers();
    const vitest = await createVitest(
      'test',
      {
        config: false,
        root: PKG_ROOT,
        watch: false,
        // Not vitest's own reporter: one line per group of findings at the end (printVerdict), not a
        // dump with code frames per failing test; progress meanwhile.
        reporters: progress ? [reporter, new ProgressReporter(progress)] : [reporter],
        maxWorkers: workers,
        ...(opts.filter ? { testNamePattern: opts.filter } : {}),
        ...(opts.shard ? { shard: opts.shard } : {}),
        passWithNoTests: !!opts.shard,
        experimental,
      },
      { test: { projects, sequence: { sequencer: LongChainsFirst } } } as never,
    );
    // Vitest exits the process on SIGINT; the run's own handler stops it gracefully instead (cleanups
    // and the report still happen), so vitest's handlers are removed.
    keepOurSignalHandlers(ours);
    try {
      await vitest.start(opts.files ?? []);
    } finally {
      await vitest.close();
    }
    return reporter.collected;
  }
}

async function finish(c: {
  opts: RunOptions;
  target: TargetConfig;
  keys: Partial<Record<Role, string>>;
  run: RunConfig;
  redactor: Redactor;
  reportDir: string;
  exchangesFile: string;
  startedAt: Date;
  tests: TestResultRecord[];
  harnessErrors: string[];
  expectations: ReturnType<typeof loadExpectations> | undefined;
  cut: RunCut | undefined;
  balanceDelta: string | undefined;
  log: (s: string) => void;
}): Promise<RunResult> {
  const { opts, target, keys, run, redactor, reportDir, exchangesFile, startedAt, harnessErrors, log } = c;
  const openapi = run.openapi;
  const tests = c.tests;
  const expectationStatus = c.expectations ? applyExpectations(tests, c.expectations) : undefined;
  if (expectationStatus && opts.expectationsFile)
    // One shard cannot tell a stale entry (its failing test may be in another shard): merge judges those.
    tests.push(
      ...expectationFailures(
        expectationStatus.filter((e) => !(opts.shard && e.status === 'stale')),
        opts.expectationsFile,
      ),
    );

  const summary: Summary = {
    suite: { name: 'gateway-conformance', version: SUITE_VERSION },
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
        ? { sha256: openapi.sha256, valid: openapi.valid, errors: openapi.errors }
        : { valid: false, errors: ['not fetched'] }),
      validatedAgainst: responseSource(openapi),
    },
    ...aggregate(tests, harnessErrors, {
      cut: runCut(c.cut, reportDir, tests, run.budget),
      // A dry run judges nothing: never PASSED.
      partial: !!(opts.filter || opts.files?.length || opts.shard || opts.dryRun),
    }),
    exchanges: { file: 'exchanges.ndjson', count: 0 },
    tests,
    profile: run.profile,
    points: {
      spent: spentPoints(reportDir).toString(),
      budget: run.budget?.points ?? null,
      ...(run.budget ? { budgetSource: run.budget.source } : {}),
      ...(balanceOut(reportDir) ? { balanceRanOut: balanceOut(reportDir) } : {}),
      source: 'charged_points and media pending_points reported in the replies of billable requests',
      ...(c.balanceDelta !== undefined ? { balanceDelta: c.balanceDelta } : {}),
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
  summary.exchanges.count = countLines(exchangesFile);
  // A last redaction pass over everything written: a secret must not reach the report by any path.
  writeFileSync(
    join(reportDir, 'summary.json'),
    redactor.text(JSON.stringify({ ...summary, harnessErrors }, null, 2)),
  );
  writeJunit(
    join(reportDir, 'junit.xml'),
    redactor.value(tests),
    redactor.value(summary.requirements),
    harnessErrors,
  );
  finalizeReport(reportDir, summary, redactor);
  const exitCode = exitCodeOf(summary);
  if (!opts.quiet) {
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
      reason: `${unpaid} billable test(s) not run: ${budget.kind === 'balance' ? `the account's ${budget.points} available points` : `the points budget of ${budget.points}`} ran out`,
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
          .map((d) => join(root, d, 'openapi.json'))
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
  writeFileSync(join(reportDir, 'drift.json'), JSON.stringify(out, null, 2));
  return out;
}

/** The human report and the manifest that makes the directory a certification bundle (last: it hashes the rest). */
export function finalizeReport(reportDir: string, summary: Summary, redactor?: Redactor): void {
  for (const f of ['stop-requested', BALANCE_FILE, DEAD_FILE, STREAK_FILE, JOBS_FILE])
    rmSync(join(reportDir, f), { force: true, recursive: true });
  writeHtmlReport(reportDir);
  // A last redaction pass over every file written (exchanges, description, drift, HTML, ...): a
  // secret must not reach the report by any path. The manifest, written from these, comes after.
  if (redactor) redactFiles(reportDir, redactor);
  writeManifest(reportDir, summary);
  if (redactor) redactFiles(reportDir, redactor, ['manifest.json']);
}

/**
 * The primary account's total_points and available_points (GET /v1/balance, a read; the envelope is not
 * shown, so the fields are found at any depth): the total cross-checks the spend the replies reported,
 * the available points bound the budget. Each undefined where it cannot be read as a decimal.
 */
async function readBalance(
  client: HttpClient,
  auth: Record<string, string>,
  target: TargetConfig,
): Promise<{ total?: Decimal; available?: Decimal }> {
  if (!target.allow.includes('read')) return {};
  try {
    const res = await client.send({ method: 'GET', path: '/v1/balance', headers: auth });
    if (res.status >= 300) return {};
    const [total] = pointsFields(res.json, ['total_points']);
    const [available] = pointsFields(res.json, ['available_points']);
    return {
      ...(total?.verdict.ok ? { total: total.verdict.value } : {}),
      ...(available?.verdict.ok ? { available: available.verdict.value } : {}),
    };
  } catch {
    return {};
  }
}

const BUDGET_HOW =
  'change it with --budget-points N, CONFORMANCE_BUDGET_POINTS or budget_points in the targets file; unlimited lifts it, 0 runs free tests only';

/** The first lines about the budget, before anything is known of the balance (also a dry run's). */
function planBudgetLines(target: TargetConfig): string[] {
  if (!target.allow.includes('billable')) return [];
  const { points, source } = target.budget;
  const from =
    source === 'default'
      ? target.embedded
        ? 'the embedded reference'
        : 'the default for a real target'
      : source;
  return [
    points === null
      ? `points budget: none (${from}); ${BUDGET_HOW}`
      : `points budget: ${points} points for billable tests (${from}); ${BUDGET_HOW}`,
  ];
}

/**
 * The run's budget: the configured one, bounded by the primary account's available points (read in
 * preflight) on a real target or when a budget is set ("plan within what is there"), with the media
 * models of the primary catalog for the admission reserve; and the first lines that say so.
 */
async function planBudget(
  target: TargetConfig,
  available: Decimal | undefined,
  client: HttpClient,
  auth: Record<string, string>,
): Promise<{ budget?: RunBudget; lines: string[] }> {
  const lines = planBudgetLines(target);
  if (!target.allow.includes('billable')) return { lines };
  let { points } = target.budget;
  let source =
    target.budget.source === 'default' ? 'the default budget of a real target' : target.budget.source;
  let kind: RunBudget['kind'] = 'budget';
  if (points === null && target.embedded) return { lines };
  if (available !== undefined && (points === null || available.lt(points))) {
    lines.push(
      `balance: the primary account has ${available.toString()} points available, ${points === null ? 'and no budget is set' : `less than the budget of ${points}`}: the run plans within ${available.toString()} points`,
    );
    points = Decimal.max(available, 0).toString();
    source = `the primary account's available points before the run`;
    kind = 'balance';
  } else if (available !== undefined) {
    lines.push(`balance: the primary account has ${available.toString()} points available`);
  }
  if (points === null) return { lines };
  return { budget: { points, source, kind, models: await mediaModels(client, auth) }, lines };
}

/** The ids of the primary account's media catalog (GET /v1/media/models, any envelope); [] if unreadable. */
async function mediaModels(client: HttpClient, auth: Record<string, string>): Promise<string[]> {
  try {
    const res = await client.send({ method: 'GET', path: '/v1/media/models', headers: auth });
    if (res.status >= 300) return [];
    return (findEntryList(res.json)?.entries ?? [])
      .map((e) => (isPlainObject(e) ? e.id : undefined))
      .filter((id): id is string => typeof id === 'string');
  } catch {
    return [];
  }
}

function skippedByClass(tests: TestResultRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of tests)
    if (t.outcome === 'not_run' && t.effect && t.cause?.kind === 'class')
      out[t.effect] = (out[t.effect] ?? 0) + 1;
  return out;
}

function countLines(file: string): number {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

function printVerdict(s: Summary, harnessErrors: string[], dir: string, log: (s: string) => void): void {
  const c = s.counts;
  log('');
  log(
    `gateway-conformance ${s.suite.version} — target ${s.target.name} (${s.target.baseUrl})${s.strict ? ' — strict' : ''}`,
  );
  log(
    `  passed ${c.passed}, failed ${c.failed}, advisory ${c.advisory}, not run ${c.not_run}, harness errors ${c.harness_error}`,
  );
  const failed = Object.entries(s.failedRequirements);
  if (failed.length) log(`  failed requirements: ${failed.map(([id, n]) => `${id}×${n}`).join(', ')}`);
  const adv = Object.entries(s.advisoryRequirements);
  if (adv.length) log(`  advisories: ${adv.map(([id, n]) => `${id}×${n}`).join(', ')}`);
  for (const line of groupLines(s, useColour())) log(line);
  for (const e of harnessErrors) log(`  harness error: ${e}`);
  // A harness error is a fault of the suite: its stack is kept (a target's failure shows no harness frame).
  for (const t of s.tests)
    if (t.outcome === 'harness_error')
      log(`  harness error in ${t.title}:\n    ${(t.error ?? '').split('\n').join('\n    ')}`);
  if (s.cleanup.cleaned || s.cleanup.leftBehind.length) {
    log(
      `  cleanup: ${s.cleanup.cleaned} removed, ${s.cleanup.leftBehind.length} left behind${s.cleanup.leftBehind.length && !s.cleanup.details ? `: ${s.cleanup.leftBehind.slice(0, 5).join(', ')}` : ''}`,
    );
    for (const l of s.cleanup.details?.slice(0, 10) ?? [])
      log(
        `    left behind: ${l.item}${l.holder ? ` (job ${l.holder.job}, ${l.holder.status})` : ''} at ${l.at}: ${l.reason}`,
      );
    if ((s.cleanup.details?.length ?? 0) > 10)
      log(`    ... ${(s.cleanup.details?.length ?? 0) - 10} more in summary.json`);
  }
  if (s.cleanup.boundReached)
    log(`  cleanup bound reached in ${s.cleanup.boundReached} test(s): what they still held is left behind`);
  if (s.points?.balanceRanOut)
    log(`  ${s.points.balanceRanOut}: billable work stopped there, the remaining billable tests not run`);
  if (s.points && (s.points.spent !== '0' || s.points.budget))
    log(
      `  points spent: ${s.points.spent}${s.points.budget ? ` of a budget of ${s.points.budget}` : ''}${s.points.balanceDelta !== undefined ? ` (the primary balance moved by ${s.points.balanceDelta})` : ''}`,
    );
  for (const e of s.expectations ?? [])
    if (e.status !== 'matched') log(`  expectation ${e.id}${e.test ? ` /${e.test}/` : ''}: ${e.status}`);
  if (s.drift) {
    log(
      `  description drift against ${s.drift.against}: ${s.drift.changes.length} change(s), ${s.drift.breaking} breaking`,
    );
    for (const line of formatChanges(s.drift.changes).slice(0, 10)) log(`    ${line}`);
  }
  if (s.interrupted) log(`  INCOMPLETE: ${s.interrupted}; the tests it did not reach are not run`);
  log(`  seed: ${s.seed} (replay with --seed ${s.seed})`);
  log(`  coverage: ${s.coverage.tested}/${s.coverage.testable} testable requirements have a test`);
  log(`  report: ${dir}`);
  log(verdictLine(s));
}

/** --dry-run: what would run, what would not and why, by side-effect class. */
function printPlan(s: Summary, dir: string, log: (s: string) => void): void {
  const planned = s.tests.filter((t) => t.planned);
  log('');
  log(
    `gateway-conformance ${s.suite.version} — DRY RUN for target ${s.target.name} (${s.target.baseUrl}); no request was sent`,
  );
  log(`  profile ${s.profile}, allowed classes: ${s.target.allow.join(', ')}`);
  const byEffect = new Map<string, number>();
  for (const t of planned) byEffect.set(t.effect ?? '?', (byEffect.get(t.effect ?? '?') ?? 0) + 1);
  log(
    `  would run ${planned.length} of ${s.tests.length} tests (${[...byEffect].map(([e, n]) => `${e} ${n}`).join(', ')})`,
  );
  const reasons = new Map<string, number>();
  for (const t of s.tests)
    if (!t.planned && t.outcome === 'not_run')
      reasons.set(t.reason ?? '', (reasons.get(t.reason ?? '') ?? 0) + 1);
  for (const [r, n] of reasons) log(`  would not run (${n}): ${r}`);
  log(`  plan: ${dir}/summary.json`);
}
