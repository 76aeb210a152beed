/**
 * No import circle in src/ or reference/ (issue 40 item 3): a module's relative imports, type-only ones
 * included, never lead back to it. A circle hides which module owns a type or a constant (reference/ had
 * faults.ts -> faults/transport.ts -> transport.ts -> context.ts -> state.ts -> faults.ts, and
 * reach.ts <-> state.ts), so the owner is made the module the others import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Each .ts file below `dir`, with the .ts files it imports or re-exports by a relative path. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const file = join(dir, entry);
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+\.ts)'/gms)];
    graph.set(
      file,
      targets.map((m) => resolve(dirname(file), m[1]!)),
    );
  }
  return graph;
}

/** The circles met by a depth-first walk, each as the chain of files from where it closes. */
function circles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const walk = (file: string): void => {
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) found.push([...path.slice(at), next].map((f) => relative(root, f)).join(' -> '));
      else if (!done.has(next) && graph.has(next)) walk(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) walk(file);
  return found;
}

describe('import circles', () => {
  it.each(['src', 'reference'])('%s/ has none', (dir) => {
    expect(circles(importGraph(join(root, dir)))).toEqual([]);
  });
});
