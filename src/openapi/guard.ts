/**
 * What the target's own description and bodies may cost the harness. The description comes from a
 * deployment nobody here controls: its regular expressions run on a linear-time engine (RE2), and
 * before anything compiles or clones it, one iterative walk bounds its nesting, size and enums and finds
 * cycles that would make a validator recurse forever. Each hazard has a kind: an invalid pattern or a
 * cycle makes the description no usable JSON Schema (the target's failure, OAS-001, with the pointer as
 * evidence); a size bound crossed makes it too large for the suite to examine, which the contract does
 * not forbid (advisory, OAS-006). Either way nothing compiles it, and it is never a harness error.
 */
import { RE2JS } from 're2js';
import { nestingDepth } from '../http/nesting.ts';
import { escapeToken, resolveRef } from './document.ts';

export const DESCRIPTION_LIMITS = {
  /** Nesting of objects and arrays (real descriptions stay under 30). */
  depth: 128,
  /** Objects and arrays in all. */
  nodes: 500_000,
  /** Characters of all strings and keys (about the document's size). */
  chars: 16_000_000,
  /** Values of one enum. */
  enumValues: 2_000,
  /** Values of all enums together. */
  enumTotal: 50_000,
} as const;

/**
 * Why a description is not compiled: `invalid` (an invalid pattern, a `$ref`/applicator cycle: no usable
 * JSON Schema, the target's failure) or `too-large` (over a size bound of DESCRIPTION_LIMITS: beyond what
 * the suite examines, not the target's failure: the contract sets no size limit).
 */
export type HazardKind = 'invalid' | 'too-large';

/** A hazard found, its message naming where (a JSON Pointer). */
export interface Hazard {
  kind: HazardKind;
  message: string;
}

/**
 * What a run knows of the live description: why it is invalid (OAS-001: the `invalid` hazards and the
 * OpenAPI validation's errors), why it was not examined (OAS-006: the `too-large` hazards).
 */
export interface DescriptionFacts {
  errors: string[];
  tooLarge?: string[];
}

/** Beyond the suite's size bounds and found invalid in nothing: advisory (OAS-006), no failure of OAS-001. */
export const onlyTooLarge = (d: DescriptionFacts | undefined): boolean =>
  d?.tooLarge !== undefined && d.errors.length === 0;

/** Hazards found; at most this many of each kind are listed (so that no count of one hides the other). */
const MAX_FINDINGS = 10;

/** Results remembered per pattern (values up to 256 characters). */
const REMEMBERED_VALUES = 10_000;

/** Patterns valid in ECMA-262 that RE2 cannot run (lookaround, backreferences): not judged, listed. */
export const unjudgedPatterns = new Set<string>();

/**
 * ajv's RegExp engine: RE2 (re2js), linear in the input whatever the pattern. A pattern that is not a
 * valid ECMA-262 regular expression throws (the description is at fault); one RE2 cannot run matches
 * everything and is listed in `unjudgedPatterns`.
 */
export function re2Engine(pattern: string, flags: string): { test(s: string): boolean; toString(): string } {
  // ajv shares compiled patterns by their toString(): it must name the pattern.
  const name = () => `/${pattern}/${flags}`;
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    if (invalidPattern(pattern) !== undefined) throw err;
    unjudgedPatterns.add(pattern);
    return { test: () => true, toString: name };
  }
  // test(): any match, on RE2's DFA path (no Matcher, no capture groups). Values repeat across a list's
  // entries (prices, kinds), so results are remembered, for a bounded number of values.
  const seen = new Map<string, boolean>();
  return {
    test: (s: string) => {
      const known = seen.get(s);
      if (known !== undefined) return known;
      const ok = re.test(s);
      if (seen.size < REMEMBERED_VALUES && s.length <= 256) seen.set(s, ok);
      return ok;
    },
    toString: name,
  };
}
re2Engine.code = 're2js';

/**
 * Why `pattern` is not a valid ECMA-262 regular expression, or undefined when it is: in unicode mode, or
 * else as ECMA-262's Annex B reads it (identity escapes such as `\-`, `\_`, `\:`, which JSON Schema's
 * "SHOULD be valid ECMA-262" does not rule out, and which RE2 reads alike).
 */
function invalidPattern(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
    return undefined;
  } catch (err) {
    try {
      new RegExp(pattern);
      return undefined;
    } catch {
      return (err as Error).message;
    }
  }
}

/**
 * Keys whose values are data, not schemas (an example's `pattern` member is no pattern), unless they name
 * a property or a definition (their parent is one of MAP_KEYS).
 */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum', 'value']);
const MAP_KEYS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * Bounds and cycles of a description, in one iterative walk (no recursion: a document nested 200,000
 * levels deep must not overflow the stack). Returns the hazards found; empty when the description is
 * safe to compile. Cycles are looked for only in a description the walk saw whole and found nothing in.
 */
export function screenDescription(doc: unknown): Hazard[] {
  const L = DESCRIPTION_LIMITS;
  const findings: Hazard[] = [];
  const add = (kind: HazardKind, message: string) => {
    if (findings.filter((f) => f.kind === kind).length < MAX_FINDINGS) findings.push({ kind, message });
  };
  let nodes = 0;
  let chars = 0;
  let enumTotal = 0;
  let deepest = false;
  const pointers = new Map<object, string>();
  // Each node with its pointer, its depth, and whether it is data (DATA_KEYS): no pattern there is judged.
  const stack: Array<[unknown, string, number, boolean]> = [[doc, '', 0, false]];
  while (stack.length > 0) {
    const [node, ptr, depth, data] = stack.pop()!;
    if (node === null || typeof node !== 'object') {
      if (typeof node === 'string') chars += node.length;
      continue;
    }
    if (++nodes > L.nodes) {
      add('too-large', `more than ${L.nodes} objects and arrays`);
      break;
    }
    if (depth > L.depth) {
      if (!deepest) add('too-large', `${ptr || '/'}: nested deeper than ${L.depth} levels`);
      deepest = true;
      continue;
    }
    pointers.set(node, ptr);
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${ptr}/${i}`, depth + 1, data]);
      continue;
    }
    const obj = node as Record<string, unknown>;
    const map = MAP_KEYS.has(ptr.slice(ptr.lastIndexOf('/') + 1));
    for (const k of Object.keys(obj)) {
      chars += k.length;
      stack.push([obj[k], `${ptr}/${escapeToken(k)}`, depth + 1, data || (!map && DATA_KEYS.has(k))]);
    }
    if (Array.isArray(obj.enum)) {
      enumTotal += obj.enum.length;
      if (obj.enum.length > L.enumValues)
        add('too-large', `${ptr}/enum: ${obj.enum.length} values (at most ${L.enumValues})`);
    }
    // Sizes and enums count everywhere; an example's members are no schema, so no pattern there is judged.
    if (!data && typeof obj.pattern === 'string') {
      const why = invalidPattern(obj.pattern);
      if (why) add('invalid', `${ptr}/pattern: not a valid regular expression (${why})`);
    }
    if (!data && obj.patternProperties && typeof obj.patternProperties === 'object')
      for (const p of Object.keys(obj.patternProperties)) {
        const why = invalidPattern(p);
        if (why) add('invalid', `${ptr}/patternProperties: key not a valid regular expression (${why})`);
      }
    if (chars > L.chars) {
      add('too-large', `more than ${L.chars} characters of strings and keys`);
      break;
    }
  }
  if (enumTotal > L.enumTotal) add('too-large', `${enumTotal} enum values in all (at most ${L.enumTotal})`);
  if (findings.length === 0) findings.push(...cycles(doc, pointers));
  return findings;
}

/**
 * Cycles through `$ref` and the in-place applicators (`allOf`, `anyOf`, `oneOf`): a schema that applies
 * itself to the same value, so that a validator (or a merge of allOf) never ends. A recursion through
 * `properties` or `items` is fine (each step goes one level into the value) and is not followed.
 */
function cycles(doc: unknown, pointers: Map<object, string>): Hazard[] {
  const edges = (node: object): object[] => {
    const obj = node as Record<string, unknown>;
    const out: unknown[] = [];
    if (typeof obj.$ref === 'string') out.push(resolveRef(doc, obj.$ref));
    for (const kw of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(obj[kw])) out.push(...(obj[kw] as unknown[]));
    return out.filter((n): n is object => n !== null && typeof n === 'object' && !Array.isArray(n));
  };
  const state = new Map<object, 1 | 2>();
  for (const start of pointers.keys()) {
    if (Array.isArray(start) || state.has(start)) continue;
    // Iterative depth-first search; `on` holds the current path (state 1).
    const stack: Array<{ node: object; next: object[] }> = [{ node: start, next: edges(start) }];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const n = top.next.pop();
      if (n === undefined) {
        state.set(top.node, 2);
        stack.pop();
        continue;
      }
      const s = state.get(n);
      if (s === 1) {
        const from = stack.findIndex((f) => f.node === n);
        const path = stack.slice(from).map((f) => pointers.get(f.node) ?? '?');
        const message = `${path[0] || '/'}: a $ref/allOf/anyOf/oneOf cycle (${[...path, path[0]].join(' -> ')})`;
        return [{ kind: 'invalid', message }];
      }
      if (s === undefined) {
        state.set(n, 1);
        stack.push({ node: n, next: edges(n) });
      }
    }
  }
  return [];
}

/**
 * Evidence kept in a violation: the value itself when its JSON is short, else its head and what was
 * left out (counted, not copied). Why: one violation citing a 1 MB enum, repeated per response, made a
 * 198 MB summary.
 */
export function capEvidence(value: unknown, maxChars = 2_000): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' && value.length > maxChars
      ? `${value.slice(0, maxChars)}… (${value.length} characters)`
      : value;
  }
  if (nestingDepth(value, 32) > 32) return `(a value nested deeper than 32 levels: not copied)`;
  if (Array.isArray(value)) {
    const head: unknown[] = [];
    let used = 2;
    for (const v of value) {
      const s = JSON.stringify(capEvidence(v, maxChars)) ?? 'null';
      if (used + s.length + 1 > maxChars) break;
      head.push(JSON.parse(s));
      used += s.length + 1;
    }
    return head.length === value.length
      ? value
      : { first: head, of: value.length, omitted: value.length - head.length };
  }
  const out: Record<string, unknown> = {};
  let used = 2;
  let omitted = 0;
  for (const [k, v] of Object.entries(value)) {
    const s = JSON.stringify(capEvidence(v, maxChars)) ?? 'null';
    if (used + k.length + s.length + 4 > maxChars) {
      omitted++;
      continue;
    }
    out[k] = JSON.parse(s);
    used += k.length + s.length + 4;
  }
  if (omitted) out['…omitted'] = `${omitted} more properties`;
  return out;
}
