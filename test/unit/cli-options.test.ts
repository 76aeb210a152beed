import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAGS, type FlagName, parseRunFlags, USAGE } from '../../src/app/options.ts';
import { closestKnown } from '../../src/config/env.ts';
import { UsageError } from '../../src/errors.ts';

const signKey = join(mkdtempSync(join(tmpdir(), 'gc-sign-')), 'sign.pem');
writeFileSync(signKey, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));

/** A valid value of every flag that takes one, with what it parses to (a new flag needs a row here). */
const VALID: Record<FlagName, [string | undefined, unknown]> = {
  target: ['staging', 'staging'],
  targets: ['t.yaml', 't.yaml'],
  'base-url': ['http://127.0.0.1:9', 'http://127.0.0.1:9'],
  allow: ['read,write', 'read,write'],
  concurrency: ['6', 6],
  strict: [undefined, true],
  seed: ['42', 42],
  path: ['12:0:3@AAB:C', '12:0:3@AAB:C'],
  'property-runs': ['5', 5],
  workers: ['1', 1],
  filter: ['AUTH-00[12]', 'AUTH-00[12]'],
  suite: ['media, auth', ['media', 'auth']],
  'report-dir': ['out', 'out'],
  profile: ['quick', 'quick'],
  'budget-points': ['unlimited', 'unlimited'],
  deadline: ['15m', 900_000],
  shard: ['2/4', '2/4'],
  expectations: ['e.yaml', 'e.yaml'],
  'drift-against': ['previous', 'previous'],
  'compare-with': ['previous', 'previous'],
  'dry-run': [undefined, true],
  quiet: [undefined, true],
  'sign-key': [signKey, signKey],
  help: [undefined, true],
  version: [undefined, true],
  // --- budget ---
  prices: ['reports/ref/summary.json', 'reports/ref/summary.json'],
  har: ['run.har', 'run.har'],
};

/** A value each validated flag refuses. */
const BAD: Partial<Record<FlagName, string>> = {
  concurrency: '-3',
  seed: '1.5',
  path: 'zz',
  'property-runs': '0',
  workers: '0',
  filter: '(',
  suite: ' , ',
  profile: 'fast',
  deadline: '5x',
  shard: '3/2',
  'sign-key': 'no-such-key.pem',
  'compare-with': 'no-such-report-dir',
  har: 'no-such-dir/capture.har',
};

const entries = Object.entries(FLAGS) as Array<[FlagName, (typeof FLAGS)[FlagName]]>;

describe('the CLI options, one table (src/app/options.ts)', () => {
  it.for(entries)('--%s is in --help with its placeholder and help text', ([name, flag]) => {
    const line = `--${name}${'value' in flag ? ` ${flag.value}` : ''}`;
    expect(USAGE).toContain(line);
    for (const h of flag.help) expect(USAGE).toContain(h);
    if ('env' in flag) {
      // The variable it names is one the environment check knows, and the help says so.
      expect(closestKnown(flag.env)).toBe(flag.env);
      expect(flag.help.join(' ')).toContain(flag.env);
    }
  });

  it.for(entries)('--%s parses into its destination', ([name, flag]) => {
    const [raw, value] = VALID[name];
    const parsed = parseRunFlags(raw === undefined ? [`--${name}`] : [`--${name}`, raw]);
    expect((parsed[flag.dest] as Record<string, unknown>)[flag.key]).toEqual(value);
  });

  it.for(entries.filter(([, f]) => 'parse' in f))('--%s refuses a bad value naming the flag', ([name]) => {
    const bad = BAD[name];
    expect(bad, 'a bad value of the flag in BAD').toBeDefined();
    expect(() => parseRunFlags([`--${name}`, bad!])).toThrow(UsageError);
    expect(() => parseRunFlags([`--${name}`, bad!])).toThrow(`--${name}:`);
  });

  it('--help and --version ask for nothing else: other values are not judged', () => {
    expect(parseRunFlags(['--help', '--seed', 'x']).command.help).toBe(true);
    expect(parseRunFlags(['--version', '--concurrency', '0']).command.version).toBe(true);
  });

  it('a misspelled flag says which flag was meant', () => {
    expect(() => parseRunFlags(['--filtr', 'X'])).toThrow(
      /Unknown option '--filtr'.*\(did you mean --filter\?\) \(see --help\)/,
    );
    expect(() => parseRunFlags(['--budget-point', '5'])).toThrow(/did you mean --budget-points\?/);
    expect(() => parseRunFlags(['--zzzzzzzz'])).not.toThrow(/did you mean/);
  });

  it('an unknown flag or a missing value is a usage error pointing at --help', () => {
    expect(() => parseRunFlags(['--nope'])).toThrow(/Unknown option '--nope' \(see --help\)/);
    expect(() => parseRunFlags(['--seed'])).toThrow(UsageError);
  });
});
