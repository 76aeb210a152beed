import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type HttpResponse, isJsonMediaType } from '../http/client.ts';
import { pkgPath } from '../paths.ts';
import { CACHE_ROOT, readCached, writeCached } from '../yaml-cache.ts';
import { escapeToken, OpenApiDocument, type Operation, templateRegex } from './document.ts';
import { documentedBodyFindings, type ResponseFinding, schemaErrorFindings } from './fallback.ts';
import { re2Engine, screenDescription } from './guard.ts';

export interface DescriptionCheck {
  /** A valid OpenAPI 3.1 document the suite examined: responses are validated against it. */
  valid: boolean;
  version?: string;
  /** Why it is not a valid OpenAPI 3.1 document: the target's failure (OAS-001). */
  errors: string[];
  /**
   * Why the suite did not examine it (a size bound of DESCRIPTION_LIMITS crossed): not the target's
   * failure (advisory, OAS-006). `valid` is then false; `errors` lists only what the walk found invalid.
   * So `errors` is empty exactly when the description is no failure of OAS-001.
   */
  tooLarge?: string[];
}

/** A fetched description's bytes (their SHA-256) and checkOpenApi31's verdict on them. */
export interface JudgedDescription extends DescriptionCheck {
  sha256: string;
}

/**
 * checkOpenApi31 of a fetched description, judged once per run: when `body` is the very bytes the run's
 * preflight judged (`judged`, same digest), its verdict; other bytes are judged here (judgeDescription).
 * Why: the verdict depends on the bytes alone, and compiling the 3.1 meta-schema costs about a
 * CPU-second per thread.
 */
export async function checkOpenApi31Once(
  body: Buffer,
  json: unknown,
  judged: JudgedDescription | undefined,
): Promise<DescriptionCheck> {
  const { sha256, ...check } =
    judged && sha256Of(body) === judged.sha256 ? judged : await judgeDescription(body, json);
  return check;
}

const sha256Of = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** Where checkOpenApi31's verdicts are kept, named by the bytes judged and the code that judged them. */
export const VERDICT_CACHE_DIR = join(CACHE_ROOT, 'openapi-verdicts-v1');

let codeKey: string | undefined | null;
/**
 * What decides checkOpenApi31's verdict besides the bytes: the text of the modules that judge (this one,
 * the description guard and what they call) and the versions of the validators. Undefined (no cache) when
 * one cannot be read.
 */
function verdictCodeKey(): string | undefined {
  if (codeKey !== undefined) return codeKey ?? undefined;
  try {
    const h = createHash('sha256');
    for (const f of ['live.ts', 'guard.ts', 'document.ts'])
      h.update(readFileSync(pkgPath('src', 'openapi', f)));
    h.update(readFileSync(pkgPath('src', 'http', 'nesting.ts')));
    for (const name of ['@seriousme/openapi-schema-validator', 'ajv', 're2js'])
      h.update(readFileSync(pkgPath('node_modules', name, 'package.json')));
    codeKey = h.digest('hex');
  } catch {
    codeKey = null;
  }
  return codeKey ?? undefined;
}

/** The name a verdict on `sha256` is kept under, or undefined when verdicts are not kept (verdictCodeKey). */
export function verdictCacheName(sha256: string): string | undefined {
  const code = verdictCodeKey();
  return code ? `${sha256Of(`${code}\n${sha256}`)}.json` : undefined;
}

/**
 * checkOpenApi31's verdict on a description's bytes (`json`: their parse), kept on disk: the verdict
 * depends on the bytes and the judging code alone, and judging costs about 0.4 CPU-s (compiling the 3.1
 * meta-schema, then validating), paid once per description instead of by every run and process that
 * reads the same one (a deployment run again, the mutation matrix's rows, a capture judged again).
 * A cache entry that does not read back as a verdict is judged anew.
 */
export async function judgeDescription(body: Buffer | string, json: unknown): Promise<JudgedDescription> {
  const sha256 = sha256Of(body);
  const name = json === undefined ? undefined : verdictCacheName(sha256);
  const kept = name && readCached(VERDICT_CACHE_DIR, name);
  if (kept) {
    try {
      const v = JSON.parse(kept) as DescriptionCheck;
      if (typeof v.valid === 'boolean' && Array.isArray(v.errors)) return { ...v, sha256 };
    } catch {
      // not a verdict: judged again below
    }
  }
  const check = await checkOpenApi31(json);
  if (name) writeCached(VERDICT_CACHE_DIR, name, JSON.stringify(check));
  return { ...check, sha256 };
}

/**
 * The OpenAPI 3.1 validator, loaded on first use: the CLI's preflight judges the description and the
 * workers take its verdict (checkOpenApi31Once), so a worker thread does not load the package (about
 * 0.1 CPU-s each).
 */
let oasValidator: Promise<Validator> | undefined;

/** Validate a document as OpenAPI 3.1 (ajv alone cannot compile the 3.1 meta-schema: ajv issue 1745). */
export async function checkOpenApi31(doc: unknown): Promise<DescriptionCheck> {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    return { valid: false, errors: ['not a JSON object'] };
  const declared = (doc as { openapi?: unknown }).openapi;
  if (typeof declared !== 'string' || !/^3\.1\.\d+/.test(declared)) {
    return { valid: false, errors: [`openapi is ${JSON.stringify(declared)}, expected 3.1.x`] };
  }
  // Bounds and cycles first: nothing below may clone or compile a document that would hang or crash it.
  const hazards = screenDescription(doc);
  if (hazards.length > 0) {
    const tooLarge = hazards.filter((h) => h.kind === 'too-large').map((h) => h.message);
    const errors = hazards.filter((h) => h.kind === 'invalid').map((h) => h.message);
    return { valid: false, version: declared, errors, ...(tooLarge.length > 0 ? { tooLarge } : {}) };
  }
  // Building the validator compiles the 3.1 meta-schema: once per process (runs in one process are sequential);
  // that fixed schema is not itself checked against JSON Schema's meta-schema (about 70 ms before every run).
  oasValidator ??= import('@seriousme/openapi-schema-validator').then(
    ({ Validator }) => new Validator({ strict: false, allErrors: true, validateSchema: false }),
  );
  const res = await (await oasValidator).validate(structuredClone(doc) as Record<string, unknown>);
  if (res.valid) return { valid: true, version: declared, errors: [] };
  const errors = Array.isArray(res.errors)
    ? res.errors.slice(0, 10).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`)
    : [String(res.errors)];
  return {
    valid: false,
    version: declared,
    errors: errors.length > 0 ? errors : ['not valid (no error given)'],
  };
}

/** Bodies up to this size get every schema error (up to 8 listed); larger ones the first. */
const ALL_ERRORS_MAX_BYTES = 1_000_000;

/**
 * An ajv for the live description: the target's patterns run on RE2 (matching time linear in the body
 * whatever the pattern), OpenAPI's formats known, the whole document registered so that
 * `#/components/...` references resolve inside it.
 */
function liveAjv(doc: Record<string, unknown>, allErrors: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors,
    // Only `{ $ref }` wrappers are compiled (the document is added unvalidated): checking them against
    // the meta-schema would compile the 2020-12 meta-schema in every worker (about 0.5 s each) for nothing.
    validateSchema: false,
    validateFormats: true,
    logger: false,
    code: { regExp: re2Engine },
  });
  addFormats.default(ajv);
  for (const [name, bits] of [
    ['int32', 32],
    ['int64', 64],
  ] as const) {
    const lim = 2 ** (bits - 1);
    ajv.addFormat(name, {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= -lim && n < lim,
    });
  }
  for (const f of ['float', 'double']) ajv.addFormat(f, { type: 'number', validate: () => true });
  for (const f of ['binary', 'byte', 'password']) ajv.addFormat(f, () => true);
  ajv.addSchema({ ...structuredClone(doc), $id: 'live://openapi' }, undefined, undefined, false);
  return ajv;
}

/** Media-range match with wildcards (`image/*`, `*\/*`). */
function mediaMatches(range: string, mt: string): boolean {
  const [rt, rs] = range.toLowerCase().split(';')[0]!.trim().split('/');
  const [t, s] = mt.split('/');
  return (rt === '*' || rt === t) && (rs === '*' || rs === s);
}

/**
 * The target's live description, compiled once: finds the operation of an exchange and checks the
 * response against what the description declares for it (status, media type, body schema, headers).
 */
export class LiveDescription {
  private readonly ajv: Ajv2020;
  /** Stops at the first error: linear in the body (ajv concatenates errors across $ref calls). */
  private readonly firstErrorAjv: Ajv2020;
  /** The shared reading of the description: refs, operations, schemas with allOf merged. */
  readonly document: OpenApiDocument;
  private readonly ops: Operation[];
  private readonly cache = new Map<string, ValidateFunction | Error>();

  constructor(readonly doc: Record<string, unknown>) {
    this.ajv = liveAjv(doc, true);
    this.firstErrorAjv = liveAjv(doc, false);
    this.document = new OpenApiDocument(doc);
    // Literal paths win over templated ones (`/v1/media/models` before `/v1/media/{x}`).
    this.ops = [...this.document.operations()].sort(
      (a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0),
    );
  }

  operations(): Operation[] {
    return this.ops;
  }

  findOperation(method: string, path: string): Operation | undefined {
    const p = path.split('?')[0]!;
    return this.ops.find((o) => o.method === method.toUpperCase() && templateRegex(o.template).test(p));
  }

  hasOperation(method: string, template: string): boolean {
    const probe = template.replace(/\{[^}]+\}/g, 'x_probe_1');
    return this.findOperation(method, probe) !== undefined;
  }

  /** The object a local `$ref` chain ends at (the node itself when it has none). */
  deref<T = Record<string, unknown>>(node: unknown): T | undefined {
    return this.document.deref(node) as T | undefined;
  }

  checkResponse(res: HttpResponse): ResponseFinding[] {
    const op = this.findOperation(res.method, res.rawPath);
    if (!op) return [];
    const where = `${op.method} ${op.template}`;
    const responses = (this.deref(op.op.responses) ?? {}) as Record<string, unknown>;
    const code = String(res.status);
    const key = [code, `${code[0]}XX`, `${code[0]}xx`, 'default'].find((k) => k in responses);
    if (!key) {
      return [
        {
          id: 'RESP-001',
          message: `${where}: status ${code} is not declared for the operation`,
          received: res.status,
          expected: Object.keys(responses),
          pointer: `${op.pointer}/responses`,
        },
      ];
    }
    const findings: ResponseFinding[] = [];
    const resPointer = `${op.pointer}/responses/${escapeToken(key)}`;
    const decl = this.deref(responses[key]) ?? {};
    const content = (this.deref(decl.content) ?? {}) as Record<string, unknown>;
    const ranges = Object.keys(content);
    if (ranges.length === 0) {
      // A Response Object without `content` leaves the payload undescribed ("a map containing
      // descriptions of potential response payloads"); it does not declare that there is none, so a
      // body is advisory, not a contradiction (variant openapi-errors-undescribed).
      if (res.body.length > 0) {
        findings.push({
          id: 'RESP-002',
          message: `${where} ${code}: the description does not describe the ${res.body.length}-byte body of this response (no content declared)`,
          received: res.mediaType ?? '(no content-type)',
          expected: 'a described payload',
          pointer: resPointer,
          level: 'notable',
        });
      }
    } else if (!res.mediaType) {
      if (res.body.length > 0) {
        findings.push({
          id: 'RESP-002',
          message: `${where} ${code}: the response has no Content-Type`,
          received: '(none)',
          expected: ranges,
          pointer: `${resPointer}/content`,
        });
      }
    } else {
      const mt = res.mediaType;
      const range =
        ranges.find((r) => r.toLowerCase().split(';')[0]!.trim() === mt) ??
        ranges.find((r) => mediaMatches(r, mt));
      if (!range) {
        findings.push({
          id: 'RESP-002',
          message: `${where} ${code}: content type ${mt} is not declared`,
          received: mt,
          expected: ranges,
          pointer: `${resPointer}/content`,
        });
      } else {
        const media = this.deref(content[range]) ?? {};
        if (media.schema !== undefined && isJsonMediaType(mt)) {
          const schemaPointer = `${resPointer}/content/${escapeToken(range)}/schema`;
          findings.push(...this.checkBody(res, schemaPointer, where));
        }
      }
    }
    findings.push(...this.checkHeaders(res, decl, resPointer, where));
    return findings;
  }

  private validator(pointer: string, allErrors = true): ValidateFunction | Error {
    const key = `${allErrors ? 'all' : 'first'}:${pointer}`;
    let v = this.cache.get(key);
    if (!v) {
      try {
        v = (allErrors ? this.ajv : this.firstErrorAjv).compile({ $ref: `live://openapi#${pointer}` });
      } catch (err) {
        v = err as Error;
      }
      this.cache.set(key, v);
    }
    return v;
  }

  private checkBody(res: HttpResponse, schemaPointer: string, where: string): ResponseFinding[] {
    if (res.jsonError !== undefined || (res.json === undefined && res.body.length > 0)) {
      return [
        {
          id: 'RESP-003',
          message: `${where} ${res.status}: the body is not valid JSON (${res.jsonError ?? 'unparsable'})`,
          pointer: schemaPointer,
        },
      ];
    }
    if (res.body.length === 0) {
      return [
        {
          id: 'RESP-003',
          message: `${where} ${res.status}: empty body where a JSON schema is declared`,
          pointer: schemaPointer,
        },
      ];
    }
    // First whether the body is valid at all (linear); every error only for a body small enough that
    // collecting them all (quadratic in ajv across $ref calls) stays cheap.
    const first = this.validator(schemaPointer, false);
    if (first instanceof Error)
      return documentedBodyFindings(res, `the live schema does not compile: ${first.message.slice(0, 200)}`);
    if (first(res.json)) return [];
    const all = res.body.length <= ALL_ERRORS_MAX_BYTES ? this.validator(schemaPointer) : undefined;
    const errors = all && !(all instanceof Error) && !all(res.json) ? all.errors : first.errors;
    return schemaErrorFindings(
      res,
      oneErrorPerCause(errors ?? []),
      !all,
      (e) =>
        `${where} ${res.status}: body ${e.instancePath || '/'} ${e.message ?? e.keyword} (schema ${e.schemaPath})`,
    );
  }

  private checkHeaders(
    res: HttpResponse,
    decl: Record<string, unknown>,
    resPointer: string,
    where: string,
  ): ResponseFinding[] {
    const headers = (this.deref(decl.headers) ?? {}) as Record<string, unknown>;
    const out: ResponseFinding[] = [];
    for (const [name, h0] of Object.entries(headers)) {
      const h = this.deref(h0) ?? {};
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) {
        if (h.required === true) {
          out.push({
            id: 'RESP-004',
            message: `${where} ${res.status}: required header ${name} is missing`,
            pointer: `${resPointer}/headers/${escapeToken(name)}`,
          });
        }
        continue;
      }
      if (h.schema) {
        const v = this.validator(`${resPointer}/headers/${escapeToken(name)}/schema`);
        if (v instanceof Error) continue;
        const schema = this.deref<{ type?: unknown }>(h.schema);
        const typed = schema?.type === 'integer' || schema?.type === 'number' ? Number(value) : value;
        if (!v(typed)) {
          out.push({
            id: 'RESP-004',
            message: `${where} ${res.status}: header ${name} does not match its schema (${v.errors?.[0]?.message ?? ''})`,
            received: value,
            pointer: `${resPointer}/headers/${escapeToken(name)}`,
          });
        }
      }
    }
    return out;
  }
}

/**
 * One error per cause: a missing property is one finding at its instance path, however many schema
 * paths require it (allOf branches, a $ref and its inline copy, anyOf/oneOf alternatives).
 */
export function oneErrorPerCause(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    if (e.keyword !== 'required') return true;
    const key = `${e.instancePath}\n${String((e.params as { missingProperty?: unknown }).missingProperty)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
