import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { CONTRACT_PATH, fold } from '../src/contract.ts';
import { pkgPath } from '../src/paths.ts';
import { HANG_BOUND_MS } from './support/bounds.ts';

export { CONTRACT_PATH };

/** The contract's text, whitespace folded; undefined when shared/ is not beside the checkout. */
export function contractText(): string | undefined {
  if (!existsSync(CONTRACT_PATH)) return undefined;
  return fold(readFileSync(CONTRACT_PATH, 'utf8'));
}

export { fold };

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the real CLI in a child process (bounded). */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = HANG_BOUND_MS,
): Promise<CliRun> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CONFORMANCE_')) clean[k] = v;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [pkgPath('bin', 'gateway-conformance.mjs'), ...args], {
      env: { ...clean, ...env },
      cwd: pkgPath(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
      resolve({ code, stdout, stderr });
    });
  });
}
