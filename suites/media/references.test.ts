// @conformance start-early 5
import {
  acceptableSamples,
  check,
  expectStatus,
  group,
  sample,
  segment,
  upload,
} from '../../src/suite/index.ts';
import {
  ACK,
  baseJob,
  documentedIds,
  judgeRefusal,
  mayBeOwnId,
  PROMPT,
  postJob,
  references,
  refusalModel,
  table,
} from './support.ts';

const [FIELD, ALT] = table.reference_fields as [string, string];

for (const id of documentedIds) {
  const model = table.models[id]!;
  const r = model.references;
  if (!r.stated) continue;
  group(id, () => {
    if (r.accepted.length === 0) {
      check(
        { ids: ['MJOB-010', 'MJOB-014'], effect: 'write' },
        `${id}: refuses references for a model that takes none (\`${FIELD}\`, \`${ALT}\`)`,
        async (t) => {
          const m = await refusalModel(t, id);
          const base = await baseJob(t, id, m);
          const [ref] = await references(t, { ...m, references: { ...m.references, min: 1 } }, 1);
          for (const field of [FIELD, ALT]) {
            const msg = judgeRefusal(
              t,
              await postJob(t, { ...base, parameters: { ...(base.parameters as object), [field]: [ref] } }),
              `${id}: one reference under ${field}`,
            );
            if (msg) t.violate('MJOB-010', msg);
          }
        },
      );
      return;
    }

    check(
      { ids: ['MJOB-010', 'MJOB-014'], effect: 'write' },
      `${id}: refuses reference counts outside ${r.min} to ${r.max} and a missing array`,
      async (t) => {
        const m = await refusalModel(t, id);
        const base = await baseJob(t, id, m);
        const params = base.parameters as Record<string, unknown>;
        const refs = await references(t, m, (r.max ?? 1) + 1);
        const cases: Array<[string, Record<string, unknown>]> = [
          [`${(r.max ?? 1) + 1} references`, { ...params, [FIELD]: refs }],
        ];
        if (r.required) {
          const without = { ...params };
          delete without[FIELD];
          cases.push(
            ['no reference array', without],
            ['an empty reference array', { ...params, [FIELD]: [] }],
          );
        }
        for (const [what, p] of cases) {
          const msg = judgeRefusal(
            t,
            await postJob(t, { ...base, parameters: p }, { refusal: true }),
            `${id}: ${what}`,
          );
          if (msg) t.violate('MJOB-010', msg);
        }
      },
    );

    check(
      { ids: ['MJOB-011', 'MJOB-012', 'MJOB-014'], effect: 'write' },
      `${id}: refuses both id fields, duplicates, long and unknown ids`,
      async (t) => {
        const m = await refusalModel(t, id);
        const base = await baseJob(t, id, m);
        const params = base.parameters as Record<string, unknown>;
        const refs = params[FIELD] as string[];
        // An unknown id is not one of the error table's named causes: any 4xx refusal (403/404 too).
        // An over-long id is also unknown: refused as such (403, 404) it needs no code (judgeRefusal).
        const cases: Array<[string, string, Record<string, unknown>, boolean | 'or-unknown']> = [
          ['MJOB-011', 'both id fields', { ...params, [ALT]: refs }, true],
          ['MJOB-012', 'an id of 161 UTF-8 bytes', { ...params, [FIELD]: ['i'.repeat(161)] }, 'or-unknown'],
          [
            'MJOB-012',
            'an id of 160 characters and 161 UTF-8 bytes',
            { ...params, [FIELD]: [`${'i'.repeat(159)}é`] },
            'or-unknown',
          ],
          [
            'MJOB-012',
            'an unknown id',
            { ...params, [FIELD]: [`in_conformance_unknown_${t.run.seed}`] },
            false,
          ],
          // "an array of ... ids": a ready id alone, not in an array, and an id that is no string.
          ['MJOB-012', 'a ready id alone, not in an array', { ...params, [FIELD]: refs[0] }, false],
          ['MJOB-012', 'an id that is a number', { ...params, [FIELD]: [160] }, false],
        ];
        if ((r.max ?? 1) >= 2)
          cases.push(['MJOB-012', 'a duplicated id', { ...params, [FIELD]: [refs[0], refs[0]] }, true]);
        for (const [rule, what, p, named] of cases) {
          const msg = judgeRefusal(
            t,
            await postJob(t, { ...base, parameters: p }, { refusal: true }),
            `${id}: ${what}`,
            named,
          );
          if (msg) t.violate(rule, msg);
        }
      },
    );

    check(
      { ids: ['MJOB-043'], effect: 'write' },
      `${id}: refuses an unknown id under \`${ALT}\` alone`,
      async (t) => {
        const m = await refusalModel(t, id);
        const base = await baseJob(t, id, { ...m, references: { ...m.references, required: false } });
        // Its acceptance side is a job of the covering design (validation tests); a 403 or 404 is a
        // refusal too (judging.md: foreign or unknown ids).
        const params = { ...(base.parameters as object), [ALT]: [`in_conformance_unknown_${t.run.seed}`] };
        const msg = judgeRefusal(
          t,
          await postJob(t, { ...base, parameters: params }),
          `${id}: ${ALT}`,
          false,
        );
        if (msg) t.violate('MJOB-043', msg);
      },
    );

    if (!r.accepted.includes('video')) {
      check(
        { ids: ['MJOB-042', 'MJOB-014'], effect: 'write' },
        `${id}: refuses a video as the reference of an image-only model`,
        async (t) => {
          const m = await refusalModel(t, id);
          const base = await baseJob(t, id, m);
          const video = await references(t, m, 1, 'video');
          const msg = judgeRefusal(
            t,
            await postJob(t, { ...base, parameters: { ...(base.parameters as object), [FIELD]: video } }),
            `${id}: one video reference`,
          );
          if (msg) t.violate('MJOB-042', msg);
        },
      );
    }

    const window = r.video;
    if (window) {
      // Videos the upload rule admits (1 to 30 s) that are shorter than the model's own window, down
      // to 10 ms under its minimum; its edges themselves are accepted in the covering design.
      const short = acceptableSamples()
        .filter((v) => v.real_type === 'video/mp4' && (v.duration_ms ?? 0) < window.usable_min_ms)
        .map((v) => v.file);
      check(
        { ids: ['MJOB-041', 'MJOB-014'], effect: 'write' },
        `${id}: refuses a reference video shorter than ${window.usable_min_ms} ms (${short.join(', ')})`,
        async (t) => {
          await refusalModel(t, id);
          for (const file of short) {
            const u = await upload(t, file);
            if (!u.id) return t.skip(`uploading ${file} was answered ${u.res.status} (see MIN-006)`);
            const res = await postJob(t, {
              model: id,
              prompt: PROMPT,
              parameters: { [ACK]: true, [FIELD]: [u.id] },
            });
            const msg = judgeRefusal(t, res, `${id}: a reference video of ${sample(file).duration_ms} ms`);
            if (msg) t.violate('MJOB-041', msg);
          }
        },
      );
    }

    if (r.video) {
      check(
        { ids: ['MJOB-013', 'MJOB-014'], effect: 'write' },
        `${id}: refuses mixed images and video, and two videos`,
        async (t) => {
          const m = await refusalModel(t, id);
          const [image] = await references(t, m, 1, 'image');
          const videos = await references(t, m, 2, 'video');
          for (const [what, refs] of [
            ['an image and a video', [image, videos[0]]],
            ['two videos', videos],
          ] as const) {
            const res = await postJob(t, {
              model: id,
              prompt: PROMPT,
              parameters: { [ACK]: true, [FIELD]: refs },
            });
            const msg = judgeRefusal(t, res, `${id}: ${what}`);
            if (msg) t.violate('MJOB-013', msg);
          }
        },
      );
    }
  });
}

check(
  { ids: ['MIN-012', 'MJOB-012'], effect: 'write', roles: ['other_tenant'] },
  "refuses another tenant's input as a reference and its deletion",
  async (t) => {
    const id = 'wc-100011';
    await refusalModel(t, id);
    const theirs = await upload(t, 'png-64x48.png', { as: 'other_tenant' });
    if (!theirs.id) return t.skip(`the other tenant's upload was answered ${theirs.res.status}`);
    if (mayBeOwnId(theirs.id))
      return t.skip(
        `the other tenant's input id ${JSON.stringify(theirs.id)} may name an input of this tenant too (ids numbered per tenant): sent with this tenant's key it proves nothing`,
      );
    const res = await postJob(t, {
      model: id,
      prompt: PROMPT,
      parameters: { [ACK]: true, [FIELD]: [theirs.id] },
    });
    const msg = judgeRefusal(t, res, `${id}: another tenant's input as a reference`, false);
    if (msg) t.violate('MIN-012', msg);
    const del = await t.request('DELETE', `/v1/media/inputs/${segment(theirs.id, 'input id')}`);
    expectStatus(t, del, 'MIN-012', [403, 404], "deleting another tenant's input");
  },
);
