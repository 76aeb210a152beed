import { createHash } from 'node:crypto';
import {
  byText,
  isAnnotation,
  isMultiple,
  isObj,
  type Json,
  LOWER_BOUNDS,
  type Norm,
  NUMERIC_KEYWORDS,
  OpenApiDocument,
  type Operation,
  stableJson,
} from './document.ts';

/**
 * What changed in a target's OpenAPI 3.x description between two runs (previous -> current), and which
 * changes break clients. Only what `paths` reaches is compared: per operation its parameters (by name
 * and location), its request body per media type and its responses per status and media type, with the
 * schemas walked through properties, items, prefixItems, allOf (merged), anyOf/oneOf and
 * additionalProperties. Local `$ref`s are resolved, cycles included.
 *
 * Whether a change breaks clients depends on its direction. A request schema that admits less (a bound
 * tightened, an enum value removed, a field newly required) rejects requests that used to pass; a
 * response schema that admits more (a bound loosened, an enum value added, a field no longer required)
 * hands clients values they may not handle. Removing an endpoint, a 2xx response, a media type, a
 * parameter or a field breaks either way; additions do not (except a new required request field or
 * parameter).
 */
export interface DescriptionChange {
  kind: string;
  /** Readable location: `POST /v1/media/jobs request body: parameters.prompt`, `GET /v1/models 200 response: data[].id`. */
  path: string;
  detail: string;
  breaking: boolean;
}

export interface DescriptionDiff {
  changes: DescriptionChange[];
  /** How many of `changes` are breaking. */
  breaking: number;
}

/** At most this many changes are listed; a final `truncated` entry says the rest was not compared. */
export const MAX_DESCRIPTION_CHANGES = 2000;

type Side = 'request' | 'response';

/** Deeper schema nesting is not walked (a guard on top of the cycle check). */
const MAX_DEPTH = 64;

/** Keywords whose value is a schema or an array of schemas. */
const SCHEMA_KEYS = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
]);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYS = new Set(['properties', 'patternProperties', 'dependentSchemas']);

/** One description as the diff reads it: the shared document layer plus content digests, memoized. */
class Description extends OpenApiDocument {
  private readonly digests = new WeakMap<object, string>();

  /** Content digest of a schema: equal digests, equal schemas (annotations aside, `$ref`s resolved). */
  digest(node: unknown): string {
    return this.digestAt(this.schema(node), []).h;
  }

  private digestAt(node: Json, stack: Json[]): { h: string; low: number } {
    const memo = this.digests.get(node);
    if (memo !== undefined) return { h: memo, low: Number.POSITIVE_INFINITY };
    const at = stack.indexOf(node);
    if (at >= 0) return { h: `cycle:${stack.length - at}`, low: at };
    const own = stack.length;
    stack.push(node);
    let low = Number.POSITIVE_INFINITY;
    const child = (v: unknown): string => {
      const r = this.digestAt(this.schema(v), stack);
      low = Math.min(low, r.low);
      return r.h;
    };
    const parts: string[] = [];
    for (const key of Object.keys(node).sort(byText)) {
      if (isAnnotation(key)) continue;
      const v = node[key];
      let text: string;
      if (SCHEMA_KEYS.has(key) && Array.isArray(v)) text = `[${v.map(child).join(',')}]`;
      else if (SCHEMA_KEYS.has(key) && (isObj(v) || typeof v === 'boolean')) text = child(v);
      else if (SCHEMA_MAP_KEYS.has(key) && isObj(v)) {
        text = `{${Object.keys(v)
          .sort(byText)
          .map((k) => `${JSON.stringify(k)}:${child(v[k])}`)
          .join(',')}}`;
      } else text = stableJson(v);
      parts.push(`${JSON.stringify(key)}:${text}`);
    }
    stack.pop();
    const h = createHash('sha1').update(parts.join(',')).digest('base64');
    // Back references only into this node's own subtree: the digest does not depend on the context.
    if (low >= own) this.digests.set(node, h);
    return { h, low };
  }
}

const admits = (set: string[], t: string) => set.includes(t) || (t === 'integer' && set.includes('number'));

/** Does `a` admit every type `b` admits? (undefined: any type) */
function covers(a: string[] | undefined, b: string[] | undefined): boolean {
  if (a === undefined) return true;
  if (b === undefined) return false;
  return b.every((t) => admits(a, t));
}

const typeText = (t: string[] | undefined) =>
  t === undefined ? 'any' : t.length === 0 ? 'never' : t.join(' | ');

function valuesText(values: unknown[]): string {
  const shown = values.slice(0, 10).map((v) => stableJson(v));
  return values.length > 10 ? `${shown.join(', ')}, … (${values.length} values)` : shown.join(', ');
}

const child = (segs: string, name: string) => (segs ? `${segs}.${name}` : name);

interface Param {
  name: string;
  in: string;
  required: boolean;
  schema: unknown;
}

const STOP = Symbol('truncated');

class Differ {
  readonly changes: DescriptionChange[] = [];
  private readonly walking = new Set<string>();

  constructor(
    private readonly prev: Description,
    private readonly cur: Description,
  ) {}

  private add(kind: string, path: string, detail: string, breaking: boolean): void {
    if (this.changes.length >= MAX_DESCRIPTION_CHANGES) throw STOP;
    this.changes.push({ kind, path, detail, breaking });
  }

  /** A narrower set of accepted values: breaks requests, not responses. */
  private tightened(kind: string, path: string, detail: string, side: Side): void {
    this.add(kind, path, detail, side === 'request');
  }

  /** A wider set of accepted values: breaks responses (clients get what they never saw), not requests. */
  private loosened(kind: string, path: string, detail: string, side: Side): void {
    this.add(kind, path, detail, side === 'response');
  }

  run(): void {
    const before = endpoints(this.prev);
    const after = endpoints(this.cur);
    for (const key of [...new Set([...before.keys(), ...after.keys()])].sort(byText)) {
      const p = before.get(key);
      const c = after.get(key);
      if (p && !c) this.add('endpoint-removed', `${p.method} ${p.template}`, 'endpoint removed', true);
      else if (c && !p) this.add('endpoint-added', `${c.method} ${c.template}`, 'new endpoint', false);
      else if (p && c) this.operation(p, c);
    }
  }

  private operation(p: Operation, c: Operation): void {
    const label = `${c.method} ${c.template}`;
    this.parameters(label, params(this.prev, p), params(this.cur, c));
    this.requestBody(label, this.prev.deref(p.op.requestBody), this.cur.deref(c.op.requestBody));
    this.responses(label, p.op.responses, c.op.responses);
  }

  private parameters(label: string, before: Map<string, Param>, after: Map<string, Param>): void {
    for (const key of [...new Set([...before.keys(), ...after.keys()])].sort(byText)) {
      const p = before.get(key);
      const c = after.get(key);
      const at = `${label} ${(c ?? p)!.in} parameter ${(c ?? p)!.name}`;
      if (p && !c) this.add('parameter-removed', at, 'parameter removed', true);
      else if (c && !p) {
        this.add(
          'parameter-added',
          at,
          c.required ? 'new required parameter' : 'new optional parameter',
          c.required,
        );
      } else if (p && c) {
        if (!p.required && c.required)
          this.add('parameter-required-added', at, 'parameter is now required', true);
        if (p.required && !c.required) this.add('required-removed', at, 'parameter is now optional', false);
        this.schema(p.schema, c.schema, at, '', 'request', 0);
      }
    }
  }

  private requestBody(label: string, p: Json | undefined, c: Json | undefined): void {
    if (!p && !c) return;
    const at = `${label} request body`;
    const pReq = p?.required === true;
    const cReq = c?.required === true;
    if (!pReq && cReq) this.add('required-added', at, 'request body is now required', true);
    if (pReq && !cReq) this.add('required-removed', at, 'request body is now optional', false);
    this.content(at, p?.content, c?.content, 'request');
  }

  private responses(label: string, pRaw: unknown, cRaw: unknown): void {
    const before = isObj(pRaw) ? pRaw : {};
    const after = isObj(cRaw) ? cRaw : {};
    for (const status of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(byText)) {
      const at = `${label} ${status} response`;
      const p = Object.hasOwn(before, status) ? this.prev.deref(before[status]) : undefined;
      const c = Object.hasOwn(after, status) ? this.cur.deref(after[status]) : undefined;
      if (p && !c) this.add('response-removed', at, `status ${status} removed`, /^2/.test(status));
      else if (c && !p) this.add('response-added', at, `new status ${status}`, false);
      else if (p && c) this.content(at, p.content, c.content, 'response');
    }
  }

  private content(at: string, pRaw: unknown, cRaw: unknown, side: Side): void {
    const before = mediaTypes(pRaw);
    const after = mediaTypes(cRaw);
    const verb = side === 'request' ? 'accepted' : 'returned';
    for (const mt of [...new Set([...before.keys(), ...after.keys()])].sort(byText)) {
      const p = before.get(mt);
      const c = after.get(mt);
      const base = mt === 'application/json' ? at : `${at} (${mt})`;
      if (p && !c) this.add('content-type-removed', base, `${mt} no longer ${verb}`, true);
      else if (c && !p) this.add('content-type-added', base, `${mt} now ${verb}`, false);
      else if (p && c) this.schema(p.schema, c.schema, base, '', side, 0);
    }
  }

  /** Compares two schema nodes at `base: segs`. */
  private schema(
    pNode: unknown,
    cNode: unknown,
    base: string,
    segs: string,
    side: Side,
    depth: number,
  ): void {
    if (depth > MAX_DEPTH) return;
    const ps = this.prev.schema(pNode);
    const cs = this.cur.schema(cNode);
    if (this.prev.digest(ps) === this.cur.digest(cs)) return;
    const pair = `${this.prev.id(ps)}|${this.cur.id(cs)}`;
    if (this.walking.has(pair)) return; // a cycle: this pair is being compared further up
    this.walking.add(pair);
    try {
      this.compare(this.prev.normalize(ps), this.cur.normalize(cs), ps, cs, base, segs, side, depth);
    } finally {
      this.walking.delete(pair);
    }
  }

  private compare(
    p: Norm,
    c: Norm,
    ps: Json,
    cs: Json,
    base: string,
    segs: string,
    side: Side,
    depth: number,
  ): void {
    const at = segs ? `${base}: ${segs}` : base;
    if (p.opaque !== undefined || c.opaque !== undefined) {
      const text = (n: Norm, d: Description, s: Json) => n.opaque ?? `schema ${d.digest(s).slice(0, 8)}`;
      this.add(
        'type-changed',
        at,
        `unresolved reference: ${text(p, this.prev, ps)} -> ${text(c, this.cur, cs)}`,
        true,
      );
      return;
    }

    // Types (integer is a number).
    const wider = covers(c.types, p.types);
    const narrower = covers(p.types, c.types);
    if (!(wider && narrower)) {
      const detail = `${typeText(p.types)} -> ${typeText(c.types)}`;
      if (wider) this.loosened('type-changed', at, detail, side);
      else if (narrower) this.tightened('type-changed', at, detail, side);
      else this.add('type-changed', at, detail, true);
      const overlap =
        p.types === undefined ||
        c.types === undefined ||
        p.types.some((t) => admits(c.types!, t)) ||
        c.types.some((t) => admits(p.types!, t));
      if (!overlap) return; // nothing in common: what is below does not compare
    }

    this.enums(p, c, at, side);
    this.bounds(p, c, at, side);
    this.unions(p, c, base, segs, at, side, depth);
    this.properties(p, c, base, segs, side, depth);

    if (p.items !== undefined || c.items !== undefined) {
      this.schema(p.items, c.items, base, `${segs}[]`, side, depth + 1);
    }
    const tuple = Math.max(p.prefixItems.length, c.prefixItems.length);
    for (let i = 0; i < tuple; i++) {
      this.schema(p.prefixItems[i], c.prefixItems[i], base, `${segs}[${i}]`, side, depth + 1);
    }
    const pClosed = p.additionalProperties === false;
    const cClosed = c.additionalProperties === false;
    if (!pClosed && cClosed) {
      this.tightened('bound-tightened', at, 'additionalProperties: false added (no other fields)', side);
    } else if (pClosed && !cClosed) {
      this.loosened('bound-loosened', at, 'additionalProperties: false removed (other fields allowed)', side);
    } else if (!pClosed && (isObj(p.additionalProperties) || isObj(c.additionalProperties))) {
      this.schema(p.additionalProperties, c.additionalProperties, base, child(segs, '*'), side, depth + 1);
    }
  }

  private enums(p: Norm, c: Norm, at: string, side: Side): void {
    if (p.enum === undefined && c.enum === undefined) return;
    if (p.enum !== undefined && c.enum !== undefined) {
      const before = new Map(p.enum.map((v) => [stableJson(v), v] as const));
      const after = new Map(c.enum.map((v) => [stableJson(v), v] as const));
      for (const key of [...before.keys()].sort(byText)) {
        if (!after.has(key)) this.tightened('enum-value-removed', at, `${key} removed`, side);
      }
      for (const key of [...after.keys()].sort(byText)) {
        if (!before.has(key)) this.loosened('enum-value-added', at, `${key} added`, side);
      }
    } else if (p.enum !== undefined) {
      this.loosened('enum-value-added', at, `enum removed: any value now (was ${valuesText(p.enum)})`, side);
    } else if (c.enum !== undefined) {
      this.tightened('enum-value-removed', at, `enum added: only ${valuesText(c.enum)}`, side);
    }
  }

  private bounds(p: Norm, c: Norm, at: string, side: Side): void {
    for (const k of NUMERIC_KEYWORDS) {
      const x = p.bounds.get(k);
      const y = c.bounds.get(k);
      if (x === y) continue;
      if (x === undefined) this.tightened('bound-tightened', at, `${k} ${y} added`, side);
      else if (y === undefined) this.loosened('bound-loosened', at, `${k} ${x} removed`, side);
      else {
        const detail = `${k} ${x} -> ${y}`;
        if (k === 'multipleOf') {
          if (isMultiple(y, x)) this.tightened('bound-tightened', at, detail, side);
          else if (isMultiple(x, y)) this.loosened('bound-loosened', at, detail, side);
          else this.add('bound-tightened', at, `${detail} (neither divides the other)`, true);
        } else if (LOWER_BOUNDS.includes(k) === y > x) this.tightened('bound-tightened', at, detail, side);
        else this.loosened('bound-loosened', at, detail, side);
      }
    }
    const before = p.patterns.map((s) => JSON.stringify(s)).join(' and ');
    const after = c.patterns.map((s) => JSON.stringify(s)).join(' and ');
    if (before === after) return;
    if (!before) this.tightened('bound-tightened', at, `pattern ${after} added`, side);
    else if (!after) this.loosened('bound-loosened', at, `pattern ${before} removed`, side);
    // Which of two regular expressions admits more is not decidable here: breaking either way.
    else this.add('bound-tightened', at, `pattern ${before} -> ${after}`, true);
  }

  private unions(p: Norm, c: Norm, base: string, segs: string, at: string, side: Side, depth: number): void {
    const pb = p.union?.branches ?? [];
    const cb = c.union?.branches ?? [];
    if (pb.length === 0 && cb.length === 0) return;
    if (pb.length === cb.length) {
      const keyword = c.union!.keyword;
      for (let i = 0; i < cb.length; i++) {
        this.schema(pb[i], cb[i], base, child(segs, `${keyword}[${i}]`), side, depth + 1);
      }
      return;
    }
    const text = (u: Norm['union']) => (u ? `${u.keyword} of ${u.branches.length}` : 'no anyOf/oneOf');
    const detail = `${text(p.union)} -> ${text(c.union)}`;
    if (pb.length === 0) {
      this.tightened('type-changed', at, detail, side);
      return;
    }
    if (cb.length === 0) {
      this.loosened('type-changed', at, detail, side);
      return;
    }
    const pd = pb.map((b) => this.prev.digest(b));
    const cd = cb.map((b) => this.cur.digest(b));
    const lost = pd.filter((d) => !cd.includes(d)).length;
    const gained = cd.filter((d) => !pd.includes(d)).length;
    // A request no longer admits what a lost branch admitted; a response may carry a new branch.
    const breaking = side === 'request' ? lost > 0 : gained > 0;
    this.add(
      'type-changed',
      at,
      `${detail} (${lost} branches without an equal now, ${gained} new)`,
      breaking,
    );
  }

  private properties(p: Norm, c: Norm, base: string, segs: string, side: Side, depth: number): void {
    const names = [...new Set([...p.properties.keys(), ...c.properties.keys()])].sort(byText);
    for (const name of names) {
      const at = `${base}: ${child(segs, name)}`;
      const x = p.properties.get(name);
      const y = c.properties.get(name);
      if (y === undefined) {
        this.add(
          'field-removed',
          at,
          `field removed (was ${p.required.has(name) ? 'required' : 'optional'})`,
          true,
        );
      } else if (x === undefined) {
        const required = c.required.has(name);
        this.add(
          'field-added',
          at,
          `new ${required ? 'required' : 'optional'} field`,
          side === 'request' && required,
        );
      } else this.schema(x, y, base, child(segs, name), side, depth + 1);
    }
    // `required` of fields that are neither added nor removed (those are told above).
    for (const name of [...new Set([...p.required, ...c.required])].sort(byText)) {
      const at = `${base}: ${child(segs, name)}`;
      const was = p.required.has(name);
      const is = c.required.has(name);
      if (was && !is && !(p.properties.has(name) && !c.properties.has(name))) {
        this.loosened('required-removed', at, 'field is no longer required', side);
      } else if (is && !was && !(c.properties.has(name) && !p.properties.has(name))) {
        this.tightened('required-added', at, 'field is now required', side);
      }
    }
  }
}

/** Operations keyed by method and path template, parameter names aside (`/jobs/{id}` = `/jobs/{job_id}`). */
function endpoints(doc: Description): Map<string, Operation> {
  const out = new Map<string, Operation>();
  // Sorted by template (stable: the methods of one path stay in their order).
  for (const o of [...doc.operations()].sort((a, b) => byText(a.template, b.template))) {
    const shape = `${o.method} ${o.template.replace(/\{[^}]*\}/g, '{}')}`;
    out.set(out.has(shape) ? `${o.method} ${o.template}` : shape, o);
  }
  return out;
}

/**
 * Parameters of an operation, path-level ones included (the operation's win), keyed by location and
 * name; header names ignore case, path parameters are keyed by their position in the template.
 */
function params(doc: Description, e: Operation): Map<string, Param> {
  const template = [...e.template.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  const out = new Map<string, Param>();
  const lists = [e.item.parameters, e.op.parameters];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = doc.deref(raw);
      if (!p || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      const position = p.in === 'path' ? template.indexOf(p.name) : -1;
      const key =
        position >= 0 ? `path:#${position}` : `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
      let schema = p.schema;
      if (schema === undefined && isObj(p.content)) {
        const first = Object.keys(p.content).sort(byText)[0];
        const media = first === undefined ? undefined : p.content[first];
        schema = isObj(media) ? media.schema : undefined;
      }
      out.set(key, { name: p.name, in: p.in, required: p.required === true, schema });
    }
  }
  return out;
}

/** Media types of a `content` object, lower-cased, parameters kept. */
function mediaTypes(content: unknown): Map<string, { schema: unknown }> {
  const out = new Map<string, { schema: unknown }>();
  if (!isObj(content)) return out;
  for (const [mt, media] of Object.entries(content)) {
    out.set(mt.trim().toLowerCase(), { schema: isObj(media) ? media.schema : undefined });
  }
  return out;
}

/** The changes from `previous` to `current`, sorted by path then kind; breaking counts the breaking ones. */
export function diffDescriptions(previous: unknown, current: unknown): DescriptionDiff {
  const differ = new Differ(new Description(previous), new Description(current));
  let truncated = false;
  try {
    differ.run();
  } catch (e) {
    if (e !== STOP) throw e;
    truncated = true;
  }
  const changes = differ.changes.sort(
    (a, b) => byText(a.path, b.path) || byText(a.kind, b.kind) || byText(a.detail, b.detail),
  );
  const breaking = changes.filter((c) => c.breaking).length;
  if (truncated) {
    changes.push({
      kind: 'truncated',
      path: '(rest of the description)',
      detail: `stopped after ${MAX_DESCRIPTION_CHANGES} changes; the rest of the description was not compared`,
      breaking: false,
    });
  }
  return { changes, breaking };
}

/** One line per change, breaking ones first: `BREAKING field-removed: GET /v1/balance 200 response: held_points — …`. */
export function formatChanges(changes: readonly DescriptionChange[]): string[] {
  const line = (c: DescriptionChange) =>
    `${c.breaking ? 'BREAKING' : 'non-breaking'} ${c.kind}: ${c.path}${c.detail ? ` — ${c.detail}` : ''}`;
  return [...changes.filter((c) => c.breaking), ...changes.filter((c) => !c.breaking)].map(line);
}
