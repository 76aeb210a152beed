/**
 * The real side of a model-based run: the test's checked requests, the job helper the media suites use
 * (handed in by the suite, so that creates follow the submission_uncertain rule and jobs are awaited
 * before the test ends), and the deadline every wait of the run ends by.
 */
import { randomUUID } from 'node:crypto';
import type { Exchange, HttpResponse } from '../http/client.ts';
import type { CheckContext } from '../runtime/check.ts';
import { isProblem, type Judged, type Problem } from './invariants.ts';

export interface Real {
  t: CheckContext;
  /** POST /v1/media/jobs with the given headers (Idempotency-Key included); the test waits for the job at its end. */
  postJob: (body: Record<string, unknown>, headers: Record<string, string>) => Promise<HttpResponse>;
  /** Epoch ms: waits of the run (a job's end) stop here, so that the run keeps its time limit. */
  deadline: number;
}

/** An invariant broken during a run: fails the fast-check run, which then shrinks the command list. */
export class ModelViolation extends Error {
  override name = 'ModelViolation';
  constructor(
    readonly problem: Problem,
    readonly exchange?: Exchange,
  ) {
    super(`[${problem.id}] ${problem.message}`);
  }
}

/**
 * An invariant evaluated on what the target showed (`res`): observed under its id where its form showed
 * (met or broken; CheckContext.observe), so that a run counts a pass only for the rules it judged; a
 * broken one fails the run, citing the exchange. Undefined: its inputs could not tell, not judged.
 */
export function judged(r: Real, j: Judged, res?: HttpResponse): void {
  if (!j) return;
  r.t.observe(j.id, res?.exchange);
  if (isProblem(j)) throw new ModelViolation(j, res?.exchange);
}

export const LEGACY = { accept: 'application/vnd.service.currency.v1+json' };

/** A fresh Idempotency-Key (the contract: a new logical task uses a new key). */
export const newKey = (what: string): string => `conformance-stateful-${what}-${randomUUID()}`;

export const is4xx = (status: number): boolean => status >= 400 && status < 500;

export const is2xx = (status: number): boolean => status >= 200 && status < 300;
