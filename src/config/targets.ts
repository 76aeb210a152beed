import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { UsageError } from '../errors.ts';
import { pkgPath } from '../paths.ts';

import { EFFECTS, type Effect, HINTS, type Hint, ROLES, type Role } from '../vocabulary.ts';

import { yaml } from '../yaml-cache.ts';

import { checkSettingsWithoutUrl, checkUnknownVariables, closest } from './env.ts';
import { targetsFileSchema } from './schema.ts';

export interface TargetConfig {
  name: string;
  /** `embedded` starts the reference server on a free loopback port. */
  baseUrl: string;
  embedded: boolean;
  /** role -> NAME of the environment variable that holds the key (never the key itself). */
  keys: Partial<Record<Role, string>>;
  allow: Effect[];
  models: Partial<Record<Hint, string>>;
  capabilities: string[];
  canaries: string[];
  timeouts: { requestMs: number; testMs: number; streamMs: number };
  /**
   * `default`: no test_ms was given, so testMs follows the media polling (defaultTestMs); absent (older
   * configs, tests) counts as set.
   */
  testMsSource?: 'file' | 'default';
  concurrency: number;
  /**
   * Where `concurrency` came from: `default` on a URL target means adaptive (see concurrencyPlan);
   * absent (older configs, tests) counts as set.
   */
  concurrencySource?: 'flag' | 'file' | 'default';
  media: { pollIntervalMs: number; pollCap: number };
  /**
   * How a request that is not safe to repeat (a POST without an Idempotency-Key) is sent: `fresh`, on a
   * connection of its own (absent: the default of every target from targets.yaml or flags, whose proxy or
   * load balancer may close an idle kept-alive connection as it is reused: src/http/client.ts
   * oneShotAgent); `pooled`, over the kept-alive connections like any other (the embedded reference
   * alone: in this process over loopback, nothing between, and it closes no idle connection before the
   * 72 s it announces). A repeat after a connection failure goes on a fresh connection either way.
   */
  unrepeatable?: 'fresh' | 'pooled';
  limits: Record<string, string | number>;
  sharedAccount: boolean;
  /** The points billable work may spend (a decimal string; null: no budget) and where that came from. */
  budget: { points: string | null; source: BudgetSource };
}

export type BudgetSource = '--budget-points' | 'CONFORMANCE_BUDGET_POINTS' | 'targets file' | 'default';

/**
 * The default budget of a real target when billable work is allowed and no budget is given. Why 100:
 * a tenth of the 1,000 points a new personal account gets, so that a first run on a real account can
 * never spend most of it. It does not buy a whole `standard` run (about 245 points at the reference's
 * flat prices, about 515 at prices scaled by duration, resolution and size: bench/README.md): within it
 * what judges most per point is bought first (runtime/budget.ts admission), the rest is not run for budget and the verdict
 * is INCOMPLETE, which the first lines and `--dry-run` (the plan's points beside the budget) say.
 * The embedded reference has none.
 */
export const DEFAULT_BUDGET_POINTS = '100';

/**
 * A budget as given: a non-negative decimal number of points, or `unlimited` (no budget). Anything else
 * is a usage error saying what is wrong.
 */
export function parseBudget(value: string, source: string): string | null {
  const v = value.trim();
  if (v === 'unlimited') return null;
  if (/^(0|[1-9]\d*)(\.\d+)?$/.test(v)) return v;
  if (/^-\s*\d+(\.\d+)?$/.test(v))
    throw new UsageError(
      `${source}: '${value}' is negative; give 0 (free tests only), a positive number of points, or unlimited`,
    );
  throw new UsageError(
    `${source}: '${value}' is not a number of points; give 0 (free tests only), a positive decimal such as 100 or 12.5, or unlimited`,
  );
}

export interface TargetFlags {
  target?: string;
  targets?: string;
  baseUrl?: string;
  allow?: string;
  concurrency?: number;
  /** As given on the command line (validated here, with the other sources). */
  budgetPoints?: string;
}

const DEFAULTS = {
  timeouts: { requestMs: 30_000, testMs: 300_000 },
  concurrency: 4,
  media: { pollIntervalMs: 5_000, pollCap: 120 },
};

/** What a test that waits for a media job keeps beyond the poll window: its cleanup bound and its own requests. */
const POLL_WINDOW_MARGIN_MS = 120_000;

/**
 * A test's timeout where none is given: long enough for the whole poll window ("image jobs take seconds
 * to a minute and video jobs minutes"; the contract's client polls every 5 s up to 1440 times), else a
 * job still running when the test's time ran out would be not run at the defaults (5 s x 120 = 10 min of
 * polls against 5 min of test): at least DEFAULTS' 300 s, else the poll window and its margin. The
 * embedded reference keeps 300 s (its jobs take seconds).
 */
export const defaultTestMs = (
  media: { pollIntervalMs: number; pollCap: number },
  embedded = false,
): number =>
  embedded
    ? DEFAULTS.timeouts.testMs
    : Math.max(DEFAULTS.timeouts.testMs, media.pollIntervalMs * media.pollCap + POLL_WINDOW_MARGIN_MS);

interface RawTarget {
  name: string;
  base_url: string;
  keys?: Record<string, string>;
  allow?: 'all' | Effect[];
  models?: Record<string, string>;
  capabilities?: string[];
  canaries?: string[];
  timeouts?: { request_ms?: number; test_ms?: number; stream_ms?: number };
  concurrency?: number;
  media?: { poll_interval_ms?: number; poll_cap?: number };
  limits?: Record<string, string | number>;
  shared_account?: boolean;
  budget_points?: number | string;
}

let validateFile: ValidateFunction | undefined;
/**
 * The targets-file validator, compiled on first use: every test worker imports this module (for the
 * environment names of roles and hints) and never reads a targets file.
 */
function fileValidator(): ValidateFunction {
  // The schema is ours, checked against its meta-schema once by test/unit/fixtures.test.ts, not at every start.
  validateFile ??= new Ajv({ allErrors: true, strict: false, verbose: true, validateSchema: false }).compile(
    targetsFileSchema,
  );
  return validateFile;
}

function describeError(e: ErrorObject): string {
  const custom = (e.parentSchema as { errorMessage?: string } | undefined)?.errorMessage;
  if (e.keyword === 'pattern' && custom) return custom;
  if (e.keyword === 'additionalProperties') {
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const near = closest(key, known);
    return `unknown setting '${key}'${near ? ` (did you mean '${near}'?)` : ''}`;
  }
  if (e.keyword === 'const')
    return `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
  if (e.keyword === 'type')
    return `must be ${e.params.type === 'array' ? 'a list' : `a${/^[aeiou]/.test(String(e.params.type)) ? 'n' : ''} ${e.params.type}`}`;
  if (e.keyword === 'enum') {
    return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  }
  return e.message ?? e.keyword;
}

/** Parse and validate a targets file; errors name the file, the line and the path of the bad value. */
export function loadTargetsFile(file: string): RawTarget[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${file}: cannot read the targets file (${(err as NodeJS.ErrnoException).code})`);
  }
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const pos = lineCounter.linePos(e.pos[0]);
    throw new UsageError(`${file}: line ${pos.line}: not valid YAML: ${e.message.split('\n')[0]}`);
  }
  const data = doc.toJS() as unknown;
  const validate = fileValidator();
  if (!validate(data)) {
    // Anchor each error to the closest node that exists in the document to report a line.
    // The most specific error wins: an anyOf branch's complaint about the parent is noise when a
    // deeper error says what is wrong; errors at one path (the branches of an anyOf) are joined with 'or'.
    const all = (validate.errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'if');
    const byPath = new Map<string, string[]>();
    const noise = (e: ErrorObject) =>
      e.schemaPath.includes('/anyOf/') && all.some((o) => o.instancePath.startsWith(`${e.instancePath}/`));
    for (const e of all.filter((e) => !noise(e))) {
      const msgs = byPath.get(e.instancePath) ?? [];
      if (!msgs.includes(describeError(e))) msgs.push(describeError(e));
      byPath.set(e.instancePath, msgs);
    }
    // An unknown key is reported at its own line, not at the start of the map (a list item) holding it.
    const unknownKeyAt = new Map<string, string>();
    for (const e of all)
      if (e.keyword === 'additionalProperties')
        unknownKeyAt.set(e.instancePath, (e.params as { additionalProperty: string }).additionalProperty);
    const lines = [...byPath].map(([instancePath, msgs]) => {
      const path = instancePath.split('/').slice(1).map(decodePointer);
      const unknownKey = unknownKeyAt.get(instancePath);
      const map = doc.getIn(path, true) as { items?: Array<{ key?: { value?: unknown; range?: unknown } }> };
      const keyNode =
        unknownKey === undefined ? undefined : map?.items?.find((p) => p.key?.value === unknownKey)?.key;
      let node: unknown = keyNode ?? doc.getIn(path, true);
      for (let n = path.length; !node && n > 0; n--) node = doc.getIn(path.slice(0, n - 1), true);
      const range = (node as { range?: [number, number] } | undefined)?.range;
      const line = range ? `line ${lineCounter.linePos(range[0]).line}, ` : '';
      return `${file}: ${line}${instancePath || '/'}: ${msgs.join(' or ')}`;
    });
    throw new UsageError(lines.slice(0, 8).join('\n'));
  }
  const targets = (data as { targets: RawTarget[] }).targets;
  const names = new Set<string>();
  for (const [i, t] of targets.entries()) {
    if (names.has(t.name)) {
      const node = doc.getIn(['targets', i, 'name'], true) as { range?: [number, number] } | undefined;
      const line = node?.range ? `line ${lineCounter.linePos(node.range[0]).line}, ` : '';
      throw new UsageError(`${file}: ${line}/targets/${i}/name: duplicate target name '${t.name}'`);
    }
    names.add(t.name);
  }
  return targets;
}

function decodePointer(segment: string): string | number {
  const s = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(s) ? Number(s) : s;
}

export function parseAllow(value: string, source: string): Effect[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 1 && items[0] === 'all') return [...EFFECTS];
  const bad = items.filter((i) => !(EFFECTS as readonly string[]).includes(i));
  if (bad.length > 0 || items.length === 0) {
    throw new UsageError(
      `${source}: unknown side-effect class '${bad.join(', ') || value}' (use a comma-separated list of ${EFFECTS.join(', ')}, or all)`,
    );
  }
  return items as Effect[];
}

export const envRoleName = (role: Role) => `CONFORMANCE_KEY_${role.toUpperCase()}`;
export const envHintName = (hint: Hint) => `CONFORMANCE_MODEL_${hint.toUpperCase()}`;

function fromRaw(raw: RawTarget): TargetConfig {
  const embedded = raw.base_url === 'embedded';
  const media = {
    pollIntervalMs: raw.media?.poll_interval_ms ?? DEFAULTS.media.pollIntervalMs,
    pollCap: raw.media?.poll_cap ?? DEFAULTS.media.pollCap,
  };
  return {
    name: raw.name,
    baseUrl: raw.base_url.replace(/\/+$/, ''),
    embedded,
    keys: { ...(raw.keys as Partial<Record<Role, string>>) },
    // Why read-only by default: a real deployment must opt in to anything with side effects.
    allow: raw.allow === 'all' ? [...EFFECTS] : (raw.allow ?? (embedded ? [...EFFECTS] : ['read'])),
    models: { ...(raw.models as Partial<Record<Hint, string>>) },
    capabilities: raw.capabilities ?? [],
    canaries: raw.canaries ?? [],
    timeouts: {
      requestMs: raw.timeouts?.request_ms ?? DEFAULTS.timeouts.requestMs,
      testMs: raw.timeouts?.test_ms ?? defaultTestMs(media, embedded),
      // A stream that never ends is a failure after this long (default: the request timeout).
      streamMs: raw.timeouts?.stream_ms ?? raw.timeouts?.request_ms ?? DEFAULTS.timeouts.requestMs,
    },
    testMsSource: raw.timeouts?.test_ms === undefined ? 'default' : 'file',
    concurrency: raw.concurrency ?? DEFAULTS.concurrency,
    concurrencySource: raw.concurrency === undefined ? 'default' : 'file',
    media,
    limits: raw.limits ?? {},
    sharedAccount: raw.shared_account ?? false,
    budget:
      raw.budget_points !== undefined
        ? {
            points: parseBudget(String(raw.budget_points), `target '${raw.name}': budget_points`),
            source: 'targets file',
          }
        : { points: embedded ? null : DEFAULT_BUDGET_POINTS, source: 'default' },
  };
}

/**
 * Resolve the target of a run. Precedence: flags > environment > targets file > defaults.
 * Secrets never come from the file: it names environment variables, the values stay in the environment.
 */
export function resolveTarget(
  flags: TargetFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): TargetConfig {
  const baseUrl = flags.baseUrl ?? env.CONFORMANCE_BASE_URL;
  let target: TargetConfig;
  if (flags.target || flags.targets) {
    const file = resolveTargetsFile(flags.targets, cwd);
    const all = loadTargetsFile(file);
    const name = flags.target ?? all[0]!.name;
    const raw = all.find((t) => t.name === name);
    if (!raw) {
      throw new UsageError(
        `${file}: no target named '${name}' (targets: ${all.map((t) => t.name).join(', ')})`,
      );
    }
    target = fromRaw(raw);
    if (baseUrl && flags.baseUrl)
      target = { ...target, baseUrl: checkUrl(baseUrl, '--base-url'), embedded: false };
  } else if (baseUrl) {
    const source = flags.baseUrl ? '--base-url' : 'CONFORMANCE_BASE_URL';
    target = fromRaw({ name: nameFromUrl(checkUrl(baseUrl, source)), base_url: checkUrl(baseUrl, source) });
    target.keys.primary = 'CONFORMANCE_API_KEY';
    for (const role of ROLES)
      if (role !== 'primary' && env[envRoleName(role)]) target.keys[role] = envRoleName(role);
  } else {
    // Nothing says which deployment: the embedded reference, only if nothing was configured for one.
    // A misspelled name first: it is the cause (CONFORMANCE_BASEURL leaves the key without a URL).
    checkUnknownVariables(env);
    checkSettingsWithoutUrl(env);
    target = fromRaw({ name: 'embedded', base_url: 'embedded' });
  }
  checkUnknownVariables(env, Object.values(target.keys));
  for (const hint of HINTS) {
    const v = env[envHintName(hint)];
    if (v) target.models[hint] = v;
  }
  if (env.CONFORMANCE_CANARIES) {
    target.canaries = [
      ...target.canaries,
      ...env.CONFORMANCE_CANARIES.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ];
  }
  const pollMs = env.CONFORMANCE_MEDIA_POLL_INTERVAL_MS;
  if (pollMs !== undefined)
    target.media.pollIntervalMs = envInteger(pollMs, 'CONFORMANCE_MEDIA_POLL_INTERVAL_MS', 0, 600_000);
  const pollCap = env.CONFORMANCE_MEDIA_POLL_CAP;
  if (pollCap !== undefined)
    target.media.pollCap = envInteger(pollCap, 'CONFORMANCE_MEDIA_POLL_CAP', 1, 1440);
  // The polling the environment set moves a test's default timeout with it.
  if (target.testMsSource === 'default')
    target.timeouts.testMs = defaultTestMs(target.media, target.embedded);
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith('CONFORMANCE_LIMIT_') && v)
      target.limits[k.slice('CONFORMANCE_LIMIT_'.length).toLowerCase()] = v;
  }
  if (flags.allow !== undefined) target.allow = parseAllow(flags.allow, '--allow');
  else if (env.CONFORMANCE_ALLOW) target.allow = parseAllow(env.CONFORMANCE_ALLOW, 'CONFORMANCE_ALLOW');
  if (flags.concurrency !== undefined) {
    target.concurrency = flags.concurrency;
    target.concurrencySource = 'flag';
  }
  if (flags.budgetPoints !== undefined)
    target.budget = { points: parseBudget(flags.budgetPoints, '--budget-points'), source: '--budget-points' };
  else if (env.CONFORMANCE_BUDGET_POINTS)
    target.budget = {
      points: parseBudget(env.CONFORMANCE_BUDGET_POINTS, 'CONFORMANCE_BUDGET_POINTS'),
      source: 'CONFORMANCE_BUDGET_POINTS',
    };
  if (!target.embedded) {
    if (!target.keys.primary) {
      throw new UsageError(
        `target '${target.name}': no primary key configured (keys.primary names an environment variable)`,
      );
    }
    for (const [role, name] of Object.entries(target.keys)) {
      if (!env[name]) {
        if (role === 'primary') {
          throw new UsageError(
            `target '${target.name}': the primary key's environment variable ${name} is not set`,
          );
        }
        delete target.keys[role as Role];
      }
    }
    isolatedApart(target, env);
  }
  return target;
}

/**
 * The isolated key must be no other role's key: its account is the run's balance checks' alone (two keys
 * of one account cannot be told apart from here; fixtures/roles.yaml says what the role must be).
 */
function isolatedApart(target: TargetConfig, env: NodeJS.ProcessEnv): void {
  const own = target.keys.isolated && env[target.keys.isolated];
  if (!own) return;
  const same = Object.entries(target.keys).find(([role, name]) => role !== 'isolated' && env[name] === own);
  if (same)
    throw new UsageError(
      `target '${target.name}': the isolated key (${target.keys.isolated}) is also the ${same[0]} key (${same[1]}); the isolated role needs a key of an account of its own that nothing else uses`,
    );
}

function envInteger(value: string, name: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${name}: '${value}' is not a whole number from ${min} to ${max}`);
  return n;
}

function resolveTargetsFile(flag: string | undefined, cwd: string): string {
  if (flag) {
    const p = resolve(cwd, flag);
    if (!existsSync(p)) throw new UsageError(`${flag}: no such targets file`);
    return p;
  }
  const local = resolve(cwd, 'targets.yaml');
  return existsSync(local) ? local : pkgPath('targets.yaml');
}

function checkUrl(value: string, source: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new UsageError(`${source}: '${value}' is not a URL (expected http(s)://host[:port][/prefix])`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new UsageError(`${source}: '${value}' must be an http or https URL`);
  }
  return value.replace(/\/+$/, '');
}

function nameFromUrl(url: string): string {
  return new URL(url).host.replace(/[^A-Za-z0-9._-]/g, '_');
}
