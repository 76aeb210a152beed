/**
 * Every test of the suite selected alone (`--suite` its file, `--filter` its title) passes on the plain
 * reference, as in the whole run: the suite's tests are independent (each makes and cleans up what it
 * reads), which the mutation matrix's variant rows rely on (they run the tests that reach a variant) and a
 * user's --filter too. Two guard tests that leaned on another test's burst were found so (RATE-005).
 *
 * `npx tsx tools/tests-alone.ts [FILE-PATTERN]` (a regular expression on suite file paths, default all):
 * one whole run lists the judged tests, then each runs alone, three at a time, each against a fresh
 * reference; exit 1 if any fails, naming it. About 2 CPU-s a test (the whole suite: about 15 minutes on
 * 2 cores). Not in `npm test`: too long for .ci/run.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../reference/start.ts';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from './bounds.ts';
import { titlesFilter } from './mutation/variant-plan.ts';
import { writeRefTargets } from './ref-target.ts';
import { runCli } from './run-cli.ts';

const AT_ONCE = 3;
const dir = mkdtempSync(join(tmpdir(), 'tests-alone-'));

/** One run of the CLI against a fresh plain reference; its exit code and summary (if written). */
async function run(args: string[], name: string): Promise<{ code: number | null; summary?: Summary }> {
  const ref = await startReference({ port: 0 });
  try {
    const env = writeRefTargets(ref, join(dir, `${name}.yaml`));
    const out = join(dir, name);
    const r = await runCli(
      ['--targets', join(dir, `${name}.yaml`), '--target', 'ref', '--allow', 'all', '--quiet'].concat(
        ['--report-dir', out],
        args,
      ),
      env,
      HANG_BOUND_MS,
    );
    try {
      return { code: r.code, summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) };
    } catch {
      return { code: r.code };
    }
  } finally {
    await ref.close();
  }
}

const pattern = new RegExp(process.argv[2] ?? '.');
const whole = await run([], 'whole');
if (!whole.summary) {
  console.error(`tests-alone: the whole run wrote no summary (exit ${whole.code})`);
  process.exit(2);
}
const tests = whole.summary.tests.filter((t) => t.outcome !== 'not_run' && pattern.test(t.file));
console.log(`tests-alone: ${tests.length} judged tests of the whole run, each alone`);
const queue = [...tests];
const failed: string[] = [];
await Promise.all(
  Array.from({ length: AT_ONCE }, async (_, slot) => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      const alone = await run(
        ['--suite', t.file, '--filter', titlesFilter([t.title]), '--workers', '1'],
        `s${slot}`,
      );
      if (alone.code === 0) continue;
      const why = (alone.summary?.tests ?? [])
        .flatMap((x) => (x.violations ?? []).map((v) => `${v.id} ${v.message.slice(0, 200)}`))
        .join(' | ');
      failed.push(`${t.file} :: ${t.title}\n    exit ${alone.code}${why ? `: ${why}` : ''}`);
      console.log(`FAIL ${failed.at(-1)}`);
    }
  }),
);
console.log(`tests-alone: ${tests.length - failed.length} of ${tests.length} pass alone`);
process.exit(failed.length > 0 ? 1 : 0);
