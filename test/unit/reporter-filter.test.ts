import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import { pkgPath } from '../../src/paths.ts';
import { ConformanceReporter, FILTER_SHOWN_CHARS } from '../../src/report/reporter.ts';

/** What the reporter records of a test that --filter excluded (vitest skipped it, no note, no meta). */
function excludedBy(filter: string) {
  const tc = {
    name: 'GEN-001 a test',
    meta: () => ({}),
    result: () => ({ state: 'skipped' }),
    diagnostic: () => ({ duration: 0 }),
  };
  const mod = {
    moduleId: pkgPath('suites', 'x.test.ts'),
    errors: () => [],
    children: { allTests: () => [tc] },
  };
  const reporter = new ConformanceReporter(new Redactor({}), filter);
  reporter.onTestRunEnd([mod] as never, []);
  return reporter.collected.tests[0]!;
}

describe('a test excluded by --filter names the filter (src/report/reporter.ts)', () => {
  it('names a filter a user types whole', () => {
    const rec = excludedBy('AUTH-005|MJOB-012');
    expect(rec.outcome).toBe('not_run');
    expect(rec.reason).toBe('excluded by --filter AUTH-005|MJOB-012');
    expect(rec.cause).toMatchObject({ kind: 'filter', subject: 'AUTH-005|MJOB-012' });
  });

  it("names a program's long pattern by its start and length: each excluded test names it", () => {
    // The dry run prices its plan by a run filtered to every billable title, one alternation.
    const filter = Array.from({ length: 600 }, (_, i) => `MJOB-${i} a billable title of some length`).join(
      '|',
    );
    const rec = excludedBy(filter);
    expect(rec.reason!.length).toBeLessThan(FILTER_SHOWN_CHARS + 100);
    expect(rec.reason).toBe(
      `excluded by --filter ${filter.slice(0, FILTER_SHOWN_CHARS)}… (a pattern of ${filter.length} characters)`,
    );
    expect((rec.cause as { subject: string }).subject).toBe(
      rec.reason!.slice('excluded by --filter '.length),
    );
  });
});
