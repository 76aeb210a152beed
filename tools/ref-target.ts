/** A reference server (optionally with a fault) described in a targets.yaml, for acceptance tests of the CLI. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference } from '../reference/start.ts';
import { QUICK_MEDIA_POLLING } from '../src/app/embedded.ts';

type Reference = Awaited<ReturnType<typeof startReference>>;
/** What a targets file needs of a running server: its URL, keys, hints, capabilities, canaries and limits. */
export type TargetFacts = Pick<Reference, 'url' | 'keys' | 'hints' | 'capabilities' | 'canaries' | 'limits'>;

export interface RefTarget {
  dir: string;
  targetsFile: string;
  env: NodeJS.ProcessEnv;
  keys: Record<string, string>;
  url: string;
  /** The primary account's true available points (the reference's own state, not its balance reply). */
  trueAvailable: () => string;
  /** Another user of the primary account spends all its available points at once. */
  spendAll: () => void;
  close: () => Promise<void>;
}

/**
 * Write a targets.yaml (target `ref`) for a started reference: keys through environment variables
 * REF_KEY_<ROLE> (returned as `env`; runCli starts from an environment without CONFORMANCE_*), its
 * model hints, capabilities, canaries and limits, fast media polling, and the given settings.
 */
/**
 * A streamed reply's bound on the reference. The reference streams in milliseconds, but the matrix runs
 * six rows beside the other test files on two cores: at a load of 12 a streamed refusal of an unknown
 * model took more than the 3 s this was, and the row failed GEN-001 (the CI run at 81e072f). Only a
 * stream that never ends (fault chat-stream-never-ends) waits it out.
 */
const STREAM_MS = 10_000;

export function writeRefTargets(
  ref: TargetFacts,
  file: string,
  opts: {
    requestMs?: number;
    /** The test timeout (`timeouts.test_ms`), for a variant whose point is a duration beside it. */
    testMs?: number;
    streamMs?: number;
    concurrency?: number;
    extra?: string[];
    /** Leave concurrency and media polling to the suite's defaults for a URL target (bench/generation.ts). */
    urlDefaults?: boolean;
  } = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const keys: string[] = [];
  for (const [role, value] of Object.entries(ref.keys)) {
    env[`REF_KEY_${role.toUpperCase()}`] = value;
    keys.push(`      ${role}: REF_KEY_${role.toUpperCase()}`);
  }
  writeFileSync(
    file,
    [
      'targets:',
      '  - name: ref',
      `    base_url: ${ref.url}`,
      '    allow: all',
      '    keys:',
      ...keys,
      '    models:',
      ...Object.entries(ref.hints).map(([h, m]) => `      ${h}: ${JSON.stringify(m)}`),
      `    capabilities: ${JSON.stringify(ref.capabilities)}`,
      ...(ref.canaries?.length ? [`    canaries: ${JSON.stringify(ref.canaries)}`] : []),
      ...(ref.limits ? [`    limits: ${JSON.stringify(ref.limits)}`] : []),
      `    timeouts: { stream_ms: ${opts.streamMs ?? STREAM_MS}${opts.requestMs !== undefined ? `, request_ms: ${opts.requestMs}` : ''}${opts.testMs !== undefined ? `, test_ms: ${opts.testMs}` : ''} }`,
      ...(opts.urlDefaults
        ? []
        : [
            `    media: { poll_interval_ms: ${QUICK_MEDIA_POLLING.pollIntervalMs}, poll_cap: ${QUICK_MEDIA_POLLING.pollCap} }`,
            `    concurrency: ${opts.concurrency ?? 6}`,
          ]),
      // No budget of its own (the reference's primary account bounds the run with its available points).
      '    budget_points: unlimited',
      ...(opts.extra ?? []),
      '',
    ].join('\n'),
  );
  return env;
}

export async function refTarget(
  opts: {
    fault?: string;
    variant?: string;
    extra?: string[];
    /** Sees each media job the reference accepted before its hold, with the handle (to drain an account then). */
    beforeHold?: (
      job: { model: string; prompt: string; references: number; fails: boolean; uncertain: boolean },
      ref: { spendAll: (role: string) => void },
    ) => void;
  } = {},
): Promise<RefTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-acceptance-'));
  const seen = opts.beforeHold;
  const ref: Awaited<ReturnType<typeof startReference>> = await startReference({
    port: 0,
    ...(opts.fault ? { fault: opts.fault } : {}),
    ...(opts.variant ? { variant: opts.variant } : {}),
    ...(seen ? { beforeHold: (job) => seen(job, { spendAll: (role) => ref.spendAll(role) }) } : {}),
  });
  const targetsFile = join(dir, 'targets.yaml');
  const env = writeRefTargets(ref, targetsFile, opts.extra ? { extra: opts.extra } : {});
  return {
    dir,
    targetsFile,
    env,
    keys: ref.keys,
    url: ref.url,
    trueAvailable: () => ref.trueAvailable('primary'),
    spendAll: () => ref.spendAll('primary'),
    close: () => ref.close(),
  };
}

export const targetArgs = (t: RefTarget) => ['--targets', t.targetsFile, '--target', 'ref'];
