// @conformance start-early 9
import { randomUUID } from 'node:crypto';
import {
  acceptableSamples,
  type CheckContext,
  check,
  documentedViolations,
  expectStatus,
  type HttpResponse,
  isClientError,
  isPlainObject,
  isSuccess,
  refusalControl,
  sample,
  segment,
  upload,
} from '../../src/suite/index.ts';
import { BIG_IMAGES, paddedJpeg, paddedMp4 } from './big-images.ts';
import { ACK, clientKeys, listedModel, PROMPT, postJob, table } from './support.ts';

const FIELD = table.reference_fields[0]!;
const ENVELOPE_KEYS = ['input', 'object'];

/** "Envelope (MediaInputEnvelope, no extra fields): `{object: "media_input", input: MediaInput}`". */
function closedEnvelope(t: CheckContext, res: HttpResponse, what: string): void {
  const env = isPlainObject(res.json) ? res.json : {};
  t.ensure(
    env.object === 'media_input' && JSON.stringify(Object.keys(env).sort()) === JSON.stringify(ENVELOPE_KEYS),
    'MIN-001',
    `${what}: the envelope is not exactly {object: "media_input", input}`,
    { received: Object.keys(env), expected: ENVELOPE_KEYS, exchange: res.exchange },
  );
}

check(
  { ids: ['MIN-085', 'MIN-001', 'MIN-002', 'MIN-003', 'MIN-013'], effect: 'write' },
  'accepts every sample of every coding and describes each exactly in a closed envelope',
  async (t) => {
    for (const { file } of acceptableSamples()) {
      const s = sample(file);
      const u = await upload(t, file);
      const what = `uploading ${file} (${s.format}, ${s.bytes} bytes)`;
      if (
        !expectStatus(t, u.res, 'MIN-085', '2xx', what, { expected: `a ready input: ${s.purpose}` }) ||
        !t.ensure(isPlainObject(u.res.json), 'MIN-001', `${what}: the reply is not a JSON object`, {
          received: u.res.exchange.responseBody?.preview,
          exchange: u.res.exchange,
        })
      )
        continue;
      closedEnvelope(t, u.res, file);
      const i = u.input ?? {};
      const expect: Array<[string, unknown]> = [
        ['content_type', s.declared_type],
        ['size_bytes', s.bytes],
        ['width_pixels', s.width],
        ['height_pixels', s.height],
        ['sha256', s.sha256],
        ['status', 'ready'],
      ];
      for (const [field, value] of expect) {
        t.ensure(i[field] === value, 'MIN-002', `${file}: input.${field} is ${JSON.stringify(i[field])}`, {
          pointer: `/input/${field}`,
          received: i[field],
          expected: value,
          exchange: u.res.exchange,
        });
      }
      const d = i.duration_ms;
      const durationOk = s.real_type.startsWith('image/')
        ? d === 0
        : typeof d === 'number' && Math.abs(d - (s.duration_ms ?? 0)) <= 50;
      t.ensure(durationOk, 'MIN-002', `${file}: input.duration_ms is ${JSON.stringify(d)}`, {
        pointer: '/input/duration_ms',
        received: d,
        expected: s.duration_ms,
        exchange: u.res.exchange,
      });
      // The field table's types, ranges and formats (schemas/media-input.json: id, filename and the
      // date-times among them), whatever the deployment's own description says of them.
      documentedViolations(t, u.res, 'media-input.json', () => 'MIN-002', { at: '/input', value: i });
      // An input id must fit where it is used: a reference id is at most 160 UTF-8 bytes.
      if (typeof i.id === 'string')
        t.ensure(
          Buffer.byteLength(i.id) <= table.reference_id_max_utf8_bytes,
          'MIN-013',
          `${file}: input.id is ${Buffer.byteLength(i.id)} UTF-8 bytes`,
          { pointer: '/input/id', received: i.id, exchange: u.res.exchange },
        );
      t.ensure(
        i.expires_at === undefined || i.expires_at === null,
        'MIN-003',
        `${file}: a new input carries expires_at ${JSON.stringify(i.expires_at)}`,
        { pointer: '/input/expires_at', received: i.expires_at, exchange: u.res.exchange },
      );
    }
  },
);

/** A valid file of each kind: what the control of an upload's refusal sends. */
const VALID_UPLOAD = { image: 'png-64x48.png', video: 'h264-2s.mp4' } as const;

/**
 * The control of an upload's refusal: a valid file of the same kind uploaded by the same key, accepted
 * (a key that cannot upload at all, or uploads barred, would pass every refusal). Once per kind and worker.
 */
async function uploadControl(t: CheckContext, refused: HttpResponse, file: string): Promise<void> {
  if (!isClientError(refused.status) || refused.status === 429) return;
  const kind = file.endsWith('.mp4') ? 'video' : 'image';
  await refusalControl(t, {
    table: `upload of a valid ${kind}`,
    what: `uploading ${VALID_UPLOAD[kind]}, a valid ${kind}, with the same key`,
    send: async () => (await upload(t, VALID_UPLOAD[kind])).res,
  });
}

check(
  { ids: ['MIN-004'], effect: 'write' },
  'refuses a Content-Type outside the four media types',
  async (t) => {
    for (const ct of ['image/gif', 'application/octet-stream', 'text/plain']) {
      const u = await upload(t, 'png-64x48.png', { contentType: ct });
      if (expectStatus(t, u.res, 'MIN-004', '4xx', `an upload declared as ${ct}`))
        await uploadControl(t, u.res, 'png-64x48.png');
    }
  },
);

/**
 * A file the contract refuses may be refused at upload or, once referenced, at job creation (judging.md).
 * The job stage is probed only where billable requests are allowed: a faulty target might accept it.
 */
async function refusedSomewhere(
  t: CheckContext,
  id: string,
  file: string,
  model: string,
  what: string,
  opts: { contentType?: string } = {},
) {
  const u = await upload(t, file, opts);
  if (t.refusal(u.res, what)) return uploadControl(t, u.res, file);
  if (!u.id)
    return t.violate(id, `${what}: the upload was answered ${u.res.status}`, {
      received: u.res.status,
      exchange: u.res.exchange,
    });
  if (!t.target.allow.includes('billable'))
    return t.skip(`${what} was accepted at upload; the job-stage refusal needs the billable class`);
  await listedModel(t, model);
  const res = await postJob(t, {
    model,
    prompt: PROMPT,
    parameters: { [ACK]: true, [FIELD]: [u.id] },
  });
  expectStatus(t, res, id, '4xx', `${what}, accepted at upload, then referenced by a ${model} job`, {
    expected: 'a refusal at upload or at job creation',
  });
}

check(
  { ids: ['MIN-005'], effect: 'write' },
  'refuses bytes that do not match their declared type',
  async (t) => {
    await refusedSomewhere(t, 'MIN-005', 'png-as-jpeg.jpg', 'wc-100011', 'PNG bytes declared as image/jpeg');
    await refusedSomewhere(t, 'MIN-005', 'text-as-png.png', 'wc-100011', 'text declared as image/png');
    await refusedSomewhere(t, 'MIN-005', 'mp4-as-png.png', 'wc-100011', 'MP4 bytes declared as image/png');
    await refusedSomewhere(t, 'MIN-005', 'jpeg-as-mp4.mp4', 'wc-100016', 'JPEG bytes declared as video/mp4');
  },
);

check(
  { ids: ['MIN-006'], effect: 'write' },
  'refuses an image edge over 8192 px (width, height) and videos outside 1 to 30 s (0.5 s, 30.25 s, 31 s)',
  async (t) => {
    await refusedSomewhere(t, 'MIN-006', 'png-8193x1.png', 'wc-100011', 'an image 8193 px wide');
    await refusedSomewhere(t, 'MIN-006', 'png-1x8193.png', 'wc-100011', 'an image 8193 px high');
    await refusedSomewhere(t, 'MIN-006', 'h264-0.5s.mp4', 'wc-100016', 'a 0.5 s video');
    await refusedSomewhere(t, 'MIN-006', 'h264-31s.mp4', 'wc-100016', 'a 31 s video');
    await refusedSomewhere(t, 'MIN-006', 'h264-30.25s.mp4', 'wc-100016', 'a 30.25 s video');
  },
);

check(
  { ids: ['MIN-006'], effect: 'write' },
  'accepts images of 1 and 8192 px (width, height) and videos of 1 and 30 s',
  async (t) => {
    for (const file of ['png-1x1.png', 'png-8192x1.png', 'png-1x8192.png', 'h264-1s.mp4', 'h264-30s.mp4']) {
      const u = await upload(t, file);
      expectStatus(t, u.res, 'MIN-006', '2xx', `uploading ${file} (at a bound)`);
    }
  },
);

check({ ids: ['MIN-007'], effect: 'write' }, 'refuses a video that is not H.264', async (t) => {
  await refusedSomewhere(t, 'MIN-007', 'hevc-2s.mp4', 'wc-100016', 'an HEVC video');
});

// RESP-004 too: the replay's headers (an Idempotent-Replayed the description declares) are judged against
// the live description like every exchange's, and this free replay is where the RESP-004 checks meet one.
check(
  { ids: ['MIN-008', 'RESP-004', 'MIN-001'], effect: 'write' },
  'returns the same input for an upload replayed with its Idempotency-Key, in the closed envelope',
  async (t) => {
    const key = `conformance-upload-${randomUUID()}`;
    const a = await upload(t, 'png-64x48.png', { idempotencyKey: key });
    const b = await upload(t, 'png-64x48.png', { idempotencyKey: key });
    if (!a.id) return t.skip(`the upload was answered ${a.res.status}`);
    if (b.res.status === 429)
      return t.skip('the replayed upload was answered 429 (a limit: no answer either way)');
    // "Idempotency-Key is sent on ... media input upload": a replay makes no second input. A refused
    // replay makes none (how a replay is answered beyond that is not stated; MJOB-024 reads it so too).
    t.ensure(
      !isSuccess(b.res.status) || b.id === a.id,
      'MIN-008',
      `the replayed upload produced input ${JSON.stringify(b.id)}, not ${a.id}`,
      { received: b.id, expected: a.id, exchange: b.res.exchange },
    );
    if (isSuccess(b.res.status)) closedEnvelope(t, b.res, 'the replayed upload');
  },
);

check(
  { ids: ['IDEM-005'], effect: 'write' },
  "takes an upload's Idempotency-Key of 128 characters as the reference client makes them",
  (t) =>
    clientKeys(t, 'an upload', async (key) => {
      const u = await upload(t, 'png-64x48.png', { idempotencyKey: key });
      return { res: u.res, id: u.id };
    }),
);

check(
  { ids: ['MIN-009'], effect: 'write' },
  'deletes a ready input, which can then no longer be referenced',
  async (t) => {
    const u = await upload(t, 'png-64x48.png');
    if (!u.id) return t.skip(`the upload was answered ${u.res.status}`);
    const del = await t.request('DELETE', `/v1/media/inputs/${segment(u.id, 'input id')}`);
    if (!expectStatus(t, del, 'MIN-009', '2xx', 'deleting a ready input')) return;
    // A repeated delete may answer 2xx (idempotent) or a refusal: not judged; the input stays unusable.
    await t.request('DELETE', `/v1/media/inputs/${segment(u.id, 'input id')}`);
    if (!t.target.allow.includes('billable')) return;
    await listedModel(t, 'wc-100011');
    // Under either name of the reference ids ("`input_asset_ids` (or the equivalent `studio_asset_ids`)").
    for (const field of table.reference_fields) {
      const job = await postJob(t, {
        model: 'wc-100011',
        prompt: PROMPT,
        parameters: { [ACK]: true, [field]: [u.id] },
      });
      t.ensure(
        t.refusal(job, `a job referencing the deleted input under ${field}`),
        'MIN-009',
        `a job referencing the input deleted (and deleted again) under ${field} was answered ${job.status}`,
        { received: job.status, exchange: job.exchange },
      );
    }
  },
);

// "Error body: the APIError object" where a media resource is not found, with the account's own key (the
// foreign and out-of-scope ids of the isolation and scope tests need roles a target may not have): the
// replies are judged by the per-exchange checks (ERR-001); their status is not (none is stated for an id
// no one was given: 404 is natural, 403 allowed for ids the key cannot see).
check(
  { ids: ['ERR-001'], effect: 'write' },
  'answers an unknown media job, asset or input with the APIError object',
  async (t) => {
    const unknown = `conformance_unknown_${t.run.seed}`;
    for (const [method, path] of [
      ['GET', `/v1/media/jobs/job_${unknown}`],
      ['GET', `/v1/media/assets/asset_${unknown}`],
      ['DELETE', `/v1/media/inputs/in_${unknown}`],
    ] as const)
      await t.request(method, path);
  },
);

check(
  { ids: ['MIN-012', 'MIN-008'], effect: 'write', roles: ['other_tenant'] },
  "keeps each tenant's Idempotency-Keys its own: another tenant's upload with the same key gets no input of this one",
  async (t) => {
    // "private input ids owned by the tenant": a key is the tenant's; a store shared across tenants
    // would answer the second upload with the first one's input.
    const key = `conformance-upload-${randomUUID()}`;
    const mine = await upload(t, 'png-64x48.png', { idempotencyKey: key });
    if (!mine.id) return t.skip(`the upload was answered ${mine.res.status} (see MIN-001)`);
    const theirs = await upload(t, 'png-64x48.png', { as: 'other_tenant', idempotencyKey: key });
    // A refusal of the other tenant's upload is not judged here (whether keys are checked across
    // tenants is not shown); an input of this tenant in its answer is.
    if (!isSuccess(theirs.res.status)) return;
    t.ensure(
      theirs.id !== mine.id,
      'MIN-012',
      `another tenant's upload with the same Idempotency-Key and bytes was answered with this tenant's input ${mine.id}`,
      { received: theirs.id, exchange: theirs.res.exchange },
    );
  },
);

// "private input ids owned by the tenant", and an enterprise account's "up to 10 named keys" are one
// tenant (one balance, usage and ledger; "Rotation: update application configuration first, then revoke
// the old key" leaves the inputs to the new key): an input is the tenant's, not the key's that uploaded it.
// The other key deletes it as the uploader would (MIN-009: "ready | DELETE ... | no active media job
// references it | deleted"); the uploader's own upload, accepted, is the control.
check(
  { ids: ['MIN-012'], effect: 'write', roles: ['enterprise', 'enterprise_second'] },
  'lets another key of the same enterprise account delete an input one of its keys uploaded',
  async (t) => {
    const mine = await upload(t, 'png-64x48.png', { as: 'enterprise' });
    if (!mine.id) return t.skip(`the upload with the enterprise key was answered ${mine.res.status}`);
    const del = await t.request('DELETE', `/v1/media/inputs/${segment(mine.id, 'input id')}`, {
      as: 'enterprise_second',
    });
    expectStatus(
      t,
      del,
      'MIN-012',
      '2xx',
      "deleting, with the enterprise account's second key, a ready input its first key uploaded (inputs are owned by the tenant)",
    );
  },
);

/**
 * The media input quota the quota_nearly_full account has left at most, in bytes, where the target declares
 * it (limits.quota_nearly_full_bytes); "almost no media input quota left" is not a size.
 */
function quotaLeft(t: CheckContext): number | undefined {
  const v = t.target.limits.quota_nearly_full_bytes;
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}
/** Past this the declared quota is not tried: an upload of that size is too costly for a conformance run. */
const QUOTA_PROBE_MAX_BYTES = 256 * 1024 * 1024;

check(
  { ids: ['MIN-011'], effect: 'write', roles: ['quota_nearly_full'], judges429: true },
  'refuses uploads past the input quota with 429, images and videos alike',
  async (t) => {
    const image = 'jpeg-1024x576.jpg';
    const video = 'h264-1.79s.mp4';
    const left = quotaLeft(t);
    // Declared: an image and a video one byte larger than what is left ("images and video together share
    // 10 GiB per account") are each refused with 429.
    if (left !== undefined) {
      if (left + 1 > QUOTA_PROBE_MAX_BYTES)
        return t.skip(
          `the declared quota left (${left} bytes) is more than the ${QUOTA_PROBE_MAX_BYTES} bytes this test uploads`,
        );
      const files: Array<[string, string, Buffer]> = [
        ['an image', 'jpeg-64x48.jpg', paddedJpeg('jpeg-64x48.jpg', left + 1)],
        ['a video', video, paddedMp4(video, left + 1)],
      ];
      for (const [what, file, data] of files) {
        const u = await upload(t, file, { as: 'quota_nearly_full', data });
        expectStatus(
          t,
          u.res,
          'MIN-011',
          429,
          `uploading ${what} of ${data.length} bytes by an account with at most ${left} bytes of input quota left (limits.quota_nearly_full_bytes)`,
        );
      }
      return;
    }
    // Not declared: small uploads until one is refused. An account that takes ten has more than "almost
    // no" quota left, which says nothing of the rule: advisory, with how to judge it.
    const upTo = async (file: string, times: number): Promise<boolean | undefined> => {
      for (let i = 0; i < times; i++) {
        const u = await upload(t, file, { as: 'quota_nearly_full' });
        if (u.res.status === 429) {
          t.observe('MIN-011', u.res.exchange);
          return true;
        }
        if (!isSuccess(u.res.status)) return t.skip(`an upload of ${file} was answered ${u.res.status}`);
      }
      return false;
    };
    if (!(await upTo(image, 10)))
      return t.violate(
        'MIN-011',
        `ten uploads of ${image} (${sample(image).bytes} bytes) by an account with almost no quota left met no 429; declare the quota it has left (limits.quota_nearly_full_bytes, CONFORMANCE_LIMIT_QUOTA_NEARLY_FULL_BYTES) to judge the rule`,
        { expected: 429, level: 'notable' },
      );
    // "images and video together share 10 GiB per account": the quota left is now under one image, so
    // videos cannot fit past it either. Those that still fit are bought; the one past it is refused.
    const fit = Math.floor(sample(image).bytes / sample(video).bytes);
    if (!(await upTo(video, fit + 1)))
      t.violate(
        'MIN-011',
        `after an upload of ${sample(image).bytes} bytes was refused for the quota, ${fit + 1} videos of ${sample(video).bytes} bytes were all accepted`,
        { expected: 429 },
      );
  },
);

// "| Media input size_bytes | 1 to 10737418240; ...": an empty file is no input. Which status and code
// are not stated for it (not one of the error table's named causes): any 4xx refusal.
check(
  { ids: ['MIN-014'], effect: 'write' },
  'refuses an empty upload: size_bytes is at least 1',
  async (t) => {
    const what = 'uploading an empty body (0 bytes) declared image/png';
    const u = await upload(t, 'png-1x1.png', { data: Buffer.alloc(0), contentType: 'image/png' });
    if (t.notJudged429(u.res, what)) return;
    if (expectStatus(t, u.res, 'MIN-014', '4xx', what)) await uploadControl(t, u.res, 'png-1x1.png');
  },
);

// "| Media input size_bytes | 1 to 10737418240; images and video together share 10 GiB per account; no
// separate per-image byte cap; ..." (a 429 is "input quota insufficient": not judged), in each image type.
for (const image of BIG_IMAGES)
  check(
    { ids: ['MIN-014'], effect: 'write' },
    `accepts an ${image.type} upload of more than 32 MiB: no separate per-image byte cap`,
    async (t) => {
      const data = image.make();
      const what = `uploading ${image.what} (${image.type}, ${data.length} bytes)`;
      const u = await upload(t, image.file, {
        data,
        contentType: image.type,
        timeoutMs: Math.max(t.target.timeouts.requestMs, 120_000),
      });
      if (t.notJudged429(u.res, what)) return;
      expectStatus(t, u.res, 'MIN-014', '2xx', what);
    },
  );
