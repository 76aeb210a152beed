/**
 * The command line: flags to run options, the subcommands (merge, verify, compare, check-traffic),
 * signals, exit codes.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveTarget } from '../config/targets.ts';
import { UsageError } from '../errors.ts';
import { SUITE_VERSION } from '../paths.ts';
import { verifyBundle } from '../report/bundle.ts';
import { loadExpectations } from '../report/expectations.ts';
import { missingDirs } from '../report/layout.ts';
import { appendStepSummary } from '../report/markdown.ts';
import { mergeReports } from '../report/merge.ts';
import { consoleText } from '../report/neutral.ts';
import { COMPARE_HTML, COMPARE_MD, compareTargets } from '../report/side-by-side.ts';
import { loadPublicKey, loadSigningKey } from '../report/signature.ts';
import {
  captureVerdictLine,
  EMBEDDED_NOTE,
  EXIT,
  exitCodeOf,
  type Summary,
  verdictLine,
} from '../report/summary.ts';
import { EMBEDDED } from '../runtime/run-config.ts';
import { follow as followTraffic } from '../traffic/follow.ts';
import { CAPTURE_FORMATS, type CaptureFormat } from '../traffic/formats.ts';
import { checkTraffic, MAX_THREADS, MIN_CANARY_CHARS } from '../traffic/judge.ts';
import { parseShard } from '../traffic/shard.ts';
import { planBillable } from './billable-plan.ts';
import { startEmbedded } from './embedded.ts';
import {
  didYouMean,
  durationMs,
  npmTookFlags,
  parseArgsOptions,
  parseRunFlags,
  SUBCOMMAND_FLAGS,
  USAGE,
  wholeNumber,
} from './options.ts';
import { loadPrices } from './prices-file.ts';
import { runConformance, stopActiveRun } from './run.ts';
import { checkSuiteFiles } from './selection.ts';

/** Every line the CLI prints goes through the console guard (src/report/neutral.ts). */
const say = (s: string) => console.log(consoleText(s));
const warn = (s: string) => console.error(consoleText(s));

/** A subcommand's flags and positionals; a bad flag is a usage error naming the subcommand. */
function parseSubcommand(
  name: string,
  argv: string[],
  options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>,
): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args: argv, strict: true, allowPositionals: true, options });
  } catch (err) {
    throw new UsageError(
      `${name}: ${didYouMean((err as Error).message.split('\n')[0]!, Object.keys(options))} (see --help)`,
    );
  }
}

/**
 * `merge --report-dir OUT DIR...`, `verify DIR` and `compare --report-dir OUT DIR...`: work on finished
 * reports, no target needed.
 */
async function subcommand(name: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseSubcommand(name, argv, {
    ...parseArgsOptions(['report-dir', 'quiet', 'help', 'sign-key']),
    'public-key': { type: SUBCOMMAND_FLAGS['public-key'].type },
  });
  if (values.help) {
    say(USAGE);
    return EXIT.passed;
  }
  if (name === 'verify') {
    if (positionals.length !== 1) throw new UsageError('verify: name one report directory (a bundle)');
    if (values['sign-key'] !== undefined)
      throw new UsageError('verify: --sign-key belongs to a run or merge');
    const key = values['public-key'];
    const v = verifyBundle(positionals[0]!, typeof key === 'string' ? loadPublicKey(key) : undefined);
    for (const line of v.lines) say(line);
    return v.certified ? EXIT.passed : EXIT.failed;
  }
  const out = values['report-dir'];
  if (typeof out !== 'string') throw new UsageError(`${name}: --report-dir OUT is required`);
  if (name === 'compare') {
    if (values['sign-key'] !== undefined || values['public-key'] !== undefined)
      throw new UsageError('compare: --sign-key and --public-key belong to a run, merge and verify');
    const side = compareTargets(positionals, out);
    say(
      `${positionals.length} targets side by side: ${side.differing} of ${side.requirements} requirements differ (${join(out, COMPARE_HTML)}, ${join(out, COMPARE_MD)})`,
    );
    return EXIT.passed;
  }
  if (values['public-key'] !== undefined) throw new UsageError('merge: --public-key belongs to verify');
  const signKey = values['sign-key'];
  const summary = mergeReports(
    positionals,
    out,
    typeof signKey === 'string' ? loadSigningKey(signKey) : undefined,
  );
  const stepSummary = appendStepSummary(out);
  if (stepSummary) warn(stepSummary);
  const c = summary.counts;
  say(
    `${c.passed} passed, ${c.failed} failed, ${c.advisory} advisory, ${c.not_run} not run, ${c.harness_error} harness errors (shards ${summary.shards?.join(', ')}; report ${out})`,
  );
  say(summary.capture ? captureVerdictLine(summary) : verdictLine(summary));
  return exitCodeOf(summary);
}

/**
 * `check-traffic [--description FILE] [--report-dir DIR] [--strict] [--quiet] [--format F] [--shard I/N]
 * FILE...`: judge captures; `check-traffic --follow LOG [--window DURATION]`: judge a log as it grows.
 */
async function trafficCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseSubcommand('check-traffic', argv, {
    ...parseArgsOptions(['report-dir', 'quiet', 'strict', 'help', 'shard']),
    description: { type: SUBCOMMAND_FLAGS.description.type },
    format: { type: SUBCOMMAND_FLAGS.format.type },
    follow: { type: SUBCOMMAND_FLAGS.follow.type },
    window: { type: SUBCOMMAND_FLAGS.window.type },
    threads: { type: SUBCOMMAND_FLAGS.threads.type },
    canary: { type: SUBCOMMAND_FLAGS.canary.type, multiple: SUBCOMMAND_FLAGS.canary.multiple },
  });
  if (values.help) {
    console.log(USAGE);
    return EXIT.passed;
  }
  const format = values.format;
  if (typeof format === 'string' && !(CAPTURE_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format: '${format}' is not one of ${CAPTURE_FORMATS.join(', ')}`);
  if (typeof values.shard === 'string') parseShard(values.shard);
  const threads =
    typeof values.threads === 'string' ? wholeNumber('--threads', 0, MAX_THREADS)(values.threads) : undefined;
  const opts = {
    files: positionals,
    ...(typeof values['report-dir'] === 'string' ? { reportDir: values['report-dir'] } : {}),
    ...(typeof values.description === 'string' ? { description: values.description } : {}),
    ...(typeof format === 'string' ? { format: format as CaptureFormat } : {}),
    strict: values.strict === true,
    quiet: values.quiet === true,
    ...(Array.isArray(values.canary) ? { canaries: canaries(values.canary) } : {}),
  };
  // A report directory with a file on its way is said before a capture is read (a large one takes
  // minutes); it is made only once there is a report (a capture that cannot be read leaves none).
  if (opts.reportDir !== undefined) missingDirs(opts.reportDir);
  if (typeof values.follow === 'string') {
    if (positionals.length > 0 || values.shard !== undefined)
      throw new UsageError('check-traffic --follow: follows one log, named by --follow; no FILE, no --shard');
    if (threads !== undefined)
      throw new UsageError('check-traffic --follow: judges in one thread; no --threads');
    if (format === 'har') throw new UsageError('check-traffic --follow: follows an NDJSON log, not HAR');
    const windowMs =
      typeof values.window === 'string' ? durationMs('--window', values.window, 7 * 24) : undefined;
    return (await followTraffic({ ...opts, files: [values.follow], ...(windowMs ? { windowMs } : {}) }))
      .exitCode;
  }
  if (values.window !== undefined) throw new UsageError('check-traffic: --window belongs to --follow');
  const result = await checkTraffic({
    ...opts,
    ...(typeof values.shard === 'string' ? { shard: values.shard } : {}),
    ...(threads !== undefined ? { threads } : {}),
  });
  return result.exitCode;
}

/**
 * --canary values: each a string no reply may hold (judging.md: "a canary value the target config declares
 * ... appearing anywhere in a response is a failure"), at least 4 characters as targets.yaml's `canaries`.
 */
function canaries(values: ReadonlyArray<string | boolean>): string[] {
  const out = values.filter((v): v is string => typeof v === 'string');
  const short = out.find((v) => v.length < MIN_CANARY_CHARS);
  if (short !== undefined)
    throw new UsageError(
      `--canary: ${JSON.stringify(short)} is shorter than ${MIN_CANARY_CHARS} characters (it would match ordinary text)`,
    );
  return out;
}

export async function main(argv: string[]): Promise<number> {
  // --deadline counts from here: the preflight, the embedded reference's start and every wait included.
  const startedAt = Date.now();
  if (argv[0] === 'merge' || argv[0] === 'verify' || argv[0] === 'compare')
    return subcommand(argv[0], argv.slice(1));
  if (argv[0] === 'check-traffic') return trafficCommand(argv.slice(1));
  npmTookFlags(process.env);
  const { target: flags, run, command } = parseRunFlags(argv);
  if (command.help) {
    say(USAGE);
    return EXIT.passed;
  }
  if (command.version) {
    say(SUITE_VERSION);
    return EXIT.passed;
  }
  let target = resolveTarget(flags);
  // Bad input fails before anything starts.
  if (run.expectationsFile !== undefined) loadExpectations(run.expectationsFile);
  // A --suite that names no file is refused before the embedded reference starts (--filter needs the
  // suite's titles, collected in the run, which then removes the report directory it made).
  if (run.files?.length) checkSuiteFiles(run.files);
  const prices = run.pricesFile !== undefined ? loadPrices(run.pricesFile) : undefined;
  const quiet = run.quiet === true;
  let stop: (() => Promise<void>) | undefined;
  if (target.embedded) {
    // Loopback and in memory: the embedded reference takes more tests at once than a real target's default.
    const started = await startEmbedded(
      flags.concurrency === undefined ? { ...target, concurrency: EMBEDDED.concurrency } : target,
    );
    target = started.target;
    stop = started.stop;
    if (!quiet) say(`${EMBEDDED_NOTE} (${target.baseUrl})`);
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
      warn(`gateway-conformance: ${signal}: stopping after cleanup (again to stop at once)`);
      return;
    }
    warn(`gateway-conformance: ${signal}: stopping at once`);
    process.exit(EXIT.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runConformance({
      ...run,
      target,
      ...(run.deadlineMs !== undefined ? { startedAt } : {}),
      ...(run.dryRun
        ? {
            planBillable: (s: Pick<Summary, 'tests' | 'profile'>, dir: string) =>
              planBillable(
                s,
                dir,
                target,
                prices && run.pricesFile ? { file: run.pricesFile, list: prices } : undefined,
              ),
          }
        : {}),
    });
    if (quiet) say(verdictLine(result.summary));
    return result.exitCode;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stop?.();
  }
}

/** Signals this close to the first one are the same request to stop (a group signal npm also forwards). */
const SAME_SIGNAL_MS = 500;

/** The CLI on these arguments: its exit code, with a usage or internal error said on stderr. */
export async function runArgs(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      warn(`gateway-conformance: ${err.message}`);
      return EXIT.usage;
    }
    warn(`gateway-conformance: internal error: ${(err as Error)?.message ?? String(err)}`);
    if (process.env.CONFORMANCE_DEBUG) warn((err as Error)?.stack ?? '');
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
