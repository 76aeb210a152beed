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
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { catalogue, ID_PATTERN } from '../catalogue.ts';
import { UsageError } from '../errors.ts';
import type { TestResultRecord } from './summary.ts';

export interface Expectation {
  id: string;
  test?: string;
  reason: string;
  expires: string;
}

export interface ExpectationStatus extends Expectation {
  /** matched: a failure it covers happened; expired; stale: its tests ran and passed; unused: they did not run. */
  status: 'matched' | 'expired' | 'stale' | 'unused';
  tests: string[];
}

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['expectations'],
  properties: {
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
const validate = new Ajv({ allErrors: true }).compile(schema);

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
  if (!validate(data)) {
    const e = validate.errors?.[0];
    throw new UsageError(
      `${file}: ${e?.instancePath || '/'}: ${e?.message ?? 'invalid'} (each entry needs id, reason and expires YYYY-MM-DD; test is optional)`,
    );
  }
  const list = (data as { expectations: Expectation[] }).expectations;
  const known = catalogue();
  for (const [i, e] of list.entries()) {
    if (!known.has(e.id))
      throw new UsageError(`${file}: /expectations/${i}/id: unknown requirement id ${e.id}`);
    if (Number.isNaN(Date.parse(`${e.expires}T00:00:00Z`)))
      throw new UsageError(`${file}: /expectations/${i}/expires: ${e.expires} is not a date`);
    if (e.test !== undefined) {
      try {
        new RegExp(e.test);
      } catch {
        throw new UsageError(`${file}: /expectations/${i}/test: not a valid regular expression`);
      }
    }
  }
  return list;
}

const covers = (e: Expectation, t: TestResultRecord, id: string) =>
  e.id === id && (e.test === undefined || new RegExp(e.test).test(t.title));

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
    const ran = t.outcome !== 'not_run' && t.outcome !== 'harness_error';
    for (const s of status)
      if (
        ran &&
        s.status === 'unused' &&
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
      title: `expectations: ${s.id}${s.test ? ` /${s.test}/` : ''} ${s.status === 'expired' ? `expired on ${s.expires}` : 'no longer fails'}`,
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
              ? `the known failure ${s.id} ("${s.reason}") expired on ${s.expires}: fix it or renew the entry with a new date`
              : `${s.id} ("${s.reason}") was expected to fail but its tests passed: remove the entry from ${file}`,
          count: 1,
        },
      ],
      exchanges: [],
      exchangeCount: 0,
    }));
}
