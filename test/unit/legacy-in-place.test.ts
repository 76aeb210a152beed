/**
 * LEGACY-001's second side (suites/points/legacy-support.ts inPlaceOf): each object of the plain reply
 * that shows points fields has, in the legacy reply, a counterpart with a field it lacks. Compared object
 * by object: a name the plain reply already uses elsewhere (a media job's record keeps `charged_credits`)
 * is still new to the chat record whose `charged_points` it replaces.
 */
import { describe, expect, it } from 'vitest';
import type { CheckContext, Exchange } from '../../src/suite/index.ts';
import { inPlaceOf } from '../../suites/points/legacy-support.ts';

/** What inPlaceOf concluded: 'met', the violation's message, or undefined where it judged nothing. */
function verdict(plain: unknown, legacy: unknown): string | undefined {
  let out: string | undefined;
  const t = {
    ensure: (ok: boolean, _id: string, message: string) => {
      out = ok ? 'met' : message;
      return ok;
    },
  } as unknown as CheckContext;
  inPlaceOf(t, plain, legacy, 'GET /v1/usage', { id: 'x' } as Exchange);
  return out;
}

const chat = { id: 'u1', endpoint: '/v1/chat/completions', prompt_tokens: 3, charged_points: '0.1' };
const job = { id: 'u2', job_id: 'j1', endpoint: '/v1/media/jobs', charged_credits: '0.75' };

describe('inPlaceOf (LEGACY-001)', () => {
  it('finds the legacy field new to the record it replaces, though another record of the plain list has that name', () => {
    const { charged_points: _, ...rest } = chat;
    const legacyChat = { ...rest, charged_credits: '0.1' };
    expect(verdict({ data: [chat, job] }, { data: [legacyChat, job] })).toBe('met');
    // The records listed in another order, or a new one first: matched by id.
    expect(verdict({ data: [chat, job] }, { data: [{ id: 'u3' }, job, legacyChat] })).toBe('met');
  });

  it('fails a record whose points fields are only dropped, and judges nothing without a counterpart', () => {
    const { charged_points: _, ...dropped } = chat;
    expect(verdict({ data: [chat, job] }, { data: [dropped, job] })).toMatch(/at \/data\/0/);
    expect(verdict({ data: [] }, { data: [] })).toBeUndefined();
    // Two calls' replies (ids of their own): the same place is compared.
    const reply = { id: 'c1', billing: { charged_points: '1', released_points: '0' } };
    expect(verdict(reply, { id: 'c2', billing: { charged_amount: '1', released_amount: '0' } })).toBe('met');
    expect(verdict(reply, { id: 'c2', billing: {} })).toMatch(/at \/billing/);
  });
});
