/**
 * Hostile targets, before and after: runs a CLI (this checkout's, or another checkout's with --cli) as a
 * child process against the hostile-server fixture in one mode, and reports its wall time, peak memory
 * (VmHWM of the CLI process, sampled from /proc every 100 ms; worker threads are in it), exit code, the
 * report files written, the size of summary.json, the windows of 12 characters of any key found in each
 * output (raw, URL-encoded, JSON-escaped, base64) and the side effects the reference behind the proxy
 * accepted (non-GET 2xx). The child is killed (SIGKILL) at --limit-s.
 *
 *   node --import tsx bench/hostile.ts --mode biglist [--items 40000] [--suite models|''] [--limit-s 300]
 *        [--cli /work/main/bin/gateway-conformance.mjs] [--allow read] [--enum-bytes N] [--depth N]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FRAGMENT_CHARS } from '../src/http/redact.ts';
import { pkgPath } from '../src/paths.ts';
import { type HostileMode, startHostile } from '../tools/hostile-server.ts';
import { findLeaks } from '../tools/leaks.ts';
import { writeRefTargets } from '../tools/ref-target.ts';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'biglist' },
    items: { type: 'string' },
    'invalid-entries': { type: 'boolean' },
    'enum-bytes': { type: 'string' },
    depth: { type: 'string' },
    suite: { type: 'string', default: 'models' },
    allow: { type: 'string', default: 'read' },
    cli: { type: 'string', default: pkgPath('bin', 'gateway-conformance.mjs') },
    'limit-s': { type: 'string', default: '300' },
  },
});

function peakKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const server = await startHostile({
  mode: values.mode as HostileMode,
  ...(values.items ? { items: Number(values.items) } : {}),
  ...(values['invalid-entries'] ? { invalidEntries: true } : {}),
  ...(values['enum-bytes'] ? { enumBytes: Number(values['enum-bytes']) } : {}),
  ...(values.depth ? { depth: Number(values.depth) } : {}),
});
const dir = mkdtempSync(join(tmpdir(), 'gc-hostile-bench-'));
const targets = join(dir, 'targets.yaml');
const env = writeRefTargets(server as never, targets, { requestMs: 30_000, concurrency: 2 });
const reportDir = join(dir, 'report');
const clean: NodeJS.ProcessEnv = {};
for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONFORMANCE_')) clean[k] = v;
const args = [values.cli, '--targets', targets, '--target', 'ref', '--allow', values.allow, '--quiet'];
if (values.suite) args.push('--suite', values.suite);
args.push('--report-dir', reportDir);
const started = performance.now();
const child = spawn(process.execPath, args, {
  cwd: join(values.cli, '..', '..'),
  env: { ...clean, ...env },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let out = '';
child.stdout.on('data', (d) => {
  out += d;
});
child.stderr.on('data', (d) => {
  out += d;
});
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, peakKb(child.pid!));
}, 100);
let killed = false;
const limit = setTimeout(() => {
  killed = true;
  child.kill('SIGKILL');
}, Number(values['limit-s']) * 1000);
const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
clearInterval(sampler);
clearTimeout(limit);
const wallS = (performance.now() - started) / 1000;
const files = existsSync(reportDir) ? readdirSync(reportDir).sort() : [];
// Key material: windows of FRAGMENT_CHARS characters of any key (raw, URL-encoded, JSON-escaped,
// base64) in each output, and the side effects the target behind the proxy accepted.
const leaks: Record<string, number> = {};
for (const [name, text] of [
  ['stdout+stderr', out] as const,
  ...files.map((f) => [f, readFileSync(join(reportDir, f), 'utf8')] as const),
]) {
  const n = findLeaks(text, server.keys, FRAGMENT_CHARS, 10_000_000).length;
  if (n > 0) leaks[name] = n;
}
const summaryBytes = files.includes('summary.json')
  ? statSync(join(reportDir, 'summary.json')).size
  : undefined;
console.log(
  JSON.stringify(
    {
      mode: values.mode,
      cli: values.cli,
      wallS: Math.round(wallS * 10) / 10,
      peakMb: Math.round(peak / 1024),
      exit: killed ? `killed at ${values['limit-s']} s` : code,
      report: files.includes('summary.json') ? 'written' : 'none',
      summaryBytes,
      files,
      requests: server.requests(),
      keyFragmentWindows: leaks,
      sideEffects: server.effects().length,
      tail: out.trim().split('\n').slice(-3),
    },
    null,
    2,
  ),
);
await server.close();
