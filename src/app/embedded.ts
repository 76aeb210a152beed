/**
 * The embedded target: the reference server started in this process for a run (or a dry run's plan).
 */
import { pathToFileURL } from 'node:url';
import type { TargetConfig } from '../config/targets.ts';
import { pkgPath } from '../paths.ts';
import { ROLES } from '../vocabulary.ts';

/**
 * Set (to any value) in the environment, the embedded target goes without its `isolated` key: its
 * balance checks then run serially after the other files, as on a target that names none. For the
 * project's own tests and measurements (bench/), never a setting of a deployment.
 */
export const EMBEDDED_NO_ISOLATED_ENV = 'CONFORMANCE_EMBEDDED_NO_ISOLATED';

/**
 * How often a target that runs media jobs in milliseconds (the reference: a stage every 150 ms) is
 * polled: the one the project's own tests write for a reference they start (the embedded target keeps
 * its own clock, EMBEDDED_MEDIA).
 */
export const QUICK_MEDIA_POLLING = { pollIntervalMs: 100, pollCap: 200 } as const;

/**
 * The embedded reference's clock, five times the reference's own: a media job's stage every 30 ms, read
 * every 20 ms, within the same 20 s. A read comes two thirds of a stage after the last, as with
 * QUICK_MEDIA_POLLING against the reference's 150 ms, so a run sees the same states of each job, sooner:
 * the embedded standard run waited on its jobs' stages, not on its CPU (issue 40; bench/README.md).
 */
export const EMBEDDED_MEDIA = { stepMs: 30, polling: { pollIntervalMs: 20, pollCap: 1_000 } } as const;

/**
 * The embedded target: the reference server on a free loopback port. The only place the harness
 * touches reference/ (through its one start function); its keys reach the test workers through
 * environment variables, like any target's.
 */
export async function startEmbedded(
  target: TargetConfig,
): Promise<{ target: TargetConfig; stop: () => Promise<void> }> {
  // Through the launcher, as a bundle of its own (bin/launch.mjs): the CLI's bundle then holds no server,
  // and a command that starts none (check-traffic, merge, verify) does not load Fastify (about 70 ms).
  const launcher = (await import(pathToFileURL(pkgPath('bin', 'launch.mjs')).href)) as {
    loadEntry: (entry: string) => Promise<unknown>;
  };
  const mod = (await launcher.loadEntry('reference/start.ts')) as {
    startReference: (o: Record<string, unknown>) => Promise<{
      url: string;
      keys: Record<string, string>;
      hints: Record<string, string>;
      capabilities: string[];
      canaries?: string[];
      limits?: Record<string, string | number>;
      close: () => Promise<void>;
    }>;
  };
  const ref = await mod.startReference({ port: 0, mediaStepMs: EMBEDDED_MEDIA.stepMs });
  const keys: TargetConfig['keys'] = {};
  const without = process.env[EMBEDDED_NO_ISOLATED_ENV] ? 'isolated' : undefined;
  for (const role of ROLES) {
    const value = ref.keys[role];
    if (!value || role === without) continue;
    const env = `CONFORMANCE_EMBEDDED_KEY_${role.toUpperCase()}`;
    process.env[env] = value;
    keys[role] = env;
  }
  return {
    target: {
      ...target,
      baseUrl: ref.url,
      keys,
      models: { ...ref.hints, ...target.models },
      capabilities: [...new Set([...ref.capabilities, ...target.capabilities])],
      canaries: [...new Set([...(ref.canaries ?? []), ...target.canaries])],
      limits: { ...(ref.limits ?? {}), ...target.limits },
      timeouts: { ...target.timeouts, streamMs: Math.min(target.timeouts.streamMs, 10_000) },
      // The reference runs media jobs in milliseconds: poll it quickly.
      media: { ...EMBEDDED_MEDIA.polling },
      // In this process over loopback: no idle connection is closed under a request (a connection of
      // their own for the unrepeatable requests cost about 0.5 CPU-s a run: bench/README.md).
      unrepeatable: 'pooled',
    },
    stop: () => ref.close(),
  };
}
