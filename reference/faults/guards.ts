// Faults and variants of the protections: rate limits, quotas, Retry-After (guards.ts).
import type { Fault, ProbeKit, ProbeReply, Variant } from './probe.ts';

/** One cheap chat call of `role`. */
const chatAs = ({ ref, call, chatBody }: ProbeKit, role: string): Promise<ProbeReply> =>
  call(ref, '/v1/chat/completions', { method: 'POST', role, json: chatBody(ref, { max_tokens: 16 }) });
/** Four chat calls of the concurrency-limited key sent at once. */
const fourAtOnce = (kit: ProbeKit) =>
  Promise.all(Array.from({ length: 4 }, () => chatAs(kit, 'concurrency_limited')));

/** One cheap call of `role` to the responses or embeddings endpoint. */
const callAs = ({ ref, call }: ProbeKit, endpoint: 'responses' | 'embeddings', role: string) =>
  call(ref, `/v1/${endpoint}`, {
    method: 'POST',
    role,
    json:
      endpoint === 'responses'
        ? { model: ref.hints.responses, input: 'Say ok.', max_output_tokens: 16 }
        : { model: ref.hints.embedding, input: 'ok' },
  });

const GUARD_OF = {
  tpm: { id: 'RATE-003', role: 'tokens_limited', words: 'tokens-per-minute' },
  spend: { id: 'RATE-005', role: 'spend_limited', words: 'spend' },
  concurrency: { id: 'RATE-004', role: 'concurrency_limited', words: 'concurrency' },
} as const;

/**
 * guards.ts: one guard of the account never refuses the calls of one endpoint (a gateway
 * that guards its chat route only). The tokens and spend guards: chat calls reach the guard, and the
 * endpoint's call is still answered. The concurrency guard: four of the endpoint's calls at once are all
 * answered, as a guard that queues them answers them (notable: queueing is not stated either way).
 */
function guardSkips<G extends keyof typeof GUARD_OF, E extends 'responses' | 'embeddings'>(
  guard: G,
  endpoint: E,
) {
  const { id, role, words } = GUARD_OF[guard];
  return {
    name: `${guard}-guard-skips-${endpoint}` as `${G}-guard-skips-${E}`,
    description: `the ${words} guard lets ${endpoint} calls past it (it refuses only the other calls of the account)`,
    breaks: [id],
    ...(guard === 'concurrency' ? { level: 'notable' as const } : {}),
    probe: {
      run: async (kit: ProbeKit) => {
        if (guard === 'concurrency') {
          const replies = await Promise.all(Array.from({ length: 4 }, () => callAs(kit, endpoint, role)));
          return replies.every((r) => r.status === 200);
        }
        let reached = false;
        for (let i = 0; i < 12 && !reached; i++) reached = (await chatAs(kit, role)).status === 429;
        return reached && (await callAs(kit, endpoint, role)).status === 200;
      },
    },
  };
}

/**
 * guards.ts: the tokens or spend guard lets a streamed chat call (`stream` true) past it: chat calls not
 * streamed reach the guard, and the same call streamed is still answered.
 */
function guardSkipsStreamed<G extends 'tpm' | 'spend'>(guard: G) {
  const { id, role, words } = GUARD_OF[guard];
  return {
    name: `${guard}-guard-skips-streamed` as `${G}-guard-skips-streamed`,
    description: `the ${words} guard lets streamed chat and responses calls (\`stream\` true) past it (it refuses only the calls not streamed)`,
    breaks: [id],
    probe: {
      run: async (kit: ProbeKit) => {
        let reached = false;
        for (let i = 0; i < 12 && !reached; i++) reached = (await chatAs(kit, role)).status === 429;
        const { ref, call, chatBody } = kit;
        const streamed = await call(ref, '/v1/chat/completions', {
          method: 'POST',
          role,
          json: chatBody(ref, { max_tokens: 16, stream: true }),
        });
        return reached && streamed.status === 200;
      },
    },
  };
}

export const GUARDS_FAULTS = [
  guardSkips('tpm', 'responses'),
  guardSkips('tpm', 'embeddings'),
  guardSkips('spend', 'responses'),
  guardSkips('spend', 'embeddings'),
  guardSkips('concurrency', 'responses'),
  guardSkips('concurrency', 'embeddings'),
  // guards.ts: the requests-per-minute guard never refuses
  {
    name: 'ratelimit-missing',
    description: 'the ratelimited key is never limited',
    breaks: ['RATE-001'],
    probe: { run: async ({ ref, rateLimited }) => !(await rateLimited(ref)) },
  },
  // guards.ts + openapi.ts: the guard's 429 is text/plain "slow down" (described so)
  {
    name: 'ratelimit-plain',
    description: 'the rate-limit 429 body is text/plain "slow down" (and is described so)',
    breaks: ['RATE-001', 'ERR-001'],
    probe: {
      run: async ({ ref, rateLimited }) =>
        ((await rateLimited(ref))?.headers.get('content-type') ?? '').startsWith('text/plain'),
    },
  },
  // guards.ts + openapi.ts: Retry-After written as a duration with a unit (described as a string; notable)
  {
    name: 'retry-after-unit',
    description:
      'the rate-limit 429 carries Retry-After "42s" (a duration with a unit, neither delay-seconds nor an HTTP-date; described as a string)',
    breaks: ['RATE-002'],
    level: 'notable',
    probe: {
      run: async ({ ref, rateLimited }) =>
        /^\d+s$/.test((await rateLimited(ref))?.headers.get('retry-after') ?? ''),
    },
  },
  // guards.ts: the tokens-per-minute guard never refuses
  {
    name: 'tpm-guard-missing',
    description: "the tokens_limited key's tokens-per-minute guard never refuses a call",
    breaks: ['RATE-003'],
    probe: {
      run: async (kit) => {
        for (let i = 0; i < 8; i++) if ((await chatAs(kit, 'tokens_limited')).status !== 200) return false;
        return true;
      },
    },
  },
  // guards.ts: the spend guard refuses with 403 (a policy refusal), not 429
  {
    name: 'spend-guard-403',
    description: "the spend guard's refusal is 403 (permission_error spend_limit_reached), not 429",
    breaks: ['RATE-005'],
    probe: {
      run: async (kit) => {
        for (let i = 0; i < 12; i++) {
          const { status } = await chatAs(kit, 'spend_limited');
          if (status !== 200) return status === 403;
        }
        return false;
      },
    },
  },
  // guards.ts: the same for an embeddings call only: its few points stay under the guard, so its test meets
  // it after a burst of chat calls (429) with one more embedding, refused 403, a call its key had made
  // accepted just before (suites/protections/guards.test.ts burst's acceptedBefore)
  {
    name: 'spend-guard-403-embeddings',
    description:
      "the spend guard's refusal of an embeddings call is 403 (permission_error spend_limit_reached), not 429; other calls get 429",
    breaks: ['RATE-005'],
    probe: {
      run: async (kit) => {
        let reached = false;
        for (let i = 0; i < 12 && !reached; i++)
          reached = (await chatAs(kit, 'spend_limited')).status === 429;
        const { ref, call } = kit;
        const embedding = await call(ref, '/v1/embeddings', {
          method: 'POST',
          role: 'spend_limited',
          json: { model: ref.hints.embedding, input: 'probe' },
        });
        return reached && embedding.status === 403;
      },
    },
  },
  // guards.ts: the concurrency guard refuses with 503 (an overload), not 429
  {
    name: 'concurrency-guard-503',
    description: "the concurrency guard's refusal is 503 (api_error overloaded), not 429",
    breaks: ['RATE-004'],
    // judging.md: "a 502/503/504" is advisory, never promoted (an upstream may shed the load of calls a
    // queueing guard let through): the 503 is reported, not failed.
    level: 'notable',
    probe: {
      run: async (kit) => {
        const replies = await fourAtOnce(kit);
        return replies.some((r) => r.status === 503) && !replies.some((r) => r.status === 429);
      },
    },
  },
  guardSkipsStreamed('tpm'),
  guardSkipsStreamed('spend'),
] as const satisfies readonly Fault[];

export const GUARDS_VARIANTS = [
  // guards.ts: "four guards exist per account: ... concurrency": whether a concurrency guard refuses the
  // calls past it or holds them until one in flight ends is not stated
  {
    name: 'concurrency-guard-queues',
    readings: ['RATE-004'],
    description:
      'the concurrency guard holds the calls past it until a call in flight ends, instead of refusing them: every call is answered 200',
    probe: {
      run: async (kit) => {
        const replies = await fourAtOnce(kit);
        return replies.every((r) => r.status === 200);
      },
    },
  },
  // guards.ts: which requests the requests-per-minute guard counts is not stated
  {
    name: 'rpm-counts-calls-only',
    readings: ['RATE-001'],
    description:
      "the ratelimited key's requests-per-minute guard counts its model calls (POSTs to chat, responses, embeddings, media jobs) only: reads are never limited",
    probe: {
      run: async ({ ref, call }) => {
        for (let i = 0; i < 8; i++)
          if ((await call(ref, '/v1/balance', { role: 'ratelimited' })).status !== 200) return false;
        return true;
      },
    },
  },
  // guards.ts + openapi.ts
  {
    name: 'ratelimit-no-retry-after',
    readings: ['RATE-001', 'RATE-002'],
    description: 'the rate-limit 429 carries no Retry-After header',
    probe: {
      run: async ({ ref, rateLimited }) => (await rateLimited(ref))?.headers.get('retry-after') === null,
    },
  },
  // guards.ts: "four guards exist per account ... requests per minute, tokens per minute, concurrency and
  // spend"; a 429 "rate limit or protection" may meet any request
  {
    name: 'guard-429-sometimes',
    readings: ['RATE-001'],
    description:
      'every 5th POST without an Idempotency-Key (every 25th with one) of an account to chat, responses, embeddings or media jobs is answered 429 rate_limited with Retry-After: 1 (a guard tripping)',
    probe: {
      run: async ({ ref, call }) => {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          const res = await call(ref, '/v1/embeddings', {
            method: 'POST',
            role: 'primary',
            json: { model: ref.hints.embedding, input: 'probe' },
          });
          statuses.push(res.status);
          if (res.status === 429 && res.headers.get('retry-after') !== '1') return false;
        }
        return statuses.slice(0, 4).every((s) => s === 200) && statuses[4] === 429;
      },
    },
  },
  // guards.ts: a requests-per-minute guard on every account (start option rateLimitPerMinute)
  {
    name: 'guard-rpm',
    readings: ['RATE-001', 'RATE-002'],
    description:
      'every account has a requests-per-minute guard of 6000 (a bucket of 1000 refilled at 100 a second): past it, 429 rate_limited with Retry-After in whole seconds',
    // A bucket of 1000 requests: 1300 at once are not all served, and those refused carry Retry-After.
    probe: {
      run: async ({ ref, models }) => {
        const replies = await Promise.all(Array.from({ length: 1300 }, () => models(ref)));
        const limited = replies.filter((r) => r.status === 429);
        return (
          limited.length > 0 &&
          replies.filter((r) => r.status === 200).length >= 1000 &&
          limited.every((r) => /^[1-9]\d*$/.test(r.headers.get('retry-after') ?? ''))
        );
      },
    },
  },
] as const satisfies readonly Variant[];
