import {
  answeredCause,
  type CheckContext,
  check,
  documentedViolations,
  isPlainObject,
  isSuccess,
  type MediaModel,
  mediaCatalog,
} from '../../src/suite/index.ts';
import { ACK, baseJob, besideJobOf, judgeRefusal, postJob, table } from './support.ts';

check(
  { ids: ['MCAT-001', 'MCAT-002'], effect: 'read' },
  'lists the media catalog as {data: [entries]} in the client shape',
  async (t) => {
    const res = await t.get('/v1/media/models');
    const json = res.json as { data?: unknown } | undefined;
    if (
      !t.ensure(
        isSuccess(res.status) && isPlainObject(json) && Array.isArray(json.data),
        'MCAT-001',
        `GET /v1/media/models did not answer {data: [...]} (${res.status})`,
        { received: res.exchange.responseBody?.preview ?? res.status, exchange: res.exchange },
      )
    )
      return;
    (json!.data as unknown[]).forEach((value, i) => {
      documentedViolations(t, res, 'media-catalog-entry.json', () => 'MCAT-002', { at: `/data/${i}`, value });
    });
  },
);

type Bound = number | null | undefined;

/** Compare one live bound with the documented one: narrower is advisory, wider a failure. */
/** A size written WxH or W*H, as one key (other values as they are). */
const sizeKey = (v: string) => v.replace(/^([0-9]+)[x*]([0-9]+)$/, '$1x$2');

function bound(
  t: CheckContext,
  id: string,
  what: string,
  live: unknown,
  doc: Bound,
  kind: 'min' | 'max',
): void {
  if (typeof live !== 'number' || doc === null || doc === undefined || live === doc) return;
  const narrower = kind === 'min' ? live > doc : live < doc;
  t.violate(
    'MCAT-003',
    `${id}: ${what} is ${live} in the catalog, ${doc} in the contract${narrower ? ' (narrower)' : ' (wider)'}`,
    {
      received: live,
      expected: doc,
      ...(narrower ? { level: 'notable' as const } : {}),
    },
  );
}

function compare(t: CheckContext, id: string, e: Record<string, unknown>, m: MediaModel): void {
  const pc = e.prompt_contract;
  if (isPlainObject(pc) && m.prompt.stated) {
    if (typeof pc.empty_only === 'boolean')
      t.ensure(
        pc.empty_only === !!m.prompt.empty_only,
        'MCAT-003',
        `${id}: prompt_contract.empty_only is ${pc.empty_only}`,
        { received: pc.empty_only, expected: !!m.prompt.empty_only },
      );
    bound(t, id, 'prompt minimum_characters', pc.minimum_characters, m.prompt.min_chars, 'min');
    // A prompt that "must be empty" has no cap that can bind, in characters or bytes (the contract gives
    // it no count): 0, 4000 or any cap agrees, where the entry says empty_only (judged above).
    if (!m.prompt.empty_only) {
      bound(t, id, 'prompt maximum_characters', pc.maximum_characters, m.prompt.max_chars, 'max');
      bound(t, id, 'prompt maximum_utf8_bytes', pc.maximum_utf8_bytes, m.prompt.max_utf8_bytes, 'max');
    }
  }
  const params = isPlainObject(e.parameters) ? e.parameters : {};
  const ref = params.reference;
  if (isPlainObject(ref) && m.references.stated) {
    if (Array.isArray(ref.accepted)) {
      const extra = ref.accepted.filter((k) => !(m.references.accepted as string[]).includes(String(k)));
      t.ensure(
        extra.length === 0,
        'MCAT-003',
        `${id}: the catalog accepts ${extra.join(', ')} as references`,
        { received: ref.accepted, expected: m.references.accepted },
      );
    }
    // "ratio follows the first frame" (wc-100015); the table is silent for the other models.
    const follows = ref.aspect_ratio_follows_first_frame;
    if (
      m.references.first_frame_rule?.aspect_ratio_follows_first_frame === true &&
      typeof follows === 'boolean'
    )
      t.ensure(
        follows,
        'MCAT-003',
        `${id}: reference.aspect_ratio_follows_first_frame is false, but its ratio follows the first frame`,
        {
          pointer: '/parameters/reference/aspect_ratio_follows_first_frame',
          received: follows,
          expected: true,
        },
      );
    bound(t, id, 'reference minimum', ref.minimum, m.references.min, 'min');
    bound(t, id, 'reference maximum', ref.maximum, m.references.max, 'max');
  }
  for (const [name, rule] of Object.entries(m.parameters)) {
    const live = params[name];
    if (rule.stated === false) continue;
    if (!isPlainObject(live)) {
      if (live === undefined)
        t.violate('MCAT-003', `${id}: the catalog does not list the parameter ${name}`, { level: 'notable' });
      continue;
    }
    const documentedValues =
      rule.values ??
      (rule.presets ? table.size_lists[rule.presets] : rule.boolean ? [true, false] : undefined);
    // A custom size is "digits, then `x` or `*`, then digits": for a model that takes custom sizes,
    // 1024x1024 and 1024*1024 are one size, whichever separator the catalog writes it with.
    const same = (a: unknown, b: unknown) =>
      a === b ||
      (!!rule.custom && typeof a === 'string' && typeof b === 'string' && sizeKey(a) === sizeKey(b));
    if (Array.isArray(live.options) && documentedValues) {
      const values = live.options.map((o) => (isPlainObject(o) ? o.value : o));
      const extra = values.filter((v) => !documentedValues.some((d) => same(v, d)));
      t.ensure(
        extra.length === 0,
        'MCAT-003',
        `${id}: ${name} offers values the contract does not list: ${JSON.stringify(extra.slice(0, 5))}`,
        { received: values, expected: documentedValues },
      );
      const missing = documentedValues.filter((d) => !values.some((v) => same(v, d)));
      if (missing.length)
        t.violate(
          'MCAT-003',
          `${id}: ${name} lacks documented values ${JSON.stringify(missing.slice(0, 5))}`,
          { level: 'notable' },
        );
    }
    if (rule.integer) {
      bound(t, id, `${name} minimum`, live.minimum, rule.integer.min, 'min');
      bound(t, id, `${name} maximum`, live.maximum, rule.integer.max, 'max');
    }
    if (live.default !== undefined && rule.default !== null && rule.default !== undefined) {
      t.ensure(
        same(live.default, rule.default),
        'MCAT-003',
        `${id}: ${name} defaults to ${JSON.stringify(live.default)}, not ${JSON.stringify(rule.default)}`,
        { received: live.default, expected: rule.default },
      );
    }
  }
  if (m.parameters_complete) {
    const known = new Set([...Object.keys(m.parameters), 'reference', ACK, ...table.reference_fields]);
    for (const name of Object.keys(params)) {
      t.ensure(
        known.has(name),
        'MCAT-003',
        `${id}: the catalog offers the parameter ${name}, which the contract does not give this model`,
        { received: name },
      );
    }
  }
}

check(
  { ids: ['MCAT-003'], effect: 'read' },
  'describes every documented model it lists as the contract does',
  async (t) => {
    const c = await mediaCatalog(t);
    if (!isSuccess(c.status))
      return t.skip(
        `GET /v1/media/models answered ${c.status} (see MCAT-001)`,
        answeredCause('GET', '/v1/media/models', c.status),
      );
    const documented = c.entries.filter((e) => typeof e.id === 'string' && e.id in table.models);
    if (documented.length === 0) return t.skip('the catalog lists no documented model');
    for (const e of documented) compare(t, e.id as string, e, table.models[e.id as string]!);
  },
);

check(
  { ids: ['MCAT-004'], effect: 'read' },
  'gives undocumented models a consistent prompt contract',
  async (t) => {
    const c = await mediaCatalog(t);
    const others = c.entries.filter((e) => typeof e.id === 'string' && !(e.id in table.models));
    if (others.length === 0) return t.skip('the catalog lists only documented models');
    for (const e of others) {
      const pc = e.prompt_contract;
      if (!isPlainObject(pc)) continue;
      const [lo, hi] = [pc.minimum_characters, pc.maximum_characters];
      if (typeof lo === 'number' && typeof hi === 'number')
        t.ensure(
          lo <= hi,
          'MCAT-004',
          `${String(e.id)}: minimum_characters ${lo} exceeds maximum_characters ${hi}`,
        );
    }
  },
);

// "Only logical models published in the calling account's catalog can be called. A model missing from
// the catalog cannot be called." Media jobs too: a documented model the account's media catalog does
// not list is refused (403 is stated for an unauthorised model; whether the deployment knows the id at
// all is not shown, so any 4xx). A wrong acceptance is bought: the first one ends the test.
async function refusedOffCatalog(
  t: CheckContext,
  ids: string[],
  as: 'primary' | 'no_models',
  whose: string,
): Promise<void> {
  for (const id of ids) {
    const body = await baseJob(t, id, table.models[id]!);
    const what = `a media job for ${id}, which ${whose} media catalog does not list`;
    const res = await postJob(t, body, as === 'primary' ? {} : { as });
    const verdict = t.verdict(res, false, what);
    if (verdict.mismatch) {
      t.violate('MODELS-004', verdict.mismatch, { received: res.status, exchange: res.exchange });
      if (isSuccess(res.status)) return;
    }
  }
}

check(
  { ids: ['MODELS-004'], effect: 'billable' },
  "refuses a media job for each documented model the account's media catalog does not list",
  async (t) => {
    const c = await mediaCatalog(t);
    if (!isSuccess(c.status))
      return t.skip(
        `GET /v1/media/models answered ${c.status}: which documented models it leaves out is unknown`,
        answeredCause('GET', '/v1/media/models', c.status),
      );
    const unlisted = Object.keys(table.models).filter((id) => !c.ids.includes(id));
    if (unlisted.length === 0)
      return t.skip("the account's media catalog lists every documented model: none is missing to call", {
        kind: 'precondition',
        subject: "every documented media model is in the account's media catalog",
      });
    await refusedOffCatalog(t, unlisted, 'primary', "the account's");
  },
);

check(
  { ids: ['MODELS-004'], effect: 'billable', roles: ['no_models'] },
  'refuses a media job with the key of an account whose catalog is empty',
  async (t) => {
    const c = await mediaCatalog(t, 'no_models');
    if (!isSuccess(c.status))
      return t.skip(
        `GET /v1/media/models with the no_models key answered ${c.status}: which models it may call is unknown`,
        answeredCause('GET', '/v1/media/models', c.status),
      );
    // A model that needs no uploaded reference: the job is the only request of the key.
    const id = Object.keys(table.models).find(
      (m) => !c.ids.includes(m) && !table.models[m]!.references.required,
    );
    if (!id)
      return t.skip("the no_models account's media catalog lists every documented model without references", {
        kind: 'precondition',
        subject: "the no_models account's media catalog is not empty",
      });
    await refusedOffCatalog(t, [id], 'no_models', "the no_models account's");
  },
);

check(
  { ids: ['MJOB-044'], effect: 'write' },
  'refuses a job whose model is not an exact id of the media catalog (capitals, unknown, a text model)',
  async (t) => {
    const c = await mediaCatalog(t);
    if (!isSuccess(c.status)) return t.skip(`GET /v1/media/models answered ${c.status} (see MCAT-001)`);
    const listed = new Set(c.entries.map((e) => e.id));
    const id = Object.keys(table.models).find((m) => listed.has(m) && /[a-z]/.test(m));
    if (!id) return t.skip('the catalog lists no documented model');
    besideJobOf(t, id);
    const base = await baseJob(t, id, table.models[id]!);
    const unknown = `conformance-unknown-media-model-${t.run.seed}`;
    // The text models are ids of the account's other catalog, not of the media table ("wrong endpoint type").
    const chat = await t.hint('chat');
    const embedding = await t.hint('embedding');
    for (const [what, model] of [
      [`${id} in capitals`, id.toUpperCase()],
      ['an id no catalog lists', unknown],
      [`the chat model ${chat}`, chat],
      [`the embedding model ${embedding}`, embedding],
    ] as const) {
      if (listed.has(model)) continue;
      // The status and code for an unknown model are not stated: any 4xx refusal.
      const msg = judgeRefusal(
        t,
        await postJob(t, { ...base, model }, { refusal: true }),
        `a job for ${what}`,
        false,
      );
      if (msg) t.violate('MJOB-044', msg);
    }
  },
);
