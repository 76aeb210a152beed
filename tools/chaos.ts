/**
 * tools/chaos.ts: the suite against targets that mangle their replies at random (tools/hostile-server.ts
 * `chaos`), one run per seed: whatever a target sends, the run must blame the target, never the harness.
 *
 *   node --import tsx tools/chaos.ts [--seeds 1-5] [--rate 0.25] [--description] [--misses] [-- CLI ARGS]
 *
 * For each seed it prints the run's exit code, the replies mangled, harness errors, stack traces and
 * "internal error" in the output; with --misses, each mangled reply the suite recorded that no finding
 * cites. A miss is a lead, not a verdict: many manglings break no rule (a header the contract does not
 * name, another 4xx where "any 4xx refusal" is allowed, a value inside a documented range), and a
 * finding a test met again with the same words cites only its first reply. Exit 1 when any run ended
 * without its report, with a harness error, a stack trace or an internal error; 2 on bad flags.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from './bounds.ts';
import { hostileTarget, STACK_FRAME } from './hostile-server.ts';
import { runCli } from './run-cli.ts';

const USAGE =
  'node --import tsx tools/chaos.ts [--seeds 1-5|1,4,9] [--rate 0.25] [--description] [--misses] [-- CLI ARGS]';

function fail(message: string): never {
  console.error(`chaos: ${message}\nusage: ${USAGE}`);
  process.exit(2);
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      seeds: { type: 'string', default: '1-5' },
      rate: { type: 'string', default: '0.25' },
      description: { type: 'boolean', default: false },
      misses: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
}
try {
  parsed = parse();
} catch (err) {
  fail((err as Error).message);
}
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}

/** `1-5` or `1,4,9`: the seeds, each a non-negative integer. */
function seedsOf(text: string): number[] {
  const range = /^(\d+)-(\d+)$/.exec(text);
  const seeds = range
    ? Array.from(
        { length: Math.max(0, Number(range[2]) - Number(range[1]) + 1) },
        (_, i) => Number(range[1]) + i,
      )
    : text.split(',').map((s) => (/^\d+$/.test(s.trim()) ? Number(s) : Number.NaN));
  if (seeds.length === 0 || seeds.length > 1000 || seeds.some((s) => !Number.isSafeInteger(s)))
    fail(`--seeds '${text}' is not a range (1-5) or a list (1,4,9) of at most 1,000 seeds`);
  return seeds;
}

const seeds = seedsOf(parsed.values.seeds);
const rate = Number(parsed.values.rate);
if (!(rate >= 0 && rate <= 1)) fail(`--rate '${parsed.values.rate}' is not a share between 0 and 1`);
const cliArgs = parsed.positionals.length > 0 ? parsed.positionals : ['--allow', 'all'];

let bad = 0;
for (const seed of seeds) {
  const { server, env, args, report } = await hostileTarget({
    mode: 'chaos',
    seed,
    rate,
    description: parsed.values.description,
  });
  try {
    const started = Date.now();
    const run = await runCli([...args, '--report-dir', report, ...cliArgs], env, HANG_BOUND_MS);
    const out = `${run.stdout}\n${run.stderr}`;
    const stack = out.split('\n').filter((l) => STACK_FRAME.test(l)).length;
    const internal = /internal error/i.test(out);
    const summaryFile = join(report, 'summary.json');
    const summary = existsSync(summaryFile)
      ? (JSON.parse(readFileSync(summaryFile, 'utf8')) as Summary)
      : undefined;
    const harness = summary?.counts.harness_error;
    const mangled = server.mangled();
    console.log(
      `seed ${seed}: exit ${run.code}, ${Math.round((Date.now() - started) / 1000)} s, ${mangled.length} of ${server.requests()} replies mangled, harness errors ${harness ?? 'no report'}, stack lines ${stack}, internal error ${internal ? 'yes' : 'no'} (report ${report})`,
    );
    if (!summary || harness !== 0 || stack > 0 || internal) {
      bad++;
      for (const t of summary?.tests.filter((x) => x.outcome === 'harness_error') ?? [])
        console.log(
          `  harness error: ${t.title}\n    ${(t.error ?? '').split('\n').slice(0, 4).join('\n    ')}`,
        );
      if (!summary || stack > 0 || internal) console.log(out.slice(-3000));
    }
    if (parsed.values.misses && summary) {
      const cited = new Set<string>();
      for (const t of summary.tests)
        for (const v of t.violations ?? []) if (v.exchangeId) cited.add(v.exchangeId);
      // A test's finding met again with the same words cites only its first reply: a mangled reply of a
      // test that has a finding on the same endpoint and status is counted as such a repeat, not listed.
      const byRequestId = new Map<string, string>();
      const place = new Map<string, string>();
      for (const line of readFileSync(join(report, 'exchanges.ndjson'), 'utf8').split('\n')) {
        if (!line) continue;
        const x = JSON.parse(line) as {
          id: string;
          requestId?: string;
          test?: string;
          method: string;
          path: string;
          status?: number;
        };
        if (x.requestId) byRequestId.set(x.requestId, x.id);
        place.set(
          x.id,
          `${x.test} ${x.method} ${x.path.replace(/\/[a-z]+_[0-9a-f]{8,}/g, '/{id}')} ${x.status}`,
        );
      }
      const citedPlaces = new Set([...cited].map((id) => place.get(id)));
      let recorded = 0;
      let repeats = 0;
      const missed: string[] = [];
      for (const m of mangled) {
        const id = byRequestId.get(m.slice(0, m.indexOf(' ')));
        if (id === undefined) continue;
        recorded++;
        if (cited.has(id)) continue;
        if (citedPlaces.has(place.get(id))) repeats++;
        else missed.push(m.slice(m.indexOf(' ') + 1));
      }
      console.log(
        `  ${recorded} mangled replies recorded, ${recorded - missed.length - repeats} cited by a finding, ${repeats} in a test with a finding on the same endpoint and status (a repeat cites its first reply only)`,
      );
      for (const m of missed) console.log(`  not cited: ${m}`);
    }
  } finally {
    await server.close();
  }
}
if (bad > 0) {
  console.log(`chaos: ${bad} of ${seeds.length} run(s) blamed the harness or ended without a report`);
  process.exit(1);
}
console.log(`chaos: ${seeds.length} run(s), the target blamed in each, no harness error`);
