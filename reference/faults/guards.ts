// Faults and variants of the protections: rate limits, quotas, Retry-After (guards.ts).
import type { Fault, Variant } from './probe.ts';

export const GUARDS_FAULTS = [
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
] as const satisfies readonly Fault[];

export const GUARDS_VARIANTS = [
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
