/** How an answer's status and error code are judged and reported. */
import { namedModelProblem } from '../checks/model-named.ts';
import type { Exchange, HttpResponse } from '../http/client.ts';
import type { CheckContext } from '../runtime/check.ts';
import type { VerdictCase } from '../vocabulary.ts';

/** error.code of an APIError body, if any. */
export function errorCode(body: unknown): string | undefined {
  const err = (body as { error?: { code?: unknown } } | undefined)?.error;
  return typeof err?.code === 'string' ? err.code : undefined;
}

/**
 * A refusal must carry the error code the contract names for its cause: else a violation of `id` with
 * the code received, the one expected and the exchange, at /error/code. Returns whether it does.
 */
export function expectErrorCode(
  t: CheckContext,
  res: Pick<HttpResponse, 'json' | 'exchange'>,
  id: string,
  code: string,
  what: string,
): boolean {
  const got = errorCode(res.json) ?? null;
  return t.ensure(got === code, id, `${what} was refused with code ${JSON.stringify(got)}, not ${code}`, {
    pointer: '/error/code',
    received: got,
    expected: code,
    exchange: res.exchange,
    // One wrong code is one cause, whatever was refused with it and wherever.
    verdictCase: { wrong: 'code', what },
  });
}

/** A 4xx: the range of a refusal, for a test that decides what to do next by it (never to judge). */
export const isClientError = (status: number): boolean => status >= 400 && status < 500;

/**
 * What a status check expects: `2xx` (a request the contract accepts) and `4xx` (one it refuses) are the
 * one verdict (CheckContext.verdict: a 429 is a limit there, the case is not judged); a number or a list
 * is the contract's own status(es), met exactly (a 429 is not one of them unless listed); `{ not }`
 * is any answer but those (a request the rule must not refuse so).
 */
export type ExpectedStatus = '2xx' | '4xx' | number | readonly number[] | { readonly not: readonly number[] };

const listed = (statuses: readonly number[], last = 'or'): string =>
  statuses.length > 1 ? `${statuses.slice(0, -1).join(', ')} ${last} ${statuses.at(-1)}` : `${statuses[0]}`;

/**
 * Judge an answer's status against what the contract expects of `what`, and record a violation of `id`
 * with the evidence a reader needs (received: the status, expected, the exchange; for 2xx/4xx the case
 * the verdict names, so the cases of one rule on one endpoint fold into one cause). `evidence.expected`
 * words the expectation where the contract says more than the range (`403 (or 401)`). The message is the
 * verdict's (`... is valid per the contract but was answered 400`) for 2xx/4xx, `<what> was answered N`
 * otherwise. Returns whether the answer is the expected one (false after a 429 that was not judged:
 * nothing that follows can read the answer).
 */
export function expectStatus(
  t: CheckContext,
  res: Pick<HttpResponse, 'status' | 'exchange'>,
  id: string,
  expected: ExpectedStatus,
  what: string,
  evidence: { expected?: unknown; level?: 'notable'; family?: VerdictCase['family'] } = {},
): boolean {
  const { family, ...shown } = evidence;
  const record = (message: string, wording: unknown, extra: object = {}) =>
    t.violate(id, message, {
      received: res.status,
      expected: wording,
      ...shown,
      exchange: res.exchange,
      ...extra,
    });
  t.assertedStatus(
    id,
    typeof expected === 'string'
      ? expected
      : typeof expected === 'number'
        ? String(expected)
        : 'not' in expected
          ? `not ${expected.not.join('|')}`
          : [...expected].sort().join('|'),
  );
  if (expected === '2xx' || expected === '4xx') {
    const verdict = t.verdict(res, expected === '2xx', what);
    if (verdict.judged) t.observe(id, res.exchange);
    if (verdict.mismatch)
      record(
        verdict.mismatch,
        expected === '2xx' ? '2xx' : 'a 4xx refusal',
        verdict.case ? { verdictCase: verdict.case } : {},
      );
    return verdict.judged && verdict.mismatch === undefined;
  }
  const ok =
    typeof expected === 'number'
      ? res.status === expected
      : 'not' in expected
        ? !expected.not.includes(res.status)
        : expected.includes(res.status);
  t.observe(id, res.exchange);
  // A family's case: one cause with the other places its rule was broken so (groups.ts). Outside a
  // family, a 2xx where the contract gives only refusals is the `accepted` case of the verdict's form:
  // it folds with the endpoint's other requests let through (groups.ts).
  const wrong = isClientError(res.status) ? 'status' : res.status < 300 ? 'accepted' : undefined;
  const refusals = typeof expected === 'number' ? [expected] : 'not' in expected ? [] : expected;
  const accepted = wrong === 'accepted' && refusals.length > 0 && refusals.every((s) => s >= 400);
  const named = what.replace(/,$/, '');
  if (!ok)
    record(
      `${what} was answered ${res.status}`,
      typeof expected === 'number'
        ? expected
        : 'not' in expected
          ? `not ${listed(expected.not)}`
          : listed(expected),
      family && wrong
        ? { verdictCase: { wrong, what: named, family } }
        : accepted
          ? { verdictCase: { wrong, what: named } }
          : {},
    );
  return ok;
}

/**
 * The control of a refusal: a request that differs from the refused one only in the rule's variable
 * (the same key, body and model type; only the catalog membership, scope, bound or type changes) and that
 * the contract accepts. A refusal proves the rule only when its control was accepted: a control answered
 * otherwise leaves the rule not judged (the test is not run, saying so; a 429 is a limit, not judged
 * either). Returns when the control was accepted.
 */
export async function controlAccepted(
  t: CheckContext,
  what: string,
  send: () => Promise<Pick<HttpResponse, 'status' | 'exchange'>>,
): Promise<void> {
  const res = await send();
  if (res.status >= 200 && res.status < 300) return;
  if (t.notJudged429(res, `the control: ${what}`))
    return t.skip(`the control (${what}) was answered 429: the refusal it controls is not judged`);
  return t.skip(
    `the control (${what}) was answered ${res.status}, not 2xx: a refusal could not tell this rule from another cause, so it is not judged`,
  );
}

/**
 * MODEL-001 on the model a reply names (namedModelProblem, the one judgement captures use too): not
 * judged where it names none (chat leaves `model` optional), met where it names the one requested.
 */
export function judgeNamedModel(
  t: CheckContext,
  requested: string,
  named: unknown,
  what: string,
  exchange: Exchange,
  pointer?: string,
): void {
  if (named === undefined) return;
  const p = namedModelProblem(requested, named, what);
  t.ensure(p === undefined, 'MODEL-001', p?.message ?? '', {
    received: named,
    expected: requested,
    exchange,
    ...(pointer !== undefined ? { pointer } : {}),
    ...(p?.level ? { level: p.level } : {}),
  });
}
