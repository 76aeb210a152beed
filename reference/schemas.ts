// The contract's JSON Schemas (schemas/*.json), turned into OpenAPI components.
import { readdirSync, readFileSync } from 'node:fs';

export type JsonObject = Record<string, unknown>;

const DIR = new URL('../schemas/', import.meta.url);

export interface ContractSchema {
  file: string;
  /** The schema's `title`, used as its component name. */
  name: string;
  schema: JsonObject;
}

export const CONTRACT_SCHEMAS: readonly ContractSchema[] = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => {
    const schema = JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as JsonObject;
    return { file, name: String(schema.title), schema };
  });

/**
 * components.schemas from the contract schemas: `$id`/`$schema` stripped, and every `$ref`
 * (`other.json`, `other.json#/$defs/x`, `#/$defs/x`) rewritten to point into components.
 */
export function contractComponents(): Record<string, JsonObject> {
  const names = new Map(CONTRACT_SCHEMAS.map((s) => [s.file, s.name]));
  const components: Record<string, JsonObject> = {};
  for (const { name, schema } of CONTRACT_SCHEMAS) {
    const { $id: _id, $schema: _dialect, ...rest } = structuredClone(schema);
    components[name] = rewriteRefs(rest, (ref) => {
      const [file = '', fragment = ''] = ref.split('#');
      const target = file === '' ? name : names.get(file);
      if (!target) throw new Error(`schemas: unresolvable $ref "${ref}" in ${name}`);
      return `#/components/schemas/${target}${fragment}`;
    }) as JsonObject;
  }
  return components;
}

function rewriteRefs(node: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, rewrite));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === '$ref' && typeof value === 'string' ? rewrite(value) : rewriteRefs(value, rewrite);
  }
  return out;
}
