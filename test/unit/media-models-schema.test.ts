/**
 * fixtures/media-models.yaml has a JSON Schema of its own (fixtures/media-models.schema.json, closed
 * everywhere): the table is valid against it, a preset names a size list, a default is one of the
 * values, and the schema refuses what a slip of the pen would write (a misspelt key, a parameter defined
 * twice, a guessed cell of a prompt the contract does not state).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pkgPath } from '../../src/paths.ts';

const schema = JSON.parse(readFileSync(pkgPath('fixtures', 'media-models.schema.json'), 'utf8')) as object;
const table = parse(readFileSync(pkgPath('fixtures', 'media-models.yaml'), 'utf8')) as {
  size_lists: Record<string, string[]>;
  models: Record<string, { parameters: Record<string, Record<string, unknown>> } & Record<string, unknown>>;
};
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats.default(ajv);
const validate = ajv.compile(schema);
const errors = () => (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

describe('fixtures/media-models.yaml against its schema', () => {
  it('is valid', () => {
    expect(validate(table), errors().join('\n')).toBe(true);
  });

  it('names only size lists it defines, and defaults among the listed values', () => {
    for (const [id, m] of Object.entries(table.models))
      for (const [name, p] of Object.entries(m.parameters)) {
        if (typeof p.presets === 'string')
          expect(table.size_lists, `${id}.${name}`).toHaveProperty(p.presets);
        if (Array.isArray(p.values)) expect(p.values, `${id}.${name}.default`).toContain(p.default);
      }
  });

  const model = () => structuredClone(table.models['wc-100010']!);
  const withModel = (m: unknown) => ({ ...table, models: { 'wc-100010': m } });
  it.each([
    ['a misspelt model key', () => ({ ...model(), parameter_complete: true })],
    [
      'a parameter defined two ways',
      () => {
        const m = model();
        m.parameters.output_format = { values: ['png'], integer: { min: 1, max: 2 }, default: 'png' };
        return m;
      },
    ],
    [
      'a parameter without its default',
      () => {
        const m = model();
        m.parameters.output_format = { values: ['png'] };
        return m;
      },
    ],
    [
      'a guessed cell of a prompt not stated',
      () => ({
        ...model(),
        prompt: {
          stated: false,
          required: null,
          empty_only: null,
          min_chars: 1,
          max_chars: null,
          max_utf8_bytes: null,
        },
      }),
    ],
    ['an output kind the table does not know', () => ({ ...model(), output: 'audio' })],
  ])('refuses %s', (_, make) => {
    expect(validate(withModel(make()))).toBe(false);
  });
});
