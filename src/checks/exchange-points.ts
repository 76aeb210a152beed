import type { HttpResponse } from '../http/client.ts';
import type { Finding } from './exchange.ts';
import { pointerOf, walkFields } from './json.ts';
import { POINTS_FIELDS, pointsFindings } from './points.ts';

/** Replies of the "new conversation interfaces" and account reads, where `*_credits` names must not appear. */
const POINTS_PATHS = /^\/v1\/(chat\/completions|responses|embeddings|balance|usage|ledger|models)(\?|$)/;

function creditsNames(root: unknown): string[] {
  const out: string[] = [];
  walkFields(root, (k, _v, _p, path) => {
    if (k.endsWith('_credits')) out.push(pointerOf(path));
  });
  return out;
}

/**
 * Points checks every JSON reply gets: any field of the points table, at any depth, is an exact decimal
 * string (PTS-001; exponent or float noise: PTS-002), and the conversation and account interfaces use
 * `*_points`, never `*_credits` (PTS-004). Replies in the legacy currency format are exempt: they
 * replace the points fields by design.
 */
export function pointsChecks(res: HttpResponse): Finding[] {
  // Business replies only: the description (/openapi.json) names points fields in its schemas.
  if (res.json === undefined || res.status >= 400 || !res.rawPath.startsWith('/v1/')) return [];
  if (res.mediaType?.includes('vnd.service.currency')) return [];
  const where = `${res.method} ${res.exchange.path}`;
  const out = pointsFindings(res.json, POINTS_FIELDS, where);
  if (POINTS_PATHS.test(res.rawPath)) {
    for (const p of creditsNames(res.json)) {
      out.push({
        id: 'PTS-004',
        message: `${where}: a *_credits field in a conversation or account reply`,
        pointer: p,
        expected: '*_points',
      });
    }
  }
  return out;
}
