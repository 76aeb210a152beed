import { describe, expect, it } from 'vitest';
import { budgetBuys } from '../../src/app/budget-buys.ts';

describe('what a small budget buys (the dry run)', () => {
  const plan = [
    { model: 'chat', requests: 40, points: '2' },
    { model: 'emb', requests: 10, points: '0.000002' },
    { model: 'video', requests: 3, points: '30', media: true as const },
    { model: 'image', requests: 4, points: '4', media: true as const },
  ];

  it('says nothing when the budget holds the whole plan', () => {
    expect(budgetBuys(plan, '36.000002')).toBeUndefined();
  });

  it('buys the text calls, then each media model once, cheapest first, then further jobs, keeping the refusal reserve', () => {
    // 20 points: text 2.000002; kept min(2, 10) = 2; left 15.999998: image 1, video 10 (firsts);
    // left 4.999998: 3 more images (1 each), no second video (10).
    expect(budgetBuys(plan, '20')).toBe(
      'the points budget of 20 buys about, in the order the run spends it: all the text calls (50 requests, 2 points); the first job of 2 of 2 media models (11 points, cheapest first); 3 of the other 5 media jobs (3 points); 2 points are kept for the requests the contract refuses (they cost nothing on a conformant target)',
    );
    // 8 points: the video's first job does not fit; the images do.
    expect(budgetBuys(plan, '8')).toMatch(
      /first job of 1 of 2 media models \(1 points.*; 3 of the other 5 media jobs/,
    );
  });

  it('says when not even the text calls fit', () => {
    expect(budgetBuys(plan, '1')).toBe(
      'the points budget of 1 buys part of the text calls (50 requests, 2 points) and no media job',
    );
  });
});
