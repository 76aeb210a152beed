import { contractPathOf, endpoints } from '../endpoint-table.ts';
import { type HttpResponse, recordNow } from '../http/client.ts';
import { UNAVAILABLE_STATUSES, unavailablePage, type VerdictCase } from '../vocabulary.ts';
import { isPlainObject } from './json.ts';

export interface Finding {
  id: string;
  message: string;
  pointer?: string;
  received?: unknown;
  expected?: unknown;
  /** Overrides the requirement's level (e.g. a notable finding under a failure-level id). */
  level?: 'notable';
  /** The case of a rule one cause breaks in many places (src/report/groups.ts groups them). */
  verdictCase?: VerdictCase;
}

/** ERR-001: every error status carries `{error: {code, message, type}}`, three strings. */
export function apiErrorShape(res: HttpResponse): string[] {
  const problems: string[] = [];
  if (res.json === undefined)
    return [`the body is not JSON (${res.mediaType ?? 'no content-type'}, ${res.body.length} bytes)`];
  if (!isPlainObject(res.json)) return ['the body is not a JSON object'];
  const err = res.json.error;
  if (!isPlainObject(err)) return ['no `error` object'];
  for (const f of ['code', 'message', 'type']) {
    if (typeof err[f] !== 'string')
      problems.push(`error.${f} is ${err[f] === undefined ? 'missing' : typeof err[f]}, expected a string`);
  }
  return problems;
}

/**
 * Whether a text holds any of a list of secrets' values: one look with a pattern of all of them, not one
 * per secret. A list passed again only grows, at its end (a followed log's keys, as they come): its
 * matcher takes the new values as a pattern of their own, and merges its patterns as a binary counter
 * does (two of one size become one of twice the size), so each value is compiled into about log2(n)
 * patterns over the list's life, not into one for every value added after it (15,596 keys arriving one
 * by one made 15,596 patterns of up to 15,596 values), and a text is looked at by at most log2(n) of them.
 */
export class SecretMatcher {
  /** Patterns of consecutive runs of the list, the largest first, and how many values each holds. */
  private readonly levels: Array<{ size: number; pattern: RegExp }> = [];
  /** The values of 4 characters or more by their first 4 (where a pattern matched, which stand there). */
  private byHead = new Map<string, string[]>();
  /** The shorter values, looked for one by one. */
  private short: string[] = [];
  /** Where each value stands in the list (a value may be listed under several labels). */
  private places = new Map<string, number[]>();
  /** How many of the list's values are in the patterns. */
  count = 0;
  /** How many values were compiled into patterns over its life (each merge compiles its values again). */
  compiled = 0;

  constructor(secrets: ReadonlyArray<{ value: string }>) {
    this.extend(secrets);
  }

  /** Take the values added to the list since (its first `count` are unchanged). */
  extend(secrets: ReadonlyArray<{ value: string }>): void {
    if (secrets.length <= this.count) return;
    let size = secrets.length - this.count;
    while (this.levels.length > 0 && this.levels[this.levels.length - 1]!.size <= size)
      size += this.levels.pop()!.size;
    this.levels.push({ size, pattern: patternOf(secrets.slice(secrets.length - size)) });
    for (let i = this.count; i < secrets.length; i++) {
      const { value } = secrets[i]!;
      const listed = this.places.get(value);
      if (listed) {
        listed.push(i);
        continue;
      }
      this.places.set(value, [i]);
      if (value.length < 4) this.short.push(value);
      else {
        const head = value.slice(0, 4);
        const same = this.byHead.get(head);
        if (same) same.push(value);
        else this.byHead.set(head, [value]);
      }
    }
    this.count = secrets.length;
    this.compiled += size;
  }

  /**
   * Every value of the list that stands in `text`. Why not each value looked for in turn: with thousands
   * of keys, a reply that echoes one took 29 ms. The patterns find each place where some value starts
   * (looked for again from the next character, so none is passed over), and only the values that begin
   * with that place's 4 characters are compared there.
   */
  found(text: string): Set<string> {
    const out = new Set<string>();
    for (const v of this.short) if (text.includes(v)) out.add(v);
    for (const { pattern } of this.levels) {
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        for (const v of this.byHead.get(text.slice(m.index, m.index + 4)) ?? [])
          if (text.startsWith(v, m.index)) out.add(v);
        pattern.lastIndex = m.index + 1;
      }
    }
    return out;
  }

  /** Where `value` stands in the list, in order. */
  placesOf(value: string): readonly number[] {
    return this.places.get(value) ?? [];
  }

  /** A matcher of the same values that grows apart from this one (the patterns are shared, unchanged). */
  copy(): SecretMatcher {
    const m = new SecretMatcher([]);
    m.levels.push(...this.levels);
    m.byHead = new Map([...this.byHead].map(([head, values]) => [head, [...values]]));
    m.short = [...this.short];
    m.places = new Map([...this.places].map(([value, at]) => [value, [...at]]));
    m.count = this.count;
    m.compiled = this.compiled;
    return m;
  }
}

/** One pattern of the values, global (`found` starts it at 0 and looks again from each place it matched). */
function patternOf(secrets: ReadonlyArray<{ value: string }>): RegExp {
  return new RegExp(secrets.map((s) => s.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
}

/**
 * The matcher of each list (by identity: it grows with the list), and of each list's values, for a list
 * made again with the same values (each list gets its own copy: one that grows does not grow another).
 */
const byList = new WeakMap<ReadonlyArray<{ value: string }>, SecretMatcher>();
const byValues = new Map<string, SecretMatcher>();
function anyOf(secrets: ReadonlyArray<{ value: string }>): SecretMatcher {
  let m = byList.get(secrets);
  if (m) {
    m.extend(secrets);
    return m;
  }
  const key = JSON.stringify(secrets.map((s) => s.value));
  let same = byValues.get(key);
  if (!same) {
    if (byValues.size >= 64) byValues.clear();
    same = new SecretMatcher(secrets);
    byValues.set(key, same);
  }
  m = same.copy();
  byList.set(secrets, m);
  return m;
}

/**
 * The public paths whose bodies the contract does not show ("Health, status and openapi bodies are not
 * shown"): an error answer there (a degraded /healthz answering 503 with a body of its own, a static
 * /openapi.json refusing POST with an HTML 405) shows no APIError, which is advisory there.
 */
let publicPaths: ReadonlySet<string> | undefined;
function unshownBody(path: string): boolean {
  publicPaths ??= new Set(
    endpoints()
      .filter((e) => e.public)
      .map((e) => e.path),
  );
  return publicPaths.has(path.split('?')[0] ?? path);
}

/** Checks every exchange gets, whatever the test: error shape and server faults. */
export function genericChecks(res: HttpResponse): Finding[] {
  const out: Finding[] = [];
  const where = `${res.method} ${res.exchange.path}`;
  if (res.status >= 400) {
    const problems = apiErrorShape(res);
    if (problems.length > 0) {
      const page = unavailablePage(res);
      out.push({
        id: 'ERR-001',
        ...(page || unshownBody(res.exchange.path) ? { level: 'notable' as const } : {}),
        message: `${where} answered ${res.status} without the APIError shape: ${problems.join('; ')}${page ? " (a proxy's or load balancer's page, as passing as its status: advisory)" : ''}`,
        // The whole body (`""`): the fact a test's own look at the same body finds too (groups.ts).
        pointer: '',
        // A capture's record is made now (recordNow): the preview is the record's, as a live run's.
        received: recordNow(res.exchange).responseBody?.preview ?? `${res.body.length} bytes`,
        expected: '{"error":{"code":"…","message":"…","type":"…"}}',
      });
    }
  }
  if (res.status === 500) {
    out.push({
      id: 'ERR-002',
      message: `${where} answered 500 (a server fault; no known condition maps to 500)`,
      received: 500,
    });
  } else if (UNAVAILABLE_STATUSES.has(res.status)) {
    out.push({
      id: 'ERR-003',
      message: `${where} answered ${res.status}: the model or an upstream was unavailable`,
      received: res.status,
    });
  }
  return out;
}

/** A value no reply may hold: a configured key (its role the label) or a canary the target declares. */
export interface Secret {
  label: string;
  value: string;
  canary?: true;
}

/**
 * SEC-001 on evidence: any configured key value or canary anywhere in a response (headers or body).
 * `secrets` maps a label (role or `canary`) to the value. The message never contains the value.
 */
export function secretLeaks(res: HttpResponse, secrets: Secret[]): Finding[] {
  // One look with the patterns, not one per secret: a reply that holds none (nearly all) is read once,
  // and one that holds some says which.
  const any = anyOf(secrets);
  const inBody = any.found(res.text);
  const inHeaders: Array<[string, Set<string>]> = [];
  for (const [name, v] of Object.entries(res.headers)) {
    const found = any.found(v);
    if (found.size > 0) inHeaders.push([name, found]);
  }
  if (inBody.size === 0 && inHeaders.length === 0) return [];
  // The secrets found, in the list's order (thousands of keys: only the ones found are looked at).
  const listed = new Set<number>();
  for (const found of [inBody, ...inHeaders.map(([, f]) => f)])
    for (const value of found) for (const i of any.placesOf(value)) listed.add(i);
  const out: Finding[] = [];
  const where = `${res.method} ${res.exchange.path}`;
  // A route outside the API (no /v1 path, no public one): the console's ("a newly created key can be
  // viewed again after re-entering the login password"), whose shapes are not shown.
  const console_ = !res.rawPath.startsWith('/v1/') && contractPathOf(res.rawPath) === undefined;
  for (const i of [...listed].sort((a, b) => a - b)) {
    const { label, value, canary } = secrets[i]!;
    // The request itself carried it (a captured client quoting its key in a prompt or a URL): the reply
    // echoes the client's own text, which is worth knowing, not a secret the server gave out. A key on a
    // console route may be the key shown again to its owner: worth knowing too. A canary never is.
    const echoed = res.sentText?.includes(value) || res.rawPath.includes(value);
    const shown = !canary && console_;
    const echo = echoed || shown ? { level: 'notable' as const } : {};
    const because = echoed
      ? " (the request itself carried it: an echo of the client's own text)"
      : shown
        ? ' (a route outside the API: the console may show a key again to its owner)'
        : '';
    for (const [name, found] of inHeaders) {
      if (found.has(value))
        out.push({
          id: 'SEC-001',
          message: `${where}: response header ${name} contains the ${label} secret${because}`,
          ...echo,
        });
    }
    if (inBody.has(value))
      out.push({
        id: 'SEC-001',
        message: `${where}: response body contains the ${label} secret at byte offset ${res.text.indexOf(value)}${because}`,
        ...echo,
      });
  }
  return out;
}
