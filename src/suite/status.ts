/** How an answer's status and error code are judged and reported. */
import type { HttpResponse } from '../http/client.ts';
import type { CheckContext } from '../runtime/check.ts';

/** error.code of an APIError body, if any. */
export function errorCode(body: unknown): string | undefined {
  const err = (body as { error?: { code?: unknown } } | undefined)?.error;
  return typeof err?.code === 'string' ? err.code : undefined;
}

/**
 * A request the contract accepts, judged by the one verdict (CheckContext.verdict): a 2xx, else a
 * violation of `id` with the exchange as evidence; a 429 is a limit, the case is not judged. Returns
 * whether the request was accepted (not after a 429: nothing that follows can read the answer).
 */
export function accepted(
  t: CheckContext,
  res: HttpResponse,
  id: string,
  what: string,
  evidence: { expected?: unknown; level?: 'notable' } = {},
): boolean {
  const verdict = t.verdict(res, true, what);
  if (verdict.mismatch)
    t.violate(id, verdict.mismatch, {
      received: res.status,
      expected: '2xx',
      ...evidence,
      exchange: res.exchange,
      ...(verdict.case ? { verdictCase: verdict.case } : {}),
    });
  return verdict.judged && verdict.mismatch === undefined;
}
