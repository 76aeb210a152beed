/**
 * What a finished run prints: the verdict with its findings, or a dry run's plan.
 */
import { Decimal } from 'decimal.js';
import { formatChanges } from '../openapi/diff.ts';
import { comparisonLines } from '../report/compare.ts';
import { groupLines } from '../report/console.ts';
import { notRunLabel } from '../report/groups.ts';
import { inert } from '../report/neutral.ts';
import { useColour } from '../report/progress.ts';
import { pointsSpentLine, type Summary, verdictLine } from '../report/summary.ts';

/** `1 requirement`, `2 requirements`. */
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function printVerdict(
  s: Summary,
  harnessErrors: string[],
  dir: string,
  log: (s: string) => void,
): void {
  const c = s.counts;
  log('');
  log(
    `gateway-conformance ${s.suite.version} — target ${s.target.name} (${s.target.baseUrl})${s.strict ? ' — strict' : ''}`,
  );
  log(
    `  tests: passed ${c.passed}, failed ${c.failed}, advisory ${c.advisory}${c.inconclusive ? `, inconclusive ${c.inconclusive}` : ''}, not run ${c.not_run}, harness errors ${c.harness_error}`,
  );
  // The counts above are tests; these are requirements, each with the number of tests it failed in.
  const failed = Object.entries(s.failedRequirements);
  if (failed.length)
    log(
      `  ${plural(failed.length, 'requirement')} failed (×: in how many tests): ${failed.map(([id, n]) => `${id}×${n}`).join(', ')}`,
    );
  const adv = Object.entries(s.advisoryRequirements);
  if (adv.length)
    log(
      `  ${plural(adv.length, 'requirement')} advisory (×: in how many tests): ${adv.map(([id, n]) => `${id}×${n}`).join(', ')}`,
    );
  for (const line of groupLines(s, useColour())) log(line);
  // Inconclusive: apart from failures and passes, each with the connection failure that left it so.
  const inconclusive = s.tests.filter((t) => t.outcome === 'inconclusive');
  if (inconclusive.length) log(`  inconclusive (${inconclusive.length}): nothing judged, run again:`);
  for (const t of inconclusive.slice(0, 10))
    log(`    ? ${t.title}: ${inert(t.reason ?? '')}${t.flaky ? ` (allowed by flaky: ${t.flaky})` : ''}`);
  if (inconclusive.length > 10) log(`    ... ${inconclusive.length - 10} more in summary.json`);
  const retried = s.tests.reduce((n, t) => n + (t.retried ?? 0), 0);
  if (retried)
    log(
      `  connection failures repeated on a fresh connection: ${retried} request(s) in ${s.tests.filter((t) => t.retried).length} test(s) (retried per test in summary.json)`,
    );
  for (const e of harnessErrors) log(`  harness error: ${inert(e)}`);
  // A harness error is a fault of the suite: its stack is kept (a target's failure shows no harness frame).
  for (const t of s.tests)
    if (t.outcome === 'harness_error')
      log(`  harness error in ${t.title}:\n    ${(t.error ?? '').split('\n').map(inert).join('\n    ')}`);
  if (s.cleanup.cleaned || s.cleanup.leftBehind.length) {
    log(
      `  cleanup: ${s.cleanup.cleaned} removed, ${s.cleanup.leftBehind.length} left behind${s.cleanup.leftBehind.length && !s.cleanup.details ? `: ${inert(s.cleanup.leftBehind.slice(0, 5).join(', '))}` : ''}`,
    );
    for (const l of s.cleanup.details?.slice(0, 10) ?? [])
      log(
        `    left behind: ${inert(l.item)}${l.holder ? ` (job ${inert(l.holder.job)}, ${inert(l.holder.status)})` : ''} at ${inert(l.at)}: ${inert(l.reason)}`,
      );
    if ((s.cleanup.details?.length ?? 0) > 10)
      log(`    ... ${(s.cleanup.details?.length ?? 0) - 10} more in summary.json`);
  }
  if (s.cleanup.boundReached)
    log(`  cleanup bound reached in ${s.cleanup.boundReached} test(s): what they still held is left behind`);
  if (s.points?.balanceRanOut)
    log(
      `  ${inert(s.points.balanceRanOut)}: billable work stopped there, the remaining billable tests not run`,
    );
  if (s.points && (s.points.spent !== '0' || s.points.budget)) log(`  ${pointsSpentLine(s.points)}`);
  for (const e of s.expectations ?? [])
    if (e.status !== 'matched')
      log(
        `  expectation ${e.flaky ? `flaky${e.id ? ` ${e.id}` : ''}` : e.id}${e.test ? ` /${e.test}/` : ''}: ${e.status}`,
      );
  if (s.comparison) for (const line of comparisonLines(s.comparison)) log(`  ${line}`);
  if (s.comparisonMissing) log(`  --compare-with previous: ${s.comparisonMissing}`);
  if (s.drift) {
    log(
      `  description drift against ${s.drift.against}: ${s.drift.changes.length} change(s), ${s.drift.breaking} breaking`,
    );
    for (const line of formatChanges(s.drift.changes).slice(0, 10)) log(`    ${inert(line)}`);
  }
  if (s.interrupted) log(`  INCOMPLETE: ${s.interrupted}; the tests it did not reach are not run`);
  log(`  seed: ${s.seed} (replay with --seed ${s.seed})`);
  log(`  coverage: ${s.coverage.tested}/${s.coverage.testable} testable requirements have a test`);
  log(`  report: ${dir}`);
  log(verdictLine(s));
}

/** --dry-run: what would run, what would not and why, by side-effect class. */
export function printPlan(s: Summary, dir: string, log: (s: string) => void): void {
  const planned = s.tests.filter((t) => t.planned);
  log('');
  log(
    `gateway-conformance ${s.suite.version} — DRY RUN for target ${s.target.name} (${s.target.baseUrl}); no request was sent`,
  );
  log(`  profile ${s.profile}, allowed classes: ${s.target.allow.join(', ')}`);
  const byEffect = new Map<string, number>();
  for (const t of planned) byEffect.set(t.effect ?? '?', (byEffect.get(t.effect ?? '?') ?? 0) + 1);
  log(
    `  would run ${planned.length} of ${s.tests.length} tests (${[...byEffect].map(([e, n]) => `${e} ${n}`).join(', ')})`,
  );
  // The not-run groups of the real run (largest first, each with what runs it), not a list of reasons.
  for (const n of s.notRunGroups ?? [])
    log(
      `  would not run (${n.count}): ${notRunLabel(n.cause, n.reason)}${n.cause?.remedy ? ` — to run: ${n.cause.remedy}` : ''}`,
    );
  log(`  plan: ${dir}/summary.json`);
  if (s.plan) {
    log(
      `  billable requests the plan would make: ${s.plan.totalRequests} (about ${s.plan.totalPoints} points)`,
    );
    for (const b of s.plan.billable) log(`    ${b.model}: ${b.requests} requests, ${b.points} points`);
    log(`  (${s.plan.basis})`);
    const budget = s.plan.budget;
    if (budget && new Decimal(s.plan.totalPoints).gt(budget.points))
      log(
        `  the points budget of ${budget.points} (${budget.source}) is less: billable tests would stop there, the rest not run and the verdict INCOMPLETE; --budget-points ${new Decimal(s.plan.totalPoints).ceil().toString()} or more runs them all at the reference's prices (the target's own prices may differ)`,
      );
    if (s.plan.buys) log(`  ${s.plan.buys}`);
  }
}
