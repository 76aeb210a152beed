/**
 * The per-exchange checks, one entry point: what every recorded exchange gets, whatever the test (the
 * live run's CheckContext.checkExchange) or wherever it was recorded (a capture judged by check-traffic).
 * Status, media type, body and headers against the description in use, the APIError shape of every
 * error, server faults, secrets in a reply, points as exact decimals and no `*_credits` outside the
 * legacy format, suspicious fields, and a stream whose events all arrived at once (advisory).
 */
import type { HttpResponse } from '../http/client.ts';
import type { ResponseSource } from '../openapi/fallback.ts';
import { type Finding, genericChecks, type Secret, secretLeaks } from './exchange.ts';
import { legacyJudged, pointsJudged } from './exchange-points.ts';
import { suspiciousFields } from './leaks.ts';
import { bufferedStream, streamTimed } from './stream-pacing.ts';

export interface ExchangeCheckContext {
  /** The secrets no reply may hold: configured keys, canaries (label and value). */
  secrets: Secret[];
  /** What responses are validated against: the live description or the documented contract. */
  responses: ResponseSource;
}

/** What one family found on one exchange, and the ids whose form the exchange showed (judged on it). */
export interface ExchangeJudgement {
  findings: Finding[];
  observed: readonly string[];
}

/**
 * The per-exchange check families, one list: each with the requirement ids it judges and how it runs on
 * one exchange, saying which of its ids the exchange showed the form of (`observed`: an error status for
 * the error shape, a points field for the points rules, a timed stream for its pacing). An id is judged
 * only where its form showed: a run or a capture whose replies never carry points never passes PTS-001.
 * `everyExchange` false: the family judges only some exchanges (timed event streams).
 */
export const EXCHANGE_CHECKS: ReadonlyArray<{
  family: string;
  ids: readonly string[];
  everyExchange: boolean;
  run: (res: HttpResponse, ctx: ExchangeCheckContext) => ExchangeJudgement;
}> = [
  {
    family: 'error shape and server faults',
    ids: ['ERR-001', 'ERR-002', 'ERR-003'],
    everyExchange: true,
    run: (res) => ({
      findings: genericChecks(res),
      observed: res.status >= 400 ? ['ERR-001', 'ERR-002', 'ERR-003'] : ['ERR-002', 'ERR-003'],
    }),
  },
  {
    family: 'secrets in a reply',
    ids: ['SEC-001'],
    everyExchange: true,
    run: (res, ctx) => ({
      findings: secretLeaks(res, ctx.secrets),
      observed: ctx.secrets.length ? ['SEC-001'] : [],
    }),
  },
  {
    family: 'points as exact decimals',
    ids: ['PTS-001', 'PTS-002', 'PTS-003', 'PTS-004'],
    everyExchange: true,
    run: (res) => pointsJudged(res),
  },
  {
    family: 'the legacy currency format',
    ids: ['LEGACY-001'],
    everyExchange: true,
    run: (res) => legacyJudged(res),
  },
  {
    family: 'suspicious fields',
    ids: ['SEC-002'],
    everyExchange: true,
    run: (res) => ({ findings: suspiciousFields(res), observed: ['SEC-002'] }),
  },
  {
    family: 'streaming realism',
    ids: ['RSP-090'],
    everyExchange: false,
    run: (res) => ({ findings: bufferedStream(res), observed: streamTimed(res) ? ['RSP-090'] : [] }),
  },
  {
    family: 'the description in use',
    ids: ['RESP-001', 'RESP-002', 'RESP-003', 'RESP-004'],
    everyExchange: true,
    // Judged where the description (or the documented schemas) had something to hold the response to.
    run: (res, ctx) => {
      const { findings, judged } = ctx.responses.judgeResponse(res);
      return { findings, observed: judged };
    },
  },
];

/** The requirement ids the per-exchange checks judge on every exchange. */
export const PER_EXCHANGE_IDS: readonly string[] = EXCHANGE_CHECKS.filter((c) => c.everyExchange).flatMap(
  (c) => c.ids,
);

/**
 * nginx's log status for a request whose client closed the connection before any answer: the service
 * sent nothing, so no rule judges it (a gateway log holds such lines).
 */
export const CLIENT_CLOSED = 499;

/** The ids of "Error body: the APIError object" and of a server fault: an answer of the API's own. */
const API_ERROR_IDS = new Set(['ERR-001', 'ERR-002']);

/**
 * Whether the request is a CORS preflight (Fetch standard: OPTIONS with Access-Control-Request-Method),
 * which a browser sends before the API request, without credentials, to ask what the CORS layer allows.
 */
export function isPreflight(res: HttpResponse): boolean {
  return (
    res.method.toUpperCase() === 'OPTIONS' &&
    Object.keys(res.exchange.requestHeaders).some((h) => h.toLowerCase() === 'access-control-request-method')
  );
}

/**
 * Every finding of the per-exchange checks on one exchange, and the ids it showed the form of. A 499 (no
 * answer was sent) is judged by none; the answer to a CORS preflight is the CORS layer's, not an API
 * error: not judged by ERR-001 and ERR-002 (its status and body are not the service's answer to a call).
 */
export function exchangeFindings(res: HttpResponse, ctx: ExchangeCheckContext): ExchangeJudgement {
  if (res.status === CLIENT_CLOSED) return { findings: [], observed: [] };
  const j = judgedExchange(res, ctx);
  if (!isPreflight(res)) return j;
  return {
    findings: j.findings.filter((f) => !API_ERROR_IDS.has(f.id)),
    observed: j.observed.filter((id) => !API_ERROR_IDS.has(id)),
  };
}

function judgedExchange(res: HttpResponse, ctx: ExchangeCheckContext): ExchangeJudgement {
  // A reply whose body a captured log does not hold: only the status speaks (a server fault, an
  // unavailable upstream); every family that reads the body is not judged on it.
  // A HEAD's answer has no body by definition (RFC 9110): the same.
  // A part of the body a log kept (a gateway's size cap) is still looked at for secrets.
  if (res.bodyAbsent !== undefined || res.method.toUpperCase() === 'HEAD') {
    const part = res.bodyAbsent !== undefined && res.text !== '' && ctx.secrets.length > 0;
    return {
      findings: [
        ...genericChecks(res).filter((f) => f.id !== 'ERR-001'),
        ...(part ? secretLeaks(res, ctx.secrets) : []),
      ],
      observed: ['ERR-002', 'ERR-003', ...(part ? ['SEC-001'] : [])],
    };
  }
  const findings: Finding[] = [];
  const observed = new Set<string>();
  // A body larger than the suite reads (HttpResponse.bodyTooLarge) was not parsed: only the leak scan
  // runs, on the part kept; the rest of its forms are not judged on it.
  const checks = res.bodyTooLarge
    ? EXCHANGE_CHECKS.filter((c) => c.ids.includes('SEC-001'))
    : EXCHANGE_CHECKS;
  for (const c of checks) {
    const r = c.run(res, ctx);
    findings.push(...r.findings);
    for (const id of r.observed) observed.add(id);
  }
  return { findings, observed: [...observed] };
}
