/**
 * The CONFORMANCE_* environment a run is given, checked before anything starts: a misspelled name is
 * refused naming the closest known one, and a setting meant for a deployment is refused when no base
 * URL says which deployment (else the run would silently judge the embedded reference server instead).
 */
import { UsageError } from '../errors.ts';
import { HINTS, ROLES, type Role } from '../vocabulary.ts';

const PREFIX = 'CONFORMANCE_';

/** The settings a user gives (docs/options.md lists them). */
const SETTINGS = [
  'CONFORMANCE_BASE_URL',
  'CONFORMANCE_API_KEY',
  'CONFORMANCE_ALLOW',
  'CONFORMANCE_BUDGET_POINTS',
  'CONFORMANCE_CANARIES',
  'CONFORMANCE_MEDIA_POLL_INTERVAL_MS',
  'CONFORMANCE_MEDIA_POLL_CAP',
  ...ROLES.map((r) => `CONFORMANCE_KEY_${r.toUpperCase()}`),
  ...HINTS.map((h) => `CONFORMANCE_MODEL_${h.toUpperCase()}`),
];
/**
 * The contract's path in the repository code scanning analyses (`docs/customer-api.md`), for
 * report.sarif (src/report/sarif.ts): the suite cannot know where a user keeps the copy GitHub shows.
 */
export const SARIF_CONTRACT_ENV = 'CONFORMANCE_SARIF_CONTRACT_URI';
/**
 * Settings of the report, not of a deployment: known, and given with or without a base URL (a run of
 * the embedded reference writes report.sarif too).
 */
const REPORT_SETTINGS = [SARIF_CONTRACT_ENV];

/** Families of settings: any name after the prefix (a limit of the contract). */
const SETTING_PREFIXES = ['CONFORMANCE_LIMIT_'];

/**
 * Variables the harness itself sets or reads for its own use (never a target setting): the run file of
 * the test workers, the embedded reference's keys, debugging aids.
 */
const INTERNAL = [
  'CONFORMANCE_RUN_FILE',
  'CONFORMANCE_DEBUG',
  'CONFORMANCE_STATEFUL_STATS',
  // The embedded target without its isolated key (src/app/embedded.ts), for measurements.
  'CONFORMANCE_EMBEDDED_NO_ISOLATED',
];
const INTERNAL_PREFIXES = ['CONFORMANCE_EMBEDDED_KEY_'];

const isSetting = (name: string) =>
  SETTINGS.includes(name) || SETTING_PREFIXES.some((p) => name.startsWith(p) && name.length > p.length);
const isInternal = (name: string) =>
  INTERNAL.includes(name) || INTERNAL_PREFIXES.some((p) => name.startsWith(p));
const isReportSetting = (name: string) => REPORT_SETTINGS.includes(name);

/** Levenshtein distance (names are short: the quadratic table is fine). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The name of `known` close enough to `name` to be what was meant (a typo), if any. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const k of known) if (best === undefined || editDistance(name, k) < editDistance(name, best)) best = k;
  return best !== undefined && editDistance(name, best) <= Math.max(2, Math.floor(name.length / 3))
    ? best
    : undefined;
}

/** The known name closest to `name`. */
export function closestKnown(name: string, extra: readonly string[] = []): string {
  const known = [...SETTINGS, ...REPORT_SETTINGS, ...SETTING_PREFIXES.map((p) => `${p}<NAME>`), ...extra];
  return known.reduce((best, k) => (editDistance(name, k) < editDistance(name, best) ? k : best));
}

/**
 * Refuse a CONFORMANCE_* variable nobody reads (`referenced`: the names the targets file gives to
 * keys, which are known too), naming the closest known one.
 */
export function checkUnknownVariables(env: NodeJS.ProcessEnv, referenced: readonly string[] = []): void {
  const unknown = Object.keys(env)
    .filter(
      (k) =>
        k.startsWith(PREFIX) &&
        !isSetting(k) &&
        !isReportSetting(k) &&
        !isInternal(k) &&
        !referenced.includes(k),
    )
    .sort();
  if (unknown.length === 0) return;
  const lines = unknown.map((k) => `${k} (did you mean ${closestKnown(k, referenced)}?)`);
  throw new UsageError(
    `unknown environment variable${unknown.length > 1 ? 's' : ''} ${lines.join(', ')}: rename it, or unset it (docs/options.md lists every setting)`,
  );
}

/**
 * Refuse settings for a deployment when no base URL is given: the run would go to the embedded
 * reference server, not to the deployment they were meant for.
 */
export function checkSettingsWithoutUrl(env: NodeJS.ProcessEnv): void {
  const set = Object.keys(env)
    .filter((k) => k.startsWith(PREFIX) && isSetting(k) && env[k])
    .sort();
  if (set.length === 0) return;
  throw new UsageError(
    `${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set but no base URL: the run would judge the embedded reference server, not a deployment. Set CONFORMANCE_BASE_URL (exported: \`export CONFORMANCE_BASE_URL=https://...\`), pass --base-url URL or --target NAME; to run the embedded reference on purpose pass --target embedded`,
  );
}

/**
 * The keys of a run, read from the environment variables the target names (role -> variable name);
 * a variable unset or empty gives no key. The one place keys are read: the run and its workers.
 */
export function keysFromEnv(
  names: Partial<Record<Role, string>>,
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<Role, string>> {
  const keys: Partial<Record<Role, string>> = {};
  for (const [role, name] of Object.entries(names) as Array<[Role, string]>) {
    const value = env[name];
    if (value) keys[role] = value;
  }
  return keys;
}
