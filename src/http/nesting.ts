/**
 * How deep a JSON value nests: the client does not examine a body nested past its bound, and evidence
 * (src/openapi/guard.ts) is not copied past one. Here, below both, so the client needs nothing above it.
 */

/**
 * Whether a JSON text may nest deeper than `limit`: it cannot when it opens at most `limit` objects and
 * arrays (brackets inside strings counted too, so never fewer than it nests). Counted by indexOf, without
 * walking the parsed value: most bodies settle here, far below the bound.
 */
export function mayNestDeeper(text: string, limit: number): boolean {
  let opened = 0;
  for (const open of ['{', '[']) {
    for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1))
      if (++opened > limit) return true;
  }
  return false;
}

/**
 * How deep a JSON value nests; stops counting past `limit` (then `limit + 1`). Recursive, but never
 * deeper than `limit + 1` calls; no list of nodes is built (a catalog's hundreds of objects are walked
 * for every reply that opens more than `limit` of them, so allocations here were a cost of every such one).
 */
export function nestingDepth(root: unknown, limit: number): number {
  const deepest = (node: object, depth: number): number => {
    if (depth > limit) return depth;
    let max = depth;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length && max <= limit; i++) {
        const v: unknown = node[i];
        if (v !== null && typeof v === 'object') max = Math.max(max, deepest(v, depth + 1));
      }
    } else {
      for (const k in node) {
        if (max > limit) break;
        if (!Object.hasOwn(node, k)) continue;
        const v: unknown = (node as Record<string, unknown>)[k];
        if (v !== null && typeof v === 'object') max = Math.max(max, deepest(v, depth + 1));
      }
    }
    return max;
  };
  return root !== null && typeof root === 'object' ? deepest(root, 1) : 0;
}
