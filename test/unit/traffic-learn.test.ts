/**
 * The first pass's learning done by judging threads on batches (learn.ts Learning, addLearnt) gives what
 * one thread learning alone gives (learnEntry): the same credentials registered in the same order, the
 * same accepted keys and origins in the same order, Authorization seen, the first description.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import { addLearnt, Learning, learnEntry, nothingLearned } from '../../src/traffic/learn.ts';

const keys = ['sk-live-aaaaaaaaaaaa', 'sk-live-bbbbbbbbbbbb', 'sk-live-cccccccccccc', 'sk-live-dddddddddddd'];
const hosts = ['https://a.example', 'https://b.example', 'http://c.example:8080'];

const entryArb = fc.record({
  key: fc.option(fc.constantFrom(...keys), { nil: undefined }),
  cookie: fc.option(fc.constantFrom('session=cookie-one-1234', 'session=cookie-two-5678'), {
    nil: undefined,
  }),
  host: fc.constantFrom(...hosts, ''),
  status: fc.constantFrom(200, 201, 401, 429),
  description: fc.option(fc.constantFrom('{"openapi":"3.1.0","n":1}', '{"openapi":"3.1.0","n":2}'), {
    nil: undefined,
  }),
});
type E = typeof entryArb extends fc.Arbitrary<infer T> ? T : never;

function harEntry(e: E): unknown {
  const headers = [
    ...(e.key ? [{ name: 'Authorization', value: `Bearer ${e.key}` }] : []),
    ...(e.cookie ? [{ name: 'Cookie', value: e.cookie }] : []),
  ];
  const path = e.description ? '/openapi.json' : '/v1/models';
  return {
    request: { method: 'GET', url: `${e.host}${path}`, headers },
    response: {
      status: e.description ? 200 : e.status,
      headers: [],
      content: { text: e.description ?? '{}' },
    },
  };
}

const empty = nothingLearned;

describe('learning in threads', () => {
  it('learns in batches over several threads what one thread learns, in the same order', () => {
    fc.assert(
      fc.property(
        fc.array(entryArb, { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 4 }),
        (list, batch, threads) => {
          const entries = list.map(harEntry);
          const alone = empty();
          const one = new Redactor({});
          for (const e of entries) learnEntry(alone, e, one);

          const learnt = empty();
          const main = new Redactor({});
          const pool = Array.from({ length: threads }, () => new Learning());
          let count = 0;
          for (let b = 0; b * batch < entries.length; b++) {
            const thread = pool[b % threads]!;
            for (const e of entries.slice(b * batch, (b + 1) * batch)) thread.learn(e);
            count += addLearnt(learnt, thread.take(), main);
          }
          expect(count).toBe(entries.length);
          expect(main.registrations()).toEqual(one.registrations());
          expect([...learnt.keys]).toEqual([...alone.keys]);
          expect([...learnt.hosts]).toEqual([...alone.hosts]);
          expect([...learnt.apiHosts]).toEqual([...alone.apiHosts]);
          expect([...learnt.publicHosts]).toEqual([...alone.publicHosts]);
          expect(learnt.authorized).toBe(alone.authorized);
          expect([...learnt.descriptions]).toEqual([...alone.descriptions]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
