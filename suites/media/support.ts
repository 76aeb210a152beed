/** Shared by the media suites: the documented table, base requests per model and the refusal judge. */
import { randomUUID } from 'node:crypto';
import {
  answeredCause,
  type CheckContext,
  cheapestParameters,
  expectErrorCode,
  type HttpResponse,
  isSuccess,
  type MediaModel,
  mediaCatalog,
  mediaTable,
  pollJob,
  type Req,
  TERMINAL_STATUSES,
  TransportError,
  trackJob,
  upload,
} from '../../src/suite/index.ts';

export const table = mediaTable();
export const documentedIds = Object.keys(table.models);
export const ACK = table.acknowledgement;

let listed: Promise<{ status: number; ids: Set<string> }> | undefined;
const catalogIds = (t: CheckContext) =>
  (listed ??= mediaCatalog(t).then((c) => ({ status: c.status, ids: new Set(c.ids) })));

/** The ids the account's media catalog lists (none when it did not answer). */
export async function listedIds(t: CheckContext): Promise<ReadonlySet<string>> {
  return (await catalogIds(t)).ids;
}

/** The documented model, or the test is not run: only models in the account's media catalog can be called. */
export async function listedModel(t: CheckContext, id: string): Promise<MediaModel> {
  const { status, ids } = await catalogIds(t);
  // One cause for every media test: the catalog itself did not answer (not one line per model).
  if (!isSuccess(status))
    t.skip(
      `GET /v1/media/models answered ${status}: no model of the account's media catalog can be called`,
      answeredCause('GET', '/v1/media/models', status),
    );
  if (!ids.has(id))
    t.skip(`${id} is not in the account's media catalog (only published models can be called)`, {
      kind: 'precondition',
      subject: "a documented media model is not in the account's media catalog",
      remedy: 'publish the model to the primary account (only models of its catalog can be called)',
    });
  return table.models[id]!;
}

/** The kind the account's media catalog gives a model, if its entry gives a string kind (MJOB-070). */
export async function catalogKind(t: CheckContext, id: string): Promise<string | undefined> {
  const kind = (await mediaCatalog(t)).entries.find((e) => e.id === id)?.kind;
  return typeof kind === 'string' ? kind : undefined;
}

export const PROMPT = 'a small red cube on a wooden table';

/**
 * Upload the references a model needs at minimum (images, or one video for video-only use); `videoFile`
 * names the video sample to send (an ordinary 2 s one unless told).
 */
export async function references(
  t: CheckContext,
  m: MediaModel,
  count = m.references.min ?? 0,
  kind: 'image' | 'video' = 'image',
  videoFile = 'h264-2s.mp4',
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const u = await upload(t, kind === 'video' ? videoFile : i === 0 ? 'jpeg-1024x576.jpg' : 'png-64x48.png');
    if (!u.id) return t.skip(`uploading a reference ${kind} was answered ${u.res.status} (see MIN-001)`);
    ids.push(u.id);
  }
  return ids;
}

/** A valid MediaJobCreate for a model: acknowledgement, a prompt within its bounds, its required references. */
export async function baseJob(t: CheckContext, id: string, m: MediaModel): Promise<Record<string, unknown>> {
  const parameters: Record<string, unknown> = { [ACK]: true };
  if (m.references.required) parameters[table.reference_fields[0]!] = await references(t, m);
  const body: Record<string, unknown> = { model: id, parameters };
  if (!m.prompt.empty_only) body.prompt = PROMPT;
  return body;
}

/**
 * The parameters of a job whose settings are not what a test checks: the acknowledgement and the
 * model's cheapest values (shortest duration, lowest resolution, smallest size), so it buys the least.
 */
export const cheapParameters = (m: MediaModel): Record<string, unknown> => ({
  [ACK]: true,
  ...cheapestParameters(table, m),
});

/**
 * Whether another tenant's resource id may also name one of this tenant's own: ids' format is not shown
 * ("opaque id"), and ids numbered per tenant (`in_3`) name one resource in each tenant. Such an id sent
 * with this tenant's key proves nothing of isolation (its own `in_3` answers) and may touch this tenant's
 * own resource (a delete deletes it): not sent. An id this long (a UUID has 36 characters) is no
 * per-tenant numbering (as ISO-001 reads ticket ids).
 */
export const mayBeOwnId = (id: string): boolean => id.length < 16;

/**
 * A request the contract refuses, judged by the one verdict (CheckContext.verdict: a 4xx refusal; a 429
 * is a limit, the case is not judged); for the causes the error table names (duration, resolution,
 * references, size, prompt bounds, unsupported parameter names) also the code `invalid_request`
 * (MJOB-014). Returns the violation message of the main rule, if any.
 */
export function judgeRefusal(
  t: CheckContext,
  res: HttpResponse,
  what: string,
  /**
   * Whether the refusal's cause is one the error table names (`invalid_request` then required); `or-unknown`:
   * named, unless it is refused as an id that names no input (403 or 404: an over-long id is also unknown,
   * and whether ids are looked up before their length is checked is not shown).
   */
  namedCause: boolean | 'or-unknown' = true,
): string | undefined {
  const verdict = t.verdict(res, false, what);
  if (verdict.mismatch || !verdict.judged || !namedCause) return verdict.mismatch;
  if (namedCause === 'or-unknown' && (res.status === 403 || res.status === 404)) return undefined;
  expectErrorCode(t, res, 'MJOB-014', 'invalid_request', what);
  return undefined;
}

/** The control of the refusals of `model`'s jobs: a job of it accepted (CheckContext.standBeside). */
const jobControl = (model: string): string => `media-job:${model}`;
/** The control of refusals of a model no catalog lists: a job of any model accepted. */
const ANY_JOB = 'media-job';

/**
 * The refusals of a test of `model`'s jobs stand beside a job of it accepted anywhere in the run (the
 * acceptance tests' jobs): a target refusing every job of the model passes none of them.
 */
export function besideJobOf(t: CheckContext, model: string): void {
  t.standBeside(jobControl(model), `media job of ${model}`);
}

/** The model of a refusal test, listed in the account's catalog, its refusals beside a job of it (besideJobOf). */
export async function refusalModel(t: CheckContext, id: string): Promise<MediaModel> {
  besideJobOf(t, id);
  return listedModel(t, id);
}

/** The refusals of a job whose model no catalog lists stand beside a job of any model accepted. */
export function besideAnyJob(t: CheckContext): void {
  t.standBeside(ANY_JOB, 'media job');
}

/**
 * Create a media job; when the target accepts it, the test waits (within the poll cap) for it to end
 * before its inputs are deleted, so that no job of this run is still moving the balance when the
 * serial balance checks run.
 */
export async function postJob(
  t: CheckContext,
  body: unknown,
  req: Omit<Req, 'json'> = {},
): Promise<HttpResponse> {
  // Every create carries an Idempotency-Key, so that a create whose answer is lost can be repeated.
  const headers = { ...req.headers };
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key'))
    headers['idempotency-key'] = `conformance-job-${randomUUID()}`;
  const res = await createOnce(t, body, { ...req, headers });
  const id = (res.json as { id?: unknown } | undefined)?.id;
  const model = (body as { model?: unknown } | undefined)?.model;
  if (isSuccess(res.status) && typeof model === 'string') {
    t.showAccepted(jobControl(model));
    t.showAccepted(ANY_JOB);
  }
  if (isSuccess(res.status) && typeof id === 'string') {
    const as = req.as && req.as !== 'none' ? req.as : 'primary';
    trackJob(t, id, referencesIn(body), as);
    t.onCleanup(`media job ${id} (waited for its end)`, async () => {
      const trace = await pollJob(t, id, { as, until: (s) => SETTLED.includes(s), bounded: true });
      const status = trace.statuses.at(-1) ?? 'unreadable';
      if (SETTLED.includes(status)) return true;
      return {
        reason: `job not settled when the wait ended (${trace.end}): still ${status}`,
        holder: { job: id, status },
        ...(trace.end === 'deadline' ? { bound: true as const } : {}),
      };
    });
  }
  return res;
}

/** The input ids a job request references (the contract's reference fields, under `parameters`). */
function referencesIn(body: unknown): string[] {
  const parameters = (body as { parameters?: unknown } | undefined)?.parameters;
  if (typeof parameters !== 'object' || parameters === null) return [];
  return table.reference_fields.flatMap((f) => {
    const v = (parameters as Record<string, unknown>)[f];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  });
}

const SETTLED = [...TERMINAL_STATUSES, 'settlement_pending'];

/**
 * POST /v1/media/jobs, following the contract's submission_uncertain rule when no answer comes: "if no
 * id was obtained, repeat the same create request with the same Idempotency-Key; never use a new key".
 * The repeat is sent once; the lost answer is advisory when the repeat answers (GEN-001 reading).
 */
async function createOnce(t: CheckContext, body: unknown, req: Omit<Req, 'json'>): Promise<HttpResponse> {
  try {
    return await t.post('/v1/media/jobs', body, req);
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    const res = await t.post('/v1/media/jobs', body, req);
    const lost = err.exchangeId ? t.exchange(err.exchangeId) : undefined;
    t.violate(
      'GEN-001',
      `${err.message}; the same create repeated with the same Idempotency-Key was answered ${res.status}`,
      { level: 'notable', ...(lost ? { exchange: lost } : {}) },
    );
    return res;
  }
}

/**
 * IDEM-005: "The reference client derives separate keys for the input upload and the job from one
 * per-task nonce (8 to 96 characters of letters, digits, dot, underscore, colon, hyphen), truncated to
 * 128 characters." A create (`send`, one task per key) sent with such a key of 128 characters is
 * accepted (a refusal is the key's where the same create with the suite's usual key is accepted), its
 * replay answers the same resource (or a refusal), and a key that differs only in its last character is
 * another task: another resource, not the first one again.
 */
export async function clientKeys(
  t: CheckContext,
  what: string,
  send: (key: string) => Promise<{ res: HttpResponse; id?: string | undefined }>,
): Promise<void> {
  // Of the reference client's alphabet only (`what` is prose, with spaces: not in the key).
  const stem = `gc.task:${randomUUID()}_`.padEnd(127, 'Az9.-_:').slice(0, 127);
  const a = await send(`${stem}a`);
  if (t.notJudged429(a.res, `${what} with a key of 128 characters`)) return;
  if (!isSuccess(a.res.status) || !a.id) {
    const control = await send(`conformance-${randomUUID()}`);
    if (!isSuccess(control.res.status))
      return t.skip(`${what} was answered ${control.res.status} with the suite's usual key too`);
    t.violate(
      'IDEM-005',
      `${what} with an Idempotency-Key of 128 characters as the reference client makes them was answered ${a.res.status} (with a short key: ${control.res.status})`,
      { received: a.res.status, exchange: a.res.exchange },
    );
    return;
  }
  const replay = await send(`${stem}a`);
  t.ensure(
    !isSuccess(replay.res.status) || replay.id === a.id,
    'IDEM-005',
    `${what} replayed with its key of 128 characters answered ${JSON.stringify(replay.id)}, not ${a.id}`,
    { received: replay.id, expected: a.id, exchange: replay.res.exchange },
  );
  const other = await send(`${stem}b`);
  if (t.notJudged429(other.res, `${what} with another key of 128 characters`)) return;
  t.ensure(
    isSuccess(other.res.status) && other.id !== undefined && other.id !== a.id,
    'IDEM-005',
    isSuccess(other.res.status)
      ? `${what} with a key that differs from the first only in its 128th character answered the first task's ${a.id} again`
      : `${what} with a key that differs from the first only in its 128th character was answered ${other.res.status}`,
    { received: other.id ?? other.res.status, exchange: other.res.exchange },
  );
}
