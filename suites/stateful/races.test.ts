// Concurrency: the same create sent several times at once with one Idempotency-Key, different keys at
// once, concurrent deletes, and a delete racing the creation of a job that references the input. Only
// a second resource (or, on a quiet account, a second charge) fails; refusals such as 409 or 429 do not.
// @conformance start-early 6
import {
  ACTIVE,
  type CheckContext,
  check,
  depth,
  expectStatus,
  isClientError,
  isPlainObject,
  isSuccess,
  type MediaChoice,
  newKey,
  segment,
  upload,
} from '../../src/suite/index.ts';
import { cheapParameters, PROMPT, postJob, table } from '../media/support.ts';
import { atOnce, idOf, raceModel, raceSize } from './support.ts';

const INPUTS = '/v1/media/inputs';

function jobBody(m: MediaChoice, refs: string[] = []): Record<string, unknown> {
  const parameters = cheapParameters(m.rule);
  if (refs.length > 0) parameters[table.reference_fields[0]!] = refs;
  return { model: m.id, ...(m.rule.prompt.empty_only ? {} : { prompt: PROMPT }), parameters };
}

/** Ids named by the 2xx replies, with how many replies named each. */
function named(replies: Array<{ status: number; id?: string }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of replies) if (isSuccess(r.status) && r.id) out.set(r.id, (out.get(r.id) ?? 0) + 1);
  return out;
}

async function inputId(t: CheckContext): Promise<string> {
  const u = await upload(t, 'png-64x48.png');
  if (!u.id) return t.skip(`the upload was answered ${u.res.status} (see MIN-001)`);
  return u.id;
}

check(
  { ids: ['MIN-008', 'IDEM-004'], effect: 'write' },
  'yields one input for an upload sent several times at once with one Idempotency-Key, and one per key',
  async (t) => {
    const n = raceSize(t);
    const key = newKey('race-upload');
    const same = await atOnce(n, () => upload(t, 'png-64x48.png', { idempotencyKey: key }));
    const ids = named(same.map((u) => ({ status: u.res.status, id: u.id })));
    t.ensure(
      ids.size <= 1,
      'MIN-008',
      `${n} identical uploads sent at once with one Idempotency-Key created ${ids.size} inputs`,
      { received: [...ids.keys()], expected: 'one input', exchange: same.at(-1)?.res.exchange },
    );
    const distinct = await atOnce(n, () =>
      upload(t, 'png-64x48.png', { idempotencyKey: newKey('race-upload') }),
    );
    const each = named(distinct.map((u) => ({ status: u.res.status, id: u.id })));
    const accepted = distinct.filter((u) => isSuccess(u.res.status)).length;
    t.ensure(
      each.size === accepted,
      'IDEM-004',
      `${n} uploads sent at once with ${n} different Idempotency-Keys: ${accepted} accepted, but only ${each.size} distinct inputs`,
      { received: [...each.entries()], expected: `${accepted} distinct inputs` },
    );
  },
);

check(
  { ids: ['MJOB-024', 'IDEM-004'], effect: 'billable' },
  'yields one job for a create sent several times at once with one Idempotency-Key, and one per key',
  async (t) => {
    const m = await raceModel(t, false);
    const n = raceSize(t);
    const body = jobBody(m);
    const key = newKey('race-job');
    const same = await atOnce(n, () => postJob(t, body, { headers: { 'idempotency-key': key } }));
    const ids = named(same.map((res) => ({ status: res.status, id: idOf(res) })));
    t.ensure(
      ids.size <= 1,
      'MJOB-024',
      `${n} identical job creates sent at once with one Idempotency-Key created ${ids.size} jobs`,
      { received: [...ids.keys()], expected: 'one job', exchange: same.at(-1)?.exchange },
    );
    const distinct = await atOnce(n, () =>
      postJob(t, body, { headers: { 'idempotency-key': newKey('race-job') } }),
    );
    const each = named(distinct.map((res) => ({ status: res.status, id: idOf(res) })));
    const accepted = distinct.filter((res) => isSuccess(res.status)).length;
    t.ensure(
      each.size === accepted,
      'IDEM-004',
      `${n} job creates sent at once with ${n} different Idempotency-Keys: ${accepted} accepted, but only ${each.size} distinct jobs`,
      { received: [...each.entries()], expected: `${accepted} distinct jobs` },
    );
  },
);

check(
  { ids: ['MIN-009'], effect: 'write' },
  'answers deletes of one input sent at once with at least one success',
  async (t) => {
    const id = await inputId(t);
    const n = raceSize(t);
    const path = `${INPUTS}/${segment(id, 'input id')}`;
    const dels = await atOnce(n, () => t.request('DELETE', path));
    const ok = dels.filter((d) => isSuccess(d.status)).length;
    if (dels.some((d) => d.status === 429) && ok === 0) return t.skip('every delete was answered 429');
    t.ensure(ok >= 1, 'MIN-009', `none of ${n} deletes of a ready input sent at once succeeded`, {
      received: dels.map((d) => d.status),
      expected: 'at least one 2xx',
      exchange: dels[0]?.exchange,
    });
  },
);

check(
  { ids: ['MIN-010', 'MIN-009'], effect: 'billable' },
  'never lets a job hold an input whose delete raced the job creation',
  async (t) => {
    const m = await raceModel(t, true);
    const rounds = depth(t.run, { quick: 1, standard: 2, thorough: 5 });
    for (let round = 1; round <= rounds; round++) {
      const id = await inputId(t);
      const path = `${INPUTS}/${segment(id, 'input id')}`;
      const [job, del] = await Promise.all([postJob(t, jobBody(m, [id])), t.request('DELETE', path)]);
      const jobId = idOf(job);
      // The job created and the delete refused (not a limit's 429): the input was held by a job just
      // created, so active, and the rule met. A refused job held nothing: MIN-010 did not show.
      if (isSuccess(job.status) && isClientError(del.status) && del.status !== 429)
        t.observe('MIN-010', del.exchange);
      if (isSuccess(job.status) && jobId && isSuccess(del.status)) {
        const read = await t.get(`/v1/media/jobs/${segment(jobId, 'job id')}`);
        const status = isPlainObject(read.json) ? String(read.json.status) : undefined;
        if (status && ACTIVE.includes(status))
          return t.violate(
            'MIN-010',
            `round ${round}: a ${m.id} job referencing the input and a delete of the input, sent at once, both succeeded (job ${job.status}, delete ${del.status}); the job now reads ${status} while its input is deleted`,
            {
              received: [job.status, del.status],
              expected: 'one of the two refused',
              exchange: del.exchange,
            },
          );
      }
      if (!isSuccess(job.status) && isClientError(del.status) && del.status !== 429) {
        // The job was refused, so no job holds the input: its delete must succeed now.
        const retry = await t.request('DELETE', path);
        expectStatus(
          t,
          retry,
          'MIN-009',
          '2xx',
          `round ${round}: the job was refused (${job.status}) and the racing delete too (${del.status}); deleting the input afterwards`,
        );
      }
    }
  },
);
