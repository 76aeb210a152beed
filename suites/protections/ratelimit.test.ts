// "| Protections | four guards exist per account: requests per minute, ..." and "| 429 | not stated |
// rate limit or protection; ... | wait for the limit window; ... |". Which requests the requests-per-minute
// guard counts is not stated: every request, or the model calls only (as many gateways count). A burst of
// free reads shows the first; a burst of the cheapest chat calls shows either.
import { type CheckContext, check, type HttpResponse, retryAfterMs } from '../../src/suite/index.ts';
import { guard429Shape } from './guard-support.ts';

const MAX_REQUESTS = 60;

/** The guard's 429: the APIError shape (RATE-001) and a Retry-After that names the window (RATE-002). */
function judge429(t: CheckContext, res: HttpResponse): void {
  guard429Shape(t, 'RATE-001', 'the 429', res);
  // "wait for the limit window": only delay-seconds or a future HTTP-date (RFC 9110) name it.
  const stated = res.headers['retry-after'];
  t.ensure(
    retryAfterMs(stated) !== undefined,
    'RATE-002',
    stated === undefined
      ? 'the 429 names no Retry-After'
      : `the 429's Retry-After ${JSON.stringify(stated)} is neither delay-seconds nor a future HTTP-date`,
    { received: stated, exchange: res.exchange },
  );
}

check(
  { ids: ['RATE-001', 'RATE-002'], effect: 'read', roles: ['ratelimited'], judges429: true },
  'answers a burst of reads past the requests-per-minute guard with 429',
  async (t) => {
    for (let i = 1; i <= MAX_REQUESTS; i++) {
      const res = await t.get('/v1/balance', { as: 'ratelimited', retry429: false });
      if (res.status === 429) return judge429(t, res);
    }
    t.skip(
      `${MAX_REQUESTS} reads in a burst with the rate-limited key met no 429: a requests-per-minute guard may count the model calls only (what it counts is not stated); the billable test of the guard sends calls`,
    );
  },
);

check(
  { ids: ['RATE-001', 'RATE-002'], effect: 'billable', roles: ['ratelimited'], judges429: true },
  'answers a burst of chat calls past the requests-per-minute guard with 429',
  async (t) => {
    const body = {
      model: await t.hint('chat'),
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 2,
    };
    for (let i = 1; i <= MAX_REQUESTS; i++) {
      const res = await t.post('/v1/chat/completions', body, { as: 'ratelimited', retry429: false });
      if (res.status === 429) return judge429(t, res);
      // A refusal that is no 429 ends the burst: the key's own (its catalog, its balance) or the guard's
      // under another status; which one, a call this key had accepted would tell (RATE-003's reading).
      if (res.status >= 400)
        return t.skip(
          `a chat call with the rate-limited key was answered ${res.status}, not 429: the burst ends`,
        );
    }
    t.violate('RATE-001', `${MAX_REQUESTS} chat calls in a burst with the rate-limited key met no 429`, {
      expected: 429,
    });
  },
);
