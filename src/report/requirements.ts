import { type PlacesJudged, placesJudged, type Touch } from '../applicability.ts';
import { formOf, type Requirement } from '../catalogue.ts';
import { decidedOutcome, type Outcome } from '../vocabulary.ts';

/**
 * The outcome of one requirement over a run: its tests' outcomes combined, `not_judged` when tests that
 * cite it ran but none observed the form it needs (aimed, never seen: never passed), or `no_test`.
 */
export type RequirementOutcome = Outcome | 'no_test' | 'not_judged';

/**
 * What a run says of one requirement (summary.json `requirements`). The lists are indices into the
 * summary's `tests`: the tests citing the id, those it failed in, those whose failure the target's
 * expectations list (known), and those it was advisory in.
 */
export interface RequirementResult {
  outcome: RequirementOutcome;
  tests: number[];
  failed: number[];
  known: number[];
  advisory: number[];
  /** Why the citing tests that did not run did not run (each reason once); why it was not judged. */
  reasons: string[];
  /** The tests whose judgement of it was made on what the target showed (TestRecord.observed). */
  observed?: number[];
  /**
   * The requirement's places (fixtures/applicability.yaml) the run judged: a judged citing test sent a
   * request in the place (src/applicability.ts placesJudged); excluded places are not counted.
   */
  places?: PlacesJudged;
}

/** The parts of a test record the rollup reads. */
interface Cited {
  ids: string[];
  outcome: Outcome;
  touches?: Touch[];
  /** The ids a judgement was made on (TestRecord.observed); absent: none (a record of another kind). */
  observed?: Record<string, number[]>;
  reason?: string;
  violations: ReadonlyArray<{ id: string; severity: 'failure' | 'advisory' }>;
  /** The controls its answers showed accepted (TestRecord.accepted). */
  accepted?: readonly string[];
  /** The controls its judgements of its own ids stand beside (TestRecord.beside). */
  beside?: ReadonlyArray<{ key: string; what: string }>;
}

/**
 * Each requirement's outcome, in precedence order: failed > harness error > known failure > advisory >
 * inconclusive > passed > not judged > not run > no test. Passed needs evidence: a decided test (any
 * test, for a per-exchange rule) observed the requirement's form and found it met; where citing tests ran
 * but none observed it, it is not judged, with the form it needs as the reason. A test's observations of its
 * own ids count only where every control it stands beside (TestRecord.beside) was accepted in the run. Every catalogue id is listed (in catalogue order), then ids that tests
 * cite or violations name but the catalogue lacks.
 */
export function requirementResults(
  tests: readonly Cited[],
  catalogue: Iterable<Requirement>,
): Record<string, RequirementResult> {
  const out = new Map<string, RequirementResult>();
  const known = new Set<string>();
  const of = (id: string): RequirementResult => {
    let r = out.get(id);
    if (!r) {
      r = { outcome: 'no_test', tests: [], failed: [], known: [], advisory: [], reasons: [] };
      out.set(id, r);
    }
    return r;
  };
  for (const r of catalogue) {
    of(r.id);
    known.add(r.id);
  }
  // A refusal stands beside its control wherever in the run (any test, file or shard) it was accepted.
  const accepted = new Set(tests.flatMap((t) => t.accepted ?? []));
  const uncontrolled = new Map<string, Set<string>>();
  tests.forEach((t, i) => {
    for (const id of new Set(t.ids)) of(id).tests.push(i);
    for (const id of new Set(t.violations.filter((v) => v.severity === 'failure').map((v) => v.id))) {
      if (t.outcome === 'failed') of(id).failed.push(i);
      else if (t.outcome === 'known_failure') of(id).known.push(i);
    }
    for (const id of new Set(t.violations.filter((v) => v.severity === 'advisory').map((v) => v.id)))
      of(id).advisory.push(i);
    if (!decidedOutcome(t.outcome)) return;
    const alone = (t.beside ?? []).filter((b) => !accepted.has(b.key));
    for (const id of Object.keys(t.observed ?? {})) {
      if (alone.length && t.ids.includes(id)) {
        const reasons = uncontrolled.get(id) ?? new Set();
        for (const b of alone)
          reasons.add(
            `not judged: no ${b.what} was accepted in this run, the control its refusals stand beside (a target refusing every such request would pass them)`,
          );
        uncontrolled.set(id, reasons);
        continue;
      }
      const r = of(id);
      if (r.observed) r.observed.push(i);
      else r.observed = [i];
    }
  });
  for (const [id, r] of out) {
    const citing = r.tests.map((i) => tests[i] as Cited);
    if (r.failed.length) r.outcome = 'failed';
    else if (citing.some((t) => t.outcome === 'harness_error')) r.outcome = 'harness_error';
    else if (r.known.length) r.outcome = 'known_failure';
    else if (r.advisory.length) r.outcome = 'advisory';
    else if (citing.some((t) => t.outcome === 'inconclusive')) r.outcome = 'inconclusive';
    else if (r.observed?.length) r.outcome = 'passed';
    else if (citing.some((t) => t.outcome !== 'not_run')) r.outcome = 'not_judged';
    else if (citing.length) r.outcome = 'not_run';
    r.reasons = [
      ...new Set(citing.filter((t) => t.outcome === 'not_run').map((t) => t.reason ?? 'no reason given')),
    ];
    if (r.outcome === 'not_judged')
      r.reasons.unshift(...(uncontrolled.get(id) ?? [`not judged: the target never showed ${formOf(id)}`]));
  }
  for (const [id, r] of out) if (known.has(id)) r.places = placesJudged(id, tests);
  return Object.fromEntries(out);
}

/** Coverage: testable requirements with no test citing them; ids cited that the catalogue lacks. */
/** Whether a requirement (or a test) with this outcome was judged by the run: it ran and was decided. */
export const judgedOutcome = (o: RequirementOutcome): boolean => decidedOutcome(o);

export function coverage(
  tests: ReadonlyArray<{ ids: string[] }>,
  catalogue: ReadonlyMap<string, Requirement>,
): { testable: number; tested: number; untested: string[]; unknownIds: string[] } {
  const cited = new Set(tests.flatMap((t) => t.ids));
  const testable = [...catalogue.values()].filter((r) => r.testable);
  return {
    testable: testable.length,
    tested: testable.filter((r) => cited.has(r.id)).length,
    untested: testable.filter((r) => !cited.has(r.id)).map((r) => r.id),
    unknownIds: [...cited].filter((id) => !catalogue.has(id)),
  };
}
