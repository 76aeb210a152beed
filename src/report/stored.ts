/**
 * A report directory's summary.json as every reader takes it (merge, compare, verify, --compare-with):
 * read, parsed, and its shape checked where the readers rely on it, so that a file that is
 * not what a run writes (another tool's, cut, hand-edited, from a build whose fields differ) is said with
 * the file and what is wrong, a usage error (exit 2), never an internal error half way through. Why a
 * schema of the parts read and not of the whole Summary: a report of an earlier build, compared with a
 * run now, holds what that build wrote; what no reader needs is not asked of it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { UsageError } from '../errors.ts';
import { reportFile } from '../layout.ts';
import type { StoredSummary } from './summary.ts';

const STRING = { type: 'string' } as const;
const NUMBER = { type: 'number' } as const;
const STRINGS = { type: 'array', items: STRING } as const;
const NUMBERS = { type: 'array', items: NUMBER } as const;

/** A test's record as the readers take it (TestResultRecord). */
const TEST = {
  type: 'object',
  required: ['title', 'ids', 'outcome', 'violations', 'exchanges'],
  properties: {
    title: STRING,
    file: STRING,
    ids: STRINGS,
    outcome: STRING,
    reason: STRING,
    durationMs: NUMBER,
    exchangeCount: NUMBER,
    violations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'message'],
        properties: { id: STRING, message: STRING, pointer: STRING, count: NUMBER, exchangeId: STRING },
      },
    },
    exchanges: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: STRING } } },
    touches: { type: 'array' },
    observed: { type: 'object', additionalProperties: { type: 'array' } },
    accepted: STRINGS,
    beside: {
      type: 'array',
      items: { type: 'object', required: ['key', 'what'], properties: { key: STRING, what: STRING } },
    },
  },
} as const;

const SUMMARY = {
  type: 'object',
  // No `requirements`: a summary written before the rollup was part of it has none (the readers make it).
  required: ['suite', 'target', 'startedAt', 'durationMs', 'openapi', 'verdict', 'counts', 'tests'],
  properties: {
    suite: {
      type: 'object',
      required: ['name', 'version'],
      properties: { name: { const: 'gateway-conformance' }, version: STRING },
    },
    target: {
      type: 'object',
      required: ['name', 'baseUrl', 'embedded'],
      properties: {
        name: STRING,
        baseUrl: STRING,
        embedded: { type: 'boolean' },
        allow: STRINGS,
        roles: { type: 'array' },
        models: { type: 'object' },
      },
    },
    startedAt: STRING,
    durationMs: NUMBER,
    openapi: {
      type: 'object',
      properties: { sha256: STRING, valid: { type: 'boolean' }, errors: STRINGS, tooLarge: STRINGS },
    },
    verdict: STRING,
    counts: { type: 'object', additionalProperties: NUMBER },
    failedRequirements: { type: 'object', additionalProperties: NUMBER },
    advisoryRequirements: { type: 'object', additionalProperties: NUMBER },
    requirements: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['outcome', 'failed'],
        properties: {
          outcome: STRING,
          tests: NUMBERS,
          failed: NUMBERS,
          known: NUMBERS,
          advisory: NUMBERS,
          reasons: STRINGS,
        },
      },
    },
    tests: { type: 'array', items: TEST },
    harnessErrors: STRINGS,
    shard: STRING,
    shards: STRINGS,
    filter: STRING,
    suites: STRINGS,
    interrupted: STRING,
    skippedByClass: { type: 'object', additionalProperties: NUMBER },
    points: {
      type: 'object',
      properties: {
        spent: STRING,
        budget: { type: ['string', 'null'] },
        source: STRING,
        prices: { type: 'object' },
      },
    },
    expectations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['status', 'tests'],
        properties: { status: STRING, tests: STRINGS },
      },
    },
    cut: { type: 'object', properties: { kind: STRING, reason: STRING } },
    capture: {
      type: 'object',
      required: ['files', 'entries', 'entriesRead', 'exchangesJudged', 'notJudged', 'problems'],
      properties: {
        files: STRINGS,
        entries: NUMBER,
        entriesRead: NUMBER,
        exchangesJudged: NUMBER,
        requirementsJudged: NUMBER,
        notJudged: STRINGS,
        problems: STRINGS,
        otherOrigins: { type: 'object', additionalProperties: NUMBER },
        description: STRING,
        holds: {
          type: 'object',
          properties: {
            from: STRING,
            to: STRING,
            credentials: NUMBER,
            endpoints: STRINGS,
            moreEndpoints: NUMBER,
          },
        },
      },
    },
  },
} as const;

let validate: ValidateFunction | undefined;

/**
 * Where and how a report's file is not what the suite writes: ajv's first error, in words (`none`: when
 * ajv gave none). Said alike for a summary and a manifest (bundle.ts).
 */
export function firstError(errors: ErrorObject[] | null | undefined, none = 'not a summary'): string {
  const e = errors?.[0];
  if (!e) return none;
  const at = e.instancePath || '(the top)';
  return `${at} ${e.message ?? 'is not as a run writes it'}${e.keyword === 'const' ? ` (${JSON.stringify(e.params.allowedValue)})` : ''}`;
}

/**
 * The summary of report directory `dir`, or a UsageError naming `who` reads it and what is wrong: no
 * summary.json, not JSON, or not the shape a run of gateway-conformance writes where the readers read it.
 */
export function loadSummary(dir: string, who: string): StoredSummary {
  const file = reportFile(dir, 'summary');
  if (!existsSync(file)) throw new UsageError(`${who}: ${dir} is not a report directory (no summary.json)`);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${who}: ${file} is not valid JSON (${(err as Error).message})`);
  }
  validate ??= new Ajv({ strict: false }).compile(SUMMARY);
  if (!validate(doc))
    throw new UsageError(
      `${who}: ${file} is not a summary.json of gateway-conformance: ${firstError(validate.errors)}`,
    );
  return doc as StoredSummary;
}

/**
 * The summary.json the report writer has just written (write.ts), read back to render the HTML from it:
 * the writer's own file, not a reader's input, so not checked (a run never ends on its own report's shape).
 */
export function readOwnSummary(dir: string): StoredSummary {
  return JSON.parse(readFileSync(reportFile(dir, 'summary'), 'utf8')) as StoredSummary;
}
