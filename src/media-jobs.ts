/**
 * Media helpers for suites: sample media, uploads that clean up after themselves, the account's media
 * catalog, bounded job polling, and output sniffing (file-type). Client rules of the contract bind these
 * helpers: poll at the target's interval within its cap; never create a second job with a new key.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';
import { TERMINAL_STATUSES } from './checks/job-statuses.ts';
import { findCatalog, isPlainObject } from './checks/json.ts';
import type { HttpResponse } from './http/client.ts';
import { segment } from './http/segment.ts';
import { pkgPath } from './paths.ts';
import type { CheckContext, CleanupOutcome } from './runtime/check.ts';
import { isSuccess } from './runtime/judgement.ts';
import { noteJobsInFlight } from './runtime/liveness.ts';
import { Poller } from './runtime/poller.ts';
import { cleanupBoundMs, RUN_FILE_ENV, runConfig } from './runtime/run-config.ts';
import type { Role } from './vocabulary.ts';
import { readYaml } from './yaml-cache.ts';

export { ACTIVE_STATUSES, JOB_STATUSES, TERMINAL_STATUSES } from './checks/job-statuses.ts';

export interface SampleMedia {
  file: string;
  real_type: string;
  declared_type: string;
  /** The coding of the real bytes: png-rgb, png-rgba, jpeg-baseline, jpeg-progressive, webp-lossy, ... */
  format: string;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  video_codec: string | null;
  audio: boolean;
  bytes: number;
  sha256: string;
  purpose: string;
}

let manifest: Map<string, SampleMedia> | undefined;
const manifestOf = (): Map<string, SampleMedia> => {
  manifest ??= new Map(
    (readYaml(pkgPath('fixtures', 'media', 'manifest.yaml')) as { files: SampleMedia[] }).files.map((f) => [
      f.file,
      f,
    ]),
  );
  return manifest;
};

export function sample(file: string): SampleMedia & { data: Buffer } {
  const m = manifestOf().get(file);
  if (!m) throw new Error(`no sample media ${file} in fixtures/media/manifest.yaml`);
  return { ...m, data: readFileSync(pkgPath('fixtures', 'media', file)) };
}

/** Upload validation as the contract states it: "image edge 1 to 8192", video "duration_ms 1000 to 30000", H.264. */
export const UPLOAD_LIMITS = { maxEdge: 8192, minVideoMs: 1000, maxVideoMs: 30000 } as const;

/**
 * The samples every conforming server accepts at upload, whatever their coding: real bytes of their
 * declared type within the stated limits. Videos are H.264 without an audio track (whether an audio
 * track is refused is left open, judging.md).
 */
export function acceptableSamples(): SampleMedia[] {
  return [...manifestOf().values()].filter((s) => {
    if (s.real_type !== s.declared_type || s.width === null || s.height === null) return false;
    if (Math.min(s.width, s.height) < 1 || Math.max(s.width, s.height) > UPLOAD_LIMITS.maxEdge) return false;
    if (s.real_type !== 'video/mp4') return true;
    const ms = s.duration_ms ?? -1;
    return (
      s.video_codec === 'h264' && !s.audio && ms >= UPLOAD_LIMITS.minVideoMs && ms <= UPLOAD_LIMITS.maxVideoMs
    );
  });
}

/** The acceptable moov-first video sample lasting exactly `ms` (the edges of a reference window). */
export function videoSampleOf(ms: number): string {
  const found = acceptableSamples().find(
    (s) => s.real_type === 'video/mp4' && s.duration_ms === ms && s.format === 'mp4-moov-first',
  );
  if (!found) throw new Error(`no acceptable video sample of ${ms} ms in fixtures/media/manifest.yaml`);
  return found.file;
}

export interface Upload {
  res: HttpResponse;
  id?: string;
  input?: Record<string, unknown>;
}

/** What a test knows of a job it created: the inputs it references and its last status as read. */
interface JobSeen {
  references: string[];
  as: Role;
  status?: string;
  /** The last read's status and progress, and for how many reads in a row it stayed the same. */
  fingerprint?: string;
  unchanged: number;
  /** When the job was created, and when its status or progress last changed (ms since the epoch). */
  createdAt: number;
  changedAt: number;
}

/**
 * What the media helpers know of a test: the jobs it created (a test's inputs are referenced only by its
 * own jobs) and the inputs it will delete.
 */
const media = new WeakMap<CheckContext, { jobs: Map<string, JobSeen>; inputs: Set<string> }>();
const mediaOf = (t: CheckContext) => {
  const m = media.get(t) ?? { jobs: new Map<string, JobSeen>(), inputs: new Set<string>() };
  media.set(t, m);
  return m;
};
const jobs = (t: CheckContext) => mediaOf(t).jobs;

/** A job the test created, with the inputs its request references (they are held while it runs). */
export function trackJob(t: CheckContext, id: string, references: string[], as: Role = 'primary'): void {
  const now = Date.now();
  jobs(t).set(id, { references, as, unchanged: 0, createdAt: now, changedAt: now });
}

/**
 * The longest a job of this worker took from its create to a terminal status. Why: a real deployment's
 * job may sit in one status for minutes with no progress shown (video generation); a holder is taken
 * as stalled only once it has stayed unchanged longer than jobs of this run have taken to finish.
 */
let longestJobMs = 0;

/** Whether a job has stopped progressing: unchanged for STALL_POLLS reads and past the longest job seen. */
export function stalled(seen: Pick<JobSeen, 'unchanged' | 'changedAt'>, now = Date.now()): boolean {
  return seen.unchanged >= STALL_POLLS && now - seen.changedAt >= longestJobMs;
}

/** Note a read of a tracked job: its status, and whether anything (status, progress) moved. */
function noteJob(t: CheckContext, id: string, job: Record<string, unknown>): void {
  const seen = jobs(t).get(id);
  if (!seen) return;
  // Status and percentage only: a progress object may carry the time of the read itself.
  const fingerprint = JSON.stringify([job.status, job.progress_percent]);
  const now = Date.now();
  if (seen.fingerprint === fingerprint) seen.unchanged++;
  else [seen.unchanged, seen.changedAt] = [0, now];
  seen.fingerprint = fingerprint;
  seen.status = String(job.status);
  if (TERMINAL_STATUSES.includes(seen.status)) longestJobMs = Math.max(longestJobMs, now - seen.createdAt);
}

/**
 * Statuses in which a job will not release its inputs by itself while the suite waits: the client
 * keeps tracking a settlement_pending or submission_uncertain job (contract: top up, or repeat the same
 * create), and a terminal one is done.
 */
const NO_PROGRESS = ['settlement_pending', 'submission_uncertain', ...TERMINAL_STATUSES];
const cannotProgress = (status: string) => NO_PROGRESS.includes(status) || status.startsWith('unreadable');
/** Reads in a row with no change of status or progress after which a job is taken as not progressing. */
export const STALL_POLLS = 6;

/**
 * Delete an input. While a delete is refused (409/423/429) the input is waited for only while a job of
 * this test that references it can still progress: a holder that is settlement_pending,
 * submission_uncertain or terminal, or unchanged for STALL_POLLS reads, ends the wait at once; so do
 * the test's cleanup deadline and, with no known holder, a third refusal. What is left behind says why,
 * with the holder's id and status.
 */
export async function deleteInput(
  t: CheckContext,
  id: string,
  as: Role = 'primary',
): Promise<CleanupOutcome> {
  const deadline = t.cleanupDeadline ?? Date.now() + t.target.media.pollIntervalMs * STALL_POLLS;
  for (let refusals = 1; ; refusals++) {
    const res = await t.request('DELETE', `/v1/media/inputs/${segment(id, 'input id')}`, { as });
    if (res.status < 300 || res.status === 404) return true;
    if (res.status !== 409 && res.status !== 429 && res.status !== 423)
      return { reason: `DELETE answered ${res.status}` };
    // The job that matters is one that can still progress; else the newest that references the input.
    const holders = [...jobs(t)].filter(([, j]) => j.references.includes(id));
    const holderId = (holders.find(([, j]) => !cannotProgress(j.status ?? '')) ?? holders.at(-1))?.[0];
    if (holderId === undefined) {
      if (refusals >= 3)
        return {
          reason: `DELETE answered ${res.status} ${refusals} times; no job of this test references it`,
        };
    } else {
      const holder = jobs(t).get(holderId)!;
      // Read the holder unless the last read is fresh (a wait for the job's end just read it).
      if (holder.status === undefined || refusals > 1) await readJob(t, holderId, holder.as);
      const status = holder.status ?? 'unreadable';
      const held = { job: holderId, status };
      if (cannotProgress(status) && refusals > 1)
        return {
          reason: `DELETE answered ${res.status}: held by job ${holderId}, which is ${status} and will not release it while the suite waits`,
          holder: held,
        };
      if (stalled(holder))
        return {
          reason: `DELETE answered ${res.status}: held by job ${holderId}, unchanged (${status}) for ${holder.unchanged} reads`,
          holder: held,
        };
      if (Date.now() + t.target.media.pollIntervalMs > deadline)
        return {
          reason: `DELETE answered ${res.status}: held by job ${holderId} (${status}) when the cleanup bound of ${Math.round(cleanupBoundMs(t.target) / 1000)} s was reached`,
          holder: held,
          bound: true,
        };
      // A holder read as done just now: the delete is tried again at once; else after an interval (the
      // bound was looked at above, once: a second look here could find it passed meanwhile and end the
      // wait without naming its holder, as a loaded CI machine did).
      if (!cannotProgress(status)) await sleep(t.target.media.pollIntervalMs);
      continue;
    }
    if (Date.now() + t.target.media.pollIntervalMs > deadline)
      return {
        reason: `DELETE answered ${res.status} when the cleanup bound of ${Math.round(cleanupBoundMs(t.target) / 1000)} s was reached`,
        bound: true,
      };
    await sleep(t.target.media.pollIntervalMs);
  }
}

/** One read of a job (noted for the job's holder checks). */
async function readJob(t: CheckContext, id: string, as: Role): Promise<HttpResponse> {
  const res = await t.get(`/v1/media/jobs/${segment(id, 'job id')}`, { as });
  noteJob(t, id, isPlainObject(res.json) ? res.json : { status: `unreadable (${res.status})` });
  return res;
}

/** Upload a sample (declared with its declared type unless told otherwise); deleted again when the test ends. */
export async function upload(
  t: CheckContext,
  file: string,
  opts: { as?: Role; contentType?: string; idempotencyKey?: string; data?: Buffer; timeoutMs?: number } = {},
): Promise<Upload> {
  const s = sample(file);
  const body = opts.data ?? s.data;
  const as = opts.as ?? 'primary';
  const res = await t.request('POST', '/v1/media/inputs', {
    as,
    body,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    headers: {
      'content-type': opts.contentType ?? s.declared_type,
      'idempotency-key': opts.idempotencyKey ?? `conformance-upload-${randomUUID()}`,
      'x-filename': file,
    },
  });
  const input = isPlainObject(res.json) && isPlainObject(res.json.input) ? res.json.input : undefined;
  const id = typeof input?.id === 'string' ? input.id : undefined;
  // An id that cannot be one path segment ('.', '..', empty) is the target's failure here, where it came.
  if (id !== undefined && res.status < 300) segment(id, 'input id');
  // One cleanup per input: replays of an upload (same Idempotency-Key) answer the same input.
  if (id && res.status < 300 && !mediaOf(t).inputs.has(id)) {
    mediaOf(t).inputs.add(id);
    t.onCleanup(`media input ${id} (${file})`, () => deleteInput(t, id, as));
  }
  const out: Upload = { res };
  if (id) out.id = id;
  if (input) out.input = input;
  return out;
}

export interface CatalogView {
  status: number;
  entries: Array<Record<string, unknown>>;
  ids: string[];
}

/** The account's media catalog (GET /v1/media/models). */
export async function mediaCatalog(t: CheckContext, as: Role = 'primary'): Promise<CatalogView> {
  const res = await t.get('/v1/media/models', { as });
  const entries = (findCatalog(res.json)?.entries ?? []).filter(isPlainObject);
  return {
    status: res.status,
    entries,
    ids: entries.map((e) => e.id).filter((v): v is string => typeof v === 'string'),
  };
}

/**
 * The asset of a job that read succeeded, downloaded; `expired` when it was not served and the job reads
 * expired now (judging.md: "`succeeded` may later become `expired`"; the contract: "expired means preview
 * or asset is no longer available"): the asset is then not judged. `readStatus` reads the job once (a
 * test's GET, or a model run's, which also observes the read).
 */
export async function assetOfSucceeded(
  t: CheckContext,
  assetId: string,
  readStatus: () => Promise<string | undefined>,
): Promise<{ res: HttpResponse; expired?: true }> {
  const res = await t.get(`/v1/media/assets/${segment(assetId, 'asset id')}`);
  if (isSuccess(res.status) && res.body.length > 0) return { res };
  return (await readStatus()) === 'expired' ? { res, expired: true } : { res };
}

/** One read of a job's status (pollJob's GET, through the worker's poller), for assetOfSucceeded. */
export const jobStatusNow = (t: CheckContext, id: string) => async (): Promise<string | undefined> => {
  const trace = await pollJob(t, id, { until: () => true });
  return typeof trace.last?.status === 'string' ? trace.last.status : undefined;
};

export interface JobTrace {
  id: string;
  statuses: string[];
  last?: Record<string, unknown>;
  /** Every read, those answered 429 or 5xx included (they set neither `last` nor `statuses`: no job). */
  responses: HttpResponse[];
  /**
   * Why polling ended: `until` (the status asked for), `cap` (the poll cap), `unreadable`; with
   * `bounded`: `stalled` (no change for STALL_POLLS reads), `deadline` (the cleanup bound); without it,
   * `deadline` is the test's own time running out (CheckContext.waitDeadline); `balance`:
   * settlement_pending after the account's balance ran out (the job is kept, never created again).
   */
  end?: 'until' | 'cap' | 'unreadable' | 'stalled' | 'deadline' | 'balance';
}

/**
 * Whether a read of a job answers nothing about the job: a limit (429) or an unavailable moment (5xx;
 * judging.md: "a 502/503/504" is advisory). A 404 or another refusal is an answer, judged.
 */
export const readsNoJob = (res: Pick<HttpResponse, 'status'>): boolean =>
  res.status === 429 || res.status >= 500;

/**
 * How a wait that did not meet its status ended, for a test's not-run reason: the job's last status,
 * the polls, and why (the test's time, with the setting that gives more; the poll cap).
 */
export function unfinished(t: CheckContext, trace: JobTrace): string {
  const status = trace.statuses.at(-1) ?? 'unread';
  const path = trace.statuses.join(' > ') || 'unread';
  if (trace.end === 'deadline')
    return `the job was still ${status} after ${trace.responses.length} polls (${path}) when the test's time ran out (timeouts.test_ms ${t.target.timeouts.testMs} ms); a longer test_ms judges it`;
  if (trace.end === 'cap')
    return `the job was still ${status} after the poll cap of ${trace.responses.length} polls (${path})`;
  return `the job ended ${status} after ${trace.responses.length} polls (${path})`;
}

/**
 * Poll a job until it reaches a terminal status (or settlement_pending, which the client keeps
 * tracking: bounded here), at the target's interval, at most its poll cap. `bounded` (cleanups): also
 * end when the job stops progressing or the test's cleanup deadline comes. The waits go through the
 * worker's one poller (one GET per job per interval, Retry-After honoured); the GETs are this test's.
 */
export async function pollJob(
  t: CheckContext,
  id: string,
  opts: { as?: Role; until?: (status: string) => boolean; bounded?: true } = {},
): Promise<JobTrace> {
  const trace: JobTrace = { id, statuses: [], responses: [], end: 'cap' };
  const stop = opts.until ?? ((s: string) => TERMINAL_STATUSES.includes(s));
  const as = opts.as ?? 'primary';
  await watchJob(t, id, as, (res) => {
    trace.responses.push(res);
    // It is read again at the interval, within the cap, as a client polls.
    if (readsNoJob(res)) return false;
    if (!isPlainObject(res.json)) {
      trace.end = 'unreadable';
      return true;
    }
    trace.last = res.json;
    const status = String(res.json.status);
    if (trace.statuses[trace.statuses.length - 1] !== status) trace.statuses.push(status);
    const end = stop(status)
      ? 'until'
      : status === 'settlement_pending' && t.balanceRanOut
        ? 'balance'
        : opts.bounded
          ? boundedEnd(t, id)
          : pastWait(t)
            ? 'deadline'
            : undefined;
    if (end) trace.end = end;
    return end !== undefined;
  });
  return trace;
}

/** Whether the next read would come after the test body's wait deadline (CheckContext.waitDeadline). */
const pastWait = (t: CheckContext): boolean =>
  t.cleanupDeadline === undefined &&
  t.waitDeadline !== undefined &&
  Date.now() + t.target.media.pollIntervalMs > t.waitDeadline;

function boundedEnd(t: CheckContext, id: string): 'stalled' | 'deadline' | undefined {
  const seen = jobs(t).get(id);
  if (seen && stalled(seen)) return 'stalled';
  if (t.cleanupDeadline !== undefined && Date.now() + t.target.media.pollIntervalMs > t.cleanupDeadline)
    return 'deadline';
  return undefined;
}

/**
 * The progress line's count of jobs this thread waits on, written at most every JOBS_NOTE_MS (the
 * latest count once the interval is over): the count changes at every poll of a job, and a file
 * written and renamed at each change cost a quarter of a run's CPU time.
 */
const JOBS_NOTE_MS = 250;
let jobsNote: { n: number; at: number; timer?: ReturnType<typeof setTimeout> } = { n: 0, at: 0 };
function noteJobs(n: number): void {
  // Only for a progress line (runConfig's `progress`): a --quiet run's count has no reader.
  const run = process.env[RUN_FILE_ENV] ? runConfig() : undefined;
  if (!run?.progress) return;
  jobsNote.n = n;
  if (jobsNote.timer) return;
  const write = () => {
    jobsNote = { n: jobsNote.n, at: Date.now() };
    noteJobsInFlight(run.reportDir, threadId, jobsNote.n);
  };
  const wait = jobsNote.at + JOBS_NOTE_MS - Date.now();
  if (wait <= 0) write();
  else {
    jobsNote.timer = setTimeout(write, wait);
    jobsNote.timer.unref();
  }
}

/** This worker thread's job poller (module state: one per worker). */
const jobPoller = new Poller<HttpResponse>(Date.now, noteJobs);

/**
 * Wait on a job through the worker's poller: `onResult` sees every read (a GET by this test, noted for
 * the job's holder checks) and ends the wait by returning true; at most the target's poll cap of reads,
 * at its interval.
 */
export function watchJob(
  t: CheckContext,
  id: string,
  as: Role,
  onResult: (res: HttpResponse) => boolean,
): Promise<void> {
  return jobPoller.wait({
    key: `${as} ${id}`,
    intervalMs: t.target.media.pollIntervalMs,
    cap: t.target.media.pollCap,
    read: () => readJob(t, id, as),
    onResult,
  });
}

let fileType: Promise<typeof import('file-type')> | undefined;
/**
 * The real type of some bytes (file-type), e.g. { ext: 'png', mime: 'image/png' }. The package is loaded
 * on first use: a worker thread that sniffs nothing does not load it.
 */
export async function sniff(data: Buffer): Promise<{ ext: string; mime: string } | undefined> {
  fileType ??= import('file-type');
  return (await fileType).fileTypeFromBuffer(data);
}
