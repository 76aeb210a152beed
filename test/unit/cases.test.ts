import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { catalogue } from '../../src/catalogue.ts';
import { pkgPath } from '../../src/paths.ts';

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['endpoint', 'cases'],
  properties: {
    endpoint: { type: 'string', pattern: '^(GET|POST|DELETE) /' },
    cases: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['description', 'ids', 'valid'],
        properties: {
          description: { type: 'string', minLength: 3, maxLength: 100, not: { pattern: '\\bshould\\b' } },
          ids: { type: 'array', minItems: 1, items: { type: 'string' } },
          patch: { type: 'object' },
          remove: { type: 'array', items: { type: 'string' } },
          valid: { type: 'boolean' },
          code: { type: 'string' },
          refusedWithout: { type: 'string' },
        },
      },
    },
  },
};

const validate = new Ajv({ allErrors: true }).compile(schema);
const dir = pkgPath('fixtures', 'cases');

describe.for(readdirSync(dir).filter((f) => f.endsWith('.yaml')))('case table %s', (file) => {
  const doc = parse(readFileSync(join(dir, file), 'utf8')) as {
    cases: Array<{ description: string; ids: string[] }>;
  };

  it('matches the case-table schema', () => {
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });

  it('has unique descriptions and known requirement ids', () => {
    const d = doc.cases.map((c) => c.description);
    expect(new Set(d).size).toBe(d.length);
    for (const c of doc.cases) for (const id of c.ids) expect(catalogue().has(id), id).toBe(true);
  });
});

describe('case patches', () => {
  it('expand $repeat into long strings, counted in code points', async () => {
    const { applyCase } = await import('../../src/suite/cases.ts');
    const body = applyCase(
      { a: 1, b: 2 },
      { patch: { s: { $repeat: '票', times: 121 }, n: [{ $repeat: 'ab', times: 2 }] }, remove: ['b'] },
    );
    expect(body).toEqual({ a: 1, s: '票'.repeat(121), n: ['abab'] });
  });
});
