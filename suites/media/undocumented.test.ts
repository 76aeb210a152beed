// @conformance start-early 7
/**
 * Models the live catalog lists that the contract does not document (MCAT-004: "the model catalog and
 * account permissions take precedence over it"). The same prompt and parameter generators as for the
 * documented models run from each such model's own catalog entry; every verdict is advisory, since the
 * contract only sketches what a catalog entry means (judging.md, notable).
 */

import {
  type Axis,
  type CheckContext,
  catalogModel,
  catalogParameterCases,
  check,
  checkProperty,
  depth,
  expectStatus,
  type MediaModel,
  mediaCatalog,
  packAxes,
  promptArbitrary,
  promptBoundaryValid,
  promptExamples,
  promptValid,
  seededSample,
} from '../../src/suite/index.ts';
import { ACK, besideJobOf, judgeRefusal, PROMPT, postJob, references, table } from './support.ts';

interface Undocumented {
  id: string;
  model: MediaModel;
}

let found: Promise<{ sample: Undocumented[]; of: number }> | undefined;

/**
 * A sample of the catalog's models the contract does not document (a few per profile, drawn by the run's
 * seed and said in the report), each with the rules its entry publishes: the work is bounded by the
 * contract, not by the size of the target's catalog.
 */
async function undocumented(t: CheckContext): Promise<Undocumented[]> {
  const n = depth(t.run, { quick: 2, standard: 4, thorough: 12 });
  found ??= mediaCatalog(t).then((c) => {
    const ids = c.entries.filter((e) => typeof e.id === 'string' && !(e.id in table.models));
    const sample = seededSample(ids, n, t.run.seed, (e) => e.id as string);
    return {
      sample: sample.map((e) => ({ id: e.id as string, model: catalogModel(e, table) })),
      of: ids.length,
    };
  });
  const { sample, of } = await found;
  if (of === 0) t.skip('the media catalog lists only models the contract documents');
  if (of > sample.length)
    t.note(
      `judged ${sample.length} of the ${of} undocumented models, drawn by seed ${t.run.seed} (--seed ${t.run.seed} draws them again): ${sample.map((u) => u.id).join(', ')}`,
    );
  return sample;
}

/** A request the entry allows: acknowledgement, a prompt within the published bounds, the minimum of references. */
async function baseJob(t: CheckContext, u: Undocumented): Promise<Record<string, unknown>> {
  const m = u.model;
  const parameters: Record<string, unknown> = { [ACK]: true };
  if (m.references.required && (m.references.min ?? 0) > 0) {
    const kind = m.references.accepted.includes('image') ? 'image' : 'video';
    parameters[table.reference_fields[0]!] = await references(t, m, m.references.min ?? 1, kind);
  }
  const body: Record<string, unknown> = { model: u.id, parameters };
  if (!m.prompt.empty_only) {
    const prompt = [PROMPT, 'a'.repeat(Math.max(1, m.prompt.min_chars ?? 1))].find(
      (p) => promptValid(m.prompt, p) !== false,
    );
    if (prompt === undefined) t.skip(`${u.id}: its prompt_contract admits no prompt the suite can build`);
    body.prompt = prompt;
  }
  return body;
}

function refusedMessage(t: CheckContext, res: Awaited<ReturnType<typeof postJob>>, what: string) {
  // Only advisory: the code of the refusal is not judged for a model the contract does not document.
  return judgeRefusal(t, res, what, false);
}

check(
  { ids: ['MCAT-004'], effect: 'write' },
  'refuses prompts outside an undocumented model’s catalog prompt_contract',
  async (t) => {
    for (const u of await undocumented(t)) {
      const r = u.model.prompt;
      if (!r.stated) continue;
      besideJobOf(t, u.id);
      const base = await baseJob(t, u);
      await checkProperty(t, {
        id: 'MCAT-004',
        // An absent prompt is judged only where the entry says whether it is required.
        arbitrary: promptArbitrary(r).filter(
          (c) => !c.valid && (c.value !== undefined || r.required !== null),
        ),
        examples: promptExamples(r).filter((c) => !c.valid && (c.value !== undefined || r.required !== null)),
        run: async (c) => {
          const body: Record<string, unknown> = { ...base };
          if (c.value === undefined) delete body.prompt;
          else body.prompt = c.value;
          const res = await postJob(t, body);
          return refusedMessage(t, res, `${u.id} (catalog prompt_contract): prompt of ${c.note}`);
        },
      });
    }
  },
);

check(
  { ids: ['MCAT-004'], effect: 'write' },
  'refuses parameter values outside an undocumented model’s catalog options and bounds',
  async (t) => {
    for (const u of await undocumented(t)) {
      besideJobOf(t, u.id);
      const base = await baseJob(t, u);
      for (const [name, rule] of Object.entries(u.model.parameters)) {
        if (rule.stated === false) continue;
        for (const c of catalogParameterCases(rule).filter((c) => !c.valid)) {
          const res = await postJob(t, {
            ...base,
            parameters: { ...(base.parameters as object), [name]: c.value },
          });
          const msg = refusedMessage(t, res, `${u.id} (catalog): ${name} ${JSON.stringify(c.value)}`);
          if (msg) t.violate('MCAT-004', msg, { received: c.value, exchange: res.exchange });
        }
      }
      const max = u.model.references.max;
      if (max !== null && u.model.references.accepted.includes('image')) {
        const ids = await references(t, u.model, max + 1, 'image');
        const res = await postJob(t, {
          ...base,
          parameters: { ...(base.parameters as object), [table.reference_fields[0]!]: ids },
        });
        const msg = refusedMessage(t, res, `${u.id} (catalog): ${max + 1} references (maximum ${max})`);
        if (msg) t.violate('MCAT-004', msg, { exchange: res.exchange });
      }
    }
  },
);

check(
  { ids: ['MCAT-004'], effect: 'billable' },
  'accepts the prompts and values an undocumented model’s catalog entry allows',
  async (t) => {
    for (const u of await undocumented(t)) {
      const base = await baseJob(t, u);
      const allowed = async (body: Record<string, unknown>, what: string) =>
        expectStatus(
          t,
          await postJob(t, body),
          'MCAT-004',
          '2xx',
          `${u.id}: ${what} (allowed by its catalog entry)`,
        );
      if (!(await allowed(base, 'a minimal request'))) continue;
      // Every allowed case (the prompt bounds; the bounds, the step's neighbours and each option of a
      // parameter) is sent once at least, many at once per job.
      const axis = (subject: string, cases: Array<{ value: unknown; note: string }>): Axis => ({
        subject,
        values: cases.map((c) => ({ rules: ['MCAT-004'], subject, value: c.value, note: c.note })),
      });
      const axes = [
        axis(
          'prompt',
          promptBoundaryValid(u.model.prompt).map((c) => ({ value: c.value, note: `a prompt of ${c.note}` })),
        ),
        ...Object.entries(u.model.parameters)
          .filter(([, rule]) => rule.stated !== false)
          .map(([name, rule]) =>
            axis(
              name,
              catalogParameterCases(rule)
                .filter((c) => c.valid)
                .map((c) => ({ value: c.value, note: `${name} ${c.note}` })),
            ),
          ),
      ].filter((a) => a.values.length > 0);
      for (const c of axes.length > 0 ? packAxes(axes) : []) {
        const body: Record<string, unknown> = {
          ...base,
          parameters: { ...(base.parameters as object), ...c.parameters },
        };
        if (typeof c.prompt === 'string') body.prompt = c.prompt;
        await allowed(body, c.proves.map((p) => p.note).join('; '));
      }
    }
  },
);
