/**
 * Where each conformant variant can show, learnt from the plain reference's run (reference/reach.ts
 * notes which request reached each variant's branches): the suite files its variant row must run.
 *
 * - Branches reached by a test's request (joined by the X-Request-ID of the exchanges the run logged):
 *   those tests, in their files. A test observes a variant through its own requests: the suite's tests
 *   are independent (each makes and cleans up what it reads), so the tests beside them in their files,
 *   which never reached a branch, answer the same under the variant (they were run too until the matrix
 *   reached 526 rows and .ci/run 15 minutes: about a third of these rows' exchanges).
 * - Branches reached while the description was built (the variant describes itself): the operations
 *   whose responses or parameters the variant's description changes, found by comparing it with the
 *   plain one, and the files of the tests that sent requests to them, plus the files that judge the
 *   description itself (suites/openapi). A change anywhere else in the description (a request body, an
 *   operation's presence or annotations, anything a response schema of another operation shares with a
 *   request or a parameter) counts as everywhere.
 * - Branches reached outside any request (at start, when the app is built, per connection), by a request
 *   no test sent (the preflight's description and balance feed the whole run), or never: the whole suite.
 *   The preflight's catalog read feeds nothing but the key's check (a refusal ends the run as a usage
 *   error, in every row alike): a variant reached there and by tests runs those tests (PREFLIGHT_INERT).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReachRecorder } from '../../reference/reach.ts';
import { VARIANTS } from '../../reference/start.ts';
import {
  escapeToken,
  HTTP_METHODS,
  isObj,
  type Json,
  resolveRef,
  templateRegex,
} from '../../src/openapi/document.ts';
import { ExchangeLog } from '../../src/report/layout.ts';
import type { Summary } from '../../src/report/summary.ts';

export type WholeBecause =
  | 'reached at start, when the app is built, or per connection'
  | 'reached by a request no test sent (the preflight)'
  | 'never reached by the plain reference run';

export interface VariantPlan {
  /** The seed of the plain reference's run: the variant rows replay it, so their tests send the same requests. */
  seed: number;
  /** Variant -> the files whose tests' requests reached its branches. */
  files: Map<string, Set<string>>;
  /** Variant -> the titles of the tests whose requests reached its branches. */
  tests: Map<string, Set<string>>;
  /** Each file's test titles (as the run's summary has them). */
  titlesOf: Map<string, Set<string>>;
  /** Variants that describe themselves (and are not whole): their rows compare descriptions. */
  described: Set<string>;
  /** Variants whose rows run the whole suite, and why. */
  whole: Map<string, WholeBecause>;
  /** The plain reference's description, as the run read it. */
  description: Json;
  /** Each request a test sent (method and path, keyed by both) and the tests (titles, files) that sent it. */
  requests: Map<string, { method: string; path: string; files: Set<string>; tests: Set<string> }>;
  /** The files that judge the description itself. */
  descriptionFiles: Set<string>;
}

const add = <K, V>(m: Map<K, Set<V>>, k: K, v: V) => m.set(k, (m.get(k) ?? new Set()).add(v));

/**
 * The preflight's requests whose replies the run uses only to check the primary key (src/app/preflight.ts:
 * a 401 or 403 is a usage error, a broken answer GEN-001's note): every row sends them, and what a variant
 * changes in them reaches no test. The 8 variants reached by the catalog read ran the whole suite for it
 * (catalog-*, models-envelope, unpriced-*, embedding-prompt-price-only).
 */
const PREFLIGHT_INERT = new Set(['GET /v1/models']);

export function variantPlan(reach: ReachRecorder, reportDir: string, seed: number): VariantPlan {
  const summary = JSON.parse(readFileSync(join(reportDir, 'summary.json'), 'utf8')) as Summary;
  const filesOf = new Map<string, Set<string>>();
  const titlesOf = new Map<string, Set<string>>();
  for (const t of summary.tests) {
    add(filesOf, t.title, t.file);
    add(titlesOf, t.file, t.title);
  }
  const testOf = new Map<string, string>();
  const inert = new Set<string>();
  const requests: VariantPlan['requests'] = new Map();
  for (const ex of ExchangeLog.of(reportDir).all()) {
    if (ex.requestId && ex.test) testOf.set(ex.requestId, ex.test);
    const method = ex.method.toUpperCase();
    const path = ex.path.split('?')[0]!;
    const key = `${method} ${path}`;
    if (ex.requestId && ex.test === 'preflight' && PREFLIGHT_INERT.has(key)) inert.add(ex.requestId);
    const files = ex.test === undefined ? undefined : filesOf.get(ex.test);
    if (!files) continue;
    const request = requests.get(key) ?? { method, path, files: new Set<string>(), tests: new Set<string>() };
    for (const f of files) request.files.add(f);
    request.tests.add(ex.test!);
    requests.set(key, request);
  }
  const plan: VariantPlan = {
    seed,
    files: new Map(),
    tests: new Map(),
    titlesOf,
    described: new Set(),
    whole: new Map(),
    description: JSON.parse(readFileSync(join(reportDir, 'openapi.json'), 'utf8')) as Json,
    requests,
    descriptionFiles: new Set(
      summary.tests.map((t) => t.file).filter((f) => f.startsWith('suites/openapi/')),
    ),
  };
  for (const v of reach.outside)
    plan.whole.set(v, 'reached at start, when the app is built, or per connection');
  for (const [requestId, variants] of reach.byRequest) {
    const title = testOf.get(requestId);
    const files = title === undefined ? undefined : filesOf.get(title);
    for (const v of variants) {
      if (!files) {
        if (inert.has(requestId)) continue;
        if (!plan.whole.has(v)) plan.whole.set(v, 'reached by a request no test sent (the preflight)');
      } else {
        for (const f of files) add(plan.files, v, f);
        add(plan.tests, v, title!);
      }
    }
  }
  for (const v of reach.described) if (!plan.whole.has(v)) plan.described.add(v);
  for (const v of VARIANTS)
    if (!plan.files.has(v.name) && !plan.described.has(v.name) && !plan.whole.has(v.name))
      plan.whole.set(v.name, 'never reached by the plain reference run');
  for (const v of plan.whole.keys()) {
    plan.files.delete(v);
    plan.tests.delete(v);
  }
  return plan;
}

/**
 * The tests a variant's row runs (their titles, and the files that hold them), or why it runs the whole
 * suite. `description`: the variant's own description, for a variant that describes itself (every test
 * of the files that judge the description runs then).
 */
export function variantFiles(
  plan: VariantPlan,
  variant: string,
  description: Json | undefined,
): { files: Set<string>; tests: Set<string> } | { whole: string } {
  const because = plan.whole.get(variant);
  if (because) return { whole: because };
  const files = new Set(plan.files.get(variant));
  const tests = new Set(plan.tests.get(variant));
  if (plan.described.has(variant)) {
    if (!description) return { whole: 'its description could not be read' };
    const ops = changedOperations(plan.description, description);
    if (ops === 'everywhere') return { whole: 'its description changes more than responses' };
    for (const f of plan.descriptionFiles) {
      files.add(f);
      for (const t of plan.titlesOf.get(f) ?? []) tests.add(t);
    }
    for (const { method, path, files: sent, tests: senders } of plan.requests.values())
      if (ops.some((o) => o.method === method && templateRegex(o.path).test(path))) {
        for (const f of sent) files.add(f);
        for (const t of senders) tests.add(t);
      }
  }
  return files.size > 0 ? { files, tests } : { whole: 'no test reaches it' };
}

/**
 * A --filter that selects these tests by their titles: vitest matches a test's full name, its describe
 * blocks' names and its title joined by spaces, so each title is matched whole at the end of it.
 */
export function titlesFilter(titles: Iterable<string>): string {
  const escaped = [...titles].sort().map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return `(?:^| )(?:${escaped.join('|')})$`;
}

/** A JSON pointer's tokens of every place two documents differ (a key on one side only, or a value). */
function differences(a: unknown, b: unknown, at: string[] = [], out: string[][] = []): string[][] {
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[k], b[k], [...at, k], out);
  } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) differences(a[i], b[i], [...at, String(i)], out);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(at);
  return out;
}

/** The `#/components/<kind>/<name>` references anywhere under `node`. */
function refsUnder(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const x of node) refsUnder(x, out);
  else if (isObj(node))
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/')) out.add(v);
      else refsUnder(v, out);
    }
  return out;
}

/** Every component `start` reaches through references, itself included. */
function closure(doc: Json, start: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const todo = [...start];
  while (todo.length) {
    const ref = todo.pop()!;
    if (seen.has(ref)) continue;
    seen.add(ref);
    for (const r of refsUnder(resolveRef(doc, ref))) todo.push(r);
  }
  return seen;
}

/**
 * The operations whose responses or parameters differ between two descriptions, or `everywhere` when
 * anything else differs: outside the paths' responses, parameters and the components; a component that
 * a request body or a parameter also reaches; an operation added or removed.
 */
export function changedOperations(
  base: Json,
  other: Json,
): Array<{ method: string; path: string }> | 'everywhere' {
  const ops = new Map<string, { method: string; path: string }>();
  const components = new Set<string>();
  const methodsOf = (path: string): string[] =>
    [base, other].flatMap((doc) => {
      const item = ((doc.paths ?? {}) as Json)[path];
      return isObj(item)
        ? Object.keys(item).filter((k) => (HTTP_METHODS as readonly string[]).includes(k))
        : [];
    });
  for (const d of differences(base, other)) {
    const [top, a, b, c] = d;
    const isMethod = b !== undefined && (HTTP_METHODS as readonly string[]).includes(b);
    // An operation's responses or parameters (a query parameter a list pages by): what only requests to
    // it and the description's own judges read (src/runtime/lists.ts takes an operation's parameters).
    if (
      top === 'paths' &&
      a !== undefined &&
      isMethod &&
      (c === 'responses' || c === 'parameters') &&
      d.length >= 4
    )
      ops.set(`${b} ${a}`, { method: b!.toUpperCase(), path: a });
    // A path's own parameters: every operation of the path.
    else if (top === 'paths' && a !== undefined && b === 'parameters')
      for (const m of methodsOf(a)) ops.set(`${m} ${a}`, { method: m.toUpperCase(), path: a });
    else if (top === 'components' && (a === 'schemas' || a === 'responses') && b !== undefined)
      components.add(`#/components/${a}/${escapeToken(b)}`);
    else return 'everywhere';
  }
  if (components.size === 0) return [...ops.values()];
  // Which operations reach a changed component, in either description, by their responses, and whether
  // anything else (a request body, a parameter) reaches it.
  for (const doc of [base, other]) {
    const paths = (doc.paths ?? {}) as Json;
    for (const [path, item] of Object.entries(paths)) {
      if (!isObj(item)) continue;
      for (const [key, op] of Object.entries(item)) {
        if (!isObj(op)) continue;
        const isMethod = (HTTP_METHODS as readonly string[]).includes(key);
        for (const [part, node] of Object.entries(isMethod ? op : { [key]: op })) {
          const reached = closure(doc, refsUnder(node));
          if (![...components].some((c) => reached.has(c))) continue;
          if (isMethod && part === 'responses')
            ops.set(`${key} ${path}`, { method: key.toUpperCase(), path });
          else if (isMethod && ['summary', 'description', 'tags', 'operationId', 'deprecated'].includes(part))
            continue;
          else return 'everywhere';
        }
      }
    }
  }
  return [...ops.values()];
}
