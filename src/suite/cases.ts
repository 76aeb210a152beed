/** Case tables (fixtures/cases/) and the tests made of a table or of generated values. */
import type { Arbitrary } from 'fast-check';
import type { HttpResponse } from '../http/client.ts';
import { pkgPath } from '../paths.ts';
import type { CheckContext } from '../runtime/check.ts';
import { check } from '../runtime/define.ts';
import { isSuccess } from '../runtime/judgement.ts';
import { checkProperty } from '../runtime/property.ts';
import type { Effect } from '../vocabulary.ts';
import { readYaml } from '../yaml-cache.ts';
import { controlAccepted, errorCode, expectErrorCode, expectStatus, isClientError } from './status.ts';

export interface Case {
  description: string;
  ids: string[];
  patch?: Record<string, unknown>;
  remove?: string[];
  valid: boolean;
  /** The error code the contract states for this refusal, where it states one. */
  code?: string;
  /**
   * A valid request that the contract leaves free to be refused for another cause: a 4xx is accepted
   * too, unless it carries this code (the one of the cause the value is inside of). CHAT-007's max_tokens
   * 0: ">= 0" is in range, whether it leaves room for a reply is not stated.
   */
  refusedWithout?: string;
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

/**
 * A table's accepted request in this worker: the control each refusal of the table stands beside. A test
 * of the same file whose valid request was accepted notes it (`noteAccepted`: no request is sent for the
 * control then); else the table's base request is sent once, its answer kept only when 2xx (a refused or
 * limited one is asked again by the next refusal).
 */
const accepted = new Map<string, Promise<Pick<HttpResponse, 'status' | 'exchange'>>>();
function baseAccepted(
  table: string,
  send: () => Promise<Pick<HttpResponse, 'status' | 'exchange'>>,
): Promise<Pick<HttpResponse, 'status' | 'exchange'>> {
  let answer = accepted.get(table);
  if (answer === undefined) {
    answer = send().then((res) => {
      if (!isSuccess(res.status)) accepted.delete(table);
      return res;
    });
    answer.catch(() => accepted.delete(table));
    accepted.set(table, answer);
  }
  return answer;
}

/**
 * A valid request of `table`'s endpoint answered 2xx in this worker: the control of the table's refusals
 * (a ticket or an order the acceptance test made anyway, so the refusals add no permanent state).
 */
export function noteAccepted(table: string, res: Pick<HttpResponse, 'status' | 'exchange'>): void {
  if (isSuccess(res.status) && !accepted.has(table)) accepted.set(table, Promise.resolve(res));
}

/**
 * A refusal proves its rule only beside its control: a valid request of the same endpoint, accepted. A
 * target refusing every call (a model it does not serve, a tenant barred from tickets) would otherwise
 * pass each refusal, and under --filter the run. The control is the request noted accepted, else
 * `send` (the table's base request) once per worker while accepted; where `unsent` gives a reason the
 * base request is not known valid (an order's amount without the deployment's minimum), none is sent
 * and the refusal is not judged unless one was noted.
 */
export async function refusalControl(
  t: CheckContext,
  opts: {
    table: string;
    what: string;
    send: () => Promise<Pick<HttpResponse, 'status' | 'exchange'>>;
    unsent?: string | undefined;
  },
): Promise<void> {
  if (opts.unsent !== undefined && !accepted.has(opts.table))
    return t.skip(
      `no control (${opts.what}) was accepted in this run and none is sent: ${opts.unsent}; a refusal could not tell this rule from another cause, so it is not judged`,
    );
  await controlAccepted(t, opts.what, () => baseAccepted(opts.table, opts.send));
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
  /** Why the base request is not known valid for this target, if it is not (see refusalControl). */
  unsent?: (t: CheckContext) => string | undefined;
}): void {
  for (const c of cases(opts.table)) {
    check(
      { ids: c.ids, effect: opts.effect },
      `${c.valid ? 'accepts' : 'refuses'} ${c.description}`,
      async (t) => {
        const baseBody = await opts.base(t);
        const body = applyCase(baseBody, c);
        // A streamed case (chat's bounds with `stream` true) may take as long as a stream does.
        const res = await t.post(
          opts.path,
          body,
          body.stream === true ? { timeoutMs: t.target.timeouts.streamMs } : {},
        );
        if (c.valid && c.refusedWithout && isClientError(res.status) && !t.isLimit(res.status)) {
          const got = errorCode(res.json) ?? null;
          t.ensure(
            got !== c.refusedWithout,
            c.ids[0]!,
            `${c.description} was refused with ${c.refusedWithout}, the code of a value outside the published range`,
            { pointer: '/error/code', received: got, exchange: res.exchange },
          );
          return;
        }
        const refused = expectStatus(t, res, c.ids[0]!, c.valid ? '2xx' : '4xx', c.description);
        if (refused && c.code) expectErrorCode(t, res, c.ids[0]!, c.code, c.description);
        if (!c.valid && refused)
          await refusalControl(t, {
            table: opts.table,
            what: `the table's base request to ${opts.path}`,
            send: () => t.post(opts.path, baseBody),
            unsent: opts.unsent?.(t),
          });
      },
    );
  }
}

/** One property test per field: generated values, each judged by the verdict the contract gives it. */
export function fieldPropertyChecks(opts: {
  effect: Effect;
  path: string;
  base: (t: CheckContext) => Promise<Record<string, unknown>>;
  fields: Array<{
    id: string;
    field: string;
    arbitrary: Arbitrary<{ value: unknown; valid: boolean }>;
    examples: ReadonlyArray<{ value: unknown; valid: boolean }>;
  }>;
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
          examples: p.examples,
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
