import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { admission, type RunBudget, SPEND_FILE, spendOf } from '../../src/runtime/control.ts';

/** A report directory whose spend file holds these replies (points by model). */
function spent(entries: Array<[string, string]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-control-'));
  entries.forEach(([model, points], i) => {
    appendFileSync(
      join(dir, SPEND_FILE),
      `${JSON.stringify({ exchange: `e${i}`, path: '/v1/media/jobs', points, model })}\n`,
    );
  });
  return dir;
}

const budget = (points: string, models: string[] = []): RunBudget => ({
  points,
  source: '--budget-points',
  kind: 'budget',
  models,
});

describe('budget admission', () => {
  it('sums the spend of every worker: total, costliest reply, models bought', () => {
    const s = spendOf(
      spent([
        ['a', '1.5'],
        ['b', '3.125'],
        ['a', '0.75'],
      ]),
    );
    expect(s.total.toString()).toBe('5.375');
    expect(s.max.toString()).toBe('3.125');
    expect([...s.models].sort()).toEqual(['a', 'b']);
  });

  it('admits nothing billable with a budget of 0, and stops at the budget', () => {
    expect(admission(spent([]), budget('0'))).toMatch(/points budget of 0 \(--budget-points\)/);
    expect(admission(spent([['a', '10']]), budget('10'))).toMatch(/points budget reached: 10 of 10/);
    expect(admission(spent([['a', '9']]), budget('10'))).toBeUndefined();
    expect(admission(spent([['a', '9']]), undefined)).toBeUndefined();
  });

  it('buys the first job of every model before a second of any: a reserve for models not bought yet', () => {
    // b, c, d not bought keep min(25% of 20, 3 x 2) = 5 points: a gets its second job at 4 spent, not at 16.
    const dir = spent([
      ['a', '2'],
      ['a', '2'],
    ]);
    const b = budget('20', ['a', 'b', 'c', 'd']);
    expect(admission(dir, b, 'a')).toBeUndefined();
    expect(admission(dir, b, 'b')).toBeUndefined();
    const tight = spent(Array.from({ length: 8 }, () => ['a', '2'] as [string, string]));
    expect(admission(tight, b, 'a')).toMatch(
      /a was bought once already and the last 5 of 20 points are kept for the first job of 3 media model/,
    );
    expect(admission(tight, b, 'c')).toBeUndefined();
    // Every model bought: no reserve, the budget alone decides.
    const all = spent([
      ['a', '2'],
      ['b', '2'],
      ['c', '2'],
      ['d', '2'],
      ['a', '2'],
      ['a', '2'],
      ['a', '2'],
      ['a', '2'],
    ]);
    expect(admission(all, b, 'a')).toBeUndefined();
  });

  it('says the balance ran out when the budget is the available balance', () => {
    expect(admission(spent([['a', '50.5']]), { ...budget('50'), kind: 'balance' })).toMatch(
      /^the account's balance ran out: 50.5 of the 50 points available before the run spent/,
    );
  });
});
