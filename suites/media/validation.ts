// The job validation arithmetic of the documented models, shared by validation-image.test.ts and
// validation-other.test.ts.
import {
  type CheckContext,
  type CoveredValue,
  type CoveringReferences,
  check,
  checkProperty,
  coveringDesign,
  group,
  type HttpResponse,
  type MediaModel,
  parameterCases,
  promptArbitrary,
  promptValid,
  sizeCases,
  utf8Bytes,
} from '../../src/suite.ts';
import {
  ACK,
  baseJob,
  documentedIds,
  judgeRefusal,
  listedModel,
  postJob,
  references,
  table,
} from './support.ts';

const FIELD = table.reference_fields[0]!;

/** The ids of the acceptance test: the values its covering design carries are judged under these. */
const coveringIds = (model: MediaModel): string[] =>
  [
    ...new Set([
      'MJOB-005',
      'MJOB-006',
      'MJOB-009',
      ...(model.output === 'video' ? ['MJOB-002'] : []),
      ...coveringDesign(table, model, 'standard').flatMap((c) => c.proves.flatMap((p) => p.rules)),
    ]),
  ].sort();

async function refused(
  t: CheckContext,
  id: string,
  body: unknown,
  what: string,
  namedCause = true,
): Promise<string | undefined> {
  const res = await postJob(t, body);
  return judgeRefusal(t, res, `${id}: ${what}`, namedCause);
}

const allParameterNames = [...new Set(Object.values(table.models).flatMap((m) => Object.keys(m.parameters)))];

/**
 * The job validation tests of each given documented model (registered by the test files that call it:
 * the models are split over files so that their tests spread over the run's worker threads).
 */
export function validationTests(ids: string[]): void {
  for (const id of ids) {
    const model = table.models[id]!;
    group(id, () => {
      check(
        { ids: ['MJOB-001'], effect: 'write' },
        `${id}: refuses a job without a true acknowledgement`,
        async (t) => {
          const m = await listedModel(t, id);
          const base = await baseJob(t, id, m);
          const params = base.parameters as Record<string, unknown>;
          for (const [what, value] of [
            ['no acknowledgement', undefined],
            ['acknowledgement false', false],
            ['acknowledgement "true"', 'true'],
          ] as const) {
            const p = { ...params };
            if (value === undefined) delete p[ACK];
            else p[ACK] = value;
            const msg = await refused(t, id, { ...base, parameters: p }, what, false);
            if (msg) t.violate('MJOB-001', msg);
          }
        },
      );

      check(
        { ids: ['MJOB-002'], effect: 'write' },
        `${id}: refuses top-level fields beyond kind, model, prompt and parameters`,
        async (t) => {
          const m = await listedModel(t, id);
          const base = await baseJob(t, id, m);
          for (const extra of [{ seed: 1 }, { callback_url: 'https://example.com/hook' }, { [ACK]: true }]) {
            const msg = await refused(
              t,
              id,
              { ...base, ...extra },
              `top-level ${Object.keys(extra)[0]}`,
              false,
            );
            if (msg) t.violate('MJOB-002', msg);
          }
        },
      );

      check(
        { ids: ['MJOB-003', 'MJOB-014'], effect: 'write' },
        `${id}: refuses every never-accepted parameter name`,
        async (t) => {
          const m = await listedModel(t, id);
          const base = await baseJob(t, id, m);
          for (const name of table.never_accepted_parameters) {
            const msg = await refused(
              t,
              id,
              { ...base, parameters: { ...(base.parameters as object), [name]: [] } },
              `parameter ${name}`,
            );
            if (msg) t.violate('MJOB-003', msg);
          }
        },
      );

      if (model.parameters_complete) {
        const foreign = allParameterNames.filter((n) => !(n in model.parameters));
        check(
          { ids: ['MJOB-004', 'MJOB-014'], effect: 'write' },
          `${id}: refuses parameters the model does not support`,
          async (t) => {
            const m = await listedModel(t, id);
            const base = await baseJob(t, id, m);
            for (const name of [...foreign, 'unimplemented_option']) {
              const value =
                table.models[documentedIds.find((d) => name in table.models[d]!.parameters) ?? id]
                  ?.parameters[name]?.default ?? true;
              const msg = await refused(
                t,
                id,
                { ...base, parameters: { ...(base.parameters as object), [name]: value } },
                `unsupported parameter ${name}`,
              );
              if (msg) t.violate('MJOB-004', msg);
            }
          },
        );
      }

      if (model.prompt.stated) {
        const { ids } = model.prompt.empty_only
          ? { ids: ['MJOB-008', 'MJOB-007', 'MJOB-014'] }
          : { ids: ['MJOB-006', 'MJOB-007', 'MJOB-014'] };
        const promptId = ids[0]!;
        check({ ids, effect: 'write' }, `${id}: refuses generated prompts outside its bounds`, async (t) => {
          const m = await listedModel(t, id);
          const base = await baseJob(t, id, m);
          const r = m.prompt;
          // A prompt refused only for its UTF-8 bytes breaks the byte cap (MJOB-007); any other, the count.
          const bytesOnly = (v: string | undefined) => {
            const c = v?.trim() ?? '';
            return (
              promptValid({ ...r, max_utf8_bytes: null }, v) === true &&
              utf8Bytes(c) > (r.max_utf8_bytes ?? Infinity)
            );
          };
          const bytesBind = (r.max_chars ?? 0) * 4 > (r.max_utf8_bytes ?? Number.POSITIVE_INFINITY);
          for (const [ruleId, pick] of [
            [promptId, (v: string | undefined) => !bytesOnly(v)],
            ['MJOB-007', bytesOnly],
          ] as const) {
            if (ruleId === 'MJOB-007' && !bytesBind) continue;
            await checkProperty(t, {
              id: ruleId,
              arbitrary: promptArbitrary(r).filter((c) => !c.valid && pick(c.value)),
              run: async (c) => {
                const body: Record<string, unknown> = { ...base };
                if (c.value === undefined) delete body.prompt;
                else body.prompt = c.value;
                return refused(t, id, body, `prompt of ${c.note}`);
              },
            });
          }
        });
      }

      for (const [name, rule] of Object.entries(model.parameters)) {
        if (rule.stated === false) continue;
        const spec =
          rule.presets !== undefined ? { ids: ['MJOB-009', 'MJOB-014'] } : { ids: ['MJOB-005', 'MJOB-014'] };
        // The value cases are few and their bounds matter: each is sent, none left to sampling.
        check(
          { ...spec, effect: 'write' },
          `${id}: refuses every ${name} value outside the contract's set`,
          async (t) => {
            const m = await listedModel(t, id);
            const base = await baseJob(t, id, m);
            const r = m.parameters[name]!;
            const invalid = (r.presets !== undefined ? sizeCases(table, r) : parameterCases(r)).filter(
              (c) => !c.valid,
            );
            for (const c of invalid) {
              const msg = await refused(
                t,
                id,
                { ...base, parameters: { ...(base.parameters as object), [name]: c.value } },
                `${name} ${JSON.stringify(c.value)}`,
              );
              if (msg) t.violate(spec.ids[0]!, msg, { received: c.value });
            }
          },
        );
      }

      check(
        { ids: coveringIds(model), effect: 'billable' },
        `${id}: accepts every valid value of its covering design of jobs`,
        async (t) => {
          const m = await listedModel(t, id);
          const base = await baseJob(t, id, { ...m, references: { ...m.references, required: false } });
          const cases = coveringDesign(table, m, t.run.profile);
          const count = (kind: 'image' | 'video') =>
            Math.max(0, ...cases.map((c) => (c.references?.kind === kind ? c.references.count : 0)));
          const inputs = {
            image: await references(t, m, count('image'), 'image'),
            video: await references(t, m, count('video'), 'video'),
          };
          // One job of a video model also sends `kind` as the reference client does ("for video models
          // the reference client sends `video_generation`"): one without the alias, so that a refusal
          // has one suspect.
          const withKind = m.output === 'video' ? cases.find((c) => !c.references?.field) : undefined;
          for (const c of cases) {
            const parameters: Record<string, unknown> = { ...(base.parameters as object), ...c.parameters };
            const refs = c.references && inputs[c.references.kind].slice(0, c.references.count);
            const alias = c.references?.field;
            if (refs) parameters[alias ?? FIELD] = refs;
            const body: Record<string, unknown> = { ...base, parameters };
            if (c.prompt === undefined) delete body.prompt;
            else if (c.prompt !== null) body.prompt = c.prompt;
            if (c === withKind) body.kind = 'video_generation';
            const res = await postJob(t, body);
            if (!t.verdict(res, true, `${id}: a job of its covering design`).mismatch) continue;
            let proves = c.proves;
            // Which value was refused: the same job without the job's spelling choice (references
            // under the first name, no `kind`). Its acceptance blames that choice alone; its refusal
            // clears it.
            const suspect = alias
              ? { rule: 'MJOB-043', what: `its references under \`${alias}\` alone` }
              : c === withKind
                ? { rule: 'MJOB-002', what: '`kind` video_generation' }
                : undefined;
            if (suspect) {
              const { [alias ?? FIELD]: _, ...plain } = parameters;
              const { kind: __, ...plainBody } = body;
              const again = await postJob(t, {
                ...plainBody,
                parameters: { ...plain, ...(refs ? { [FIELD]: refs } : {}) },
              });
              const againVerdict = t.verdict(
                again,
                true,
                `${id}: a job of its covering design, without ${suspect.what}`,
              );
              if (!againVerdict.judged) continue;
              if (!againVerdict.mismatch) {
                t.violate(
                  suspect.rule,
                  `${id}: a valid job with ${suspect.what} was answered ${res.status}, and ${again.status} without it`,
                  { received: res.status, expected: '2xx', exchange: res.exchange },
                );
                continue;
              }
              proves = proves.filter((p) => !p.rules.includes('MJOB-043'));
            }
            // A refused job carried several values: each is sent alone on a minimal valid job, so that
            // the refusal is laid at the value (and its rule) the target refuses, not at all of them.
            const alone = proves.length > 1 ? await refusedAlone(t, id, m, proves, inputs) : [];
            const blamed = alone.length > 0 ? alone : [{ value: proves, res }];
            for (const { value, res: answer } of blamed) {
              const values = value.map((p) => p.note).join('; ');
              for (const rule of new Set(value.flatMap((p) => p.rules)))
                t.violate(
                  rule,
                  `${id}: a job valid per the contract (${values}) was answered ${answer.status}`,
                  { received: answer.status, expected: '2xx', exchange: answer.exchange },
                );
            }
          }
        },
      );
    });
  }
}

/**
 * The values of a refused covering job that a minimal valid job (the model's base job) refuses when it
 * carries that value alone. Empty when each is accepted alone: then only their combination was refused.
 */
async function refusedAlone(
  t: CheckContext,
  id: string,
  m: MediaModel,
  values: CoveredValue[],
  inputs: Record<'image' | 'video', string[]>,
): Promise<Array<{ value: CoveredValue[]; res: HttpResponse }>> {
  const base = await baseJob(t, id, m);
  const refused: Array<{ value: CoveredValue[]; res: HttpResponse }> = [];
  for (const v of values) {
    const parameters: Record<string, unknown> = { ...(base.parameters as object) };
    const body: Record<string, unknown> = { ...base, parameters };
    if (v.subject === 'prompt') {
      if (v.value === undefined) delete body.prompt;
      else body.prompt = v.value;
    } else if (v.subject === 'references') {
      const r = v.value as CoveringReferences;
      parameters[FIELD] = inputs[r.kind].slice(0, r.count);
    } else parameters[v.subject] = v.value;
    const res = await postJob(t, body);
    if (t.verdict(res, true, `${id}: ${v.note}`).mismatch) refused.push({ value: [v], res });
  }
  return refused;
}
