import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { pkgPath } from '../paths.ts';
import { isObj, valueAt } from './document.ts';

export type Schema = Record<string, unknown>;

/** The contract's documented schemas (schemas/*.json), by file name and by $id. */
export class Documented {
  private readonly byId = new Map<string, Schema>();
  readonly byFile = new Map<string, Schema>();
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  /** `allErrors` false: validation stops at the first error (linear in a large body). */
  constructor(dir = pkgPath('schemas'), allErrors = true) {
    // Our own schemas, checked against the 2020-12 meta-schema once by test/unit/fixtures.test.ts: not in
    // every worker thread of every run (compiling the meta-schema cost each about 70 ms).
    this.ajv = new Ajv2020({ strict: false, allErrors, validateSchema: false });
    addFormats.default(this.ajv);
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      const s = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')) as Schema;
      this.byFile.set(f, s);
      if (typeof s.$id === 'string') this.byId.set(s.$id, s);
      this.ajv.addSchema(s);
    }
  }

  file(name: string): Schema {
    const s = this.byFile.get(name);
    if (!s) throw new Error(`no documented schema ${name} in schemas/`);
    return s;
  }

  /** Validator of a documented schema, compiled once. */
  validator(name: string): ValidateFunction {
    let v = this.compiled.get(name);
    if (!v) {
      const id = this.file(name).$id as string;
      v = this.ajv.getSchema(id)!;
      this.compiled.set(name, v);
    }
    return v;
  }

  /** Follow `$ref`s (relative to the schema's base $id) until a schema without one. */
  deref(node: Schema, base: string): { schema: Schema; base: string } {
    let cur = node;
    let b = base;
    for (let i = 0; i < 20 && typeof cur.$ref === 'string'; i++) {
      const url = new URL(cur.$ref as string, b);
      const docId = `${url.origin}${url.pathname}`;
      const doc = this.byId.get(docId);
      if (!doc) throw new Error(`documented schema reference ${cur.$ref} from ${b} does not resolve`);
      const at = valueAt(doc, url.hash.slice(1), decodeURIComponent);
      if (!isObj(at)) throw new Error(`documented schema reference ${cur.$ref} from ${b} does not resolve`);
      b = docId;
      cur = at;
    }
    return { schema: cur, base: b };
  }
}

let shared: Documented | undefined;
export function documented(): Documented {
  shared ??= new Documented();
  return shared;
}
