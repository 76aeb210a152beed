// Protections: "four guards exist per account: requests per minute, tokens per minute, concurrency
// and spend". The reference enforces each where an account has it, low on an account of its own: the
// requests-per-minute guard (the `ratelimited` role: 5 per minute) as a sliding 60-second window; on
// billable calls, the tokens-per-minute guard (`tokens_limited`: the tokens of the calls settled in the
// last 60 seconds), the spend guard (`spend_limited`: the points charged so far) and the concurrency
// guard (`concurrency_limited`: billable calls in flight, each held CONCURRENT_HOLD_MS so that a burst
// overlaps). Past a guard: 429 ("rate limit or protection"). Other accounts are unlimited, and a call the
// available points cannot cover is refused 429 insufficient_points by inference itself.
// Runs as an onRequest hook after authentication, so only accepted requests of a key count.
import { setTimeout as sleep } from 'node:timers/promises';
import { Decimal } from 'decimal.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RefContext } from './context.ts';
import { sendError } from './errors.ts';
import { READ_429_EVERY } from './guard-rates.ts';
import { isVariant } from './reach.ts';
import type { JsonObject } from './schemas.ts';

const WINDOW_MS = 60_000;
/** How long a billable call of an account with a concurrency guard is held in flight. */
export const CONCURRENT_HOLD_MS = 300;
/** Variant concurrency-guard-queues: how often a held call looks for a free place. */
const QUEUE_POLL_MS = 10;
/** Variant guard-rpm: every account's requests-per-minute guard, unless the start option sets one. */
export const GUARD_RPM_DEFAULT = 6000;

export function registerGuards(app: FastifyInstance, ctx: RefContext): void {
  // Account id -> times of the requests accepted in the last window, oldest first.
  const windows = new Map<string, number[]>();
  // Variant guard-429-sometimes: POSTs to the billable endpoints counted per account.
  const posts = new Map<string, number>();
  const BILLABLE = /^\/v1\/(chat\/completions|responses|embeddings|media\/jobs)(\?|$)/;
  // Variant guard-429-refusals: the prerequisite reads counted per account.
  const reads = new Map<string, number>();
  const READS = /^\/v1\/(balance|models|usage|ledger|media\/models)(\?|$)/;
  const perMinute = ctx.rateLimitPerMinute ?? (isVariant(ctx, 'guard-rpm') ? GUARD_RPM_DEFAULT : undefined);
  // Account id -> the bucket of the every-account guard: tokens left and when it was last refilled.
  const buckets = new Map<string, { tokens: number; at: number }>();
  // The calls counted in flight by a concurrency guard, let go when answered.
  const inFlight = new WeakSet<FastifyRequest>();
  app.addHook('onResponse', async (request) => {
    const account = request.caller?.account;
    if (account && inFlight.has(request)) {
      inFlight.delete(request);
      account.spent.inFlight--;
    }
  });
  // Faults <guard>-guard-skips-streamed: the guards of a chat or responses call run once its body is read
  // (preHandler below), and that guard lets a streamed call (`stream` true) through.
  const streamedSkip = /^(tpm|spend)-guard-skips-streamed$/.exec(String(ctx.fault ?? ''))?.[1];
  const afterBody = (request: FastifyRequest) =>
    streamedSkip !== undefined &&
    request.method === 'POST' &&
    /^\/v1\/(chat\/completions|responses)(\?|$)/.test(request.url);
  /** The tokens-per-minute, spend and concurrency guards on a billable call: the refusal, if one trips. */
  const billableGuards = async (request: FastifyRequest, reply: FastifyReply) => {
    const account = request.caller!.account;
    const s = account.spent;
    const now = Date.now();
    // Faults <guard>-guard-skips-<endpoint>: that guard lets the endpoint's calls through uncounted.
    const endpoint = /^\/v1\/(responses|embeddings)(\?|$)/.exec(request.url)?.[1];
    const streamed = (request.body as { stream?: unknown } | undefined)?.stream === true;
    const skips = (guard: string) =>
      (endpoint !== undefined && ctx.fault === `${guard}-guard-skips-${endpoint}`) ||
      (streamed && streamedSkip === guard);
    if (account.tokensPerMinute !== undefined && ctx.fault !== 'tpm-guard-missing' && !skips('tpm')) {
      s.tokens = s.tokens.filter((t) => t.at > now - WINDOW_MS);
      const used = s.tokens.reduce((n, t) => n + t.tokens, 0);
      if (used >= account.tokensPerMinute) {
        const retryAfter = Math.ceil(((s.tokens[0]?.at ?? now) + WINDOW_MS - now) / 1000);
        reply.header('Retry-After', String(Math.max(1, retryAfter)));
        return sendError(
          reply,
          ctx,
          'rate_limited',
          `More than ${account.tokensPerMinute} tokens per minute; retry later.`,
        );
      }
    }
    if (
      account.spendLimitPoints !== undefined &&
      !skips('spend') &&
      new Decimal(s.points).gte(account.spendLimitPoints)
    )
      return sendError(
        reply,
        ctx,
        // Fault spend-guard-403: refused as a policy refusal (-embeddings: an embeddings call only).
        ctx.fault === 'spend-guard-403' ||
          (ctx.fault === 'spend-guard-403-embeddings' && request.url.startsWith('/v1/embeddings'))
          ? 'spend_limit_forbidden'
          : 'spend_limit_reached',
        `This account's spend guard (${account.spendLimitPoints} points) is reached.`,
      );
    if (account.concurrency !== undefined && !skips('concurrency')) {
      // Variant concurrency-guard-queues: a call past the guard waits for a call in flight to end.
      if (isVariant(ctx, 'concurrency-guard-queues'))
        while (s.inFlight >= account.concurrency) await sleep(QUEUE_POLL_MS);
      if (s.inFlight >= account.concurrency)
        return sendError(
          reply,
          ctx,
          // Fault concurrency-guard-503: refused as an overload.
          ctx.fault === 'concurrency-guard-503' ? 'overloaded' : 'rate_limited',
          `More than ${account.concurrency} calls in flight; retry when one has finished.`,
        );
      s.inFlight++;
      inFlight.add(request);
      await sleep(CONCURRENT_HOLD_MS);
    }
    return undefined;
  };
  app.addHook('preHandler', async (request, reply) => {
    if (request.caller && afterBody(request)) return billableGuards(request, reply);
  });
  app.addHook('onRequest', async (request, reply) => {
    const account = request.caller?.account;
    if (account && request.method === 'POST' && BILLABLE.test(request.url) && !afterBody(request)) {
      const refused = await billableGuards(request, reply);
      if (refused) return refused;
    }
    if (account && perMinute !== undefined) {
      const now = Date.now();
      const capacity = Math.max(1, perMinute / 6);
      const b = buckets.get(account.id) ?? { tokens: capacity, at: now };
      b.tokens = Math.min(capacity, b.tokens + ((now - b.at) * perMinute) / WINDOW_MS);
      b.at = now;
      buckets.set(account.id, b);
      if (b.tokens < 1) {
        const waitMs = ((1 - b.tokens) * WINDOW_MS) / perMinute;
        reply.header('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
        return sendError(
          reply,
          ctx,
          'rate_limited',
          `More than ${perMinute} requests per minute; retry later.`,
        );
      }
      b.tokens -= 1;
    }
    if (
      isVariant(ctx, 'guard-429-sometimes') &&
      account &&
      request.method === 'POST' &&
      BILLABLE.test(request.url)
    ) {
      // Every 5th POST without an Idempotency-Key, every 25th with one (those are repeated after the wait).
      const keyed = typeof request.headers['idempotency-key'] === 'string';
      const counter = `${account.id}:${keyed}`;
      const n = (posts.get(counter) ?? 0) + 1;
      posts.set(counter, n);
      if (n % (keyed ? 25 : 5) === 0) {
        reply.header('Retry-After', '1');
        return sendError(
          reply,
          ctx,
          'rate_limited',
          'A guard of this account refused the request; retry later.',
        );
      }
    }
    // Variant guard-429-refusals: every READ_429_EVERY-th read of an account's balance, catalogs, usage or ledger is
    // answered 429 without Retry-After (a client waits and reads again).
    if (
      isVariant(ctx, 'guard-429-refusals') &&
      account &&
      request.method === 'GET' &&
      READS.test(request.url)
    ) {
      const n = (reads.get(account.id) ?? 0) + 1;
      reads.set(account.id, n);
      if (n % READ_429_EVERY === 0)
        return sendError(
          reply,
          ctx,
          'rate_limited',
          'A guard of this account refused the read; retry later.',
        );
    }
    const limit = account?.requestsPerMinute;
    if (!account || limit === undefined || ctx.fault === 'ratelimit-missing') return;
    // Variant rpm-counts-calls-only: the requests-per-minute guard counts the model calls only.
    if (!(request.method === 'POST' && BILLABLE.test(request.url)) && isVariant(ctx, 'rpm-counts-calls-only'))
      return;
    const now = Date.now();
    const times = (windows.get(account.id) ?? []).filter((t) => t > now - WINDOW_MS);
    windows.set(account.id, times);
    if (times.length < limit) {
      times.push(now);
      return;
    }
    const retryAfter = Math.max(1, Math.ceil(((times[0] as number) + WINDOW_MS - now) / 1000));
    // Fault retry-after-unit: the wait is written as a duration with a unit ("42s").
    const unit = ctx.fault === 'retry-after-unit' ? 's' : '';
    if (!isVariant(ctx, 'ratelimit-no-retry-after')) reply.header('Retry-After', `${retryAfter}${unit}`);
    if (ctx.fault === 'ratelimit-plain')
      return reply.code(429).type('text/plain; charset=utf-8').send('slow down');
    return sendError(reply, ctx, 'rate_limited', `More than ${limit} requests per minute; retry later.`);
  });
}

/** A 429 response of the description, with what the guard adds to it. */
export function describeRateLimit(ctx: RefContext, response: JsonObject): JsonObject {
  const headers = { ...(response.headers as JsonObject | undefined) };
  if (!isVariant(ctx, 'ratelimit-no-retry-after')) {
    headers['Retry-After'] = {
      description: 'Seconds until the requests-per-minute guard accepts a request again.',
      required: false,
      schema:
        ctx.fault === 'retry-after-unit'
          ? { type: 'string', pattern: '^[1-9][0-9]*s$' }
          : { type: 'integer', minimum: 1 },
    };
  }
  const content = { ...(response.content as JsonObject | undefined) };
  if (ctx.fault === 'ratelimit-plain') content['text/plain'] = { schema: { type: 'string' } };
  return {
    ...response,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
}
