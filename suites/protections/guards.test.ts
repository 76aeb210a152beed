// "| Protections | four guards exist per account: requests per minute, tokens per minute, concurrency and
// spend |" and "| 429 | not stated | rate limit or protection; ... | wait for the limit window; ... |": the
// three guards besides requests per minute (ratelimit.test.ts), each with a role whose guard is low on a
// funded account of its own ("Numeric values of the four protections | not shown").
import { type CheckContext, check, type HttpResponse, isSuccess, type Role } from '../../src/suite/index.ts';
import { guard429Shape } from './guard-support.ts';

/** Calls one after another at most, for the guards a burst reaches in turn (tokens, spend). */
const MAX_CALLS = 20;
/** Calls sent at once for the concurrency guard. */
const AT_ONCE = 8;

/** The cheapest chat call the suite makes: about 10 prompt and 16 completion tokens. */
async function chatBody(t: CheckContext) {
  return { model: await t.hint('chat'), messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 16 };
}

/**
 * A guard's answer judged: a 429 must have the APIError shape; another 4xx refusal of a valid call is the
 * guard answered under a status the contract does not give it. Returns whether it is a 429.
 */
function judgeAnswer(t: CheckContext, id: string, guard: string, res: HttpResponse): boolean {
  if (res.status === 429) {
    guard429Shape(t, id, `the ${guard} guard's 429`, res);
    return true;
  }
  if (res.status >= 400 && res.status < 500) refusedOtherwise(t, id, guard, res);
  return false;
}

function refusedOtherwise(
  t: CheckContext,
  id: string,
  guard: string,
  res: HttpResponse,
  level?: 'notable',
): void {
  t.violate(
    id,
    `a valid chat call with the ${guard}-limited key was refused ${res.status}: a protection's refusal is 429 ("rate limit or protection")`,
    { expected: 429, received: res.status, exchange: res.exchange, ...(level ? { level } : {}) },
  );
}

/** The guards a burst of calls one after another reaches: tokens per minute, spend. */
const SERIAL_GUARDS: ReadonlyArray<{ id: string; role: Role; guard: string }> = [
  { id: 'RATE-003', role: 'tokens_limited', guard: 'tokens-per-minute' },
  { id: 'RATE-005', role: 'spend_limited', guard: 'spend' },
];

for (const { id, role, guard } of SERIAL_GUARDS)
  check(
    { ids: [id], effect: 'billable', roles: [role], judges429: true },
    `answers chat calls past a low ${guard} guard with 429`,
    async (t) => {
      const body = await chatBody(t);
      for (let i = 1; i <= MAX_CALLS; i++) {
        const res = await t.post('/v1/chat/completions', body, { as: role, retry429: false });
        if (res.status === 429) {
          judgeAnswer(t, id, guard, res);
          return;
        }
        // Refused otherwise: a 4xx judged, a 5xx not (advisory on every exchange); the burst ends there.
        if (!isSuccess(res.status)) {
          judgeAnswer(t, id, guard, res);
          if (res.status >= 500)
            t.skip(`a chat call with the ${guard}-limited key was answered ${res.status}`);
          return;
        }
      }
      t.violate(id, `${MAX_CALLS} chat calls with the ${guard}-limited key, one after another, met no 429`, {
        expected: 429,
      });
    },
  );

check(
  { ids: ['RATE-004'], effect: 'billable', roles: ['concurrency_limited'], judges429: true },
  `answers chat calls past a low concurrency guard with 429 (${AT_ONCE} at once)`,
  async (t) => {
    const body = await chatBody(t);
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, () =>
        t.post('/v1/chat/completions', body, { as: 'concurrency_limited', retry429: false }),
      ),
    );
    let met = false;
    for (const res of answers) met = judgeAnswer(t, 'RATE-004', 'concurrency', res) || met;
    // A 502 or 503 among calls sent at once is the guard as an overload when no call met a 429; beside
    // a 429, its cause is not known (advisory: a 5xx may meet any call).
    for (const res of answers)
      if (res.status === 502 || res.status === 503)
        refusedOtherwise(t, 'RATE-004', 'concurrency', res, met ? 'notable' : undefined);
    if (answers.every((r) => isSuccess(r.status)))
      t.violate(
        'RATE-004',
        `${AT_ONCE} chat calls sent at once with the concurrency-limited key were all answered: the guard refused none (it may queue them: not stated)`,
        { expected: 429, level: 'notable' },
      );
  },
);
