import { type HttpResponse, recordNow } from '../http/client.ts';
import type { VerdictCase } from '../vocabulary.ts';
import { isPlainObject } from './json.ts';

export interface Finding {
  id: string;
  message: string;
  pointer?: string;
  received?: unknown;
  expected?: unknown;
  /** Overrides the requirement's level (e.g. a notable finding under a failure-level id). */
  level?: 'notable';
  /** The case of a rule one cause breaks in many places (src/report/groups.ts groups them). */
  verdictCase?: VerdictCase;
}

/** ERR-001: every error status carries `{error: {code, message, type}}`, three strings. */
export function apiErrorShape(res: HttpResponse): string[] {
  const problems: string[] = [];
  if (res.json === undefined)
    return [`the body is not JSON (${res.mediaType ?? 'no content-type'}, ${res.body.length} bytes)`];
  if (!isPlainObject(res.json)) return ['the body is not a JSON object'];
  const err = res.json.error;
  if (!isPlainObject(err)) return ['no `error` object'];
  for (const f of ['code', 'message', 'type']) {
    if (typeof err[f] !== 'string')
      problems.push(`error.${f} is ${err[f] === undefined ? 'missing' : typeof err[f]}, expected a string`);
  }
  return problems;
}

const patterns = new Map<string, RegExp>();
/** The last list of secrets asked for, its length then, and its pattern (a run or a capture asks with one list). */
let lastAsked: { secrets: ReadonlyArray<{ value: string }>; count: number; pattern: RegExp } | undefined;
/** A pattern that matches where any of the secrets' values stands (kept per list of values). */
function anyOf(secrets: ReadonlyArray<{ value: string }>): RegExp {
  // The same list again, as long as then (a followed log's list only grows, at its end): its pattern,
  // without making its key (a capture of many keys made a key of all of them for every reply).
  if (lastAsked?.secrets === secrets && lastAsked.count === secrets.length) return lastAsked.pattern;
  const key = JSON.stringify(secrets.map((s) => s.value));
  let p = patterns.get(key);
  if (!p) {
    if (patterns.size >= 64) patterns.clear();
    p = secrets.length
      ? new RegExp(secrets.map((s) => s.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'))
      : /(?!)/;
    patterns.set(key, p);
  }
  lastAsked = { secrets, count: secrets.length, pattern: p };
  return p;
}

/** Checks every exchange gets, whatever the test: error shape and server faults. */
export function genericChecks(res: HttpResponse): Finding[] {
  const out: Finding[] = [];
  const where = `${res.method} ${res.exchange.path}`;
  if (res.status >= 400) {
    const problems = apiErrorShape(res);
    if (problems.length > 0) {
      out.push({
        id: 'ERR-001',
        message: `${where} answered ${res.status} without the APIError shape: ${problems.join('; ')}`,
        // The whole body (`""`): the fact a test's own look at the same body finds too (groups.ts).
        pointer: '',
        // A capture's record is made now (recordNow): the preview is the record's, as a live run's.
        received: recordNow(res.exchange).responseBody?.preview ?? `${res.body.length} bytes`,
        expected: '{"error":{"code":"…","message":"…","type":"…"}}',
      });
    }
  }
  if (res.status === 500) {
    out.push({
      id: 'ERR-002',
      message: `${where} answered 500 (a server fault; no known condition maps to 500)`,
      received: 500,
    });
  } else if (res.status === 502 || res.status === 503 || res.status === 504) {
    out.push({
      id: 'ERR-003',
      message: `${where} answered ${res.status}: the model or an upstream was unavailable`,
      received: res.status,
    });
  }
  return out;
}

/**
 * SEC-001 on evidence: any configured key value or canary anywhere in a response (headers or body).
 * `secrets` maps a label (role or `canary`) to the value. The message never contains the value.
 */
export function secretLeaks(res: HttpResponse, secrets: Array<{ label: string; value: string }>): Finding[] {
  // One look for any of them first: a reply that holds none (nearly all) is read once, not once per secret.
  const any = anyOf(secrets);
  if (!any.test(res.text) && !Object.values(res.headers).some((v) => any.test(v))) return [];
  const out: Finding[] = [];
  const where = `${res.method} ${res.exchange.path}`;
  for (const { label, value } of secrets) {
    for (const [name, v] of Object.entries(res.headers)) {
      if (v.includes(value))
        out.push({
          id: 'SEC-001',
          message: `${where}: response header ${name} contains the ${label} secret`,
        });
    }
    const idx = res.text.indexOf(value);
    if (idx >= 0)
      out.push({
        id: 'SEC-001',
        message: `${where}: response body contains the ${label} secret at byte offset ${idx}`,
      });
  }
  return out;
}
