import { relative } from 'node:path';
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/** How often `npm test` says how far it is, whatever else it printed (a CI log is never silent longer). */
export const HEARTBEAT_MS = 30_000;

/**
 * Ends `npm test` with the plain closing line CI reads: `N passed, N failed, N skipped`; meanwhile, every
 * HEARTBEAT_MS, a progress line: the files finished out of all, and the files still running with their
 * time so far (the mutation matrix also prints each row as it ends).
 */
export default class PlainReporter implements Reporter {
  private started = 0;
  private total = 0;
  private finished = 0;
  private readonly running = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.started = Date.now();
    this.total = specifications.length;
    this.timer = setInterval(() => console.log(this.progressLine()), HEARTBEAT_MS);
    this.timer.unref();
  }

  onTestModuleStart(testModule: TestModule): void {
    this.running.set(testModule.moduleId, Date.now());
  }

  onTestModuleEnd(testModule: TestModule): void {
    this.running.delete(testModule.moduleId);
    this.finished++;
  }

  progressLine(now = Date.now()): string {
    const running = [...this.running]
      .map(([id, at]) => `${relative(process.cwd(), id)} ${Math.round((now - at) / 1000)} s`)
      .join(', ');
    return `… [${Math.round((now - this.started) / 1000)} s] ${this.finished}/${this.total} test files done${running ? `; running: ${running}` : ''}`;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (this.timer) clearInterval(this.timer);
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
