// Bearer-key authentication, key state (revoked, expired, IP allowlist) and scopes. Runs as an
// onRequest hook, so it always precedes body parsing and validation.
import type { BlockList } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pathOf, type RefContext } from './context.ts';
import { sendError } from './errors.ts';
import { endpointOf, type KeyCheck, scopeDecision, servesKeyless, skipsKeyCheck } from './patch.ts';
import { isVariant } from './reach.ts';
import type { ApiKey, Scope } from './state.ts';

const SCOPE_PREFIXES: [string, Scope][] = [
  ['/v1/models', 'models'],
  ['/v1/balance', 'balance'],
  ['/v1/usage', 'usage'],
  ['/v1/ledger', 'usage'],
  ['/v1/chat/', 'inference'],
  ['/v1/responses', 'inference'],
  ['/v1/embeddings', 'inference'],
  ['/v1/media/', 'media'],
  ['/v1/support/', 'support'],
];

/** The scope a path needs; null when no restricted key may call it (the deprecated payment API). */
export function scopeFor(path: string): Scope | null {
  return SCOPE_PREFIXES.find(([prefix]) => path.startsWith(prefix))?.[1] ?? null;
}

export function isBusinessPath(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

type Outcome =
  | { key: ApiKey }
  | { error: 'invalid_api_key' | 'key_expired' | 'ip_not_allowed'; message: string };

export function authenticate(ctx: RefContext, request: FastifyRequest): Outcome {
  // A patch's key check skipped on this endpoint (reference/patch.ts).
  const endpoint = endpointOf(request);
  const skips = (check: KeyCheck) => skipsKeyCheck(ctx, endpoint, check);
  const tokens = candidates(ctx, request, skips('scheme'));
  const key =
    tokens.map((token) => lookup(ctx, token, skips('exact'))).find((k) => k !== undefined) ??
    (tokens.length > 0 && skips('unknown')
      ? ctx.state.keys.get(ctx.state.roleKeys.primary ?? '')
      : undefined);
  // Faults auth-missing-403 and auth-unknown-key-403: no key, or a Bearer token that is no key, refused 403, not 401.
  if (!key && tokens.length === 0 && ctx.fault === 'auth-missing-403')
    return { error: 'ip_not_allowed', message: 'A key is required.' };
  if (!key && tokens.length > 0 && ctx.fault === 'auth-unknown-key-403')
    return { error: 'ip_not_allowed', message: 'This key may not call the API.' };
  if (!key) return { error: 'invalid_api_key', message: 'Missing or invalid API key.' };
  if (key.revoked && ctx.fault !== 'auth-revoked-accepted' && !skips('revoked')) {
    return { error: 'invalid_api_key', message: 'This API key has been revoked.' };
  }
  const expired = key.expiresAt !== undefined && key.expiresAt <= Date.now();
  if (expired && ctx.fault !== 'auth-expired-accepted' && !skips('expiry')) {
    return { error: 'key_expired', message: 'This API key has expired.' };
  }
  const blocked = key.allowlist && !allowed(key.allowlist, request.ip);
  if (blocked && ctx.fault !== 'ip-allowlist-ignored' && !skips('allowlist')) {
    return { error: 'ip_not_allowed', message: 'The caller address is not in the allowlist of this key.' };
  }
  return { key };
}

/** Token strings to try, in order: the header, then what faults wrongly accept. */
function candidates(ctx: RefContext, request: FastifyRequest, anyScheme: boolean): string[] {
  const tokens: string[] = [];
  // Fault balance-key-header: the balance route reads its own header, X-API-Key, and ignores the Bearer one.
  if (ctx.fault === 'balance-key-header' && pathOf(request.url) === '/v1/balance') {
    const own = request.headers['x-api-key'];
    return typeof own === 'string' ? [own] : [];
  }
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    // "header must be exactly Bearer plus key"
    const exact = /^Bearer (\S+)$/.exec(header);
    const lax = ctx.fault === 'auth-scheme-lax' || anyScheme ? /^\S+ +(\S+)\s*$/.exec(header) : null;
    const token = exact?.[1] ?? lax?.[1];
    if (token) tokens.push(token);
  }
  // Fault auth-key-header: the key is read from X-API-Key when no Authorization header is sent.
  if (ctx.fault === 'auth-key-header' && typeof header !== 'string') {
    const own = request.headers['x-api-key'];
    if (typeof own === 'string') tokens.push(own);
  }
  if (ctx.fault === 'auth-query-key') {
    const query = request.query as Record<string, unknown>;
    for (const name of ['api_key', 'key']) {
      if (typeof query[name] === 'string') tokens.push(query[name]);
    }
  }
  if (ctx.fault === 'auth-cookie' && request.headers.cookie) {
    for (const pair of request.headers.cookie.split(';')) {
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      if (value) tokens.push(decodeURIComponent(value));
    }
  }
  return tokens;
}

function lookup(ctx: RefContext, token: string, inexact: boolean): ApiKey | undefined {
  const exact = ctx.state.keys.get(token);
  if (exact) return exact;
  const keys = [...ctx.state.keys.values()];
  if ((ctx.fault === 'auth-prefix-key' || inexact) && token.length >= 8) {
    const found = keys.find((k) => k.value.startsWith(token));
    if (found || !inexact) return found;
  }
  if (ctx.fault === 'auth-suffix-key' || inexact) return keys.find((k) => token.startsWith(k.value));
  return undefined;
}

function allowed(list: BlockList, ip: string): boolean {
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return list.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}

export function registerAuth(app: FastifyInstance, ctx: RefContext): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request, reply) => {
    // Faults stream-auth-skipped, stream-scope-skipped: a chat or responses call's key is judged once its
    // body is read (below).
    if (streamAuthLater(ctx, request)) return;
    return keyHook(ctx, request, reply);
  });
  // Fault stream-auth-skipped: a streamed call (`stream` true) is served without its key judged, as the
  // primary key's; fault stream-scope-skipped: its key is judged but not its scopes. One that does not
  // stream is judged as every request is.
  app.addHook('preHandler', async (request, reply) => {
    if (!streamAuthLater(ctx, request)) return;
    if ((request.body as { stream?: unknown } | null)?.stream !== true) return keyHook(ctx, request, reply);
    if (ctx.fault === 'stream-scope-skipped') return keyHook(ctx, request, reply, false);
    request.caller = ctx.state.keys.get(ctx.state.roleKeys.primary ?? '') ?? null;
  });
  // Fault stream-scope-too-strict: a streamed chat or responses call of a key restricted by scope is
  // refused whatever its scopes (the streaming route asks for a full-scope key).
  app.addHook('preHandler', async (request, reply) => {
    if (ctx.fault !== 'stream-scope-too-strict' || request.method !== 'POST') return;
    if (!['/v1/chat/completions', '/v1/responses'].includes(pathOf(request.url))) return;
    if ((request.body as { stream?: unknown } | null)?.stream !== true || !request.caller?.scopes) return;
    return sendError(reply, ctx, 'insufficient_scope', 'This API key lacks the scope for this endpoint.');
  });
}

const streamAuthLater = (ctx: RefContext, request: FastifyRequest): boolean =>
  (ctx.fault === 'stream-auth-skipped' || ctx.fault === 'stream-scope-skipped') &&
  request.method === 'POST' &&
  ['/v1/chat/completions', '/v1/responses'].includes(pathOf(request.url));

/**
 * The key of a request judged: its caller set, or the request answered with the refusal (`scoped` false:
 * its scopes are not looked at, fault stream-scope-skipped).
 */
async function keyHook(
  ctx: RefContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scoped = true,
): Promise<unknown> {
  const path = pathOf(request.url);
  const needsKey = isBusinessPath(path) || (ctx.fault === 'healthz-auth' && path === '/healthz');
  if (!needsKey) return;
  // Fault asset-no-key: output assets are served to requests without any key.
  const keyless = !request.headers.authorization && path.startsWith('/v1/media/assets/');
  if (ctx.fault === 'asset-no-key' && keyless) return;
  // A patch's keyless endpoint (reference/patch.ts): a request without any key is the primary role's.
  if (!request.headers.authorization && servesKeyless(ctx, endpointOf(request))) {
    request.caller = ctx.state.keys.get(ctx.state.roleKeys.primary ?? '') ?? null;
    return;
  }
  const outcome = authenticate(ctx, request);
  if ('error' in outcome) return sendError(reply, ctx, outcome.error, outcome.message);
  request.caller =
    ctx.fault === 'enterprise-balance-split' || ctx.fault === 'enterprise-restricted-split'
      ? splitBalance(ctx, outcome.key)
      : outcome.key;
  const scopes = outcome.key.scopes;
  // Unknown paths get their 404 whatever the scopes.
  const decided = scopeDecision(ctx, outcome.key.role ?? '', endpointOf(request));
  // Fault scoped-keys-refused: a key restricted by scope is refused everywhere, inside its scope too.
  const refusedAll = ctx.fault === 'scoped-keys-refused';
  if (scoped && scopes && !request.is404 && (refusedAll || !(decided ?? scopeAllows(ctx, scopes, path)))) {
    // Variant scope-404-on-ids: the lookup runs in the key's scope first, where nothing is visible:
    // a path naming a resource id answers 404 (the order of lookup and scope check is not shown).
    if (isVariant(ctx, 'scope-404-on-ids') && request.routeOptions.url?.includes(':'))
      return sendError(reply, ctx, 'not_found', 'No such resource.');
    return sendError(reply, ctx, 'insufficient_scope', 'This API key lacks the scope for this endpoint.');
  }
}

function scopeAllows(ctx: RefContext, scopes: Scope[], path: string): boolean {
  const scope = scopeFor(path);
  // Fault scope-media-job-read-refused (issue 22): the media scope does not cover GET /v1/media/jobs/{job_id}.
  if (ctx.fault === 'scope-media-job-read-refused' && path.startsWith('/v1/media/jobs/')) return false;
  // Fault scope-embeddings-refused (issue 22): the inference scope does not cover POST /v1/embeddings.
  if (ctx.fault === 'scope-embeddings-refused' && path === '/v1/embeddings') return false;
  // Fault scope-too-strict: the balance scope does not cover GET /v1/balance.
  if (ctx.fault === 'scope-too-strict' && scope === 'balance') return false;
  // Fault scope-ignored: any restricted key reads the balance and the usage.
  if (ctx.fault === 'scope-ignored' && (path === '/v1/balance' || path === '/v1/usage')) return true;
  // Fault scope-media-ids-ignored: the paths that name a media resource (a job, an asset, an input) are
  // open to any restricted key of its account.
  if (ctx.fault === 'scope-media-ids-ignored' && /^\/v1\/media\/(jobs|assets|inputs)\/./.test(path))
    return true;
  // Fault payment-restricted-key-allowed: any restricted key reaches the payment API (routes/payments.ts
  // then skips its enterprise check for it).
  if (ctx.fault === 'payment-restricted-key-allowed' && path === '/v1/payment-orders') return true;
  // Fault support-scope-ignored: any restricted key uses the ticket API.
  if (ctx.fault === 'support-scope-ignored' && scope === 'support') return true;
  return scope !== null && scopes.includes(scope);
}

// Fault enterprise-balance-split: enterprise_second is bound to a copy of its account (same id,
// usage and ledger) whose balance is its own.
const splits = new WeakMap<ApiKey, ApiKey>();
function splitBalance(ctx: RefContext, key: ApiKey): ApiKey {
  // Fault enterprise-restricted-split: the keys restricted to a scope see a balance of their own instead.
  const own =
    ctx.fault === 'enterprise-restricted-split' ? key.scopes !== undefined : key.role === 'enterprise_second';
  if (!own) return key;
  let split = splits.get(key);
  if (!split) {
    split = { ...key, account: { ...key.account, totalPoints: '5000', heldPoints: '0' } };
    splits.set(key, split);
  }
  return split;
}
