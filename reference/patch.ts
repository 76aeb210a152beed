// A fault that only changes a value, a bound or a status is data: a patch of the tables the reference
// enforces (the media models, the keys each endpoint needs, the scopes, the error statuses), carried by
// its entry (`patch`, reference/faults/<area>.ts) and applied here, the one mechanism, instead of a
// branch in the code it breaks. startReference resolves the fault's patch once into the context
// (`Toggles.patch`); the modules that read a table read it through these functions.
import type { FastifyRequest } from 'fastify';
import type { ModelDef, ParameterDef, PromptDef, ReferencesDef } from './media/table.ts';

/** A media model's change: prompt and reference fields merged; each named parameter replaced whole. */
export interface ModelChange {
  prompt?: Partial<PromptDef>;
  references?: Partial<ReferencesDef>;
  parameters?: Record<string, ParameterDef>;
}

export interface MediaModelPatch {
  model: string;
  set: ModelChange;
  /** The catalog advertises the change too (else only the server enforces it). */
  advertised?: true;
}

/** An endpoint as fixtures/endpoints.yaml and the applicability map name it: `GET /v1/media/jobs/{job_id}`. */
export type EndpointKey = string;

export interface TablePatch {
  /** Media models as the server enforces them (and, with `advertised`, as GET /v1/media/models shows them). */
  media?: MediaModelPatch[];
  /** Table-wide media fields as the server enforces them (for the listed `models` alone, when given). */
  mediaTable?: { custom_size_pattern?: string; models?: string[] };
  /** Endpoints that serve a request without any key as the primary role's key. */
  keyless?: EndpointKey[];
  /** One check of the key skipped on one endpoint (reference/auth.ts). */
  keyChecks?: { endpoint: EndpointKey; skip: KeyCheck }[];
  /** The scope check decided otherwise for one role on one endpoint: let through, or refused. */
  scopes?: { role: string; endpoint: EndpointKey; allow: boolean }[];
  /**
   * A refusal answered as another error kind (reference/errors.ts: its status, code and type) on one
   * endpoint, in one form of the request (streamed or not) when `form` is given.
   */
  errors?: { endpoint: EndpointKey; form?: 'streamed' | 'not streamed'; error: string; as: string }[];
}

/**
 * The checks of a key: `unknown` (a Bearer token that is no key is the primary key), `scheme` (any
 * scheme word before the key), `exact` (a key's prefix or extension is the key), `revoked`, `expiry`,
 * `allowlist` (the key's state and restrictions).
 */
export type KeyCheck = 'unknown' | 'scheme' | 'exact' | 'revoked' | 'expiry' | 'allowlist';

/** What a module reads the patch from: the run's toggles. */
interface Patched {
  patch?: TablePatch;
}

/** The model as the server enforces it (`enforcing`) or the catalog advertises it, the patch applied. */
export function patchedModel(
  t: Patched,
  id: string,
  def: ModelDef | undefined,
  enforcing: boolean,
): ModelDef | undefined {
  if (!def || !t.patch?.media) return def;
  let out = def;
  for (const p of t.patch.media) {
    if (p.model !== id || !(enforcing || p.advertised)) continue;
    out = {
      ...out,
      prompt: { ...out.prompt, ...p.set.prompt },
      references: { ...out.references, ...p.set.references },
      parameters: { ...out.parameters, ...p.set.parameters },
    };
  }
  return out;
}

/** The custom-size pattern as the server enforces it for the model. */
export function customSizePattern(t: Patched, tablePattern: string, model: string): string {
  const patched = t.patch?.mediaTable;
  if (!patched?.custom_size_pattern || (patched.models && !patched.models.includes(model)))
    return tablePattern;
  return patched.custom_size_pattern;
}

/** The endpoint a routed request answers: its method and route, `:name` written `{name}`. */
export function endpointOf(request: FastifyRequest): EndpointKey | undefined {
  const route = request.routeOptions.url;
  return route === undefined ? undefined : `${request.method} ${route.replace(/:(\w+)/g, '{$1}')}`;
}

/** Whether the endpoint serves a request without a key (as the primary role's key). */
export const servesKeyless = (t: Patched, endpoint: EndpointKey | undefined): boolean =>
  endpoint !== undefined && (t.patch?.keyless?.includes(endpoint) ?? false);

/** Whether the patch skips the key check on the endpoint. */
export const skipsKeyCheck = (t: Patched, endpoint: EndpointKey | undefined, check: KeyCheck): boolean =>
  t.patch?.keyChecks?.some((k) => k.endpoint === endpoint && k.skip === check) ?? false;

/** The patched scope decision for the role on the endpoint, if the patch decides it. */
export function scopeDecision(
  t: Patched,
  role: string,
  endpoint: EndpointKey | undefined,
): boolean | undefined {
  return t.patch?.scopes?.find((s) => s.role === role && s.endpoint === endpoint)?.allow;
}

/** The error kind the patch answers instead of `kind` on the request's endpoint (else `kind`). */
export function patchedError<K extends string>(t: Patched, request: FastifyRequest, kind: K): K {
  if (!t.patch?.errors) return kind;
  const endpoint = endpointOf(request);
  const streamed = (request.body as { stream?: unknown } | undefined)?.stream === true;
  const form = streamed ? 'streamed' : 'not streamed';
  const hit = t.patch.errors.find(
    (e) => e.error === kind && e.endpoint === endpoint && (e.form === undefined || e.form === form),
  );
  return (hit?.as as K | undefined) ?? kind;
}
