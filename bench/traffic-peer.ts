/**
 * bench/traffic-peer.ts: check-traffic side by side with the closest peer, Redocly CLI's `drift` (HAR
 * against an OpenAPI description, one exchange at a time: no sequences, streams, billing or redaction).
 *
 *   node --import tsx bench/traffic-peer.ts [--repeat N]... [--description FILE] [--no-peer]
 *                                            [--before OTHER_CHECKOUT/bin/gateway-conformance.mjs] [--floor]
 *                                            FILE.har...
 *
 * Judges each capture with both CLIs, one after the other, each a fresh process under /usr/bin/time:
 * wall, CPU (user + system) and peak RSS, and the peer's figures over ours. `--repeat N` judges each
 * FILE also repeated N times (its entries written N times into one capture, as larger captures of the
 * same traffic; several: several sizes). The description the peer validates against is `--description`,
 * else the one check-traffic judged against (the capture's own GET /openapi.json, kept in its report);
 * the peer's `--server` is the capture's first origin. The peer is installed on first use into
 * bench/peer/node_modules (`npm install --prefix bench/peer`, git-ignored): it is a dependency of this
 * bench only, never of the suite. `--no-peer`: our figures alone. `--before CLI`: another checkout's CLI
 * judges each capture too (before a change), its figures over ours printed as well. Each CLI is started
 * once with `--help` just before it is measured: it builds its bundle then (bin/launch.mjs), not in the
 * measured run (checkouts that share one node_modules rebuild each other's). `--floor`: the floor too
 * (bench/traffic-floor.ts: the capture read, cut into entries and every entry and JSON body parsed, nothing
 * judged), in one thread and in two, and what 1.5 times the peer's rate leaves for the judging.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { harItems } from '../src/traffic/har-stream.ts';
import { intFlag, ROOT, round, table, usage, warnIfBusy, writeResult } from './lib.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    repeat: { type: 'string', multiple: true },
    description: { type: 'string' },
    'no-peer': { type: 'boolean' },
    before: { type: 'string' },
    floor: { type: 'boolean' },
    help: { type: 'boolean' },
  },
});
const USAGE =
  'node --import tsx bench/traffic-peer.ts [--repeat N]... [--description FILE] [--no-peer] [--before CLI] [--floor] FILE.har...';
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length === 0) usage(`name one or more HAR captures\n${USAGE}`);
const repeats = (values.repeat ?? []).map((r) => intFlag(r, '--repeat', 1, 2, 10_000));
const TIME = '/usr/bin/time';
if (!existsSync(TIME)) usage(`${TIME} is needed for the peak RSS of each process (GNU time)`);
warnIfBusy();

const PEER_DIR = join(ROOT, 'bench', 'peer');
/** The floor's threads (--floor): as many as check-traffic starts on this 2-core machine. */
const FLOOR_THREADS = 2;
const REDOCLY = join(PEER_DIR, 'node_modules', '.bin', 'redocly');
const dir = mkdtempSync(join(tmpdir(), 'bench-traffic-peer-'));

interface Measured {
  code: number | null;
  wallS: number;
  cpuS: number;
  maxRssMiB: number;
  out: string;
}

/** `cmd args` under GNU time: its exit code, wall, CPU and peak RSS, and its output's last lines. */
function measured(cmd: string, args: string[], timeoutMs = 1_800_000): Promise<Measured> {
  return new Promise((done) => {
    const child = spawn(TIME, ['-f', 'TIME %e %U %S %M', cmd, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out = (out + d.toString()).slice(-4000);
    });
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(err);
      done({
        code,
        wallS: m ? Number(m[1]) : Number.NaN,
        cpuS: m ? round(Number(m[2]) + Number(m[3]), 2) : Number.NaN,
        maxRssMiB: m ? Math.round(Number(m[4]) / 1024) : Number.NaN,
        out: `${out}\n${err.replace(/TIME [\d. ]+\s*$/, '')}`.trim().split('\n').slice(-3).join(' | '),
      });
    });
  });
}

/** A table row of `a`'s figures over `b`'s (wall, CPU, peak RSS). */
function ratioRow(label: string, a: Measured, b: Measured): Array<string | number> {
  return [
    '',
    '',
    '',
    label,
    round(a.wallS / b.wallS, 2),
    round(a.cpuS / b.cpuS, 2),
    round(a.maxRssMiB / b.maxRssMiB, 2),
    '',
    '',
  ];
}

/** The peer, installed into bench/peer on first use; undefined (and why, printed) when it cannot be. */
async function peer(): Promise<string | undefined> {
  if (existsSync(REDOCLY)) return REDOCLY;
  console.log(`installing the peer into ${PEER_DIR} (npm install --prefix bench/peer) ...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = await measured(npm, ['install', '--prefix', PEER_DIR, '--no-audit', '--no-fund'], 600_000);
  if (r.code === 0 && existsSync(REDOCLY)) return REDOCLY;
  console.log(`the peer could not be installed (npm exit ${r.code}): ${r.out}`);
  return undefined;
}

/** A capture of `file`'s entries written `n` times over (as the issue's larger captures were made). */
async function repeated(file: string, n: number): Promise<string> {
  const entries: string[] = [];
  for await (const item of harItems(file))
    if (item.kind === 'entry') entries.push(JSON.stringify(item.value));
  const outFile = join(dir, `${basename(file, '.har')}-x${n}.har`);
  const out = createWriteStream(outFile);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write('{"log":{"version":"1.2","creator":{"name":"bench","version":"1"},"entries":[\n');
  let k = 0;
  for (let c = 0; c < n; c++) for (const e of entries) await write(`${k++ === 0 ? '' : ',\n'}${e}`);
  await write('\n]}}\n');
  await new Promise<void>((r) => out.end(r));
  return outFile;
}

/** The exchanges a drift report says it read, or undefined when there is no such report. */
function driftExchanges(file: string): number | undefined {
  try {
    const n = (JSON.parse(readFileSync(file, 'utf8')) as { run?: { totalExchanges?: unknown } }).run
      ?.totalExchanges;
    return typeof n === 'number' ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The first origin a capture's requests went to (the peer's --server). */
async function firstOrigin(file: string): Promise<string | undefined> {
  for await (const item of harItems(file)) {
    if (item.kind !== 'entry') continue;
    try {
      return new URL((item.value as { request: { url: string } }).request.url).origin;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const captures: string[] = [];
for (const f of positionals) {
  if (!existsSync(f)) usage(`no such file: ${f}`);
  captures.push(f);
  for (const n of repeats) captures.push(await repeated(f, n));
}
const redocly = values['no-peer'] ? undefined : await peer();

const rows: Array<Array<string | number>> = [
  ['capture', 'MB', 'exchanges', 'who', 'wall s', 'CPU s', 'RSS MiB', 'exchanges/s', 'exit'],
];
const results: Array<Record<string, unknown>> = [];
for (const file of captures) {
  const mb = round(statSync(file).size / 1e6, 0);
  const report = join(dir, `report-${basename(file, '.har')}`);
  const judgeWith = async (cli: string, reportDir: string) => {
    await measured(process.execPath, [cli, 'check-traffic', '--help']);
    return measured(process.execPath, [
      cli,
      'check-traffic',
      '--report-dir',
      reportDir,
      ...(values.description ? ['--description', values.description] : []),
      file,
    ]);
  };
  const before = values.before ? await judgeWith(values.before, `${report}-before`) : undefined;
  const ours = await judgeWith(join(ROOT, 'bin', 'gateway-conformance.mjs'), report);
  const verdict = /VERDICT: .*/.exec(ours.out)?.[0] ?? ours.out;
  const exchanges = Number(/(\d+) of \d+ entries judged/.exec(ours.out)?.[1] ?? Number.NaN);
  const rate = (m: Measured) => Math.round(exchanges / m.wallS);
  rows.push([
    basename(file),
    mb,
    exchanges,
    'check-traffic',
    ours.wallS,
    ours.cpuS,
    ours.maxRssMiB,
    rate(ours),
    ours.code ?? 'killed',
  ]);
  const result: Record<string, unknown> = { capture: basename(file), mb, exchanges, ours, verdict };
  if (before) {
    rows.push([
      '',
      '',
      '',
      'before',
      before.wallS,
      before.cpuS,
      before.maxRssMiB,
      rate(before),
      before.code ?? 'killed',
    ]);
    rows.push(ratioRow('before / ours', before, ours));
    result.before = before;
  }
  if (values.floor) {
    // What a design that judged for free would take (bench/traffic-floor.ts): read, cut, parse.
    const floor: Record<string, Measured> = {};
    for (const threads of [0, FLOOR_THREADS]) {
      const m = await measured(process.execPath, [
        '--import',
        'tsx',
        join(ROOT, 'bench', 'traffic-floor.ts'),
        '--threads',
        String(threads),
        file,
      ]);
      floor[threads] = m;
      rows.push([
        '',
        '',
        '',
        threads ? `floor, ${threads} threads` : 'floor, 1 thread',
        m.wallS,
        m.cpuS,
        m.maxRssMiB,
        rate(m),
        m.code ?? 'killed',
      ]);
    }
    result.floor = floor;
  }
  const description = values.description ?? join(report, 'openapi.json');
  const server = await firstOrigin(file);
  if (redocly && existsSync(description) && server) {
    const driftReport = join(dir, `drift-${basename(file, '.har')}.json`);
    const theirs = await measured(redocly, [
      'drift',
      file,
      '--api',
      description,
      '--server',
      server,
      '--format',
      'json',
      '-o',
      driftReport,
    ]);
    // drift exits 1 both when it finds drift and when it fails (a file too large to read as one
    // string): it finished when its report says how many exchanges it read.
    const finished = driftExchanges(driftReport) !== undefined;
    rows.push([
      '',
      '',
      '',
      'redocly drift',
      theirs.wallS,
      theirs.cpuS,
      theirs.maxRssMiB,
      finished ? rate(theirs) : '-',
      finished ? theirs.code! : `failed (${theirs.code})`,
    ]);
    if (finished) rows.push(ratioRow('drift / ours', theirs, ours));
    if (finished && values.floor)
      console.log(
        `${basename(file)}: 1.5 times drift's rate is at most ${round(theirs.wallS / 1.5, 2)} s wall; the floor with ${FLOOR_THREADS} threads leaves ${round(theirs.wallS / 1.5 - (result.floor as Record<string, Measured>)[FLOOR_THREADS]!.wallS, 2)} s for all the judging`,
      );
    if (!finished) console.log(`redocly drift on ${basename(file)} did not finish: ${theirs.out}`);
    result.peer = { ...theirs, finished };
  } else if (redocly)
    result.peer = `not run: ${server ? `no description (${description})` : 'no origin in the capture'}`;
  console.log(`${basename(file)}: ${verdict}`);
  results.push(result);
}
console.log(table(rows));
console.log(`result: ${writeResult('traffic-peer', { results })}`);
rmSync(dir, { recursive: true, force: true });
