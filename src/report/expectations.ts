/**
 * Known failures of one target, each with a reason and an expiry date. A listed failure does not fail
 * the run (its test is reported as `known_failure`); an expired entry fails the run, and so does an
 * entry whose failure no longer happens (the list must never go stale). An entry whose tests did not
 * run this time is reported as unused and judged next time.
 *
 *   expectations:
 *     - id: MJOB-007                 # the requirement id that fails
 *       test: wc-100013              # optional: a regular expression the test's title must match
 *       reason: upstream caps prompts at 2000 bytes (OPS-123)
 *       expires: 2027-01-31          # the last day the entry holds
 *   flaky:
 *     - test: wc-100016              # a regular expression the test's title must match
 *       id: MJOB-007                 # optional: a requirement id the test cites
 *       reason: the upstream LB drops POSTs on reused connections (OPS-456)
 *       expires: 2027-01-31
 *
 * A `flaky:` entry allows its tests to be inconclusive (a connection failed before any byte of a response
 * and the request could not be repeated): such a test stays inconclusive, shown apart, but no longer
 * keeps the run from PASSED. It never covers a failure, and never goes stale (flaky means sometimes);
 * an expired one fails the run like a known failure. `verify` still certifies no inconclusive run.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { catalogue, ID_PATTERN } from '../catalogue.ts';
import { UsageError } from '../errors.ts';
import type { TestResultRecord } from './test-result.ts';

export interface Expectation {
  /** The failing requirement id; for a flaky entry, optional: a requirement id its tests cite. */
  id?: string;
  test?: string;
  reason: string;
  expires: string;
  /** An entry of `flaky:`: a test allowed to be inconclusive, not a known failure. */
  flaky?: true;
}

export interface ExpectationStatus extends Expectation {
  /** matched: a failure it covers happened; expired; stale: its tests ran and passed; unused: they did not run. */
  status: 'matched' | 'expired' | 'stale' | 'unused';
  tests: string[];
}

const flakySchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['test', 'reason', 'expires'],
    properties: {
      id: { type: 'string', pattern: ID_PATTERN.source },
      test: { type: 'string', minLength: 1 },
      reason: { type: 'string', minLength: 3 },
      expires: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    },
  },
} as const;

const schema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    flaky: flakySchema,
    expectations: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'reason', 'expires'],
        properties: {
          id: { type: 'string', pattern: ID_PATTERN.source },
          test: { type: 'string', minLength: 1 },
          reason: { type: 'string', minLength: 3 },
          expires: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        },
      },
    },
  },
} as const;
let compiled: ValidateFunction | undefined;
/** The expectations-file validator, compiled on first use: most runs load no expectations file. */
function validator(): ValidateFunction {
  compiled ??= new Ajv({ allErrors: true }).compile(schema);
  return compiled;
}

export function loadExpectations(file: string): Expectation[] {
  let data: unknown;
  try {
    // The yaml parser would turn an unquoted date into a Date: keep every scalar a string.
    data = parse(readFileSync(file, 'utf8'), { schema: 'failsafe' });
  } catch (err) {
    throw new UsageError(
      `${file}: cannot read the expectations file (${(err as Error).message.split('\n')[0]})`,
    );
  }
  const validate = validator();
  if (!validate(data)) {
    const e = validate.errors?.[0];
    throw new UsageError(
      `${file}: ${e?.instancePath || '/'}: ${e?.message ?? 'invalid'} (an expectations: entry needs id, reason and expires YYYY-MM-DD, test is optional; a flaky: entry needs test, reason and expires, id is optional)`,
    );
  }
  const read = data as { expectations?: Expectation[]; flaky?: Expectation[] };
  const known = catalogue();
  const lists: Array<[string, Expectation[]]> = [
    ['expectations', read.expectations ?? []],
    ['flaky', (read.flaky ?? []).map((e) => ({ ...e, flaky: true as const }))],
  ];
  for (const [key, list] of lists)
    for (const [i, e] of list.entries()) {
      if (e.id !== undefined && !known.has(e.id))
        throw new UsageError(`${file}: /${key}/${i}/id: unknown requirement id ${e.id}`);
      if (Number.isNaN(Date.parse(`${e.expires}T00:00:00Z`)))
        throw new UsageError(`${file}: /${key}/${i}/expires: ${e.expires} is not a date`);
      if (e.test !== undefined) {
        try {
          new RegExp(e.test);
        } catch {
          throw new UsageError(`${file}: /${key}/${i}/test: not a valid regular expression`);
        }
      }
    }
  return lists.flatMap(([, list]) => list);
}

const covers = (e: Expectation, t: TestResultRecord, id: string) =>
  !e.flaky && e.id === id && (e.test === undefined || new RegExp(e.test).test(t.title));

/** A flaky: entry allows an inconclusive test whose title it matches (and which cites its id, if any). */
const allowsInconclusive = (e: Expectation, t: TestResultRecord) =>
  !!e.flaky && (e.id === undefined || t.ids.includes(e.id)) && new RegExp(e.test ?? '').test(t.title);

/**
 * Apply the expectations to a run's tests (in place): a failed test whose every failing requirement a
 * live entry covers becomes `known_failure`. Returns each entry's status; `today` is YYYY-MM-DD (UTC).
 */
export function applyExpectations(
  tests: TestResultRecord[],
  list: Expectation[],
  today = new Date().toISOString().slice(0, 10),
): ExpectationStatus[] {
  const live = list.filter((e) => e.expires >= today);
  const status: ExpectationStatus[] = list.map((e) => ({
    ...e,
    status: e.expires < today ? 'expired' : 'unused',
    tests: [],
  }));
  for (const t of tests) {
    const ran = t.outcome !== 'not_run' && t.outcome !== 'harness_error' && t.outcome !== 'inconclusive';
    if (t.outcome === 'inconclusive') {
      const e = live.find((x) => allowsInconclusive(x, t));
      const s = e && status[list.indexOf(e)];
      if (e && s) {
        s.status = 'matched';
        s.tests.push(t.title);
        t.flaky = `${e.reason} (expires ${e.expires})`;
      }
    }
    for (const s of status)
      if (
        ran &&
        !s.flaky &&
        s.status === 'unused' &&
        s.id !== undefined &&
        t.ids.includes(s.id) &&
        (!s.test || new RegExp(s.test).test(t.title))
      )
        s.status = 'stale';
    if (t.outcome !== 'failed') continue;
    const failing = [...new Set(t.violations.filter((v) => v.severity === 'failure').map((v) => v.id))];
    const entries = failing.map((id) => live.find((e) => covers(e, t, id)));
    for (const e of entries) {
      const s = e && status[list.indexOf(e)];
      if (s) {
        s.status = 'matched';
        s.tests.push(t.title);
      }
    }
    if (failing.length > 0 && entries.every(Boolean)) {
      t.outcome = 'known_failure';
      t.reason = entries.map((e) => `${e!.id}: ${e!.reason} (expires ${e!.expires})`).join('; ');
    }
  }
  return status;
}

/** Records that fail the run for entries that expired or went stale. */
export function expectationFailures(status: ExpectationStatus[], file: string): TestResultRecord[] {
  return status
    .filter((s) => s.status === 'expired' || s.status === 'stale')
    .map((s) => ({
      title: `expectations: ${s.flaky ? 'flaky' : s.id}${s.test ? ` /${s.test}/` : ''} ${s.status === 'expired' ? `expired on ${s.expires}` : 'no longer fails'}`,
      file,
      origin: 'expectations' as const,
      ids: [],
      outcome: 'failed' as const,
      durationMs: 0,
      violations: [
        {
          id: 'EXPECTATIONS',
          level: 'failure' as const,
          severity: 'failure' as const,
          message:
            s.status === 'expired'
              ? `the ${s.flaky ? `flaky entry /${s.test}/` : `known failure ${s.id}`} ("${s.reason}") expired on ${s.expires}: fix it or renew the entry with a new date`
              : `${s.id} ("${s.reason}") was expected to fail but its tests passed: remove the entry from ${file}`,
          count: 1,
        },
      ],
      exchanges: [],
      exchangeCount: 0,
    }));
}
