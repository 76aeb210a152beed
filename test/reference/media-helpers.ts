import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ReferenceHandle } from '../../reference/start.ts';
import { type CallOptions, call, type Exchange } from './helpers.ts';

export { ACK, jobBody, sleep } from '../../reference/faults/probe.ts';

export interface Sample {
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
}

const fixture = (path: string) => new URL(`../../fixtures/${path}`, import.meta.url);
export const SAMPLES: Sample[] = (
  parse(readFileSync(fixture('media/manifest.yaml'), 'utf8')) as { files: Sample[] }
).files;
// biome-ignore lint/suspicious/noExplicitAny: the table is probed field by field
export const TABLE: any = parse(readFileSync(fixture('media-models.yaml'), 'utf8'));
export const sampleBytes = (file: string) => readFileSync(fixture(`media/${file}`));
export const sample = (file: string) => SAMPLES.find((s) => s.file === file) as Sample;

export async function upload(
  ref: ReferenceHandle,
  file: string,
  opts: { role?: string; type?: string; headers?: Record<string, string> } = {},
): Promise<Exchange> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${ref.keys[opts.role ?? 'primary']}`,
    'content-type': opts.type ?? sample(file).declared_type,
    ...opts.headers,
  };
  const res = await fetch(`${ref.url}/v1/media/inputs`, { method: 'POST', headers, body: sampleBytes(file) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** The id of a fresh ready input of the role's account. */
export async function inputId(
  ref: ReferenceHandle,
  file = 'png-64x48.png',
  role = 'primary',
): Promise<string> {
  const res = await upload(ref, file, { role });
  if (res.status !== 201 && res.status !== 200) throw new Error(`upload of ${file} failed: ${res.text}`);
  return res.body.input.id;
}

export function createJob(
  ref: ReferenceHandle,
  body: Record<string, unknown>,
  opts: CallOptions = {},
): Promise<Exchange> {
  return call(ref, '/v1/media/jobs', { method: 'POST', role: 'primary', json: body, ...opts });
}

export const readJob = (
  ref: ReferenceHandle,
  id: string,
  role = 'primary',
  headers?: Record<string, string>,
) => call(ref, `/v1/media/jobs/${id}`, { role, headers });

/** Polls the job until `done` holds (or 5 s pass); returns every status seen and the last read. */
/**
 * The statuses a poll saw are the job's stages in their order, ending in the last: a poll on a loaded
 * machine may miss a short stage but never reorders one. `met`: the stages that must have been seen.
 */
export function inStageOrder(seen: string[], order: string[], met: string[] = []): boolean {
  let i = 0;
  for (const s of seen) {
    i = order.indexOf(s, i);
    if (i < 0) return false;
  }
  return seen.at(-1) === order.at(-1) && met.every((m) => seen.includes(m));
}

export async function pollJob(
  ref: ReferenceHandle,
  id: string,
  done: (job: { status: string }) => boolean = (j) =>
    ['succeeded', 'failed', 'settlement_pending'].includes(j.status),
): Promise<{ seen: string[]; last: Exchange; percents: unknown[] }> {
  const seen: string[] = [];
  const percents: unknown[] = [];
  const until = Date.now() + 30_000; // a bound on a hang only: the test judges the states seen
  for (;;) {
    const last = await readJob(ref, id);
    if (seen.at(-1) !== last.body.status) seen.push(last.body.status);
    percents.push(last.body.progress_percent);
    if (done(last.body) || Date.now() > until) return { seen, last, percents };
    await new Promise((r) => setTimeout(r, 3));
  }
}
