import { BOUNDS, isObj, type OpenApiDocument } from './document.ts';
import type { Documented, Schema } from './documented.ts';
import type { LiveDescription } from './live.ts';

export interface DriftFinding {
  id: 'OAS-003' | 'OAS-004';
  path: string;
  message: string;
  documented?: unknown;
  live?: unknown;
}

function typesOf(s: Schema): Set<string> | undefined {
  if (s.const !== undefined)
    return new Set([s.const === null ? 'null' : Number.isInteger(s.const) ? 'integer' : typeof s.const]);
  if (typeof s.type === 'string') return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type as string[]);
  return undefined;
}

/** Does the live type set admit every documented type? (integer is a number) */
function typesContradict(doc: Set<string>, live: Set<string>): boolean {
  const admits = (t: string) => live.has(t) || (t === 'integer' && live.has('number'));
  return ![...doc].some(admits);
}

/**
 * Where the live description contradicts the contract's documented schema. Only what the contract
 * states is compared, and only where the live description says something too: saying less is not a
 * contradiction. `side` matters for `required`: a request that the live description makes stricter than
 * the contract contradicts it; a response that promises more does not.
 */
export class DriftComparer {
  constructor(
    private readonly docs: Documented,
    private readonly live: LiveDescription,
  ) {}

  compare(docName: string, liveSchema: unknown, side: 'request' | 'response'): DriftFinding[] {
    const root = this.docs.file(docName);
    return this.cmp(root, root.$id as string, liveSchema, '', side, 0);
  }

  private cmp(
    doc0: Schema,
    base0: string,
    live0: unknown,
    path: string,
    side: 'request' | 'response',
    depth: number,
  ): DriftFinding[] {
    if (depth > 12) return [];
    const { schema: doc, base } = this.docs.deref(doc0, base0);
    if (!isObj(live0)) return [];
    const live = this.live.document.schema(live0);
    if (typeof live.$ref === 'string') return []; // a reference that does not resolve
    // Several readings in the contract: not compared (any reading may hold).
    if (Array.isArray(doc.anyOf) || Array.isArray(doc.oneOf)) return [];
    const alternatives = (live.oneOf ?? live.anyOf) as unknown[] | undefined;
    if (Array.isArray(alternatives) && !live.properties && !live.type) {
      // A union in the live description: it contradicts only if no branch agrees.
      const results = alternatives.map((b) => this.cmp(doc, base, b, path, side, depth + 1));
      const clean = results.find((r) => !r.some((f) => f.id === 'OAS-003'));
      return clean ?? results.sort((a, b) => a.length - b.length)[0] ?? [];
    }
    const merged = Array.isArray(live.allOf) ? mergedAllOf(this.live.document, live) : live;
    if (!merged) return [];
    const out: DriftFinding[] = [];
    const at = path || '/';
    const dt = typesOf(doc);
    const lt = typesOf(merged);
    if (dt && lt && typesContradict(dt, lt)) {
      out.push({
        id: 'OAS-003',
        path: at,
        message: `type ${[...lt].join('|')} contradicts the documented ${[...dt].join('|')}`,
        documented: [...dt],
        live: [...lt],
      });
      return out;
    }
    if (doc.const !== undefined) {
      if (merged.const !== undefined && merged.const !== doc.const) {
        out.push({
          id: 'OAS-003',
          path: at,
          message: 'constant differs',
          documented: doc.const,
          live: merged.const,
        });
      } else if (Array.isArray(merged.enum) && !(merged.enum as unknown[]).includes(doc.const)) {
        out.push({
          id: 'OAS-003',
          path: at,
          message: 'enum lacks the documented constant',
          documented: doc.const,
          live: merged.enum,
        });
      } else if (Array.isArray(merged.enum) && merged.enum.length > 1) {
        out.push({
          id: 'OAS-003',
          path: at,
          message: 'enum allows more than the documented constant',
          documented: doc.const,
          live: merged.enum,
        });
      }
    }
    if (Array.isArray(doc.enum) && Array.isArray(merged.enum)) {
      const d = doc.enum as unknown[];
      const l = merged.enum as unknown[];
      const missing = d.filter((v) => !l.includes(v));
      const extra = l.filter((v) => !d.includes(v));
      // A response that promises fewer of the documented values contradicts nothing (a chat reply's
      // message role `assistant` only): advisory. A request that accepts fewer refuses valid values.
      if (missing.length)
        out.push({
          id: side === 'response' ? 'OAS-004' : 'OAS-003',
          path: at,
          message: `enum lacks documented values ${JSON.stringify(missing)}`,
          documented: d,
          live: l,
        });
      if (extra.length)
        out.push({
          id: 'OAS-003',
          path: at,
          message: `enum adds undocumented values ${JSON.stringify(extra)}`,
          documented: d,
          live: l,
        });
    } else if (
      Array.isArray(doc.enum) &&
      merged.const !== undefined &&
      !(doc.enum as unknown[]).includes(merged.const)
    ) {
      out.push({
        id: 'OAS-003',
        path: at,
        message: 'constant is not a documented value',
        documented: doc.enum,
        live: merged.const,
      });
    }
    for (const kw of BOUNDS) {
      if (doc[kw] !== undefined && merged[kw] !== undefined && doc[kw] !== merged[kw]) {
        // Likewise a response bound inside the documented range (prompt_tokens >= 1) is advisory.
        const lower = kw.startsWith('min') || kw === 'exclusiveMinimum';
        const inside =
          typeof doc[kw] === 'number' &&
          typeof merged[kw] === 'number' &&
          (lower ? merged[kw] > doc[kw] : merged[kw] < doc[kw]);
        out.push({
          id: side === 'response' && inside ? 'OAS-004' : 'OAS-003',
          path: at,
          message: `${kw} ${String(merged[kw])} contradicts the documented ${String(doc[kw])}`,
          documented: doc[kw],
          live: merged[kw],
        });
      }
    }
    const dprops = (doc.properties ?? {}) as Record<string, Schema>;
    const lprops = merged.properties as Record<string, unknown> | undefined;
    const dreq = new Set((doc.required ?? []) as string[]);
    const lreq = new Set((merged.required ?? []) as string[]);
    if (lprops && typeof lprops === 'object') {
      for (const [name, sub] of Object.entries(dprops)) {
        const p = `${path}/${name}`;
        if (!(name in lprops)) {
          const closed = merged.additionalProperties === false;
          out.push({
            id: closed && dreq.has(name) ? 'OAS-003' : 'OAS-004',
            path: p,
            message: `documented ${dreq.has(name) ? 'required' : 'optional'} field is not described${closed ? ' and the live schema is closed' : ''}`,
          });
          continue;
        }
        out.push(...this.cmp(sub, base, lprops[name], p, side, depth + 1));
      }
    }
    for (const name of Object.keys(dprops)) {
      if (side === 'request' && !dreq.has(name) && lreq.has(name)) {
        out.push({
          id: 'OAS-003',
          path: `${path}/${name}`,
          message: 'required by the live description, optional in the contract',
        });
      }
      if (dreq.has(name) && !lreq.has(name) && lprops && name in lprops) {
        out.push({
          id: 'OAS-004',
          path: `${path}/${name}`,
          message: 'required in the contract, optional in the live description',
        });
      }
    }
    if (
      side === 'request' &&
      doc.additionalProperties === false &&
      merged.additionalProperties !== false &&
      lprops
    ) {
      out.push({
        id: 'OAS-004',
        path: at,
        message: 'the contract rejects unknown fields here; the live description does not close the object',
      });
    }
    if (doc.items && typeof doc.items === 'object' && merged.items) {
      out.push(...this.cmp(doc.items as Schema, base, merged.items, `${path}/[]`, side, depth + 1));
    }
    return out;
  }
}

/**
 * A live schema with its allOf branches merged by the document layer, as the keywords the comparison
 * reads; undefined when a branch is a reference that does not resolve.
 */
function mergedAllOf(document: OpenApiDocument, live: Schema): Schema | undefined {
  const n = document.normalize(live);
  if (n.opaque !== undefined) return undefined;
  const out: Schema = { properties: Object.fromEntries(n.properties), required: [...n.required] };
  if (n.types) out.type = n.types;
  if (n.enum && n.constant && n.enum.length === 1) out.const = n.enum[0];
  else if (n.enum) out.enum = n.enum;
  for (const [k, v] of n.bounds) out[k] = v;
  if (n.additionalProperties !== undefined) out.additionalProperties = n.additionalProperties;
  if (n.items !== undefined) out.items = n.items;
  return out;
}
