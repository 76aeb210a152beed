import { parseArgs } from 'node:util';
import { closest } from '../config/env.ts';
import type { TargetFlags } from '../config/targets.ts';
import { UsageError } from '../errors.ts';
import { SUITE_VERSION } from '../paths.ts';
import { isReportDir } from '../report/layout.ts';
import { loadSigningKey } from '../report/signature.ts';
import { checkHarFile } from '../traffic/har-record.ts';
import { parseShard } from '../traffic/shard.ts';
import { PROFILES, type Profile } from '../vocabulary.ts';
import type { RunOptions } from './run-options.ts';

/** What the run options hold of the command line (their names are RunOptions' own). */
type RunFlags = Required<
  Pick<
    RunOptions,
    | 'strict'
    | 'seed'
    | 'path'
    | 'propertyRuns'
    | 'workers'
    | 'filter'
    | 'files'
    | 'reportDir'
    | 'profile'
    | 'deadlineMs'
    | 'shard'
    | 'expectationsFile'
    | 'driftAgainst'
    | 'compareWith'
    | 'dryRun'
    | 'quiet'
    | 'signKeyFile'
    | 'pricesFile'
    | 'harFile'
  >
>;
/** Every value the command line can give, by where it goes. */
export type CliValues = Required<TargetFlags> & RunFlags & { help: boolean; version: boolean };

type Dest<K extends keyof CliValues> = K extends keyof TargetFlags
  ? 'target'
  : K extends keyof RunFlags
    ? 'run'
    : 'command';

interface FlagOf<K extends keyof CliValues> {
  /** The value's name in TargetFlags, RunOptions or the command's own values. */
  key: K;
  dest: Dest<K>;
  type: CliValues[K] extends boolean ? 'boolean' : 'string';
  /** The value's placeholder in the usage text (`NAME`, `FILE`, ...). */
  value?: string;
  short?: string;
  /** The usage section it is listed under; `end`: on the last line, without help text. */
  section: 'target' | 'run' | 'end';
  /** The help text, line by line as the usage prints it. */
  help: string[];
  /** The environment variable that gives the same setting (resolved in src/config/, flags first). */
  env?: string;
  /** npm has a setting of this name: `npm run conformance --NAME` without `--` is not ours to report. */
  npmSetting?: true;
  /** The value from its text; throws UsageError saying what is wrong. Without: the text itself. */
  parse?: (raw: string) => CliValues[K];
}
export type Flag = { [K in keyof CliValues]: FlagOf<K> }[keyof CliValues];

/** A whole number from min to max, or a usage error naming the flag. */
export function wholeNumber(flag: string, min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`${flag}: '${raw}' is not a whole number from ${min} to ${max}`);
    return n;
  };
}

/** A duration: seconds (`900`), or with a unit (`90s`, `15m`, `1h`). */
function duration(value: string): number {
  return durationMs('--deadline', value, 48);
}

/** A duration in ms from 1 s to `maxHours`, or a usage error naming the flag. */
export function durationMs(flag: string, value: string, maxHours: number): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'] : NaN;
  if (!Number.isFinite(ms) || ms < 1000 || ms > maxHours * 3_600_000)
    throw new UsageError(
      `${flag}: '${value}' is not a duration from 1 s to ${maxHours} h (e.g. 900, 15m, 1h)`,
    );
  return ms;
}

export const FLAGS = {
  target: {
    key: 'target',
    dest: 'target',
    type: 'string',
    value: 'NAME',
    section: 'target',
    help: ['run against the entry NAME of the targets file'],
  },
  targets: {
    key: 'targets',
    dest: 'target',
    type: 'string',
    value: 'FILE',
    section: 'target',
    help: ["the targets file (default ./targets.yaml, else the package's)"],
  },
  'base-url': {
    key: 'baseUrl',
    dest: 'target',
    type: 'string',
    value: 'URL',
    section: 'target',
    env: 'CONFORMANCE_BASE_URL',
    help: [
      'single-target mode (or CONFORMANCE_BASE_URL); primary key from',
      'CONFORMANCE_API_KEY, other roles from CONFORMANCE_KEY_<ROLE>, model hints',
      'from CONFORMANCE_MODEL_<HINT>',
    ],
  },
  allow: {
    key: 'allow',
    dest: 'target',
    type: 'string',
    value: 'LIST',
    section: 'target',
    env: 'CONFORMANCE_ALLOW',
    help: [
      'side-effect classes allowed: read,write,billable,tickets,payments or all',
      '(or CONFORMANCE_ALLOW; a real target without a list: read)',
    ],
  },
  concurrency: {
    key: 'concurrency',
    dest: 'target',
    type: 'string',
    value: 'N',
    section: 'target',
    help: [
      "requests in flight at once (default: the target's; a URL target without one",
      'adapts from 4 to 16; the embedded reference 8)',
    ],
    parse: (raw) => {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1 || n > 64)
        throw new UsageError(`--concurrency: '${raw}' is not a whole number from 1 to 64`);
      return n;
    },
  },
  strict: {
    key: 'strict',
    dest: 'run',
    type: 'boolean',
    section: 'run',
    help: ["implied invariants fail the run (for a service's own release pipeline)"],
  },
  seed: {
    key: 'seed',
    dest: 'run',
    type: 'string',
    value: 'N',
    section: 'run',
    help: ['fast-check seed (every property failure prints the seed that replays it)'],
    parse: wholeNumber('--seed', 0, 2 ** 31 - 1),
  },
  path: {
    key: 'path',
    dest: 'run',
    type: 'string',
    value: 'P',
    section: 'run',
    help: [
      'with --seed (and --filter naming the test), replay exactly the one failing',
      'case of a model-based test whose failure printed this path',
    ],
    parse: (raw) => {
      if (!/^\d+(:\d+)*(@[A-Za-z0-9+/]*:[A-Za-z0-9+/]*)?$/.test(raw))
        throw new UsageError(`--path: '${raw}' is not a path a failure printed (e.g. 12:0:3@AAB:C)`);
      return raw;
    },
  },
  'property-runs': {
    key: 'propertyRuns',
    dest: 'run',
    type: 'string',
    value: 'N',
    section: 'run',
    help: ['runs per property test (default 25)'],
    parse: wholeNumber('--property-runs', 1, 10_000),
  },
  workers: {
    key: 'workers',
    dest: 'run',
    type: 'string',
    value: 'N',
    section: 'run',
    help: [
      'worker threads that run the suite files (default: from the concurrency and the',
      'cores); the concurrency is shared among them, so it is never exceeded',
    ],
    parse: wholeNumber('--workers', 1, 64),
  },
  filter: {
    key: 'filter',
    dest: 'run',
    type: 'string',
    value: 'PATTERN',
    section: 'run',
    help: ['only tests whose title matches PATTERN (a regular expression)'],
    parse: (raw) => {
      try {
        new RegExp(raw);
      } catch {
        throw new UsageError(`--filter: '${raw}' is not a valid regular expression`);
      }
      return raw;
    },
  },
  suite: {
    key: 'files',
    dest: 'run',
    type: 'string',
    value: 'LIST',
    section: 'run',
    help: [
      'only suite files whose path contains one of these comma-separated strings',
      '(e.g. media,auth); the tests of the other files are not collected',
    ],
    parse: (raw) => {
      const files = raw
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (files.length === 0) throw new UsageError('--suite: name at least one suite file or folder');
      return files;
    },
  },
  'report-dir': {
    key: 'reportDir',
    dest: 'run',
    type: 'string',
    value: 'DIR',
    section: 'run',
    help: ['where to write the report (default reports/<target>/<timestamp>/)'],
  },
  profile: {
    key: 'profile',
    dest: 'run',
    type: 'string',
    value: 'NAME',
    section: 'run',
    help: ['quick | standard | thorough: property runs (5/25/100) and scenario depth'],
    parse: (raw) => {
      if (!(PROFILES as readonly string[]).includes(raw))
        throw new UsageError(`--profile: '${raw}' is not one of ${PROFILES.join(', ')}`);
      return raw as Profile;
    },
  },
  'budget-points': {
    key: 'budgetPoints',
    dest: 'target',
    type: 'string',
    value: 'N',
    section: 'run',
    env: 'CONFORMANCE_BUDGET_POINTS',
    help: [
      'the points billable tests may spend (as the target reports them); 0 runs',
      'free tests only; unlimited: no budget. A real target with billable allowed',
      'defaults to 100 (or CONFORMANCE_BUDGET_POINTS, or budget_points in the',
      'targets file); the embedded reference has none. Never more than the primary',
      "account's available points (read before the run)",
    ],
  },
  deadline: {
    key: 'deadlineMs',
    dest: 'run',
    type: 'string',
    value: 'DURATION',
    section: 'run',
    help: [
      'stop starting tests and requests DURATION after the command started (e.g.',
      '900, 15m, 1h; the preflight and every wait included); running tests end at',
      'their next request, cleanups still run; the verdict is INCOMPLETE (exit 4)',
    ],
    parse: duration,
  },
  shard: {
    key: 'shard',
    dest: 'run',
    type: 'string',
    value: 'I/N',
    section: 'run',
    help: ["run the I-th of N shards (combine them with 'merge')"],
    parse: (raw) => {
      parseShard(raw);
      return raw;
    },
  },
  expectations: {
    key: 'expectationsFile',
    dest: 'run',
    type: 'string',
    value: 'FILE',
    section: 'run',
    help: ["the target's known failures (id, reason, expires; see docs/verdicts.md)"],
  },
  'drift-against': {
    key: 'driftAgainst',
    dest: 'run',
    type: 'string',
    value: 'FILE',
    section: 'run',
    help: [
      "diff the live /openapi.json against FILE, or 'previous' (the newest other",
      'report beside this one, e.g. reports/<target>/*)',
    ],
  },
  'compare-with': {
    key: 'compareWith',
    dest: 'run',
    type: 'string',
    value: 'DIR',
    section: 'run',
    help: [
      "what changed since the report in DIR, or 'previous' (the newest other report",
      'of the same target beside this one): newly failing, fixed, newly not run,',
      'newly judged, slower operations',
    ],
    parse: (raw) => {
      if (raw !== 'previous' && !isReportDir(raw))
        throw new UsageError(
          `--compare-with: ${raw} is not a report directory (no summary.json); or use 'previous'`,
        );
      return raw;
    },
  },
  'dry-run': {
    key: 'dryRun',
    dest: 'run',
    type: 'boolean',
    section: 'run',
    help: ['the plan: which tests would run or not and why; sends no request'],
  },
  'sign-key': {
    key: 'signKeyFile',
    dest: 'run',
    type: 'string',
    value: 'FILE',
    section: 'run',
    help: [
      "sign the report's manifest with the Ed25519 private key in FILE (PEM; e.g. a",
      'CI secret): `verify --public-key` then proves the bundle unchanged since the run',
    ],
    parse: (raw) => {
      loadSigningKey(raw);
      return raw;
    },
  },
  quiet: {
    key: 'quiet',
    dest: 'run',
    type: 'boolean',
    section: 'run',
    npmSetting: true,
    help: ['print only the verdict line'],
  },
  help: {
    key: 'help',
    dest: 'command',
    type: 'boolean',
    short: 'h',
    section: 'end',
    help: [],
    npmSetting: true,
  },
  version: { key: 'version', dest: 'command', type: 'boolean', section: 'end', help: [], npmSetting: true },
  // --- budget ---
  prices: {
    key: 'pricesFile',
    dest: 'run',
    type: 'string',
    value: 'FILE',
    section: 'run',
    help: [
      "the media prices to plan at: a previous run's report directory or its",
      "summary.json (the prices it learned), or a YAML file 'prices: {MODEL: POINTS",
      "| {points: P, per_second: S}}'. With --dry-run the plan is priced at them; a",
      'billable run says first what the plan costs at them and predicts from them',
    ],
  },
  har: {
    key: 'harFile',
    dest: 'run',
    type: 'string',
    value: 'FILE',
    section: 'run',
    help: [
      "write the run's own traffic to FILE as a HAR 1.2 capture (credentials and configured",
      'secrets redacted): check-traffic FILE judges it again with no request sent',
    ],
    parse: (raw) => {
      checkHarFile(raw);
      return raw;
    },
  },
} as const satisfies Record<string, Flag>;

/**
 * Flags only a subcommand takes; its other flags are the run's (FLAGS), by name. --public-key is verify's
 * own: the key that checks a signature, never a run's setting.
 */
export const SUBCOMMAND_FLAGS = {
  'public-key': { type: 'string', subcommand: 'verify' },
  description: { type: 'string', subcommand: 'check-traffic' },
  format: { type: 'string', subcommand: 'check-traffic' },
  follow: { type: 'string', subcommand: 'check-traffic' },
  window: { type: 'string', subcommand: 'check-traffic' },
  threads: { type: 'string', subcommand: 'check-traffic' },
  canary: { type: 'string', subcommand: 'check-traffic', multiple: true },
} as const satisfies Record<string, { type: 'string' | 'boolean'; subcommand: string; multiple?: true }>;

export type FlagName = keyof typeof FLAGS;
const entries = Object.entries(FLAGS) as Array<[FlagName, Flag]>;

/** node:util parseArgs options of some flags of the table. */
export function parseArgsOptions(names: readonly FlagName[] = entries.map(([n]) => n)) {
  return Object.fromEntries(
    names.map((n) => {
      const f: Flag = FLAGS[n];
      return [n, { type: f.type, ...(f.short ? { short: f.short } : {}) }];
    }),
  ) as Record<FlagName, { type: 'string' | 'boolean'; short?: string }>;
}

/** The flags of one usage section, as the usage prints them. */
function sectionLines(section: Flag['section']): string {
  const flags = entries.filter(([, f]) => f.section === section);
  if (section === 'end') return `  ${flags.map(([n]) => `--${n}`).join(', ')}`;
  return flags
    .map(([n, f]) => {
      const left = `--${n}${f.value ? ` ${f.value}` : ''}`;
      return [
        `  ${left.padEnd(23)}${f.help[0] ?? ''}`,
        ...f.help.slice(1).map((h) => `${' '.repeat(25)}${h}`),
      ].join('\n');
    })
    .join('\n');
}

export const USAGE = `gateway-conformance ${SUITE_VERSION}: contract-conformance suite for the customer API

Usage: gateway-conformance [options]                  run the suite
       gateway-conformance merge --report-dir OUT DIR...  combine the reports of --shard runs
       gateway-conformance compare --report-dir OUT DIR...  several targets' reports side by side
                                                          (compare.html, compare.md)
       gateway-conformance verify [--public-key FILE] DIR  check a report (bundle): files, digests,
                                                          the manifest's signature (with the public
                                                          key of --sign-key), completeness; exit 0
                                                          only if certified
       gateway-conformance check-traffic [--description FILE] [--report-dir DIR] [--strict] [--quiet]
                           [--format har|ndjson|gateway] [--shard I/N] [--threads N]
                           [--canary VALUE]... FILE...
                                                          judge captured traffic (HAR 1.2, the suite's
                                                          exchanges.ndjson or a gateway log), no request
                                                          sent; exit 2 only when nothing could be read;
                                                          --threads: judging threads beside the reader
                                                          (0 to 4; default: one fewer than the cores for
                                                          16 MiB of HAR or more, none below); --canary: a
                                                          value no reply may hold (SEC-001), repeatable
       gateway-conformance check-traffic --follow LOG.ndjson [--window DURATION] [...]
                                                          judge a log as it grows, each finding printed
                                                          when it happens; SIGINT/SIGTERM writes the
                                                          report (INCOMPLETE 4, or FAILED 1)

Target (flags > environment > targets file > defaults; nothing configured, or --target embedded: the
embedded reference server)
${sectionLines('target')}

Run
${sectionLines('run')}
${sectionLines('end')}

Verdicts and exit codes: PASSED 0 (every test of the plan ran and passed); PARTIAL 0 (a selection:
--filter, --suite, --shard); FAILED 1 (a check failed); INCOMPLETE 4 (cut short: deadline, budget,
balance, a dead target) or 130 (stopped by a signal); 2 usage or configuration error (also: a selection
that matches nothing, an unknown CONFORMANCE_* variable, a key without a base URL), target unreachable
or primary key refused; 3 harness error (a fault of the suite, not of the target).`;

/**
 * `--budget-points -1`, `--concurrency -3` as one option with its value: node's parseArgs takes a value
 * starting with a dash for another option ("argument is ambiguous"), so a negative number would never
 * reach the check that says what is wrong with it.
 */
function negativeValues(argv: string[]): string[] {
  const out: string[] = [];
  const takesValue = (arg: string) =>
    arg.startsWith('--') && (FLAGS as Record<string, Flag>)[arg.slice(2)]?.type === 'string';
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (takesValue(argv[i]!) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]!);
  }
  return out;
}

/**
 * `npm run conformance --filter X` (no `--`): npm takes the flags for its own configuration (it sets
 * npm_config_filter=true for the script and passes X on as a bare argument), so the suite would run
 * without them. Said in the user's words instead of "Unexpected argument 'X'". Only under our own
 * npm script, and only for names of our flags that npm has no setting of its own for.
 */
export function npmTookFlags(env: NodeJS.ProcessEnv): void {
  if (env.npm_lifecycle_event !== 'conformance') return;
  const taken = entries
    .filter(([, f]) => !f.npmSetting)
    .map(([name]) => name)
    .filter((name) => env[`npm_config_${name.replaceAll('-', '_')}`])
    .map((name) => `--${name}`);
  if (taken.length === 0) return;
  throw new UsageError(
    `npm took ${taken.join(', ')} for its own options, so the suite never saw ${taken.length > 1 ? 'them' : 'it'}: put -- before the suite's flags, e.g. npm run conformance -- ${taken[0]} ...`,
  );
}

/** parseArgs' "Unknown option '--filtr'" with the flag that was probably meant. */
export function didYouMean(message: string, names: readonly string[] = entries.map(([n]) => n)): string {
  const m = /^Unknown option '--([^'=]+)'/.exec(message);
  const near = m ? closest(m[1]!, names) : undefined;
  return near ? `${message} (did you mean --${near}?)` : message;
}

/** The command line split by where its values go; each value validated by its flag. */
export interface ParsedFlags {
  target: TargetFlags;
  run: Partial<RunFlags>;
  command: { help: boolean; version: boolean };
}

/**
 * The run command's arguments: parsed by the table (unknown flags refused), then, unless --help or
 * --version asks for nothing else, every value validated and put where it goes.
 */
export function parseRunFlags(argv: string[]): ParsedFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: negativeValues(argv),
      strict: true,
      allowPositionals: false,
      options: parseArgsOptions(),
    }));
  } catch (err) {
    throw new UsageError(`${didYouMean((err as Error).message.split('\n')[0]!)} (see --help)`);
  }
  const out: ParsedFlags = {
    target: {},
    run: {},
    command: { help: values.help === true, version: values.version === true },
  };
  if (out.command.help || out.command.version) return out;
  for (const [name, flag] of entries) {
    const raw = values[name];
    if (raw === undefined || flag.dest === 'command') continue;
    const value = typeof raw === 'string' && flag.parse ? flag.parse(raw) : raw;
    // The table types each key with its destination (Dest<K>): the one place a value is put by name.
    (out[flag.dest] as Record<string, unknown>)[flag.key] = value;
  }
  return out;
}
