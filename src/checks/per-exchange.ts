/**
 * The per-exchange checks, one entry point: what every recorded exchange gets, whatever the test (the
 * live run's CheckContext.checkExchange) or wherever it was recorded (a capture judged by check-traffic).
 * Status, media type, body and headers against the description in use, the APIError shape of every
 * error, server faults, secrets in a reply, points as exact decimals and no `*_credits` outside the
 * legacy format, suspicious fields, and a stream whose events all arrived at once (advisory).
 */
import type { HttpResponse } from '../http/client.ts';
import type { ResponseFinding } from '../openapi/fallback.ts';
import { type Finding, genericChecks, secretLeaks } from './exchange.ts';
import { pointsChecks } from './exchange-points.ts';
import { suspiciousFields } from './leaks.ts';
import { bufferedStream } from './stream-pacing.ts';

export interface ExchangeCheckContext {
  /** The secrets no reply may hold: configured keys, canaries (label and value). */
  secrets: Array<{ label: string; value: string }>;
  /** What responses are validated against: the live description or the documented contract. */
  responses: { checkResponse(res: HttpResponse): ResponseFinding[] };
}

/**
 * The per-exchange check families, one list: each with the requirement ids it judges and how it runs on
 * one exchange. `everyExchange` false: the family judges only some exchanges (timed event streams), so
 * check-traffic does not count its ids judged per exchange read.
 */
export const EXCHANGE_CHECKS: ReadonlyArray<{
  family: string;
  ids: readonly string[];
  everyExchange: boolean;
  run: (res: HttpResponse, ctx: ExchangeCheckContext) => Finding[];
}> = [
  {
    family: 'error shape and server faults',
    ids: ['ERR-001', 'ERR-002', 'ERR-003'],
    everyExchange: true,
    run: (res) => genericChecks(res),
  },
  {
    family: 'secrets in a reply',
    ids: ['SEC-001'],
    everyExchange: true,
    run: (res, ctx) => secretLeaks(res, ctx.secrets),
  },
  {
    family: 'points as exact decimals',
    ids: ['PTS-001', 'PTS-002', 'PTS-003', 'PTS-004'],
    everyExchange: true,
    run: (res) => pointsChecks(res),
  },
  { family: 'suspicious fields', ids: ['SEC-002'], everyExchange: true, run: (res) => suspiciousFields(res) },
  {
    family: 'streaming realism',
    ids: ['RSP-090'],
    everyExchange: false,
    run: (res) => bufferedStream(res),
  },
  {
    family: 'the description in use',
    ids: ['RESP-001', 'RESP-002', 'RESP-003', 'RESP-004'],
    everyExchange: true,
    run: (res, ctx) => ctx.responses.checkResponse(res),
  },
];

/** The requirement ids the per-exchange checks judge on every exchange. */
export const PER_EXCHANGE_IDS: readonly string[] = EXCHANGE_CHECKS.filter((c) => c.everyExchange).flatMap(
  (c) => c.ids,
);

/** Every finding of the per-exchange checks on one exchange. */
export function exchangeFindings(res: HttpResponse, ctx: ExchangeCheckContext): Finding[] {
  return EXCHANGE_CHECKS.flatMap((c) => c.run(res, ctx));
}
