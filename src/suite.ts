/** What suite files import: the check wrapper, the shared endpoint table, and helpers to build probes. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Effect } from './model.ts';
import { pkgPath } from './paths.ts';
import type { CheckContext, Req } from './runtime/check.ts';

export { findEntryList, findField, isPlainObject } from './checks/json.ts';
export { judgePoints, pointsFields } from './checks/points.ts';
export { documented } from './openapi/documented.ts';
export { type CheckContext, check } from './runtime/check.ts';
export { worker } from './runtime/worker.ts';

export interface Endpoint {
  method: string;
  path: string;
  purpose: string;
  public?: boolean;
  effect: Effect;
  path_params?: Record<string, string>;
  probe?: { json?: unknown; base64?: string; content_type?: string };
  request_schema?: string;
  response_schema?: string;
}

let endpointsCache: Endpoint[] | undefined;
export function endpoints(): Endpoint[] {
  endpointsCache ??= (
    parse(readFileSync(pkgPath('fixtures', 'endpoints.yaml'), 'utf8')) as { endpoints: Endpoint[] }
  ).endpoints;
  return endpointsCache;
}

export const businessEndpoints = (): Endpoint[] => endpoints().filter((e) => !e.public);

export const label = (e: Endpoint): string => `${e.method} ${e.path}`;

/** The concrete path of an endpoint, its path parameters filled with probe values. */
export function concretePath(e: Endpoint): string {
  return e.path.replace(/\{([^}]+)\}/g, (_, name: string) => e.path_params?.[name] ?? `${name}_probe`);
}

/**
 * A valid request for an endpoint (model placeholders such as `{chat}` filled from the target's hints),
 * so that a probe differs from a good request only where the probe means it to.
 */
export async function probeRequest(t: CheckContext, e: Endpoint): Promise<Req> {
  const p = e.probe;
  if (!p) return {};
  if (p.base64 !== undefined) {
    return {
      body: Buffer.from(p.base64, 'base64'),
      headers: { 'content-type': p.content_type ?? 'application/octet-stream' },
    };
  }
  let json = JSON.stringify(p.json);
  for (const m of json.matchAll(/"\{(chat|embedding|responses|no_responses|forbidden)\}"/g)) {
    json = json.replace(m[0], JSON.stringify(await t.hint(m[1] as 'chat')));
  }
  return { json: JSON.parse(json) };
}

/** error.code of an APIError body, if any. */
export function errorCode(body: unknown): string | undefined {
  const err = (body as { error?: { code?: unknown } } | undefined)?.error;
  return typeof err?.code === 'string' ? err.code : undefined;
}
