import { check, group, upload } from '../../src/suite.ts';
import {
  ACK,
  baseJob,
  documentedIds,
  judgeRefusal,
  listedModel,
  PROMPT,
  postJob,
  references,
  table,
} from './support.ts';

// The equivalent name (`input_asset_ids` "or the equivalent `studio_asset_ids`") gets the same refusals
// as the first one (references.test.ts): counts, duplicates, long, unknown and foreign ids.
const [, ALT] = table.reference_fields as [string, string];

for (const id of documentedIds) {
  const r = table.models[id]!.references;
  if (!r.stated || r.accepted.length === 0) continue;
  group(id, () => {
    check(
      { ids: ['MJOB-010', 'MJOB-012', 'MJOB-014'], effect: 'write' },
      `${id}: refuses reference counts outside ${r.min} to ${r.max}, duplicates, long and unknown ids under \`${ALT}\``,
      async (t) => {
        const m = await listedModel(t, id);
        // A base job without references: each case sends them under the equivalent name only.
        const base = await baseJob(t, id, { ...m, references: { ...m.references, required: false } });
        const params = base.parameters as Record<string, unknown>;
        const refs = await references(t, m, (r.max ?? 1) + 1);
        const cases: Array<[string, string, unknown[], boolean]> = [
          ['MJOB-010', `${refs.length} references`, refs, true],
          ['MJOB-012', 'an id of 161 UTF-8 bytes', ['i'.repeat(161)], true],
          ['MJOB-012', 'an unknown id', [`in_conformance_unknown_${t.run.seed}`], false],
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
    await listedModel(t, id);
    const theirs = await upload(t, 'png-64x48.png', { as: 'other_tenant' });
    if (!theirs.id) return t.skip(`the other tenant's upload was answered ${theirs.res.status}`);
    const res = await postJob(t, {
      model: id,
      prompt: PROMPT,
      parameters: { [ACK]: true, [ALT]: [theirs.id] },
    });
    const msg = judgeRefusal(t, res, `${id}: another tenant's input under ${ALT}`, false);
    if (msg) t.violate('MIN-012', msg);
  },
);
