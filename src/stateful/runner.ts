/**
 * Runs a model-based test: fast-check generates command lists (`fc.commands`), each run starts from a
 * fresh model and drives the target through them (`fc.asyncModelRun`), and every command checks the
 * invariants on what it saw. Like checkProperty: the run's seed, shrinking only on the embedded target
 * (every shrink step is a real request; on a billed deployment the first counterexample ends the run),
 * and a time limit. A failure is reported once, for the shrunk command list, with the seed and the path
 * that replay it (`--seed S --path P`, exact on the reference, best effort on a real target).
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { TransportError } from '../errors.ts';
import type { Exchange } from '../http/client.ts';
import type { RunConfig } from '../runtime/run-config.ts';
import { ModelViolation } from './real.ts';

export type Step<M extends object, R> = fc.AsyncCommand<M, R, false>;

/** What the runner needs of a test (a CheckContext has all of it). */
export interface Host {
  readonly title: string;
  readonly run: Pick<RunConfig, 'seed' | 'path'>;
  readonly target: { embedded: boolean };
  violate(
    id: string,
    message: string,
    extra?: { received?: unknown; expected?: unknown; exchange?: Exchange; level?: 'notable' },
  ): void;
  /**
   * Throws when a stop of the run (dead target, deadline, signal, budget) refused the test's requests or
   * is in effect: a run that could not finish then is not run, never a harness error (CheckContext).
   */
  haltIfStopped?(): void;
}

export interface ModelRunSpec<M extends object, R> {
  commands: fc.Arbitrary<Step<M, R>>;
  /**
   * A fresh model and the real side for one run. `run` is the index of the generated run (0 first); a
   * shrink or a replay of a failure gets the index of the run that failed, so that what a test allows
   * only in some runs (one ticket per test) is the same when the failure is replayed.
   */
  setup: (run: number) => Promise<{ model: M; real: R }>;
  /** The kinds of the commands a run executed, in order (for the statistics). */
  steps: (model: M) => string[];
  runs: number;
  maxCommands: number;
  /** For the whole model-based run, shrinking included. */
  timeLimitMs: number;
  /** What every run's setup does before the commands, for the printed script (`upload ... as input#1`). */
  preamble?: string;
  /** Level of a problem reported under this id (e.g. notable where the target declares a shared account). */
  levelOf?: (id: string) => 'notable' | undefined;
}

export interface ModelRunResult {
  /** Generated runs (shrink runs excluded), the commands they executed, and their average length. */
  runs: number;
  commands: number;
  average: number;
  shrinks: number;
  ms: number;
  failed: boolean;
  interrupted: boolean;
  /** Set when the --path given does not name a case of this test (nothing ran). */
  notApplicable?: string;
}

/** `12:0:3@AAB:C`: the fast-check path, and the replay path of the command list after `@`. */
export function splitPath(path: string | undefined): { path?: string; replayPath?: string } {
  if (!path) return {};
  const at = path.indexOf('@');
  if (at === -1) return { path };
  return { path: path.slice(0, at), replayPath: path.slice(at + 1) };
}

/** The commands of a counterexample that ran, in order (fast-check's own printing joins them with commas). */
export function executed(counterexample: unknown): string[] {
  if (!counterexample || typeof (counterexample as Iterable<unknown>)[Symbol.iterator] !== 'function')
    return [];
  return [...(counterexample as Iterable<{ hasRan?: boolean; toString(): string }>)]
    .filter((c) => c.hasRan !== false)
    .map((c) => c.toString());
}

export const replayPathOf = (counterexample: unknown): string | undefined =>
  /replayPath="([^"]*)"/.exec(String(counterexample))?.[1];

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function runModel<M extends object, R>(
  host: Host,
  spec: ModelRunSpec<M, R>,
): Promise<ModelRunResult> {
  const started = Date.now();
  const { path, replayPath } = splitPath(host.run.path);
  let fatal: { error: unknown } | undefined;
  let last: ModelViolation | undefined;
  let shrinking = false;
  // The index of the run being generated, or of the failing run while shrinking and when replaying.
  let index = path === undefined ? -1 : Number(path.split(':')[0]) - 1;
  let runs = 0;
  let commands = 0;
  const kinds: Record<string, number> = {};
  const property = fc.asyncProperty(
    fc.commands([spec.commands], {
      // Lengths spread over 0..maxCommands (the default size caps lists at 10, most of them far shorter).
      size: 'max',
      maxCommands: spec.maxCommands,
      ...(replayPath !== undefined ? { replayPath } : {}),
    }),
    async (cmds) => {
      // After a harness or transport error nothing more is sent; the error is raised after fast-check.
      if (fatal) return;
      const generated = !shrinking;
      if (generated) index += 1;
      let s: { model: M; real: R } | undefined;
      try {
        s = await spec.setup(index);
        await fc.asyncModelRun(() => s!, cmds);
      } catch (err) {
        if (err instanceof ModelViolation) {
          last = err;
          shrinking = true;
          throw err;
        }
        fatal = { error: err };
      } finally {
        if (generated) {
          runs += 1;
          for (const kind of s ? spec.steps(s.model) : []) {
            commands += 1;
            kinds[kind] = (kinds[kind] ?? 0) + 1;
          }
        }
      }
    },
  );
  let details: fc.RunDetails<[Iterable<Step<M, R>>]>;
  try {
    details = await fc.check(property, {
      numRuns: spec.runs,
      seed: host.run.seed,
      ...(path !== undefined ? { path } : {}),
      endOnFailure: !host.target.embedded,
      interruptAfterTimeLimit: spec.timeLimitMs,
    });
  } catch (err) {
    // fast-check refuses a path that names no case of this test's command lists.
    if (path !== undefined && /replay|path/i.test((err as Error).message ?? ''))
      return {
        runs: 0,
        commands: 0,
        average: 0,
        shrinks: 0,
        ms: Date.now() - started,
        failed: false,
        interrupted: false,
        notApplicable: `--path ${host.run.path} names no case of this test (${(err as Error).message})`,
      };
    throw err;
  }
  // A transport failure stays the target's (GEN-001); anything else thrown once a stop refused the test's
  // requests is the stop's doing.
  if (fatal) {
    if (!(fatal.error instanceof TransportError)) host.haltIfStopped?.();
    throw fatal.error;
  }
  const result: ModelRunResult = {
    runs,
    commands,
    average: runs === 0 ? 0 : commands / runs,
    shrinks: details.numShrinks,
    ms: Date.now() - started,
    failed: details.failed,
    interrupted: details.interrupted,
  };
  if (details.failed) {
    if (!last) host.haltIfStopped?.();
    if (!last)
      throw (
        details.errorInstance ??
        new Error('the model-based run failed without a violation (too many skipped runs?)')
      );
    const script = executed(details.counterexample?.[0]);
    const rp = replayPathOf(details.counterexample?.[0]);
    // Without a shrink the replay path says nothing more than the path.
    const replay = `${details.counterexamplePath}${rp && details.numShrinks > 0 ? `@${rp}` : ''}`;
    const level = spec.levelOf?.(last.problem.id);
    host.violate(
      last.problem.id,
      `${last.problem.message} — after ${spec.preamble ? `the setup (${spec.preamble}) and ` : ''}the commands ${script.map((c, i) => `(${i + 1}) ${c}`).join(' ')}; found in run ${details.numRuns} of ${spec.runs}, shrunk ${details.numShrinks} time(s); seed ${details.seed}, path ${replay} (replay: --seed ${details.seed} --path '${replay}' --filter '${escapeRegex(host.title)}')`,
      {
        ...(last.problem.received !== undefined ? { received: last.problem.received } : {}),
        ...(last.problem.expected !== undefined ? { expected: last.problem.expected } : {}),
        ...(last.exchange ? { exchange: last.exchange } : {}),
        ...(level ? { level } : {}),
      },
    );
  } else if (details.interrupted && runs < spec.runs) {
    host.violate(
      'GEN-001',
      `the model-based run stopped at its time limit of ${spec.timeLimitMs} ms after ${runs} of ${spec.runs} run(s)`,
      { level: 'notable' },
    );
  }
  // CONFORMANCE_STATEFUL_STATS=FILE appends the statistics of each model-based run (runs, commands,
  // average length, time, command kinds) as one JSON line: how the profile sizes were measured.
  const stats = process.env.CONFORMANCE_STATEFUL_STATS;
  if (stats)
    appendFileSync(
      stats,
      `${JSON.stringify({ title: host.title, seed: host.run.seed, ...result, kinds })}\n`,
    );
  return result;
}
