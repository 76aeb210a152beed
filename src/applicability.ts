/**
 * The applicability map: for each requirement, the places it applies (endpoints and methods, key roles,
 * currency formats, media models and output kinds, equivalent forms), derived from
 * fixtures/applicability.yaml (which axes a requirement has) and the value sets of fixtures/endpoints.yaml,
 * fixtures/roles.yaml and fixtures/media-models.yaml; and what a run's tests touched (a Touch per
 * request), from which each place is judged or not. The link from a place to its test, its exclusion or
 * its pending reason is data (`links` in the YAML), read by test/unit/applicability.test.ts.
 */
import { catalogue } from './catalogue.ts';
import { templateRegex } from './openapi/document.ts';
import { pkgPath } from './paths.ts';
import { mediaTable } from './rules/media-models.ts';
import { decidedOutcome } from './vocabulary.ts';
import { readYaml } from './yaml-cache.ts';

interface EndpointRow {
  method: string;
  path: string;
  public?: boolean;
  scopes?: string[];
  probe?: { json?: unknown };
}

/** A named endpoint set of the YAML: a list, or `derive` (computed from endpoints.yaml). */
interface EndpointSet {
  quote?: string;
  derive?: 'business' | 'model_calls';
  endpoints?: string[];
}

/** Which axes a requirement has; the places are their product. */
export interface Applies {
  /** A set name of `endpoint_sets`, or a list of `METHOD /path`. */
  endpoints?: string | string[];
  /** Key roles: `restricted` = the roles restricted to one scope, crossed with endpoints by `scope`. */
  roles?: 'restricted' | string[];
  /** With roles `restricted`: the endpoints inside the role's scope (`in`), or only outside it (`out`). */
  scope?: 'in' | 'out';
  formats?: Array<'points' | 'legacy'>;
  /** A form set of `form_sets` (equivalent forms of one request). */
  forms?: string;
  /** Documented media models: all, those taking references, those with a custom size rule. */
  models?: 'all' | 'references' | 'custom_size';
  /** The output kinds the media table states. */
  outputs?: true;
  /** Each place on chat or responses, streamed and not streamed (`stream` true or not). */
  stream?: true;
  /** Checked on every exchange (src/checks/): any judged test that touched a place judged it. */
  every_exchange?: true;
}

/** Where a place is tested, excluded with a reason, or pending (not yet tested, counted and printed). */
export interface Link {
  /** A glob (`*` any characters) over place keys; absent: every place of the requirement. */
  places?: string;
  /** A regular expression over the titles of the tests that cite the requirement. */
  test?: string;
  excluded?: string;
  pending?: string;
}

export interface ApplicabilityEntry {
  applies?: Applies;
  links?: Link[];
  /**
   * The rule's own predicate where the contract states one exactly (`status: [403]` for "an
   * unauthorised model gives 403"): every test that judges the id must assert it, never less (a 403
   * rule judged as "any 4xx" misses a 404). Checked on a run against the reference (test/cli.test.ts).
   */
  predicate?: {
    status: number[];
    quote: string;
    /**
     * Other statuses a reading allows in some tests only (their titles match `tests`, a regular
     * expression): e.g. 401 for a key refused for its scope, where an out-of-scope key "is refused with
     * 403 or 401" (judging.md).
     */
    also?: Array<{ status: number[]; tests: string; quote: string }>;
  };
}

/** A requirement's stated predicate (fixtures/applicability.yaml `predicate`), if it has one. */
export function predicateOf(id: string): ApplicabilityEntry['predicate'] {
  return applicabilityDoc().requirements[id]?.predicate;
}

/**
 * Whether a status expectation a test asserted (expectStatus' label: `403`, `403|404`, `4xx`, `2xx`,
 * `not 401|403`) is at least as strong as the predicate: it accepts no status the predicate refuses.
 */
export function assertsPredicate(
  asserted: string,
  predicate: Pick<NonNullable<ApplicabilityEntry['predicate']>, 'status' | 'also'>,
  /** The title of the test that asserted it (the readings in `also` that apply to it). */
  title = '',
): boolean {
  if (!/^\d{3}(\|\d{3})*$/.test(asserted)) return false;
  const allowed = [
    ...predicate.status,
    ...(predicate.also ?? []).filter((a) => new RegExp(a.tests).test(title)).flatMap((a) => a.status),
  ];
  return asserted.split('|').every((s) => allowed.includes(Number(s)));
}

interface ApplicabilityDoc {
  endpoint_sets: Record<string, EndpointSet>;
  form_sets: Record<string, { quote?: string; forms?: string[]; derive?: string }>;
  restricted_roles: Record<string, string>;
  requirements: Record<string, ApplicabilityEntry>;
}

/** What a place requires of a request for the place to count as judged. */
export interface PlaceSig {
  method?: string;
  path?: string;
  role?: string;
  format?: 'points' | 'legacy';
  model?: string;
  output?: string;
  form?: string;
}

export interface Place {
  key: string;
  sig: PlaceSig;
}

/** The endpoints whose reply is streamed with `stream` true, and the two forms of their requests. */
const STREAMING = ['/v1/chat/completions', '/v1/responses'];
const STREAM_FORMS = ['streamed', 'not streamed'];

/** The one place of a requirement without axes: wherever a test of it looks. */
export const STATED = '(as stated)';

let docCache: ApplicabilityDoc | undefined;
export function applicabilityDoc(): ApplicabilityDoc {
  docCache ??= readYaml(pkgPath('fixtures', 'applicability.yaml')) as ApplicabilityDoc;
  return docCache;
}

let endpointCache: EndpointRow[] | undefined;
function endpointRows(): EndpointRow[] {
  endpointCache ??= (readYaml(pkgPath('fixtures', 'endpoints.yaml')) as { endpoints: EndpointRow[] })
    .endpoints;
  return endpointCache;
}

const labelOf = (e: Pick<EndpointRow, 'method' | 'path'>): string => `${e.method} ${e.path}`;

function endpointByLabel(label: string): EndpointRow {
  const e = endpointRows().find((r) => labelOf(r) === label);
  if (!e)
    throw new Error(`fixtures/applicability.yaml: '${label}' is no endpoint of fixtures/endpoints.yaml`);
  return e;
}

/** The endpoints of a set name or list. */
export function endpointSet(spec: string | string[]): EndpointRow[] {
  if (Array.isArray(spec)) return spec.map(endpointByLabel);
  const set = applicabilityDoc().endpoint_sets[spec];
  if (!set) throw new Error(`fixtures/applicability.yaml: unknown endpoint set '${spec}'`);
  if (set.derive === 'business') return endpointRows().filter((e) => !e.public);
  if (set.derive === 'model_calls')
    return endpointRows().filter((e) => {
      const json = e.probe?.json as { model?: unknown } | undefined;
      return typeof json === 'object' && json !== null && 'model' in json;
    });
  return (set.endpoints ?? []).map(endpointByLabel);
}

/** The forms of a form set: listed, or derived from the media table. */
export function formSet(name: string): string[] {
  const set = applicabilityDoc().form_sets[name];
  if (!set) throw new Error(`fixtures/applicability.yaml: unknown form set '${name}'`);
  const table = mediaTable();
  if (set.derive === 'reference_fields') return [...table.reference_fields];
  if (set.derive === 'size_separators') {
    // The separators: the character class between the two digit runs of the pattern (`[0-9]+[x*][0-9]+`).
    const cls = /\]\+\[([^\]]+)\]/.exec(table.custom_size_pattern)?.[1] ?? '';
    return [...cls].map((c) => `size ${c}`);
  }
  return set.forms ?? [];
}

function mediaModels(filter: NonNullable<Applies['models']>): string[] {
  const models = mediaTable().models;
  return Object.keys(models).filter((id) => {
    const m = models[id]!;
    if (filter === 'references') return m.references.stated && m.references.accepted.length > 0;
    if (filter === 'custom_size') return Object.values(m.parameters).some((p) => p.custom);
    return true;
  });
}

/** The places of one requirement: the product of its axes (or the one stated place). */
export function placesOf(id: string): Place[] {
  const a = applicabilityDoc().requirements[id]?.applies;
  if (!a) return [{ key: STATED, sig: {} }];
  let places: Place[] = [{ key: '', sig: {} }];
  const cross = (values: Array<{ part: string; sig: PlaceSig }>) => {
    places = places.flatMap((p) =>
      values.map((v) => ({ key: p.key ? `${p.key} · ${v.part}` : v.part, sig: { ...p.sig, ...v.sig } })),
    );
  };
  const eps = a.endpoints ? endpointSet(a.endpoints) : undefined;
  if (a.roles) {
    const restricted = applicabilityDoc().restricted_roles;
    const roles = a.roles === 'restricted' ? Object.keys(restricted) : a.roles;
    const pairs: Array<{ part: string; sig: PlaceSig }> = [];
    for (const role of roles) {
      const scope = restricted[role];
      for (const e of eps ?? [{ method: '', path: '' }]) {
        const scopes = (e as EndpointRow).scopes ?? [];
        if (a.scope && scope) {
          // Out: endpoints that belong only to other scopes (one with no scope is no scope's: not probed).
          if (a.scope === 'in' && !scopes.includes(scope)) continue;
          if (a.scope === 'out' && (scopes.length === 0 || scopes.includes(scope))) continue;
        }
        const ep = e.method ? { method: e.method, path: e.path } : {};
        pairs.push({
          part: [e.method && labelOf(e), `role=${role}`].filter(Boolean).join(' · '),
          sig: { ...ep, role },
        });
      }
    }
    cross(pairs);
  } else if (eps) {
    cross(eps.map((e) => ({ part: labelOf(e), sig: { method: e.method, path: e.path } })));
  }
  if (a.stream) {
    // Only the endpoints that stream ("With `stream` true the reply is streamed"): the others stay one place.
    places = places.flatMap((p) =>
      p.sig.path !== undefined && STREAMING.includes(p.sig.path)
        ? STREAM_FORMS.map((f) => ({ key: `${p.key} · form=${f}`, sig: { ...p.sig, form: f } }))
        : [p],
    );
  }
  if (a.models) cross(mediaModels(a.models).map((m) => ({ part: `model=${m}`, sig: { model: m } })));
  if (a.outputs) {
    const kinds = [
      ...new Set(
        Object.values(mediaTable().models)
          .map((m) => m.output)
          .filter((o): o is NonNullable<typeof o> => o !== null),
      ),
    ];
    cross(kinds.map((o) => ({ part: `output=${o}`, sig: { output: o } })));
  }
  if (a.formats) cross(a.formats.map((f) => ({ part: `format=${f}`, sig: { format: f } })));
  if (a.forms) cross(formSet(a.forms).map((f) => ({ part: `form=${f}`, sig: { form: f } })));
  return places;
}

/** Whether a glob (`*` any characters) matches a place key. */
export function globMatches(glob: string | undefined, key: string): boolean {
  if (glob === undefined) return true;
  const re = new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(key);
}

// ------------------------------------------------------------------ what a run touched

/** One request of a test, as the places see it (summary.json `tests[].touches`). */
export interface Touch {
  method: string;
  /** The endpoint template the path matches (`/v1/media/jobs/{job_id}`), else the path without query. */
  path: string;
  /** The key role it authenticated as (`none`: no key). */
  role: string;
  format: 'points' | 'legacy';
  model?: string;
  forms?: string[];
}

const LEGACY_MEDIA_TYPE = 'application/vnd.service.currency.v1+json';
const UPLOADS = '/v1/media/inputs';
const STREAM_END = /^event:\s*(response\.(?:completed|incomplete|failed))\s*$/gm;

/** The touch of one request and its answer, computed once where the request is sent. */
export function touchOf(req: {
  method: string;
  path: string;
  role: string;
  headers?: Record<string, string>;
  json?: unknown;
  responseText?: string;
  responseType?: string;
}): Touch {
  const bare = req.path.split('?')[0] ?? req.path;
  const template = endpointRows().find(
    (e) => e.method === req.method && templateRegex(e.path).test(bare),
  )?.path;
  const accept = Object.entries(req.headers ?? {}).find(([h]) => h.toLowerCase() === 'accept')?.[1] ?? '';
  const touch: Touch = {
    method: req.method,
    path: template ?? bare,
    role: req.role,
    format: accept.includes(LEGACY_MEDIA_TYPE) ? 'legacy' : 'points',
  };
  // An upload's form is its declared type (its body is the file's bytes, no JSON).
  if (req.method === 'POST' && touch.path === UPLOADS) {
    const type = Object.entries(req.headers ?? {}).find(([h]) => h.toLowerCase() === 'content-type')?.[1];
    if (type) touch.forms = [`upload ${type.split(';')[0]!.trim().toLowerCase()}`];
    return touch;
  }
  const json = req.json as Record<string, unknown> | undefined;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return touch;
  if (typeof json.model === 'string') touch.model = json.model;
  const forms: string[] = [];
  const params = json.parameters as Record<string, unknown> | undefined;
  if (typeof params === 'object' && params !== null) {
    for (const f of mediaTable().reference_fields) if (f in params) forms.push(f);
    const size = params.size;
    if (typeof size === 'string') {
      const sep = /^[0-9]+([x*])[0-9]+$/.exec(size)?.[1];
      if (sep) forms.push(`size ${sep}`);
    }
  }
  if (req.method === 'POST' && STREAMING.includes(touch.path))
    forms.push(json.stream === true ? 'streamed' : 'not streamed');
  if (req.responseType === 'text/event-stream' && req.responseText)
    for (const m of req.responseText.matchAll(STREAM_END)) forms.push(`outcome ${m[1]}`);
  if (forms.length) touch.forms = [...new Set(forms)];
  return touch;
}

/** Whether a touch is in a place. */
export function touchIn(t: Touch, sig: PlaceSig): boolean {
  if (sig.method !== undefined && t.method !== sig.method) return false;
  if (sig.path !== undefined && t.path !== sig.path) return false;
  if (sig.role !== undefined && t.role !== sig.role) return false;
  if (sig.format !== undefined && t.format !== sig.format) return false;
  if (sig.model !== undefined && t.model !== sig.model) return false;
  if (
    sig.output !== undefined &&
    (t.model === undefined || mediaTable().models[t.model]?.output !== sig.output)
  )
    return false;
  if (sig.form !== undefined && !t.forms?.includes(sig.form)) return false;
  return true;
}

// ------------------------------------------------------------------ links: test, exclusion, pending

export type PlaceStatus =
  | { kind: 'tested'; test: string }
  | { kind: 'excluded'; reason: string }
  | { kind: 'pending'; reason: string }
  | { kind: 'uncovered' };

/**
 * How a place is covered, order-independent: a `test` link whose pattern `hasTest` finds, else an
 * exclusion, else a pending reason, else uncovered. `hasTest` answers for a pattern whether a test of the
 * requirement matches it (a static scan of the suites, tools/applicability.ts).
 */
export function placeStatus(id: string, place: Place, hasTest?: (pattern: string) => boolean): PlaceStatus {
  const r = catalogue().get(id);
  if (r && !r.testable) return { kind: 'excluded', reason: r.why ?? 'not testable' };
  const links = (applicabilityDoc().requirements[id]?.links ?? []).filter((l) =>
    globMatches(l.places, place.key),
  );
  const tested = links.find((l) => l.test !== undefined && (hasTest?.(l.test) ?? true));
  if (tested?.test !== undefined) return { kind: 'tested', test: tested.test };
  const excluded = links.find((l) => l.excluded);
  if (excluded?.excluded) return { kind: 'excluded', reason: excluded.excluded };
  const pending = links.find((l) => l.pending);
  if (pending?.pending) return { kind: 'pending', reason: pending.pending };
  return { kind: 'uncovered' };
}

/** What a run says of a requirement's places (summary.json `requirements[id].places`). */
export interface PlacesJudged {
  /** The places the requirement applies, less those excluded with a reason. */
  applicable: number;
  /** Places a judged citing test sent a request in: the run looked there. */
  aimed: number;
  /** Places where a judgement of the requirement was made on an answer there (observed): judged. */
  judged: number;
  /** The keys of the applicable places not judged (aimed at or not). */
  unjudged: string[];
  /** Of those, the keys aimed at but never observed: the run looked, the target never showed the form. */
  aimedOnly?: string[];
}

/** A test as the places see it: its ids, outcome, touches and what it observed (TestRecord). */
interface PlaceTest {
  ids: readonly string[];
  outcome: string;
  touches?: Touch[];
  observed?: Record<string, number[]>;
}

/**
 * A place is aimed at in a run when a test that cites the requirement (any test, for a rule checked on
 * every exchange) was judged (not `not_run`, not a harness error) and sent a request in the place; it is
 * judged when a decided test observed the requirement (TestRecord.observed) on an answer in the place
 * (an observation that names no answer counts at every place the test touched). The one stated place of
 * a requirement without axes is aimed at by any judged citing test and judged by any observation.
 */
export function placesJudged(id: string, tests: readonly PlaceTest[]): PlacesJudged {
  const everyExchange = applicabilityDoc().requirements[id]?.applies?.every_exchange === true;
  const aimedBy = tests.filter(
    (t) => t.outcome !== 'not_run' && t.outcome !== 'harness_error' && (everyExchange || t.ids.includes(id)),
  );
  const seenAt: Touch[] = [];
  // An answer read for the model, output or form of a request made earlier (a job read, an asset, the
  // delete of an input a job holds) carries none of them: its test's requests that do speak for it.
  const inherited: Touch[] = [];
  let seen = false;
  for (const t of tests) {
    const at = t.observed?.[id];
    if (!at || !decidedOutcome(t.outcome)) continue;
    seen = true;
    const touches = t.touches ?? [];
    const named = at.length ? at.map((i) => touches[i]).filter((x): x is Touch => !!x) : touches;
    seenAt.push(...named);
    if (named.some((x) => x.model === undefined && !x.forms?.length)) inherited.push(...touches);
  }
  const places = placesOf(id).filter((p) => placeStatus(id, p).kind !== 'excluded');
  const isAimed = (p: (typeof places)[number]) =>
    p.key === STATED ? aimedBy.length > 0 : aimedBy.some((t) => t.touches?.some((x) => touchIn(x, p.sig)));
  const bySubject = (sig: PlaceSig) =>
    sig.model !== undefined || sig.output !== undefined || sig.form !== undefined;
  const isJudged = (p: (typeof places)[number]) =>
    p.key === STATED
      ? seen
      : seenAt.some((x) => touchIn(x, p.sig)) ||
        (bySubject(p.sig) && inherited.some((x) => touchIn(x, p.sig)));
  const unjudged = places.filter((p) => !isJudged(p));
  const aimedOnly = unjudged.filter(isAimed).map((p) => p.key);
  return {
    applicable: places.length,
    aimed: places.filter(isAimed).length,
    judged: places.length - unjudged.length,
    unjudged: unjudged.map((p) => p.key),
    ...(aimedOnly.length ? { aimedOnly } : {}),
  };
}
