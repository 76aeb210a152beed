// The request helpers the probes of reference/faults/ run with, and the runner of one probe: a data
// probe's request is sent and its predicate applied; a `run` probe gets the kit.
import {
  jobBody,
  type Probe,
  type ProbeKit,
  type ProbeReply,
  type ProbeRequest,
  req,
  sleep,
} from '../../reference/faults/probe.ts';
import type { ReferenceHandle } from '../../reference/start.ts';
import {
  type CallOptions,
  call,
  errorCode,
  fetchWithin,
  parseSse,
  streamEnds,
  streamPieces,
} from './helpers.ts';
import { createJob, inputId, pollJob, readJob, upload } from './media-helpers.ts';

type Ref = ReferenceHandle;
type Body = Record<string, unknown>;

const chat = (ref: Ref, extra: Body = {}, opts: CallOptions = {}) => send(ref, req.chat(extra, opts)(ref));
const responses = (ref: Ref, extra: Body = {}) => send(ref, req.responses(extra)(ref));
const balance = (ref: Ref) => send(ref, req.balance());
/** The calls' usage records: a media job adds its own when a read settles it, at any time. */
export const callUsageCount = async (ref: Ref): Promise<number> =>
  ((await call(ref, '/v1/usage', { role: 'primary' })).body.data as Array<{ job_id?: string }>).filter(
    (r) => r.job_id === undefined,
  ).length;
const count = async (ref: Ref, path: string) =>
  (await call(ref, path, { role: 'primary' })).body.data.length as number;
const jobStatus = async (ref: Ref, body: Body, opts: CallOptions = {}) =>
  (await createJob(ref, body, opts)).status;
const replayCharges = async (ref: Ref, headers: Record<string, string>, path = '/v1/chat/completions') => {
  const call = (opts: CallOptions) =>
    path === '/v1/responses' ? send(ref, req.responses({}, opts)(ref)) : chat(ref, {}, opts);
  const first = await call({ headers: { 'idempotency-key': 'probe-key' } });
  const before = (await balance(ref)).body.total_points;
  const again = await call({ headers: { 'idempotency-key': 'probe-key', ...headers } });
  return first.body.id !== again.body.id && (await balance(ref)).body.total_points !== before;
};

const KIT: Omit<ProbeKit, 'ref'> = {
  call,
  models: (ref: Ref, role?: string) => send(ref, req.models(role)),
  balance,
  openapi: async (ref: Ref) => (await send(ref, req.openapi())).body,
  withKey: (ref: Ref, headers: (key: string) => Record<string, string>, query?: string) =>
    send(ref, req.withKey(headers, query)(ref)),
  chatBody: (ref: Ref, extra?: Body) => req.chat(extra)(ref).json as Body,
  chat,
  responses,
  events: async (ref: Ref) => parseSse((await responses(ref, { stream: true })).text),
  embed: (ref: Ref, body: Body) => send(ref, req.embed(body)),
  replayCharges,
  ledgerAfterChat: async (ref: Ref) => {
    await chat(ref);
    const newest = (await call(ref, '/v1/ledger', { role: 'primary' })).body.data[0];
    return newest.balance_after_points !== (await balance(ref)).body.total_points;
  },
  usageCount: callUsageCount,
  ledgerCount: (ref: Ref) => count(ref, '/v1/ledger'),
  ticket: (ref: Ref, patch: Body, role?: string) => send(ref, req.ticket(patch, role)),
  payOrder: (ref: Ref, patch: Body, role?: string) => send(ref, req.payOrder(patch, role)),
  rateLimited: async (ref: Ref) => {
    for (let i = 0; i < 6; i++) {
      const res = await call(ref, '/v1/balance', { role: 'ratelimited' });
      if (res.status === 429) return res;
    }
    return undefined;
  },
  upload,
  inputId,
  createJob,
  jobStatus,
  accepted: async (ref: Ref, body: Body) => (await jobStatus(ref, body)) === 201,
  readJob,
  pollJob,
  succeededJob: async (ref: Ref, model = 'wc-100010') => {
    const created = await createJob(ref, jobBody(model));
    return (await pollJob(ref, created.body.id)).last.body;
  },
  readsUntil: async (ref: Ref, id: string, stop: (read: ProbeReply) => boolean, role = 'primary') => {
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      const read = await readJob(ref, id, role);
      if (stop(read)) return true;
      if (['succeeded', 'failed', 'settlement_pending'].includes(read.body?.status)) return false;
      await sleep(3);
    }
    return false;
  },
  pendingJob: async (ref: Ref, key: string) => {
    const created = await createJob(ref, jobBody('wc-100010'), {
      role: 'poor',
      headers: { 'idempotency-key': key },
    });
    await sleep(250);
    return created.body.id as string;
  },
  catalogEntry: async (ref: Ref, id: string) =>
    (await call(ref, '/v1/media/models', { role: 'primary' })).body.data.find(
      (m: { id: string }) => m.id === id,
    ),
  streamEnds,
  streamPieces,
  fetchWithin,
  errorCode,
};

async function send(ref: Ref, request: ProbeRequest): Promise<ProbeReply> {
  const { upload: sample, path, ...opts } = request;
  if (sample) return upload(ref, sample.file, { role: opts.role, type: sample.type, headers: opts.headers });
  return call(ref, path, opts);
}

/** Whether the probe's deviation shows on the started reference. */
export async function probe(entry: { probe: Probe }, ref: Ref): Promise<boolean> {
  const p = entry.probe;
  if ('run' in p) return p.run({ ref, ...KIT });
  return p.holds(await send(ref, typeof p.request === 'function' ? p.request(ref) : p.request));
}

export { chat };
