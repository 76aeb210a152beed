/**
 * The one door of the suites: every suites/ file imports the harness from here and from nowhere else in
 * src/ (biome.json enforces it with style/noRestrictedImports), and never from reference/. Here: the
 * check wrapper, the shared endpoint table and case tables, helpers to build probes, and re-exports of
 * what the suites use of the harness (media jobs and rules, accounts rules, the model-based tests).
 */
import type { Arbitrary } from 'fast-check';
import type { HttpResponse } from './http/client.ts';
import { documented } from './openapi/documented.ts';
import { pkgPath } from './paths.ts';
import { type CheckContext, check, type Req } from './runtime/check.ts';
import { checkProperty } from './runtime/property.ts';
import type { Effect } from './vocabulary.ts';
import { readYaml } from './yaml-cache.ts';

export { apiErrorShape } from './checks/exchange.ts';
export { entryId, findEntryList, findField, isPlainObject, listingMentions } from './checks/json.ts';
export { judgePoints, pointsFieldPointers, pointsFields, pointsFindings } from './checks/points.ts';
export { parseSse, TERMINAL_EVENTS, terminalEventProblems } from './checks/sse.ts';
export { TransportError } from './errors.ts';
export { type Exchange, type HttpResponse, retryAfterMs } from './http/client.ts';
export { PROBE_CREDENTIALS } from './http/redact.ts';
export { segment } from './http/segment.ts';
export {
  ACTIVE_STATUSES,
  acceptableSamples,
  JOB_STATUSES,
  type JobTrace,
  mediaCatalog,
  pollJob,
  sample,
  sniff,
  TERMINAL_STATUSES,
  trackJob,
  UPLOAD_LIMITS,
  upload,
  videoSampleOf,
} from './media-jobs.ts';
export type { BodySide } from './openapi/document.ts';
export { DriftComparer } from './openapi/drift.ts';
export { checkOpenApi31, LiveDescription } from './openapi/live.ts';
export * as accounts from './rules/accounts.ts';
export * as rules from './rules/chat.ts';
export {
  type Axis,
  type CoveredValue,
  type CoveringReferences,
  cheapestMegapixels,
  cheapestParameters,
  coveringDesign,
  packAxes,
} from './rules/covering.ts';
export {
  catalogModel,
  catalogParameterCases,
  type MediaModel,
  mediaTable,
  type PromptBreak,
  parameterCases,
  promptArbitrary,
  promptBoundaryValid,
  promptValid,
  sizeCases,
  utf8CapBinds,
} from './rules/media-models.ts';
export {
  answeredCause,
  type CheckContext,
  type CheckSpec,
  check,
  group,
  isSuccess,
  type Req,
  type Verdict,
} from './runtime/check.ts';
export { depth, PROFILE_PROPERTY_RUNS, type Profile } from './runtime/run-config.ts';
export { seededSample } from './runtime/sample.ts';
export { discoverHints, worker } from './runtime/worker.ts';
export { ACTIVE, type Env, type MediaChoice, type Mode, newModel } from './stateful/account-state.ts';
export { commandsFor } from './stateful/commands/index.ts';
export { readBalance } from './stateful/commands/read-balance.ts';
export { UploadInput } from './stateful/commands/upload-input.ts';
export {
  addedRecords,
  availableProblem,
  type BalanceFigures,
  balanceMoveProblem,
  balanceOf,
  chargedOf,
  ledgerAddsUpProblem,
  ledgerBalanceProblem,
  ledgerChainProblem,
  ledgerOf,
  type Problem,
  recordKey,
  reportedSpend,
  usageChargeProblem,
} from './stateful/invariants.ts';
export { newKey, type Real } from './stateful/real.ts';
export { runModel } from './stateful/runner.ts';
export type { Hint, Role } from './vocabulary.ts';
export { checkProperty, documented };

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

export interface Case {
  description: string;
  ids: string[];
  patch?: Record<string, unknown>;
  remove?: string[];
  valid: boolean;
  /** The error code the contract states for this refusal, where it states one. */
  code?: string;
}

/** A YAML case table of fixtures/cases/. */
export function cases(name: string): Case[] {
  return (readYaml(pkgPath('fixtures', 'cases', `${name}.yaml`)) as { cases: Case[] }).cases;
}

/** `{ $repeat: 'ab', times: 3 }` in a case table stands for 'ababab' (long strings stay readable). */
export function expand(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(expand);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$repeat === 'string' && typeof o.times === 'number') return o.$repeat.repeat(o.times);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, expand(x)]));
  }
  return v;
}

export function applyCase(
  base: Record<string, unknown>,
  c: Pick<Case, 'patch' | 'remove'>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...base,
    ...((expand(c.patch) as Record<string, unknown> | undefined) ?? {}),
  };
  for (const f of c.remove ?? []) delete body[f];
  return body;
}

/** Violations of a documented schema (schemas/), each attributed to a requirement by its pointer. */
export function documentedViolations(
  t: CheckContext,
  res: HttpResponse,
  schema: string,
  idFor: (pointer: string) => string,
): void {
  const v = documented().validator(schema);
  if (v(res.json)) return;
  for (const e of v.errors ?? []) {
    const pointer = e.instancePath || '/';
    t.violate(
      idFor(pointer),
      `${res.method} ${res.exchange.path}: ${pointer} ${e.message ?? e.keyword} (${schema})`,
      {
        pointer,
        expected: e.params,
        exchange: res.exchange,
      },
    );
  }
}

/**
 * A request the contract accepts, judged by the one verdict (CheckContext.verdict): a 2xx, else a
 * violation of `id` with the exchange as evidence; a 429 is a limit, the case is not judged. Returns
 * whether the request was accepted (not after a 429: nothing that follows can read the answer).
 */
export function accepted(
  t: CheckContext,
  res: HttpResponse,
  id: string,
  what: string,
  evidence: { expected?: unknown; level?: 'notable' } = {},
): boolean {
  const verdict = t.verdict(res, true, what);
  if (verdict.mismatch)
    t.violate(id, verdict.mismatch, {
      received: res.status,
      expected: '2xx',
      ...evidence,
      exchange: res.exchange,
      ...(verdict.case ? { verdictCase: verdict.case } : {}),
    });
  return verdict.judged && verdict.mismatch === undefined;
}

/**
 * One test per row of a case table: send the base request patched by the row, judge it by the row's
 * verdict, and where the row names the contract's error code, require it.
 */
export function caseTableChecks(opts: {
  table: string;
  effect: Effect;
  path: string;
  base: (t: CheckContext) => Promise<Record<string, unknown>> | Record<string, unknown>;
}): void {
  for (const c of cases(opts.table)) {
    check(
      { ids: c.ids, effect: opts.effect },
      `${c.valid ? 'accepts' : 'refuses'} ${c.description}`,
      async (t) => {
        const res = await t.post(opts.path, applyCase(await opts.base(t), c));
        const verdict = t.verdict(res, c.valid, c.description);
        if (verdict.mismatch)
          t.violate(c.ids[0]!, verdict.mismatch, {
            received: res.status,
            exchange: res.exchange,
            ...(verdict.case ? { verdictCase: verdict.case } : {}),
          });
        else if (verdict.judged && c.code) {
          t.ensure(
            errorCode(res.json) === c.code,
            c.ids[0]!,
            `${c.description} was refused with code ${JSON.stringify(errorCode(res.json))}`,
            {
              pointer: '/error/code',
              received: errorCode(res.json) ?? null,
              expected: c.code,
              exchange: res.exchange,
            },
          );
        }
      },
    );
  }
}

/** One property test per field: generated values, each judged by the verdict the contract gives it. */
export function fieldPropertyChecks(opts: {
  effect: Effect;
  path: string;
  base: (t: CheckContext) => Promise<Record<string, unknown>>;
  fields: Array<{ id: string; field: string; arbitrary: Arbitrary<{ value: unknown; valid: boolean }> }>;
}): void {
  for (const p of opts.fields) {
    check(
      { ids: [p.id], effect: opts.effect },
      `judges generated ${p.field} values by the contract's rule`,
      async (t) => {
        const body = await opts.base(t);
        await checkProperty(t, {
          id: p.id,
          arbitrary: p.arbitrary,
          run: async (c) => {
            const res = await t.post(opts.path, { ...body, [p.field]: c.value });
            return t.verdict(res, c.valid, `${p.field} ${JSON.stringify(c.value)}`).mismatch;
          },
          verdictCase: (c) => ({
            wrong: c.valid ? 'refused' : 'accepted',
            what: `generated ${p.field} values`,
          }),
        });
      },
    );
  }
}
