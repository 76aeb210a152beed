/**
 * The model of one account that the model-based tests keep beside the target (not a copy of any
 * server): what the test itself did and saw - inputs it owns and which jobs reference them, jobs and
 * their last seen status, calls and the Idempotency-Keys they used, tickets it created, settled charges
 * it read, and (on a quiet account only) the balance it expects. One model per fast-check run.
 */
import { Decimal } from 'decimal.js';
import { ACTIVE_STATUSES, TERMINAL_STATUSES } from '../media-jobs.ts';
import type { MediaModel } from '../rules/media-models.ts';

/** Statuses after which no job holds its inputs: their delete must succeed. */
export const ENDED: readonly string[] = TERMINAL_STATUSES;
/** Statuses during which an input the job references cannot be deleted ("active" per judging.md). */
export const ACTIVE: readonly string[] = ACTIVE_STATUSES;

export type Mode = 'free' | 'billable' | 'exclusive';

export interface MediaChoice {
  id: string;
  rule: MediaModel;
}

/** What a model-based test may use; the same for every run of one test. */
export interface Env {
  /** free: read and write only; billable: every command, other traffic possible; exclusive: a quiet account. */
  mode: Mode;
  chat?: string;
  responses?: string;
  embedding?: string;
  /** Documented media models the account's catalog lists, cheapest outputs first. */
  media: MediaChoice[];
  /**
   * The target declares the capability media-fail-prompt: a job with the fail marker fails. At most
   * `failingLeft` such jobs in a run (a target that revives failed jobs keeps them polled to the cap).
   */
  failPrompt: boolean;
  failingLeft: { n: number };
  /** Side-effect class `tickets` is allowed; at most `ticketsLeft` are created in a run. */
  tickets: boolean;
  ticketsLeft: { n: number };
  /** Billable commands stop once a run has spent this many points (charges and holds it was told of). */
  pointsCap: Decimal;
}

export interface InputRecord {
  label: string;
  id: string;
  file: string;
  kind: 'image' | 'video';
  key: string;
  deleted: boolean;
}

export interface JobRecord {
  label: string;
  id: string;
  model: string;
  output: MediaModel['output'];
  /** The image format the output must have (requested or the model's default), if any. */
  format?: string;
  refs: string[];
  key: string;
  body: Record<string, unknown>;
  /** Statuses seen, oldest first, consecutive repeats collapsed. */
  seen: string[];
  assetId?: string;
}

export interface CallRecord {
  label: string;
  kind: 'chat' | 'responses';
  key: string;
  body: Record<string, unknown>;
}

export interface TicketRecord {
  label: string;
  tag: string;
}

export interface AccountModel {
  env: Env;
  inputs: InputRecord[];
  jobs: JobRecord[];
  calls: CallRecord[];
  tickets: TicketRecord[];
  /** Settled charges read from GET /v1/usage: record id -> charged_points as first read (PTS-006). */
  charges: Map<string, string>;
  /** Exclusive mode: total_points as the model expects it now; undefined until the next balance read. */
  total?: Decimal;
  /** Points the run's billable replies reported (charged or held), against env.pointsCap. */
  spent: Decimal;
  /** The job most recently created or replayed (its id). */
  lastJob?: string;
  /** The run already waited once for a job to end (one wait per run keeps runs short). */
  waited: boolean;
  /** The kinds of the commands run, in order (for the statistics of the run). */
  steps: string[];
}

export function newModel(env: Env): AccountModel {
  return {
    env,
    inputs: [],
    jobs: [],
    calls: [],
    tickets: [],
    charges: new Map(),
    spent: new Decimal(0),
    waited: false,
    steps: [],
  };
}

/** A label for the next item of a list (`input#1`, `job#2`): the script of a failure names them so. */
export function nextLabel(kind: string, list: readonly unknown[]): string {
  return `${kind}#${list.length + 1}`;
}

/** The item a command's `pick` selects among candidates (undefined when there is none). */
export function pickOf<T>(items: readonly T[], pick: number): T | undefined {
  return items.length === 0 ? undefined : items[pick % items.length];
}

export const liveInputs = (m: AccountModel, kind?: 'image' | 'video') =>
  m.inputs.filter((i) => !i.deleted && (kind === undefined || i.kind === kind));

/** Jobs referencing an input that the model has not seen end (they may still hold it). */
export function holders(m: AccountModel, inputId: string): JobRecord[] {
  return m.jobs.filter((j) => j.refs.includes(inputId) && !ENDED.includes(j.seen.at(-1) ?? ''));
}

export const canSpend = (m: AccountModel): boolean => m.spent.lt(m.env.pointsCap);

export function spend(m: AccountModel, points: Decimal | undefined): void {
  if (points?.isPositive()) m.spent = m.spent.plus(points);
}
