// The reference's own media additions: the undocumented model wc-900001 (and fault
// undocumented-unenforced), the submission_uncertain status of capability media-uncertain-prompt,
// the faults around settlement_pending and submission_uncertain, and variant create-drop-once.
import { Decimal } from 'decimal.js';
import { describe, expect, test } from 'vitest';
import type { ReferenceHandle, ReferenceOptions } from '../../reference/start.ts';
import { type CallOptions, call, isApiError, referencePool } from './helpers.ts';
import {
  ACK,
  createJob,
  inputId,
  inStageOrder,
  jobBody,
  pollJob,
  readJob,
  sleep,
  TABLE,
} from './media-helpers.ts';

const pool = referencePool();
const STEP = 30;
const start = (opts: ReferenceOptions = {}) => pool({ mediaStepMs: STEP, ...opts });
const MODELS = Object.keys(TABLE.models);
const EXTRA = 'wc-900001';
const UNCERTAIN = 'CONFORMANCE_UNCERTAIN_JOB';
const balance = async (ref: ReferenceHandle, role = 'primary') =>
  (await call(ref, '/v1/balance', { role })).body;
const catalog = async (ref: ReferenceHandle, role = 'primary') =>
  (await call(ref, '/v1/media/models', { role })).body.data as { id: string; [k: string]: unknown }[];
const del = (ref: ReferenceHandle, id: string) =>
  call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role: 'primary' });

/** A wc-900001 request: a valid prompt, the acknowledgement and the given parameters. */
const extraBody = (parameters: Record<string, unknown> = {}, prompt: unknown = 'a small red house') => ({
  model: EXTRA,
  prompt,
  parameters: { ...ACK, ...parameters },
});

const ENTRY = {
  id: EXTRA,
  object: 'media_model',
  kind: 'image_generation',
  capabilities: ['image_to_image'],
  prompt_contract: {
    empty_only: false,
    minimum_characters: 2,
    maximum_characters: 300,
    maximum_utf8_bytes: 900,
    required: true,
  },
  parameters: {
    reference: {
      accepted: ['image'],
      minimum: 0,
      maximum: 2,
      aspect_ratio_follows_first_frame: false,
      required: false,
      fields: ['input_asset_ids', 'studio_asset_ids'],
    },
    output_format: { type: 'string', options: [{ value: 'png' }, { value: 'webp' }], default: 'png' },
    steps: { type: 'integer', minimum: 10, maximum: 50, step: 5, default: 20 },
    style: {
      type: 'string',
      options: [{ value: 'line' }, { value: 'ink' }, { value: 'wash' }],
      default: 'line',
    },
  },
  data_handling: expect.objectContaining({ processing_region: expect.any(String) }),
};

interface Case {
  name: string;
  body: (images: string[]) => Record<string, unknown>;
  /** Status on the conformant reference (201 or 400). */
  status: number;
  /** Accepted under fault undocumented-unenforced although the entry refuses it. */
  lax?: true;
}

const CASES: Case[] = [
  { name: 'the defaults', body: () => extraBody(), status: 201 },
  { name: 'a prompt of 2', body: () => extraBody({}, 'ab'), status: 201 },
  { name: 'a prompt of 300', body: () => extraBody({}, 'a'.repeat(300)), status: 201 },
  { name: '300 CJK (900 bytes)', body: () => extraBody({}, '漢'.repeat(300)), status: 201 },
  { name: 'a prompt of 2 in spaces', body: () => extraBody({}, '  ab \n'), status: 201 },
  { name: 'a prompt of 1', body: () => extraBody({}, 'a'), status: 400, lax: true },
  { name: 'a prompt of 301', body: () => extraBody({}, 'a'.repeat(301)), status: 400, lax: true },
  {
    name: '226 characters of 901 bytes',
    body: () => extraBody({}, `${'😀'.repeat(225)}a`),
    status: 400,
    lax: true,
  },
  { name: 'a prompt of 4001 bytes', body: () => extraBody({}, 'a'.repeat(4001)), status: 400 },
  { name: 'an empty prompt', body: () => extraBody({}, ' '), status: 400 },
  { name: 'no prompt', body: () => ({ model: EXTRA, parameters: ACK }), status: 400 },
  ...[10, 15, 20, 45, 50].map((steps) => ({
    name: `steps ${steps}`,
    body: () => extraBody({ steps }),
    status: 201,
  })),
  ...[12, 55, 5].map((steps) => ({
    name: `steps ${steps}`,
    body: () => extraBody({ steps }),
    status: 400,
    lax: true as const,
  })),
  { name: 'steps 0', body: () => extraBody({ steps: 0 }), status: 400 },
  { name: 'steps 1001', body: () => extraBody({ steps: 1001 }), status: 400 },
  { name: 'steps 12.5', body: () => extraBody({ steps: 12.5 }), status: 400 },
  { name: 'steps "15"', body: () => extraBody({ steps: '15' }), status: 400 },
  ...['line', 'ink', 'wash'].map((style) => ({
    name: `style ${style}`,
    body: () => extraBody({ style }),
    status: 201,
  })),
  { name: "style 'pencil'", body: () => extraBody({ style: 'pencil' }), status: 400, lax: true },
  { name: 'style 3', body: () => extraBody({ style: 3 }), status: 400 },
  { name: 'output_format webp', body: () => extraBody({ output_format: 'webp' }), status: 201 },
  { name: 'output_format jpeg', body: () => extraBody({ output_format: 'jpeg' }), status: 400 },
  { name: 'no acknowledgement', body: () => ({ model: EXTRA, prompt: 'ab', parameters: {} }), status: 400 },
  { name: 'an unknown parameter', body: () => extraBody({ size: 'auto_2K' }), status: 400 },
  { name: 'the derived kind', body: () => ({ ...extraBody(), kind: 'image_generation' }), status: 201 },
  { name: 'a wrong kind', body: () => ({ ...extraBody(), kind: 'video_generation' }), status: 400 },
  { name: 'no references', body: () => extraBody(), status: 201 },
  { name: 'an empty reference array', body: () => extraBody({ input_asset_ids: [] }), status: 201 },
  { name: 'one reference', body: (i) => extraBody({ input_asset_ids: i.slice(0, 1) }), status: 201 },
  { name: 'two references', body: (i) => extraBody({ studio_asset_ids: i.slice(0, 2) }), status: 201 },
  { name: 'three references', body: (i) => extraBody({ input_asset_ids: i.slice(0, 3) }), status: 400 },
  {
    name: 'both id fields',
    body: (i) => extraBody({ input_asset_ids: i.slice(0, 1), studio_asset_ids: i.slice(0, 1) }),
    status: 400,
  },
  { name: 'an unknown reference', body: () => extraBody({ input_asset_ids: ['in_unknown'] }), status: 400 },
];

async function verdicts(ref: ReferenceHandle): Promise<Map<string, number>> {
  const images = [await inputId(ref), await inputId(ref), await inputId(ref)];
  const out = new Map<string, number>();
  for (const c of CASES) out.set(c.name, (await createJob(ref, c.body(images))).status);
  return out;
}

describe('the undocumented model wc-900001', () => {
  test('is listed after the documented models with its entry (step included)', async () => {
    const ref = await start();
    for (const role of ['primary', 'enterprise', 'poor']) {
      const ids = (await catalog(ref, role)).map((m) => m.id);
      expect(ids, role).toEqual([...MODELS, EXTRA]);
    }
    expect((await catalog(ref, 'no_models')).length).toBe(0);
    const entry = (await catalog(ref)).find((m) => m.id === EXTRA);
    expect(entry).toEqual(ENTRY);
    expect(MODELS).not.toContain(EXTRA);
  });

  test('is neither listed nor callable under variant media-subset', async () => {
    const ref = await start({ variant: 'media-subset' });
    const ids = (await catalog(ref)).map((m) => m.id);
    expect(ids).toHaveLength(8);
    expect(ids).not.toContain(EXTRA);
    const res = await createJob(ref, extraBody());
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('model_not_allowed');
  });

  test('jobs get the verdict its catalog entry gives, refusals as 400 invalid_request', async () => {
    const ref = await start();
    const got = await verdicts(ref);
    const wrong = CASES.filter((c) => got.get(c.name) !== c.status).map(
      (c) => `${c.name}: ${got.get(c.name)}`,
    );
    expect(wrong).toEqual([]);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
    const refused = await createJob(ref, extraBody({ steps: 12 }));
    expect(refused.body.error.code).toBe('invalid_request');
  });

  test('fault undocumented-unenforced accepts what the entry refuses and still advertises it', async () => {
    const ref = await start({ fault: 'undocumented-unenforced' });
    expect((await catalog(ref)).find((m) => m.id === EXTRA)).toEqual(ENTRY);
    const got = await verdicts(ref);
    const wrong = CASES.filter((c) => got.get(c.name) !== (c.lax ? 201 : c.status)).map(
      (c) => `${c.name}: ${got.get(c.name)}`,
    );
    expect(wrong).toEqual([]);
    expect((await createJob(ref, extraBody({ steps: 1000, style: 'anything' }))).status).toBe(201);
    expect((await createJob(ref, extraBody({}, '😀'.repeat(1000)))).status).toBe(201);
    expect((await createJob(ref, extraBody({}, `${'😀'.repeat(1000)}a`))).status).toBe(400);
  });

  test.for([
    { extra: {}, type: 'image/png', magic: '89504e47' },
    { extra: { output_format: 'webp' }, type: 'image/webp', magic: '52494646' },
  ])(
    'runs the lifecycle and delivers $type, priced like other image models',
    async ({ extra, type, magic }) => {
      const ref = await start();
      const before = await balance(ref);
      const created = await createJob(ref, extraBody({ steps: 35, style: 'ink', ...extra }));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ model: EXTRA, kind: 'image_generation', pending_points: '0.75' });
      const { seen, last } = await pollJob(ref, created.body.id);
      expect(seen, seen.join(' > ')).toSatisfy((s: string[]) =>
        inStageOrder(s, ['authorizing', 'queued', 'running', 'output_fetching', 'succeeded']),
      );
      expect(last.body.charged_points).toBe('0.75');
      expect(new Decimal(before.total_points).minus((await balance(ref)).total_points).toString()).toBe(
        '0.75',
      );
      const res = await fetch(`${ref.url}/v1/media/assets/${last.body.asset_id}`, {
        headers: { authorization: `Bearer ${ref.keys.primary}` },
      });
      expect(res.headers.get('content-type')).toBe(type);
      expect(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 4)
          .toString('hex'),
      ).toBe(magic);
    },
  );
});

// ---------------------------------------------------------------- submission_uncertain, settlement_pending

/**
 * A slower lifecycle: a 600 ms submission_uncertain window leaves room for a read and a replay, with a
 * margin for a loaded machine (each request takes a few ms here; at 150 ms a busy CI could miss it).
 */
const SLOW = 600;
const uncertainBody = (model = 'wc-100010', refs: string[] = []) => ({
  ...jobBody(model, refs),
  prompt: `${UNCERTAIN} please`,
});
const key = (k: string): CallOptions => ({ headers: { 'idempotency-key': k } });

/** Creates an uncertain job and waits until a read shows submission_uncertain. */
async function uncertainJob(ref: ReferenceHandle, k: string): Promise<string> {
  const created = await createJob(ref, uncertainBody(), key(k));
  expect(created.status).toBe(201);
  const until = Date.now() + 30_000; // a bound on a hang only
  while (Date.now() < until) {
    const read = await readJob(ref, created.body.id);
    if (read.status === 404 || read.body.status === 'submission_uncertain') break;
    await sleep(3);
  }
  return created.body.id;
}

/** Creates a job of the poor account and waits until it is settlement_pending. */
async function pendingJob(ref: ReferenceHandle, k: string, step: number): Promise<string> {
  const created = await createJob(ref, jobBody('wc-100010'), { role: 'poor', ...key(k) });
  expect(created.status).toBe(201);
  await sleep(step * 6);
  return created.body.id;
}

const jobCount = async (ref: ReferenceHandle, ids: string[], role = 'primary') =>
  (await Promise.all(ids.map((id) => readJob(ref, id, role)))).filter((r) => r.status === 200).length;

describe('submission_uncertain (capability media-uncertain-prompt)', () => {
  test('a CONFORMANCE_UNCERTAIN_JOB prompt reads submission_uncertain instead of queued, then succeeds', async () => {
    const ref = await start({ mediaStepMs: 60 });
    expect(ref.capabilities).toContain('media-uncertain-prompt');
    const created = await createJob(ref, uncertainBody());
    expect(created.body.status).toBe('authorizing');
    const { seen, last } = await pollJob(ref, created.body.id);
    expect(seen, seen.join(' > ')).toSatisfy((s: string[]) =>
      inStageOrder(
        s,
        ['authorizing', 'submission_uncertain', 'running', 'output_fetching', 'succeeded'],
        ['submission_uncertain'],
      ),
    );
    expect(last.body.asset_id).toEqual(expect.any(String));
    expect(last.body.charged_points).toBe('0.75');
  });

  test('progress_percent is null while submission_uncertain', async () => {
    const ref = await start({ mediaStepMs: SLOW });
    const id = await uncertainJob(ref, 'u-progress');
    const read = await readJob(ref, id);
    expect(read.body).toMatchObject({
      status: 'submission_uncertain',
      progress: { stage: 'submission_uncertain' },
      progress_percent: null,
    });
  });

  test('an input referenced by a submission_uncertain job cannot be deleted', async () => {
    const ref = await start({ mediaStepMs: SLOW });
    const input = await inputId(ref);
    const created = await createJob(ref, uncertainBody('wc-100011', [input]));
    await pollJob(ref, created.body.id, (j) => j.status !== 'authorizing');
    expect((await readJob(ref, created.body.id)).body.status).toBe('submission_uncertain');
    const busy = await del(ref, input);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('input_in_use');
    await pollJob(ref, created.body.id);
    expect((await del(ref, input)).status).toBe(204);
  });

  test('the conformant reference reads the job and replays it while submission_uncertain', async () => {
    const ref = await start({ mediaStepMs: SLOW });
    const held = (await balance(ref)).held_points;
    const id = await uncertainJob(ref, 'u-1');
    expect((await readJob(ref, id)).status).toBe(200);
    const again = await createJob(ref, uncertainBody(), key('u-1'));
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id, status: 'submission_uncertain' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(new Decimal((await balance(ref)).held_points).minus(held).toString()).toBe('0.75');
  });

  test('fault uncertain-job-lost answers 404 while submission_uncertain only', async () => {
    const ref = await start({ fault: 'uncertain-job-lost', mediaStepMs: SLOW });
    const created = await createJob(ref, uncertainBody());
    expect((await readJob(ref, created.body.id)).status).toBe(200);
    await sleep(SLOW * 1.5);
    const lost = await readJob(ref, created.body.id);
    expect(lost.status).toBe(404);
    expect(isApiError(lost.body)).toBe(true);
    expect(lost.body.error.code).toBe('not_found');
    const { last } = await pollJob(ref, created.body.id, (j) => j.status === 'succeeded');
    expect(last.status).toBe(200);
    const plain = await createJob(ref, jobBody('wc-100010'));
    await sleep(SLOW * 1.5);
    expect((await readJob(ref, plain.body.id)).body.status).toBe('queued');
  });

  test('fault uncertain-replay-new-job creates a new job and hold for a replay while submission_uncertain', async () => {
    const ref = await start({ fault: 'uncertain-replay-new-job', mediaStepMs: SLOW });
    const held = (await balance(ref)).held_points;
    const id = await uncertainJob(ref, 'u-2');
    const again = await createJob(ref, uncertainBody(), key('u-2'));
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await jobCount(ref, [id, again.body.id])).toBe(2);
    expect(new Decimal((await balance(ref)).held_points).minus(held).toString()).toBe('1.5');
    // Outside submission_uncertain, replays are still replays.
    const first = await createJob(ref, jobBody('wc-100010'), key('u-3'));
    expect((await createJob(ref, jobBody('wc-100010'), key('u-3'))).body.id).toBe(first.body.id);
  });
});

describe('settlement_pending', () => {
  test('the conformant reference reads the job and replays it while settlement_pending', async () => {
    const ref = await start();
    const id = await pendingJob(ref, 'p-1', STEP);
    const read = await readJob(ref, id, 'poor');
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('settlement_pending');
    const again = await createJob(ref, jobBody('wc-100010'), { role: 'poor', ...key('p-1') });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id, status: 'settlement_pending' });
    expect(await balance(ref, 'poor')).toMatchObject({ held_points: '0.01', available_points: '0' });
  });

  test('fault settlement-pending-lost answers 404 for a settlement_pending job only', async () => {
    const ref = await start({ fault: 'settlement-pending-lost' });
    const created = await createJob(ref, jobBody('wc-100010'), { role: 'poor' });
    expect((await readJob(ref, created.body.id, 'poor')).status).toBe(200);
    await sleep(STEP * 6);
    const lost = await readJob(ref, created.body.id, 'poor');
    expect(lost.status).toBe(404);
    expect(isApiError(lost.body)).toBe(true);
    expect(lost.body.error.code).toBe('not_found');
    const { last } = await pollJob(ref, (await createJob(ref, jobBody('wc-100010'))).body.id);
    expect(last.body.status).toBe('succeeded');
  });

  test('fault settlement-replay-new-job creates a new job for a replay while settlement_pending', async () => {
    const ref = await start({ fault: 'settlement-replay-new-job' });
    const id = await pendingJob(ref, 'p-2', STEP);
    const again = await createJob(ref, jobBody('wc-100010'), { role: 'poor', ...key('p-2') });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);
    expect(again.body.status).toBe('authorizing');
    expect(await jobCount(ref, [id, again.body.id], 'poor')).toBe(2);
    // Outside settlement_pending, replays are still replays.
    const first = await createJob(ref, jobBody('wc-100010'), key('p-3'));
    expect((await createJob(ref, jobBody('wc-100010'), key('p-3'))).body.id).toBe(first.body.id);
  });
});

// ---------------------------------------------------------------- variant create-drop-once

describe('variant create-drop-once', () => {
  /** The ledger's hold entries: the ledger only grows, so they show a hold whether or not it settled since. */
  const holdsOf = async (ref: ReferenceHandle): Promise<Array<{ id: string; held_change_points: string }>> =>
    (await call(ref, '/v1/ledger', { role: 'primary' })).body.data.filter(
      (e: { type: string }) => e.type === 'hold',
    );

  test('drops the first create of a key unanswered; the replay returns the one job and hold', async () => {
    const ref = await start({ variant: 'create-drop-once' });
    const before = new Set((await holdsOf(ref)).map((e) => e.id));
    const dropped = await createJob(ref, jobBody('wc-100010'), key('d-1')).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    expect(dropped).not.toBe('answered');
    const again = await createJob(ref, jobBody('wc-100010'), key('d-1'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const third = await createJob(ref, jobBody('wc-100010'), key('d-1'));
    expect(third.body.id).toBe(again.body.id);
    // One hold of the job's price, not one per create: read in the ledger, not in held_points, which
    // a job this short (4 stages of 30 ms) may already have settled on a loaded machine.
    const added = (await holdsOf(ref)).filter((e) => !before.has(e.id));
    expect(added.map((e) => e.held_change_points)).toEqual(['0.75']);
    const { last } = await pollJob(ref, again.body.id);
    expect(last.body.status).toBe('succeeded');
  });

  test('requests without a key, invalid requests and conflicts are answered', async () => {
    const ref = await start({ variant: 'create-drop-once' });
    expect((await createJob(ref, jobBody('wc-100010'))).status).toBe(201);
    expect((await createJob(ref, extraBody({ steps: 12 }), key('d-2'))).status).toBe(400);
    await createJob(ref, jobBody('wc-100010'), key('d-3')).catch(() => undefined);
    expect((await createJob(ref, { ...jobBody('wc-100010'), prompt: 'other' }, key('d-3'))).status).toBe(409);
  });

  test('the conformant reference answers the first create', async () => {
    const ref = await start();
    const first = await createJob(ref, jobBody('wc-100010'), key('d-4'));
    expect(first.status).toBe(201);
    expect((await createJob(ref, jobBody('wc-100010'), key('d-4'))).body.id).toBe(first.body.id);
  });
});

describe('option mediaPricing scaled (bench/points.ts --pricing scaled)', () => {
  const held = async (ref: ReferenceHandle, model: string, parameters: Record<string, unknown>) =>
    (await createJob(ref, jobBody(model, [], parameters))).body.pending_points;

  test('prices video by seconds x resolution with audio extra, images by pixels; flat by default', async () => {
    const scaled = await start({ mediaPricing: 'scaled' });
    expect(await held(scaled, 'wc-100014', { duration: 30, resolution: '1080p', generate_audio: true })).toBe(
      '65.917969',
    );
    expect(await held(scaled, 'wc-100014', { resolution: '480p', generate_audio: false })).toBe('1.5625');
    expect(await held(scaled, 'wc-100010', { size: '2048x2048' })).toBe('3');
    expect(await held(scaled, 'wc-100040', { size: '1024x640', quality: 'low' })).toBe('0.234375');
    const flat = await start();
    expect(await held(flat, 'wc-100014', { duration: 30, resolution: '1080p' })).toBe('3.125');
  });
});

describe('job durations by output kind (start option mediaJobMs: real generation times)', () => {
  const free = (output: string) =>
    MODELS.find((id) => TABLE.models[id].output === output && !TABLE.models[id].references.required)!;

  test('an image job and a video job end after their own durations; the rest keep the stage time', async () => {
    // Each check is bounded by a timer that never fires early, or leaves seconds to a loaded machine.
    const ref = await start({ mediaJobMs: { image: 1_000, video: 4_000 } });
    const image = (await createJob(ref, jobBody(free('image')))).body.id as string;
    const video = (await createJob(ref, jobBody(free('video')))).body.id as string;
    expect((await readJob(ref, image)).body.status).not.toBe('succeeded');
    await sleep(1_100);
    expect((await readJob(ref, image)).body.status).toBe('succeeded');
    expect((await readJob(ref, video)).body.status).not.toBe('succeeded');
    const { seen } = await pollJob(ref, video);
    expect(seen.at(-1)).toBe('succeeded');
    expect(seen).toContain('running');
  });
});
