import fc from 'fast-check';
import type { Exchange } from '../http/client.ts';
import type { VerdictCase } from '../vocabulary.ts';
import type { CheckContext } from './check.ts';

export interface PropertySpec<T> {
  id: string;
  arbitrary: fc.Arbitrary<T>;
  /**
   * The cases that tell the right answer from the plausible wrong ones (each bound, just outside it),
   * run first on every seed (fast-check `examples`), so a fault is caught whatever the random draw.
   * They pass the same filter as the arbitrary's cases (a filtered arbitrary's examples are filtered alike).
   */
  examples: readonly T[];
  /** Sends one case; returns a violation message, or undefined when the target behaved as the contract says. */
  run: (value: T) => Promise<string | undefined>;
  numRuns?: number;
  /** The counterexample as a case of a rule answered the wrong way (grouped with the rule's other cases). */
  verdictCase?: (value: T) => VerdictCase;
}

/**
 * Run a fast-check property against the target, reproducibly (the run's seed) and bounded (the run's
 * property budget). Why shrinking only on the embedded target: every shrink step is a real request, and
 * on a billed deployment a wrongly accepted invalid case costs points, so there the first counterexample
 * ends the property (judging.md: stop after the first wrong acceptance per rule).
 */
export async function checkProperty<T>(t: CheckContext, spec: PropertySpec<T>): Promise<void> {
  let lastMessage = '';
  /** The exchange of the last failing case: the evidence, and the endpoint its finding is grouped under. */
  let lastFailing: Exchange | undefined;
  // An error thrown while sending a case (the run was stopped, a transport failure, a harness error) is
  // not a counterexample of the property: nothing more is sent and the error is raised after fast-check,
  // for the test to judge as any other (not run, GEN-001 with its exchange, harness error).
  let thrown: { error: unknown } | undefined;
  // A case the target refused with 429 ("rate limit or protection", which the contract allows) is not
  // judged: fast-check discards it and draws another (bounded by its skip limit).
  let notJudged = 0;
  // The property owns the 429s of its cases (each discarded, another drawn; too few judged: not run),
  // so a case the verdict left not judged (CheckContext.verdict) does not also make the test not run.
  const limitedBefore = t.limitedCases.length;
  const details = await fc.check(
    fc.asyncProperty(spec.arbitrary, async (value) => {
      if (thrown) return true;
      let msg: string | undefined;
      try {
        msg = await spec.run(value);
      } catch (error) {
        thrown = { error };
        return true;
      }
      // Valid or not, a case answered 429 is neither accepted nor refused: it is not judged.
      if (t.isLimit(t.lastExchange?.status)) {
        notJudged += 1;
        fc.pre(false);
      }
      if (msg) {
        lastMessage = msg;
        lastFailing = t.lastExchange;
      }
      return msg === undefined;
    }),
    {
      numRuns: spec.numRuns ?? t.run.propertyRuns,
      examples: spec.examples.map((e): [T] => [e]),
      seed: t.run.seed,
      endOnFailure: !t.target.embedded,
      interruptAfterTimeLimit: Math.max(5_000, t.target.timeouts.testMs - 10_000),
    },
  );
  t.limitedCases.splice(limitedBefore);
  if (thrown) throw thrown.error;
  if (details.failed && details.counterexample === null && notJudged > 0)
    return t.skip(
      `property ${spec.id}: the target answered 429 to ${notJudged} case(s) (a limit or protection, which the contract allows) and too few were judged`,
    );
  if (details.failed) {
    const example = JSON.stringify(details.counterexample?.[0]);
    t.violate(
      spec.id,
      `${lastMessage} — counterexample ${example} after ${details.numRuns} run(s), ${details.numShrinks} shrink(s); seed ${details.seed}, path ${details.counterexamplePath} (replay: --seed ${details.seed})`,
      {
        received: details.counterexample?.[0],
        ...(lastFailing ? { exchange: lastFailing } : {}),
        ...(spec.verdictCase && details.counterexample
          ? { verdictCase: spec.verdictCase(details.counterexample[0] as T) }
          : {}),
      },
    );
  } else if (details.interrupted) {
    t.violate('GEN-001', `property ${spec.id} stopped at its time limit after ${details.numRuns} run(s)`, {
      level: 'notable',
    });
  }
}
