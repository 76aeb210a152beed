// The job validation tests of the documented models, one suite file per topic (validation-fields,
// -prompts, -parameters, -covering.test.ts). Each test is one small function of a model's job; the setup
// they share (the model listed in the account's catalog, its valid base job) is done by modelCheck.
import {
  type CheckContext,
  type CheckSpec,
  type CoveredValue,
  type CoveringReferences,
  check,
  checkProperty,
  coveringDesign,
  group,
  type HttpResponse,
  type MediaModel,
  neverAcceptedValues,
  type ParameterRule,
  type PromptBreak,
  parameterCases,
  promptArbitrary,
  promptExamples,
  siblingValues,
  sizeCases,
  utf8CapBinds,
  videoSampleOf,
} from '../../src/suite/index.ts';
import {
  ACK,
  baseJob,
  besideJobOf,
  catalogKind,
  documentedIds,
  judgeRefusal,
  listedIds,
  listedModel,
  PROMPT,
  postJob,
  references,
  table,
} from './support.ts';

const FIELD = table.reference_fields[0]!;

const allParameterNames = [...new Set(Object.values(table.models).flatMap((m) => Object.keys(m.parameters)))];

/**
 * Each topic of job validation is one suite file (validation-<topic>.test.ts) that registers its tests
 * for every documented model, grouped by model, in this order within a model: acknowledgement, top-level
 * fields, never-accepted and unsupported parameter names (fields); prompts; each parameter's values
 * (parameters); the acceptance of its covering design (covering).
 */
function perModel(register: (id: string, model: MediaModel) => void): void {
  for (const id of documentedIds) group(id, () => register(id, table.models[id]!));
}

/** The job's fields: acknowledgement, top-level fields, never-accepted and unsupported parameter names. */
export function fieldTests(): void {
  perModel((id, model) => {
    modelCheck(id, { ids: ['MJOB-001'] }, 'refuses a job without a true acknowledgement', acknowledgement);
    modelCheck(
      id,
      { ids: ['MJOB-002'] },
      'refuses top-level fields beyond kind, model, prompt and parameters',
      topLevelFields,
    );
    modelCheck(
      id,
      { ids: ['MJOB-003', 'MJOB-014'] },
      'refuses every never-accepted parameter name',
      neverAccepted,
    );
    if (model.parameters_complete)
      modelCheck(
        id,
        { ids: ['MJOB-004', 'MJOB-014'] },
        'refuses parameters the model does not support',
        unsupported(allParameterNames.filter((n) => !(n in model.parameters))),
      );
  });
}

/** The prompt's bounds, where the contract states them. */
export function promptTests(): void {
  perModel((id, model) => {
    if (!model.prompt.stated) return;
    const spec = model.prompt.empty_only
      ? { ids: ['MJOB-008', 'MJOB-007', 'MJOB-014'] }
      : { ids: ['MJOB-006', 'MJOB-007', 'MJOB-014'] };
    modelCheck(id, spec, 'refuses generated prompts outside its bounds', prompts(spec.ids[0]!));
  });
}

/** Each stated parameter's values outside the contract's set. */
export function parameterTests(): void {
  perModel((id, model) => {
    for (const [name, rule] of Object.entries(model.parameters)) {
      if (rule.stated === false) continue;
      const spec =
        rule.presets !== undefined ? { ids: ['MJOB-009', 'MJOB-014'] } : { ids: ['MJOB-005', 'MJOB-014'] };
      // The value cases are few and their bounds matter: each is sent, none left to sampling.
      modelCheck(
        id,
        spec,
        `refuses every ${name} value outside the contract's set`,
        parameterValues(name, spec.ids[0]!),
      );
    }
  });
}

/** The acceptance of each model's covering design of valid jobs (billable: it buys media jobs). */
export function coveringTests(): void {
  perModel((id, model) =>
    modelCheck(
      id,
      { ids: coveringIds(model), effect: 'billable', ownReferences: true, acceptance: true },
      'accepts every valid value of its covering design of jobs',
      covering,
    ),
  );
}

/** What each test of a model starts from: the model, listed in the account's catalog, and its valid base job. */
interface ModelJob {
  id: string;
  m: MediaModel;
  base: Record<string, unknown>;
}

type ModelTest = (t: CheckContext, job: ModelJob) => Promise<void>;

/**
 * One test of a documented model (titled `<id>: <title>`): it is not run unless the account's catalog
 * lists the model; its base job carries the acknowledgement, a prompt within bounds and the references
 * the model requires (none where the test sends the references itself). A test of refusals stands beside
 * a job of the model accepted in the run (the covering design's, `acceptance`, or any other test's).
 */
function modelCheck(
  id: string,
  spec: { ids: string[]; effect?: CheckSpec['effect']; ownReferences?: true; acceptance?: true },
  title: string,
  test: ModelTest,
): void {
  check({ ids: spec.ids, effect: spec.effect ?? 'write' }, `${id}: ${title}`, async (t) => {
    if (!spec.acceptance) besideJobOf(t, id);
    const m = await listedModel(t, id);
    const jobModel = spec.ownReferences ? { ...m, references: { ...m.references, required: false } } : m;
    await test(t, { id, m, base: await baseJob(t, id, jobModel) });
  });
}

const parametersOf = (job: ModelJob): Record<string, unknown> =>
  job.base.parameters as Record<string, unknown>;

/** The base job with one parameter set. */
const withParameter = (job: ModelJob, name: string, value: unknown): Record<string, unknown> => ({
  ...job.base,
  parameters: { ...parametersOf(job), [name]: value },
});

/** A job with its prompt set, or left out (undefined). */
function withPrompt(body: Record<string, unknown>, prompt: string | undefined): Record<string, unknown> {
  const out = { ...body };
  if (prompt === undefined) delete out.prompt;
  else out.prompt = prompt;
  return out;
}

/** Post a job the contract refuses; the violation message of the main rule, if any (judgeRefusal). */
async function refused(
  t: CheckContext,
  job: ModelJob,
  body: unknown,
  what: string,
  namedCause = true,
): Promise<string | undefined> {
  return judgeRefusal(t, await postJob(t, body, { refusal: true }), `${job.id}: ${what}`, namedCause);
}

/** Every case sent, each refusal judged; a case not refused is a violation of `ruleId`. */
async function refuseEach(
  t: CheckContext,
  job: ModelJob,
  ruleId: string,
  cases: Array<{ body: unknown; what: string; received?: { value: unknown } }>,
  namedCause = true,
): Promise<void> {
  for (const c of cases) {
    const msg = await refused(t, job, c.body, c.what, namedCause);
    if (msg) t.violate(ruleId, msg, c.received ? { received: c.received.value } : {});
  }
}

/** MJOB-001: no acknowledgement, or one that is not `true`. */
const acknowledgement: ModelTest = (t, job) =>
  refuseEach(
    t,
    job,
    'MJOB-001',
    (
      [
        ['no acknowledgement', undefined],
        ['acknowledgement false', false],
        ['acknowledgement "true"', 'true'],
      ] as const
    )
      .map(([what, value]): { what: string; body: unknown } => {
        const parameters = { ...parametersOf(job) };
        if (value === undefined) delete parameters[ACK];
        else parameters[ACK] = value;
        return { what, body: { ...job.base, parameters } };
      })
      // "`parameters` required object": without it, or not an object, there is no acknowledgement either.
      .concat(
        (
          [
            ['no parameters object', undefined],
            ['parameters null', null],
            ['parameters an array', [ACK]],
          ] as const
        ).map(([what, value]) => {
          const body: Record<string, unknown> = { ...job.base, parameters: value };
          if (value === undefined) delete body.parameters;
          return { what, body };
        }),
      ),
    false,
  );

/** MJOB-002: top-level fields beyond kind, model, prompt and parameters. */
const topLevelFields: ModelTest = (t, job) =>
  refuseEach(
    t,
    job,
    'MJOB-002',
    [{ seed: 1 }, { callback_url: 'https://example.com/hook' }, { [ACK]: true }]
      .map((extra): { what: string; body: unknown } => ({
        what: `top-level ${Object.keys(extra)[0]}`,
        body: { ...job.base, ...extra },
      }))
      // Not the shape at all: the job as the one item of a JSON array, and JSON null.
      .concat([
        { what: 'the job inside a JSON array', body: [job.base] },
        { what: 'a JSON null body', body: null },
      ]),
    false,
  );

/**
 * MJOB-003: the parameter names the contract never accepts, each with an empty array and with a value a
 * client would send under it (neverAcceptedValues).
 */
const neverAccepted: ModelTest = (t, job) =>
  refuseEach(
    t,
    job,
    'MJOB-003',
    table.never_accepted_parameters.flatMap((name) =>
      neverAcceptedValues(name).map((value) => ({
        what: `parameter ${name} ${JSON.stringify(value)}`,
        body: withParameter(job, name, value),
        received: { value },
      })),
    ),
  );

/** MJOB-004: parameters of other models (with a value they accept there) and one no model has. */
const unsupported =
  (foreign: string[]): ModelTest =>
  (t, job) =>
    refuseEach(
      t,
      job,
      'MJOB-004',
      [...foreign, 'unimplemented_option'].map((name) => {
        const owner = documentedIds.find((d) => name in table.models[d]!.parameters) ?? job.id;
        const value = table.models[owner]?.parameters[name]?.default ?? true;
        return { what: `unsupported parameter ${name}`, body: withParameter(job, name, value) };
      }),
    );

/**
 * MJOB-006/008 and MJOB-007: generated prompts outside the model's bounds, one property per bound, each
 * case judged under the rule of the bound it breaks (the generator knows it): `countRule` for its
 * presence, emptiness or count, MJOB-007 for its UTF-8 byte cap, which has its own property only where
 * it can refuse a prompt the count allows.
 */
const prompts =
  (countRule: string): ModelTest =>
  async (t, job) => {
    const r = job.m.prompt;
    const rules: Record<PromptBreak, string> = { characters: countRule, utf8_bytes: 'MJOB-007' };
    for (const breaks of ['characters', 'utf8_bytes'] as const) {
      if (breaks === 'utf8_bytes' && !utf8CapBinds(r)) continue;
      await checkProperty(t, {
        id: rules[breaks],
        arbitrary: promptArbitrary(r).filter((c) => c.breaks === breaks),
        examples: promptExamples(r).filter((c) => c.breaks === breaks),
        run: (c) => refused(t, job, withPrompt(job.base, c.value), `prompt of ${c.note}`),
      });
    }
    // A prompt is text ("Length is counted in Unicode characters"): a number or an array of text is
    // none, refused like any malformed field (any 4xx).
    await refuseEach(
      t,
      job,
      countRule,
      [123, [PROMPT]].map((value) => ({
        what: `a prompt that is not a string (${JSON.stringify(value)})`,
        body: { ...job.base, prompt: value },
        received: { value },
      })),
      false,
    );
  };

/**
 * Whether `value` has the type of the parameter's own values (a size or an enum of strings: a string; an
 * integer range: an integer; a flag: a boolean). Outside the set but of that type is "outside the model's
 * published ranges", whose code the error table names; another type is a malformed value, refused with
 * any 4xx (judging.md: "elsewhere any 4xx refusal"). A fraction for an integer is of another type, as a
 * string is: the contract writes "integer" apart from "number", and a schema's `type: integer` refuses
 * 4.5 as it refuses "4" (variant parameter-types-422).
 */
function ofItsType(r: ParameterRule, value: unknown): boolean {
  if (r.presets !== undefined) return typeof value === 'string';
  if (r.boolean) return typeof value === 'boolean';
  if (r.integer) return Number.isInteger(value);
  return (r.values ?? []).some((v) => typeof v === typeof value);
}

/**
 * MJOB-005 (MJOB-009 for a size): every value case of one parameter outside the contract's set, among
 * them the values the table gives the same name on other models (siblingValues). `null` is not sent: for
 * an optional parameter it may be read as the parameter left out (its default).
 */
const parameterValues =
  (name: string, ruleId: string): ModelTest =>
  async (t, job) => {
    const r = job.m.parameters[name]!;
    const cases = (
      r.presets !== undefined ? sizeCases(table, r) : parameterCases(r, siblingValues(table, name))
    ).filter((c) => !c.valid && c.value !== null);
    for (const typed of [true, false])
      await refuseEach(
        t,
        job,
        ruleId,
        cases
          .filter((c) => ofItsType(r, c.value) === typed)
          .map((c) => ({
            what: `${name} ${JSON.stringify(c.value)}`,
            body: withParameter(job, name, c.value),
            received: { value: c.value },
          })),
        typed,
      );
  };

/** Uploaded reference ids by kind of reference (inputKey). */
type Inputs = Map<string, string[]>;
/** Images are interchangeable; a video of a stated duration is its own kind. */
const inputKey = (r: CoveringReferences): string =>
  r.durationMs === undefined ? r.kind : `${r.kind} ${r.durationMs} ms`;
const refsOf = (inputs: Inputs, r: CoveringReferences): string[] =>
  (inputs.get(inputKey(r)) ?? []).slice(0, r.count);

/** The ids of the acceptance test: the values its covering design carries are judged under these. */
const coveringIds = (model: MediaModel): string[] =>
  [
    ...new Set([
      'MJOB-005',
      'MJOB-006',
      'MJOB-009',
      model.output === 'video' ? 'MJOB-002' : 'MJOB-070',
      ...coveringDesign(table, model, 'standard').flatMap((c) => c.proves.flatMap((p) => p.rules)),
    ]),
  ].sort();

/**
 * Every valid value of the model's covering design of jobs is accepted. A refused job is laid at the
 * value (and its rule) the target refuses: its spelling choice first (references under an alias, `kind`),
 * then each value alone on a minimal valid job.
 */
const covering: ModelTest = async (t, job) => {
  const { id, m, base } = job;
  // The named presets of a size list are dealt out over the models of the catalog that share it.
  const cases = coveringDesign(table, m, t.run.profile, await listedIds(t));
  // The inputs each kind of reference needs (a video per window edge), as many as its largest count.
  const needed = new Map<string, CoveringReferences>();
  for (const r of cases.flatMap((c) => (c.references ? [c.references] : []))) {
    const seen = needed.get(inputKey(r));
    if (!seen || seen.count < r.count) needed.set(inputKey(r), r);
  }
  const inputs: Inputs = new Map();
  for (const [key, r] of needed)
    inputs.set(
      key,
      await references(t, m, r.count, r.kind, r.durationMs ? videoSampleOf(r.durationMs) : undefined),
    );
  // One job also sends `kind`: a video model's as the reference client does ("for video models the
  // reference client sends `video_generation`"), any other model's the kind its catalog entry gives
  // (MJOB-070); one without the alias, so that a refusal has one suspect.
  const kind = m.output === 'video' ? 'video_generation' : await catalogKind(t, id);
  const withKind = kind !== undefined ? cases.find((c) => !c.references?.field) : undefined;
  for (const c of cases) {
    const parameters: Record<string, unknown> = { ...parametersOf(job), ...c.parameters };
    const refs = c.references && refsOf(inputs, c.references);
    const alias = c.references?.field;
    if (refs) parameters[alias ?? FIELD] = refs;
    let body: Record<string, unknown> = { ...base, parameters };
    if (c.prompt !== null) body = withPrompt(body, c.prompt);
    if (c === withKind) body.kind = kind;
    // The job's spelling choice, if any (references under the alias, `kind`): a rule it judges too.
    const suspect = alias
      ? { rule: 'MJOB-043', what: `its references under \`${alias}\` alone` }
      : c === withKind
        ? { rule: m.output === 'video' ? 'MJOB-002' : 'MJOB-070', what: `\`kind\` ${kind}` }
        : undefined;
    // A job judges the rules of the values it carries, not every rule the test cites (a model without
    // presets shows nothing of MJOB-009); its spelling choice's rule where it was accepted, or blamed.
    const rules = c.proves.flatMap((p) => p.rules);
    const res = await postJob(t, body);
    const verdict = t.verdict(res, true, `${id}: a job of its covering design`, rules);
    if (!verdict.mismatch) {
      if (suspect && verdict.judged) t.observe(suspect.rule, res.exchange);
      continue;
    }
    let proves = c.proves;
    // Which value was refused: the same job without the job's spelling choice (references
    // under the first name, no `kind`). Its acceptance blames that choice alone; its refusal
    // clears it.
    if (suspect) {
      const { [alias ?? FIELD]: _, ...plain } = parameters;
      const { kind: __, ...plainBody } = body;
      const again = await postJob(t, {
        ...plainBody,
        parameters: { ...plain, ...(refs ? { [FIELD]: refs } : {}) },
      });
      const withoutSuspect = t.verdict(
        again,
        true,
        `${id}: a job of its covering design, without ${suspect.what}`,
        rules,
      );
      if (!withoutSuspect.judged) continue;
      if (!withoutSuspect.mismatch) {
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
    const alone = proves.length > 1 ? await refusedAlone(t, job, proves, inputs) : [];
    const blamed = alone.length > 0 ? alone : [{ value: proves, res }];
    for (const { value, res: answer } of blamed) {
      const values = value.map((p) => p.note).join('; ');
      for (const rule of new Set(value.flatMap((p) => p.rules)))
        t.violate(rule, `${id}: a job valid per the contract (${values}) was answered ${answer.status}`, {
          received: answer.status,
          expected: '2xx',
          exchange: answer.exchange,
        });
    }
  }
};

/**
 * The values of a refused covering job that a minimal valid job (the model's base job, with the
 * references it requires) refuses when it carries that value alone. Empty when each is accepted alone:
 * then only their combination was refused.
 */
async function refusedAlone(
  t: CheckContext,
  job: ModelJob,
  values: CoveredValue[],
  inputs: Inputs,
): Promise<Array<{ value: CoveredValue[]; res: HttpResponse }>> {
  const base = await baseJob(t, job.id, job.m);
  const refusedValues: Array<{ value: CoveredValue[]; res: HttpResponse }> = [];
  for (const v of values) {
    const parameters: Record<string, unknown> = { ...(base.parameters as object) };
    let body: Record<string, unknown> = { ...base, parameters };
    if (v.subject === 'prompt') body = withPrompt(body, v.value as string | undefined);
    else if (v.subject === 'references') {
      parameters[FIELD] = refsOf(inputs, v.value as CoveringReferences);
    } else parameters[v.subject] = v.value;
    const res = await postJob(t, body);
    if (t.verdict(res, true, `${job.id}: ${v.note}`, v.rules).mismatch)
      refusedValues.push({ value: [v], res });
  }
  return refusedValues;
}
