/**
 * How deep a JSON value nests: the client does not examine a body nested past its bound, and evidence
 * (src/openapi/guard.ts) is not copied past one. Here, below both, so the client needs nothing above it.
 */

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
