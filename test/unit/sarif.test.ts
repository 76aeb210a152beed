// report.sarif (src/report/sarif.ts): a result per failed requirement at its sentence in the contract,
// and an invocation that says what the verdict line says; every document valid against the standard's
// schema (schemas/vendor/sarif-2.1.0.json).
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../src/catalogue.ts';
import { checkSettingsWithoutUrl, checkUnknownVariables, SARIF_CONTRACT_ENV } from '../../src/config/env.ts';
import { CONTRACT_PATH, fold, requirementLines } from '../../src/contract.ts';
import {
  CONTRACT_BASE_ID,
  type ContractLocation,
  contractLocation,
  SRCROOT_BASE_ID,
  sarifLog,
} from '../../src/report/sarif.ts';
import { aggregate, type RunCut, type Summary } from '../../src/report/summary.ts';
import type { TestResultRecord } from '../../src/report/test-result.ts';
import { writeReport } from '../../src/report/write.ts';
import { sarifErrors } from '../support/sarif-schema.ts';

const WORDS = 'Every business endpoint needs `Authorization: Bearer <API_KEY>`.';

function summaryOf(tests: TestResultRecord[], harnessErrors: string[] = [], cut?: RunCut): Summary {
  return {
    suite: { name: 'gateway-conformance', version: '0.1.0' },
    target: {
      name: 't',
      baseUrl: 'http://127.0.0.1:9',
      embedded: false,
      allow: ['read'],
      roles: [],
      models: {},
    },
    strict: false,
    seed: 1,
    startedAt: new Date(0).toISOString(),
    durationMs: 1500,
    openapi: { valid: true, errors: [] },
    ...aggregate(tests, harnessErrors, { cut }),
    exchanges: { file: 'exchanges.ndjson', count: 0 },
    tests,
  };
}

const record = (title: string, extra: Partial<TestResultRecord>): TestResultRecord => ({
  title,
  file: 'suites/auth.test.ts',
  ids: ['AUTH-005'],
  outcome: 'passed',
  durationMs: 1,
  violations: [],
  exchanges: [],
  exchangeCount: 0,
  observed: { 'AUTH-005': [0] },
  ...extra,
});

const failedAuth = record('AUTH-005 a key in the query string is refused', {
  outcome: 'failed',
  violations: [
    {
      id: 'AUTH-005',
      level: 'failure',
      severity: 'failure',
      message: 'GET /v1/models?api_key=… answered 200, expected 401',
      exchangeId: 'e1',
      count: 1,
    },
  ],
  exchanges: [
    {
      id: 'e1',
      startedAt: new Date(0).toISOString(),
      method: 'GET',
      path: '/v1/models?api_key=x',
      requestHeaders: {},
      durationMs: 3,
      status: 200,
    },
  ],
  exchangeCount: 1,
});

/** The contract's place when it is beside the checkout; a made-up one (no lines) where it is not. */
const located = (): ContractLocation => contractLocation({});

describe('report.sarif', () => {
  it('a failed stated requirement is one error at the line of its words in the contract', (ctx) => {
    if (!existsSync(CONTRACT_PATH))
      return ctx.skip('shared/contract/customer-api.md is not beside the checkout');
    expect(catalogue().get('AUTH-005')?.words).toBe(WORDS);
    // Found here without the suite's locator: the first raw line that holds the words.
    const expected =
      readFileSync(CONTRACT_PATH, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(WORDS)) + 1;
    expect(expected).toBeGreaterThan(0);

    const doc = sarifLog(summaryOf([failedAuth]), [], located());
    expect(sarifErrors(doc)).toEqual([]);
    const run = doc.runs[0];
    expect(run.results).toHaveLength(1);
    const [result] = run.results;
    expect(result).toMatchObject({ ruleId: 'AUTH-005', ruleIndex: 0, level: 'error' });
    expect(result!.locations[0]!.physicalLocation).toEqual({
      artifactLocation: { uri: 'customer-api.md', uriBaseId: CONTRACT_BASE_ID },
      region: { startLine: expected },
    });
    expect(result!.message.text).toBe(
      'AUTH-005 failed in 1 test. Endpoints: GET /v1/models. Found: GET /v1/models?api_key=… answered 200, expected 401',
    );
    expect(run.originalUriBaseIds?.[CONTRACT_BASE_ID]?.uri).toBe(
      `${pathToFileURL(join(CONTRACT_PATH, '..')).href}/`,
    );
    expect(run.tool.driver.rules).toEqual([
      expect.objectContaining({
        id: 'AUTH-005',
        shortDescription: { text: WORDS },
        defaultConfiguration: { level: 'error' },
      }),
    ]);
    expect(run.invocations[0]).toMatchObject({ executionSuccessful: true, exitCode: 1 });
    expect(run.invocations[0].exitCodeDescription).toMatch(/^VERDICT: FAILED \(/);
  });

  it("an implied requirement's rule defaults to a warning; its failure (under --strict) is an error", () => {
    const implied = [...catalogue().values()].find((r) => r.level === 'implied' && r.testable)!;
    const t = record(`${implied.id} x`, {
      ids: [implied.id],
      outcome: 'failed',
      violations: [{ id: implied.id, level: 'implied', severity: 'failure', message: 'wrong', count: 1 }],
    });
    const doc = sarifLog(summaryOf([t]), [], located());
    expect(sarifErrors(doc)).toEqual([]);
    expect(doc.runs[0].tool.driver.rules[0]?.defaultConfiguration.level).toBe('warning');
    expect(doc.runs[0].results[0]?.level).toBe('error');
  });

  it('a passed run has no result and an execution that succeeded', () => {
    const doc = sarifLog(summaryOf([record('AUTH-005 refused', {})]), [], located());
    expect(sarifErrors(doc)).toEqual([]);
    expect(doc.runs[0].results).toEqual([]);
    expect(doc.runs[0].tool.driver.rules).toEqual([]);
    expect(doc.runs[0].invocations[0]).toMatchObject({ executionSuccessful: true, exitCode: 0 });
    expect(doc.runs[0].invocations[0].exitCodeDescription).toMatch(/^VERDICT: PASSED/);
  });

  it('an incomplete or interrupted run is an execution that did not succeed, and says why', () => {
    const notReached = record('AUTH-005 refused', {
      outcome: 'not_run',
      reason: 'stopped',
      cause: { kind: 'stopped', subject: 'SIGINT', remedy: 'run again' },
    });
    const cut: RunCut = { kind: 'signal', reason: 'stopped by SIGINT' };
    const doc = sarifLog(summaryOf([notReached], [], cut), [], located());
    expect(sarifErrors(doc)).toEqual([]);
    const inv = doc.runs[0].invocations[0];
    expect(inv).toMatchObject({ executionSuccessful: false, exitCode: 130 });
    expect(inv.toolExecutionNotifications).toEqual([
      expect.objectContaining({
        level: 'error',
        message: { text: expect.stringContaining('stopped by SIGINT') },
      }),
    ]);
    expect(inv.exitCodeDescription).toMatch(/^VERDICT: INCOMPLETE \(stopped by SIGINT/);
    // Failed and cut short: the failure is a result, the execution still did not finish.
    const both = sarifLog(summaryOf([failedAuth, notReached], [], cut), [], located());
    expect(both.runs[0].results.map((r) => r.ruleId)).toEqual(['AUTH-005']);
    expect(both.runs[0].invocations[0].executionSuccessful).toBe(false);
  });

  it('a harness error is an execution that did not succeed, each error told', () => {
    const doc = sarifLog(
      summaryOf([], ['suites/x.test.ts: collection failed']),
      ['suites/x.test.ts: collection failed'],
      located(),
    );
    expect(sarifErrors(doc)).toEqual([]);
    expect(doc.runs[0].invocations[0]).toMatchObject({ executionSuccessful: false, exitCode: 3 });
    expect(doc.runs[0].invocations[0].toolExecutionNotifications[0]?.message.text).toBe(
      'harness error: suites/x.test.ts: collection failed',
    );
  });

  it(`${SARIF_CONTRACT_ENV} places the contract in the analysed repository; a path outside it is refused`, () => {
    const inRepo = contractLocation({ [SARIF_CONTRACT_ENV]: './docs/contract/customer api.md' });
    expect(inRepo.artifact).toEqual({ uri: 'docs/contract/customer%20api.md', uriBaseId: SRCROOT_BASE_ID });
    expect(inRepo.baseIds).toBeUndefined();
    const doc = sarifLog(summaryOf([failedAuth]), [], inRepo);
    expect(sarifErrors(doc)).toEqual([]);
    expect(doc.runs[0].originalUriBaseIds).toBeUndefined();

    // A setting of the report: known, and not a deployment's (the embedded reference writes report.sarif too).
    expect(() => checkUnknownVariables({ [SARIF_CONTRACT_ENV]: 'docs/customer-api.md' })).not.toThrow();
    expect(() => checkSettingsWithoutUrl({ [SARIF_CONTRACT_ENV]: 'docs/customer-api.md' })).not.toThrow();

    for (const bad of ['../shared/contract/customer-api.md', '/abs/customer-api.md', 'file:///x.md']) {
      const where = contractLocation({ [SARIF_CONTRACT_ENV]: bad });
      expect(where.artifact.uriBaseId, bad).toBe(CONTRACT_BASE_ID);
      expect(where.problems.join('\n'), bad).toContain('is not a path inside the repository');
    }
  });

  it('without the contract a result names the file without a line, and the run says why', () => {
    const where = contractLocation({}, join(mkdtempSync(join(tmpdir(), 'gc-sarif-')), 'customer-api.md'));
    const doc = sarifLog(summaryOf([failedAuth]), [], where);
    expect(sarifErrors(doc)).toEqual([]);
    expect(doc.runs[0].results[0]?.locations[0]?.physicalLocation.region).toBeUndefined();
    expect(doc.runs[0].invocations[0].toolExecutionNotifications).toEqual([
      expect.objectContaining({
        level: 'warning',
        message: { text: expect.stringContaining('the contract is not at') },
      }),
    ]);
  });

  it('the schema check can fail: a region with no line or offset is not SARIF', () => {
    const doc = sarifLog(summaryOf([failedAuth]), [], located()) as unknown as {
      runs: Array<{ results: Array<{ locations: Array<{ physicalLocation: { region?: object } }> }> }>;
    };
    doc.runs[0]!.results[0]!.locations[0]!.physicalLocation.region = { endLine: 3 };
    expect(sarifErrors(doc).length).toBeGreaterThan(0);
    expect(sarifErrors({ version: '2.1.0' })).not.toEqual([]);
  });

  it('a requirement whose words the contract no longer holds stands at the first line traced to it', () => {
    const markdown = '## Authentication\n\nKeys go in a header, said otherwise now.\n';
    const key = createHash('sha256')
      .update(fold('Keys go in a header, said otherwise now.'))
      .digest('hex')
      .slice(0, 12);
    const lines = requirementLines(markdown, [
      { section: 'Authentication', key, text: 'Keys', ids: ['AUTH-005'] },
    ]);
    expect(lines.get('AUTH-005')).toBe(3);
    expect(lines.has('GEN-001')).toBe(false);
  });

  it('a failure outside the contract (an expired expectations entry) stands at the file its record names', () => {
    const expired = record('expectations: AUTH-005 expired on 2020-01-01', {
      file: 'ci/expectations.yaml',
      ids: [],
      outcome: 'failed',
      origin: 'expectations',
      violations: [
        { id: 'EXPECTATIONS', level: 'failure', severity: 'failure', message: 'expired', count: 1 },
      ],
    });
    const doc = sarifLog(summaryOf([expired]), [], located());
    expect(sarifErrors(doc)).toEqual([]);
    expect(doc.runs[0].results[0]?.locations[0]?.physicalLocation).toEqual({
      artifactLocation: { uri: 'ci/expectations.yaml', uriBaseId: SRCROOT_BASE_ID },
    });
    expect(doc.runs[0].tool.driver.rules[0]?.shortDescription.text).toMatch(/expectations file/);
  });

  it('writeReport writes report.sarif beside the other report files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-sarif-'));
    writeFileSync(join(dir, 'exchanges.ndjson'), '');
    writeReport(dir, summaryOf([failedAuth]), []);
    const doc = JSON.parse(readFileSync(join(dir, 'report.sarif'), 'utf8'));
    expect(sarifErrors(doc)).toEqual([]);
    expect(doc.runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toEqual(['AUTH-005']);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      files: Array<{ path: string }>;
    };
    expect(manifest.files.map((f) => f.path)).toContain('report.sarif');
  });
});
