import { describe, expect, it } from 'vitest';
import { triage, unionOf } from '../../tools/mutation-triage.ts';

const at = (line: number) => ({ start: { line, column: 1 }, end: { line, column: 5 } });
const report = (statuses: string[]) => ({
  files: {
    'reference/x.ts': {
      source: 'a > b\nc + d\nctx.fault === "f"\n',
      mutants: [
        {
          id: '0',
          mutatorName: 'EqualityOperator',
          replacement: 'a >= b',
          status: statuses[0]!,
          location: at(1),
        },
        {
          id: '1',
          mutatorName: 'ArithmeticOperator',
          replacement: 'c - d',
          status: statuses[1]!,
          location: at(2),
        },
        {
          id: '2',
          mutatorName: 'BooleanLiteral',
          replacement: 'true',
          status: statuses[2]!,
          location: at(3),
        },
      ],
    },
  },
});

describe('StrykerJS reports of parts of the suite, united (tools/mutation-triage.ts)', () => {
  it('kills a mutant that one part killed, keeps a survivor that every part let through', () => {
    const united = unionOf([
      report(['Survived', 'Survived', 'Survived']),
      report(['Killed', 'Survived', 'Timeout']),
    ]);
    expect(united.files['reference/x.ts']!.mutants.map((m) => m.status)).toEqual([
      'Killed',
      'Survived',
      'Timeout',
    ]);
    const { counts, rows } = triage(united);
    expect(counts).toMatchObject({ Killed: 1, Survived: 1, Timeout: 1 });
    expect(rows.map((r) => [r.line, r.reason])).toEqual([[2, 'to triage']]);
  });

  it('matches mutants by place and mutation, not by id', () => {
    const other = report(['Killed', 'Survived', 'Survived']);
    other.files['reference/x.ts'].mutants[0]!.id = '41';
    expect(
      unionOf([report(['Survived', 'Survived', 'Survived']), other]).files['reference/x.ts']!.mutants[0]!
        .status,
    ).toBe('Killed');
  });
});
