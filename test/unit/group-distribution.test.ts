/**
 * The fault matrix's distribution of groups per fault row (issue 39: one seeded fault, one group), and the
 * order of its queue of variant rows.
 */
import { expect, it } from 'vitest';
import { FAULTS } from '../../reference/start.ts';
import { GROUP_REASONS } from '../../tools/mutation/group-reasons.ts';
import { groupDistribution, type MatrixRow, variantRank } from '../../tools/mutation/matrix.ts';
import type { WholeBecause } from '../../tools/mutation/variant-plan.ts';

const row = (name: string, groups: number, extra: Partial<MatrixRow> = {}): MatrixRow => ({
  kind: 'fault',
  name,
  strict: false,
  expected: [],
  failed: [],
  advisory: [],
  collateral: [],
  groups,
  status: 'killed',
  ok: true,
  ms: 1,
  ...extra,
});

it('counts the rows per number of groups, and lists each row beyond one with its reason or as without one', () => {
  const text = groupDistribution(
    [
      row('a', 1),
      row('b', 1),
      row('c', 2),
      row('d', 3, { strict: true }),
      // A wrong row is the matrix's verdict, not a count of groups.
      row('e', 5, { ok: false }),
      row('reference', 0, { kind: 'reference' }),
    ],
    { c: 'two rules a target breaks apart' },
  );
  expect(text.split('\n')).toEqual([
    'groups per fault row (4 rows): 1 group: 2 rows · 2 groups: 1 row · 3 groups: 1 row',
    '  2 rows beyond 1 group, 1 with the reason (tools/mutation/group-reasons.ts); without one: d (strict) 3',
    '    c 2: two rules a target breaks apart',
  ]);
  expect(groupDistribution([row('a', 1)], {})).toBe('groups per fault row (1 row): 1 group: 1 row');
});

it('gives reasons only for faults that exist', () => {
  const names = new Set(FAULTS.map((f) => f.name));
  expect(Object.keys(GROUP_REASONS).filter((n) => !names.has(n))).toEqual([]);
});

it('queues the variant rows longest first: whole-suite, then self-describing, then the rest, each in its order', () => {
  const plan = {
    whole: new Map<string, WholeBecause>([
      ['w1', 'reached at start, when the app is built, or per connection'],
      ['w2', 'reached by a request no test sent (the preflight)'],
    ]),
    described: new Set(['d1']),
  };
  const names = ['f1', 'd1', 'w1', 'f2', 'w2'];
  expect([...names].sort((a, b) => variantRank(a, plan) - variantRank(b, plan))).toEqual([
    'w1',
    'w2',
    'd1',
    'f1',
    'f2',
  ]);
  // Without a plan (the plain reference's row failed), the rows keep their order.
  expect([...names].sort((a, b) => variantRank(a, undefined) - variantRank(b, undefined))).toEqual(names);
});
