import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { suiteHints } from '../../src/app/suite-hints.ts';

/**
 * `npm test`'s order: the test files that declare `// @conformance start-early N` in their opening comment
 * (the longest ones: the mutation matrix first) start first, by rank, so that the other files run beside
 * them instead of after them; the rest in vitest's order (longest last time, else largest).
 */
export default class StartEarlyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => suiteHints(spec.moduleId).startEarly ?? Number.MAX_SAFE_INTEGER;
    return sorted
      .map((spec, i) => ({ spec, i, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
