import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

const DIR = new URL('../../schemas/', import.meta.url);
const BASE = 'https://gateway-conformance.dev/schemas/';
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.json'));
// Only the shapes the contract closes.
const CLOSED = [
  'embedding-request.json',
  'media-input-envelope.json',
  'media-job-create.json',
  'support-ticket-create.json',
];

interface Case {
  file: string;
  description: string;
  data: unknown;
  valid: boolean;
}
const CASES = parse(readFileSync(new URL('schema-cases.yaml', import.meta.url), 'utf8'), {
  merge: true,
}) as Case[];

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);
const schemas = new Map(FILES.map((file) => [file, JSON.parse(readFileSync(new URL(file, DIR), 'utf8'))]));
for (const schema of schemas.values()) ajv.addSchema(schema);

describe('schemas/', () => {
  test.for(FILES)('%s compiles in strict mode and names itself', (file) => {
    const schema = schemas.get(file);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(BASE + file);
    expect(schema.title).toMatch(/^[A-Za-z]+$/);
    expect(schema.description, 'quotes the contract').toMatch(/"/);
    expect(ajv.getSchema(BASE + file)).toBeTypeOf('function');
    expect(schema.additionalProperties === false, 'closed only where the contract closes it').toBe(
      CLOSED.includes(file),
    );
  });

  test('case descriptions are unique per schema and every schema has a case', () => {
    const keys = CASES.map((c) => `${c.file}: ${c.description}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const c of CASES) expect(FILES, c.file).toContain(c.file);
    const covered = new Set(CASES.map((c) => c.file));
    expect(FILES.filter((f) => !covered.has(f))).toEqual([]);
  });

  test.for(CASES)('$file: $description', ({ file, data, valid }) => {
    const validate = ajv.getSchema(BASE + file);
    expect(validate?.(data), JSON.stringify(validate?.errors)).toBe(valid);
  });
});
