import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Secret } from '../checks/exchange.ts';
import { capabilityWords, entryIds, findCatalog, ID_FIELDS, isPlainObject } from '../checks/json.ts';
import { keysFromEnv } from '../config/env.ts';
import type { Exchange } from '../http/client.ts';
import { Redactor } from '../http/redact.ts';
import { targetClient } from '../http/target-client.ts';
import { ExchangeLog } from '../layout.ts';
import { documentedFallback, type ResponseSource, responseSource } from '../openapi/fallback.ts';
import { LiveDescription } from '../openapi/live.ts';
import { type ForbiddenHint, type Hint, isForbiddenHint, type Role } from '../vocabulary.ts';
import { RequestGate } from './gate.ts';
import { concurrencyPlan, type RunConfig, runConfig } from './run-config.ts';

/** Per-worker state shared by the tests of one worker: secrets, redactor, the compiled description. */
export interface WorkerState {
  run: RunConfig;
  keys: Partial<Record<Role, string>>;
  redactor: Redactor;
  /** Values that must never appear in a response (SEC-001), with a label for messages. */
  secrets: Secret[];
  live?: LiveDescription;
  /** This worker's share of the target's concurrency: the requests of its tests in flight at once. */
  gate: RequestGate;
  /** Checks every response against the live description, or the documented schemas when it is unusable. */
  responses: ResponseSource;
  record(exchange: Exchange): void;
}

let state: WorkerState | undefined;

export function worker(): WorkerState {
  if (state) return state;
  const run = runConfig();
  const keys = keysFromEnv(run.target.keys);
  const redactor = new Redactor(keys);
  const secrets = [
    ...Object.entries(keys).map(([label, value]) => ({ label: `${label} key`, value: value as string })),
    ...run.target.canaries.map((value, i) => ({ label: `canary #${i + 1}`, value, canary: true as const })),
  ];
  let live: LiveDescription | undefined;
  if (run.openapi && responseSource(run.openapi) === 'live') {
    live = new LiveDescription(JSON.parse(readFileSync(run.openapi.file, 'utf8')) as Record<string, unknown>);
  }
  const exchanges = new ExchangeLog(run.exchangesFile);
  const s: WorkerState = {
    run,
    keys,
    redactor,
    secrets,
    gate: new RequestGate(concurrencyPlan(run.target, availableParallelism(), run.workers).slots),
    responses: live ?? documentedFallback(run.openapi),
    record(exchange) {
      exchanges.append(exchange);
    },
  };
  if (live) s.live = live;
  state = s;
  return s;
}

const HINT_WORDS: Record<Exclude<Hint, ForbiddenHint>, RegExp> = {
  chat: /chat/i,
  embedding: /embed/i,
  responses: /responses/i,
  no_responses: /chat/i,
};

let discovered: Promise<Partial<Record<Hint, string>>> | undefined;
/** What the discovery saw of the catalog, to say why a hint was not found (see undiscovered). */
let catalogSeen: { listed: string[] } | { failure: string } = { failure: 'the catalog was not read' };

/** Why hint `h` could not be discovered from the primary catalog (after discoverHints resolved). */
export function undiscovered(h: Hint): string {
  if (isForbiddenHint(h))
    return 'a forbidden model can never be discovered (it is one the catalog does not list)';
  const word =
    h === 'no_responses' ? "'chat' without 'responses'" : `'${HINT_WORDS[h].source.replace(/\\/g, '')}'`;
  if ('failure' in catalogSeen) return catalogSeen.failure;
  const ids = catalogSeen.listed;
  return `the catalog lists ${ids.length} model(s)${ids.length ? ` (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''})` : ''} but no entry names ${word} in its fields (e.g. capabilities)`;
}

/**
 * The hints a catalog's entries give: for each, the first entry whose capability words (capabilityWords)
 * name it, by that entry's id (the first of the usual id fields). `no_responses` is a chat model whose
 * words do not name responses.
 */
export function catalogHints(entries: readonly unknown[]): Partial<Record<Hint, string>> {
  const out: Partial<Record<Hint, string>> = {};
  for (const entry of entries) {
    if (!isPlainObject(entry)) continue;
    const idField = ID_FIELDS.find((f) => typeof entry[f] === 'string');
    if (!idField) continue;
    const id = entry[idField] as string;
    const caps = capabilityWords(entry, idField).join(' ');
    for (const [hint, re] of Object.entries(HINT_WORDS) as Array<[Hint, RegExp]>) {
      if (out[hint]) continue;
      if (hint === 'no_responses' ? re.test(caps) && !/responses/i.test(caps) : re.test(caps)) out[hint] = id;
    }
  }
  return out;
}

/**
 * Model hints the target config does not give, discovered once per worker from the primary key's
 * catalog (catalogHints). `forbidden` can never be discovered (an id that is *not* listed).
 */
export function discoverHints(): Promise<Partial<Record<Hint, string>>> {
  discovered ??= (async () => {
    const w = worker();
    const primary = w.keys.primary;
    if (!primary) return {};
    const client = targetClient(w.run.target, w.redactor);
    try {
      const res = await client.send({
        method: 'GET',
        path: '/v1/models',
        headers: { authorization: `Bearer ${primary}` },
      });
      const list = findCatalog(res.json);
      const ids = (list?.entries ?? []).flatMap(entryIds);
      catalogSeen =
        res.status >= 300
          ? { failure: `GET /v1/models answered ${res.status}` }
          : list
            ? { listed: ids }
            : { failure: `GET /v1/models answered ${res.status} without a list of models` };
      return catalogHints(list?.entries ?? []);
    } catch (err) {
      catalogSeen = { failure: `GET /v1/models failed: ${err instanceof Error ? err.message : String(err)}` };
      return {};
    }
  })();
  return discovered;
}
