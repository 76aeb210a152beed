import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import { idsOfTitle, violation } from '../catalogue.ts';
import type { Redactor } from '../http/redact.ts';
import { PKG_ROOT } from '../paths.ts';
import type { TestRecord } from '../runtime/check.ts';
import type { Outcome } from '../vocabulary.ts';
import type { RequirementResult } from './requirements.ts';
import type { RunCut } from './summary.ts';
import type { TestResultRecord } from './test-result.ts';
import { type XmlElement, xmlDocument } from './xml.ts';

export interface CollectedRun {
  tests: TestResultRecord[];
  /** Errors outside any test (collection errors, unhandled rejections): always harness errors. */
  harnessErrors: string[];
}

/** Longer filters are named by their start and length where a test names the filter it was excluded by. */
export const FILTER_SHOWN_CHARS = 200;

/**
 * A filter as an excluded test's reason names it: whole up to FILTER_SHOWN_CHARS characters, else by its
 * start and length. Why: every test a filter excludes names it, and a pattern a program wrote (a dry run
 * prices its plan with a run filtered to all its billable titles, tens of kilobytes) made a 25 MB summary.
 */
export function shownFilter(filter: string): string {
  return filter.length <= FILTER_SHOWN_CHARS
    ? filter
    : `${filter.slice(0, FILTER_SHOWN_CHARS)}… (a pattern of ${filter.length} characters)`;
}

/**
 * Vitest reporter that turns test results and the metadata the check wrapper attached into our verdict
 * set. Why a reporter and not vitest's own outcome: vitest knows pass/fail/skip; the verdict needs
 * advisory, not-run reasons and harness errors kept apart from the target's failures.
 */
export class ConformanceReporter implements Reporter {
  collected: CollectedRun = { tests: [], harnessErrors: [] };
  /** The filter as each test it excluded names it (the summary keeps it whole, once). */
  private readonly filterShown: string | undefined;

  constructor(
    private readonly redactor: Redactor,
    /** Set when --filter narrowed the run: tests it excluded are reported as not run for that reason. */
    filter?: string,
  ) {
    this.filterShown = filter === undefined ? undefined : shownFilter(filter);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    const tests: TestResultRecord[] = [];
    const harnessErrors: string[] = [];
    for (const mod of testModules) {
      const file = relative(PKG_ROOT, mod.moduleId);
      for (const err of mod.errors()) harnessErrors.push(`${file}: ${err.message}`);
      for (const tc of mod.children.allTests()) tests.push(this.toRecord(tc, file));
    }
    for (const err of unhandledErrors) harnessErrors.push(`unhandled: ${err.message}`);
    this.collected = { tests, harnessErrors: harnessErrors.map((e) => this.redactor.text(e)) };
  }

  private toRecord(tc: TestCase, file: string): TestResultRecord {
    const meta = tc.meta().conformance as TestRecord | undefined;
    const result = tc.result();
    const ids = meta?.ids ?? idsOfTitle(tc.name);
    const base = {
      title: tc.name,
      file,
      ids,
      durationMs: Math.round(tc.diagnostic()?.duration ?? 0),
      // The test's own finding first, then the checks every exchange gets (description, error shape...).
      violations: [...(meta?.violations ?? [])].sort(
        (a, b) => Number(a.scope === 'exchange') - Number(b.scope === 'exchange'),
      ),
      exchanges: meta?.exchanges ?? [],
      exchangeCount: meta?.exchangeCount ?? 0,
    };
    const rec: TestResultRecord = { ...base, outcome: 'passed' };
    if (meta?.cleanup) rec.cleanup = meta.cleanup;
    if (meta?.touches?.length) rec.touches = meta.touches;
    if (meta?.observed) rec.observed = meta.observed;
    if (meta?.accepted?.length) rec.accepted = meta.accepted;
    if (meta?.beside?.length) rec.beside = meta.beside;
    if (meta?.asserted) rec.asserted = meta.asserted;
    if (meta?.notes?.length) rec.notes = meta.notes;
    if (meta?.effect) rec.effect = meta.effect;
    if (meta?.planned) rec.planned = true;
    if (meta?.retried) rec.retried = meta.retried;
    if (meta?.unpaid && result.state === 'skipped') rec.unpaid = true;
    if (result.state === 'skipped') {
      rec.outcome = 'not_run';
      rec.reason =
        meta?.reason ??
        result.note ??
        (this.filterShown ? `excluded by --filter ${this.filterShown}` : 'skipped');
      if (meta?.cause) rec.cause = meta.cause;
      else if (!meta?.reason && !result.note && this.filterShown)
        rec.cause = {
          kind: 'filter',
          subject: this.filterShown,
          remedy: 'run without --filter to judge them',
        };
    } else if (meta?.outcome === 'harness_error') {
      rec.outcome = 'harness_error';
      rec.error = meta.error ?? 'unknown harness error';
    } else if (result.state === 'failed') {
      if (meta && meta.outcome === 'failed') {
        rec.outcome = 'failed';
      } else {
        // Failed before the wrapper finished: a test timeout (the target kept a chain of requests
        // busy past the test deadline) or an error vitest raised itself. Kept apart when unclear.
        const messages = result.errors?.map((e) => e.message) ?? [];
        const msg = this.redactor.text(messages.length ? messages.join('\n') : 'failed');
        if (messages.some(isVitestTimeout)) {
          rec.outcome = 'failed';
          rec.violations = [...rec.violations, violation('GEN-001', `the test did not finish: ${msg}`)];
        } else {
          rec.outcome = 'harness_error';
          rec.error = msg;
        }
      }
    } else if (meta?.outcome === 'inconclusive') {
      rec.outcome = 'inconclusive';
      if (meta.reason) rec.reason = meta.reason;
    } else if (meta) {
      rec.outcome = meta.outcome === 'advisory' ? 'advisory' : 'passed';
    } else {
      rec.outcome = 'harness_error';
      rec.error = 'test ran outside the check() wrapper: no verdict recorded';
    }
    return rec;
  }
}

/**
 * Whether vitest failed the test for its timeout (or a hook's). Vitest 4.1 gives no typed fact for it:
 * the runner rejects with a plain Error whose message is the only mark (makeTimeoutError and the
 * around-hook timeout of @vitest/runner, packages/runner/src/context.ts and hooks.ts upstream;
 * node_modules/@vitest/runner/dist/chunk-artifact.js in 4.1.12): `Test timed out in 5000ms.`,
 * `Hook timed out in 5000ms.`, `The setup phase of "aroundEach" hook timed out after 5000ms.`. The
 * context signal vitest aborts with that error is shared with a cancelled run, so it says no more.
 * The one place that reads the message: test/unit/vitest-timeout.test.ts pins it to vitest's own text.
 */
export function isVitestTimeout(message: string): boolean {
  return /^(?:(?:Test|Hook) timed out in \d+ms\.|The \w+ phase of "\w+" hook timed out after \d+ms\.)/.test(
    message,
  );
}

/**
 * junit.xml: a testcase per test (a suite per file), as many as the console counts, and the errors
 * outside any test. A test the run did not reach because it was cut short is an error (`incomplete`).
 */
export function writeJunit(
  file: string,
  tests: TestResultRecord[],
  harnessErrors: string[],
  cut?: RunCut,
): void {
  const byFile = new Map<string, TestResultRecord[]>();
  for (const t of tests) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
  const suites: XmlElement[] = [];
  for (const [f, list] of byFile) {
    const cases = list.map((t) => {
      const tc = testCase(f.replace(/\.test\.ts$/, '').replace(/\//g, '.'), t.title, t.durationMs / 1000);
      const outcome: Outcome = t.outcome;
      if (outcome === 'failed') {
        const failures = t.violations.filter((v) => v.severity === 'failure');
        const text = failures.map((v) => `[${v.id}] ${v.message}`).join('\n');
        tc.children.push(verdict('failure', text, [...new Set(failures.map((v) => v.id))].join(' ')));
      } else if (outcome === 'harness_error') {
        tc.children.push(verdict('error', t.error ?? 'harness error', 'harness_error'));
      } else if (outcome === 'not_run' && cut && (!t.cause || CUT_KINDS.includes(t.cause.kind))) {
        // Not reached because the run was cut short: an error, as the run's exit code says (4 or 130),
        // never a green "skipped" in a dashboard that reads only this file.
        tc.children.push(
          verdict(
            'error',
            `not reached: the run was cut short (${cut.reason}); ${t.reason ?? ''}`,
            'incomplete',
          ),
        );
      } else if (outcome === 'not_run') {
        tc.children.push({ name: 'skipped' }, out(`not run: ${t.reason ?? ''}`));
      } else if (outcome === 'known_failure') {
        // Listed in the target's expectations file: visible, but not a failure of this run.
        tc.children.push(
          { name: 'skipped' },
          out(
            `known failure: ${t.reason ?? ''}\n${t.violations.map((v) => `[${v.id}] ${v.message}`).join('\n')}`,
          ),
        );
      } else if (outcome === 'inconclusive' && t.flaky) {
        // Allowed by the target's expectations file: visible, not an error of this run.
        tc.children.push({ name: 'skipped' }, out(`inconclusive: ${t.reason ?? ''}\nallowed: ${t.flaky}`));
      } else if (outcome === 'inconclusive') {
        // Neither passed nor failed, and not PASSED either: an error of its own type, never a green skip.
        tc.children.push(verdict('error', `inconclusive: ${t.reason ?? ''}`, 'inconclusive'));
      } else if (outcome === 'advisory') {
        tc.children.push(out(t.violations.map((v) => `advisory [${v.id}] ${v.message}`).join('\n')));
      }
      if (t.notes?.length) {
        const said = tc.children.find((c) => c.name === 'system-out');
        if (said) said.text = `${said.text}\n${t.notes.join('\n')}`;
        else tc.children.push(out(t.notes.join('\n')));
      }
      return tc;
    });
    suites.push(testSuite(f, cases));
  }
  if (harnessErrors.length > 0)
    suites.push(
      testSuite(
        'harness',
        harnessErrors.map((e) => {
          const tc = testCase('harness', e.slice(0, 120), 0);
          tc.children.push(verdict('error', e, 'harness_error'));
          return tc;
        }),
      ),
    );
  writeSuites(file, suites);
}

/** Not-run causes that mean the run did not get to the test (a stop, the points budget or balance). */
const CUT_KINDS: ReadonlyArray<NonNullable<TestResultRecord['cause']>['kind']> = ['stopped', 'budget'];

/**
 * requirements.junit.xml: a testcase per requirement of the catalogue with its outcome over the run
 * (summary.json `requirements`). Apart from junit.xml so that junit.xml counts exactly the tests the
 * console counts.
 */
export function writeRequirementsJunit(
  file: string,
  tests: TestResultRecord[],
  requirements: Record<string, RequirementResult>,
  cut?: RunCut,
): void {
  // A test the cut run did not reach (junit.xml's `incomplete` error).
  const unreached = (i: number) => {
    const t = tests[i];
    return !!cut && t?.outcome === 'not_run' && (!t.cause || CUT_KINDS.includes(t.cause.kind));
  };
  const titles = (list: number[]) =>
    list
      .slice(0, 20)
      .map((i) => tests[i]?.title ?? `test #${i}`)
      .join('\n') + (list.length > 20 ? `\n... ${list.length - 20} more` : '');
  const reqCases = Object.entries(requirements).map(([id, r]) => {
    const tc = testCase('requirements', id, 0);
    if (r.outcome === 'failed')
      tc.children.push(verdict('failure', `${id} failed in:\n${titles(r.failed)}`, id));
    else if (r.outcome === 'harness_error')
      tc.children.push(verdict('error', `a test citing ${id} hit a harness error`, 'harness_error'));
    else if (r.outcome === 'known_failure')
      tc.children.push(
        { name: 'skipped' },
        out(`known failure (the target's expectations list it) in:\n${titles(r.known)}`),
      );
    else if (r.outcome === 'inconclusive') {
      const which = r.tests.filter((i) => tests[i]?.outcome === 'inconclusive');
      const allowed = which.every((i) => tests[i]?.flaky);
      tc.children.push(
        allowed ? { name: 'skipped' } : verdict('error', `${id} is inconclusive`, 'inconclusive'),
        out(`inconclusive in:\n${titles(which)}`),
      );
    } else if (r.outcome === 'not_run' && cut && r.tests.some(unreached))
      tc.children.push(
        verdict(
          'error',
          `not reached: the run was cut short (${cut.reason}); ${r.reasons.join('; ')}`,
          'incomplete',
        ),
      );
    else if (r.outcome === 'not_run')
      tc.children.push({ name: 'skipped' }, out(`not run: ${r.reasons.join('; ')}`));
    else if (r.outcome === 'not_judged')
      // Aimed at, never observed: apart from passed (a skipped case with the reason as its message).
      tc.children.push(
        { name: 'skipped', attrs: { message: (r.reasons[0] ?? 'not judged').slice(0, 500) } },
        out(`${r.reasons.join('; ')}
cited by:
${titles(r.tests)}`),
      );
    else if (r.outcome === 'no_test')
      tc.children.push({ name: 'skipped' }, out('no test of this run cites it'));
    else if (r.outcome === 'advisory') tc.children.push(out(`advisory in:\n${titles(r.advisory)}`));
    return tc;
  });
  writeSuites(file, [testSuite('requirements', reqCases)]);
}

function writeSuites(file: string, suites: XmlElement[]): void {
  const sum = (k: 'tests' | 'failures' | 'errors' | 'skipped') =>
    suites.reduce((n, s) => n + Number(s.attrs?.[k] ?? 0), 0);
  writeFileSync(
    file,
    xmlDocument({
      name: 'testsuites',
      attrs: {
        tests: sum('tests'),
        failures: sum('failures'),
        errors: sum('errors'),
        skipped: sum('skipped'),
      },
      children: suites,
    }),
  );
}

/** A testcase element; its verdict and output are pushed as children. */
function testCase(className: string, name: string, seconds: number): XmlElement & { children: XmlElement[] } {
  return { name: 'testcase', attrs: { classname: className, name, time: seconds }, children: [] };
}

/** A failure or error: the first line as its message, the whole text as its content. */
function verdict(kind: 'failure' | 'error', text: string, type: string): XmlElement {
  return { name: kind, attrs: { message: text.split('\n', 1)[0]!.slice(0, 500), type }, text };
}

function out(text: string): XmlElement {
  return { name: 'system-out', text };
}

function testSuite(name: string, cases: XmlElement[]): XmlElement {
  const has = (kind: string) => cases.filter((c) => c.children?.some((e) => e.name === kind)).length;
  return {
    name: 'testsuite',
    attrs: {
      name,
      tests: cases.length,
      failures: has('failure'),
      errors: has('error'),
      skipped: has('skipped'),
      time: cases.reduce((n, c) => n + Number(c.attrs?.time ?? 0), 0),
    },
    children: cases,
  };
}
