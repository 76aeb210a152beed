/**
 * What a capture's entries tell before any is judged (check-traffic's first pass, judge.ts readCapture,
 * and a followed log as it grows): the credentials to redact, the keys the deployment accepted, whether
 * requests carry Authorization, the origins, the capture's own description. Learnt in the reading thread,
 * or in judging threads on batches of entries (Learning), whose findings the reading thread adds in
 * capture order (addLearnt): the same credentials in the same order, the same keys, origins and
 * description, either way.
 */

import { contractPathOf } from '../endpoint-table.ts';
import { type Redactor, Registrations } from '../http/redact.ts';
import { harHeaders, originOf, pathOf, registerCredentials } from './capture.ts';
import { type HarItem, parseEntry } from './har-stream.ts';

/** The capture's own description is kept only up to this size (it is read into memory). */
export const MAX_DESCRIPTION_BYTES = 16 * 1024 * 1024;

/** What the entries read so far told (judge.ts CaptureFacts holds it). */
export interface Learned {
  /**
   * The capture's own descriptions: the body of the first GET /openapi.json 200 of each origin ('' for a
   * request with no host), in capture order. The one used is the first of an origin judged (apiOrigins).
   */
  descriptions: Map<string, string>;
  /** The keys the deployment accepted (a 2xx with it): no reply may hold them (SEC-001). */
  keys: Set<string>;
  /** Whether the capture's requests carry an Authorization header at all (rules.ts judges auth then). */
  authorized: boolean;
  /** The origins the capture's requests went to (the summary's target). */
  hosts: Set<string>;
  /** The origins that carried a request to a business path of the contract's table (`/v1/...`). */
  apiHosts: Set<string>;
  /** The origins that carried a request to a public path of the contract's table (`/openapi.json`, `/healthz`, `/status`). */
  publicHosts: Set<string>;
}

/** Nothing learnt yet: where a capture's first pass (or a followed log) starts. */
export const nothingLearned = (): Learned => ({
  keys: new Set(),
  authorized: false,
  hosts: new Set(),
  apiHosts: new Set(),
  publicHosts: new Set(),
  descriptions: new Map(),
});

/**
 * The origins of the API (check-traffic judges only their exchanges; one with no host is always judged):
 * those that carried a business path of the contract (`/v1/...`), else those that carried one of its
 * public paths (`/openapi.json`, `/healthz`, `/status`). Undefined (every origin judged) when no origin
 * carried a path of the contract, or the capture names none. Why: a browser's or a proxy's capture holds
 * the page, its CDN and other services beside the API; the contract speaks of the API's answers only.
 */
export function apiOrigins(facts: Learned): ReadonlySet<string> | undefined {
  if (facts.apiHosts.size > 0) return facts.apiHosts;
  if (facts.publicHosts.size > 0) return facts.publicHosts;
  return undefined;
}

/** The capture's own description: the first GET /openapi.json 200 of an origin judged, or of no origin. */
export function capturedDescription(facts: Learned): string | undefined {
  const origins = apiOrigins(facts);
  for (const [origin, text] of facts.descriptions)
    if (!origins || origin === '' || origins.has(origin)) return text;
  return undefined;
}

/**
 * What one entry tells before any is judged: its credentials (registered: with a redactor, or only noted), the keys
 * the deployment accepted, whether requests carry Authorization, its host, the capture's description.
 * Returns the accepted keys it added to `facts.keys` (a followed log's list of secrets grows by them).
 */
export function learnEntry(facts: Learned, value: unknown, registered: Registrations): string[] {
  // Every credential is redacted; only a key the deployment accepted (a 2xx with it) is a secret no
  // reply may hold (SEC-001): an echo of a wrong key the client sent is no leak of a key.
  const sent = registerCredentials(value, registered);
  const status = (value as { response?: { status?: unknown } })?.response?.status;
  const added: string[] = [];
  if (typeof status === 'number' && status >= 200 && status < 300)
    for (const k of sent)
      if (!facts.keys.has(k)) {
        facts.keys.add(k);
        added.push(k);
      }
  if (!facts.authorized && (value as { request?: { headers?: unknown } })?.request?.headers)
    facts.authorized =
      'authorization' in harHeaders((value as { request: { headers: unknown } }).request.headers);
  const e = value as {
    request?: { url?: unknown; method?: unknown };
    response?: { status?: unknown; content?: { text?: unknown; encoding?: unknown } };
  };
  const url = typeof e?.request?.url === 'string' ? e.request.url : '';
  // A relative url names no host ('').
  const origin = originOf(url);
  if (origin !== '') {
    facts.hosts.add(origin);
    const kind = contractPathOf(pathOf(url));
    if (kind === 'business') facts.apiHosts.add(origin);
    else if (kind === 'public') facts.publicHosts.add(origin);
  }
  if (
    !facts.descriptions.has(origin) &&
    ownDescription(value) &&
    typeof e.response?.content?.text === 'string' &&
    e.response.content.text.length <= MAX_DESCRIPTION_BYTES
  )
    facts.descriptions.set(
      origin,
      e.response.content.encoding === 'base64'
        ? Buffer.from(e.response.content.text, 'base64').toString('utf8')
        : e.response.content.text,
    );
  return added;
}

/**
 * An entry as the first pass reads it, in whichever thread: its text without the long bodies, parsed;
 * but the capture's own description, the one body the pass needs, read whole (`whole`, given where the
 * text was cut) while none of its origin is known yet (`described`).
 */
export function parseToLearn(
  file: string,
  index: number,
  text: string,
  whole: (() => string) | undefined,
  described: (origin: string) => boolean,
): Exclude<HarItem, { kind: 'text' }> {
  const parsed = parseEntry(file, index, text);
  return parsed.kind === 'entry' &&
    whole &&
    ownDescription(parsed.value) &&
    !described(originOf((parsed.value as { request: { url: string } }).request.url))
    ? parseEntry(file, index, whole())
    : parsed;
}

/** Whether an entry is the capture's own description: a GET /openapi.json answered 200. */
export function ownDescription(value: unknown): boolean {
  const e = value as { request?: { url?: unknown; method?: unknown }; response?: { status?: unknown } };
  return (
    e?.request?.method === 'GET' &&
    typeof e.request.url === 'string' &&
    /^(?:[a-z]+:\/\/[^/]+)?\/openapi\.json(?:\?|$)/i.test(e.request.url) &&
    e.response?.status === 200
  );
}

/**
 * What a batch of entries told a judging thread that it had not told before, in the order first met: the
 * credentials registered, the accepted keys, the origins (those of the contract's paths apart); whether a
 * request carried Authorization; each origin's description, the first time the thread met one; how many
 * entries it read.
 */
export interface Learnt {
  registrations: Array<[string, string]>;
  keys: string[];
  hosts: string[];
  apiHosts: string[];
  publicHosts: string[];
  authorized: boolean;
  descriptions: Array<[string, string]>;
  entries: number;
}

/** A set that notes what is new to it, in order, until taken (Learning: each batch's news, not the whole set). */
class Noted extends Set<string> {
  readonly news: string[] = [];
  override add(value: string): this {
    if (!this.has(value)) this.news.push(value);
    return super.add(value);
  }
}

/**
 * A judging thread's learning: learnEntry on its own registrations and facts, each batch's news taken once
 * (take). Why only news: a value a thread met in an earlier batch was added by the reading thread when
 * that batch was, before any later batch; so the reading thread, adding each batch's news in capture
 * order, registers every value where the capture first shows it, as one thread learning alone does.
 */
export class Learning {
  // What it registers is only handed over (take): no redaction tables of its own (Registrations, not a
  // Redactor), which cost about 0.1 ms a key; the reading thread and each judging thread build theirs.
  private readonly registered = new Registrations();
  private readonly keys = new Noted();
  private readonly hosts = new Noted();
  private readonly apiHosts = new Noted();
  private readonly publicHosts = new Noted();
  private readonly facts: Learned = {
    keys: this.keys,
    authorized: false,
    hosts: this.hosts,
    apiHosts: this.apiHosts,
    publicHosts: this.publicHosts,
    descriptions: new Map(),
  };
  private told = { registrations: 0, descriptions: 0 };
  private entries = 0;

  /** Whether this thread has met a description of the origin (another is then not read whole). */
  readonly described = (origin: string): boolean => this.facts.descriptions.has(origin);

  learn(value: unknown): void {
    this.entries++;
    learnEntry(this.facts, value, this.registered);
  }

  take(): Learnt {
    const registrations = this.registered.registrations(this.told.registrations);
    const keys = this.keys.news.splice(0);
    const hosts = this.hosts.news.splice(0);
    const descriptions = [...this.facts.descriptions].slice(this.told.descriptions);
    const out: Learnt = {
      registrations,
      keys,
      hosts,
      apiHosts: this.apiHosts.news.splice(0),
      publicHosts: this.publicHosts.news.splice(0),
      authorized: this.facts.authorized,
      descriptions,
      entries: this.entries,
    };
    this.told = {
      registrations: this.told.registrations + registrations.length,
      descriptions: this.told.descriptions + descriptions.length,
    };
    this.entries = 0;
    return out;
  }
}

/** A batch's news added to what the reading thread learnt (batches in capture order). Returns its entries. */
export function addLearnt(facts: Learned, l: Learnt, redactor: Redactor): number {
  for (const [value, label] of l.registrations) redactor.register(value, label);
  for (const k of l.keys) facts.keys.add(k);
  for (const h of l.hosts) facts.hosts.add(h);
  for (const h of l.apiHosts) facts.apiHosts.add(h);
  for (const h of l.publicHosts) facts.publicHosts.add(h);
  facts.authorized ||= l.authorized;
  for (const [origin, text] of l.descriptions)
    if (!facts.descriptions.has(origin)) facts.descriptions.set(origin, text);
  return l.entries;
}
