/**
 * How a piece of work grows with its input, judged on this machine against itself: the fastest of a few
 * runs at size n/8 and at size n. Linear work takes about 8 times as long at n; quadratic work 64 times.
 * A ratio, not a wall-clock bound: a slow or loaded machine slows both sizes alike (measured on a machine
 * at load 22, a linear ratio of 4 came out between 2 and 9, so the sizes are 8 apart and the bar is wide).
 */
export function growth(work: (size: number) => void, n: number, reps = 3): number {
  const fastest = (size: number) => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < reps; i++) {
      const started = performance.now();
      work(size);
      best = Math.min(best, performance.now() - started);
    }
    return best;
  };
  fastest(Math.max(1, Math.floor(n / 8))); // warm-up (compilation), not counted
  const part = fastest(Math.max(1, Math.floor(n / 8)));
  const whole = fastest(n);
  return whole / Math.max(part, 0.05);
}

/** Below this ratio of growth(), work is taken as (near) linear: 8 expected, 64 for quadratic. */
export const LINEAR_GROWTH = 24;
