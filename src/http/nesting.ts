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

/** How deep a JSON value nests, counted without recursion; stops counting past `limit`. */
export function nestingDepth(root: unknown, limit: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, d] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (d + 1 > max) max = d + 1;
    if (max > limit) return max;
    for (const v of Array.isArray(node) ? node : Object.values(node)) {
      if (v !== null && typeof v === 'object') stack.push([v, d + 1]);
    }
  }
  return max;
}
