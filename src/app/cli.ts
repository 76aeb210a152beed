/**
 * The command line: flags to run options, the subcommands (merge, verify), signals, exit codes.
 */
import { parseArgs } from 'node:util';
import { resolveTarget } from '../config/targets.ts';
import { UsageError } from '../errors.ts';
import { SUITE_VERSION } from '../paths.ts';
import { verifyBundle } from '../report/bundle.ts';
import { loadExpectations } from '../report/expectations.ts';
import { mergeReports } from '../report/merge.ts';
import { EMBEDDED_NOTE, exitCodeOf, type Summary, verdictLine } from '../report/summary.ts';
import { EMBEDDED, PROFILES, type Profile } from '../runtime/run-config.ts';
import { planBillable } from './billable-plan.ts';
import { startEmbedded } from './embedded.ts';
import { EXIT, runConformance, stopActiveRun } from './run.ts';

const USAGE = `gateway-conformance ${SUITE_VERSION}: contract-conformance suite for the customer API

Usage: gateway-conformance [options]                  run the suite
       gateway-conformance merge --report-dir OUT DIR...  combine the reports of --shard runs
       gateway-conformance verify DIR                     check a report (bundle): files, digests,
                                                          completeness; exit 0 only if certified

Target (flags > environment > targets file > defaults; nothing configured, or --target embedded: the
embedded reference server)
  --target NAME          run against the entry NAME of the targets file
  --targets FILE         the targets file (default ./targets.yaml, else the package's)
  --base-url URL         single-target mode (or CONFORMANCE_BASE_URL); primary key from
                         CONFORMANCE_API_KEY, other roles from CONFORMANCE_KEY_<ROLE>, model hints
                         from CONFORMANCE_MODEL_<HINT>
  --allow LIST           side-effect classes allowed: read,write,billable,tickets,payments or all
                         (or CONFORMANCE_ALLOW; a real target without a list: read)
  --concurrency N        requests in flight at once (default: the target's; a URL target without one
                         adapts from 4 to 16; the embedded reference 8)

Run
  --strict               implied invariants fail the run (for a service's own release pipeline)
  --seed N               fast-check seed (every property failure prints the seed that replays it)
  --path P               with --seed (and --filter naming the test), replay exactly the one failing
                         case of a model-based test whose failure printed this path
  --property-runs N      runs per property test (default 25)
  --filter PATTERN       only tests whose title matches PATTERN (a regular expression)
  --suite LIST           only suite files whose path contains one of these comma-separated strings
                         (e.g. media,auth); the tests of the other files are not collected
  --report-dir DIR       where to write the report (default reports/<target>/<timestamp>/)
  --profile NAME         quick | standard | thorough: property runs (5/25/100) and scenario depth
  --budget-points N      the points billable tests may spend (as the target reports them); 0 runs
                         free tests only; unlimited: no budget. A real target with billable allowed
                         defaults to 100 (or CONFORMANCE_BUDGET_POINTS, or budget_points in the
                         targets file); the embedded reference has none. Never more than the primary
                         account's available points (read before the run)
  --deadline DURATION    stop starting tests and requests DURATION after the command started (e.g.
                         900, 15m, 1h; the preflight and every wait included); running tests end at
                         their next request, cleanups still run; the verdict is INCOMPLETE (exit 4)
  --shard I/N            run the I-th of N shards (combine them with 'merge')
  --expectations FILE    the target's known failures (id, reason, expires; see README)
  --drift-against FILE   diff the live /openapi.json against FILE, or 'previous' (the newest other
                         report beside this one, e.g. reports/<target>/*)
  --dry-run              the plan: which tests would run or not and why; sends no request
  --quiet                print only the verdict line
  --help, --version

Verdicts and exit codes: PASSED 0 (every test of the plan ran and passed); PARTIAL 0 (a selection:
--filter, --suite, --shard); FAILED 1 (a check failed); INCOMPLETE 4 (cut short: deadline, budget,
balance, a dead target) or 130 (stopped by a signal); 2 usage or configuration error (also: a selection
that matches nothing, an unknown CONFORMANCE_* variable, a key without a base URL), target unreachable
or primary key refused; 3 harness error (a fault of the suite, not of the target).`;

/** `merge --report-dir OUT DIR...` and `verify DIR`: work on finished reports, no target needed. */
async function subcommand(name: string, argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        'report-dir': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(`${name}: ${(err as Error).message.split('\n')[0]} (see --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return EXIT.passed;
  }
  if (name === 'verify') {
    if (positionals.length !== 1) throw new UsageError('verify: name one report directory (a bundle)');
    const v = verifyBundle(positionals[0]!);
    for (const line of v.lines) console.log(line);
    return v.certified ? EXIT.passed : EXIT.failed;
  }
  const out = values['report-dir'];
  if (typeof out !== 'string') throw new UsageError('merge: --report-dir OUT is required');
  const summary = mergeReports(positionals, out);
  const c = summary.counts;
  console.log(
    `${c.passed} passed, ${c.failed} failed, ${c.advisory} advisory, ${c.not_run} not run, ${c.harness_error} harness errors (shards ${summary.shards?.join(', ')}; report ${out})`,
  );
  console.log(verdictLine(summary));
  return exitCodeOf(summary);
}

const RUN_OPTIONS = {
  target: { type: 'string' },
  targets: { type: 'string' },
  'base-url': { type: 'string' },
  allow: { type: 'string' },
  concurrency: { type: 'string' },
  strict: { type: 'boolean' },
  seed: { type: 'string' },
  path: { type: 'string' },
  'property-runs': { type: 'string' },
  filter: { type: 'string' },
  suite: { type: 'string' },
  'report-dir': { type: 'string' },
  profile: { type: 'string' },
  'budget-points': { type: 'string' },
  deadline: { type: 'string' },
  shard: { type: 'string' },
  expectations: { type: 'string' },
  'drift-against': { type: 'string' },
  'dry-run': { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

/**
 * `npm run conformance --filter X` (no `--`): npm takes the flags for its own configuration (it sets
 * npm_config_filter=true for the script and passes X on as a bare argument), so the suite would run
 * without them. Said in the user's words instead of "Unexpected argument 'X'". Only under our own
 * npm script, and only for names of our flags (npm sets npm_config_* for its own settings too).
 */
function npmTookFlags(env: NodeJS.ProcessEnv): void {
  if (env.npm_lifecycle_event !== 'conformance') return;
  const taken = Object.keys(RUN_OPTIONS)
    .filter((name) => !['help', 'version', 'quiet'].includes(name))
    .filter((name) => env[`npm_config_${name.replaceAll('-', '_')}`])
    .map((name) => `--${name}`);
  if (taken.length === 0) return;
  throw new UsageError(
    `npm took ${taken.join(', ')} for its own options, so the suite never saw ${taken.length > 1 ? 'them' : 'it'}: put -- before the suite's flags, e.g. npm run conformance -- ${taken[0]} ...`,
  );
}

export async function main(argv: string[]): Promise<number> {
  // --deadline counts from here: the preflight, the embedded reference's start and every wait included.
  const startedAt = Date.now();
  if (argv[0] === 'merge' || argv[0] === 'verify') return subcommand(argv[0], argv.slice(1));
  npmTookFlags(process.env);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: negativeValues(argv),
      strict: true,
      allowPositionals: false,
      options: RUN_OPTIONS,
    }));
  } catch (err) {
    throw new UsageError(`${(err as Error).message.split('\n')[0]} (see --help)`);
  }
  if (values.help) {
    console.log(USAGE);
    return EXIT.passed;
  }
  if (values.version) {
    console.log(SUITE_VERSION);
    return EXIT.passed;
  }
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
      throw new UsageError(`--concurrency: '${values.concurrency}' is not a whole number from 1 to 64`);
    }
  }
  const seed = wholeNumber(values.seed, '--seed', 0, 2 ** 31 - 1);
  const propertyRuns = wholeNumber(values['property-runs'], '--property-runs', 1, 10_000);
  const path = values.path as string | undefined;
  if (path !== undefined && !/^\d+(:\d+)*(@[A-Za-z0-9+/]*:[A-Za-z0-9+/]*)?$/.test(path))
    throw new UsageError(`--path: '${path}' is not a path a failure printed (e.g. 12:0:3@AAB:C)`);
  if (typeof values.filter === 'string') {
    try {
      new RegExp(values.filter);
    } catch {
      throw new UsageError(`--filter: '${values.filter}' is not a valid regular expression`);
    }
  }
  const profile = values.profile as string | undefined;
  if (profile !== undefined && !(PROFILES as readonly string[]).includes(profile))
    throw new UsageError(`--profile: '${profile}' is not one of ${PROFILES.join(', ')}`);
  const deadlineMs = values.deadline === undefined ? undefined : duration(String(values.deadline));
  const shard = values.shard as string | undefined;
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
      throw new UsageError(`--shard: '${shard}' is not I/N with 1 <= I <= N (e.g. 2/4)`);
  }
  const suiteFiles =
    typeof values.suite === 'string'
      ? values.suite
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : undefined;
  if (suiteFiles && suiteFiles.length === 0)
    throw new UsageError('--suite: name at least one suite file or folder');
  const flags = {
    ...(typeof values.target === 'string' ? { target: values.target } : {}),
    ...(typeof values.targets === 'string' ? { targets: values.targets } : {}),
    ...(typeof values['base-url'] === 'string' ? { baseUrl: values['base-url'] } : {}),
    ...(typeof values.allow === 'string' ? { allow: values.allow } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(typeof values['budget-points'] === 'string' ? { budgetPoints: values['budget-points'] } : {}),
  };
  let target = resolveTarget(flags);
  // Bad input fails before anything starts.
  if (typeof values.expectations === 'string') loadExpectations(values.expectations);
  const quiet = values.quiet === true;
  let stop: (() => Promise<void>) | undefined;
  if (target.embedded) {
    // Loopback and in memory: the embedded reference takes more tests at once than a real target's default.
    const started = await startEmbedded(
      concurrency === undefined ? { ...target, concurrency: EMBEDDED.concurrency } : target,
    );
    target = started.target;
    stop = started.stop;
    if (!quiet) console.log(`${EMBEDDED_NOTE} (${target.baseUrl})`);
  }
  // First Ctrl-C or SIGTERM: the run stops starting tests and requests, cleans up and writes its report
  // (also during the preflight). A second one: stop at once, also with a request in flight. Why a
  // window: a signal sent to the process group reaches node twice (directly, and forwarded by npm),
  // which is one request to stop, not two.
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstSignalAt !== undefined && now - firstSignalAt < SAME_SIGNAL_MS) return;
    if (firstSignalAt === undefined && stopActiveRun(`interrupted by ${signal}`)) {
      firstSignalAt = now;
      console.error(`gateway-conformance: ${signal}: stopping after cleanup (again to stop at once)`);
      return;
    }
    console.error(`gateway-conformance: ${signal}: stopping at once`);
    process.exit(EXIT.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runConformance({
      target,
      strict: values.strict === true,
      quiet,
      ...(seed !== undefined ? { seed } : {}),
      ...(path !== undefined ? { path } : {}),
      ...(propertyRuns !== undefined ? { propertyRuns } : {}),
      ...(typeof values['report-dir'] === 'string' ? { reportDir: values['report-dir'] } : {}),
      ...(typeof values.filter === 'string' ? { filter: values.filter } : {}),
      ...(suiteFiles ? { files: suiteFiles } : {}),
      ...(profile ? { profile: profile as Profile } : {}),
      ...(deadlineMs !== undefined ? { deadlineMs, startedAt } : {}),
      ...(shard ? { shard } : {}),
      ...(typeof values.expectations === 'string' ? { expectationsFile: values.expectations } : {}),
      ...(typeof values['drift-against'] === 'string' ? { driftAgainst: values['drift-against'] } : {}),
      ...(values['dry-run'] === true
        ? { dryRun: true, planBillable: (s: Summary, dir: string) => planBillable(s, dir, target) }
        : {}),
    });
    if (quiet) console.log(verdictLine(result.summary));
    return result.exitCode;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stop?.();
  }
}

/**
 * `--budget-points -1`, `--concurrency -3` as one option with its value: node's parseArgs takes a value
 * starting with a dash for another option ("argument is ambiguous"), so a negative number would never
 * reach the check that says what is wrong with it.
 */
function negativeValues(argv: string[]): string[] {
  const out: string[] = [];
  const takesValue = (arg: string) =>
    arg.startsWith('--') && RUN_OPTIONS[arg.slice(2) as keyof typeof RUN_OPTIONS]?.type === 'string';
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (takesValue(argv[i]!) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]!);
  }
  return out;
}

/** A duration: seconds (`900`), or with a unit (`90s`, `15m`, `1h`). */
function duration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'] : NaN;
  if (!Number.isFinite(ms) || ms < 1000 || ms > 48 * 3_600_000)
    throw new UsageError(`--deadline: '${value}' is not a duration from 1 s to 48 h (e.g. 900, 15m, 1h)`);
  return ms;
}

function wholeNumber(value: unknown, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag}: '${String(value)}' is not a whole number from ${min} to ${max}`);
  return n;
}

/** Signals this close to the first one are the same request to stop (a group signal npm also forwards). */
const SAME_SIGNAL_MS = 500;

/** The CLI on these arguments: its exit code, with a usage or internal error said on stderr. */
export async function runArgs(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`gateway-conformance: ${err.message}`);
      return EXIT.usage;
    }
    console.error(`gateway-conformance: internal error: ${(err as Error)?.message ?? String(err)}`);
    if (process.env.CONFORMANCE_DEBUG) console.error((err as Error)?.stack);
    return EXIT.harness;
  }
}

export async function cliEntry(): Promise<void> {
  process.exitCode = await runArgs(process.argv.slice(2));
  // The verdict is the last thing printed: the process ends only once what it wrote has left it, also to
  // a slow pipe reader (a write callback runs when the data is handed to the OS).
  await Promise.all(
    [process.stdout, process.stderr].map((s) => new Promise<void>((r) => s.write('', () => r()))),
  );
}
