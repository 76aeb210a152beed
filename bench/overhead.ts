/**
 * bench/overhead.ts: the harness's own cost per exchange, against the reference with no latency.
 *
 *   node --import tsx bench/overhead.ts [--n 20000] [--round-trips 3000] [--fresh | --no-e2e]
 *
 * (a) end to end: exchanges per wall second of a whole CLI run against the embedded reference
 *     (from the newest reports/bench/standard-*.json, or a fresh run with --fresh);
 * (b) validation alone: the checks every exchange of a test gets (CheckContext.checkExchange:
 *     genericChecks, secretLeaks, pointsChecks, suspiciousFields, LiveDescription.checkResponse)
 *     on a representative mix of real reference responses fetched once, N times on one core;
 *     plus what the worker does to record an exchange (JSON line appended to exchanges.ndjson);
 * (c) round trip: HttpClient requests to the reference in this same process, one at a time
 *     (concurrency 1): sending alone, then sending + validating + recording.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startReference } from '../reference/start.ts';
import { type Finding, genericChecks, secretLeaks } from '../src/checks/exchange.ts';
import { pointsChecks } from '../src/checks/exchange-points.ts';
import { suspiciousFields } from '../src/checks/leaks.ts';
import { HttpClient, type HttpResponse, type RequestSpec } from '../src/http/client.ts';
import { Redactor } from '../src/http/redact.ts';
import { LiveDescription } from '../src/openapi/live.ts';
import {
  intFlag,
  median,
  ROOT,
  readSummary,
  round,
  spawnNode,
  tail,
  warnIfBusy,
  writeResult,
} from './lib.ts';

const TARGET_VALIDATIONS_PER_S = 1000;

const { values } = parseArgs({
  options: {
    n: { type: 'string' },
    'round-trips': { type: 'string' },
    fresh: { type: 'boolean' },
    'no-e2e': { type: 'boolean' },
    help: { type: 'boolean' },
  },
  strict: true,
});
if (values.help) {
  console.log('node --import tsx bench/overhead.ts [--n 20000] [--round-trips 3000] [--fresh | --no-e2e]');
  process.exit(0);
}
warnIfBusy();
const N = intFlag(values.n, '--n', 20_000, 100, 10_000_000);
const ROUND_TRIPS = intFlag(values['round-trips'], '--round-trips', 3000, 10, 1_000_000);

// ---- (a) end to end -------------------------------------------------------------------------------
async function endToEnd(): Promise<Record<string, unknown> | undefined> {
  if (values['no-e2e']) return undefined;
  const dir = join(ROOT, 'reports', 'bench');
  if (!values.fresh) {
    let files: string[] = [];
    try {
      files = readdirSync(dir)
        .filter((f) => /^standard-.*\.json$/.test(f))
        .sort();
    } catch {
      // no earlier results
    }
    const latest = files.at(-1);
    if (latest) {
      const r = JSON.parse(readFileSync(join(dir, latest), 'utf8')) as {
        wallMs?: { median: number };
        exchanges?: number;
        exchangesPerSecond?: { median: number };
      };
      if (r.exchangesPerSecond?.median)
        return {
          source: `reports/bench/${latest}`,
          wallMs: r.wallMs?.median,
          exchanges: r.exchanges,
          exchangesPerWallSecond: r.exchangesPerSecond.median,
        };
    }
  }
  const tmp = mkdtempSync(join(tmpdir(), 'gc-bench-overhead-'));
  try {
    const run = await spawnNode('bin/gateway-conformance.mjs', ['--quiet', '--report-dir', join(tmp, 'r')]);
    try {
      const s = readSummary(join(tmp, 'r'));
      return {
        source: 'fresh run',
        wallMs: Math.round(run.wallMs),
        exchanges: s.exchanges.count,
        exchangesPerWallSecond: round(s.exchanges.count / (run.wallMs / 1000)),
      };
    } catch {
      return { source: 'fresh run', error: `no summary (exit ${run.code}): ${tail(run)}` };
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const e2e = await endToEnd();

// ---- the reference, in this process, no latency ---------------------------------------------------
const ref = await startReference({ port: 0, latencyMs: 0 });
const handle = ref as typeof ref & { canaries?: string[] };
const keys = ref.keys;
const redactor = new Redactor(keys);
const secrets = [
  ...Object.entries(keys).map(([label, value]) => ({ label: `${label} key`, value })),
  ...(handle.canaries ?? []).map((value, i) => ({ label: `canary #${i + 1}`, value })),
];
const client = new HttpClient({ baseUrl: ref.url, timeoutMs: 30_000, redactor, testName: 'bench' });
const auth = { authorization: `Bearer ${keys.primary}` };
const desc = await client.send({ method: 'GET', path: '/openapi.json', headers: auth });
const liveStarted = performance.now();
const live = new LiveDescription(desc.json as Record<string, unknown>);
const liveCompileMs = performance.now() - liveStarted;

const MIX: Array<{ label: string; spec: RequestSpec }> = [
  { label: 'GET /healthz', spec: { method: 'GET', path: '/healthz' } },
  { label: 'GET /v1/models', spec: { method: 'GET', path: '/v1/models', headers: auth } },
  { label: 'GET /v1/balance', spec: { method: 'GET', path: '/v1/balance', headers: auth } },
  { label: 'GET /v1/media/models', spec: { method: 'GET', path: '/v1/media/models', headers: auth } },
  { label: 'GET /v1/usage', spec: { method: 'GET', path: '/v1/usage', headers: auth } },
  {
    label: 'POST /v1/chat/completions',
    spec: {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: auth,
      json: { model: ref.hints.chat, messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 2 },
    },
  },
  {
    label: 'POST /v1/embeddings',
    spec: {
      method: 'POST',
      path: '/v1/embeddings',
      headers: auth,
      json: { model: ref.hints.embedding, input: 'ok' },
    },
  },
  { label: 'GET /v1/models (401)', spec: { method: 'GET', path: '/v1/models' } },
  {
    label: 'POST /v1/chat/completions (400)',
    spec: { method: 'POST', path: '/v1/chat/completions', headers: auth, json: { model: ref.hints.chat } },
  },
];

/** What CheckContext.checkExchange runs on every exchange. */
function validate(res: HttpResponse): Finding[] {
  return [
    ...genericChecks(res),
    ...secretLeaks(res, secrets),
    ...pointsChecks(res),
    ...suspiciousFields(res),
    ...live.checkResponse(res),
  ];
}

const samples: Array<{ label: string; res: HttpResponse }> = [];
for (const m of MIX) samples.push({ label: m.label, res: await client.send(m.spec) });

// ---- (b) validation alone -------------------------------------------------------------------------
// Warm-up (compiles the ajv validators of each operation, JIT), then N validations round robin.
for (let i = 0; i < 2000; i++) validate(samples[i % samples.length]!.res);
const perKind = new Map<string, number[]>();
const runs: number[] = [];
let findings = 0;
for (let round_ = 0; round_ < 3; round_++) {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    findings += validate(samples[i % samples.length]!.res).length;
  }
  runs.push(performance.now() - t0);
}
const validationMs = median(runs);
for (const s of samples) {
  const k = Math.max(200, Math.floor(N / samples.length));
  const t0 = performance.now();
  for (let i = 0; i < k; i++) validate(s.res);
  perKind.set(s.label, [(performance.now() - t0) / k, s.res.status, s.res.body.length]);
}
// Which check costs what: each of the five alone over the mix.
const CHECKS: Array<[string, (res: HttpResponse) => Finding[]]> = [
  ['genericChecks', genericChecks],
  ['secretLeaks', (res) => secretLeaks(res, secrets)],
  ['pointsChecks', pointsChecks],
  ['suspiciousFields', suspiciousFields],
  ['LiveDescription.checkResponse', (res) => live.checkResponse(res)],
];
const perCheck: Record<string, number> = {};
for (const [name, fn] of CHECKS) {
  const k = Math.max(900, Math.floor(N / 4));
  const t0 = performance.now();
  for (let i = 0; i < k; i++) fn(samples[i % samples.length]!.res);
  perCheck[name] = round(((performance.now() - t0) * 1000) / k, 1);
}
// Recording: the worker appends every exchange as a JSON line (appendFileSync).
const tmp = mkdtempSync(join(tmpdir(), 'gc-bench-record-'));
const ndjson = join(tmp, 'exchanges.ndjson');
const recT0 = performance.now();
for (let i = 0; i < N; i++)
  appendFileSync(ndjson, `${JSON.stringify(samples[i % samples.length]!.res.exchange)}\n`);
const recordMs = performance.now() - recT0;

// ---- (c) round trips, one at a time ---------------------------------------------------------------
// Without GET /v1/usage: every chat and embedding call adds a usage record and the reference lists
// them all, so that reply would grow through the loop (its cost is measured on its own below).
const TRIP_MIX = MIX.filter((m) => m.label !== 'GET /v1/usage');
async function roundTrips(withChecks: boolean): Promise<{ ms: number; statuses: Record<string, number> }> {
  const statuses: Record<string, number> = {};
  const t0 = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const res = await client.send(TRIP_MIX[i % TRIP_MIX.length]!.spec);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (withChecks) {
      validate(res);
      appendFileSync(ndjson, `${JSON.stringify(res.exchange)}\n`);
    }
  }
  return { ms: performance.now() - t0, statuses };
}
await roundTrips(false); // warm-up: connections, server JIT
const bare = await roundTrips(false);
const checked = await roundTrips(true);
// A large reply: the usage list after the round trips (thousands of records); checks scale with size.
const big = await client.send({ method: 'GET', path: '/v1/usage', headers: auth });
const bigT0 = performance.now();
for (let i = 0; i < 10; i++) validate(big);
const bigMs = (performance.now() - bigT0) / 10;
await ref.close();
rmSync(tmp, { recursive: true, force: true });

const validationsPerSecond = Math.round(N / (validationMs / 1000));
const result = {
  n: N,
  roundTrips: ROUND_TRIPS,
  targetValidationsPerSecond: TARGET_VALIDATIONS_PER_S,
  endToEnd: e2e ?? 'skipped',
  liveDescriptionCompileMs: round(liveCompileMs),
  validation: {
    validationsPerSecond,
    usPerValidation: round((validationMs * 1000) / N, 1),
    repeats: runs.map((r) => Math.round(r)),
    findingsPerPass: findings / 3,
    usPerCheck: perCheck,
    perResponse: Object.fromEntries(
      [...perKind].map(([label, [us, status, bytes]]) => [
        label,
        { usPerValidation: round(us! * 1000, 1), status, bytes },
      ]),
    ),
  },
  recording: { perSecond: Math.round(N / (recordMs / 1000)), usPerExchange: round((recordMs * 1000) / N, 1) },
  largeReply: {
    what: 'GET /v1/usage after the round trips',
    status: big.status,
    bytes: big.body.length,
    msPerValidation: round(bigMs, 2),
    usPerKiB: round((bigMs * 1000) / (big.body.length / 1024), 1),
  },
  roundTrip: {
    note: 'client and reference in one process, one request at a time, the mix without GET /v1/usage; includes the reference server',
    bare: { exchangesPerSecond: Math.round(ROUND_TRIPS / (bare.ms / 1000)), statuses: bare.statuses },
    withValidationAndRecording: {
      exchangesPerSecond: Math.round(ROUND_TRIPS / (checked.ms / 1000)),
      statuses: checked.statuses,
    },
  },
  withinTarget: validationsPerSecond > TARGET_VALIDATIONS_PER_S,
};
const file = writeResult('overhead', result);

if (e2e && 'exchangesPerWallSecond' in e2e)
  console.log(
    `(a) end to end: ${e2e.exchangesPerWallSecond} exchanges per wall second (${e2e.exchanges} exchanges in ${((Number(e2e.wallMs) || 0) / 1000).toFixed(1)} s; ${e2e.source})`,
  );
else if (e2e) console.log(`(a) end to end: ERROR ${String(e2e.error)}`);
console.log(
  `(b) validation: ${validationsPerSecond} validations/s on one core (${result.validation.usPerValidation} µs each, ${samples.length} response kinds, N=${N}; target > ${TARGET_VALIDATIONS_PER_S}/s: ${result.withinTarget ? 'met' : 'MISSED'}); live description compiled in ${result.liveDescriptionCompileMs} ms`,
);
for (const [label, v] of Object.entries(result.validation.perResponse))
  console.log(
    `      ${label.padEnd(32)} ${String(v.usPerValidation).padStart(7)} µs  (${v.status}, ${v.bytes} bytes)`,
  );
console.log(
  `    by check, µs per response of the mix: ${Object.entries(perCheck)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`,
);
console.log(
  `    recording an exchange (JSON line, appendFileSync): ${result.recording.usPerExchange} µs (${result.recording.perSecond}/s)`,
);
console.log(
  `    a large reply (${result.largeReply.what}, ${Math.round(result.largeReply.bytes / 1024)} KiB): ${result.largeReply.msPerValidation} ms per validation (${result.largeReply.usPerKiB} µs/KiB)`,
);
console.log(
  `(c) round trip, concurrency 1, one process: ${result.roundTrip.bare.exchangesPerSecond} exchanges/s bare, ${result.roundTrip.withValidationAndRecording.exchangesPerSecond} exchanges/s validated and recorded`,
);
console.log(`result: ${file}`);
