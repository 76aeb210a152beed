// The SARIF 2.1.0 schema of the OASIS standard (schemas/vendor/sarif-2.1.0.json, its README says whence),
// compiled once for the tests that validate report.sarif.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { pkgPath } from '../../src/paths.ts';

let compiled: ValidateFunction | undefined;

/**
 * The standard's schema is draft-04; ajv's draft-07 class reads it once its two draft-04 spellings are
 * renamed (the schema id keyword and the meta-schema URI): no other keyword it uses differs.
 */
export function sarifValidator(): ValidateFunction {
  if (compiled) return compiled;
  const {
    id,
    $schema: _draft04,
    ...rest
  } = JSON.parse(readFileSync(pkgPath('schemas', 'vendor', 'sarif-2.1.0.json'), 'utf8')) as {
    id: string;
    $schema: string;
  } & Record<string, unknown>;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  compiled = ajv.compile({ $schema: 'http://json-schema.org/draft-07/schema#', $id: id, ...rest });
  return compiled;
}

/** The schema's complaints about a document, one line each (empty when it is valid). */
export function sarifErrors(doc: unknown): string[] {
  const validate = sarifValidator();
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}
