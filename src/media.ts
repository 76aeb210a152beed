/**
 * Media helpers for suites: sample media, uploads that clean up after themselves, the account's media
 * catalog, bounded job polling, and output sniffing (file-type). Client rules of the contract bind these
 * helpers: poll at the target's interval within its cap; never create a second job with a new key.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileTypeFromBuffer } from 'file-type';
import { findEntryList, isPlainObject } from './checks/json.ts';
import type { HttpResponse } from './http/client.ts';
import type { Role } from './model.ts';
import { pkgPath } from './paths.ts';
import type { CheckContext } from './runtime/check.ts';
import { Poller } from './runtime/poller.ts';
import { readYaml } from './yaml-cache.ts';

export const JOB_STATUSES = [
  'authorizing',
  'queued',
  'running',
  'submission_uncertain',
  'output_fetching',
  'release_pending',
  'succeeded',
  'failed',
  'cancelled',
  'expired',
  'settlement_pending',
] as const;
export const ACTIVE_STATUSES = ['authorizing', 'queued', 'running', 'output_fetching'];
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled', 'expired'];

export interface SampleMedia {
  file: string;
  real_type: string;
  declared_type: string;
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
export function sample(file: string): SampleMedia & { data: Buffer } {
  manifest ??= new Map(
    (readYaml(pkgPath('fixtures', 'media', 'manifest.yaml')) as { files: SampleMedia[] }).files.map((f) => [
      f.file,
      f,
    ]),
  );
  const m = manifest.get(file);
  if (!m) throw new Error(`no sample media ${file} in fixtures/media/manifest.yaml`);
  return { ...m, data: readFileSync(pkgPath('fixtures', 'media', file)) };
}

export interface Upload {
  res: HttpResponse;
  id?: string;
  input?: Record<string, unknown>;
}

/** Delete an input, waiting (bounded) while an active job still holds it. */
export async function deleteInput(t: CheckContext, id: string, as: Role = 'primary'): Promise<boolean> {
  for (let i = 0; i < Math.max(3, t.target.media.pollCap); i++) {
    const res = await t.request('DELETE', `/v1/media/inputs/${encodeURIComponent(id)}`, { as });
    if (res.status < 300 || res.status === 404) return true;
    if (res.status !== 409 && res.status !== 429 && res.status !== 423) return false;
    await sleep(t.target.media.pollIntervalMs);
  }
  return false;
}

/** Upload a sample (declared with its declared type unless told otherwise); deleted again when the test ends. */
export async function upload(
  t: CheckContext,
  file: string,
  opts: { as?: Role; contentType?: string; idempotencyKey?: string; data?: Buffer } = {},
): Promise<Upload> {
  const s = sample(file);
  const body = opts.data ?? s.data;
  const as = opts.as ?? 'primary';
  const res = await t.request('POST', '/v1/media/inputs', {
    as,
    body,
    headers: {
      'content-type': opts.contentType ?? s.declared_type,
      'idempotency-key': opts.idempotencyKey ?? `conformance-upload-${randomUUID()}`,
      'x-filename': file,
    },
  });
  const input = isPlainObject(res.json) && isPlainObject(res.json.input) ? res.json.input : undefined;
  const id = typeof input?.id === 'string' ? input.id : undefined;
  if (id && res.status < 300) t.onCleanup(`media input ${id} (${file})`, () => deleteInput(t, id, as));
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
  const entries = (findEntryList(res.json)?.entries ?? []).filter(isPlainObject);
  return {
    status: res.status,
    entries,
    ids: entries.map((e) => e.id).filter((v): v is string => typeof v === 'string'),
  };
}

export interface JobTrace {
  id: string;
  statuses: string[];
  last?: Record<string, unknown>;
  responses: HttpResponse[];
}

/**
 * Poll a job until it reaches a terminal status (or settlement_pending, which the client keeps
 * tracking: bounded here), at the target's interval, at most its poll cap. The waits go through the
 * worker's one poller (one GET per job per interval, Retry-After honoured); the GETs are this test's.
 */
export async function pollJob(
  t: CheckContext,
  id: string,
  opts: { as?: Role; until?: (status: string) => boolean } = {},
): Promise<JobTrace> {
  const trace: JobTrace = { id, statuses: [], responses: [] };
  const stop = opts.until ?? ((s: string) => TERMINAL_STATUSES.includes(s));
  await watchJob(t, id, opts.as ?? 'primary', (res) => {
    trace.responses.push(res);
    if (!isPlainObject(res.json)) return true;
    trace.last = res.json;
    const status = String(res.json.status);
    if (trace.statuses[trace.statuses.length - 1] !== status) trace.statuses.push(status);
    return stop(status);
  });
  return trace;
}

/** This worker thread's job poller (module state: one per worker). */
const jobPoller = new Poller<HttpResponse>();

/**
 * Wait on a job through the worker's poller: `onResult` sees every read (a GET by this test) and ends
 * the wait by returning true; at most the target's poll cap of reads, at its interval.
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
    read: () => t.get(`/v1/media/jobs/${encodeURIComponent(id)}`, { as }),
    onResult,
  });
}

/** The real type of some bytes (file-type), e.g. { ext: 'png', mime: 'image/png' }. */
export async function sniff(data: Buffer): Promise<{ ext: string; mime: string } | undefined> {
  return fileTypeFromBuffer(data);
}
