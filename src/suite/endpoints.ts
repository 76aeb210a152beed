/** The shared endpoint table (fixtures/endpoints.yaml) and probes built from it. */
import { templateRegex } from '../openapi/document.ts';
import { pkgPath } from '../paths.ts';
import type { CheckContext, Req } from '../runtime/check.ts';
import type { Effect } from '../vocabulary.ts';
import { readYaml } from '../yaml-cache.ts';

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
  /** Key scopes that may cover the endpoint; none for the deprecated payment endpoints. */
  scopes?: string[];
}

let endpointsCache: Endpoint[] | undefined;
export function endpoints(): Endpoint[] {
  endpointsCache ??= (readYaml(pkgPath('fixtures', 'endpoints.yaml')) as { endpoints: Endpoint[] }).endpoints;
  return endpointsCache;
}

export const businessEndpoints = (): Endpoint[] => endpoints().filter((e) => !e.public);

let routes: Array<{ endpoint: Endpoint; path: RegExp }> | undefined;
/** The contract's endpoint a request names (its method, and its path without query matching a template). */
export function endpointOf(method: string, path: string): Endpoint | undefined {
  routes ??= endpoints().map((endpoint) => ({ endpoint, path: templateRegex(endpoint.path) }));
  return routes.find((r) => r.endpoint.method === method && r.path.test(path))?.endpoint;
}

/**
 * Whether a path (its query aside) is one of the contract's table, whatever the method: a business path
 * (`/v1/...`) or a public one (`/healthz`, `/status`, `/openapi.json`).
 */
export function contractPathOf(path: string): 'business' | 'public' | undefined {
  routes ??= endpoints().map((endpoint) => ({ endpoint, path: templateRegex(endpoint.path) }));
  const bare = path.split('?')[0]!;
  const found = routes.filter((r) => r.path.test(bare));
  if (found.some((r) => !r.endpoint.public)) return 'business';
  return found.length > 0 ? 'public' : undefined;
}

export const label = (e: Endpoint): string => `${e.method} ${e.path}`;

/** The concrete path of an endpoint, its path parameters filled with probe values. */
export function concretePath(e: Endpoint): string {
  return e.path.replace(/\{([^}]+)\}/g, (_, name: string) => e.path_params?.[name] ?? `${name}_probe`);
}

/** The calls that stream (`stream` true in the body). */
const STREAMED = ['/v1/chat/completions', '/v1/responses'];

/**
 * Every business endpoint as `METHOD /path`, and after them the streamed form of the calls that stream,
 * an equivalent form of the same endpoint: its probe body with `stream` true, named
 * `METHOD /path (streamed)`. A streaming handler is often a route of its own, so what is judged on the
 * call (its key, its scope) is judged there too.
 */
export function businessForms(): Array<{ e: Endpoint; name: string }> {
  const plain = businessEndpoints();
  const streamed = plain
    .filter((e) => e.method === 'POST' && STREAMED.includes(e.path) && e.probe?.json)
    .map((e) => ({
      e: { ...e, probe: { ...e.probe, json: { ...(e.probe!.json as object), stream: true } } },
      name: `${label(e)} (streamed)`,
    }));
  return [...plain.map((e) => ({ e, name: label(e) })), ...streamed];
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
