/**
 * A bounded sample of what a target lists, drawn reproducibly from the run's seed: work bounded by the
 * contract, not by the target's catalog (a target listing 20,000 models must not get 20,000 times the
 * requests, nor bill them). Same list and seed, same sample, whatever order the target lists it in.
 */

/** mulberry32: a small, well-mixed 32-bit generator; enough to pick, not for secrets. */
export function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** At most `n` of `items` (all when there are no more), by `key`'s order, chosen by `seed`. */
export function seededSample<T>(items: readonly T[], n: number, seed: number, key: (x: T) => string): T[] {
  const sorted = [...items].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  if (sorted.length <= n) return sorted;
  const next = generator(seed);
  // A partial Fisher-Yates shuffle: the first n places only, O(n) draws whatever the list's size.
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(next() * (sorted.length - i));
    [sorted[i], sorted[j]] = [sorted[j]!, sorted[i]!];
  }
  return sorted.slice(0, n).sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
}
