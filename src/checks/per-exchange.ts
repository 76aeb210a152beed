/**
 * The per-exchange checks, one entry point: what every recorded exchange gets, whatever the test (the
 * live run's CheckContext.checkExchange) or wherever it was recorded (a capture judged by check-traffic).
 * Status, media type, body and headers against the description in use, the APIError shape of every
 * error, server faults, secrets in a reply, points as exact decimals and no `*_credits` outside the
 * legacy format, suspicious fields.
 */
import type { HttpResponse } from '../http/client.ts';
import type { ResponseFinding } from '../openapi/fallback.ts';
import { type Finding, genericChecks, secretLeaks } from './exchange.ts';
import { pointsChecks } from './exchange-points.ts';
import { suspiciousFields } from './leaks.ts';

export interface ExchangeCheckContext {
  /** The secrets no reply may hold: configured keys, canaries (label and value). */
  secrets: Array<{ label: string; value: string }>;
  /** What responses are validated against: the live description or the documented contract. */
  responses: { checkResponse(res: HttpResponse): ResponseFinding[] };
}

/** Every finding of the per-exchange checks on one exchange. */
export function exchangeFindings(res: HttpResponse, ctx: ExchangeCheckContext): Finding[] {
  return [
    ...genericChecks(res),
    ...secretLeaks(res, ctx.secrets),
    ...pointsChecks(res),
    ...suspiciousFields(res),
    ...ctx.responses.checkResponse(res),
  ];
}
