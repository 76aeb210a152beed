import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Validator } from '@seriousme/openapi-schema-validator';
import {
  _,
  Ajv2020,
  type AnySchemaObject,
  type ErrorObject,
  type Format,
  type ValidateFunction,
} from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { DataValidateFunction } from 'ajv/dist/types/index.js';
import addFormats from 'ajv-formats';
import { type HttpResponse, isJsonMediaType, mediaTypeOf } from '../http/client.ts';
import { pkgPath } from '../paths.ts';
import { UNAVAILABLE_STATUSES, unavailablePage } from '../vocabulary.ts';
import { CACHE_ROOT, cacheRootTrusted, readCached, writeCached } from '../yaml-cache.ts';
import { escapeToken, OpenApiDocument, type Operation, templateRegex } from './document.ts';
import {
  documentedBody,
  type ResponseFinding,
  type ResponseJudgement,
  schemaErrorFindings,
} from './fallback.ts';
import { re2Engine, screenDescription } from './guard.ts';
import { itemFindings, sequenceKind } from './items.ts';

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

/** What a RESP-002 finding on a proxy's page (unavailablePage) adds to its message. */
const pageNote = (res: HttpResponse) =>
  unavailablePage(res) ? " (a proxy's or load balancer's page at an unavailable status: advisory)" : '';

const sha256Of = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** Where checkOpenApi31's verdicts are kept, named by the bytes judged and the code that judged them. */
export const VERDICT_CACHE_DIR = join(CACHE_ROOT, 'openapi-verdicts-v1');

const codeKeys = new Map<string, string | undefined>();
/**
 * A digest of what decides a cached result besides its input: the text of the modules that compute it
 * (`sources`, paths under the package) and the versions of the `packages` they use. Undefined (nothing is
 * cached) when one cannot be read, or when the suite's caches are not this user's alone (cacheRootTrusted).
 */
function codeKey(sources: string[], packages: string[]): string | undefined {
  const id = [...sources, ...packages].join('\n');
  if (codeKeys.has(id)) return codeKeys.get(id);
  let key: string | undefined;
  try {
    if (cacheRootTrusted()) {
      const h = createHash('sha256');
      for (const f of sources) h.update(readFileSync(pkgPath(f)));
      for (const name of packages) h.update(readFileSync(pkgPath('node_modules', name, 'package.json')));
      key = h.digest('hex');
    }
  } catch {
    key = undefined;
  }
  codeKeys.set(id, key);
  return key;
}

/** What decides checkOpenApi31's verdict besides the bytes: these modules and validators. */
const verdictCodeKey = () =>
  codeKey(
    ['src/openapi/live.ts', 'src/openapi/guard.ts', 'src/openapi/document.ts', 'src/http/nesting.ts'],
    ['@seriousme/openapi-schema-validator', 'ajv', 're2js'],
  );

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
  // 3.2 is read as well: a compatible successor of 3.1 (its streams described by `itemSchema`).
  if (typeof declared !== 'string' || !/^3\.[12]\.\d+/.test(declared)) {
    return { valid: false, errors: [`openapi is ${JSON.stringify(declared)}, expected 3.1.x or 3.2.x`] };
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

const integerFormat = (bits: number): Format => {
  const lim = 2 ** (bits - 1);
  return { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -lim && n < lim };
};
/** OpenAPI's own formats (beside JSON Schema's, from ajv-formats). */
const OPENAPI_FORMATS: Record<string, Format> = {
  int32: integerFormat(32),
  int64: integerFormat(64),
  float: { type: 'number', validate: () => true },
  double: { type: 'number', validate: () => true },
  binary: () => true,
  byte: () => true,
  password: () => true,
};

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
    // `multipleOf: 0.01` holds for 19.99 ("division by this keyword's value results in an integer",
    // JSON Schema validation 6.2.1), where binary floating point makes 19.99 / 0.01 = 1998.9999999999998
    // (and 1234567.89 / 0.01 = 123456788.99999999): a quotient within 1e-6 of an integer counts as one.
    // Fail on evidence: a value that far off the step by less than a millionth of it is let through.
    multipleOfPrecision: 6,
    logger: false,
    // The source is kept for the validator cache (standaloneCode), whose code takes the formats from
    // FORMATS_MODULE (standaloneRequire) and the pattern engine as `re2js` (loadValidator).
    code: { regExp: re2Engine, source: true, formats: _`require(${FORMATS_MODULE}).fullFormats` },
  });
  addFormats.default(ajv);
  for (const [name, format] of Object.entries(OPENAPI_FORMATS)) ajv.addFormat(name, format);
  ajv.addSchema({ ...structuredClone(doc), $id: 'live://openapi' }, undefined, undefined, false);
  return ajv;
}

/** A `$ref` local to the description (`#/components/...`) made absolute, so a schema compiled apart resolves it. */
function refsToLive(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(refsToLive);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `live://openapi${v}` : refsToLive(v),
    ]),
  );
}

/**
 * `contentSchema` checked where `contentMediaType` is JSON: the string is decoded and validated against
 * it (JSON Schema makes the pair an annotation; OpenAPI 3.2 describes an event's JSON `data` so). A string
 * that is not JSON fails it; another media type is not decoded.
 */
function withContentSchema(ajv: Ajv2020): Ajv2020 {
  ajv.removeKeyword('contentSchema');
  ajv.addKeyword({
    keyword: 'contentSchema',
    schemaType: ['object', 'boolean'],
    errors: true,
    compile(schema: unknown, parent: AnySchemaObject) {
      const declared: unknown = parent.contentMediaType;
      const mt = typeof declared === 'string' ? mediaTypeOf(declared) : undefined;
      if (!isJsonMediaType(mt)) return () => true;
      const inner = ajv.compile(refsToLive(schema) as object);
      const check: DataValidateFunction = (data, cxt) => {
        if (typeof data !== 'string') return true;
        const at = `${cxt?.instancePath ?? ''} (as JSON)`;
        let value: unknown;
        try {
          value = JSON.parse(data);
        } catch {
          check.errors = [
            {
              keyword: 'contentSchema',
              instancePath: at,
              schemaPath: '',
              params: {},
              message: 'is not JSON',
            },
          ];
          return false;
        }
        if (inner(value)) return true;
        check.errors = (inner.errors ?? []).map((e) => ({ ...e, instancePath: `${at}${e.instancePath}` }));
        return false;
      };
      return check;
    },
  });
  return ajv;
}

/** Where the live description's validators are kept as code (LiveDescription.loadOrCompile). */
export const VALIDATOR_CACHE_DIR = join(CACHE_ROOT, 'validators-v1');

/** A validator's code longer than this is not kept (the real reference's largest is about 60 KB). */
const MAX_KEPT_CODE_CHARS = 1_000_000;

/** What decides a validator's code besides the description: liveAjv (this module), the engine, the versions. */
const validatorCodeKey = () =>
  codeKey(['src/openapi/live.ts', 'src/openapi/guard.ts'], ['ajv', 'ajv-formats', 're2js']);

/** The module kept validator code takes its formats from: ajv-formats' with OPENAPI_FORMATS added. */
const FORMATS_MODULE = 'ajv-formats/dist/formats';
const requireHere = createRequire(import.meta.url);
let formatsModule: unknown;
/** The modules kept validator code may require: the formats, and ajv's runtime helpers. Nothing else. */
function standaloneRequire(id: string): unknown {
  if (id === FORMATS_MODULE) {
    const real = requireHere(FORMATS_MODULE) as { fullFormats: Record<string, unknown> };
    formatsModule ??= { ...real, fullFormats: { ...real.fullFormats, ...OPENAPI_FORMATS } };
    return formatsModule;
  }
  if (/^ajv\/dist\/runtime\/[a-z_0-9]+$/.test(id)) return requireHere(id);
  throw new Error(`kept validator code requires ${id}`);
}

/** A validator from the code ajv's standaloneCode generated (the engine of its patterns passed as `re2js`). */
export function loadValidator(code: string): ValidateFunction {
  const module = { exports: {} as unknown };
  new Function('require', 'module', 'exports', 're2js', code)(
    standaloneRequire,
    module,
    module.exports,
    re2Engine,
  );
  if (typeof module.exports !== 'function') throw new Error('kept validator code exports no function');
  return module.exports as ValidateFunction;
}

/** Media-range match with wildcards (`image/*`, `*\/*`). */
function mediaMatches(range: string, mt: string): boolean {
  const [rt, rs] = range.toLowerCase().split(';')[0]!.trim().split('/');
  const [t, s] = mt.split('/');
  return (rt === '*' || rt === t) && (rs === '*' || rs === s);
}

type Json = Record<string, unknown>;

/** A declared media object, behind its `$ref`, and its pointer (schemas under it are compiled from there). */
interface DeclaredMedia {
  node: Json;
  pointer: string;
}

/** What a description declares for one status of an operation (LiveDescription.declared). */
type Declared =
  /** No response object applies: the keys that are declared. */
  | { kind: 'undeclared'; expected: string[] }
  | {
      kind: 'declared';
      /** The pointer of the response key that applies, and of the response object behind its `$ref`. */
      resPointer: string;
      declPointer: string;
      content: Json;
      ranges: string[];
      /** Per media type met: the media object it falls under, or null (none declared). */
      media: Map<string, DeclaredMedia | null>;
      /** Each declared header, its object behind its `$ref`, and where its schema is compiled from. */
      headers: Array<{ name: string; node: Json; schemaPointer?: string }>;
    };

/**
 * A 304 to a conditional request (If-None-Match, If-Modified-Since): HTTP's caching, which the client
 * chose ("a conditional GET or HEAD request has been received and would have resulted in a 200 (OK)
 * response if it were not for the fact that the condition evaluated to false", RFC 9110 15.4.5), not an
 * answer a description lists (a proxy's or a browser's capture holds them; the suite never asks). Not
 * judged by the description; a 304 the request did not ask for is judged as any other status.
 */
function notModified(res: HttpResponse): boolean {
  if (res.status !== 304) return false;
  return Object.keys(res.exchange.requestHeaders).some((h) => {
    const name = h.toLowerCase();
    return name === 'if-none-match' || name === 'if-modified-since';
  });
}

/**
 * The target's live description, compiled once: finds the operation of an exchange and checks the
 * response against what the description declares for it (status, media type, body schema, headers).
 */
export class LiveDescription {
  /**
   * The ajvs that compile a validator whose code is not kept yet, made at the first such compile: a
   * thread whose validators are all kept (every run after the first against a description) never makes
   * them (two of them, with the whole description registered: about 50 ms of each thread's start).
   * `first` stops at the first error: linear in the body (ajv concatenates errors across $ref calls).
   */
  private readonly ajvs: { all?: Ajv2020; first?: Ajv2020 } = {};
  /** The shared reading of the description: refs, operations, schemas with allOf merged. */
  readonly document: OpenApiDocument;
  private readonly ops: Operation[];
  private readonly cache = new Map<string, ValidateFunction | Error>();

  constructor(readonly doc: Record<string, unknown>) {
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
    const key = `${method} ${p}`;
    if (this.found.has(key)) return this.found.get(key);
    const m = method.toUpperCase();
    const op = this.ops.find(
      (o) =>
        o.method === m &&
        (templateRegex(o.template).test(p) || o.served.some((t) => templateRegex(t).test(p))),
    );
    // Paths recur (a capture, a run's polls): each looked up once, up to a bound.
    if (this.found.size >= 10_000) this.found.clear();
    this.found.set(key, op);
    return op;
  }
  private readonly found = new Map<string, Operation | undefined>();

  hasOperation(method: string, template: string): boolean {
    const probe = template.replace(/\{[^}]+\}/g, 'x_probe_1');
    return this.findOperation(method, probe) !== undefined;
  }

  /** The object a local `$ref` chain ends at (the node itself when it has none). */
  deref<T = Record<string, unknown>>(node: unknown): T | undefined {
    return this.document.deref(node) as T | undefined;
  }

  /** The findings of judgeResponse alone (for a caller that needs no more than what is wrong). */
  checkResponse(res: HttpResponse): ResponseFinding[] {
    return this.judgeResponse(res).findings;
  }

  /**
   * A response judged against the description, and the ids it was judged on: RESP-001 where the
   * description has its operation, RESP-002 on a body of a declared status, RESP-003 where a schema (or
   * an itemSchema) was the body's to meet, RESP-004 where the status declares headers. A path the
   * description does not have is not judged by it.
   */
  judgeResponse(res: HttpResponse): ResponseJudgement {
    const op = this.findOperation(res.method, res.rawPath);
    if (!op || notModified(res)) return { findings: [], judged: [] };
    const where = `${op.method} ${op.template}`;
    const code = String(res.status);
    const d = this.declared(op, code);
    if (d.kind === 'undeclared') {
      // A 502, 503 or 504 is an upstream or a model unavailable: "a 502/503/504" is advisory, never
      // promoted (judging.md), and a description "is not expected to cover all possible HTTP response
      // codes because they may not be known in advance" (OpenAPI 3.1, Responses Object): one it does not
      // declare is reported, not failed, or the verdict would turn on whether an upstream was down.
      const unavailable = UNAVAILABLE_STATUSES.has(res.status);
      const finding: ResponseFinding = {
        id: 'RESP-001',
        message: `${where}: status ${code} is not declared for the operation${unavailable ? ' (an upstream or a model unavailable: advisory)' : ''}`,
        received: res.status,
        expected: [...d.expected],
        pointer: `${op.pointer}/responses`,
        ...(unavailable ? { level: 'notable' as const } : {}),
      };
      return { findings: [finding], judged: ['RESP-001'] };
    }
    const findings: ResponseFinding[] = [];
    const judged: Array<ResponseFinding['id']> = ['RESP-001'];
    if (res.body.length > 0) judged.push('RESP-002');
    const { resPointer, ranges } = d;
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
          message: `${where} ${code}: the response has no Content-Type${pageNote(res)}`,
          received: '(none)',
          expected: [...ranges],
          pointer: `${resPointer}/content`,
          ...(unavailablePage(res) ? { level: 'notable' as const } : {}),
        });
      }
    } else {
      const mt = res.mediaType;
      const media = this.mediaOf(d, mt);
      if (!media) {
        findings.push({
          id: 'RESP-002',
          message: `${where} ${code}: content type ${mt} is not declared${pageNote(res)}`,
          received: mt,
          expected: [...ranges],
          pointer: `${resPointer}/content`,
          ...(unavailablePage(res) ? { level: 'notable' as const } : {}),
        });
      } else {
        const kind = sequenceKind(mt);
        if (media.node.itemSchema !== undefined && kind) {
          const itemPointer = `${media.pointer}/itemSchema`;
          const v = this.itemValidator(itemPointer);
          if (v instanceof Error) {
            const fallback = documentedBody(
              res,
              `the live itemSchema does not compile: ${v.message.slice(0, 200)}`,
            );
            if (fallback) {
              findings.push(...fallback.findings);
              judged.push('RESP-003');
            }
          } else {
            findings.push(...itemFindings(res, kind, v, itemPointer, where));
            judged.push('RESP-003');
          }
        } else if (media.node.schema !== undefined && isJsonMediaType(mt)) {
          const body = this.checkBody(res, `${media.pointer}/schema`, where);
          findings.push(...body.findings);
          if (body.judged) judged.push('RESP-003');
        }
      }
    }
    findings.push(...this.checkHeaders(res, d, where));
    if (d.headers.length > 0) judged.push('RESP-004');
    return { findings, judged };
  }

  /**
   * What the description declares for one status of an operation: the response object that applies
   * (the status, its range, or `default`), behind its `$ref`, with its pointer, media ranges and
   * headers located. Looked up once per operation and status: every exchange of a run or a capture asks
   * again, and following `$ref`s is most of the cost of a check that finds nothing.
   */
  private declared(op: Operation, code: string): Declared {
    const memo = `${op.pointer}\n${code}`;
    const known = this.declarations.get(memo);
    if (known) return known;
    const responses = (this.deref(op.op.responses) ?? {}) as Record<string, unknown>;
    const key = [code, `${code[0]}XX`, `${code[0]}xx`, 'default'].find((k) => k in responses);
    let d: Declared;
    if (!key) d = { kind: 'undeclared', expected: Object.keys(responses) };
    else {
      const resPointer = `${op.pointer}/responses/${escapeToken(key)}`;
      // The response object behind its `$ref`, if any, and its own pointer: a schema under it is compiled
      // from there (ajv resolves no pointer that passes through a `$ref`).
      const declared = this.document.locate(responses[key], resPointer);
      const decl = declared?.node ?? {};
      const declPointer = declared?.pointer ?? resPointer;
      const content = (this.deref(decl.content) ?? {}) as Record<string, unknown>;
      const headers = (this.deref(decl.headers) ?? {}) as Record<string, unknown>;
      d = {
        kind: 'declared',
        resPointer,
        declPointer,
        content,
        ranges: Object.keys(content),
        media: new Map(),
        headers: Object.entries(headers).map(([name, h0]) => {
          // The header object behind its `$ref` (`#/components/headers/...`): its schema is compiled from there.
          const located = this.document.locate(h0, `${declPointer}/headers/${escapeToken(name)}`);
          return {
            name,
            node: located?.node ?? {},
            ...(located ? { schemaPointer: `${located.pointer}/schema` } : {}),
          };
        }),
      };
    }
    if (this.declarations.size >= 10_000) this.declarations.clear();
    this.declarations.set(memo, d);
    return d;
  }
  private readonly declarations = new Map<string, Declared>();

  /**
   * The declared media object a reply's media type falls under (an exact range first, then a wildcard),
   * located behind its `$ref`; undefined when none is declared. Remembered per media type (a bounded
   * number: the media type is the target's to choose).
   */
  private mediaOf(d: Extract<Declared, { kind: 'declared' }>, mt: string): DeclaredMedia | undefined {
    const known = d.media.get(mt);
    if (known !== undefined) return known ?? undefined;
    // "For responses that match multiple keys, only the most specific key is applicable. e.g. text/plain
    // overrides text/*" (OpenAPI 3.1, Response Object): the exact type, then `type/*`, then `*/*`, whatever
    // order the description lists them in.
    const range =
      d.ranges.find((r) => r.toLowerCase().split(';')[0]!.trim() === mt) ??
      d.ranges.find((r) => !r.trim().startsWith('*') && mediaMatches(r, mt)) ??
      d.ranges.find((r) => mediaMatches(r, mt));
    let media: DeclaredMedia | null = null;
    if (range !== undefined) {
      const located = this.document.locate(
        d.content[range],
        `${d.declPointer}/content/${escapeToken(range)}`,
      );
      media = located ?? { node: {}, pointer: `${d.declPointer}/content/${escapeToken(range)}` };
    }
    if (d.media.size < 64) d.media.set(mt, media);
    return media ?? undefined;
  }

  /** Compiles the `itemSchema`s of streamed replies (with `contentSchema` checked): never kept as code. */
  private itemAjv: Ajv2020 | undefined;

  /**
   * The validator of a streamed reply's items. Not kept as code like the body validators: the
   * `contentSchema` keyword it adds is a function, which ajv's standalone code cannot carry; a
   * description has a few streams, so compiling them costs little.
   */
  private itemValidator(pointer: string): ValidateFunction | Error {
    const key = `item:${pointer}`;
    let v = this.cache.get(key);
    if (!v) {
      try {
        this.itemAjv ??= withContentSchema(liveAjv(this.doc, false));
        v = this.itemAjv.compile({ $ref: `live://openapi#${pointer}` });
      } catch (err) {
        v = err as Error;
      }
      this.cache.set(key, v);
    }
    return v;
  }

  private validator(pointer: string, allErrors = true): ValidateFunction | Error {
    const key = `${allErrors ? 'all' : 'first'}:${pointer}`;
    let v = this.cache.get(key);
    if (!v) {
      v = this.loadOrCompile(key, pointer, () => {
        const which = allErrors ? 'all' : 'first';
        this.ajvs[which] ??= liveAjv(this.doc, allErrors);
        return this.ajvs[which];
      });
      this.cache.set(key, v);
    }
    return v;
  }

  /**
   * The validator of the schema at `pointer`: its code as ajv generated it for this description before
   * (VALIDATOR_CACHE_DIR), or compiled now and its code kept. Why: compiling is ajv's code generation,
   * about ten times the cost of loading the code it generates, and every worker thread of every run
   * (and every row of the mutation matrix) compiles the same validators of the same description.
   */
  private loadOrCompile(key: string, pointer: string, ajvOf: () => Ajv2020): ValidateFunction | Error {
    const name = this.validatorCacheName(key);
    const kept = name && readCached(VALIDATOR_CACHE_DIR, name);
    if (kept) {
      try {
        return loadValidator(kept);
      } catch {
        // not a validator: compiled again below
      }
    }
    let v: ValidateFunction;
    let ajv: Ajv2020;
    try {
      // Made here, not with the description: a description ajv cannot even register (two schemas of one
      // `$id`) is then one that does not compile, as a schema that does not.
      ajv = ajvOf();
      v = ajv.compile({ $ref: `live://openapi#${pointer}` });
    } catch (err) {
      return err as Error;
    }
    if (name) {
      try {
        // The code holds the schemas it checks: a validator of a large schema (a description near the
        // guard's bounds, its enums repeated in every pointer's file) is not kept, so that a hostile
        // description cannot fill the temporary directory.
        const code = standaloneCode.default(ajv, v);
        if (code.length <= MAX_KEPT_CODE_CHARS) writeCached(VALIDATOR_CACHE_DIR, name, code);
      } catch {
        // not kept: the next thread compiles it
      }
    }
    return v;
  }

  private docDigest: string | undefined;
  /** The name a validator's code is kept under: the code key, the description, which one; undefined: not kept. */
  validatorCacheName(key: string): string | undefined {
    const code = validatorCodeKey();
    if (!code) return undefined;
    this.docDigest ??= sha256Of(JSON.stringify(this.doc));
    return `${sha256Of(`${code}\n${this.docDigest}\n${key}`)}.js`;
  }

  /** The body against its declared schema: findings, and whether it was judged (RESP-003). */
  private checkBody(
    res: HttpResponse,
    schemaPointer: string,
    where: string,
  ): { findings: ResponseFinding[]; judged: boolean } {
    const judged = (findings: ResponseFinding[]) => ({ findings, judged: true });
    if (res.jsonError !== undefined || (res.json === undefined && res.body.length > 0)) {
      return judged([
        {
          id: 'RESP-003',
          message: `${where} ${res.status}: the body is not valid JSON (${res.jsonError ?? 'unparsable'})`,
          pointer: schemaPointer,
        },
      ]);
    }
    if (res.body.length === 0) {
      return judged([
        {
          id: 'RESP-003',
          message: `${where} ${res.status}: empty body where a JSON schema is declared`,
          pointer: schemaPointer,
        },
      ]);
    }
    // First whether the body is valid at all (linear); every error only for a body small enough that
    // collecting them all (quadratic in ajv across $ref calls) stays cheap.
    const first = this.validator(schemaPointer, false);
    if (first instanceof Error) {
      // A live schema that does not compile: the documented one, where the contract shows the body.
      const fallback = documentedBody(
        res,
        `the live schema does not compile: ${first.message.slice(0, 200)}`,
      );
      return fallback ? judged(fallback.findings) : { findings: [], judged: false };
    }
    if (first(res.json)) return judged([]);
    const all = res.body.length <= ALL_ERRORS_MAX_BYTES ? this.validator(schemaPointer) : undefined;
    const errors = all && !(all instanceof Error) && !all(res.json) ? all.errors : first.errors;
    return judged(
      schemaErrorFindings(
        res,
        oneErrorPerCause(errors ?? []),
        !all,
        (e) =>
          `${where} ${res.status}: body ${e.instancePath || '/'} ${e.message ?? e.keyword} (schema ${e.schemaPath})`,
      ),
    );
  }

  /**
   * A header's value as its schema reads it: a header is text on the wire, serialised as OpenAPI's
   * `simple` style (a header's only one), so a number, integer or boolean is read from its text and an
   * array is the comma-separated list of its items; anything else stays the text. Without this a
   * `type: boolean` header sent as `true` would fail its own schema.
   */
  private headerValue(value: string, schema0: unknown): unknown {
    const schema = this.deref<{ items?: unknown }>(schema0);
    const v = value.trim();
    switch (this.headerType(schema0)) {
      case 'integer':
      case 'number':
        return v === '' ? v : Number(v);
      case 'boolean':
        return v === 'true' ? true : v === 'false' ? false : v;
      case 'array':
        return v === '' ? [] : v.split(',').map((item) => this.headerValue(item, schema?.items));
      default:
        return v;
    }
  }

  /**
   * The type a header's schema gives its value: `type` as a string, or the one type besides `null` of a
   * type list (`[integer, "null"]`), or of the branches of an `allOf`, `anyOf` or `oneOf` (how generators
   * write an optional integer); undefined where none, or several, are given (the value stays a string).
   */
  private headerType(schema0: unknown, depth = 0): string | undefined {
    const schema = this.deref<Record<string, unknown>>(schema0);
    if (!schema || depth > 8) return undefined;
    const types = new Set<string>();
    const add = (t: unknown) => {
      if (typeof t === 'string' && t !== 'null') types.add(t);
    };
    if (Array.isArray(schema.type)) for (const t of schema.type) add(t);
    else add(schema.type);
    for (const key of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(schema[key]))
        for (const branch of schema[key]) add(this.headerType(branch, depth + 1));
    return types.size === 1 ? [...types][0] : undefined;
  }

  private checkHeaders(
    res: HttpResponse,
    d: Extract<Declared, { kind: 'declared' }>,
    where: string,
  ): ResponseFinding[] {
    const out: ResponseFinding[] = [];
    for (const { name, node: h, schemaPointer } of d.headers) {
      // "If a response header is defined with the name "Content-Type", it SHALL be ignored." (OpenAPI 3.1)
      if (name.toLowerCase() === 'content-type') continue;
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) {
        if (h.required === true) {
          out.push({
            id: 'RESP-004',
            message: `${where} ${res.status}: required header ${name} is missing`,
            pointer: `${d.resPointer}/headers/${escapeToken(name)}`,
          });
        }
        continue;
      }
      if (h.schema && schemaPointer) {
        const v = this.validator(schemaPointer);
        if (v instanceof Error) continue;
        if (!v(this.headerValue(value, h.schema))) {
          out.push({
            id: 'RESP-004',
            message: `${where} ${res.status}: header ${name} does not match its schema (${v.errors?.[0]?.message ?? ''})`,
            received: value,
            pointer: `${d.resPointer}/headers/${escapeToken(name)}`,
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
