/**
 * Probes of the sequence and race faults (reference/race.ts): true when the deviation is visible. The
 * race probes send their requests at the same moment; the replay probes follow one order of operations.
 */
import type { ReferenceHandle } from '../../reference/start.ts';
import { type CallOptions, call } from './helpers.ts';
import { createJob, inputId, jobBody, upload } from './media-helpers.ts';

const keyed = (key: string, extra: Record<string, string> = {}): CallOptions => ({
  role: 'primary',
  headers: { 'idempotency-key': key, ...extra },
});

export const chatBody = (ref: ReferenceHandle) => ({
  model: ref.hints.chat,
  messages: [{ role: 'user', content: 'Say ok.' }],
  max_tokens: 2,
});

export const chat = (ref: ReferenceHandle, opts: CallOptions = { role: 'primary' }) =>
  call(ref, '/v1/chat/completions', { method: 'POST', json: chatBody(ref), ...opts });

export const atOnce = <T>(n: number, send: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => send(i)));

export const distinct = (values: unknown[]) => new Set(values.filter((v) => v !== undefined)).size;

const usageCount = async (ref: ReferenceHandle) =>
  (await call(ref, '/v1/usage', { role: 'primary' })).body.data.length as number;

const ledgerCount = async (ref: ReferenceHandle) =>
  (await call(ref, '/v1/ledger', { role: 'primary' })).body.data.length as number;

export const RACE_FAULT_PROBES: Record<string, (ref: ReferenceHandle) => Promise<boolean>> = {
  'race-job-double': async (ref) => {
    const jobs = await atOnce(3, () => createJob(ref, jobBody('wc-100010'), keyed('probe-race-job')));
    return distinct(jobs.map((j) => j.body?.id)) > 1;
  },
  'race-chat-double': async (ref) => {
    const before = await usageCount(ref);
    await atOnce(3, () => chat(ref, keyed('probe-race-chat')));
    return (await usageCount(ref)) - before > 1;
  },
  'race-upload-double': async (ref) => {
    const inputs = await atOnce(3, () =>
      upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': 'probe-race-upload' } }),
    );
    return distinct(inputs.map((u) => u.body?.input?.id)) > 1;
  },
  'race-upload-coalesce': async (ref) => {
    const inputs = await atOnce(3, (i) =>
      upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': `probe-race-coalesce-${i}` } }),
    );
    const created = inputs.filter((u) => u.status === 201).length;
    return created > 1 && distinct(inputs.map((u) => u.body?.input?.id)) < created;
  },
  'race-delete-vs-job': async (ref) => {
    const id = await inputId(ref);
    const [job, del] = await Promise.all([
      createJob(ref, jobBody('wc-100011', [id])),
      call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' }),
    ]);
    return job.status === 201 && del.status === 204;
  },
  'race-ledger-skip': async (ref) => {
    const before = await ledgerCount(ref);
    const calls = await atOnce(3, (i) => chat(ref, keyed(`probe-race-ledger-${i}`)));
    return (await ledgerCount(ref)) - before < calls.filter((c) => c.status === 200).length;
  },
  'replay-releases-input': async (ref) => {
    const id = await inputId(ref);
    await createJob(ref, jobBody('wc-100011', [id]), keyed('probe-replay-input'));
    await createJob(ref, jobBody('wc-100011', [id]), keyed('probe-replay-input'));
    return (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status === 204;
  },
  'replay-reprices-usage': async (ref) => {
    const charged = async () =>
      (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0].charged_points;
    await chat(ref, keyed('probe-replay-usage'));
    const first = await charged();
    await chat(ref, keyed('probe-replay-usage'));
    return (await charged()) !== first;
  },
};
