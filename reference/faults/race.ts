// Sequences and races (race.ts). The race faults open a delay window (--race-window-ms, default 200 ms)
// between a check and its write: requests sent at once fall inside it, one after the other never do, so
// only the concurrency tests see them. The replay faults show only after a particular order of
// operations, which the model-based sequences produce.
import { atOnce, distinct, type Fault, jobBody, keyed, type Variant } from './probe.ts';

export const RACE_FAULTS = [
  // routes/media-jobs.ts: creates with one Idempotency-Key inside the window each create a job
  {
    name: 'race-job-double',
    description: 'media job creates with one Idempotency-Key sent at once each create a job and a hold',
    breaks: ['MJOB-024'],
    probe: {
      run: async ({ ref, createJob }) => {
        const jobs = await atOnce(3, () => createJob(ref, jobBody('wc-100010'), keyed('probe-race-job')));
        return distinct(jobs.map((j) => j.body?.id)) > 1;
      },
    },
  },
  // routes/chat.ts: chat requests with one Idempotency-Key inside the window each execute and charge
  {
    name: 'race-chat-double',
    description: 'chat requests with one Idempotency-Key sent at once each execute and charge',
    breaks: ['IDEM-001'],
    places: [{ id: 'IDEM-001', place: 'POST /v1/chat/completions' }],
    probe: {
      run: async ({ ref, usageCount, chat }) => {
        const before = await usageCount(ref);
        await atOnce(3, () => chat(ref, {}, keyed('probe-race-chat')));
        return (await usageCount(ref)) - before > 1;
      },
    },
  },
  // routes/media-inputs.ts: uploads with one Idempotency-Key inside the window each create an input
  {
    name: 'race-upload-double',
    description: 'uploads with one Idempotency-Key sent at once each create an input',
    breaks: ['MIN-008'],
    probe: {
      run: async ({ ref, upload }) => {
        const inputs = await atOnce(3, () =>
          upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': 'probe-race-upload' } }),
        );
        return distinct(inputs.map((u) => u.body?.input?.id)) > 1;
      },
    },
  },
  // routes/media-inputs.ts: uploads of the same bytes in flight at once share the first one's input,
  // whatever their Idempotency-Keys (a single-flight keyed by content, not by key; implied invariant)
  {
    name: 'race-upload-coalesce',
    description:
      'uploads of the same bytes sent at once with different Idempotency-Keys all answer one input',
    breaks: ['IDEM-004'],
    level: 'implied',
    probe: {
      run: async ({ ref, upload }) => {
        const inputs = await atOnce(3, (i) =>
          upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': `probe-race-coalesce-${i}` } }),
        );
        const created = inputs.filter((u) => u.status === 201).length;
        return created > 1 && distinct(inputs.map((u) => u.body?.input?.id)) < created;
      },
    },
  },
  // routes/media-jobs.ts + media-inputs.ts: a window between checking the references and storing the job,
  // and between the delete's check for active jobs and the delete: whichever comes first, both succeed
  {
    name: 'race-delete-vs-job',
    description:
      'a delete and a job creation referencing the input, sent at once, both succeed: the job holds a deleted input',
    breaks: ['MIN-010'],
    probe: {
      run: async ({ ref, inputId, createJob, call }) => {
        const id = await inputId(ref);
        const [job, del] = await Promise.all([
          createJob(ref, jobBody('wc-100011', [id])),
          call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' }),
        ]);
        return job.status === 201 && del.status === 204;
      },
    },
  },
  // routes/chat.ts: the ledger entry of a charge is written over a copy taken before the window
  {
    name: 'race-ledger-skip',
    description: 'chat charges settled at the same time lose ledger entries (the balance still moves)',
    breaks: ['LEDGER-002', 'LEDGER-003'],
    level: 'implied',
    probe: {
      run: async ({ ref, ledgerCount, chat }) => {
        const before = await ledgerCount(ref);
        const calls = await atOnce(3, (i) => chat(ref, {}, keyed(`probe-race-ledger-${i}`)));
        return (await ledgerCount(ref)) - before < calls.filter((c) => c.status === 200).length;
      },
    },
  },
  // routes/media-jobs.ts: a replayed create drops the job's references
  {
    name: 'replay-releases-input',
    description:
      "after a job's create is replayed, the inputs it references can be deleted while it is still active",
    breaks: ['MIN-010'],
    probe: {
      run: async ({ ref, inputId, createJob, call }) => {
        const id = await inputId(ref);
        await createJob(ref, jobBody('wc-100011', [id]), keyed('probe-replay-input'));
        await createJob(ref, jobBody('wc-100011', [id]), keyed('probe-replay-input'));
        return (
          (await call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' })).status === 204
        );
      },
    },
  },
  // routes/chat.ts: a replay re-prices the settled usage record of the first call
  {
    name: 'replay-reprices-usage',
    description:
      'a replayed chat request is not charged again, but its usage record now shows 1% more charged_points',
    breaks: ['PTS-006'],
    probe: {
      run: async ({ ref, call, chat }) => {
        const charged = async () =>
          (await call(ref, '/v1/usage', { role: 'primary' })).body.data[0].charged_points;
        await chat(ref, {}, keyed('probe-replay-usage'));
        const first = await charged();
        await chat(ref, {}, keyed('probe-replay-usage'));
        return (await charged()) !== first;
      },
    },
  },
] as const satisfies readonly Fault[];

export const RACE_VARIANTS = [] as const satisfies readonly Variant[];
