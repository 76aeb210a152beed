import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pointerOf, walkFields } from '../../src/checks/json.ts';
import { kindOfName } from '../../src/checks/leak-names.ts';
import { isCreditsName, isPointsName, replyFields } from '../../src/checks/reply-fields.ts';

/** The model: walkFields' order, each field the three checks look for by name. */
function model(json: unknown): Array<[string, string, unknown]> {
  const out: Array<[string, string, unknown]> = [];
  walkFields(json, (name, value, _parent, path) => {
    if (isPointsName(name) || isCreditsName(name) || kindOfName(name) !== null)
      out.push([name, pointerOf(path), value]);
  });
  return out;
}

const NAMES = [
  'total_points',
  'charged_points',
  'old_credits',
  'upstream_key',
  'node',
  'served_by',
  'id',
  'a/b~c',
  'data',
];
const named = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie('value'), { maxKeys: 5 }),
  ),
}));

describe("a reply's named fields, found in one walk (src/checks/reply-fields.ts)", () => {
  it('are the fields walkFields finds by those names, in its order, with their pointers and parents', () => {
    fc.assert(
      fc.property(named.value, (json) => {
        const got = replyFields(json);
        expect(got.map((f) => [f.name, f.pointer, f.value])).toEqual(model(json));
        for (const f of got) expect(f.parent[f.name]).toBe(f.value);
      }),
      { numRuns: 500 },
    );
  });

  it('walks a body once for the checks of one exchange, and each new body anew', () => {
    const a = { usage: { total_points: '1' } };
    const b = { usage: { total_points: '1' } };
    expect(replyFields(a)).toBe(replyFields(a));
    expect(replyFields(b)).not.toBe(replyFields(a));
    expect(replyFields(b).map((f) => f.pointer)).toEqual(['/usage/total_points']);
  });
});
