// @conformance start-early 4
import { randomUUID } from 'node:crypto';
import {
  ACTIVE_STATUSES,
  assetOfSucceeded,
  type CheckContext,
  cheapestParameters,
  check,
  controlAccepted,
  expectStatus,
  group,
  type HttpResponse,
  isPlainObject,
  isSuccess,
  JOB_STATUSES,
  jobStatusNow,
  pointsFieldPointers,
  pollJob,
  readsNoJob,
  segment,
  sniff,
  unfinished,
  upload,
} from '../../src/suite/index.ts';
import { LEGACY, modelUnchanged } from '../points/legacy-support.ts';
import {
  baseJob,
  catalogKind,
  clientKeys,
  documentedIds,
  listedModel,
  mayBeOwnId,
  postJob,
  table,
} from './support.ts';

const PATH = '/v1/media/jobs';
const IMAGE_MIME: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

async function createJob(
  t: CheckContext,
  id: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  /** The name its references are sent under (the first of the two equivalent names unless told). */
  field: string = table.reference_fields[0]!,
) {
  const m = await listedModel(t, id);
  const base = await baseJob(t, id, m);
  const { [table.reference_fields[0]!]: refs, ...others } = base.parameters as Record<string, unknown>;
  const parameters = {
    ...others,
    ...(refs === undefined ? {} : { [field]: refs }),
    ...cheapestParameters(table, m),
  };
  const body = { ...base, parameters, ...extra };
  const res = await postJob(t, body, {
    headers: { 'idempotency-key': `conformance-job-${randomUUID()}`, ...headers },
  });
  const job = isPlainObject(res.json) ? res.json : undefined;
  if (typeof job?.id === 'string' && isSuccess(res.status)) segment(job.id, 'job id');
  return { m, body, res, job, jobId: typeof job?.id === 'string' ? job.id : undefined };
}

/**
 * Every MediaJob a job's create and reads answer: "id, status, kind, model ... required" (the job's own
 * id and model on every read, a kind), its status among the contract's, progress_percent in range, and
 * the catalog's kind when the catalog gives one (MJOB-070).
 */
function checkReads(
  t: CheckContext,
  replies: readonly HttpResponse[],
  job: { id: string; model: string; kind?: string | undefined },
): void {
  const { kind } = job;
  for (const r of replies) {
    const j = r.json as Record<string, unknown> | undefined;
    // A 429 or 5xx read carries no MediaJob (pollJob reads again); a 404 or another refusal is judged.
    if (!j || readsNoJob(r)) continue;
    for (const [field, ok, expected] of [
      ['id', j.id === job.id, job.id],
      ['model', j.model === job.model, job.model],
      ['kind', typeof j.kind === 'string', 'a string'],
    ] as const)
      t.ensure(ok, 'MJOB-020', `a read of job ${job.id} reports ${field} ${JSON.stringify(j[field])}`, {
        pointer: `/${field}`,
        received: j[field],
        expected,
        exchange: r.exchange,
      });
    if (kind !== undefined && j.kind !== undefined)
      t.ensure(j.kind === kind, 'MJOB-070', `a read of the job reports kind ${JSON.stringify(j.kind)}`, {
        pointer: '/kind',
        received: j.kind,
        expected: `${kind} (its model's catalog kind)`,
        exchange: r.exchange,
      });
    t.ensure(
      (JOB_STATUSES as readonly string[]).includes(String(j.status)),
      'MJOB-020',
      `job status ${JSON.stringify(j.status)} is not one of the contract's statuses`,
      { pointer: '/status', received: j.status, exchange: r.exchange },
    );
    // "| progress | object (MediaProgress) |", "| error_code, error_message | string |": held to the table
    // whatever the live description says (a description silent on them lets any value through). A null is
    // left to the live description (MJOB-021's reading: absent before its condition holds).
    if (j.progress !== undefined && j.progress !== null)
      t.ensure(isPlainObject(j.progress), 'MJOB-028', `progress is ${JSON.stringify(j.progress)}`, {
        pointer: '/progress',
        received: j.progress,
        expected: 'an object (MediaProgress)',
        exchange: r.exchange,
      });
    for (const field of ['asset_id', 'error_code', 'error_message'] as const) {
      const v = j[field];
      if (v !== undefined && v !== null)
        t.ensure(
          typeof v === 'string',
          field === 'asset_id' ? 'MJOB-021' : 'MJOB-028',
          `${field} is ${JSON.stringify(v)}`,
          { pointer: `/${field}`, received: v, expected: 'a string', exchange: r.exchange },
        );
    }
    const p = j.progress_percent;
    t.ensure(
      p === undefined || p === null || (Number.isInteger(p) && (p as number) >= 0 && (p as number) <= 100),
      'MJOB-022',
      `progress_percent is ${JSON.stringify(p)}`,
      {
        pointer: '/progress_percent',
        received: p,
        expected: 'null or an integer 0 to 100',
        exchange: r.exchange,
      },
    );
  }
}

for (const id of documentedIds) {
  const model = table.models[id]!;
  group(id, () => {
    check(
      {
        ids: ['MJOB-020', 'MJOB-021', 'MJOB-022', 'MJOB-025', 'MJOB-028', 'MJOB-070', 'MASSET-001'],
        effect: 'billable',
      },
      `${id}: runs a job to its end and serves an asset of the output kind`,
      async (t) => {
        const { res, job, jobId } = await createJob(t, id);
        if (
          !t.ensure(
            isSuccess(res.status) && !!jobId,
            'MJOB-020',
            `a valid ${id} job was answered ${res.status}`,
            { received: res.status, expected: '2xx with a MediaJob', exchange: res.exchange },
          )
        )
          return;
        const catalogued = await catalogKind(t, id);
        if (catalogued !== undefined && typeof job?.kind === 'string')
          t.ensure(job.kind === catalogued, 'MJOB-070', `a ${id} job reports kind ${job.kind}`, {
            pointer: '/kind',
            received: job.kind,
            expected: `${catalogued} (its model's catalog kind)`,
            exchange: res.exchange,
          });
        const trace = await pollJob(t, jobId!);
        // The create reply is a MediaJob too: a poll that misses the stages before the end still judges one.
        checkReads(t, [res, ...trace.responses], { id: jobId!, model: id, kind: catalogued });
        const status = trace.statuses[trace.statuses.length - 1];
        if (status !== 'succeeded') return t.skip(unfinished(t, trace));
        const assetId = trace.last?.asset_id;
        if (
          !t.ensure(typeof assetId === 'string', 'MJOB-021', 'a succeeded job carries no asset_id', {
            pointer: '/asset_id',
            exchange: trace.responses.at(-1)?.exchange,
          })
        )
          return;
        const again = await pollJob(t, jobId!, { until: () => true });
        checkReads(t, again.responses, { id: jobId!, model: id, kind: catalogued });
        const later = String(again.last?.status);
        t.ensure(
          later === 'succeeded' || later === 'expired',
          'MJOB-025',
          `a succeeded job later reads ${later}`,
          { received: later, expected: 'succeeded or expired' },
        );
        // "expired means preview or asset is no longer available": an expired job's asset is not judged.
        if (later === 'expired') return;
        const { res: asset, expired } = await assetOfSucceeded(t, assetId as string, jobStatusNow(t, jobId!));
        if (expired) return;
        if (
          !t.ensure(
            isSuccess(asset.status) && asset.body.length > 0,
            'MASSET-001',
            `the asset of a succeeded job was answered ${asset.status}`,
            { received: asset.status, exchange: asset.exchange },
          )
        )
          return;
        const kind = await sniff(asset.body);
        if (model.output === 'image') {
          const format = model.parameters.output_format
            ? String(model.parameters.output_format.default)
            : undefined;
          const want = format ? IMAGE_MIME[format] : undefined;
          t.ensure(
            !!kind?.mime.startsWith('image/') && (!want || kind.mime === want),
            'MASSET-001',
            `the output of ${id} is ${kind?.mime ?? 'not a known file type'}${want ? `, not ${want} (its default output_format)` : ''}`,
            { received: kind?.mime ?? null, expected: want ?? 'an image', exchange: asset.exchange },
          );
        } else if (model.output === 'video') {
          const video =
            !!kind && (kind.mime.startsWith('video/') || ['mp4', 'mov', 'webm', 'mkv'].includes(kind.ext));
          t.ensure(
            video,
            'MASSET-001',
            `the output of ${id} is ${kind?.mime ?? 'not a known file type'}, not a video container`,
            { received: kind?.mime ?? null, expected: 'a video container', exchange: asset.exchange },
          );
          if (video && kind?.ext !== 'mp4')
            t.violate('MASSET-001', `the video output of ${id} is ${kind?.mime}, not MP4`, {
              level: 'notable',
              exchange: asset.exchange,
            });
        } else if (model.output === 'glb') {
          t.ensure(
            kind?.ext === 'glb' || asset.body.subarray(0, 4).toString('latin1') === 'glTF',
            'MASSET-001',
            `the output of ${id} is ${kind?.mime ?? 'not a known file type'}, not binary glTF`,
            { received: kind?.mime ?? null, expected: 'model/gltf-binary', exchange: asset.exchange },
          );
        }
      },
    );
  });
}

/**
 * The output_format values of each image model other than its default (the lifecycle tests judge the
 * default): in `thorough` every one; else one per model, dealt out over the models that share the same
 * value set (wc-100031..34: jpeg, webp, jpeg, webp; wc-100040/41: jpeg, webp; wc-100010/11: png), so that
 * every value of every set is asked for on some model ("for images a real image in the requested
 * `output_format`", judging.md).
 */
function requestedFormats(id: string, profile: string): string[] {
  const rule = table.models[id]!.parameters.output_format;
  if (!rule?.values || table.models[id]!.output !== 'image') return [];
  const others = rule.values.map(String).filter((v) => v !== String(rule.default));
  if (profile === 'thorough') return others;
  const set = JSON.stringify(rule.values);
  const k = documentedIds
    .slice(0, documentedIds.indexOf(id))
    .filter((d) => JSON.stringify(table.models[d]!.parameters.output_format?.values) === set).length;
  return others.length > 0 ? [others[k % others.length]!] : [];
}

for (const id of documentedIds) {
  const rule = table.models[id]!.parameters.output_format;
  if (!rule?.values || table.models[id]!.output !== 'image') continue;
  group(id, () => {
    check(
      { ids: ['MASSET-001'], effect: 'billable' },
      `${id}: serves an image in the requested output_format`,
      async (t) => {
        const m = await listedModel(t, id);
        const base = await baseJob(t, id, m);
        for (const format of requestedFormats(id, t.run.profile)) {
          const job = await postJob(t, {
            ...base,
            parameters: {
              ...(base.parameters as object),
              ...cheapestParameters(table, m),
              output_format: format,
            },
          });
          const jobId = (job.json as { id?: string } | undefined)?.id;
          if (!isSuccess(job.status) || typeof jobId !== 'string')
            return t.skip(
              `a ${id} job with output_format ${format} was answered ${job.status} (see MJOB-005)`,
            );
          const trace = await pollJob(t, jobId);
          const assetId = trace.last?.asset_id;
          if (typeof assetId !== 'string') return t.skip(unfinished(t, trace));
          const { res: asset, expired } = await assetOfSucceeded(t, assetId, jobStatusNow(t, jobId));
          if (expired) return t.skip('the job expired before its asset was read');
          const kind = await sniff(asset.body);
          t.ensure(
            kind?.mime === IMAGE_MIME[format],
            'MASSET-001',
            `a ${id} job with output_format ${format} served ${kind?.mime ?? 'an unknown type'}`,
            { received: kind?.mime ?? null, expected: IMAGE_MIME[format], exchange: asset.exchange },
          );
        }
      },
    );
  });
}

check(
  { ids: ['MASSET-002', 'MASSET-003'], effect: 'billable', roles: ['other_tenant'] },
  'keeps jobs and assets to their owner and behind the key',
  async (t) => {
    const { jobId } = await createJob(t, 'wc-100010');
    if (!jobId) return t.skip('the job could not be created (see MJOB-020)');
    const trace = await pollJob(t, jobId);
    // An id that may be a per-tenant numbering (`job_3`) names the other tenant's own job too: its
    // answer proves nothing of isolation (mayBeOwnId).
    if (!mayBeOwnId(jobId)) {
      const other = await t.get(`${PATH}/${segment(jobId, 'job id')}`, { as: 'other_tenant' });
      expectStatus(t, other, 'MASSET-003', [403, 404], 'another tenant reading the job');
    }
    const assetId = trace.last?.asset_id;
    if (typeof assetId !== 'string') return t.skip(unfinished(t, trace));
    const path = `/v1/media/assets/${segment(assetId, 'asset id')}`;
    // The control of both refusals below: the asset served to its owner (an assets route that answers
    // nobody would refuse the other tenant and the keyless request alike).
    const own = await t.get(path);
    if (!isSuccess(own.status))
      return t.skip(
        `the asset was answered ${own.status} to its owner: a refusal to another tenant or without a key shows nothing of the rule`,
      );
    if (!mayBeOwnId(assetId)) {
      const theirs = await t.get(path, { as: 'other_tenant' });
      expectStatus(t, theirs, 'MASSET-003', [403, 404], 'another tenant reading the asset');
    }
    const anonymous = await t.get(path, { as: 'none' });
    expectStatus(t, anonymous, 'MASSET-002', 401, 'the asset without a key');
  },
);

// Jobs are private to their owner (judging.md) and "For a new logical task use a new key" is each tenant's:
// another tenant's create with the same Idempotency-Key and body is its own task. A store of keys shared
// across tenants would answer it with this tenant's job (its id, later its asset).
check(
  { ids: ['MASSET-003'], effect: 'billable', roles: ['other_tenant'] },
  "keeps each tenant's Idempotency-Keys its own: another tenant's job create with the same key gets no job of this one",
  async (t) => {
    const key = `conformance-job-${randomUUID()}`;
    const mine = await createJob(t, 'wc-100010', {}, { 'idempotency-key': key });
    if (!mine.jobId) return t.skip('the job could not be created (see MJOB-020)');
    const theirs = await postJob(t, mine.body, { as: 'other_tenant', headers: { 'idempotency-key': key } });
    // A refusal of the other tenant's create is not judged (whether keys are checked across tenants is not
    // shown); this tenant's job in its answer is.
    if (!isSuccess(theirs.status)) return;
    const id = (theirs.json as { id?: unknown } | undefined)?.id;
    t.ensure(
      id !== mine.jobId,
      'MASSET-003',
      `another tenant's job create with the same Idempotency-Key and body was answered with this tenant's job ${mine.jobId}`,
      { received: id, exchange: theirs.exchange },
    );
  },
);

check(
  { ids: ['MJOB-024'], effect: 'billable' },
  'returns the same job for a creation replayed with its Idempotency-Key',
  async (t) => {
    const m = await listedModel(t, 'wc-100010');
    const base = await baseJob(t, 'wc-100010', m);
    const body = { ...base, parameters: { ...(base.parameters as object), ...cheapestParameters(table, m) } };
    const key = `conformance-job-${randomUUID()}`;
    const a = await postJob(t, body, { headers: { 'idempotency-key': key } });
    const b = await postJob(t, body, { headers: { 'idempotency-key': key } });
    const ia = (a.json as { id?: unknown } | undefined)?.id;
    const ib = (b.json as { id?: unknown } | undefined)?.id;
    if (typeof ia !== 'string') return t.skip(`the first creation was answered ${a.status}`);
    t.ensure(
      !isSuccess(b.status) || ib === ia,
      'MJOB-024',
      `the replay created job ${JSON.stringify(ib)} beside ${ia}`,
      { received: ib, expected: ia, exchange: b.exchange },
    );
  },
);

/** The cheapest create of wc-100010 (not run where the account's catalog does not list it). */
async function cheapJob(t: CheckContext): Promise<Record<string, unknown>> {
  const m = await listedModel(t, 'wc-100010');
  const base = await baseJob(t, 'wc-100010', m);
  return { ...base, parameters: { ...(base.parameters as object), ...cheapestParameters(table, m) } };
}

check(
  { ids: ['IDEM-005'], effect: 'billable' },
  "takes a media job's Idempotency-Key of 128 characters as the reference client makes them",
  async (t) => {
    const body = await cheapJob(t);
    await clientKeys(t, 'a media job create', async (key) => {
      const res = await postJob(t, body, { headers: { 'idempotency-key': key } });
      const id = (res.json as { id?: unknown } | undefined)?.id;
      return { res, id: typeof id === 'string' ? id : undefined };
    });
  },
);

type Format = { name: string; headers: Record<string, string> };
const POINTS_FORMAT: Format = { name: 'the points format', headers: {} };
const LEGACY_FORMAT: Format = { name: 'the legacy currency format', headers: LEGACY };

/**
 * A job create made in one currency format, replayed with the same Idempotency-Key in others: each replay
 * answers the same job, or is refused, never a second job (the rule each replay judges beside it).
 */
async function jobReplays(
  t: CheckContext,
  first: Format,
  replays: ReadonlyArray<{ id: string; format: Format }>,
): Promise<void> {
  const body = await cheapJob(t);
  const key = `conformance-job-${randomUUID()}`;
  const a = await postJob(t, body, { headers: { 'idempotency-key': key, ...first.headers } });
  const ia = (a.json as { id?: unknown } | undefined)?.id;
  if (typeof ia !== 'string') return t.skip(`the first creation was answered ${a.status}`);
  for (const { id, format } of replays) {
    const b = await postJob(t, body, { headers: { 'idempotency-key': key, ...format.headers } });
    const ib = (b.json as { id?: unknown } | undefined)?.id;
    t.ensure(
      !isSuccess(b.status) || ib === ia,
      id,
      `a creation made in ${first.name}, replayed in ${format.name}, created job ${JSON.stringify(ib)} beside ${ia}`,
      { received: ib, expected: ia, exchange: b.exchange },
    );
  }
}

// "Changing the display currency format for the same request never causes re-execution", and the legacy
// format applies to "media job and inference requests": the same create, replayed under the legacy
// Accept header, answers the same job (or is refused), never a second one.
check(
  { ids: ['IDEM-003'], effect: 'billable' },
  'returns the same job for a creation replayed in the legacy currency format',
  (t) => jobReplays(t, POINTS_FORMAT, [{ id: 'IDEM-003', format: LEGACY_FORMAT }]),
);

// The other way round: a create made in the legacy format ("idempotency semantics are unchanged" there)
// and replayed in it answers the same job (LEGACY-002); replayed in the points format, the same job too
// (IDEM-003).
check(
  { ids: ['LEGACY-002', 'IDEM-003'], effect: 'billable' },
  'returns the same job for a creation made in the legacy currency format and replayed in either format',
  (t) =>
    jobReplays(t, LEGACY_FORMAT, [
      { id: 'LEGACY-002', format: LEGACY_FORMAT },
      { id: 'IDEM-003', format: POINTS_FORMAT },
    ]),
);

// Under either name of the reference ids ("`input_asset_ids` (or the equivalent `studio_asset_ids`)").
for (const field of table.reference_fields) {
  check(
    { ids: ['MIN-010'], effect: 'billable' },
    field === table.reference_fields[0]
      ? 'refuses to delete an input an active job references'
      : `refuses to delete an input an active job references under \`${field}\``,
    async (t) => minTen(t, field),
  );
}
// "A ready input stays until it is explicitly deleted": a job that used it and ended leaves it usable. The
// first job's acceptance is the control: the same body (inputs included) under a new key is accepted again.
check(
  { ids: ['MIN-009'], effect: 'billable' },
  'keeps an input usable after a job that referenced it succeeded (no delete asked for)',
  async (t) => {
    const { body, jobId } = await createJob(t, 'wc-100011');
    if (!jobId) return t.skip('the job could not be created (see MJOB-020)');
    const trace = await pollJob(t, jobId);
    const status = trace.statuses.at(-1);
    if (status !== 'succeeded') return t.skip(`${unfinished(t, trace)}: its inputs were not shown used`);
    const again = await postJob(t, body, {
      headers: { 'idempotency-key': `conformance-job-${randomUUID()}` },
    });
    expectStatus(
      t,
      again,
      'MIN-009',
      '2xx',
      'a new job referencing the inputs of a job that succeeded, none of them deleted',
    );
  },
);

// After the create was replayed with its Idempotency-Key: the replay answers the same job, which still
// holds its inputs (a store that rebuilds the job from the replay could drop them).
check(
  { ids: ['MIN-010'], effect: 'billable' },
  'refuses to delete an input an active job references after its create was replayed',
  async (t) => minTen(t, table.reference_fields[0]!, true),
);

/**
 * MIN-010: the input a job references under `field` cannot be deleted while the job is active (`replayed`:
 * once its create was replayed with the same Idempotency-Key).
 */
async function minTen(t: CheckContext, field: string, replayed = false): Promise<void> {
  const key = `conformance-job-${randomUUID()}`;
  const { body, jobId } = await createJob(t, 'wc-100011', {}, { 'idempotency-key': key }, field);
  if (!jobId) return t.skip('the job could not be created (see MJOB-020)');
  if (replayed) {
    const again = await postJob(t, body, { headers: { 'idempotency-key': key } });
    const id = (again.json as { id?: unknown } | undefined)?.id;
    if (!isSuccess(again.status) || id !== jobId)
      return t.skip(
        `the replayed create was answered ${again.status} with ${JSON.stringify(id)} (see MJOB-024)`,
      );
  }
  const ref = ((body.parameters as Record<string, unknown>)[field] as string[])[0]!;
  const before = await t.get(`${PATH}/${segment(jobId, 'job id')}`);
  const del = await t.request('DELETE', `/v1/media/inputs/${segment(ref, 'input id')}`);
  const after = await t.get(`${PATH}/${segment(jobId, 'job id')}`);
  const s1 = String((before.json as { status?: unknown } | undefined)?.status);
  const s2 = String((after.json as { status?: unknown } | undefined)?.status);
  if (!ACTIVE_STATUSES.includes(s1) || !ACTIVE_STATUSES.includes(s2))
    return t.skip(`the job was not active throughout the delete (${s1} > ${s2})`);
  const refused = expectStatus(
    t,
    del,
    'MIN-010',
    '4xx',
    `deleting an input referenced under ${field} by a ${s1} job${replayed ? ' whose create was replayed' : ''}`,
  );
  // The refusal proves the rule only beside its control: a ready input that no job references, deleted.
  if (refused)
    await controlAccepted(t, 'the delete of a ready input no job references', async () => {
      const own = await upload(t, 'png-64x48.png');
      if (!own.id) return own.res;
      return t.request('DELETE', `/v1/media/inputs/${segment(own.id, 'input id')}`);
    });
}

check(
  { ids: ['MJOB-023', 'MJOB-025'], effect: 'billable', capabilities: ['media-fail-prompt'] },
  'reports a failed job with its error and never revives it',
  async (t) => {
    const { jobId } = await createJob(t, 'wc-100010', { prompt: 'CONFORMANCE_FAIL_JOB a red cube' });
    if (!jobId) return t.skip('the job could not be created (see MJOB-020)');
    const trace = await pollJob(t, jobId);
    const status = trace.statuses.at(-1);
    if (status !== 'failed') return t.skip(`${unfinished(t, trace)}, not failed`);
    t.ensure(
      typeof trace.last?.error_code === 'string' && typeof trace.last?.error_message === 'string',
      'MJOB-023',
      'a failed job carries no error_code and error_message',
      { exchange: trace.responses.at(-1)?.exchange },
    );
    for (let i = 0; i < 3; i++) {
      const again = await pollJob(t, jobId, { until: () => true });
      t.ensure(
        again.last?.status === 'failed',
        'MJOB-025',
        `a failed job later reads ${String(again.last?.status)}`,
        { received: again.last?.status, expected: 'failed', exchange: again.responses.at(-1)?.exchange },
      );
    }
  },
);

check(
  { ids: ['LEGACY-001', 'LEGACY-002'], effect: 'billable' },
  'replaces the points fields of a media job under the legacy Accept header and keeps its model id',
  async (t) => {
    const { res, jobId } = await createJob(t, 'wc-100010', {}, LEGACY);
    if (!jobId) return t.skip(`the job could not be created (${res.status})`);
    const read = await t.get(`${PATH}/${segment(jobId, 'job id')}`, { headers: LEGACY });
    for (const r of [res, read]) {
      modelUnchanged(t, r, 'wc-100010', `${r.method} ${r.exchange.path}`);
      if (isSuccess(r.status) && r.json !== undefined) t.observe('LEGACY-001', r.exchange);
      for (const p of pointsFieldPointers(r.json)) {
        t.violate(
          'LEGACY-001',
          `${r.method} ${r.exchange.path} in the legacy currency format still carries the points field ${p}`,
          {
            pointer: p,
            exchange: r.exchange,
            verdictCase: {
              wrong: 'carried',
              what: `${p} of ${r === res ? `POST ${PATH}` : `GET ${PATH}/{id}`}`,
              family: 'legacy',
            },
          },
        );
      }
    }
  },
);
