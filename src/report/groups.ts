/**
 * Root causes instead of floods: the violations of a run grouped by requirement and normalised cause
 * (same check, same endpoint as method + path template, same schema location, a message without its
 * values), across tests, then folded where one cause shows as several (issue 39, measured over the
 * fault matrix: docs/mutation-matrix.md): a rule broken several ways or on several endpoints, one fact
 * found by checks of several ids, the cases of one endpoint answered the same wrong way; every group
 * names every requirement id it covers. An endpoint that answers the web framework's 404 to everything is one group,
 * "not implemented", that every finding on it and every test not run because of it point to; and the
 * tests not run, grouped by their typed cause. Computed once (aggregate) into summary.json, read by the
 * console and the HTML report. The raw per-test detail stays in the tests and the exchanges.
 */
import type { Exchange } from '../http/client.ts';
import { pkgPath } from '../paths.ts';
import type { NotRunCause, VerdictCase, Violation } from '../vocabulary.ts';
import { readYaml } from '../yaml-cache.ts';
import type { TestResultRecord } from './test-result.ts';

export interface FindingGroup {
  /**
   * `not_implemented`: an endpoint answering the framework's 404; `finding`: the tests' own rules;
   * `exchange`: the checks every exchange gets (description, error shape, leaks, points).
   */
  kind: 'not_implemented' | 'finding' | 'exchange';
  /** The requirement ids of the group (one, except for `not_implemented`, which folds in all on it). */
  ids: string[];
  severity: 'failure' | 'advisory';
  /** Method and path template: `GET /v1/media/jobs/{id}`. */
  endpoint?: string;
  /** The endpoints of a group that spans several (its `endpoint` is then absent), first seen first. */
  endpoints?: string[];
  /** The location, array indices folded: `/data/*`. */
  pointer?: string;
  /** The message with its values taken out: what every member of the group says. */
  cause: string;
  /** Violations in the group (each counted as often as it was seen). */
  count: number;
  /** Titles of the tests it spans (first seen first). */
  tests: string[];
  /** not_implemented: titles of the tests not run because of it. */
  notRun?: string[];
  /** The first member, in full. */
  example: {
    test: string;
    id: string;
    message: string;
    pointer?: string;
    received?: unknown;
    expected?: unknown;
    exchangeId?: string;
  };
}

export interface NotRunGroup {
  /** Absent for a not-run reason the suite gave only in words. */
  cause?: NotRunCause;
  /** The reason of the first test (a cause's subject says what they share). */
  reason: string;
  count: number;
  example: string;
  /** The `not implemented` group whose endpoint this is, as its endpoint. */
  notImplemented?: string;
}

/** Collections whose next path segment is an id. */
const ID_PARENTS = new Set([
  'models',
  'jobs',
  'inputs',
  'assets',
  'tickets',
  'payment-orders',
  'payment-methods',
]);

/** `/v1/media/jobs/job_123?x=1` -> `/v1/media/jobs/{id}`; a version segment (`/v1/v1/models`) stays. */
export function pathTemplate(path: string): string {
  const segs = (path.split('?')[0] ?? '').split('/');
  return segs
    .map((s, i) =>
      i >= 2 &&
      s !== '' &&
      !s.startsWith('{') &&
      !/^v\d+$/.test(s) &&
      (/[0-9_]/.test(s) || s.length >= 24 || ID_PARENTS.has(segs[i - 1]!))
        ? '{id}'
        : s,
    )
    .join('/');
}

interface DocumentedEndpoint {
  method: string;
  /** The contract's path template, `/v1/media/jobs/{id}`: one path, whatever method. */
  template: string;
  path: RegExp;
}
let documented: DocumentedEndpoint[] | undefined;
/** The contract's endpoints (fixtures/endpoints.yaml) whose path matches, ids in any form. */
function endpointsOfPath(path: string): DocumentedEndpoint[] {
  documented ??= (
    readYaml(pkgPath('fixtures', 'endpoints.yaml')) as { endpoints: Array<{ method: string; path: string }> }
  ).endpoints.map((e) => ({
    method: e.method,
    template: e.path,
    path: new RegExp(`^${e.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  }));
  const p = path.split('?')[0] ?? '';
  return documented.filter((e) => e.path.test(p));
}
const isEndpointPath = (path: string): boolean => endpointsOfPath(path).length > 0;

/**
 * What the whole run showed of the contract's endpoints, in one walk over its exchanges:
 * - `implemented`: the paths that answered something other than 404 or 405 to a method the contract
 *   gives them, anywhere in the run (whatever a wrong-method probe got there);
 * - `dead`: GET endpoints without a path parameter that never answered 2xx although a plain GET (no
 *   query) with the primary key was sent to them, with the statuses such GETs got (`GET /v1/balance` ->
 *   `400`). A GET with the account's own key and nothing else has nothing a contract could refuse, so
 *   every finding there has one cause, the endpoint not answering (an OpenAI-like server's 400 to
 *   unknown routes, a dead upstream's 502). The framework-404 case is the not-implemented one.
 */
function endpointFacts(tests: TestResultRecord[]): { implemented: Set<string>; dead: Map<string, string> } {
  const implemented = new Set<string>();
  const ok = new Set<string>();
  const plain = new Map<string, Set<number>>();
  for (const t of tests)
    for (const ex of t.exchanges) {
      if (ex.status === undefined) continue;
      const own = endpointsOfPath(ex.path);
      if (ex.status !== 404 && ex.status !== 405)
        for (const e of own) if (e.method === ex.method) implemented.add(e.template);
      // GET endpoints of the contract only: a GET to a POST-only path is a wrong-method probe.
      if (ex.method !== 'GET' || !own.some((e) => e.method === 'GET')) continue;
      const endpoint = endpointOf(ex);
      // A path that names a resource may rightly answer 404 for every id the run sent.
      if (endpoint.includes('{')) continue;
      if (ex.status < 300) ok.add(endpoint);
      // The primary key as the contract asks for it (a probe's other scheme or mutated key is no such GET).
      const primary = Object.entries(ex.requestHeaders).some(
        ([h, v]) => h.toLowerCase() === 'authorization' && v === 'Bearer [REDACTED:primary]',
      );
      if (primary && !ex.path.includes('?'))
        plain.set(endpoint, (plain.get(endpoint) ?? new Set()).add(ex.status));
    }
  const dead = new Map<string, string>();
  for (const [endpoint, statuses] of plain)
    if (!ok.has(endpoint)) dead.set(endpoint, [...statuses].sort().join(', '));
  return { implemented, dead };
}

/**
 * The endpoint a framework 404 says is not implemented, or undefined when its path is implemented (the
 * 404 is then a finding of the exchange's own method). On a path that answers nothing but 404/405, a
 * wrong-method probe's 404 is the same cause: it joins the group of the path's documented method.
 */
function missingEndpoint(ex: Exchange, implemented: Set<string>): string | undefined {
  const own = endpointsOfPath(ex.path);
  if (own.some((e) => implemented.has(e.template))) return undefined;
  const methods = own.map((e) => e.method);
  const method = methods.includes(ex.method) || methods.length === 0 ? ex.method : methods[0]!;
  return `${method} ${pathTemplate(ex.path)}`;
}

/** A JSON pointer with array indices folded: `/data/3/id` -> `/data/*\/id`. */
export function foldPointer(p: string): string {
  return p.replace(/\/\d+(?=\/|$)/g, '/*');
}

/** The message without its values: schema paths, array indices, quoted values, long numbers. */
export function normaliseMessage(message: string, ex?: Exchange): string {
  let m = message.replace(/\s*\(schema [^)]*\)/g, '');
  if (ex) {
    const raw = ex.path.split('?')[0]!;
    m = m.split(ex.path).join(pathTemplate(ex.path)).split(raw).join(pathTemplate(raw));
  }
  return (
    m
      .replace(/(\s|^)(\/[^\s'"]*)/g, (_, sp: string, p: string) => `${sp}${foldPointer(p)}`)
      .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
      // A sample file's name is a value like any other: one cause for every file it concerns.
      .replace(/\b[\w.-]+\.(?:png|jpe?g|webp|mp4|glb)\b/gi, '<file>')
      // The contract's names of a path parameter (`/v1/media/inputs/{input_id}`) are the template's `{id}`.
      .replace(/\{[a-z_]+\}/g, '{id}')
      // A resource id (`job_7d265ba544dd25617121d444`) is a value too: one cause for every job it concerns.
      .replace(/\b[a-z]+_(?=[0-9a-z]*\d)[0-9a-z]{12,}\b/gi, '<id>')
      // Numbers in exponent notation (`-2e-7`, a points delta) first: they are values like the rest.
      .replace(/\b\d+(?:\.\d+)?e[+-]?\d+\b/gi, '#')
      .replace(/\b\d+\.\d+\b(?!\.x)|\b\d{4,}\b/g, '#')
  );
}

/** What the violations of a group of verdict cases had in common, besides the cases. */
interface CaseHead {
  wrong: VerdictCase['wrong'];
  family?: VerdictCase['family'];
  /** `code`: the code the refusals carried (one code, one cause, whatever each should have been). */
  received?: unknown;
  /** `points`: what kind of value the points fields carried (`JSON numbers`, `null`, ...). */
  carried?: string;
  /**
   * `authentication`/`scope`, `accepted`: some of the same probes were refused elsewhere with another
   * status than the key's (a 404 for the probe's unknown id): past the key check, the same cause.
   */
  past?: boolean;
}

/** The kind of a value a points field carried: one kind, one cause, whatever the values. */
const valueKind = (v: unknown): string =>
  typeof v === 'number'
    ? 'JSON numbers'
    : typeof v === 'string'
      ? 'strings that are no decimal number'
      : v === null
        ? 'null'
        : Array.isArray(v)
          ? 'arrays'
          : `${typeof v} values`;

/** The cause of a group of verdict cases: which way the answers were wrong, and the cases. */
function casesCause(h: CaseHead, whats: string[]): string {
  const head =
    h.family === 'authentication'
      ? h.wrong === 'status'
        ? 'requests without a valid key were refused with a status the contract does not give them'
        : `authentication is not enforced: requests without a valid key were answered 2xx${h.past ? ', or went past the key check to another refusal' : ''}`
      : h.family === 'scope'
        ? h.wrong === 'status'
          ? 'keys used outside their scope were refused with a status the contract does not give them'
          : `scopes are not enforced: keys used outside their scope were answered 2xx${h.past ? ', or went past the scope check to another refusal' : ''}`
        : h.family === 'legacy'
          ? 'replies in the legacy currency format still carry points fields'
          : h.family === 'points'
            ? `points values are ${h.carried}, not exact decimal strings`
            : h.family === 'balance'
              ? "the account's figures (balance, ledger, usage records) disagree with the charges its replies report"
              : h.wrong === 'code'
                ? `refusals carried error code ${JSON.stringify(h.received)}, not the code the contract gives them`
                : h.wrong === 'status'
                  ? 'requests the contract refuses were refused with another status than it gives'
                  : h.wrong === 'accepted'
                    ? 'requests the contract refuses were answered without a 4xx refusal'
                    : 'requests the contract accepts were not answered 2xx';
  const shown = whats.slice(0, 4).join('; ');
  return whats.length === 0
    ? head
    : `${head} (${whats.length} case${whats.length === 1 ? '' : 's'}: ${shown}${whats.length > 4 ? '; …' : ''})`;
}

/**
 * The rules that compare the account's figures with the charges the replies report, each with what a
 * reader is told it found: a balance that does not move, or moves by another amount, breaks them
 * together, wherever a test compared (after a chat call, a media job, a random sequence), so their
 * findings are one family (`balance`), each rule one case of it.
 */
const ACCOUNT_FIGURES: Record<string, string> = {
  'BAL-004': 'total_points or held_points moved by another amount than the replies charged or held',
  'LEDGER-002': 'consecutive ledger entries disagree with balance_after_points',
  'LEDGER-003': 'the ledger does not add up to the balance',
  'USAGE-080': 'the usage records state another charge than the replies',
};

/**
 * A test's finding of ACCOUNT_FIGURES as its case of the `balance` family (none for others). USAGE-080's
 * only where it compared a record's charge with the reply's (its `expected`: a record with that charge),
 * not where a record is missing or names no model.
 */
function accountFigures(v: Violation): VerdictCase | undefined {
  const what = v.scope === 'exchange' ? undefined : ACCOUNT_FIGURES[v.id];
  if (v.id === 'USAGE-080' && !String(v.expected).startsWith('a record with charged_points'))
    return undefined;
  return what ? { wrong: 'carried', what: `${v.id}: ${what}`, family: 'balance' } : undefined;
}

/**
 * One cause wherever it shows: cases of a family (every key probe so answered), an error code given to
 * refusals, and the error shape the checks of every exchange find (ERR-*: one APIError for the whole
 * API) are grouped across endpoints; the rest per endpoint.
 */
const acrossEndpoints = (v: Violation, vc: VerdictCase | undefined): boolean =>
  !!vc?.family || vc?.wrong === 'code' || (v.scope === 'exchange' && v.id.startsWith('ERR-'));

/**
 * The body of a 404 carries no APIError object (`{"error": {...}}`): the framework's own answer, on a
 * path of the contract (a 404 on a path that is no endpoint, `/v1/v1/models`, is the right answer).
 */
export function isFramework404(ex: Exchange | undefined): boolean {
  if (ex?.status !== 404 || !isEndpointPath(ex.path)) return false;
  const preview = ex.responseBody?.preview ?? '';
  if (/"error"\s*:\s*\{/.test(preview)) return false;
  // A body that names the resource id it looked up, but not the path (`{"error":"No media job job_1."}`),
  // is the endpoint's own "not found" without the APIError shape: a framework's 404 names the route
  // (`Route GET:/v1/media/jobs/job_1 not found`, `Cannot GET /v1/...`) or nothing of it.
  const path = ex.path.split('?')[0]!;
  const id = pathTemplate(path) === path ? undefined : path.split('/').at(-1);
  return !(id && preview.includes(id) && !preview.includes(path));
}

/**
 * Where a violation's fact is: its pointer (array indices folded), and for a schema's missing property
 * (`required`: the object's pointer, the property in `expected.missingProperty`) the property's own
 * pointer: a reply without `usage` and one without `created` are two facts at `/`.
 */
function factLocation(v: Violation, pointer: string | undefined): string | undefined {
  const missing = (v.expected as { missingProperty?: unknown } | undefined)?.missingProperty;
  if (pointer === undefined || typeof missing !== 'string') return pointer;
  return `${pointer === '/' ? '' : pointer}/${missing}`;
}

const endpointOf = (ex: Exchange) => `${ex.method} ${pathTemplate(ex.path)}`;

const SECTION: Record<FindingGroup['kind'], number> = { not_implemented: 0, finding: 1, exchange: 2 };

/** The finding groups of a run: not implemented first, then the tests' own findings, then per-exchange checks. */
export function groupFindings(tests: TestResultRecord[]): FindingGroup[] {
  const groups = new Map<string, FindingGroup & { testSet: Set<string>; also?: string[] }>();
  const messages = new Map<string, Set<string>>();
  /** The cases (in words) of each group of verdict cases, first seen first, and the endpoints it spans. */
  const cases = new Map<
    string,
    {
      head: CaseHead | undefined;
      whats: string[];
      /** The requirement id of each case (a group of cases may span several rules of one endpoint). */
      idOf: Map<string, string>;
      endpoints: Set<string>;
      pointers: Set<string>;
    }
  >();
  /** Where each group's members were found: `exchange id\npointer` (one fact, whichever check found it). */
  const facts = new Map<string, Set<string>>();
  /** The locations of each group's members on their endpoints: `endpoint\npointer`. */
  const places = new Map<string, Set<string>>();
  /** The exchanges each group's members were found on. */
  const exchangesOf = new Map<string, Set<string>>();
  /** The cause of each group as normalised (values folded), for folding groups across fields and endpoints. */
  const normOf = new Map<string, string>();
  /** Each test's last group of each id (`title\nid`): where the count of its unlisted violations goes. */
  const lastGroupOf = new Map<string, string>();
  const add = (
    key: string,
    make: () => FindingGroup,
    t: TestResultRecord,
    v: Violation & { count: number },
  ) => {
    let g = groups.get(key);
    if (!g) {
      g = { ...make(), testSet: new Set() };
      groups.set(key, g);
    }
    messages.set(key, (messages.get(key) ?? new Set()).add(v.message));
    g.count += v.count;
    if (!g.ids.includes(v.id)) g.ids.push(v.id);
    if (v.severity === 'failure') g.severity = 'failure';
    if (!g.testSet.has(t.title)) {
      g.testSet.add(t.title);
      g.tests.push(t.title);
    }
  };
  const { implemented, dead } = endpointFacts(tests);
  // The key probes some endpoint answered 2xx: the same probe refused elsewhere with another status than
  // the key's (a 404 for the probe's unknown id) went past the key check there, one cause.
  const passed = new Set<string>();
  for (const t of tests)
    for (const { verdictCase: vc } of t.violations)
      if (vc?.wrong === 'accepted' && (vc.family === 'authentication' || vc.family === 'scope'))
        passed.add(`${vc.family}\n${vc.what}`);
  for (const t of tests) {
    if (t.outcome === 'not_run' || t.outcome === 'harness_error') continue;
    const exchanges = new Map(t.exchanges.map((e) => [e.id, e]));
    for (const v of t.violations) {
      const ex = v.exchangeId ? exchanges.get(v.exchangeId) : undefined;
      const example = (): FindingGroup['example'] => ({
        test: t.title,
        id: v.id,
        message: v.message,
        ...(v.pointer !== undefined ? { pointer: v.pointer } : {}),
        ...(v.received !== undefined ? { received: v.received } : {}),
        ...(v.expected !== undefined ? { expected: v.expected } : {}),
        ...(v.exchangeId ? { exchangeId: v.exchangeId } : {}),
      });
      const endpoint404 = ex && isFramework404(ex) ? missingEndpoint(ex, implemented) : undefined;
      const deadAt = ex && !endpoint404 ? dead.get(endpointOf(ex)) : undefined;
      if (endpoint404 || deadAt) {
        const endpoint = endpoint404 ?? endpointOf(ex!);
        add(
          `not_implemented\n${endpoint}`,
          () => ({
            kind: 'not_implemented',
            ids: [],
            severity: v.severity,
            endpoint,
            cause: endpoint404
              ? `${endpoint} is not implemented: it answers the framework's 404 without the APIError shape`
              : `${endpoint} never answers 2xx: ${deadAt} to a plain GET with the primary key`,
            count: 0,
            tests: [],
            notRun: [],
            example: example(),
          }),
          t,
          v,
        );
        continue;
      }
      const kind = v.scope === 'exchange' ? 'exchange' : 'finding';
      const endpoint = ex ? endpointOf(ex) : undefined;
      const pointer = v.pointer !== undefined ? foldPointer(v.pointer) : undefined;
      // The count of what a test did not list is no cause: it joins that test's last group of its id.
      const last = v.unlisted ? lastGroupOf.get(`${t.title}\n${v.id}`) : undefined;
      if (last) {
        groups.get(last)!.count += v.count;
        continue;
      }
      // Cases of one rule answered the wrong way on one endpoint are one cause, whatever the case.
      const vc = v.verdictCase ?? accountFigures(v);
      const past = vc?.wrong === 'status' && passed.has(`${vc.family}\n${vc.what}`);
      const head: CaseHead | undefined = vc && {
        wrong: past ? 'accepted' : vc.wrong,
        ...(vc.family ? { family: vc.family } : {}),
        ...(vc.wrong === 'code' ? { received: v.received } : {}),
        ...(vc.family === 'points' ? { carried: valueKind(v.received) } : {}),
      };
      const across = acrossEndpoints(v, vc);
      const said = normaliseMessage(v.message, ex);
      const cause = head
        ? casesCause(head, [])
        : across && ex
          ? // The error shape is one rule for every status: a framework's plain 404 and 405 are one cause.
            said
              .replace(`${ex.method} ${pathTemplate(ex.path)} `, '')
              .replace(/^answered (\d)\d\d\b/, 'answered $1xx')
          : said;
      // A family of rules broken by one cause is one group across its ids and endpoints; the cases of
      // one endpoint answered the same wrong way are one cause whatever their rule (its request
      // validation: each parameter let through is a case, each names its id).
      const key =
        vc?.wrong === 'code'
          ? [kind, 'code', v.severity, JSON.stringify(v.received)].join('\n')
          : vc?.family
            ? [
                vc.family === 'points' ? 'any' : kind,
                'family',
                vc.family,
                head!.wrong,
                v.severity,
                head?.carried ?? '',
              ].join('\n')
            : across
              ? [kind, v.id, v.severity, cause].join('\n')
              : head
                ? [kind, 'cases', head.wrong, v.severity, endpoint ?? `id ${v.id}`].join('\n')
                : [kind, v.id, v.severity, endpoint ?? '', pointer ?? '', cause].join('\n');
      lastGroupOf.set(`${t.title}\n${v.id}`, key);
      if (!vc?.family && !across) normOf.set(key, cause);
      // A fact is a location in one exchange (a pointer, or its status where that is what was received):
      // two checks' findings without one may be two facts.
      const location = factLocation(v, pointer);
      const at =
        location ?? (ex && typeof v.received === 'number' && v.received === ex.status ? 'status' : undefined);
      if (v.exchangeId && at !== undefined)
        facts.set(key, (facts.get(key) ?? new Set()).add(`${v.exchangeId}\n${at}`));
      if (endpoint && location !== undefined)
        places.set(key, (places.get(key) ?? new Set()).add(`${endpoint}\n${location}`));
      if (v.exchangeId) exchangesOf.set(key, (exchangesOf.get(key) ?? new Set()).add(v.exchangeId));
      if (head || across) {
        const seen = cases.get(key) ?? {
          head,
          whats: [],
          idOf: new Map<string, string>(),
          endpoints: new Set<string>(),
          pointers: new Set<string>(),
        };
        if (vc && !seen.whats.includes(vc.what)) {
          seen.whats.push(vc.what);
          seen.idOf.set(vc.what, v.id);
        }
        if (endpoint) seen.endpoints.add(endpoint);
        seen.pointers.add(pointer ?? '');
        if (past && seen.head) seen.head.past = true;
        cases.set(key, seen);
      }
      add(
        key,
        () => ({
          kind,
          ids: [],
          severity: v.severity,
          ...(endpoint ? { endpoint } : {}),
          ...(pointer !== undefined ? { pointer } : {}),
          cause,
          count: 0,
          tests: [],
          example: example(),
        }),
        t,
        v,
      );
    }
  }
  // A group whose members all said the same thing shows it as said: folding only hides what differs.
  for (const [key, g] of groups) {
    const said = messages.get(key);
    const c = cases.get(key);
    // A group across endpoints lists them (`endpoints`); its cause says what they share.
    const spread = !!c && c.endpoints.size > 1;
    if (c && spread) {
      delete g.endpoint;
      g.endpoints = [...c.endpoints];
    }
    // A family spans its rule's places: no one location is the group's (nor are cases at several).
    if (c?.head?.family || (c?.head && c.pointers.size > 1)) delete g.pointer;
    if (c?.head && (c.head.family || c.head.wrong === 'code' || c.whats.length > 1))
      g.cause = casesCause(
        c.head,
        // The cases of several rules each with its id (a family's cases say theirs).
        !c.head.family && g.ids.length > 1 ? c.whats.map((w) => `${c.idOf.get(w)}: ${w}`) : c.whats,
      );
    else if (c && spread) continue;
    else if (g.kind !== 'not_implemented' && said?.size)
      // What was said, not a template of it (`<file>: input.duration_ms is #`): the first member's
      // words, and how many others said the same with other values.
      g.cause = `${[...said][0]!.replace(/\s*\(schema [^)]*\)/g, '')}${said.size > 1 ? `, and ${said.size - 1} more like it` : ''}`;
  }
  // One fact found twice: by a test's own check and by the check of every exchange (the same id on the
  // same endpoint and location), or by two checks of different ids on the same exchange and location (a
  // reply missing its `id`: the chat rule's and the description's schema; one status judged by three
  // rules of one request). One group, the test's (a test's, the first seen), naming every id and saying
  // what the other check said. A group that spans endpoints stays its own.
  for (const [key, g] of [...groups.entries()]) {
    if (g.kind === 'not_implemented' || !groups.has(key)) continue;
    const mine = [...(facts.get(key) ?? [])];
    const oneEndpoint = (cases.get(key)?.endpoints.size ?? 0) <= 1;
    let found: [string, FindingGroup & { testSet: Set<string>; also?: string[] }] | undefined;
    for (const [k, o] of groups) {
      // A test's finding joins an earlier one only; an exchange check's joins any.
      if (k === key) {
        if (g.kind === 'finding') break;
        continue;
      }
      if (o.kind !== 'finding' || o.endpoint !== g.endpoint) continue;
      // Or every location it found on the endpoint is one the other found there (each test its own call);
      // or an exchange check found it only in replies to requests the contract refuses, which were let
      // through (an order of 0 accepted, its reply's amount below the minimum): it follows from that.
      const where = [...(places.get(key) ?? [])];
      const seenOn = [...(exchangesOf.get(key) ?? [])];
      const same =
        (g.kind === 'exchange' && o.ids[0] === g.ids[0] && o.pointer === g.pointer) ||
        (oneEndpoint && mine.some((f) => facts.get(k)?.has(f))) ||
        (oneEndpoint && where.length > 0 && where.every((p) => places.get(k)?.has(p))) ||
        (g.kind === 'exchange' &&
          oneEndpoint &&
          cases.get(k)?.head?.wrong === 'accepted' &&
          seenOn.length > 0 &&
          seenOn.every((x) => exchangesOf.get(k)?.has(x)));
      if (same) {
        found = [k, o];
        break;
      }
    }
    if (!found) continue;
    const [ownKey, own] = found;
    if (g.ids.some((id) => !own.ids.includes(id))) {
      for (const id of g.ids) if (!own.ids.includes(id)) own.ids.push(id);
      sayAlso(own, `${g.ids.join(' ')}: ${without(g.cause, g.endpoint)}`, ...(g.also ?? []));
      // Its own words (normalised) join the group's: the same fact on another endpoint folds alike.
      normOf.set(ownKey, `${normOf.get(ownKey) ?? own.cause}\n${normOf.get(key) ?? g.cause}`);
    }
    for (const f of mine) facts.set(ownKey, (facts.get(ownKey) ?? new Set()).add(f));
    for (const p of places.get(key) ?? []) places.set(ownKey, (places.get(ownKey) ?? new Set()).add(p));
    for (const x of exchangesOf.get(key) ?? [])
      exchangesOf.set(ownKey, (exchangesOf.get(ownKey) ?? new Set()).add(x));
    own.count += g.count;
    if (g.severity === 'failure') own.severity = 'failure';
    for (const title of g.tests)
      if (!own.testSet.has(title)) {
        own.testSet.add(title);
        own.tests.push(title);
      }
    groups.delete(key);
  }
  const out = foldRule(foldEndpoints(foldPlaces([...groups.entries()], normOf)));
  // Tests not run because an endpoint answered 404: they point to its `not implemented` group.
  for (const t of tests) {
    const e = t.cause?.endpoint;
    if (t.outcome !== 'not_run' || !e || e.status !== 404) continue;
    const g = out.find(
      (x) => x.kind === 'not_implemented' && x.endpoint === `${e.method} ${pathTemplate(e.path)}`,
    );
    g?.notRun?.push(t.title);
  }
  const rank = (g: FindingGroup) => (g.severity === 'failure' ? 0 : 1);
  return out.sort(
    (a, b) => SECTION[a.kind] - SECTION[b.kind] || rank(a) - rank(b) || b.tests.length - a.tests.length,
  );
}

type Building = FindingGroup & {
  testSet: Set<string>;
  norm?: string;
  /** The other ways its members broke its rule(s), in words, first seen first (shown after the cause). */
  also?: string[];
};

/** Other ways a group's members broke its rule(s), in words: listed after its cause. */
function sayAlso(g: { also?: string[] }, ...ways: string[]): void {
  g.also = [...(g.also ?? []), ...ways];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');

/**
 * Another group's members into `first`: counts, severity, ids, tests (first seen first), other ways.
 * Groups fold by their first id: a group that also names the id of a check that found the same fact
 * (groupFindings) is still its first id's.
 */
function absorb(first: Building, g: Building): void {
  first.count += g.count;
  for (const id of g.ids) if (!first.ids.includes(id)) first.ids.push(id);
  if (g.severity === 'failure') first.severity = 'failure';
  for (const title of g.tests)
    if (!first.testSet.has(title)) {
      first.testSet.add(title);
      first.tests.push(title);
    }
  if (g.also?.length) sayAlso(first, ...g.also);
}

/** A cause said without the endpoint it was found on (`GET /v1/x 200: ...` is `...`). */
const without = (cause: string, endpoint: string | undefined): string =>
  cause.replace(
    // The endpoint as the contract names its parameter (`{job_id}` for the template's `{id}`).
    new RegExp(`^${escapeRegExp(endpoint ?? '').replaceAll('\\{id\\}', '\\{[a-z_]+\\}')}( \\d{3})?:? ?`),
    '',
  );

/**
 * Groups folding by a key: a group joins the first group of its key that names its own (first) id, so
 * a group that also names the id of another check that found the same fact still folds with its own
 * id's groups; two groups that each absorbed a finding of one broad id (RESP-003) do not fold by it.
 */
class Fold<T extends Building> {
  readonly all: T[] = [];
  private readonly byKey = new Map<string, T[]>();
  /** The group `g` joins under `key` (undefined: it stays its own). */
  find(key: string | undefined, g: Building): T | undefined {
    return key === undefined ? undefined : this.byKey.get(key)?.find((b) => b.ids.includes(g.ids[0]!));
  }
  add(key: string | undefined, made: T): void {
    this.all.push(made);
    if (key !== undefined) this.byKey.set(key, [...(this.byKey.get(key) ?? []), made]);
  }
}

/**
 * One requirement broken several ways on one endpoint (a static reply: each of its fields wrong), or
 * several ways with no exchange to place them (a bound checked for ten models), is one group: the first
 * way shown, the others listed. A family's group already spans its places.
 */
function foldPlaces(entries: Array<[string, Building]>, normOf: Map<string, string>): Building[] {
  // Each way by its normalised cause, with the words its first group said (shown, never a template).
  const out = new Fold<Building & { ways: Map<string, string> }>();
  for (const [key, g] of entries) {
    const norm = normOf.get(key);
    // A finding no exchange carries (a sequence's, a description's) has the run as its one place.
    const place =
      norm !== undefined && g.kind !== 'not_implemented'
        ? [g.kind, g.severity, g.endpoint ?? ''].join('\n')
        : undefined;
    const first = out.find(place, g);
    if (!first) {
      out.add(place, {
        ...g,
        ...(norm !== undefined ? { norm } : {}),
        ways: new Map(norm ? [[norm, g.cause]] : []),
      });
      continue;
    }
    absorb(first, g);
    if (first.pointer !== g.pointer) delete first.pointer;
    if (norm !== undefined && !first.ways.has(norm)) {
      first.ways.set(norm, g.cause);
      // The other ways, said without the endpoint they share.
      sayAlso(first, without(g.cause, g.endpoint));
    }
  }
  return out.all.map(({ ways, ...g }) =>
    ways.size <= 1 ? g : { ...g, norm: [...ways.keys()].sort().join('\n') },
  );
}

/**
 * One requirement's one cause on several endpoints is one group (the endpoints listed), so that the
 * console, summary.md and the HTML show the same groups and the same count: the cause as normalised,
 * without its endpoint and status (`GET /v1/x 200: body / must ...` is `body / must ...`). A
 * not-implemented group stays one per endpoint: each endpoint is its own missing piece.
 */
function foldEndpoints(list: Building[]): Building[] {
  const out = new Fold<Building>();
  const unplaced = (g: Building): string => {
    const at = new RegExp(`${escapeRegExp(g.endpoint!)}( \\d{3})?:? ?`, 'g');
    // The contract's names of a path parameter are the template's `{id}` (normaliseMessage); the ways
    // that differ only by the endpoint's status (`GET /v1/x 200: ...`, `GET /v1/x 401: ...`) are one.
    const ways = (g.norm ?? g.cause)
      .replace(/\{[a-z_]+\}/g, '{id}')
      .replace(at, '')
      .split('\n');
    return [...new Set(ways)].sort().join('\n');
  };
  for (const g of list) {
    const key =
      g.endpoint && g.kind !== 'not_implemented' ? [g.kind, g.severity, unplaced(g)].join('\n') : undefined;
    const first = out.find(key, g);
    if (!first) {
      out.add(key, g);
      continue;
    }
    if (first.endpoint) {
      // The words of the first member without its own endpoint (`GET /v1/x/abc 200: `): the group spans several.
      const method = first.endpoint.split(' ')[0]!;
      first.cause = first.cause.replace(new RegExp(`^${method} \\S+( \\d{3})?: `), '');
      first.endpoints = [first.endpoint];
      delete first.endpoint;
    }
    if (first.pointer !== g.pointer) delete first.pointer;
    first.endpoints!.push(g.endpoint!);
    absorb(first, g);
  }
  return out.all;
}

/**
 * A test's rule broken several ways across endpoints, or on an endpoint and where no exchange places it
 * (the same figures compared by a test and by a random sequence), is one group: its first way shown,
 * the others listed with where they were found. Only plain findings fold so (a family, a wrong code or
 * an error shape already spans its places; a not-implemented endpoint and the checks of every exchange
 * stay one group per cause).
 */
function foldRule(list: Building[]): FindingGroup[] {
  const out = new Fold<Building>();
  for (const g of list) {
    const key = g.kind === 'finding' && g.norm !== undefined ? [g.kind, g.severity].join('\n') : undefined;
    const first = out.find(key, g);
    if (!first) {
      out.add(key, g);
      continue;
    }
    const at = (x: Building) => x.endpoints ?? (x.endpoint ? [x.endpoint] : []);
    const endpoints = [...new Set([...at(first), ...at(g)])];
    if (endpoints.length > 1) {
      delete first.endpoint;
      first.endpoints = endpoints;
    } else if (endpoints.length === 1) {
      first.endpoint = endpoints[0]!;
    }
    if (first.pointer !== g.pointer) delete first.pointer;
    // Where the other way was found, unless its words say so.
    const path = g.endpoint?.split('{')[0];
    sayAlso(first, path && !g.cause.includes(path) ? `${g.endpoint}: ${g.cause}` : g.cause);
    absorb(first, g);
  }
  return out.all.map(({ testSet: _, norm: __, also, ...g }) => {
    const others = [...new Set(also ?? [])].filter((a) => a !== g.cause);
    if (others.length === 0) return g;
    const shown = others.slice(0, 3).join('; ');
    return {
      ...g,
      cause: `${g.cause} (also: ${shown}${others.length > 3 ? `; and ${others.length - 3} more` : ''})`,
    };
  });
}

/** The group of a not-run test: its typed cause (kind and subject), else its reason in words. */
export const notRunKey = (t: Pick<TestResultRecord, 'cause' | 'reason'>): string =>
  t.cause ? `${t.cause.kind}\n${t.cause.subject}` : `reason\n${t.reason ?? 'not run'}`;

/**
 * What a not-run group says: the cause's subject where it is the sentence its tests share (an endpoint
 * not implemented, a ground of the points budget, a precondition the target did not meet), else the
 * reason of its first test.
 */
export const notRunLabel = (cause: NotRunCause | undefined, reason: string): string =>
  cause?.kind === 'endpoint' || cause?.kind === 'budget' || cause?.kind === 'precondition'
    ? cause.subject
    : reason;

/** The tests not run, one group per typed cause (kind and subject), else per reason; largest first. */
export function groupNotRun(tests: TestResultRecord[], findings: FindingGroup[]): NotRunGroup[] {
  const groups = new Map<string, NotRunGroup>();
  for (const t of tests) {
    if (t.outcome !== 'not_run' || t.planned) continue;
    const reason = t.reason ?? 'not run';
    const key = notRunKey(t);
    const g = groups.get(key);
    if (g) {
      g.count++;
      continue;
    }
    const e = t.cause?.endpoint;
    const ni = e
      ? findings.find(
          (f) => f.kind === 'not_implemented' && f.endpoint === `${e.method} ${pathTemplate(e.path)}`,
        )
      : undefined;
    groups.set(key, {
      ...(t.cause ? { cause: t.cause } : {}),
      reason,
      count: 1,
      example: t.title,
      ...(ni?.endpoint ? { notImplemented: ni.endpoint } : {}),
    });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}
