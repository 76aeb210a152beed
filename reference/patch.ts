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
  /** Table-wide media fields as the server enforces them. */
  mediaTable?: { custom_size_pattern?: string };
  /** Endpoints that serve a request without any key as the primary role's key. */
  keyless?: EndpointKey[];
  /** The scope check decided otherwise for one role on one endpoint: let through, or refused. */
  scopes?: { role: string; endpoint: EndpointKey; allow: boolean }[];
  /** An error kind (reference/errors.ts) answered under another status on one endpoint. */
  statuses?: { endpoint: EndpointKey; error: string; status: number }[];
}

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

/** The custom-size pattern as the server enforces it. */
export const customSizePattern = (t: Patched, tablePattern: string): string =>
  t.patch?.mediaTable?.custom_size_pattern ?? tablePattern;

/** The endpoint a routed request answers: its method and route, `:name` written `{name}`. */
export function endpointOf(request: FastifyRequest): EndpointKey | undefined {
  const route = request.routeOptions.url;
  return route === undefined ? undefined : `${request.method} ${route.replace(/:(\w+)/g, '{$1}')}`;
}

/** Whether the endpoint serves a request without a key (as the primary role's key). */
export const keyless = (t: Patched, endpoint: EndpointKey | undefined): boolean =>
  endpoint !== undefined && (t.patch?.keyless?.includes(endpoint) ?? false);

/** The patched scope decision for the role on the endpoint, if the patch decides it. */
export function scopeDecision(
  t: Patched,
  role: string,
  endpoint: EndpointKey | undefined,
): boolean | undefined {
  return t.patch?.scopes?.find((s) => s.role === role && s.endpoint === endpoint)?.allow;
}

/** The status the patch gives the error kind on the endpoint, if it changes it. */
export function patchedStatus(
  t: Patched,
  endpoint: EndpointKey | undefined,
  error: string,
): number | undefined {
  return t.patch?.statuses?.find((s) => s.endpoint === endpoint && s.error === error)?.status;
}
