/**
 * Acceptance test of issue 13, item 3: a target without a usable description is still judged. The
 * reference with fault openapi-absent (GET /openapi.json answers 404, the API works) fails OAS-001,
 * and the run goes on validating every response against the documented schemas: about as many tests
 * are judged as against the conformant reference, and the report says what responses were validated
 * against. The same suites run on both, so that the test stays within a minute or two.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import { type RefTarget, refTarget, targetArgs } from '../tools/ref-target.ts';
import { runCli } from './helpers.ts';

const SUITES = 'models,balance,chat,embeddings,openapi,health';
const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;

describe('a target without /openapi.json', { timeout: HANG_BOUND_MS }, () => {
  let normal: RefTarget;
  let absent: RefTarget;
  beforeAll(async () => {
    [normal, absent] = await Promise.all([refTarget(), refTarget({ fault: 'openapi-absent' })]);
  });
  afterAll(async () => {
    await Promise.all([normal?.close(), absent?.close()]);
  });

  it('fails OAS-001 and still judges the other rules against the documented schemas', async () => {
    const args = (t: RefTarget, dir: string) => [
      ...targetArgs(t),
      '--suite',
      SUITES,
      '--quiet',
      '--report-dir',
      dir,
    ];
    const [a, b] = [join(normal.dir, 'report'), join(absent.dir, 'report')];
    const [ra, rb] = await Promise.all([
      runCli(args(normal, a), normal.env),
      runCli(args(absent, b), absent.env),
    ]);
    const [sa, sb] = [summaryOf(a), summaryOf(b)];
    expect(ra.code, ra.stdout + ra.stderr).toBe(0);
    expect(rb.code, rb.stdout + rb.stderr).toBe(1);
    expect(sb.failedRequirements['OAS-001']).toBeGreaterThanOrEqual(1);
    expect(sa.openapi.validatedAgainst).toBe('live');
    expect(sb.openapi.validatedAgainst).toBe('documented');
    // Nothing dropped: only the tests that judge the description itself (OAS-002/003 per endpoint) are
    // not run for it; every other test is judged (or not run, for its own reason) as on a described target.
    const DESCRIPTION_TESTS = 'suites/openapi/description.test.ts';
    expect(sb.counts.total).toBeGreaterThanOrEqual(sa.counts.total);
    const notRun = (s: Summary) =>
      s.tests
        .filter((t) => t.outcome === 'not_run' && t.file !== DESCRIPTION_TESTS)
        .map((t) => `${t.title}: ${t.reason}`)
        .sort();
    expect(notRun(sb)).toEqual(notRun(sa));
    const elsewhere = (s: Summary) =>
      s.tests.filter((t) => t.file !== DESCRIPTION_TESTS && t.file !== 'preflight' && t.outcome !== 'not_run')
        .length;
    expect(elsewhere(sb)).toBe(elsewhere(sa));
    // The description's absence fails only its own rules, and ERR-001 for the framework's 404 body.
    const others = Object.keys(sb.failedRequirements).filter(
      (id) => !/^OAS-00\d$/.test(id) && id !== 'ERR-001',
    );
    expect(others).toEqual([]);
    expect(readFileSync(join(b, 'report.html'), 'utf8')).toMatch(
      /Responses validated against.*documented schemas/s,
    );
  });
});
