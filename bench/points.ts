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
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Decimal } from 'decimal.js';
import { modelDef, outputOf } from '../reference/media/table.ts';
import { quoteOf, scaledQuoteOf } from '../reference/media/view.ts';
import { startReference } from '../reference/start.ts';
import type { Exchange } from '../src/http/client.ts';
import { reportFile } from '../src/report/layout.ts';
import { billableByModel } from '../src/report/plan.ts';
import { coveringDesign, coveringPlan } from '../src/rules/covering.ts';
import { mediaTable } from '../src/rules/media-models.ts';
import { BILLABLE } from '../src/runtime/budget.ts';
import { PROFILES, type Profile } from '../src/vocabulary.ts';
import { writeRefTargets } from '../tools/ref-target.ts';
import { ROOT, type Spawned, spawnNode, table, tail, usage, warnIfBusy, writeResult } from './lib.ts';

const { values } = parseArgs({
  options: {
    profiles: { type: 'string' },
    cli: { type: 'string' },
    pricing: { type: 'string' },
    'by-test': { type: 'boolean' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log(
    'node --import tsx bench/points.ts [--profiles quick,standard,thorough] [--cli PATH] [--pricing flat|scaled] [--by-test]',
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

/** A job's price at the chosen pricing: flat per job, or the reference's scaled price list. */
const priceOf = (id: string, parameters: Record<string, unknown>) =>
  pricing === 'scaled' ? new Decimal(scaledQuoteOf(modelDef(id)!, parameters)) : price(id);

/**
 * The covering floor at the chosen prices: every value the covering design puts at stake (the valid
 * values of each parameter, prompt and reference rule) bought once, each job at the cheapest settings
 * of the other parameters. A value set needs one job per value, so a model's floor is its dearest value
 * set: the sum, over its values, of the cheapest job that sends the value.
 */
function coveringFloor(profile: Profile): {
  points: Decimal;
  bound: Decimal;
  byModel: Array<{ id: string; subject: string; points: string; bound: string }>;
} {
  const byModel = Object.entries(media.models).map(([id, m]) => {
    const design = coveringDesign(media, m, profile);
    const values = new Map<string, unknown[]>();
    for (const c of design)
      for (const v of c.proves) {
        const seen = values.get(v.subject) ?? [];
        if (!seen.some((x) => JSON.stringify(x) === JSON.stringify(v.value))) seen.push(v.value);
        values.set(v.subject, seen);
      }
    // The cheapest settings: each parameter at the value of the design that costs least alone.
    const cheapest: Record<string, unknown> = {};
    for (const [subject, vs] of values) {
      if (!(subject in m.parameters)) continue;
      cheapest[subject] = vs.reduce((best, v) =>
        priceOf(id, { [subject]: v }).lt(priceOf(id, { [subject]: best })) ? v : best,
      );
    }
    let dearest = { subject: '-', points: priceOf(id, cheapest) };
    for (const [subject, vs] of values) {
      const sum = vs.reduce<Decimal>(
        (n, v) => n.plus(priceOf(id, subject in m.parameters ? { ...cheapest, [subject]: v } : cheapest)),
        new Decimal(0),
      );
      if (sum.gt(dearest.points)) dearest = { subject, points: sum };
    }
    // Every value set at once: as many jobs as the largest set, each at the cheapest settings, plus
    // what each dearer value adds to one of them. Under prices where a dearer value multiplies a job's
    // price by a factor of at least one (the scaled list), two dear values in one job cost at least
    // that much, so no design that sends every value is cheaper.
    const base = priceOf(id, cheapest);
    let bound = base.times(design.length);
    for (const [subject, vs] of values)
      if (subject in m.parameters)
        for (const v of vs)
          if (JSON.stringify(v) !== JSON.stringify(cheapest[subject]))
            bound = bound.plus(Decimal.max(0, priceOf(id, { ...cheapest, [subject]: v }).minus(base)));
    return { id, subject: dearest.subject, points: dearest.points, bound };
  });
  return {
    points: byModel.reduce((n, f) => n.plus(f.points), new Decimal(0)),
    bound: byModel.reduce((n, f) => n.plus(f.bound), new Decimal(0)),
    byModel: byModel.map((f) => ({
      id: f.id,
      subject: f.subject,
      points: f.points.toString(),
      bound: f.bound.toDecimalPlaces(4).toString(),
    })),
  };
}

interface Plan {
  totalRequests: number;
  totalPoints: string;
  billable: Array<{ model: string; requests: number; points: string }>;
}

/** What each test bought: its 2xx billable POSTs by model, with the points their replies reported. */
interface Purchase {
  test: string;
  model: string;
  /** A media job (POST /v1/media/jobs), not a text call. */
  media: boolean;
  requests: number;
  points: string;
}

/**
 * A purchase's category: a media job's output kind (`media (output not stated)` for a model whose
 * output the table does not state or a model outside it), `chat` for every other billable request.
 */
const categoryOf = (p: Purchase): string =>
  p.media ? (media.models[p.model]?.output ?? 'media (output not stated)') : 'chat';

/** The purchases of a run's report directory by test and model (the same count as billableByModel). */
function purchasesOf(reportDir: string): Purchase[] {
  const points = new Map<string, Decimal>();
  const spendFile = reportFile(reportDir, 'spend');
  if (existsSync(spendFile))
    for (const line of readFileSync(spendFile, 'utf8').split('\n').filter(Boolean)) {
      const s = JSON.parse(line) as { exchange?: string; points?: string; estimated?: true };
      if (s.exchange !== undefined && s.points !== undefined && !s.estimated)
        points.set(s.exchange, new Decimal(s.points));
    }
  const by = new Map<
    string,
    { test: string; model: string; media: boolean; requests: number; points: Decimal }
  >();
  for (const line of readFileSync(join(reportDir, 'exchanges.ndjson'), 'utf8').split('\n')) {
    if (!line) continue;
    const ex = JSON.parse(line) as Exchange;
    if (ex.method !== 'POST' || !BILLABLE.test(ex.path) || (ex.status ?? 0) < 200 || (ex.status ?? 0) >= 300)
      continue;
    const test = ex.test ?? '(preflight)';
    const model = ex.model ?? '(unknown model)';
    const key = `${test}\u0000${model}`;
    const media = ex.path.startsWith('/v1/media/jobs');
    const e = by.get(key) ?? { test, model, media, requests: 0, points: new Decimal(0) };
    e.requests++;
    e.points = e.points.plus(points.get(ex.id) ?? 0);
    by.set(key, e);
  }
  return [...by.values()]
    .sort((a, b) => b.points.comparedTo(a.points))
    .map((e) => ({ ...e, points: e.points.toString() }));
}

/** Points and requests per category (video, image, glb, chat) of a run's purchases. */
function byCategory(purchases: Purchase[]): Record<string, { requests: number; points: string }> {
  const out: Record<string, { requests: number; points: Decimal }> = {};
  for (const p of purchases) {
    const c = out[categoryOf(p)] ?? { requests: 0, points: new Decimal(0) };
    out[categoryOf(p)] = { requests: c.requests + p.requests, points: c.points.plus(p.points) };
  }
  return Object.fromEntries(
    Object.entries(out).map(([k, v]) => [k, { requests: v.requests, points: v.points.toString() }]),
  );
}

/**
 * flat: the CLI's own dry-run plan (the planned billable tests on a fresh embedded reference, at its
 * flat prices). scaled: a whole run of the CLI against a reference started here with the option
 * mediaPricing 'scaled', counted the same way (billableByModel); priced like a deployment a run can
 * spend more than the primary account's 1,000 points, so the enterprise account (250,000) pays for
 * the primary role and no hold is cut short by the balance.
 */
async function planOf(profile: Profile): Promise<{ plan?: Plan; purchases?: Purchase[]; run: Spawned }> {
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
      return { run, purchases: purchasesOf(report), ...(s.plan ? { plan: s.plan } : {}) };
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
      return { run, plan, purchases: purchasesOf(report) };
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
  const { plan, purchases = [], run } = await planOf(profile);
  if (!plan) {
    console.log(`  ${profile}: ERROR no plan (exit ${run.code}): ${tail(run)}`);
    rows.push({ profile, error: tail(run) });
    continue;
  }
  const design = coveringPlan(media, profile);
  const mediaPlan = plan.billable.filter((b) => b.model in media.models);
  const cover = coveringFloor(profile);
  rows.push({
    profile,
    billableRequests: plan.totalRequests,
    points: plan.totalPoints,
    mediaJobs: mediaPlan.reduce((n, b) => n + b.requests, 0),
    mediaPoints: mediaPlan.reduce((n, b) => n.plus(b.points), new Decimal(0)).toString(),
    coveringJobs: design.total,
    coveringByOutput: design.byOutput,
    coveringPoints: designPoints(profile).toString(),
    coveringFloor: cover.points.toDecimalPlaces(2).toString(),
    ratioToFloor: new Decimal(plan.totalPoints).div(cover.points).toDecimalPlaces(2).toNumber(),
    allValuesBound: cover.bound.toDecimalPlaces(2).toString(),
    ratioToBound: new Decimal(plan.totalPoints).div(cover.bound).toDecimalPlaces(2).toNumber(),
    floorByModel: cover.byModel,
    byModel: plan.billable,
    byCategory: byCategory(purchases),
    byTest: purchases,
    wallMs: Math.round(run.wallMs),
  });
  console.log(
    `  ${profile}: ${plan.totalRequests} billable requests, ${plan.totalPoints} points (${(run.wallMs / 1000).toFixed(0)} s)`,
  );
  console.log(
    `    by category: ${Object.entries(byCategory(purchases))
      .map(([k, v]) => `${k} ${v.requests} requests, ${new Decimal(v.points).toDecimalPlaces(2)} points`)
      .join('; ')}`,
  );
  if (values['by-test'])
    for (const p of purchases.slice(0, 40))
      console.log(
        `    ${new Decimal(p.points).toFixed(2).padStart(8)}  ${String(p.requests).padStart(3)}  ${p.model}  ${p.test}`,
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
      'covering floor',
      'plan / floor',
      'all-values bound',
      'plan / bound',
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
        String(r.coveringFloor),
        `${r.ratioToFloor}x`,
        String(r.allValuesBound),
        `${r.ratioToBound}x`,
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
