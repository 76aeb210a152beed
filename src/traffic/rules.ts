/**
 * The contract rules a captured exchange, or a sequence of them, can decide without sending anything.
 * Single exchanges: a request the contract says must be refused that was answered 2xx (a valid request
 * refused is not judged: the capture does not say why). Sequences: an Idempotency-Key replay that
 * returned another result, a job leaving a terminal status, a responses stream without exactly one
 * terminal event, a usage record that states another charge than the billing of the reply it names.
 * Every rule says which exchanges it judged, so the report tells what the capture could
 * not judge at all (not judged, never passed).
 */
import type { Decimal } from 'decimal.js';
import { entryIds, findCatalog, findField, findString, isPlainObject } from '../checks/json.ts';
import { namedModelProblem } from '../checks/model-named.ts';
import { CLIENT_CLOSED } from '../checks/per-exchange.ts';
import {
  type CallCharge,
  callCharge,
  chargeJudgement,
  ExactDecimal,
  entryPrices,
  type Prices,
} from '../checks/points.ts';
import {
  parseSse,
  streamEventProblems,
  streamedModel,
  TERMINAL_EVENTS,
  terminalEventProblems,
} from '../checks/sse.ts';
import { endpointOf } from '../endpoint-table.ts';
import type { HttpResponse } from '../http/client.ts';
import { brokenRequestRules, requestRules } from '../rules/requests.ts';
import { nextPage, statedBeyond } from '../runtime/lists.ts';
import {
  assetIdProblem,
  availableProblem,
  balanceOf,
  chargeChanges,
  chargedOf,
  chargesCompared,
  isProblem,
  isReplaySnapshot,
  type Judged,
  ledgerChainProblem,
  ledgerOf,
  listedRecords,
  recordTokenJudgements,
  statusProblem,
  usageChargeProblem,
  usageChargesOf,
  usageJudgements,
} from '../stateful/invariants.ts';
import type { CapturedExchange } from './capture.ts';
import { Recent } from './recent.ts';

/**
 * What the rules read of a captured exchange: the request, and of the answer its status, headers, media
 * type, text and the facts of its JSON (not its bytes, nor its record but the redacted path). A judging
 * thread hands these over, not the exchange.
 */
export type SequenceExchange = Pick<
  CapturedExchange,
  | 'where'
  | 'startedAt'
  | 'method'
  | 'path'
  | 'origin'
  | 'headers'
  | 'json'
  | 'bodyText'
  | 'who'
  | 'credentialLogged'
  | 'credentialMasked'
  | 'headersUnknown'
  | 'durationMs'
> & {
  res?: Pick<HttpResponse, 'status' | 'headers' | 'mediaType' | 'text' | 'bodyAbsent'> & {
    /** What the rules read of the reply's JSON (replyFacts), where they learn from it. */
    facts?: ReplyFacts;
    exchange: { path: string };
  };
};

/**
 * What the rules read of a reply's JSON, taken out where the reply is read (in whichever thread): a few
 * values, whatever the size of the body (an embedding's vectors, a catalog's models stay where they were
 * parsed).
 */
export interface ReplyFacts {
  /** Of an object reply: the model it names (MODEL-001), its id (replays, USAGE-080, a job's). */
  model?: unknown;
  id?: unknown;
  /** Of an object reply: a job's status and asset (MJOB-025, MASSET-003). */
  status?: unknown;
  asset_id?: unknown;
  /** Whether the reply is a JSON object (a job is read from one only). */
  object: boolean;
  /** Its charge (chargedOf: the first charged_points at any depth, an exact decimal), as written. */
  charged?: string;
  /** A catalog's entry ids (GET /v1/models, /v1/media/models). */
  catalog?: string[];
  /** A text catalog's prices by model id (PTS-007), as written (exact decimals). */
  prices?: Array<{ id: string; request: string; response?: string }>;
  /** A chat or embeddings reply's billing.charged_points, as written, and the counts its prices apply to. */
  charge?: { charged: string; prompt: number; completion: number };
  /** A usage listing's records (GET /v1/usage). */
  records?: Array<Record<string, unknown>>;
  /** A balance's total, held and available points (GET /v1/balance, all three as exact decimals), as written. */
  balance?: { total: string; held: string; available: string };
  /** A text call's usage objects (POST chat, responses, embeddings): where each stands, and it. */
  usages?: Array<{ pointer: string; value: Record<string, unknown> }>;
  /** A ledger listing's entries: amount_points and balance_after_points as written, where exact decimals. */
  ledger?: Array<{ key: string; amount?: string; after?: string }>;
}

/** The facts the rules read of a reply's JSON (`path` bare), or none for a reply that holds no JSON. */
export function replyFacts(
  method: string,
  path: string,
  json: unknown,
  /** Whether the request had a query string. */
  query = false,
  /** The reply's `Link` header, where it has one (a next page named there). */
  link?: string,
): ReplyFacts | undefined {
  if (json === undefined) return undefined;
  const object = isPlainObject(json);
  const facts: ReplyFacts = { object };
  if (object) {
    for (const k of ['model', 'id', 'status', 'asset_id'] as const) if (k in json) facts[k] = json[k];
  }
  // A call's charge (its billing), and a media job's once settled (its charged_points, USAGE-080).
  if (method === 'POST' || (method === 'GET' && JOB_READ.test(path))) {
    const charged = chargedOf(json);
    if (charged) facts.charged = charged.toString();
  }
  // A catalog is learnt from a read of the whole of it: not from one page of several (a next link, a
  // cursor, has_more, a total above its entries), nor from a read with a query (a filter: "Query parameters ... are not shown").
  if (
    method === 'GET' &&
    (path === '/v1/models' || path === '/v1/media/models') &&
    !query &&
    nextPage(json, path, [], undefined, link) === null &&
    statedBeyond(json, findCatalog(json)?.entries.length ?? 0) === undefined
  ) {
    // A reply that holds no list at all is no catalog: nothing learnt (an empty catalog is an empty list).
    const list = findCatalog(json);
    if (list) facts.catalog = list.entries.flatMap(entryIds);
    if (list && path === '/v1/models')
      facts.prices = list.entries.flatMap((e) => {
        const p = entryPrices(e);
        return p
          ? entryIds(e).map((id) => ({
              id,
              request: p.request.toString(),
              ...(p.response ? { response: p.response.toString() } : {}),
            }))
          : [];
      });
  }
  if (method === 'POST') {
    const charge = callCharge(path, json);
    if (charge) facts.charge = { charged: charge.charged.toString(), ...charge.tokens };
  }
  if (method === 'GET' && path === '/v1/usage') facts.records = listedRecords(json);
  if (method === 'POST' && TEXT_CALLS.includes(path)) {
    const usages = findField(json, 'usage').flatMap((u) =>
      isPlainObject(u.value) ? [{ pointer: u.pointer, value: u.value }] : [],
    );
    if (usages.length) facts.usages = usages;
  }
  if (method === 'GET' && path === '/v1/ledger')
    facts.ledger = ledgerOf(json).map((l) => ({
      key: l.key,
      ...(l.amount ? { amount: l.amount.toString() } : {}),
      ...(l.after ? { after: l.after.toString() } : {}),
    }));
  if (method === 'GET' && path === '/v1/balance') {
    const b = balanceOf(json);
    if (b?.held && b.available)
      facts.balance = {
        total: b.total.toString(),
        held: b.held.toString(),
        available: b.available.toString(),
      };
  }
  return facts;
}

/** A read of one media job. */
const JOB_READ = /^\/v1\/media\/jobs\/[^/]+$/;

/** The reads of a GET whose reply the rules learn from: catalogs, usage and ledger listings, a media job, a balance. */
const LEARNED_GET = /^\/v1\/(models|media\/models|usage|ledger|balance|media\/jobs\/[^/]+)$/;

/**
 * The part of an exchange the rules read (TrafficState.judge is given this, in every thread setup): the
 * request's body only for a POST, of the reply its status, media type, X-Request-ID, its text only for
 * an event stream and its JSON only for a POST and the GETs the rules learn from. Why: a judging thread
 * hands this over to the thread of the rules, and the bodies are most of a capture.
 */
export function sequenceView(x: SequenceExchange & { res?: { json?: unknown } }): SequenceExchange {
  const post = x.method === 'POST';
  const res = x.res;
  const requestId = res?.headers['x-request-id'];
  const path = bare(x.path);
  // A body the log does not hold whole (bodyAbsent) tells nothing: the part kept is no reply.
  const facts =
    res?.facts ??
    (res?.bodyAbsent === undefined && (post || (x.method === 'GET' && LEARNED_GET.test(path)))
      ? replyFacts(x.method, path, res?.json, x.path.includes('?'), res?.headers.link)
      : undefined);
  return {
    where: x.where,
    startedAt: x.startedAt,
    method: x.method,
    path: x.path,
    origin: x.origin,
    headers: x.headers,
    ...(post && x.json !== undefined ? { json: x.json } : {}),
    ...(post && x.bodyText !== undefined ? { bodyText: x.bodyText } : {}),
    ...(x.who !== undefined ? { who: x.who } : {}),
    ...(x.credentialLogged ? { credentialLogged: true as const } : {}),
    ...(x.credentialMasked ? { credentialMasked: true as const } : {}),
    ...(x.headersUnknown ? { headersUnknown: true as const } : {}),
    ...(x.durationMs !== undefined ? { durationMs: x.durationMs } : {}),
    ...(res
      ? {
          res: {
            status: res.status,
            headers: requestId === undefined ? {} : { 'x-request-id': requestId },
            ...(res.mediaType !== undefined ? { mediaType: res.mediaType } : {}),
            text: res.mediaType === 'text/event-stream' ? res.text : '',
            ...(res.bodyAbsent !== undefined ? { bodyAbsent: res.bodyAbsent } : {}),
            ...(facts ? { facts } : {}),
            exchange: { path: res.exchange.path },
          },
        }
      : {}),
  };
}

export interface TrafficFinding {
  id: string;
  message: string;
  received?: unknown;
  expected?: unknown;
  level?: 'notable';
}

/** Each id once: the first entry that names it says what a capture must hold. */
function uniqueIds<T extends { id: string }>(rules: T[]): T[] {
  const seen = new Set<string>();
  return rules.filter((r) => !seen.has(r.id) && seen.add(r.id));
}

/** The rules of this file: id and what a capture must hold for the rule to be judged. */
export const TRAFFIC_RULES: ReadonlyArray<{ id: string; needs: string }> = uniqueIds([
  { id: 'AUTH-001', needs: 'a request to a business endpoint without an Authorization header' },
  { id: 'MODELS-004', needs: "a text call naming a model absent from the same key's earlier GET /v1/models" },
  {
    id: 'MJOB-044',
    needs: "a media job naming a model absent from the same key's earlier GET /v1/media/models",
  },
  { id: 'MODEL-001', needs: 'a chat, embedding or responses reply (2xx) naming a model' },
  { id: 'MJOB-020', needs: 'a media job create answered 2xx naming a model' },
  { id: 'MASSET-002', needs: 'an asset download without a key' },
  { id: 'RSP-003', needs: 'a POST /v1/responses with stream true answered 2xx' },
  { id: 'RSP-004', needs: 'a streamed POST /v1/responses reply (2xx, text/event-stream)' },
  { id: 'RSP-005', needs: 'a streamed POST /v1/responses reply with a response.output_text.delta event' },
  { id: 'RSP-006', needs: 'a streamed POST /v1/responses reply (2xx, text/event-stream)' },
  { id: 'IDEM-001', needs: 'a chat or responses request repeated with the same Idempotency-Key and body' },
  { id: 'MJOB-024', needs: 'a media job request repeated with the same Idempotency-Key and body' },
  { id: 'MJOB-025', needs: 'a media job read again after a terminal status' },
  { id: 'PTS-006', needs: 'GET /v1/usage read twice by one key, showing the same record' },
  {
    id: 'PTS-007',
    needs:
      'a chat or embeddings reply with usage and billing.charged_points between two whole GET /v1/models reads by its key that price its model alike',
  },
  {
    id: 'USAGE-080',
    needs:
      'a chat, embedding or responses reply with billing.charged_points, then a GET /v1/usage record naming its X-Request-ID or id',
  },
  { id: 'MASSET-003', needs: 'an asset downloaded with another key than the one whose job named it' },
  {
    id: 'BAL-003',
    needs: 'a GET /v1/balance reply (2xx) with total_points, held_points and available_points',
  },
  {
    id: 'PTS-005',
    needs:
      'a chat, embedding or responses reply (2xx) with a usage object, or a GET /v1/usage reply showing a token count',
  },
  {
    id: 'CHAT-004',
    needs: 'a chat reply (2xx) whose usage has integer prompt_tokens, completion_tokens and total_tokens',
  },
  {
    id: 'LEDGER-002',
    needs: 'a GET /v1/ledger reply (2xx) with two entries stating amount_points and balance_after_points',
  },
  { id: 'MJOB-021', needs: 'a media job reply (2xx) reading succeeded' },
  // The rules of a request body's documented shape (chat, embeddings, media jobs, tickets, payment orders);
  // MJOB-044 is judged by the catalog as well, and is said once, by the entry above.
  ...requestRules(),
]);

const TEXT_CALLS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'];
/**
 * The calls whose replay (the same Idempotency-Key and body) must not execute again: "`Idempotency-Key` is
 * sent on chat, responses, media input upload and media job creation"; judging.md: "Idempotency-Key on
 * embeddings is not listed: do not require replay there".
 */
const REPLAYED_CALLS = ['/v1/chat/completions', '/v1/responses'];
function isBusinessCall(method: string, path: string): boolean {
  const endpoint = endpointOf(method, path);
  return endpoint !== undefined && !endpoint.public;
}

/** A request id shorter than this could be any field's value: not taken as a link to a usage record. */
const MIN_REF_LENGTH = 8;
const ok2xx = (s: number) => s >= 200 && s < 300;
const bare = (path: string) => path.split('?')[0]!;
/** A reply's charge as the rules compare it (its facts keep it as written: a Decimal does not cross threads). */
const chargeOf = (facts: ReplyFacts | undefined) =>
  facts?.charged === undefined ? undefined : new ExactDecimal(facts.charged);

/** A problem found on a captured reply as a finding at `where` (undefined: its message names the place). */
function findingAt(
  p: { id: string; message: string; received?: unknown; expected?: unknown; level?: 'notable' },
  where: string | undefined,
): TrafficFinding {
  return {
    id: p.id,
    message: where === undefined ? p.message : `${where}: ${p.message}`,
    ...(p.received !== undefined ? { received: p.received } : {}),
    ...(p.expected !== undefined ? { expected: p.expected } : {}),
    ...(p.level ? { level: p.level } : {}),
  };
}

/** A live run's invariant on a captured reply: judged where its form showed, a problem a finding at `where`. */
function takeJudged(
  j: Judged,
  where: string | undefined,
  judged: string[],
  findings: TrafficFinding[],
): void {
  if (!j) return;
  judged.push(j.id);
  if (isProblem(j)) findings.push(findingAt(j, where));
}

/** When an exchange ended (ms; NaN where the capture gives no time). */
const endOf = (x: Pick<SequenceExchange, 'startedAt' | 'durationMs'>): number =>
  Date.parse(x.startedAt) + (x.durationMs ?? 0);

/** PTS-007: a priced call waiting for its key's next catalog read. */
interface PendingCharge {
  model: string;
  path: string;
  where: string;
  /** Its model's prices in the key's catalog read before it. */
  before: Prices;
  /** When it ended (NaN: the capture gives no time). */
  endedAt: number;
  charge: CallCharge;
}

/** How many priced calls of one key wait for its next catalog read (a client that reads it rarely). */
const PENDING_CHARGES = 256;

/** A key's catalog as a capture showed it, and when that read ended (NaN: the capture gives no time). */
interface KnownCatalog {
  ids: ReadonlySet<string>;
  endedAt: number;
}

/**
 * How long after a catalog read a call is judged by it: "the catalog is extended over time", so a model
 * added since (or removed) would make an older read say what the account no longer holds.
 */
export const CATALOG_FRESH_MS = 15 * 60_000;

/**
 * The ids of the catalog a call is judged by: the key's last read, if the call started after that read
 * ended and within CATALOG_FRESH_MS of it (file order is no time order: a call made before the read, or
 * one of a capture with no times, is not judged by it).
 */
function freshCatalog(known: KnownCatalog | undefined, x: SequenceExchange): ReadonlySet<string> | undefined {
  if (!known) return undefined;
  const started = Date.parse(x.startedAt);
  return started >= known.endedAt && started - known.endedAt <= CATALOG_FRESH_MS ? known.ids : undefined;
}

/**
 * Where a request's Idempotency-Key is remembered: per credential, path and key (undefined: it has none,
 * or its key is masked: whose request it was, the capture does not say).
 */
function keySlot(x: SequenceExchange): string | undefined {
  const key = x.headers['idempotency-key'];
  return x.method === 'POST' && key && !unknownSender(x)
    ? `${x.who ?? ''}\n${bare(x.path)}\n${key}`
    : undefined;
}

/**
 * A request whose key is masked (`Bearer ****`, capture.ts isMasked) and whose sender the log names by
 * no other id: a key was sent, but every tenant's masked key reads alike, so no sequence follows it.
 */
const unknownSender = (x: SequenceExchange): boolean => x.credentialMasked === true && x.who === undefined;

/** What the capture told so far: catalogs per key, replays, job statuses. */
export class TrafficState {
  /** The time of the exchange judged last (its log time, else the clock): what a window counts by. */
  private now = 0;
  private readonly textCatalog = new Recent<string, KnownCatalog>();
  private readonly mediaCatalog = new Recent<string, KnownCatalog>();
  private readonly firstOfKey = new Recent<
    string,
    { body: string; status: number; id: unknown; where: string }
  >();
  /**
   * Per key and job id (ids are per tenant: their format is not shown): the statuses it showed in turn,
   * when the read judged last started, and the latest end of a read judged (ms; NaN where the capture
   * gives no time).
   */
  private readonly jobs = new Recent<string, { statuses: string[]; at: number; end: number }>();
  /** Per key: usage record id -> charged_points as first read (PTS-006). */
  private readonly usage = new Recent<string, Map<string, string>>();
  /** Asset id -> the key (digest) whose job reply named it. */
  private readonly assetOwner = new Recent<string, string>();
  /**
   * USAGE-080: billable replies not yet met in a usage listing, by what a usage record can name its
   * request by (the reply's X-Request-ID, its body's id): the charge its billing reports and the model.
   */
  private readonly billed = new Recent<
    string,
    { charged: Decimal; model: string; where: string; refs: string[]; source?: string }
  >();
  /** Media jobs already billed (USAGE-080): a job read charged again is not billed again. */
  private readonly billedJobs = new Recent<string, true>();
  /** PTS-007: per key, the prices of its last whole catalog read (GET /v1/models) and when it ended. */
  private readonly textPrices = new Recent<string, { prices: Map<string, Prices>; endedAt: number }>();
  /**
   * PTS-007: per key, its priced calls since that read (at most PENDING_CHARGES), each judged at the key's
   * next catalog read: the prices read just before and again just after the call are its snapshot.
   */
  private readonly pendingCharges = new Recent<string, PendingCharge[]>();

  /**
   * `credentialsRecorded`: some request of the capture carries an Authorization header (not sanitized);
   * a followed log learns it as it goes. `windowMs`: a sequence's state is forgotten this long after its
   * last step (a log followed for days); undefined: kept for the whole capture.
   */
  constructor(
    public credentialsRecorded: boolean,
    private readonly windowMs?: number,
  ) {
    if (windowMs !== undefined) for (const m of this.sequences()) m.track(() => this.now);
  }

  private sequences(): Array<Recent<string, unknown>> {
    return [
      this.textCatalog,
      this.mediaCatalog,
      this.firstOfKey,
      this.jobs,
      this.usage,
      this.assetOwner,
      this.billed,
      this.billedJobs,
      this.textPrices,
      this.pendingCharges,
    ] as Array<Recent<string, unknown>>;
  }

  /** Forget what no step renewed within the window, counted to the time of `x`. */
  private expire(x: SequenceExchange): void {
    if (this.windowMs === undefined) return;
    const at = Date.parse(x.startedAt);
    this.now = Math.max(this.now, Number.isNaN(at) ? Date.now() : at);
    for (const m of this.sequences()) m.expire(this.now - this.windowMs);
  }

  /** The contract rules on one exchange, in capture order: the ids judged and what they found. */
  judge(x: SequenceExchange): { judged: string[]; findings: TrafficFinding[] } {
    const res = x.res;
    if (!res) return { judged: [], findings: [] };
    this.expire(x);
    const judged: string[] = [];
    const findings: TrafficFinding[] = [];
    const path = bare(x.path);
    const where = `${x.method} ${res.exchange.path} (${x.where})`;
    const status = res.status;
    // A 429 is a limit of the target (rate limit or protection): neither an acceptance nor a refusal; a
    // 499 (the client closed the request, nginx's log status) is no answer at all.
    const decided = status !== 429 && status !== CLIENT_CLOSED;
    /** A request the contract says must be refused: judged when answered (not 429), failed when 2xx. */
    const mustRefuse = (id: string, why: string, received?: unknown) => {
      if (!decided) return;
      judged.push(id);
      if (ok2xx(status))
        findings.push({ id, message: `${where}: ${why}, answered ${status} (must be refused)`, received });
    };
    // A request under an Idempotency-Key another body used before may be answered with that body's stored
    // reply (the same key with another body is IDEM-002, not stated): what its reply says is no answer to
    // this body, so no rule judges this request's body against it.
    const slot = keySlot(x);
    const first = slot !== undefined ? this.firstOfKey.get(slot) : undefined;
    const reusedKey = first !== undefined && first.body !== x.bodyText;
    const body = !reusedKey && isPlainObject(x.json) ? x.json : undefined;

    // A sanitized export (browsers drop Authorization and cookies by default) holds no credential at
    // all: a request without one then says nothing of what the client sent. Nor does a log line that kept
    // no request headers (the gateway format's `request_headers` left out), whatever other lines kept.
    if (this.credentialsRecorded && !x.headersUnknown) {
      // A credential the gateway logged was sent, whatever headers its log keeps.
      if (x.headers.authorization === undefined && !x.credentialLogged && isBusinessCall(x.method, path))
        mustRefuse('AUTH-001', 'a business endpoint called without an Authorization header');
      if (
        x.method === 'GET' &&
        /^\/v1\/media\/assets\/[^/]+$/.test(path) &&
        x.who === undefined &&
        !x.credentialMasked
      )
        mustRefuse('MASSET-002', 'an asset downloaded without a key');
    }

    // A body that breaks a rule of its documented shape must be refused (one predicate: src/rules/requests.ts).
    if (body)
      for (const broken of brokenRequestRules(x.method, path, body) ?? [])
        mustRefuse(broken.id, broken.what, broken.received);
    if (x.method === 'POST' && path === '/v1/media/jobs' && body) {
      const catalog = freshCatalog(x.who ? this.mediaCatalog.get(x.who) : undefined, x);
      if (catalog && typeof body.model === 'string' && !catalog.has(body.model))
        mustRefuse(
          'MJOB-044',
          `media model ${JSON.stringify(body.model)} is not in this key's media catalog read earlier in the capture`,
        );
      // MJOB-020: the job a create answers names the model requested ("never substitutes another model").
      const named = res.facts?.model;
      if (ok2xx(status) && typeof body.model === 'string' && named !== undefined) {
        judged.push('MJOB-020');
        if (named !== body.model)
          findings.push({
            id: 'MJOB-020',
            message: `${where}: requested media model ${body.model}, the job names ${JSON.stringify(named)}`,
            received: named,
            expected: body.model,
          });
      }
    }
    if (x.method === 'POST' && TEXT_CALLS.includes(path) && body && typeof body.model === 'string') {
      const catalog = freshCatalog(x.who ? this.textCatalog.get(x.who) : undefined, x);
      if (catalog && !catalog.has(body.model))
        mustRefuse(
          'MODELS-004',
          `model ${JSON.stringify(body.model)} is not in this key's catalog read earlier in the capture`,
        );
      const named = res.facts?.model;
      if (ok2xx(status) && named !== undefined) {
        judged.push('MODEL-001');
        const p = namedModelProblem(body.model, named, 'the reply');
        if (p) findings.push(findingAt(p, where));
      }
    }
    if (
      x.method === 'POST' &&
      path === '/v1/responses' &&
      ok2xx(status) &&
      res.mediaType === 'text/event-stream' &&
      res.bodyAbsent === undefined
    ) {
      // RSP-004 and RSP-005 on its events, RSP-006 on its end: the live run's judgements of a stream. A
      // capture may hold a stream the client closed before its end (a user's Stop; nothing in HAR or a log
      // says so reliably): a stream with no terminal event at all shows no end to judge, and an empty one
      // (a tool that kept no body of a stream) shows nothing, both not judged here. A terminal event that
      // is not the last, or several, are judged: the server sent them.
      const events = parseSse(res.text);
      if (res.text.trim() !== '') {
        const stream = streamEventProblems(events);
        judged.push(...stream.judged);
        for (const p of stream.problems) findings.push(findingAt(p, where));
      }
      // MODEL-001 on the model the stream's end names, as on a reply's body.
      const named = streamedModel(events);
      if (named !== undefined && body && typeof body.model === 'string') {
        judged.push('MODEL-001');
        const p = namedModelProblem(body.model, named, "the stream's end");
        if (p) findings.push(findingAt(p, where));
      }
      if (events.some((e) => TERMINAL_EVENTS.includes(e.event ?? ''))) {
        judged.push('RSP-006');
        for (const p of terminalEventProblems(events))
          findings.push(findingAt({ id: 'RSP-006', ...p }, where));
      }
    }
    // RSP-003: a responses call asking for a stream, answered 2xx, is an event stream. Judged where the
    // capture shows the reply's content type: a log line that kept no response headers does not.
    if (
      x.method === 'POST' &&
      path === '/v1/responses' &&
      body?.stream === true &&
      ok2xx(status) &&
      res.mediaType !== undefined
    ) {
      judged.push('RSP-003');
      if (res.mediaType !== 'text/event-stream')
        findings.push({
          id: 'RSP-003',
          message: `${where}: a responses call with stream true was answered ${status} ${res.mediaType}`,
          received: res.mediaType,
          expected: 'text/event-stream',
        });
    }
    const asset = /^\/v1\/media\/assets\/([^/]+)$/.exec(path)?.[1];
    const owner = asset !== undefined ? this.assetOwner.get(decodeURIComponent(asset)) : undefined;
    if (x.method === 'GET' && owner && x.who && x.who !== owner && decided) {
      judged.push('MASSET-003');
      // Advisory: an enterprise's named keys share one tenant, and the capture does not say whose keys these are.
      if (ok2xx(status))
        findings.push({
          id: 'MASSET-003',
          message: `${where}: an asset served to another key than the one whose job named it (whether both keys are one tenant's, the capture does not say)`,
          level: 'notable',
        });
    }
    if (
      x.method === 'POST' &&
      TEXT_CALLS.includes(path) &&
      ok2xx(status) &&
      typeof body?.model === 'string'
    ) {
      const charged = chargeOf(res.facts);
      const refs = [res.headers['x-request-id'], res.facts?.id].filter(
        (r): r is string => typeof r === 'string' && r.length >= MIN_REF_LENGTH,
      );
      if (charged) {
        const reply = { charged, model: body.model, where: x.where, refs };
        for (const ref of refs) this.billed.set(ref, reply);
      }
    }
    this.replay(x, slot, where, judged, findings);
    // BAL-003 on every balance reply that shows the three figures, as a live run's balance tests judge theirs.
    const balance =
      x.method === 'GET' && path === '/v1/balance' && ok2xx(status) ? res.facts?.balance : undefined;
    if (balance) {
      const p = availableProblem({
        total: new ExactDecimal(balance.total),
        held: new ExactDecimal(balance.held),
        available: new ExactDecimal(balance.available),
      });
      takeJudged(p, where, judged, findings);
    }
    // PTS-005 and CHAT-004 on a text call's usage (integer token counts, total = prompt + completion),
    // PTS-005 on a usage listing's records;
    // LEDGER-002 on a ledger listing (consecutive entries agree in one of the two orders).
    if (ok2xx(status) && res.facts?.usages)
      for (const j of usageJudgements(res.facts.usages, where, path))
        takeJudged(j, undefined, judged, findings);
    if (x.method === 'GET' && path === '/v1/usage' && ok2xx(status) && res.facts?.records)
      for (const j of recordTokenJudgements(res.facts.records)) takeJudged(j, where, judged, findings);
    if (x.method === 'GET' && path === '/v1/ledger' && ok2xx(status) && res.facts?.ledger) {
      const lines = res.facts.ledger.map((l) => ({
        key: l.key,
        ...(l.amount !== undefined ? { amount: new ExactDecimal(l.amount) } : {}),
        ...(l.after !== undefined ? { after: new ExactDecimal(l.after) } : {}),
      }));
      takeJudged(ledgerChainProblem(lines), where, judged, findings);
    }
    this.learn(x, path, where, judged, findings);
    return { judged, findings };
  }

  /** IDEM-001 and MJOB-024: the same key and identical request again. */
  private replay(
    x: SequenceExchange,
    /** Where its Idempotency-Key is remembered (keySlot; undefined: it has none). */
    slot: string | undefined,
    where: string,
    judged: string[],
    findings: TrafficFinding[],
  ): void {
    const res = x.res!;
    const path = bare(x.path);
    const media = path === '/v1/media/jobs';
    // A replay is compared by the replies' bodies: a log without them does not judge one.
    if (
      slot === undefined ||
      !(media || REPLAYED_CALLS.includes(path)) ||
      x.bodyText === undefined ||
      res.bodyAbsent !== undefined
    )
      return;
    const first = this.firstOfKey.get(slot);
    if (!first) {
      if (res.status !== 429 && res.status !== CLIENT_CLOSED)
        this.firstOfKey.set(slot, {
          body: x.bodyText,
          status: res.status,
          id: res.facts?.id,
          where: x.where,
        });
      return;
    }
    // Another body under the same key is IDEM-002 (not stated); a refusal of the replay is allowed.
    if (first.body !== x.bodyText || res.status === 429 || res.status === CLIENT_CLOSED) return;
    const id = media ? 'MJOB-024' : 'IDEM-001';
    judged.push(id);
    if (!ok2xx(first.status) || !ok2xx(res.status)) return;
    const a = first.id;
    const b = res.facts?.id;
    if (a === undefined || b === undefined || a === b) return;
    if (media)
      findings.push({
        id,
        message: `${where}: the same job request under the same Idempotency-Key (first at ${first.where}) created another job`,
        received: b,
        expected: a,
      });
    else {
      // Only a second charge fails (the replay may return the first body or a refusal).
      const charged = chargeOf(res.facts);
      if (charged && !charged.isZero())
        findings.push({
          id,
          message: `${where}: the same request under the same Idempotency-Key (first at ${first.where}) was executed again and charged ${charged.toString()} points`,
          received: b,
          expected: a,
        });
    }
  }

  /**
   * PTS-007 at a key's catalog read (GET /v1/models, whole, ending at `endedAt`): its calls since the read
   * before are judged by both reads' prices (chargeJudgement, the live run's judgement), each that ended
   * before this read started; this read's prices are then the key's. A call with no read after it in the
   * capture, or whose times the capture does not give, is not judged.
   */
  private chargesAfter(
    x: SequenceExchange,
    endedAt: number,
    where: string,
    judged: string[],
    findings: TrafficFinding[],
  ): void {
    const who = x.who!;
    const prices = new Map<string, Prices>();
    for (const p of x.res?.facts?.prices ?? [])
      prices.set(p.id, {
        request: new ExactDecimal(p.request),
        ...(p.response !== undefined ? { response: new ExactDecimal(p.response) } : {}),
      });
    const started = Date.parse(x.startedAt);
    for (const call of this.pendingCharges.get(who) ?? []) {
      if (!(call.endedAt <= started)) continue;
      const j = chargeJudgement(call.path, call.model, call.charge, call.before, prices.get(call.model));
      if ('unjudged' in j) continue;
      judged.push('PTS-007');
      if (j.problem)
        findings.push({
          id: 'PTS-007',
          message: `${call.where}: ${j.problem.message} (the catalog read before it and this one, ${where}, price it alike)`,
          received: j.problem.received,
          expected: j.problem.expected,
        });
    }
    this.pendingCharges.delete(who);
    this.textPrices.set(who, { prices, endedAt });
  }

  /** Catalogs (per key) and job statuses (MJOB-025) as the capture shows them. */
  private learn(
    x: SequenceExchange,
    path: string,
    where: string,
    judged: string[],
    findings: TrafficFinding[],
  ): void {
    const res = x.res!;
    if (!ok2xx(res.status)) return;
    // A catalog is learnt from its body only: a reply whose body a log does not hold says nothing of it.
    if (
      x.method === 'GET' &&
      (path === '/v1/models' || path === '/v1/media/models') &&
      x.who &&
      res.facts?.catalog !== undefined
    ) {
      const ids = new Set(res.facts.catalog);
      const endedAt = endOf(x);
      (path === '/v1/models' ? this.textCatalog : this.mediaCatalog).set(x.who, { ids, endedAt });
      if (path === '/v1/models') this.chargesAfter(x, endedAt, where, judged, findings);
    }
    // PTS-007: a priced call of a key whose catalog was read before it waits for the key's next read. A
    // repeat under an Idempotency-Key the capture showed before is no call of its own: its reply may be
    // the stored one, or say what the repeat itself cost (what a replay's billing says is not shown).
    const charge = res.facts?.charge;
    const body = isPlainObject(x.json) ? x.json : undefined;
    const keyed = keySlot(x);
    const firstOfKey = keyed === undefined ? undefined : this.firstOfKey.get(keyed);
    const keyRepeated = firstOfKey !== undefined && firstOfKey.where !== x.where;
    if (x.method === 'POST' && charge && x.who && typeof body?.model === 'string' && !keyRepeated) {
      const read = this.textPrices.get(x.who);
      const before = read?.prices.get(body.model);
      const started = Date.parse(x.startedAt);
      if (read && before && started >= read.endedAt) {
        const pending = this.pendingCharges.get(x.who) ?? [];
        if (pending.length < PENDING_CHARGES) {
          pending.push({
            model: body.model,
            path,
            where,
            before,
            endedAt: endOf(x),
            charge: {
              charged: new ExactDecimal(charge.charged),
              tokens: { prompt: charge.prompt, completion: charge.completion },
            },
          });
          this.pendingCharges.set(x.who, pending);
        }
      }
    }
    if (x.method === 'GET' && path === '/v1/usage' && x.who) {
      const seen = this.usage.get(x.who) ?? new Map<string, string>();
      const now = usageChargesOf(res.facts?.records);
      if (chargesCompared(seen, now)) {
        judged.push('PTS-006');
        for (const p of chargeChanges(seen, now)) findings.push(findingAt(p, where));
      }
      for (const [id, charged] of now) if (!seen.has(id)) seen.set(id, charged);
      this.usage.set(x.who, seen);
    }
    if (x.method === 'GET' && path === '/v1/usage' && this.billed.size > 0)
      for (const record of res.facts?.records ?? []) {
        // The record of a billable reply the capture holds: it names the reply's request id or id.
        const ref = findString(record, (s) => this.billed.has(s));
        if (ref === undefined) continue;
        const reply = this.billed.get(ref)!;
        for (const r of reply.refs) this.billed.delete(r);
        judged.push('USAGE-080');
        const p = usageChargeProblem(
          [record],
          reply.charged,
          reply.model,
          `${where}, the record of ${ref}`,
          reply.source,
        );
        if (isProblem(p))
          findings.push({
            id: p.id,
            message: `${p.message} (the reply at ${reply.where})`,
            received: p.received,
            expected: p.expected,
          });
      }
    const job = res.facts?.object ? res.facts : undefined;
    const jobRead = x.method === 'GET' && JOB_READ.test(path);
    if (!job || typeof job.id !== 'string' || typeof job.status !== 'string') return;
    if (!(jobRead || (x.method === 'POST' && path === '/v1/media/jobs'))) return;
    const jobKey = `${x.who ?? ''} ${job.id}`;
    const known = this.jobs.get(jobKey) ?? { statuses: [], at: Number.NaN, end: Number.NaN };
    const seen = known.statuses;
    const last = seen.at(-1);
    // A read that started before the last one judged started (files given out of time order, workers' logs
    // merged), or before it ended (polls that overlap: the server may have answered this one first), is
    // not a later step of the job: its status is not judged against what came after it.
    const at = Date.parse(x.startedAt);
    const earlier = at < known.at || at < known.end;
    // A create answering a job already known is a repeat: a status the job showed may be the stored reply.
    // Where no earlier create of its Idempotency-Key is in the capture (the job's create came before it
    // began), the stored reply is of a time the capture does not show: not judged.
    const repeat = !jobRead && seen.length > 0;
    const slot = repeat ? keySlot(x) : undefined;
    const first = slot === undefined ? undefined : this.firstOfKey.get(slot);
    const firstBefore = first !== undefined && first.where !== x.where;
    const replayed = repeat && (!firstBefore || isReplaySnapshot(seen, job.status));
    // A masked key's job: whose job it is (ids are per tenant) the capture does not say; not followed.
    const unknown = unknownSender(x);
    const snapshot = unknown || earlier || replayed;
    if (!snapshot) takeJudged(statusProblem(`job ${job.id}`, seen, job.status), where, judged, findings);
    // MJOB-021: a job reply that reads succeeded names its asset.
    takeJudged(
      assetIdProblem(`job ${job.id}`, { status: job.status, asset_id: job.asset_id }),
      where,
      judged,
      findings,
    );
    if (!snapshot && last !== job.status) seen.push(job.status);
    // USAGE-080 for a media job ("every billable call (chat, responses, embeddings, a media job)" has a
    // record, judging.md): a job read charged is billed once, by its id, as a text call is by its reply's.
    const charged = chargeOf(res.facts);
    if (charged?.isPositive() && typeof job.model === 'string' && !this.billedJobs.has(job.id)) {
      this.billedJobs.set(job.id, true);
      this.billed.set(job.id, {
        charged,
        model: job.model,
        where: x.where,
        refs: [job.id],
        source: "the job's charged_points",
      });
    }
    if (typeof job.asset_id === 'string' && x.who && !this.assetOwner.has(job.asset_id))
      this.assetOwner.set(job.asset_id, x.who);
    if (!unknown) {
      const later = !earlier && !Number.isNaN(at);
      const end = endOf(x);
      this.jobs.set(jobKey, {
        statuses: seen,
        at: later ? at : known.at,
        end: later && !(end <= known.end) ? end : known.end,
      });
    }
  }
}
