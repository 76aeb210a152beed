// Media inputs and jobs of one reference run, and the job lifecycle. Time drives everything: a
// job's status is computed from its age when read, and its points are settled (charge, or release
// of the hold) by settleDue, which runs before every authenticated request of the account, so the
// balance and ledger never lag behind what a job read shows.
import { available, Exact, newId, points } from '../billing.ts';
import type { RefContext } from '../context.ts';
import type { Account, LedgerEntry, State } from '../state.ts';

export interface MediaInput {
  id: string;
  accountId: string;
  filename: string;
  /** The content type the input is reported and judged under. */
  contentType: string;
  /** What sniffing found (undefined: not recognised). */
  realType: string | undefined;
  codec: string | null;
  sizeBytes: number;
  width: number;
  height: number;
  durationMs: number;
  sha256: string;
  availableAt: string;
  deletedAt?: number;
}

/**
 * The store's key of an input: its id, or, where ids are numbered per tenant (variant
 * input-ids-per-tenant: `in_3` names one input in each account), the account and its id.
 */
export function inputKey(perTenant: boolean, accountId: string, id: string): string {
  return perTenant ? `${accountId}\n${id}` : id;
}

export type Settlement = 'open' | 'charged' | 'released' | 'unpaid';

export interface MediaJob {
  id: string;
  accountId: string;
  model: string;
  kind: string;
  /** False when the request omitted `kind` (fault kind-missing). */
  kindSent: boolean;
  output: 'image' | 'video' | 'glb';
  /** Image output format (png, jpeg, webp). */
  format: string;
  referenceIds: string[];
  createdMs: number;
  createdAt: string;
  /** The first reply as sent, answered again to a repeated create (variant job-replay-stored). */
  storedReply?: Record<string, unknown>;
  quote: string;
  hold: string;
  fails: boolean;
  /** Capability media-uncertain-prompt: the job reads submission_uncertain first (uncertainUntil). */
  uncertain: boolean;
  /** When a read first answered the job in submission_uncertain. */
  uncertainSeenMs?: number;
  assetId: string;
  settlement: Settlement;
  /** Fault failed-flips: the job was read as failed once. */
  failedShown?: boolean;
  /** Variant succeeded-expires: the job was read as succeeded once; `expired`: it has read expired since. */
  succeededShown?: boolean;
  expired?: boolean;
  charged: string;
  released: string;
  /** Duration of each of its stages (the store's step, or its output kind's job duration / 4). */
  stepMs: number;
}

/** Output kinds whose jobs can be given their own duration (start option mediaJobMs). */
export type JobDurations = Partial<Record<MediaJob['output'], number>>;

export interface MediaStore {
  stepMs: number;
  /** Whole-job durations by output kind (succeeded after 4 stages); others take 4 x stepMs. */
  jobMs: JobDurations;
  inputs: Map<string, MediaInput>;
  jobs: Map<string, MediaJob>;
  /** Asset id -> job id. */
  assets: Map<string, string>;
  /** The fault the server was started with, for the store's own bookkeeping (ledger, quota). */
  fault?: string | undefined;
}

const stores = new WeakMap<State, MediaStore>();

export function mediaStore(state: State, stepMs?: number, jobMs: JobDurations = {}): MediaStore {
  let store = stores.get(state);
  if (!store) {
    store = {
      stepMs: Math.max(1, stepMs ?? 150),
      jobMs: { ...jobMs },
      inputs: new Map(),
      jobs: new Map(),
      assets: new Map(),
    };
    stores.set(state, store);
  }
  return store;
}

/** The stage duration of a new job of this output kind. */
export function jobStepMs(store: MediaStore, output: MediaJob['output']): number {
  const whole = store.jobMs[output];
  return whole === undefined ? store.stepMs : Math.max(1, Math.round(whole / 4));
}

// ------------------------------------------------------------------ inputs and quota

/** A deleted input's private object is cleaned up (and its quota released) one step after delete. */
export function cleanedUp(store: MediaStore, input: MediaInput, now = Date.now()): boolean {
  return input.deletedAt !== undefined && now >= input.deletedAt + store.stepMs;
}

export function usedBytes(store: MediaStore, accountId: string, now = Date.now()): number {
  let used = 0;
  // Fault quota-not-released: a deleted input keeps counting after its cleanup.
  for (const input of store.inputs.values())
    if (
      input.accountId === accountId &&
      (store.fault === 'quota-not-released' || !cleanedUp(store, input, now))
    )
      used += input.sizeBytes;
  return used;
}

export const kindOfInput = (input: MediaInput): 'image' | 'video' =>
  input.contentType === 'video/mp4' ? 'video' : 'image';

// ------------------------------------------------------------------ lifecycle

export const ACTIVE = ['authorizing', 'queued', 'submission_uncertain', 'running', 'output_fetching'];
const STAGES = ['authorizing', 'queued', 'running', 'output_fetching'];

/** Steps after creation at which a job's outcome is settled. */
const doneStep = (job: MediaJob) => (job.fails ? 3 : 4);

/**
 * A job of capability media-uncertain-prompt reads submission_uncertain where it would read queued (from
 * its second step), for UNCERTAIN_STEPS from its creation and at least UNCERTAIN_SEEN_STEPS after a read
 * first met it so; its later stages move by as much. Why that long: a client that polls on a loaded
 * machine must meet the status, and then repeat its create and read the job again while it lasts (the
 * contract shows no duration; a real submission stays uncertain until the provider answers).
 */
const UNCERTAIN_STEPS = 8;
const UNCERTAIN_SEEN_STEPS = 10;
function uncertainEnd(job: MediaJob): number {
  const seen =
    job.uncertainSeenMs === undefined ? 0 : job.uncertainSeenMs + UNCERTAIN_SEEN_STEPS * job.stepMs;
  return Math.max(job.createdMs + UNCERTAIN_STEPS * job.stepMs, seen);
}
/** How much later than a plain job an uncertain one reaches its later stages (queued ends at step 2). */
const shiftOf = (job: MediaJob) => (job.uncertain ? uncertainEnd(job) - (job.createdMs + 2 * job.stepMs) : 0);

/** When a job's outcome is settled. */
const doneAt = (job: MediaJob) => job.createdMs + doneStep(job) * job.stepMs + shiftOf(job);

/** A read answered the job: one in submission_uncertain stays so a while longer (uncertainUntil). */
export function noteRead(job: MediaJob, view: JobView, now = Date.now()): void {
  if (view.status === 'submission_uncertain' && job.uncertainSeenMs === undefined) job.uncertainSeenMs = now;
}

export interface JobView {
  status: string;
  percent: number | null;
}

export function statusOf(ctx: RefContext, job: MediaJob, now = Date.now()): JobView {
  if (job.uncertain && now >= job.createdMs + job.stepMs && now < uncertainEnd(job))
    return { status: 'submission_uncertain', percent: null };
  const elapsed = Math.max(0, now - job.createdMs - (now >= job.createdMs + job.stepMs ? shiftOf(job) : 0));
  const step = Math.floor(elapsed / job.stepMs);
  if (now >= doneAt(job) && job.settlement !== 'open') {
    if (job.fails) return { status: 'failed', percent: null };
    return { status: job.settlement === 'unpaid' ? 'settlement_pending' : 'succeeded', percent: 100 };
  }
  const stage = STAGES[Math.min(step, STAGES.length - 1)] as string;
  // Fault progress-101: every stage before the end says 101, the create reply's included (a check that
  // reads the job only once, or a poll that misses the running stage under load, still sees it).
  const over = ctx.fault === 'progress-101';
  if (stage === 'authorizing') return { status: stage, percent: over ? 101 : null };
  if (stage === 'queued') return { status: stage, percent: over ? 101 : 0 };
  if (stage === 'running') {
    if (over) return { status: stage, percent: 101 };
    const fraction = (elapsed - 2 * job.stepMs) / job.stepMs;
    return { status: stage, percent: Math.min(99, Math.max(1, Math.floor(fraction * 100))) };
  }
  return { status: stage, percent: over ? 101 : 100 };
}

export function isActive(ctx: RefContext, job: MediaJob, now = Date.now()): boolean {
  return ACTIVE.includes(statusOf(ctx, job, now).status);
}

// ------------------------------------------------------------------ points

function ledger(account: Account, entry: Omit<LedgerEntry, 'id' | 'usageId' | 'balanceAfterPoints'>): void {
  account.ledger.push({ id: newId('le_'), usageId: null, balanceAfterPoints: account.totalPoints, ...entry });
}

/**
 * Places the job's hold: its quote, or what the account has available when that is less (the job
 * still runs; its settlement then waits for points: settlement_pending).
 */
export function placeHold(account: Account, quote: string): string {
  const hold = Exact.max(0, Exact.min(new Exact(quote), available(account)));
  if (hold.isZero()) return '0';
  account.heldPoints = points(new Exact(account.heldPoints).plus(hold));
  ledger(account, {
    type: 'hold',
    amountPoints: '0',
    heldChangePoints: points(hold),
    createdAt: new Date().toISOString(),
  });
  return points(hold);
}

/** Settles every job of the account whose outcome is due, in the order they became due. */
export function settleDue(store: MediaStore, account: Account, now = Date.now()): void {
  const due = [...store.jobs.values()]
    .filter((j) => j.accountId === account.id && j.settlement === 'open')
    .map((j) => ({ job: j, at: doneAt(j) }))
    .filter(({ at }) => at <= now)
    .sort((a, b) => a.at - b.at);
  for (const { job, at } of due) settle(store, account, job, new Date(at).toISOString());
}

function settle(store: MediaStore, account: Account, job: MediaJob, createdAt: string): void {
  const hold = new Exact(job.hold);
  if (job.fails) {
    account.heldPoints = points(new Exact(account.heldPoints).minus(hold));
    if (!hold.isZero())
      ledger(account, {
        type: 'release',
        amountPoints: '0',
        heldChangePoints: points(hold.neg()),
        createdAt,
      });
    job.settlement = 'released';
    job.charged = '0';
    job.released = job.hold;
    return;
  }
  const charge = new Exact(job.quote);
  if (available(account).plus(hold).lt(charge)) {
    job.settlement = 'unpaid';
    return;
  }
  account.totalPoints = points(new Exact(account.totalPoints).minus(charge));
  account.heldPoints = points(new Exact(account.heldPoints).minus(hold));
  // Fault ledger-missing-media: the charge is settled but not written to the ledger.
  if (store.fault !== 'ledger-missing-media')
    ledger(account, {
      type: 'charge',
      amountPoints: points(charge.neg()),
      heldChangePoints: points(hold.neg()),
      createdAt,
    });
  job.settlement = 'charged';
  job.charged = job.quote;
  job.released = points(Exact.max(0, hold.minus(charge)));
  // Its usage record: "per-request token usage, model and charged amount" (no tokens for media). Faults
  // media-usage-unrecorded and job-usage-unrecorded-unstated: none.
  // A record listed since the job's creation (variant usage-job-record-early) is charged now.
  const early = account.usage.find((r) => r.jobId === job.id);
  if (early) {
    early.chargedPoints = job.charged;
    delete early.unsettled;
  } else if (store.fault !== 'media-usage-unrecorded' && store.fault !== 'job-usage-unrecorded-unstated')
    account.usage.push({
      id: newId('usage_'),
      requestId: job.id,
      endpoint: '/v1/media/jobs',
      model: job.model,
      promptTokens: 0,
      completionTokens: 0,
      prices: { request: '0', response: '0' },
      chargedPoints: job.charged,
      createdAt,
      jobId: job.id,
    });
}
