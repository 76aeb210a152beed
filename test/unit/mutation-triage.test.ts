import { describe, expect, it } from 'vitest';
import { aliveIn, killedSoFar } from '../../tools/mutation/staged.ts';
import { carriedForward, lineMap, triage, unionOf } from '../../tools/mutation-triage.ts';

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

  it('maps the lines unchanged between two sources, and only those', () => {
    expect([...lineMap('a\nb\nc\nd', 'a\nx\nb\nd\ny')]).toEqual([
      [1, 1],
      [2, 3],
      [4, 4],
    ]);
  });

  it('carries an earlier run onto the current source: unchanged lines keep their status, re-run lines take the new one', () => {
    const earlier = report(['Killed', 'Survived', 'Survived']);
    // Now: a line inserted on top (everything moves down by one), the second line changed and re-run.
    const current = {
      files: {
        'reference/x.ts': {
          source: '// new\na > b\nc - d + 0\nctx.fault === "f"\n',
          mutants: [
            {
              id: '9',
              mutatorName: 'ArithmeticOperator',
              replacement: 'c + d + 0',
              status: 'Killed',
              location: at(3),
            },
          ],
        },
      },
    };
    const { report: carried, uncovered } = carriedForward(earlier, current);
    const mutants = carried.files['reference/x.ts']!.mutants;
    expect(mutants.map((m) => [m.location.start.line, m.mutatorName, m.status])).toEqual([
      [2, 'EqualityOperator', 'Killed'],
      [3, 'ArithmeticOperator', 'Killed'],
      [4, 'BooleanLiteral', 'Survived'],
    ]);
    // The earlier mutant of the changed line is dropped (c + d is no longer there); the new comment
    // line is changed and no mutant covers it: listed for review.
    expect(uncovered).toEqual(['reference/x.ts:1']);
  });

  it('counts a mutant the ignorer left out (a fault or variant switch) with the switches, never as to triage', () => {
    const { counts, rows } = triage(report(['Killed', 'Survived', 'Ignored']));
    expect(counts).toMatchObject({ Killed: 1, Survived: 1, Ignored: 1, switch: 1 });
    expect(rows.map((r) => r.line)).toEqual([2]);
  });
});

describe('staged StrykerJS runs: a later stage runs the survivors so far (tools/mutation/staged.ts)', () => {
  it("hands StrykerJS's incremental mode the killed and timed-out mutants only, with each file's source", () => {
    const r = report(['Survived', 'Killed', 'NoCoverage']);
    r.files['reference/x.ts'].mutants.push(
      { id: '3', mutatorName: 'StringLiteral', replacement: '""', status: 'Timeout', location: at(1) },
      { id: '4', mutatorName: 'StringLiteral', replacement: '""', status: 'Ignored', location: at(2) },
    );
    const killed = killedSoFar(r);
    expect(killed.files['reference/x.ts']!.mutants.map((m) => [m.id, m.status])).toEqual([
      ['1', 'Killed'],
      ['3', 'Timeout'],
    ]);
    expect(killed.files['reference/x.ts']!.source).toBe(r.files['reference/x.ts'].source);
    // The report given is not changed, and its survivors (covered or not) are what the next stage runs.
    expect(r.files['reference/x.ts'].mutants).toHaveLength(5);
    expect(aliveIn(r)).toBe(2);
    expect(aliveIn(killed)).toBe(0);
  });
});
