// The real CLI in a child process, bounded: for the mutation matrix's spawned rows and the project's own tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { pkgPath } from '../src/paths.ts';
import { HANG_BOUND_MS } from './bounds.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the real CLI in a child process (bounded). `watch`, if given, is called with the child once it is
 * started and returns what to call when it has closed (a test that samples the child while it runs).
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = HANG_BOUND_MS,
  watch?: (child: ChildProcess) => () => void,
): Promise<CliRun> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONFORMANCE_')) clean[k] = v;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [pkgPath('bin', 'gateway-conformance.mjs'), ...args], {
      env: { ...clean, ...env },
      cwd: pkgPath(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const unwatch = watch?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      unwatch?.();
      resolve({ code, stdout, stderr });
    });
  });
}
