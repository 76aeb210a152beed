import { type CheckContext, type HttpResponse, isClientError } from '../../src/suite/index.ts';

/**
 * "above a configured minimum": without the deployment's minimum (limits.payment_min_cny) no amount is
 * known to be valid, so a 4xx refusal of an order sent as valid proves nothing (judging.md). Such an
 * answer leaves the test not run, with the setting that makes it judgeable; any other answer is judged.
 */
export function refusalProvesNothing(
  t: CheckContext,
  res: HttpResponse,
  except: readonly number[] = [],
): void {
  if (t.target.limits.payment_min_cny !== undefined) return;
  if (!isClientError(res.status) || except.includes(res.status)) return;
  t.skip(
    `an order with an amount chosen without the deployment's minimum was refused ${res.status}: that proves nothing; set limits.payment_min_cny (CONFORMANCE_LIMIT_PAYMENT_MIN_CNY) to judge it`,
  );
}
