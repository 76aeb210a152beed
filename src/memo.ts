/**
 * A function of one key computed once per key. `bound`: at most this many keys are kept, the whole table
 * dropped when it is full (a capture's URLs are many but recur; constants are few and need none).
 */
export function memoize<K, V>(fn: (key: K) => V, bound = Number.POSITIVE_INFINITY): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    let v = kept.get(key);
    if (v === undefined && !kept.has(key)) {
      v = fn(key);
      if (kept.size >= bound) kept.clear();
      kept.set(key, v);
    }
    return v as V;
  };
}
