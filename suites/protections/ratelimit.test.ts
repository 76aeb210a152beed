import { check, retryAfterMs } from '../../src/suite/index.ts';
import { guard429Shape } from './guard-support.ts';

const MAX_REQUESTS = 60;

check(
  { ids: ['RATE-001', 'RATE-002'], effect: 'read', roles: ['ratelimited'], judges429: true },
  'answers a burst past the requests-per-minute guard with 429',
  async (t) => {
    for (let i = 1; i <= MAX_REQUESTS; i++) {
      const res = await t.get('/v1/balance', { as: 'ratelimited', retry429: false });
      if (res.status !== 429) continue;
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
      return;
    }
    t.violate('RATE-001', `${MAX_REQUESTS} requests in a burst with the rate-limited key met no 429`, {
      expected: 429,
    });
  },
);
