import { request } from 'node:http';
import { Decimal } from 'decimal.js';
import { describe, expect, test } from 'vitest';
import { type ReferenceHandle, type ReferenceOptions, startReference } from '../../reference/start.ts';
import {
  type CallOptions,
  call,
  describedProblems,
  describedSetups,
  type Exchange,
  isApiError,
  referencePool,
} from './helpers.ts';
import {
  ACK,
  createJob,
  inputId,
  inStageOrder,
  jobBody,
  pollJob,
  readJob,
  SAMPLES,
  type Sample,
  sample,
  sleep,
  TABLE,
  upload,
} from './media-helpers.ts';

const pool = referencePool();
const STEP = 30;
/** A stage long enough that a job created in a test is still authorizing at its end. */
const HOLD_STEP = 60_000;
/** The cleanup step of the quota test: long against a loaded machine's request, short to wait out. */
const QUOTA_STEP = 1_500;
const start = (opts: ReferenceOptions = {}) => pool({ mediaStepMs: STEP, ...opts });
const MODELS = Object.keys(TABLE.models);
const LEGACY = { accept: 'application/vnd.service.currency.v1+json' };
const del = (ref: ReferenceHandle, id: string, role = 'primary') =>
  call(ref, `/v1/media/inputs/${id}`, { method: 'DELETE', role });
const balance = async (ref: ReferenceHandle, role = 'primary') =>
  (await call(ref, '/v1/balance', { role })).body;
const asset = async (ref: ReferenceHandle, id: string, role: string | null = 'primary') => {
  const res = await fetch(`${ref.url}/v1/media/assets/${id}`, {
    headers: role ? { authorization: `Bearer ${ref.keys[role]}` } : {},
  });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    bytes: Buffer.from(await res.arrayBuffer()),
  };
};

describe('GET /v1/media/models', () => {
  test('lists the 16 documented models (and its own wc-900001) for ordinary accounts and none for no_models', async () => {
    const ref = await start();
    for (const role of ['primary', 'enterprise', 'other_tenant']) {
      const res = await call(ref, '/v1/media/models', { role });
      expect(res.status, role).toBe(200);
      expect(res.body.data.map((m: { id: string }) => m.id).sort(), role).toEqual(
        [...MODELS, 'wc-900001'].sort(),
      );
    }
    expect((await call(ref, '/v1/media/models', { role: 'no_models' })).body).toEqual({ data: [] });
    expect((await call(ref, '/v1/media/models')).status).toBe(401);
  });

  test.for(MODELS)('describes %s as the media table states it', async (id) => {
    const ref = await start();
    const entry = (await call(ref, '/v1/media/models', { role: 'primary' })).body.data.find(
      (m: { id: string }) => m.id === id,
    );
    const def = TABLE.models[id];
    const kinds: Record<string, string> = {
      image: 'image_generation',
      video: 'video_generation',
      glb: 'model_3d_generation',
    };
    if (def.output) expect(entry.kind).toBe(kinds[def.output]);
    expect(entry.capabilities.length).toBeGreaterThan(0);
    if (def.prompt.stated) {
      expect(entry.prompt_contract).toMatchObject({
        empty_only: def.prompt.empty_only,
        minimum_characters: def.prompt.min_chars,
        maximum_characters: def.prompt.max_chars,
        maximum_utf8_bytes: def.prompt.max_utf8_bytes,
      });
    }
    if ((def.references.accepted ?? []).length > 0) {
      expect(entry.parameters.reference).toMatchObject({
        accepted: def.references.accepted,
        minimum: def.references.min,
        maximum: def.references.max,
        aspect_ratio_follows_first_frame: def.references.first_frame_rule !== null,
      });
    } else expect(entry.parameters.reference).toBeUndefined();
    for (const [name, p] of Object.entries(def.parameters) as [string, Record<string, unknown>][]) {
      const got = entry.parameters[name];
      expect(got, name).toBeDefined();
      if (p.stated === false) continue;
      expect(got.default, name).toEqual(p.default);
      const values = got.options?.map((o: { value: unknown }) => o.value);
      if (p.values) expect(values, name).toEqual(p.values);
      if (p.integer)
        expect([got.minimum, got.maximum], name).toEqual([
          (p.integer as { min: number }).min,
          (p.integer as { max: number }).max,
        ]);
      if (p.boolean) expect(values, name).toEqual([true, false]);
      if (p.presets) expect(values, name).toEqual(TABLE.size_lists[p.presets as string]);
    }
    expect(
      Object.keys(entry.parameters)
        .filter((n) => n !== 'reference')
        .sort(),
    ).toEqual(Object.keys(def.parameters).sort());
    expect(entry.data_handling).toMatchObject({
      processing_region: expect.any(String),
      retention: expect.any(String),
    });
  });

  test('variant media-subset lists 8 models and refuses the others with 403', async () => {
    const ref = await start({ variant: 'media-subset' });
    const ids: string[] = (await call(ref, '/v1/media/models', { role: 'primary' })).body.data.map(
      (m: { id: string }) => m.id,
    );
    expect(ids).toHaveLength(8);
    const missing = MODELS.find((m) => !ids.includes(m) && TABLE.models[m].references.accepted?.length === 0);
    expect((await createJob(ref, jobBody(missing as string))).status).toBe(403);
    expect((await createJob(ref, jobBody('wc-100010'))).status).toBe(201);
  });
});

/** The contract's verdict for a sample upload, from the manifest (never from the server). */
function uploadOk(s: Sample): boolean {
  if (s.real_type !== s.declared_type || s.width === null || s.height === null) return false;
  if (s.width > 8192 || s.height > 8192) return false;
  if (s.real_type !== 'video/mp4') return true;
  return s.video_codec === 'h264' && (s.duration_ms ?? 0) >= 1000 && (s.duration_ms ?? 0) <= 30000;
}

describe('POST /v1/media/inputs', () => {
  test.for(SAMPLES.map((s) => ({ ...s, ok: uploadOk(s) })))(
    '$file (declared $declared_type) is accepted: $ok',
    async (s) => {
      const ref = await start();
      const res = await upload(ref, s.file);
      if (!s.ok) {
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        return;
      }
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['input', 'object']);
      expect(res.body.object).toBe('media_input');
      const input = res.body.input;
      expect(input).toMatchObject({
        content_type: s.real_type,
        size_bytes: s.bytes,
        width_pixels: s.width,
        height_pixels: s.height,
        duration_ms: s.duration_ms,
        sha256: s.sha256,
        status: 'ready',
      });
      expect(input.id).toMatch(/^in_[0-9a-f]{24}$/);
      expect(input.filename).toMatch(/^upload\.(png|jpg|webp|mp4)$/);
      expect(Number.isNaN(Date.parse(input.available_at))).toBe(false);
      expect(input.expires_at).toBeUndefined();
    },
  );

  test('refuses other content types with 415, and empty or chunked bodies with 400', async () => {
    const ref = await start();
    expect((await upload(ref, 'png-64x48.png', { type: 'image/gif' })).status).toBe(415);
    expect((await call(ref, '/v1/media/inputs', { method: 'POST', role: 'primary', json: {} })).status).toBe(
      415,
    );
    const empty = await fetch(`${ref.url}/v1/media/inputs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.keys.primary}`, 'content-type': 'image/png' },
      body: Buffer.alloc(0),
    });
    expect(empty.status).toBe(400);
    expect(isApiError(await empty.json())).toBe(true);
    const chunked = await rawUpload(ref, { 'transfer-encoding': 'chunked' }, Buffer.from('abc'));
    expect(chunked.status).toBe(400);
  });

  test('refuses a video announced over 500 MiB with 413 before reading it', async () => {
    const ref = await start();
    const res = await rawUpload(
      ref,
      { 'content-length': String(501 * 1024 * 1024) },
      Buffer.alloc(1024),
      'video/mp4',
    );
    expect(res.status).toBe(413);
    expect(isApiError(JSON.parse(res.text))).toBe(true);
  });

  test('names the input after X-Filename', async () => {
    const ref = await start();
    const res = await upload(ref, 'png-64x48.png', { headers: { 'x-filename': 'house.png' } });
    expect(res.body.input.filename).toBe('house.png');
  });

  test('replays an upload with the same Idempotency-Key and bytes, and refuses other bytes with 409', async () => {
    const ref = await start();
    const headers = { 'idempotency-key': 'upload-1' };
    const first = await upload(ref, 'png-64x48.png', { role: 'quota_nearly_full', headers });
    const again = await upload(ref, 'png-64x48.png', { role: 'quota_nearly_full', headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await upload(ref, 'jpeg-64x48.jpg', { role: 'quota_nearly_full', headers });
    expect(other.status).toBe(409);
    // The replay used no quota: 4096 - 554 left, and 3 more PNGs (1662) fit only if it did not.
    for (const key of ['a', 'b', 'c'])
      expect(
        (
          await upload(ref, 'png-64x48.png', {
            role: 'quota_nearly_full',
            headers: { 'idempotency-key': key },
          })
        ).status,
      ).toBe(201);
  });

  test('enforces the account input quota and releases it only after cleanup of a deleted input', async () => {
    // A cleanup step long enough that the upload right after the delete meets it pending on a slow machine.
    const ref = await start({ mediaStepMs: QUOTA_STEP });
    const role = 'quota_nearly_full';
    const big = await upload(ref, 'png-576x1024.png', { role });
    expect(big.status).toBe(429);
    expect(big.body.error.code).toBe('input_quota_exceeded');
    const ids: string[] = [];
    for (const file of ['jpeg-64x48.jpg', 'jpeg-64x48.jpg', 'jpeg-64x48.jpg']) {
      const res = await upload(ref, file, { role });
      if (res.status === 429) break;
      ids.push(res.body.input.id);
    }
    expect(ids).toHaveLength(3); // 4005 of 4096 bytes
    expect((await upload(ref, 'png-64x48.png', { role })).status).toBe(429);
    expect((await del(ref, ids[0] as string, role)).status).toBe(204);
    expect((await upload(ref, 'png-64x48.png', { role })).status).toBe(429);
    await sleep(QUOTA_STEP + 10);
    expect((await upload(ref, 'png-64x48.png', { role })).status).toBe(201);
  });

  test('variant sniff-at-job accepts mismatched and HEVC uploads and refuses jobs that use them', async () => {
    const ref = await start({ variant: 'sniff-at-job' });
    const png = await upload(ref, 'png-as-jpeg.jpg');
    expect(png.status).toBe(201);
    expect(png.body.input.content_type).toBe('image/jpeg');
    const hevc = await upload(ref, 'hevc-2s.mp4');
    expect(hevc.status).toBe(201);
    expect((await createJob(ref, jobBody('wc-100011', [png.body.input.id]))).status).toBe(400);
    expect((await createJob(ref, jobBody('wc-100016', [hevc.body.input.id]))).status).toBe(400);
    expect((await createJob(ref, jobBody('wc-100016', [await inputId(ref, 'h264-2s.mp4')]))).status).toBe(
      201,
    );
    // What the envelope must state (pixels, duration) is still measured at upload.
    expect((await upload(ref, 'h264-31s.mp4')).status).toBe(400);
    expect((await upload(ref, 'text-as-png.png')).status).toBe(400);
  });
});

/** An upload whose headers the test sets itself (Content-Length, Transfer-Encoding). */
function rawUpload(
  ref: ReferenceHandle,
  headers: Record<string, string>,
  body: Buffer,
  type = 'image/png',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${ref.url}/v1/media/inputs`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ref.keys.primary}`, 'content-type': type, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.write(body);
    if (!headers['content-length']) req.end();
  });
}

describe('DELETE /v1/media/inputs/{input_id}', () => {
  test('deletes the owner’s input once; unknown, deleted and foreign ids are 404', async () => {
    const ref = await start();
    const id = await inputId(ref);
    expect((await del(ref, id, 'other_tenant')).status).toBe(404);
    const gone = await del(ref, id);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expect((await del(ref, id)).status).toBe(404);
    expect((await del(ref, 'in_000000000000000000000000')).status).toBe(404);
    expect((await createJob(ref, jobBody('wc-100011', [id]))).status).toBe(400);
  });

  test('refuses with 409 while an active job references the input, and deletes after it ends', async () => {
    const ref = await start();
    const id = await inputId(ref);
    const job = await createJob(ref, jobBody('wc-100011', [id]));
    const busy = await del(ref, id);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('input_in_use');
    await pollJob(ref, job.body.id);
    expect((await del(ref, id)).status).toBe(204);
  });

  test('variant foreign-ids-403 answers 403 for another tenant’s input, job and asset', async () => {
    const ref = await start({ variant: 'foreign-ids-403' });
    expect((await del(ref, await inputId(ref), 'other_tenant')).status).toBe(403);
    const job = await createJob(ref, jobBody('wc-100010'));
    const done = (await pollJob(ref, job.body.id)).last.body;
    expect((await readJob(ref, job.body.id, 'other_tenant')).status).toBe(403);
    expect((await asset(ref, done.asset_id, 'other_tenant')).status).toBe(403);
    expect((await readJob(ref, 'job_unknown', 'other_tenant')).status).toBe(404);
  });
});

// ---------------------------------------------------------------- job validation

interface Inputs {
  images: string[];
  video: (ms: number) => string;
  hevc?: string;
  foreign: string;
  deleted: string;
}

interface Case {
  name: string;
  body: (i: Inputs) => unknown;
  status: number;
}

const params = (model: string, extra: Record<string, unknown>, refs: string[] = []) =>
  jobBody(model, refs, extra);
const prompt = (model: string, text: unknown, refs: string[] = []) => ({
  ...jobBody(model, refs),
  prompt: text,
});
const img = (i: Inputs, n: number) => i.images.slice(0, n);

const CASES: Case[] = [
  ...MODELS.map((m) => ({
    name: `${m} with its minimal valid request`,
    body: (i: Inputs) =>
      jobBody(m, TABLE.models[m].references.min > 0 ? img(i, TABLE.models[m].references.min) : []),
    status: 201,
  })),
  { name: 'a JSON array body', body: () => [jobBody('wc-100010')], status: 400 },
  { name: 'an extra top-level field', body: () => ({ ...jobBody('wc-100010'), seed: 1 }), status: 400 },
  {
    name: 'references at the top level',
    body: (i) => ({ ...jobBody('wc-100011'), input_asset_ids: img(i, 1) }),
    status: 400,
  },
  { name: 'no model', body: () => ({ prompt: 'x', parameters: ACK }), status: 400 },
  { name: 'a numeric model', body: () => ({ model: 100010, prompt: 'x', parameters: ACK }), status: 400 },
  { name: 'an unknown model', body: () => ({ ...jobBody('wc-100010'), model: 'wc-999999' }), status: 404 },
  { name: 'a text model', body: () => ({ ...jobBody('wc-100010'), model: 'tx-chat-1' }), status: 404 },
  {
    name: 'the derived kind',
    body: () => ({ ...jobBody('wc-100014'), kind: 'video_generation' }),
    status: 201,
  },
  { name: 'a wrong kind', body: () => ({ ...jobBody('wc-100014'), kind: 'image_generation' }), status: 400 },
  { name: 'no parameters', body: () => ({ model: 'wc-100010', prompt: 'x' }), status: 400 },
  {
    name: 'parameters as an array',
    body: () => ({ model: 'wc-100010', prompt: 'x', parameters: [] }),
    status: 400,
  },
  {
    name: 'no acknowledgement',
    body: () => ({ model: 'wc-100010', prompt: 'x', parameters: {} }),
    status: 400,
  },
  {
    name: 'acknowledgement false',
    body: () => params('wc-100010', { provider_processing_acknowledged: false }),
    status: 400,
  },
  {
    name: 'acknowledgement "true"',
    body: () => params('wc-100010', { provider_processing_acknowledged: 'true' }),
    status: 400,
  },
  ...(TABLE.never_accepted_parameters as string[]).map((name) => ({
    name: `the never-accepted ${name}`,
    body: () => params('wc-100016', { [name]: [] }),
    status: 400,
  })),
  { name: 'an unknown parameter', body: () => params('wc-100010', { style: 'vivid' }), status: 400 },
  { name: 'quality for wc-100010', body: () => params('wc-100010', { quality: 'high' }), status: 400 },
  {
    name: 'output_format for wc-100012',
    body: () => params('wc-100012', { output_format: 'png' }),
    status: 400,
  },
  {
    name: 'output_format for wc-100013',
    body: (i) => params('wc-100013', { output_format: 'png' }, img(i, 1)),
    status: 400,
  },
  {
    name: 'aspect_ratio for wc-100015',
    body: (i) => params('wc-100015', { aspect_ratio: '16:9' }, img(i, 1)),
    status: 400,
  },
  { name: 'any parameter for wc-100017', body: () => params('wc-100017', { size: 'auto_2K' }), status: 400 },
  {
    name: 'output_format webp for wc-100010',
    body: () => params('wc-100010', { output_format: 'webp' }),
    status: 400,
  },
  {
    name: 'output_format webp for wc-100040',
    body: () => params('wc-100040', { output_format: 'webp' }),
    status: 201,
  },
  { name: 'wc-100014 duration 4 and 30', body: () => params('wc-100014', { duration: 30 }), status: 201 },
  { name: 'wc-100014 duration 3', body: () => params('wc-100014', { duration: 3 }), status: 400 },
  { name: 'wc-100014 duration 31', body: () => params('wc-100014', { duration: 31 }), status: 400 },
  { name: 'wc-100014 duration 4.5', body: () => params('wc-100014', { duration: 4.5 }), status: 400 },
  { name: 'wc-100014 duration "4"', body: () => params('wc-100014', { duration: '4' }), status: 400 },
  {
    name: 'wc-100014 generate_audio "true"',
    body: () => params('wc-100014', { generate_audio: 'true' }),
    status: 400,
  },
  {
    name: 'wc-100014 generate_audio false',
    body: () => params('wc-100014', { generate_audio: false }),
    status: 201,
  },
  {
    name: 'wc-100014 resolution 1080P',
    body: () => params('wc-100014', { resolution: '1080P' }),
    status: 400,
  },
  {
    name: 'wc-100019 resolution 1080P',
    body: () => params('wc-100019', { resolution: '1080P' }),
    status: 201,
  },
  {
    name: 'wc-100019 resolution 1080p',
    body: () => params('wc-100019', { resolution: '1080p' }),
    status: 400,
  },
  { name: 'wc-100019 duration 2..15', body: () => params('wc-100019', { duration: 15 }), status: 201 },
  { name: 'wc-100019 duration 16', body: () => params('wc-100019', { duration: 16 }), status: 400 },
  { name: 'wc-100016 seed -1', body: (i) => params('wc-100016', { seed: -1 }, img(i, 1)), status: 400 },
  {
    name: 'wc-100016 seed 2147483647',
    body: (i) => params('wc-100016', { seed: 2147483647 }, img(i, 1)),
    status: 201,
  },
  {
    name: 'wc-100033 aspect_ratio 8:1',
    body: () => params('wc-100033', { aspect_ratio: '8:1' }),
    status: 201,
  },
  {
    name: 'wc-100031 aspect_ratio 8:1',
    body: () => params('wc-100031', { aspect_ratio: '8:1' }),
    status: 400,
  },
  // prompts
  { name: 'no prompt', body: () => ({ model: 'wc-100010', parameters: ACK }), status: 400 },
  { name: 'a numeric prompt', body: () => prompt('wc-100010', 5), status: 400 },
  { name: 'a white-space prompt', body: () => prompt('wc-100010', ' \n\t'), status: 400 },
  { name: 'wc-100031 prompt of 2', body: () => prompt('wc-100031', 'ab'), status: 400 },
  { name: 'wc-100031 prompt of 3 in spaces', body: () => prompt('wc-100031', '  abc  '), status: 201 },
  {
    name: 'wc-100031 prompt of 2 in wide spaces',
    body: () => prompt('wc-100031', '\u3000ab\u00a0\n'),
    status: 400,
  },
  { name: 'wc-100031 three emoji', body: () => prompt('wc-100031', '😀😀😀'), status: 201 },
  { name: 'wc-100010 prompt of 4000', body: () => prompt('wc-100010', 'a'.repeat(4000)), status: 201 },
  { name: 'wc-100010 prompt of 4001', body: () => prompt('wc-100010', 'a'.repeat(4001)), status: 400 },
  {
    name: 'wc-100010 prompt of 4000 in spaces',
    body: () => prompt('wc-100010', ` ${'a'.repeat(4000)} `),
    status: 201,
  },
  {
    name: 'wc-100010 1333 CJK (3999 bytes)',
    body: () => prompt('wc-100010', '漢'.repeat(1333)),
    status: 201,
  },
  {
    name: 'wc-100010 1334 CJK (4002 bytes)',
    body: () => prompt('wc-100010', '漢'.repeat(1334)),
    status: 400,
  },
  { name: 'wc-100017 600 emoji', body: () => prompt('wc-100017', '😀'.repeat(600)), status: 201 },
  { name: 'wc-100017 601 emoji', body: () => prompt('wc-100017', '😀'.repeat(601)), status: 400 },
  { name: 'wc-100017 600 characters', body: () => prompt('wc-100017', 'é'.repeat(600)), status: 201 },
  { name: 'wc-100017 601 characters', body: () => prompt('wc-100017', 'a'.repeat(601)), status: 400 },
  { name: 'wc-100017 300 emoji', body: () => prompt('wc-100017', '😀'.repeat(300)), status: 201 },
  { name: 'wc-100040 prompt of 1', body: () => prompt('wc-100040', 'a'), status: 400 },
  { name: 'wc-100040 prompt of 2001', body: () => prompt('wc-100040', 'a'.repeat(2001)), status: 400 },
  { name: 'wc-100018 empty prompt', body: (i) => prompt('wc-100018', '', img(i, 1)), status: 201 },
  {
    name: 'wc-100018 white-space prompt',
    body: (i) => prompt('wc-100018', ' \n\u3000', img(i, 1)),
    status: 201,
  },
  { name: 'wc-100018 text prompt', body: (i) => prompt('wc-100018', 'x', img(i, 1)), status: 400 },
  // sizes
  { name: 'wc-100010 preset 1024*1024', body: () => params('wc-100010', { size: '1024*1024' }), status: 201 },
  { name: 'wc-100010 custom 1024x1024', body: () => params('wc-100010', { size: '1024x1024' }), status: 201 },
  { name: 'wc-100010 custom 1023x1024', body: () => params('wc-100010', { size: '1023x1024' }), status: 400 },
  { name: 'wc-100010 custom 2048x2049', body: () => params('wc-100010', { size: '2048x2049' }), status: 400 },
  {
    name: 'wc-100010 ratio 16 (4096x256)',
    body: () => params('wc-100010', { size: '4096x256' }),
    status: 201,
  },
  { name: 'wc-100010 ratio over 16', body: () => params('wc-100010', { size: '4352x241' }), status: 400 },
  {
    name: 'wc-100010 auto_4K (list B only)',
    body: () => params('wc-100010', { size: 'auto_4K' }),
    status: 400,
  },
  { name: 'wc-100010 1024X1024', body: () => params('wc-100010', { size: '1024X1024' }), status: 400 },
  { name: 'wc-100010 numeric size', body: () => params('wc-100010', { size: 1024 }), status: 400 },
  {
    name: 'wc-100013 auto_4K',
    body: (i) => params('wc-100013', { size: 'auto_4K' }, img(i, 1)),
    status: 201,
  },
  { name: 'wc-100012 custom 4096x4096', body: () => params('wc-100012', { size: '4096x4096' }), status: 201 },
  { name: 'wc-100012 custom 4096x4097', body: () => params('wc-100012', { size: '4096x4097' }), status: 400 },
  { name: 'wc-100040 custom 1008x1008', body: () => params('wc-100040', { size: '1008x1008' }), status: 201 },
  {
    name: 'wc-100040 custom off-step 1000x1000',
    body: () => params('wc-100040', { size: '1000x1000' }),
    status: 400,
  },
  {
    name: 'wc-100040 custom edge 3856x1024',
    body: () => params('wc-100040', { size: '3856x1024' }),
    status: 400,
  },
  {
    name: 'wc-100040 custom ratio 2400x768',
    body: () => params('wc-100040', { size: '2400x768' }),
    status: 400,
  },
  { name: 'wc-100040 preset 3840x2160', body: () => params('wc-100040', { size: '3840x2160' }), status: 201 },
  // references
  { name: 'references for wc-100010', body: (i) => jobBody('wc-100010', img(i, 1)), status: 400 },
  { name: 'no references for wc-100011', body: () => jobBody('wc-100011'), status: 400 },
  { name: 'an empty reference array', body: () => params('wc-100011', { input_asset_ids: [] }), status: 400 },
  { name: 'ten images for wc-100011', body: (i) => jobBody('wc-100011', img(i, 10)), status: 201 },
  { name: 'eleven images for wc-100011', body: (i) => jobBody('wc-100011', img(i, 11)), status: 400 },
  { name: 'eleven images for wc-100013', body: (i) => jobBody('wc-100013', img(i, 11)), status: 400 },
  { name: 'fourteen images for wc-100032', body: (i) => jobBody('wc-100032', img(i, 14)), status: 201 },
  { name: 'fifteen images for wc-100032', body: (i) => jobBody('wc-100032', img(i, 15)), status: 400 },
  { name: 'two images for wc-100015', body: (i) => jobBody('wc-100015', img(i, 2)), status: 201 },
  { name: 'three images for wc-100015', body: (i) => jobBody('wc-100015', img(i, 3)), status: 400 },
  { name: 'two images for wc-100018', body: (i) => jobBody('wc-100018', img(i, 2)), status: 400 },
  { name: 'three images for wc-100041', body: (i) => jobBody('wc-100041', img(i, 3)), status: 400 },
  { name: 'thirty images for wc-100016', body: (i) => jobBody('wc-100016', img(i, 30)), status: 201 },
  { name: 'thirty-one images for wc-100016', body: (i) => jobBody('wc-100016', img(i, 31)), status: 400 },
  {
    name: 'studio_asset_ids alone',
    body: (i) => params('wc-100011', { studio_asset_ids: img(i, 1) }),
    status: 201,
  },
  {
    name: 'both id fields',
    body: (i) => params('wc-100011', { studio_asset_ids: img(i, 1) }, img(i, 1)),
    status: 400,
  },
  { name: 'duplicate ids', body: (i) => jobBody('wc-100011', [...img(i, 1), ...img(i, 1)]), status: 400 },
  { name: 'a 161-byte id', body: (i) => jobBody('wc-100011', [...img(i, 1), 'x'.repeat(161)]), status: 400 },
  { name: 'an unknown 160-byte id', body: () => jobBody('wc-100011', ['é'.repeat(80)]), status: 400 },
  { name: 'a numeric id', body: () => params('wc-100011', { input_asset_ids: [1] }), status: 400 },
  { name: 'another tenant’s input', body: (i) => jobBody('wc-100011', [i.foreign]), status: 400 },
  { name: 'a deleted input', body: (i) => jobBody('wc-100011', [i.deleted]), status: 400 },
  { name: 'a video for wc-100011', body: (i) => jobBody('wc-100011', [i.video(2000)]), status: 400 },
  { name: 'a 2 s video for wc-100016', body: (i) => jobBody('wc-100016', [i.video(2000)]), status: 201 },
  { name: 'a 30 s video for wc-100016', body: (i) => jobBody('wc-100016', [i.video(30000)]), status: 201 },
  { name: 'a 1.5 s video for wc-100016', body: (i) => jobBody('wc-100016', [i.video(1500)]), status: 400 },
  { name: 'a 1 s video for wc-100016', body: (i) => jobBody('wc-100016', [i.video(1000)]), status: 400 },
  {
    name: 'two videos for wc-100016',
    body: (i) => jobBody('wc-100016', [i.video(2000), i.video(30000)]),
    status: 400,
  },
  {
    name: 'an image and a video for wc-100016',
    body: (i) => jobBody('wc-100016', [...img(i, 1), i.video(2000)]),
    status: 400,
  },
];

describe('POST /v1/media/jobs validation', () => {
  const setup = async () => {
    const ref = await start();
    const images: string[] = [];
    for (let n = 0; n < 31; n++) images.push(await inputId(ref, n % 2 ? 'jpeg-64x48.jpg' : 'png-64x48.png'));
    const videos = new Map<number, string>();
    for (const file of ['h264-1s.mp4', 'h264-1.5s.mp4', 'h264-2s.mp4', 'h264-30s.mp4'])
      videos.set(sample(file).duration_ms as number, await inputId(ref, file));
    const deleted = await inputId(ref);
    await del(ref, deleted);
    const inputs: Inputs = {
      images,
      video: (ms) => videos.get(ms) as string,
      foreign: await inputId(ref, 'png-64x48.png', 'other_tenant'),
      deleted,
    };
    return { ref, inputs };
  };

  test('every case gets its documented verdict, refusals as 400 invalid_request', async () => {
    const { ref, inputs } = await setup();
    const wrong: string[] = [];
    for (const c of CASES) {
      const res = await createJob(ref, c.body(inputs) as Record<string, unknown>);
      if (res.status !== c.status) wrong.push(`${c.name}: ${res.status} ${res.text.slice(0, 160)}`);
      else if (c.status === 400 && res.body.error.code !== 'invalid_request')
        wrong.push(`${c.name}: code ${res.body.error.code}`);
    }
    expect(wrong).toEqual([]);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  test('refuses a model outside the account catalog with 403', async () => {
    const ref = await start();
    const res = await createJob(ref, jobBody('wc-100010'), { role: 'no_models' });
    expect(res.status).toBe(403);
    expect(isApiError(res.body)).toBe(true);
  });

  test('refuses a body that is not JSON with 415', async () => {
    const ref = await start();
    const res = await fetch(`${ref.url}/v1/media/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ref.keys.primary}`, 'content-type': 'image/png' },
      body: Buffer.from('x'),
    });
    expect(res.status).toBe(415);
  });
});

// ---------------------------------------------------------------- lifecycle, points, assets

const isPng = (b: Buffer) =>
  b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8;
const isWebp = (b: Buffer) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP';
const isMp4 = (b: Buffer) => b.toString('latin1', 4, 8) === 'ftyp';

describe('media job lifecycle', () => {
  test('passes authorizing, queued, running, output_fetching to succeeded with its asset', async () => {
    const ref = await start();
    const created = await createJob(ref, jobBody('wc-100010'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'authorizing',
      kind: 'image_generation',
      model: 'wc-100010',
      progress: { stage: 'authorizing' },
      progress_percent: null,
      pending_points: '0.75',
    });
    expect(created.body.id).toMatch(/^job_[0-9a-f]{24}$/);
    const { seen, last, percents } = await pollJob(ref, created.body.id);
    expect(seen, seen.join(' > ')).toSatisfy((s: string[]) =>
      inStageOrder(s, ['authorizing', 'queued', 'running', 'output_fetching', 'succeeded']),
    );
    for (const p of percents)
      expect(p === null || (Number.isInteger(p) && (p as number) >= 0 && (p as number) <= 100)).toBe(true);
    expect(last.body).toMatchObject({ progress_percent: 100, pending_points: '0', charged_points: '0.75' });
    const file = await asset(ref, last.body.asset_id);
    expect(file.status).toBe(200);
    expect(file.type).toBe('image/jpeg');
    expect(isJpeg(file.bytes)).toBe(true);
  });

  test.for([
    { model: 'wc-100010', extra: { output_format: 'png' }, type: 'image/png', check: isPng },
    { model: 'wc-100031', extra: {}, type: 'image/png', check: isPng },
    { model: 'wc-100040', extra: { output_format: 'webp' }, type: 'image/webp', check: isWebp },
    { model: 'wc-100012', extra: {}, type: 'image/png', check: isPng },
    { model: 'wc-100017', extra: {}, type: 'image/png', check: isPng },
    { model: 'wc-100014', extra: {}, type: 'video/mp4', check: isMp4 },
    { model: 'wc-100019', extra: {}, type: 'video/mp4', check: isMp4 },
  ])('serves $type bytes for $model $extra', async ({ model, extra, type, check }) => {
    const ref = await start();
    const { last } = await pollJob(ref, (await createJob(ref, params(model, extra))).body.id);
    const file = await asset(ref, last.body.asset_id);
    expect(file.type).toBe(type);
    expect(check(file.bytes)).toBe(true);
  });

  test('serves a valid binary glTF 2.0 for wc-100018', async () => {
    const ref = await start();
    const created = await createJob(ref, jobBody('wc-100018', [await inputId(ref)]));
    expect(created.body.kind).toBe('model_3d_generation');
    const { bytes, type } = await asset(ref, (await pollJob(ref, created.body.id)).last.body.asset_id);
    expect(type).toBe('model/gltf-binary');
    expect(bytes.toString('latin1', 0, 4)).toBe('glTF');
    expect(bytes.readUInt32LE(4)).toBe(2);
    expect(bytes.readUInt32LE(8)).toBe(bytes.length);
    const jsonLength = bytes.readUInt32LE(12);
    expect(bytes.readUInt32LE(16)).toBe(0x4e4f534a);
    expect(jsonLength % 4).toBe(0);
    const gltf = JSON.parse(bytes.toString('utf8', 20, 20 + jsonLength));
    expect(gltf.asset.version).toBe('2.0');
    const bin = 20 + jsonLength;
    expect(bytes.readUInt32LE(bin + 4)).toBe(0x004e4942);
    expect(bin + 8 + bytes.readUInt32LE(bin)).toBe(bytes.length);
  });

  test('holds points on creation and settles them exactly on success', async () => {
    // Stages of 250 ms: the hold is read while the job runs, also on a loaded machine.
    const ref = await start({ mediaStepMs: 250 });
    const before = await balance(ref);
    const created = await createJob(ref, jobBody('wc-100014'));
    const held = await balance(ref);
    expect(new Decimal(held.held_points).minus(before.held_points).toString()).toBe(
      created.body.pending_points,
    );
    expect(held.total_points).toBe(before.total_points);
    const { last } = await pollJob(ref, created.body.id);
    const after = await balance(ref);
    expect(after.held_points).toBe(before.held_points);
    expect(new Decimal(before.total_points).minus(after.total_points).toString()).toBe(
      last.body.charged_points,
    );
    expect(new Decimal(after.total_points).minus(after.held_points).toString()).toBe(
      new Decimal(after.available_points).toString(),
    );
    const ledger = (await call(ref, '/v1/ledger', { role: 'primary' })).body.data;
    expect(ledger[0]).toMatchObject({
      type: 'charge',
      amount_points: '-3.125',
      held_change_points: '-3.125',
    });
    expect(ledger[1]).toMatchObject({ type: 'hold', amount_points: '0', held_change_points: '3.125' });
    for (let i = 0; i + 1 < ledger.length; i++) {
      expect(new Decimal(ledger[i + 1].balance_after_points).plus(ledger[i].amount_points).toString()).toBe(
        new Decimal(ledger[i].balance_after_points).toString(),
      );
    }
  });

  test('settles a due job before any request of its account, without a job read', async () => {
    const ref = await start();
    const before = await balance(ref);
    await createJob(ref, jobBody('wc-100010'), { role: 'enterprise' });
    await createJob(ref, jobBody('wc-100010'));
    await sleep(STEP * 5);
    const after = await balance(ref);
    expect(new Decimal(before.total_points).minus(after.total_points).toString()).toBe('0.75');
    expect(after.held_points).toBe(before.held_points);
  });

  test('a CONFORMANCE_FAIL_JOB prompt ends failed with an error and the hold released', async () => {
    const ref = await start();
    expect(ref.capabilities).toContain('media-fail-prompt');
    const before = await balance(ref);
    const created = await createJob(ref, { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_FAIL_JOB please' });
    const { seen, last } = await pollJob(ref, created.body.id);
    expect(seen.at(-1)).toBe('failed');
    expect(last.body).toMatchObject({ error_code: expect.any(String), error_message: expect.any(String) });
    expect(last.body.asset_id).toBeUndefined();
    expect(await balance(ref)).toEqual(before);
    await sleep(STEP * 3);
    expect((await readJob(ref, created.body.id)).body.status).toBe('failed');
    const ledger = (await call(ref, '/v1/ledger', { role: 'primary' })).body.data;
    expect(ledger[0]).toMatchObject({ type: 'release', amount_points: '0', held_change_points: '-0.75' });
  });

  test('the poor account’s job stays in settlement_pending with its hold', async () => {
    const ref = await start();
    const created = await createJob(ref, jobBody('wc-100010'), { role: 'poor' });
    expect(created.status).toBe(201);
    expect(created.body.pending_points).toBe('0.01');
    await sleep(STEP * 6);
    const job = (await readJob(ref, created.body.id, 'poor')).body;
    expect(job.status).toBe('settlement_pending');
    expect(job.asset_id).toBeUndefined();
    expect(await balance(ref, 'poor')).toMatchObject({
      total_points: '0.01',
      held_points: '0.01',
      available_points: '0',
    });
  });

  test('replays the same job for the same Idempotency-Key and body, without a second hold', async () => {
    // Jobs that stay authorizing: the hold is compared before any settles, however slow the machine.
    const ref = await start({ mediaStepMs: HOLD_STEP });
    const headers = { 'idempotency-key': 'job-1' };
    const first = await createJob(ref, jobBody('wc-100010'), { headers });
    const held = (await balance(ref)).held_points;
    const again = await createJob(ref, jobBody('wc-100010'), { headers: { ...headers, ...LEGACY } });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await balance(ref)).held_points).toBe(held);
    const other = await createJob(ref, { ...jobBody('wc-100010'), prompt: 'another' }, { headers });
    expect(other.status).toBe(409);
  });

  test('renames the points fields under the legacy currency format', async () => {
    const ref = await start({ mediaStepMs: HOLD_STEP });
    const created = await createJob(ref, jobBody('wc-100010'), { headers: LEGACY });
    expect(created.headers.get('content-type')).toMatch(/^application\/vnd\.service\.currency\.v1\+json/);
    expect(created.body.pending_amount).toBe('0.75');
    expect(created.body.pending_points).toBeUndefined();
    expect((await readJob(ref, created.body.id, 'primary', LEGACY)).body.pending_amount).toBe('0.75');
  });

  test('keeps jobs and assets private to their account', async () => {
    const ref = await start();
    const created = await createJob(ref, jobBody('wc-100010'), { role: 'enterprise' });
    const { last } = await pollJob(ref, created.body.id, (j) => j.status !== 'authorizing');
    expect(last.status).toBe(404); // primary is another tenant
    expect((await readJob(ref, created.body.id, 'enterprise_second')).status).toBe(200);
    await sleep(STEP * 5);
    const done = (await readJob(ref, created.body.id, 'enterprise')).body;
    expect((await asset(ref, done.asset_id, 'enterprise_second')).status).toBe(200);
    expect((await asset(ref, done.asset_id, 'other_tenant')).status).toBe(404);
    expect((await asset(ref, done.asset_id, null)).status).toBe(401);
    expect((await asset(ref, 'asset_unknown')).status).toBe(404);
    expect((await readJob(ref, 'job_unknown')).status).toBe(404);
  });

  test('variants change the success statuses and the progress shape', async () => {
    const j202 = await start({ variant: 'job-202' });
    expect((await createJob(j202, jobBody('wc-100010'))).status).toBe(202);
    const i200 = await start({ variant: 'input-200' });
    expect((await upload(i200, 'png-64x48.png')).status).toBe(200);
    const progress = await start({ variant: 'progress-object' });
    const body = (await createJob(progress, jobBody('wc-100010'))).body;
    expect(Object.keys(body.progress).sort()).toEqual(['eta_seconds', 'phase', 'updated_at']);
    const extra = await start({ variant: 'extra-fields' });
    const entry = (await call(extra, '/v1/media/models', { role: 'primary' })).body.data[0];
    expect(entry.x_vendor).toBeDefined();
    expect(entry.parameters.x_vendor).toBeUndefined();
  });
});

// ---------------------------------------------------------------- the description

// Faults whose responses leave their own description (caught by the description checks too).
const NONCONFORMING = new Set([
  'image-duration-nonzero',
  'edge-8193',
  'video-31s',
  'succeeded-no-asset',
  'input-id-161',
]);
const SETUPS = describedSetups();

interface Recorded {
  method: string;
  path: string;
  exchange: Exchange;
}

/** Every kind of media exchange: successes, replays, refusals, lifecycle reads, assets. */
async function mediaScenario(ref: ReferenceHandle): Promise<Recorded[]> {
  const out: Recorded[] = [];
  const rec = async (method: string, path: string, exchange: Exchange | Promise<Exchange>) => {
    const ex = await exchange;
    out.push({ method, path, exchange: ex });
    return ex;
  };
  const INPUTS = '/v1/media/inputs';
  const JOBS = '/v1/media/jobs';
  const JOB = '/v1/media/jobs/{job_id}';
  const ASSET = '/v1/media/assets/{asset_id}';
  for (const role of ['primary', 'no_models', undefined])
    await rec('GET', '/v1/media/models', call(ref, '/v1/media/models', { role }));
  const png = await rec(
    'POST',
    INPUTS,
    upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': 'k1' } }),
  );
  await rec('POST', INPUTS, upload(ref, 'png-64x48.png', { headers: { 'idempotency-key': 'k1' } }));
  await rec('POST', INPUTS, upload(ref, 'jpeg-64x48.jpg', { headers: { 'idempotency-key': 'k1' } }));
  for (const file of [
    'h264-2s.mp4',
    'hevc-2s.mp4',
    'h264-31s.mp4',
    'png-8193x1.png',
    'text-as-png.png',
    'png-as-jpeg.jpg',
  ])
    await rec('POST', INPUTS, upload(ref, file));
  await rec('POST', INPUTS, upload(ref, 'png-64x48.png', { type: 'image/gif' }));
  await rec('POST', INPUTS, upload(ref, 'png-576x1024.png', { role: 'quota_nearly_full' }));
  await rec('POST', INPUTS, call(ref, INPUTS, { method: 'POST' }));
  const id = png.body?.input?.id ?? 'in_missing';
  // A create left unanswered (variant create-drop-once) is repeated once with the same key.
  const keyed = (body: Record<string, unknown>, opts: CallOptions) =>
    createJob(ref, body, opts).catch(() => createJob(ref, body, opts));
  const job = await rec(
    'POST',
    JOBS,
    keyed(jobBody('wc-100011', [id]), { headers: { 'idempotency-key': 'j1' } }),
  );
  await rec(
    'POST',
    JOBS,
    createJob(ref, jobBody('wc-100011', [id]), { headers: { 'idempotency-key': 'j1', ...LEGACY } }),
  );
  await rec('POST', JOBS, createJob(ref, jobBody('wc-100010'), { headers: { 'idempotency-key': 'j1' } }));
  await rec('DELETE', '/v1/media/inputs/{input_id}', del(ref, id));
  await rec('DELETE', '/v1/media/inputs/{input_id}', del(ref, 'in_unknown'));
  await rec('POST', JOBS, createJob(ref, params('wc-100010', { quality: 'high' })));
  await rec('POST', JOBS, createJob(ref, { ...jobBody('wc-100010'), model: 'wc-1' }));
  await rec('POST', JOBS, createJob(ref, jobBody('wc-100010'), { role: 'no_models' }));
  await rec('POST', JOBS, createJob(ref, jobBody('wc-100014'), { headers: LEGACY }));
  const failing = await rec('POST', JOBS, createJob(ref, { ...jobBody('wc-100018', [id]) }));
  const fail = await rec(
    'POST',
    JOBS,
    createJob(ref, { ...jobBody('wc-100010'), prompt: 'CONFORMANCE_FAIL_JOB' }),
  );
  const poor = await rec(
    'POST',
    JOBS,
    keyed(jobBody('wc-100010'), { role: 'poor', headers: { 'idempotency-key': 'p1' } }),
  );
  const uncertain = await rec(
    'POST',
    JOBS,
    keyed(
      { model: 'wc-900001', prompt: 'CONFORMANCE_UNCERTAIN_JOB', parameters: { ...ACK, steps: 15 } },
      { headers: { 'idempotency-key': 'u1' } },
    ),
  );
  await rec(
    'POST',
    JOBS,
    createJob(ref, { model: 'wc-900001', prompt: 'x', parameters: { ...ACK, steps: 12 } }),
  );
  for (const created of [job, failing, fail, uncertain]) {
    if (!created.body?.id) continue;
    const until = Date.now() + 2000;
    for (;;) {
      const read = await rec('GET', JOB, readJob(ref, created.body.id));
      if (['succeeded', 'failed'].includes(read.body?.status) || Date.now() > until) break;
      await sleep(2);
    }
  }
  if (poor.body?.id) {
    await sleep(50);
    await rec('GET', JOB, readJob(ref, poor.body.id, 'poor'));
    await rec(
      'POST',
      JOBS,
      createJob(ref, jobBody('wc-100010'), { role: 'poor', headers: { 'idempotency-key': 'p1' } }),
    );
  }
  const done = job.body?.id ? await rec('GET', JOB, readJob(ref, job.body.id, 'primary', LEGACY)) : undefined;
  if (job.body?.id) await rec('GET', JOB, readJob(ref, job.body.id, 'other_tenant'));
  await rec('GET', JOB, readJob(ref, 'job_unknown'));
  await rec('DELETE', '/v1/media/inputs/{input_id}', del(ref, id));
  const assetId = done?.body?.asset_id ?? 'asset_missing';
  for (const role of ['primary', 'other_tenant', undefined])
    await rec('GET', ASSET, call(ref, `/v1/media/assets/${assetId}`, { role }));
  return out;
}

describe('the media description', () => {
  // Each setup mostly waits on its job's steps, so several run at once (vitest's maxConcurrency): each
  // starts and closes its own reference (the pool closes every open handle after each test).
  test.concurrent.for(SETUPS)('matches every media exchange: $name', async ({ opts }, { expect }) => {
    const ref = await startReference({ mediaStepMs: 8, ...opts, port: 0 });
    try {
      const doc = (await call(ref, '/openapi.json')).body;
      const problems: string[] = [];
      const statuses = new Set<number>();
      for (const { method, path, exchange } of await mediaScenario(ref)) {
        statuses.add(exchange.status);
        for (const p of describedProblems(doc, method, path, exchange))
          problems.push(`${method} ${path} (${exchange.status}): ${p}`);
      }
      if (opts.fault && NONCONFORMING.has(opts.fault)) expect(problems).not.toEqual([]);
      else expect(problems).toEqual([]);
      if (!opts.fault && !opts.variant)
        expect([...statuses].sort()).toEqual([200, 201, 204, 400, 401, 403, 404, 409, 415, 429]);
    } finally {
      await ref.close();
    }
  });

  test('declares the media statuses, bodies and content types', async () => {
    const ref = await start();
    const doc = (await call(ref, '/openapi.json')).body;
    const op = (path: string, method: string) => doc.paths[path][method];
    const statuses = (path: string, method: string) => Object.keys(op(path, method).responses);
    expect(statuses('/v1/media/inputs', 'post')).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
    ]);
    expect(Object.keys(op('/v1/media/inputs', 'post').requestBody.content)).toEqual([
      'image/png',
      'image/jpeg',
      'image/webp',
      'video/mp4',
    ]);
    expect(statuses('/v1/media/inputs/{input_id}', 'delete')).toEqual([
      '204',
      '401',
      '403',
      '404',
      '409',
      '429',
    ]);
    expect(statuses('/v1/media/jobs', 'post')).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
    ]);
    expect(op('/v1/media/jobs', 'post').responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(Object.keys(op('/v1/media/assets/{asset_id}', 'get').responses['200'].content)).toContain(
      'model/gltf-binary',
    );
    expect(doc.components.schemas.LegacyMediaJobResponse).toBeDefined();
    const j202 = (await call(await start({ variant: 'job-202' }), '/openapi.json')).body;
    expect(Object.keys(j202.paths['/v1/media/jobs'].post.responses)).toContain('202');
  });
});
