import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { ROLE_NAMES } from '../../reference/fixtures.ts';

const BIN = fileURLToPath(new URL('../../bin/reference.mjs', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

/** Starts the CLI and resolves with its env lines once they are all printed. */
async function launch(args: string[]): Promise<Record<string, string>> {
  child = spawn(process.execPath, [BIN, ...args]);
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    if (out.includes('CONFORMANCE_MODEL_FORBIDDEN=') && out.endsWith('\n')) break;
  }
  // Each line is `export NAME='value'`: what a shell that evals them gets.
  return Object.fromEntries(
    out
      .split('\n')
      .filter((line) => line.startsWith('export CONFORMANCE_'))
      .map((line) => {
        const m = /^export (\w+)='(.*)'$/.exec(line);
        expect(m, line).not.toBeNull();
        return [m![1]!, m![2]!.replaceAll("'\\''", "'")];
      }),
  );
}

describe('bin/reference.mjs', () => {
  test('prints the address, one key per role and the hints, then stops on SIGTERM', async () => {
    const env = await launch(['--port', '0', '--variant', 'long-ids']);
    expect(env.CONFORMANCE_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.CONFORMANCE_API_KEY).toBe(env.CONFORMANCE_KEY_PRIMARY);
    for (const role of ROLE_NAMES)
      expect(env[`CONFORMANCE_KEY_${role.toUpperCase()}`], role).toMatch(/^sk-ref-/);
    expect(env.CONFORMANCE_MODEL_CHAT).toHaveLength(120);
    const res = await fetch(`${env.CONFORMANCE_BASE_URL}/v1/models`, {
      headers: { authorization: `Bearer ${env.CONFORMANCE_API_KEY}` },
    });
    expect(res.status).toBe(200);
    child?.kill('SIGTERM');
    const [code] = await once(child as ChildProcessWithoutNullStreams, 'exit');
    expect(code).toBe(0);
  });

  test.for([
    { args: ['--bogus'], message: /Unknown option '--bogus'/ },
    { args: ['--fault', 'nope'], message: /Unknown fault "nope"/ },
    { args: ['--port', 'x'], message: /--port must be an integer/ },
    { args: ['--media-step-ms', '0'], message: /--media-step-ms must be at least 1/ },
    { args: ['--media-video-ms', '1.5'], message: /--media-video-ms must be an integer/ },
    { args: ['--rate-limit', '0'], message: /--rate-limit must be at least 1/ },
  ])('exits 2 with one line for $args', ({ args, message }) => {
    const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('--help lists every fault', () => {
    const run = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('auth-query-key');
    expect(run.stdout).toContain('models-envelope');
    expect(run.stdout).toContain('--media-step-ms');
    expect(run.stdout).toContain('--media-image-ms');
    expect(run.stdout).toContain('--rate-limit');
    expect(run.stdout).toContain('sniff-at-job');
  });
});
