import type { Reporter, TestModule } from 'vitest/node';

/** Ends `npm test` with the plain closing line CI reads: `N passed, N failed, N skipped`. */
export default class PlainReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    let moduleErrors = 0;
    for (const m of testModules) {
      moduleErrors += m.errors().length;
      for (const t of m.children.allTests()) counts[t.result().state]++;
    }
    console.log(
      `\n${counts.passed} passed, ${counts.failed + moduleErrors} failed, ${counts.skipped} skipped`,
    );
  }
}
