/**
 * bench/points.ts: what a run would buy, per profile: the billable requests and the points of the dry-run
 * plan (the CLI's `--dry-run`, which runs the planned billable tests on a fresh embedded reference and
 * counts what the reference charged), beside the static size of the media covering design and the floor
 * that flat per-job prices put under any design covering every enum and boolean value.
 *
 *   node --import tsx bench/points.ts [--profiles quick,standard,thorough] [--cli PATH]
 *
 * `--cli` runs the CLI of another checkout (for a BEFORE figure, e.g. ../main/bin/gateway-conformance.mjs);
 * its reports go to a temporary directory, nothing is written there. The prices are the reference's
 * (reference/media/view.ts `quoteOf`): the same for every checkout that shares them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Decimal } from 'decimal.js';
import { modelDef, outputOf } from '../reference/media/table.ts';
import { quoteOf, scaledQuoteOf } from '../reference/media/view.ts';
import { startReference } from '../reference/start.ts';
import { billableByModel } from '../src/report/plan.ts';
import { coveringDesign, coveringPlan } from '../src/rules/covering.ts';
import { mediaTable } from '../src/rules/media-models.ts';
import { PROFILES, type Profile } from '../src/vocabulary.ts';
import { writeRefTargets } from '../test/support/ref-target.ts';
import { ROOT, type Spawned, spawnNode, table, tail, usage, warnIfBusy, writeResult } from './lib.ts';

const { values } = parseArgs({
  options: {
    profiles: { type: 'string' },
    cli: { type: 'string' },
    pricing: { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log(
    'node --import tsx bench/points.ts [--profiles quick,standard,thorough] [--cli PATH] [--pricing flat|scaled]',
  );
  process.exit(0);
}
const profiles = (values.profiles ?? PROFILES.join(',')).split(',').map((p) => p.trim());
for (const p of profiles)
  if (!(PROFILES as readonly string[]).includes(p))
    usage(`--profiles: '${p}' is not one of ${PROFILES.join(', ')}`);
const cli = relative(ROOT, resolve(values.cli ?? join(ROOT, 'bin', 'gateway-conformance.mjs')));
const pricing = values.pricing ?? 'flat';
if (pricing !== 'flat' && pricing !== 'scaled') usage(`--pricing: '${pricing}' is not flat or scaled`);
warnIfBusy();

const media = mediaTable();
/** The reference's price of one job of a documented model (its own table and output rule). */
const price = (id: string) => new Decimal(quoteOf(outputOf(modelDef(id)!)));
/** What the covering design of a profile costs at the chosen prices (the same rule the reference applies). */
const designPoints = (profile: Profile) =>
  Object.entries(media.models).reduce(
    (n, [id, m]) =>
      coveringDesign(media, m, profile).reduce(
        (k, c) => k.plus(pricing === 'scaled' ? scaledQuoteOf(modelDef(id)!, c.parameters) : price(id)),
        n,
      ),
    new Decimal(0),
  );

/** Flat per-job prices: covering every enum and boolean value takes at least the largest such set per model. */
const floor = Object.entries(media.models).map(([id, m]) => {
  const jobs = Math.max(
    1,
    ...Object.values(m.parameters).map((r) => (r.values ? r.values.length : r.boolean ? 2 : 1)),
  );
  return { id, jobs, points: price(id).times(jobs) };
});
const floorPoints = floor.reduce((n, f) => n.plus(f.points), new Decimal(0));

interface Plan {
  totalRequests: number;
  totalPoints: string;
  billable: Array<{ model: string; requests: number; points: string }>;
}

/**
 * flat: the CLI's own dry-run plan (the planned billable tests on a fresh embedded reference, at its
 * flat prices). scaled: a whole run of the CLI against a reference started here with the option
 * mediaPricing 'scaled', counted the same way (billableByModel); priced like a deployment a run can
 * spend more than the primary account's 1,000 points, so the enterprise account (250,000) pays for
 * the primary role and no hold is cut short by the balance.
 */
async function planOf(profile: Profile): Promise<{ plan?: Plan; run: Spawned }> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-points-'));
  const report = join(dir, 'report');
  try {
    if (pricing === 'flat') {
      const run = await spawnNode(
        cli,
        ['--dry-run', '--quiet', '--profile', profile, '--report-dir', report],
        {
          timeoutMs: 900_000,
        },
      );
      const s = JSON.parse(readFileSync(join(report, 'summary.json'), 'utf8')) as { plan?: Plan };
      return { run, ...(s.plan ? { plan: s.plan } : {}) };
    }
    const ref = await startReference({ port: 0, mediaPricing: 'scaled' });
    try {
      const env = writeRefTargets(ref, join(dir, 'targets.yaml'), { concurrency: 8 });
      env.REF_KEY_PRIMARY = ref.keys.enterprise;
      const run = await spawnNode(
        cli,
        [
          '--targets',
          join(dir, 'targets.yaml'),
          '--target',
          'ref',
          '--quiet',
          '--profile',
          profile,
          '--report-dir',
          report,
        ],
        { env, timeoutMs: 1_800_000 },
      );
      const billable = billableByModel(report, (m) => m);
      const plan: Plan = {
        billable,
        totalRequests: billable.reduce((n, b) => n + b.requests, 0),
        totalPoints: billable.reduce((n, b) => n.plus(b.points), new Decimal(0)).toString(),
      };
      return { run, plan };
    } finally {
      await ref.close();
    }
  } catch (err) {
    return { run: { code: null, stdout: '', stderr: (err as Error).message, wallMs: 0 } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Array<Record<string, unknown>> = [];
for (const profile of profiles as Profile[]) {
  const { plan, run } = await planOf(profile);
  if (!plan) {
    console.log(`  ${profile}: ERROR no plan (exit ${run.code}): ${tail(run)}`);
    rows.push({ profile, error: tail(run) });
    continue;
  }
  const design = coveringPlan(media, profile);
  const mediaPlan = plan.billable.filter((b) => b.model in media.models);
  rows.push({
    profile,
    billableRequests: plan.totalRequests,
    points: plan.totalPoints,
    mediaJobs: mediaPlan.reduce((n, b) => n + b.requests, 0),
    mediaPoints: mediaPlan.reduce((n, b) => n.plus(b.points), new Decimal(0)).toString(),
    coveringJobs: design.total,
    coveringByOutput: design.byOutput,
    coveringPoints: designPoints(profile).toString(),
    byModel: plan.billable,
    wallMs: Math.round(run.wallMs),
  });
  console.log(
    `  ${profile}: ${plan.totalRequests} billable requests, ${plan.totalPoints} points (${(run.wallMs / 1000).toFixed(0)} s)`,
  );
}

console.log('');
console.log(
  table([
    [
      'profile',
      'billable requests',
      'points',
      'media jobs',
      'media points',
      // The static design is this checkout's, whichever CLI made the plan.
      values.cli ? 'covering jobs (this checkout)' : 'covering jobs',
      'covering points',
    ],
    ...rows
      .filter((r) => !r.error)
      .map((r) => [
        String(r.profile),
        Number(r.billableRequests),
        new Decimal(String(r.points)).toDecimalPlaces(2).toString(),
        Number(r.mediaJobs),
        new Decimal(String(r.mediaPoints)).toDecimalPlaces(2).toString(),
        Number(r.coveringJobs),
        String(r.coveringPoints),
      ]),
  ]),
);
if (pricing === 'flat')
  console.log(
    `floor at these flat prices for any design that sends every enum and boolean value once: ${floor.reduce((n, f) => n + f.jobs, 0)} jobs, ${floorPoints.toString()} points (${floor
      .filter((f) => f.jobs > 2)
      .map((f) => `${f.id} ${f.jobs}`)
      .join(', ')})`,
  );
const file = writeResult('points', {
  cli,
  pricing,
  prices:
    pricing === 'flat'
      ? 'reference/media/view.ts quoteOf (image 0.75, glb 1.5, video 3.125 per job; text per token)'
      : 'reference/media/view.ts scaledQuoteOf (video by seconds x resolution, audio +25%; images by megapixels x quality)',
  floor: {
    jobs: floor.reduce((n, f) => n + f.jobs, 0),
    points: floorPoints.toString(),
    byModel: floor.map((f) => ({ ...f, points: f.points.toString() })),
  },
  profiles: rows,
});
console.log(`result: ${file}`);
