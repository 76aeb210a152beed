import { isPlainObject } from '../../checks/json.ts';
import { cheapestParameters } from '../../rules/covering.ts';
import { mediaTable } from '../../rules/media-models.ts';
import {
  type AccountModel,
  canSpend,
  holders,
  liveInputs,
  type MediaChoice,
  nextLabel,
  pickOf,
  spend,
} from '../account-state.ts';
import { holds, reportedSpend } from '../invariants.ts';
import { observeJob } from '../jobs.ts';
import { is2xx, is4xx, judged, newKey, type Real } from '../real.ts';
import { Step } from './step.ts';

export const PROMPT = 'a small red cube on a wooden table';
/** The reference's test hook behind capability media-fail-prompt: a prompt containing it fails the job. */
export const FAIL_MARKER = 'CONFORMANCE_FAIL_JOB';

/**
 * valid: the model's required references from the model's live inputs; the others are refused by the
 * contract: the acknowledgement missing or false (MJOB-001), a never-accepted parameter name (MJOB-003),
 * a reference to a deleted input (MIN-009).
 */
export type JobKind = 'valid' | 'no-ack' | 'never-accepted' | 'deleted-ref';

const EXPECTED_ID: Record<Exclude<JobKind, 'valid'>, string> = {
  'no-ack': 'MJOB-001',
  'never-accepted': 'MJOB-003',
  'deleted-ref': 'MIN-009',
};

/**
 * Reference ids a valid job of the model can use from the model's live inputs ([] when it takes none),
 * or undefined. `fresh`: only inputs no other job may still hold, like a client that uploads the inputs
 * of each task; otherwise those come first.
 */
export function referencesFor(
  c: MediaChoice,
  m: AccountModel,
  pick: number,
  fresh = false,
): string[] | undefined {
  const refs = c.rule.references;
  const accepted = refs.accepted ?? [];
  if (accepted.length === 0) return [];
  const min = refs.min ?? 1;
  const free = (kind: 'image' | 'video') => liveInputs(m, kind).filter((i) => holders(m, i.id).length === 0);
  const usable = (kind: 'image' | 'video') => {
    const unheld = free(kind);
    return fresh || unheld.length >= min ? unheld : liveInputs(m, kind);
  };
  const images = usable('image');
  if (accepted.includes('image') && images.length >= min) {
    const n = Math.max(min, Math.min(1 + (pick % 2), refs.max ?? 1, images.length));
    return Array.from({ length: n }, (_, i) => images[(pick + i) % images.length]!.id);
  }
  const videos = usable('video');
  if (accepted.includes('video') && refs.video && videos.length > 0) return [pickOf(videos, pick)!.id];
  return refs.required === false ? [] : undefined;
}

/** Models a job of the kind can use now; `refs`: only those that reference fresh inputs. */
function choices(m: AccountModel, kind: JobKind, pick: number, refs: boolean): MediaChoice[] {
  if (kind === 'deleted-ref') {
    if (!m.inputs.some((i) => i.deleted && i.kind === 'image')) return [];
    return m.env.media.filter((c) => (c.rule.references.accepted ?? []).includes('image'));
  }
  if (refs) return m.env.media.filter((c) => (referencesFor(c, m, pick, true) ?? []).length > 0);
  return m.env.media.filter((c) => referencesFor(c, m, pick) !== undefined);
}

/** POST /v1/media/jobs for a documented model the account lists, with a new Idempotency-Key. */
export class CreateJob extends Step {
  constructor(
    readonly p: {
      model: number;
      refs: number;
      kind: JobKind;
      variant: number;
      failing: boolean;
      withRefs: boolean;
    },
  ) {
    super();
  }

  check(m: Readonly<AccountModel>): boolean {
    return (
      canSpend(m as AccountModel) &&
      m.jobs.length < 8 &&
      choices(m as AccountModel, this.p.kind, this.p.refs, this.p.withRefs).length > 0
    );
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const table = mediaTable();
    const c = pickOf(choices(m, this.p.kind, this.p.refs, this.p.withRefs), this.p.model)!;
    const failing =
      this.p.failing && m.env.failPrompt && m.env.failingLeft.n > 0 && !c.rule.prompt.empty_only;
    if (failing) m.env.failingLeft.n -= 1;
    const refs =
      this.p.kind === 'deleted-ref'
        ? [
            pickOf(
              m.inputs.filter((i) => i.deleted && i.kind === 'image'),
              this.p.refs,
            )!.id,
          ]
        : referencesFor(c, m, this.p.refs, this.p.withRefs)!;
    // The sequences do not care what the job makes: its cheapest parameters (also for the jobs the
    // contract refuses, which a faulty target might accept and charge).
    const parameters: Record<string, unknown> = {
      [table.acknowledgement]: true,
      ...cheapestParameters(table, c.rule),
    };
    // `variant` picks the flavour of an invalid job: the acknowledgement missing or false, and which name.
    const never = table.never_accepted_parameters[this.p.variant % table.never_accepted_parameters.length]!;
    const noAck = this.p.variant % 2 === 0 ? 'missing' : 'false';
    if (this.p.kind === 'no-ack') {
      if (noAck === 'missing') delete parameters[table.acknowledgement];
      else parameters[table.acknowledgement] = false;
    }
    if (this.p.kind === 'never-accepted') parameters[never] = ['https://example.com/reference.png'];
    if (refs.length > 0) parameters[table.reference_fields[0]!] = refs;
    const body: Record<string, unknown> = { model: c.id, parameters };
    if (!c.rule.prompt.empty_only) body.prompt = failing ? `${FAIL_MARKER} ${PROMPT}` : PROMPT;
    const key = newKey('job');
    const res = await r.postJob(body, { 'idempotency-key': key });
    const json = isPlainObject(res.json) ? res.json : undefined;
    if (is2xx(res.status)) spend(m, reportedSpend(json));
    const labels = refs.map((id) => m.inputs.find((i) => i.id === id)?.label ?? id);
    this.target = `${c.id}${failing ? ' (failing prompt)' : ''}${labels.length ? ` with ${labels.join(', ')}` : ''}`;
    if (this.p.kind !== 'valid') {
      // Refused (a 4xx other than a limit's 429) or accepted: judged; a 429 or a 5xx tells neither.
      if (is2xx(res.status) || (is4xx(res.status) && res.status !== 429))
        judged(
          r,
          holds(!is2xx(res.status), {
            id: EXPECTED_ID[this.p.kind],
            message: `a ${c.id} job ${this.p.kind === 'no-ack' ? `with the acknowledgement ${noAck}` : this.p.kind === 'never-accepted' ? `with the never-accepted parameter ${never}` : `referencing the deleted ${labels.join(', ')}`} was accepted (${res.status})`,
            received: res.status,
            expected: 'a 4xx refusal',
          }),
          res,
        );
      return;
    }
    // A valid job refused is judged by the fixed job tests; the model only follows jobs that exist.
    if (!is2xx(res.status) || typeof json?.id !== 'string') return;
    const label = nextLabel('job', m.jobs);
    this.target = `${label} = ${this.target}`;
    const rule = c.rule.parameters.output_format;
    const job = {
      label,
      id: json.id,
      model: c.id,
      output: c.rule.output,
      ...(c.rule.output === 'image' && typeof rule?.default === 'string' ? { format: rule.default } : {}),
      refs,
      key,
      body,
      seen: [] as string[],
    };
    m.jobs.push(job);
    m.lastJob = job.id;
    observeJob(r, job, res);
  }

  toString(): string {
    const kind = this.p.kind === 'valid' ? '' : ` (${this.p.kind})`;
    return this.target
      ? `create job${kind} ${this.target}`
      : `create job${kind} (model pick ${this.p.model})`;
  }
}
