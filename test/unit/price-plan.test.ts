import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pricedAcceptance, pricePlanLines } from '../../src/app/price-plan.ts';
import { loadPrices } from '../../src/app/prices-file.ts';
import { mediaTable } from '../../src/rules/media-models.ts';

const file = (text: string, name = 'prices.yaml') => {
  const path = join(mkdtempSync(join(tmpdir(), 'gc-prices-')), name);
  writeFileSync(path, text);
  return path;
};

describe('the plan at the target prices (issue 23)', () => {
  it('reads a price YAML and a report summary.json', () => {
    expect(loadPrices(file('prices:\n  wc-100010: 0.5\n  wc-100016: { per_second: 3.5 }\n'))).toEqual({
      'wc-100010': { points: '0.5', follows: 'flat' },
      'wc-100016': { perSecond: '3.5', follows: 'duration' },
    });
    const learned = { 'wc-100010': { points: '0.75', max: '0.75', follows: 'flat', jobs: 1 } };
    expect(loadPrices(file(JSON.stringify({ points: { prices: learned } }), 'summary.json'))).toEqual(
      learned,
    );
    expect(() => loadPrices(file('prices: 3\n'))).toThrow(/neither points.prices \(a report\) nor prices:/);
    // A report's learned price is checked as a price file's: never planned at as if it were free.
    const report = (prices: unknown) => file(JSON.stringify({ points: { prices } }), 'summary.json');
    for (const [prices, why] of [
      [{ 'wc-100010': { points: 'abc' } }, /wc-100010 is not a number of points: "abc"/],
      [{ 'wc-100010': { points: '-4' } }, /wc-100010 is not a number of points: "-4"/],
      [{ 'wc-100010': 5 }, /points\.prices\.wc-100010 is not a learned price: 5/],
      [{ 'wc-100010': { max: '1' } }, /points\.prices\.wc-100010 gives neither points nor perSecond/],
      [{ 'wc-100010': { points: '1', follows: 'x' } }, /\.follows is not one of duration, flat, unknown/],
    ] as const)
      expect(() => loadPrices(report(prices)), JSON.stringify(prices)).toThrow(why);
  });

  it('says what acceptance costs at the prices and which dearest cases the budget leaves out', () => {
    const prices = loadPrices(file('prices:\n  wc-100016: { points: 14, per_second: 3.5 }\n'));
    const cases = pricedAcceptance(mediaTable(), 'standard', prices);
    expect(cases.every((c) => c.model === 'wc-100016')).toBe(true);
    const lines = pricePlanLines(mediaTable(), 'standard', prices, 'p.yaml', '100');
    expect(lines[0]).toMatch(
      /^plan at the prices of p.yaml: media acceptance of the 1 priced model\(s\) costs ~\d+ points/,
    );
    expect(lines[1]).toContain('duration 30 on wc-100016: ~105 points');
    // A budget that holds it all leaves nothing out.
    expect(pricePlanLines(mediaTable(), 'standard', prices, 'p.yaml', '100000')).toHaveLength(1);
  });
});
