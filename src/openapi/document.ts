/**
 * One reading of an OpenAPI document, shared by live validation (`live.ts`), drift (`drift.ts`) and the
 * diff between two runs (`diff.ts`): JSON Pointers and local `$ref`s, the operations under `paths`, and a
 * schema reduced to what a comparison reads with its `allOf` branches merged (`Norm`).
 */

export type Json = Record<string, unknown>;

/** The operations a path item may hold, in the order OpenAPI lists them. */
/** A path item's operations by their fixed field (OpenAPI 3.2 added `query`). */
export const HTTP_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
  'query',
] as const;

/** Bounds on a value, each lower bound beside its upper one. */
const BOUND_PAIRS = [
  ['minimum', 'maximum'],
  ['exclusiveMinimum', 'exclusiveMaximum'],
  ['minLength', 'maxLength'],
  ['minItems', 'maxItems'],
] as const;
export const LOWER_BOUNDS: readonly string[] = BOUND_PAIRS.map((p) => p[0]);
export const UPPER_BOUNDS: readonly string[] = BOUND_PAIRS.map((p) => p[1]);
/** The numeric bounds of a schema (`multipleOf` aside: it is neither lower nor upper). */
export const BOUNDS: readonly string[] = BOUND_PAIRS.flat();
/** Every numeric keyword that narrows the values a schema admits. */
export const NUMERIC_KEYWORDS = [...BOUNDS, 'multipleOf'];

/** Keywords that say nothing about which values a schema admits. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  '$comment',
  'example',
  'examples',
  'deprecated',
  'externalDocs',
  'xml',
  '$defs',
  'definitions',
  '$id',
  '$schema',
  '$anchor',
]);
export const isAnnotation = (key: string) => ANNOTATIONS.has(key) || key.startsWith('x-');

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON Pointer token for a key (`~` and `/` escaped). */
export const escapeToken = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The value at a JSON Pointer (`/a/0/b`, `''` for the root), own properties only; undefined where it
 * does not lead anywhere. `decode` applies to each token before its `~` escapes are undone.
 */
export function valueAt(root: unknown, pointer: string, decode: (t: string) => string = (t) => t): unknown {
  if (!pointer) return root;
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = decode(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObj(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** The node a local reference (`#`, `#/components/schemas/X`, percent-encoded as a URI fragment) points at. */
export function resolveRef(root: unknown, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  try {
    return valueAt(root, ref.slice(1), decodeURIComponent);
  } catch {
    return undefined; // a malformed percent escape
  }
}

const regexCache = new Map<string, RegExp>();
/** The paths a template (`/v1/jobs/{id}`) matches: each parameter one segment, a trailing slash allowed. */
export function templateRegex(template: string): RegExp {
  let r = regexCache.get(template);
  if (!r) {
    const src = template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    r = new RegExp(`^${src}/?$`);
    regexCache.set(template, r);
  }
  return r;
}

/** The side of an exchange a body is on. */
export type BodySide = 'request' | 'response';

/** A body schema of an operation, with the pointer of the request body or response that declares it. */
export interface BodySchema {
  schema: unknown;
  at: string;
}

/**
 * The schema of the first `application/json` media type of a `content` map (parameters allowed:
 * `application/json; charset=utf-8`), as written ($ref unresolved); undefined where there is no such
 * media type or it declares no schema.
 */
function jsonSchemaOf(content: unknown): unknown {
  if (!isObj(content)) return undefined;
  const media = Object.entries(content).find(([mt]) => mt.startsWith('application/json'))?.[1];
  return isObj(media) ? media.schema : undefined;
}

/** An operation of the document: where it is (`pointer`), its path item and its object. */
export interface Operation {
  /** Upper case: `GET`. */
  method: string;
  /** The path key as written. */
  template: string;
  /**
   * The path key after the path of each server URL in effect (`servers` of the operation, else of its
   * path item, else of the document): "The path is appended to the URL from the Server Object", so a
   * server `https://api.example.com/v1` with the key `/models` describes `/v1/models`. Only those that
   * differ from `template`; a request path matching either is this operation's.
   */
  served: string[];
  pointer: string;
  item: Json;
  op: Json;
}

/**
 * A path key as each server URL in effect serves it (its path before the key: `https://api.example.com/v1`
 * or `/v1`, variables at their defaults), those that differ from the key itself.
 */
export function servedTemplates(template: string, servers: unknown): string[] {
  if (!Array.isArray(servers)) return [];
  const out = new Set<string>();
  for (const server of servers) {
    if (!isObj(server) || typeof server.url !== 'string') continue;
    const vars = isObj(server.variables) ? server.variables : {};
    const url = server.url.replace(/\{([^}]*)\}/g, (_, name: string) => {
      const v = vars[name];
      return isObj(v) && typeof v.default === 'string' ? v.default : '';
    });
    let prefix: string;
    try {
      prefix = new URL(url, 'http://server.invalid').pathname.replace(/\/+$/, '');
    } catch {
      continue;
    }
    if (prefix !== '') out.add(`${prefix}${template.startsWith('/') ? '' : '/'}${template}`);
  }
  out.delete(template);
  return [...out];
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** JSON with object keys sorted: equal values, equal text. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isObj(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

/** Code-unit order: the same in every locale. */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function intersect(a: unknown[] | undefined, b: unknown[]): unknown[] {
  if (a === undefined) return [...b];
  const keys = new Set(b.map(stableJson));
  return a.filter((v) => keys.has(stableJson(v)));
}

export function isMultiple(x: number, of: number): boolean {
  if (of === 0) return false;
  const q = x / of;
  return Math.abs(q - Math.round(q)) < 1e-9;
}

/** A schema reduced to what a comparison reads, allOf branches merged in. */
export interface Norm {
  /** undefined: any type; []: no value at all. */
  types?: string[];
  /** Admitted values (enum, const); undefined: not restricted. */
  enum?: unknown[];
  /** The admitted values are a `const` (of this schema or of an allOf branch): at most one. */
  constant: boolean;
  bounds: Map<string, number>;
  patterns: string[];
  properties: Map<string, unknown>;
  required: Set<string>;
  items?: unknown;
  prefixItems: unknown[];
  additionalProperties?: unknown;
  union?: { keyword: 'anyOf' | 'oneOf'; branches: unknown[] };
  /** A `$ref` that does not resolve in the document. */
  opaque?: string;
}

const emptyNorm = (): Norm => ({
  constant: false,
  bounds: new Map(),
  patterns: [],
  properties: new Map(),
  required: new Set(),
  prefixItems: [],
});

const TRUE_SCHEMA: Json = Object.freeze({}) as Json;
const FALSE_SCHEMA: Json = Object.freeze({ type: [] }) as Json;

/** One OpenAPI document: `$ref` resolution, its operations and schema normalization, memoized. */
export class OpenApiDocument {
  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;
  private readonly norms = new WeakMap<object, Norm>();
  private readonly normalizing = new Set<object>();
  private readonly splits = new WeakMap<object, Json>();
  private readonly wrappers = new Map<string, Json>();
  private readonly members = new WeakMap<object, Json[]>();
  private ops?: Operation[];

  constructor(readonly root: unknown) {}

  /**
   * Follows the `$ref` chain of a non-schema object (path item, parameter, request body, response,
   * header) to the object it ends at, with that object's pointer when the chain started at `pointer`;
   * undefined where a reference does not resolve, the chain loops or it ends at no object.
   */
  locate(node: unknown, pointer = ''): { node: Json; pointer: string } | undefined {
    const seen = new Set<string>();
    let cur = node;
    let at = pointer;
    while (isObj(cur) && typeof cur.$ref === 'string') {
      if (seen.has(cur.$ref)) return undefined;
      seen.add(cur.$ref);
      at = cur.$ref.slice(1);
      cur = resolveRef(this.root, cur.$ref);
    }
    return isObj(cur) ? { node: cur, pointer: at } : undefined;
  }

  /** `locate` without the pointer. */
  deref(node: unknown): Json | undefined {
    if (isObj(node) && typeof node.$ref !== 'string') return node; // the common case, on every response
    return this.locate(node)?.node;
  }

  /** The operations under `paths` in document order (path items behind a `$ref` followed). */
  operations(): Operation[] {
    if (this.ops) return this.ops;
    this.ops = [];
    const paths = isObj(this.root) && isObj(this.root.paths) ? this.root.paths : {};
    const rootServers = isObj(this.root) ? this.root.servers : undefined;
    for (const template of Object.keys(paths)) {
      const found = this.locate(paths[template], `/paths/${escapeToken(template)}`);
      if (!found) continue;
      const served = (op: Json) => servedTemplates(template, op.servers ?? found.node.servers ?? rootServers);
      for (const m of HTTP_METHODS) {
        const op = found.node[m];
        if (isObj(op))
          this.ops.push({
            method: m.toUpperCase(),
            template,
            served: served(op),
            pointer: `${found.pointer}/${m}`,
            item: found.node,
            op,
          });
      }
      // OpenAPI 3.2: methods beyond the fixed fields, under their own names (`LINK`, `PURGE`).
      const more = found.node.additionalOperations;
      if (isObj(more))
        for (const [m, op] of Object.entries(more))
          if (isObj(op))
            this.ops.push({
              method: m.toUpperCase(),
              template,
              served: served(op),
              pointer: `${found.pointer}/additionalOperations/${escapeToken(m)}`,
              item: found.node,
              op,
            });
    }
    return this.ops;
  }

  /** The operation of a path template (`/v1/jobs/{id}`), parameter names aside: `/v1/jobs/{job}` is it. */
  operationFor(method: string, template: string): Operation | undefined {
    const shape = (t: string) => t.replace(/\{[^}]+\}/g, '{}');
    const m = method.toUpperCase();
    const want = shape(template);
    return this.operations().find(
      (o) => o.method === m && (shape(o.template) === want || o.served.some((t) => shape(t) === want)),
    );
  }

  /**
   * The JSON body schema an operation declares: on the request side its request body's; on the response
   * side that of the first 2xx response (`200`, `201`, `2XX`, in the order of the `responses` object;
   * `default` is none) declaring one. Request bodies and responses behind a `$ref` are followed; the
   * pointer is where the operation holds them.
   */
  jsonBody(op: Operation, side: BodySide): BodySchema | undefined {
    if (side === 'request') {
      const schema = jsonSchemaOf(this.deref(op.op.requestBody)?.content);
      return schema ? { schema, at: `${op.pointer}/requestBody` } : undefined;
    }
    for (const r of this.responses(op)) {
      if (!/^2/.test(r.status)) continue;
      const schema = jsonSchemaOf(r.content);
      if (schema) return { schema, at: r.at };
    }
    return undefined;
  }

  /**
   * The responses of an operation in the order of its `responses` object (codes in numeric order, then
   * ranges and `default` as written), each behind its `$ref` followed, with its `content` map (empty
   * where none is declared) and the pointer where the operation holds it.
   */
  responses(op: Operation): Array<{ status: string; content: Json; at: string }> {
    return Object.entries(this.deref(op.op.responses) ?? {}).map(([status, r]) => {
      const content = this.deref(r)?.content;
      return {
        status,
        content: isObj(content) ? content : {},
        at: `${op.pointer}/responses/${escapeToken(status)}`,
      };
    });
  }

  /**
   * A schema node with its `$ref` resolved, as an object whose identity is stable: booleans become
   * shared constants, a `$ref` with sibling keywords becomes a cached allOf of the target and the
   * siblings, and a `$ref` that does not resolve stays as it is (opaque).
   */
  schema(node: unknown, seen: Set<string> = new Set()): Json {
    if (node === false) return FALSE_SCHEMA;
    if (!isObj(node)) return TRUE_SCHEMA;
    if (typeof node.$ref !== 'string') return node;
    const ref = node.$ref;
    const target = seen.has(ref) ? undefined : resolveRef(this.root, ref);
    if (target === undefined) return node; // unresolvable, or a chain of `$ref`s that loops: opaque
    const siblings = Object.keys(node).filter((k) => k !== '$ref' && !isAnnotation(k));
    if (siblings.length > 0) {
      let split = this.splits.get(node);
      if (!split) {
        const rest: Json = {};
        for (const k of siblings) rest[k] = node[k];
        split = { allOf: [{ $ref: ref }, rest] };
        this.splits.set(node, split);
      }
      return split;
    }
    seen.add(ref);
    return this.schema(target, seen);
  }

  id(node: object): number {
    let id = this.ids.get(node);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(node, id);
    }
    return id;
  }

  /** allOf of two schemas, flattened and deduplicated; the same members give the same object. */
  private wrap(a: unknown, b: unknown): Json {
    const list: Json[] = [];
    for (const n of [this.schema(a), this.schema(b)]) {
      for (const m of this.members.get(n) ?? [n]) if (!list.includes(m)) list.push(m);
    }
    if (list.length === 1) return list[0]!;
    list.sort((x, y) => this.id(x) - this.id(y));
    const key = list.map((m) => this.id(m)).join(',');
    let w = this.wrappers.get(key);
    if (!w) {
      w = { allOf: list };
      this.wrappers.set(key, w);
      this.members.set(w, list);
    }
    return w;
  }

  /** What a (resolved) schema admits, its allOf branches merged in; an allOf cycle is cut. */
  normalize(node: Json): Norm {
    const memo = this.norms.get(node);
    if (memo) return memo;
    if (this.normalizing.has(node)) return emptyNorm(); // allOf cycle: cut here
    this.normalizing.add(node);
    let n = this.own(node);
    if (Array.isArray(node.allOf)) {
      for (const branch of node.allOf) n = this.merge(n, this.normalize(this.schema(branch)));
    }
    if (n.types === undefined && n.enum !== undefined) n.types = [...new Set(n.enum.map(jsonType))].sort();
    this.normalizing.delete(node);
    this.norms.set(node, n);
    return n;
  }

  private own(s: Json): Norm {
    const n = emptyNorm();
    if (typeof s.$ref === 'string') {
      n.opaque = s.$ref;
      return n;
    }
    if (typeof s.type === 'string') n.types = [s.type];
    else if (Array.isArray(s.type))
      n.types = [...new Set(s.type.filter((t) => typeof t === 'string'))].sort();
    if (s.nullable === true && n.types && !n.types.includes('null')) n.types = [...n.types, 'null'].sort();
    if (Array.isArray(s.enum)) n.enum = [...s.enum];
    if (Object.hasOwn(s, 'const')) {
      n.constant = n.enum === undefined;
      n.enum = intersect(n.enum, [s.const]);
    }
    for (const k of NUMERIC_KEYWORDS) if (typeof s[k] === 'number') n.bounds.set(k, s[k]);
    // OpenAPI 3.0: exclusiveMinimum/Maximum are booleans that qualify minimum/maximum.
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      const v = n.bounds.get(bound);
      if (s[flag] === true && v !== undefined) {
        n.bounds.delete(bound);
        n.bounds.set(flag, v);
      }
    }
    if (typeof s.pattern === 'string') n.patterns = [s.pattern];
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) n.properties.set(k, v);
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') n.required.add(r);
    if (Array.isArray(s.items)) n.prefixItems = [...s.items];
    else if (s.items !== undefined) n.items = s.items;
    if (Array.isArray(s.prefixItems)) n.prefixItems = [...s.prefixItems];
    if (s.additionalProperties !== undefined) n.additionalProperties = s.additionalProperties;
    if (Array.isArray(s.oneOf)) n.union = { keyword: 'oneOf', branches: [...s.oneOf] };
    else if (Array.isArray(s.anyOf)) n.union = { keyword: 'anyOf', branches: [...s.anyOf] };
    return n;
  }

  private merge(a: Norm, b: Norm): Norm {
    const n = emptyNorm();
    n.opaque = a.opaque ?? b.opaque;
    if (a.types === undefined || b.types === undefined) n.types = a.types ?? b.types;
    else {
      const both = (t: string, other: string[]) =>
        other.includes(t) || (t === 'integer' && other.includes('number'));
      n.types = [...new Set([...a.types, ...b.types])]
        .filter((t) => both(t, a.types!) && both(t, b.types!))
        .sort();
    }
    n.enum = a.enum === undefined ? b.enum : b.enum === undefined ? a.enum : intersect(a.enum, b.enum);
    n.constant =
      a.enum === undefined ? b.constant : b.enum === undefined ? a.constant : a.constant || b.constant;
    for (const k of NUMERIC_KEYWORDS) {
      const x = a.bounds.get(k);
      const y = b.bounds.get(k);
      if (x === undefined || y === undefined) {
        const v = x ?? y;
        if (v !== undefined) n.bounds.set(k, v);
      } else if (LOWER_BOUNDS.includes(k)) n.bounds.set(k, Math.max(x, y));
      else if (UPPER_BOUNDS.includes(k)) n.bounds.set(k, Math.min(x, y));
      else n.bounds.set(k, isMultiple(y, x) ? y : x);
    }
    n.patterns = [...new Set([...a.patterns, ...b.patterns])].sort(byText);
    for (const [k, v] of a.properties) n.properties.set(k, v);
    for (const [k, v] of b.properties) {
      const prev = n.properties.get(k);
      n.properties.set(k, prev === undefined ? v : this.wrap(prev, v));
    }
    n.required = new Set([...a.required, ...b.required]);
    n.items = a.items === undefined ? b.items : b.items === undefined ? a.items : this.wrap(a.items, b.items);
    const len = Math.max(a.prefixItems.length, b.prefixItems.length);
    for (let i = 0; i < len; i++) {
      const x = a.prefixItems[i];
      const y = b.prefixItems[i];
      n.prefixItems.push(x === undefined ? y : y === undefined ? x : this.wrap(x, y));
    }
    const xa = a.additionalProperties;
    const ya = b.additionalProperties;
    if (xa === false || ya === false) n.additionalProperties = false;
    else if (isObj(xa) && isObj(ya)) n.additionalProperties = this.wrap(xa, ya);
    else n.additionalProperties = isObj(xa) ? xa : isObj(ya) ? ya : (xa ?? ya);
    n.union = a.union ?? b.union;
    return n;
  }
}
