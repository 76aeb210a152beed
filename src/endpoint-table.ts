/** The contract's endpoint table (fixtures/endpoints.yaml), read once: no dependency beyond the fixture. */
import { templateRegex } from './openapi/document.ts';
import { pkgPath } from './paths.ts';
import type { Effect } from './vocabulary.ts';
import { readYaml } from './yaml-cache.ts';

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
