import { check, group, sample, upload } from '../../src/suite/index.ts';
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

// The equivalent name (`input_asset_ids` "or the equivalent `studio_asset_ids`") gets the same refusals
// as the first one (references.test.ts): counts, duplicates, long, unknown and foreign ids.
const [, ALT] = table.reference_fields as [string, string];

for (const id of documentedIds) {
  const r = table.models[id]!.references;
  if (!r.stated || r.accepted.length === 0) continue;
  group(id, () => {
    if (!r.accepted.includes('video')) {
      check(
        { ids: ['MJOB-042', 'MJOB-014'], effect: 'write' },
        `${id}: refuses a video as the reference of an image-only model under \`${ALT}\``,
        async (t) => {
          const m = await refusalModel(t, id);
          const base = await baseJob(t, id, { ...m, references: { ...m.references, required: false } });
          const video = await references(t, m, 1, 'video');
          const res = await postJob(t, {
            ...base,
            parameters: { ...(base.parameters as object), [ALT]: video },
          });
          const msg = judgeRefusal(t, res, `${id}: one video reference under ${ALT}`);
          if (msg) t.violate('MJOB-042', msg);
        },
      );
    }
    const window = r.video;
    if (window) {
      check(
        { ids: ['MJOB-013', 'MJOB-041', 'MJOB-014'], effect: 'write' },
        `${id}: refuses mixed images and video, two videos and a video shorter than ${window.usable_min_ms} ms under \`${ALT}\``,
        async (t) => {
          const m = await refusalModel(t, id);
          const [image] = await references(t, m, 1, 'image');
          const videos = await references(t, m, 2, 'video');
          const short = await upload(t, 'h264-1.5s.mp4');
          if (!short.id)
            return t.skip(`uploading h264-1.5s.mp4 was answered ${short.res.status} (see MIN-006)`);
          const cases: Array<[string, string, string[]]> = [
            ['MJOB-013', 'an image and a video', [image!, videos[0]!]],
            ['MJOB-013', 'two videos', videos],
            ['MJOB-041', `a reference video of ${sample('h264-1.5s.mp4').duration_ms} ms`, [short.id]],
          ];
          for (const [rule, what, refs] of cases) {
            const res = await postJob(t, {
              model: id,
              prompt: PROMPT,
              parameters: { [ACK]: true, [ALT]: refs },
            });
            const msg = judgeRefusal(t, res, `${id}: ${what} under ${ALT}`);
            if (msg) t.violate(rule, msg);
          }
        },
      );
    }
    check(
      { ids: ['MJOB-010', 'MJOB-012', 'MJOB-014'], effect: 'write' },
      `${id}: refuses reference counts outside ${r.min} to ${r.max}, duplicates, long and unknown ids under \`${ALT}\``,
      async (t) => {
        const m = await refusalModel(t, id);
        // A base job without references: each case sends them under the equivalent name only.
        const base = await baseJob(t, id, { ...m, references: { ...m.references, required: false } });
        const params = base.parameters as Record<string, unknown>;
        const refs = await references(t, m, (r.max ?? 1) + 1);
        // An over-long id is also unknown: refused as such (403, 404) it needs no code (judgeRefusal).
        const cases: Array<[string, string, unknown, boolean | 'or-unknown']> = [
          ['MJOB-010', `${refs.length} references`, refs, true],
          ['MJOB-012', 'an id of 161 UTF-8 bytes', ['i'.repeat(161)], 'or-unknown'],
          ['MJOB-012', 'an id of 160 characters and 161 UTF-8 bytes', [`${'i'.repeat(159)}é`], 'or-unknown'],
          ['MJOB-012', 'an unknown id', [`in_conformance_unknown_${t.run.seed}`], false],
          ['MJOB-012', 'an id that is a number', [160], false],
          // "an array of ... ids": a ready id alone, not in an array.
          ['MJOB-012', 'a ready id alone, not in an array', refs[0], false],
        ];
        if (r.required) cases.push(['MJOB-010', 'an empty reference array', [], true]);
        if ((r.max ?? 1) >= 2) cases.push(['MJOB-012', 'a duplicated id', [refs[0], refs[0]], true]);
        for (const [rule, what, ids, named] of cases) {
          const res = await postJob(t, { ...base, parameters: { ...params, [ALT]: ids } });
          const msg = judgeRefusal(t, res, `${id}: ${what} under ${ALT}`, named);
          if (msg) t.violate(rule, msg);
        }
      },
    );
  });
}

check(
  { ids: ['MIN-012', 'MJOB-012'], effect: 'write', roles: ['other_tenant'] },
  `refuses another tenant's input as a reference under \`${ALT}\``,
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
      parameters: { [ACK]: true, [ALT]: [theirs.id] },
    });
    const msg = judgeRefusal(t, res, `${id}: another tenant's input under ${ALT}`, false);
    if (msg) t.violate('MIN-012', msg);
  },
);
