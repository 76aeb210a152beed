// @conformance start-early 8
/**
 * The job statuses whose handling the contract prescribes to the client:
 *   "| submission_uncertain | if the job id is known, query that job; if no id was obtained, repeat the
 *    same create request with the same Idempotency-Key; never use a new key to create a second job |"
 *   "| settlement_pending | check wallet and bills, top up needed points, then keep tracking the same
 *    job; do not generate again |"
 * The suite follows these rules whenever it meets the statuses, and checks what they imply of the
 * server: the job stays readable by its id, and the same create repeated with the same key yields that
 * job (MJOB-027 implied and MJOB-024 stated for submission_uncertain; MJOB-026, implied, only for
 * settlement_pending, whose row states client guidance alone). A target that never reports a status leaves its
 * scenario not run.
 */
import { randomUUID } from 'node:crypto';
import {
  type CheckContext,
  check,
  expectStatus,
  isClientError,
  isPlainObject,
  isSuccess,
  JOB_STATUSES,
  type JobTrace,
  mediaCatalog,
  pollJob,
  type Role,
  segment,
  TERMINAL_STATUSES,
} from '../../src/suite/index.ts';
import { ACK, PROMPT, postJob, table } from './support.ts';

const PATH = '/v1/media/jobs';

/** A documented model the role's catalog lists that needs no reference upload (images first). */
async function modelWithoutReferences(t: CheckContext, as: Role): Promise<string> {
  const listed = new Set((await mediaCatalog(t, as)).ids);
  const candidates = Object.entries(table.models)
    .filter(([id, m]) => listed.has(id) && m.references.required === false && !m.prompt.empty_only)
    .sort(([, a], [, b]) => Number(b.output === 'image') - Number(a.output === 'image'));
  const first = candidates[0];
  if (!first) return t.skip(`the ${as} account's media catalog lists no documented model without references`);
  return first[0];
}

/** Poll until the status is met, the job ends, or a read does not answer with the job. */
async function track(t: CheckContext, id: string, as: Role, status: string): Promise<JobTrace> {
  return pollJob(t, id, {
    as,
    until: (s) =>
      s === status || TERMINAL_STATUSES.includes(s) || !(JOB_STATUSES as readonly string[]).includes(s),
  });
}

/** A read of one's own job that is not answered with the job, before it ended. */
function lostRead(trace: JobTrace) {
  const last = trace.responses.at(-1);
  return last && !isSuccess(last.status) ? last : undefined;
}

/**
 * Query the job again and repeat its create with the same key: both must give the same job
 * (`rule` is MJOB-026 or MJOB-027). Returns the held points seen before and after the repeat.
 */
async function followSameJob(
  t: CheckContext,
  rule: string,
  as: Role,
  jobId: string,
  status: string,
  create: () => Promise<Awaited<ReturnType<typeof postJob>>>,
): Promise<void> {
  const read = await t.get(`${PATH}/${segment(jobId, 'job id')}`, { as });
  const readJob = isPlainObject(read.json) ? read.json : undefined;
  t.ensure(
    isSuccess(read.status) && readJob?.id === jobId,
    rule,
    `a job reported ${status} could not be queried by its id: GET answered ${read.status}${readJob ? ` with id ${JSON.stringify(readJob.id)}` : ''}`,
    { received: read.status, expected: `2xx with job ${jobId}`, exchange: read.exchange },
  );
  const again = await create();
  // A 429 is a limit of the target: neither the job nor another one (not judged).
  if (again.status === 429) return;
  const againId = isPlainObject(again.json) ? again.json.id : undefined;
  const same = isSuccess(again.status) && againId === jobId;
  const says = `repeating the create of a job in ${status} with the same Idempotency-Key and body was answered ${again.status}${againId !== undefined ? ` with job ${JSON.stringify(againId)}` : ''}`;
  const evidence = { received: againId ?? again.status, expected: jobId, exchange: again.exchange };
  // What the status's guidance implies (advisory unless --strict): that job again.
  t.ensure(same, rule, `${says}, not the same job ${jobId}`, evidence);
  // The idempotency rule (MJOB-024) is that no second job is made: a refused repeat makes none (as
  // lifecycle.test.ts judges a replay). settlement_pending states only client guidance ("keep tracking
  // the same job; do not generate again"): there it is the implied rule alone (MJOB-026).
  if (rule !== 'MJOB-026')
    t.ensure(!isSuccess(again.status) || againId === jobId, 'MJOB-024', `${says}: a second job`, evidence);
}

check(
  { ids: ['MJOB-026'], effect: 'billable', roles: ['poor'] },
  'follows a job the account cannot pay through settlement_pending: the wallet, the same job, no new one',
  async (t) => {
    const as: Role = 'poor';
    const model = await modelWithoutReferences(t, as);
    const key = `conformance-settlement-${randomUUID()}`;
    const body = { model, prompt: PROMPT, parameters: { [ACK]: true } };
    const create = () => postJob(t, body, { as, headers: { 'idempotency-key': key } });
    const res = await create();
    const jobId = isPlainObject(res.json) && typeof res.json.id === 'string' ? res.json.id : undefined;
    if (isClientError(res.status))
      return t.skip(
        `the target refused a job the poor account cannot pay (${res.status}); settlement_pending was not met`,
      );
    if (!jobId) return t.skip(`the job could not be created (${res.status}, see MJOB-020)`);
    const trace = await track(t, jobId, as, 'settlement_pending');
    const lost = lostRead(trace);
    if (lost)
      return t.violate(
        'MJOB-026',
        `the poor account's job ${jobId} could no longer be read by its id after ${trace.statuses.slice(0, -1).join(' > ') || 'its creation'}: GET answered ${lost.status}`,
        { received: lost.status, expected: 'the job', exchange: lost.exchange },
      );
    const status = trace.statuses.at(-1);
    if (status !== 'settlement_pending')
      return t.skip(
        `the poor account's job ended ${status ?? 'unread'} (${trace.statuses.join(' > ')}); settlement_pending was not met`,
      );
    // "check wallet and bills": the wallet answers (its points fields are checked on every reply).
    const wallet = await t.get('/v1/balance', { as });
    expectStatus(t, wallet, 'MJOB-026', '2xx', 'reading the wallet with a job in settlement_pending');
    // "keep tracking the same job; do not generate again": the same id, and the same key for a repeat.
    await followSameJob(t, 'MJOB-026', as, jobId, 'settlement_pending', create);
  },
);

check(
  { ids: ['MJOB-027', 'MJOB-024'], effect: 'billable' },
  'follows a job met in submission_uncertain: query it by its id, repeat the create only with the same key',
  async (t) => {
    const as: Role = 'primary';
    const model = await modelWithoutReferences(t, as);
    const marker = t.target.capabilities.includes('media-uncertain-prompt');
    const key = `conformance-uncertain-${randomUUID()}`;
    const body = {
      model,
      prompt: marker ? `CONFORMANCE_UNCERTAIN_JOB ${PROMPT}` : PROMPT,
      parameters: { [ACK]: true },
    };
    const create = () => postJob(t, body, { as, headers: { 'idempotency-key': key } });
    const res = await create();
    const jobId = isPlainObject(res.json) && typeof res.json.id === 'string' ? res.json.id : undefined;
    if (!jobId) return t.skip(`the job could not be created (${res.status}, see MJOB-020)`);
    const trace = await track(t, jobId, as, 'submission_uncertain');
    const lost = lostRead(trace);
    if (lost)
      return t.violate(
        'MJOB-027',
        `job ${jobId} could no longer be queried by its id after ${trace.statuses.slice(0, -1).join(' > ') || 'its creation'}: GET answered ${lost.status}`,
        { received: lost.status, expected: 'the job', exchange: lost.exchange },
      );
    if (trace.statuses.at(-1) !== 'submission_uncertain')
      return t.skip(
        `the job never reported submission_uncertain (${trace.statuses.join(' > ')})${marker ? '' : '; a target can expose it for a test prompt with the capability media-uncertain-prompt'}`,
      );
    await followSameJob(t, 'MJOB-027', as, jobId, 'submission_uncertain', create);
    // Keep tracking the same job to its end (bounded by the poll cap).
    const end = await pollJob(t, jobId, { as });
    const lostLater = lostRead(end);
    if (lostLater)
      t.violate(
        'MJOB-027',
        `job ${jobId} could not be read after submission_uncertain: ${lostLater.status}`,
        {
          received: lostLater.status,
          exchange: lostLater.exchange,
        },
      );
  },
);
