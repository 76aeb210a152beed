/**
 * PTS-007 in a capture (src/traffic/rules.ts chargesAfter): a chat or embeddings call's charge is judged by
 * its usage at its model's prices in the key's catalog read before it and the key's next read after it,
 * with the live run's judgement (chargeJudgement). Prices that differ between the two reads, a call with
 * no read after it, or one that started before the read ended, leave it not judged.
 */
import { describe, expect, it } from 'vitest';
import { replyFacts, type SequenceExchange, TrafficState } from '../../src/traffic/rules.ts';

const MODEL = 'text-model';
let clock = Date.parse('2026-12-01T10:00:00Z');

function exchange(method: string, path: string, request: unknown, reply: unknown): SequenceExchange {
  clock += 1_000;
  const startedAt = new Date(clock).toISOString();
  return {
    where: `capture.har entry at ${startedAt}`,
    startedAt,
    durationMs: 100,
    method,
    path,
    origin: 'https://api.example',
    headers: {},
    json: request,
    bodyText: request === undefined ? '' : JSON.stringify(request),
    who: 'key-1',
    res: {
      status: 200,
      headers: {},
      mediaType: 'application/json',
      text: '',
      facts: replyFacts(method, path, reply),
      exchange: { path },
    },
  };
}

const catalog = (request: string, response: string) =>
  exchange('GET', '/v1/models', undefined, {
    object: 'list',
    data: [
      {
        id: MODEL,
        request_points_per_million_tokens: request,
        response_points_per_million_tokens: response,
      },
    ],
  });

/** A chat call of 1000 prompt and 500 completion tokens charged `charged`. */
const chat = (charged: string) =>
  exchange(
    'POST',
    '/v1/chat/completions',
    { model: MODEL, messages: [{ role: 'user', content: 'hi' }] },
    {
      id: 'c1',
      model: MODEL,
      usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
      billing: { charged_points: charged },
    },
  );

/** The PTS-007 judgements and findings of a capture's exchanges judged in order. */
function judge(...xs: SequenceExchange[]) {
  const state = new TrafficState(true);
  const out = xs.map((x) => state.judge(x));
  return {
    judged: out.flatMap((o) => o.judged).filter((id) => id === 'PTS-007').length,
    findings: out.flatMap((o) => o.findings).filter((f) => f.id === 'PTS-007'),
  };
}

describe('PTS-007 in a capture', () => {
  // 1000 x 2 + 500 x 4 points per million tokens = 0.004 points.
  it('judges a call between two reads that price its model alike, and passes the right charge', () => {
    expect(judge(catalog('2', '4'), chat('0.004'), catalog('2', '4'))).toEqual({ judged: 1, findings: [] });
    // Rounded up to cents: no rounding is stated.
    expect(judge(catalog('2', '4'), chat('0.01'), catalog('2', '4')).findings).toEqual([]);
  });

  it('fails a charge at the prices per thousand tokens, citing the call and both reads', () => {
    const r = judge(catalog('2', '4'), chat('4'), catalog('2', '4'));
    expect(r.judged).toBe(1);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.message).toMatch(
      /^POST \/v1\/chat\/completions .*charged 4, but 1000 prompt and 500 completion tokens at 2 and 4 points per million tokens cost 0\.004 \(the catalog read before it and this one, GET \/v1\/models/,
    );
  });

  it('judges a call under an Idempotency-Key once: its repeat may say what the repeat cost', () => {
    const keyed = (charged: string) => {
      const x = chat(charged);
      x.headers = { 'idempotency-key': 'task-1' };
      return x;
    };
    expect(judge(catalog('2', '4'), keyed('0.004'), keyed('0'), catalog('2', '4'))).toEqual({
      judged: 1,
      findings: [],
    });
  });

  it('leaves it not judged where the prices changed, no read follows, or the call began before the read', () => {
    expect(judge(catalog('2', '4'), chat('4'), catalog('3', '4'))).toEqual({ judged: 0, findings: [] });
    expect(judge(catalog('2', '4'), chat('4'))).toEqual({ judged: 0, findings: [] });
    const read = catalog('2', '4');
    const early = chat('4');
    // The call started before the read ended: the read is no price it was confirmed at.
    early.startedAt = new Date(Date.parse(read.startedAt) + 50).toISOString();
    expect(judge(read, early, catalog('2', '4'))).toEqual({ judged: 0, findings: [] });
  });
});
