import { describe, expect, it } from 'vitest';
import type { Summary } from '../../src/report/summary.ts';
import { type Job, type MatrixRow, plainReading, readingDiffers } from '../../tools/mutation/matrix.ts';

// An implied fault's plain row read off its --strict run (tools/mutation/matrix.ts): --strict changes only
// the severity of a violation of level implied, so the reading keeps failures of level `failure` alone.
const job: Job = { kind: 'fault', name: 'f', strict: true, expected: ['B-001'] };
const strictRow: MatrixRow = {
  kind: 'fault',
  name: 'f',
  strict: true,
  expected: ['B-001'],
  failed: ['B-001'],
  advisory: [],
  collateral: [],
  status: 'killed',
  ok: true,
  ms: 5,
  groups: 1,
};
type V = { id: string; level: 'failure' | 'implied' | 'notable'; severity: 'failure' | 'advisory' };
const summaryOf = (tests: Array<{ outcome: string; violations: V[] }>, harness = 0): Summary =>
  ({
    counts: { failed: tests.filter((t) => t.outcome === 'failed').length, harness_error: harness },
    tests: tests.map((t) => ({
      ...t,
      violations: t.violations.map((v) => ({ ...v, message: 'm', count: 1 })),
    })),
  }) as unknown as Summary;

describe('plainReading: an implied fault without --strict, read off its --strict run', () => {
  it('shows the implied failures as advisory and fails nothing else', () => {
    const s = summaryOf([
      { outcome: 'failed', violations: [{ id: 'B-001', level: 'implied', severity: 'failure' }] },
      { outcome: 'advisory', violations: [{ id: 'C-001', level: 'notable', severity: 'advisory' }] },
    ]);
    const read = plainReading(strictRow, s, job);
    expect(read).toMatchObject({
      strict: false,
      failed: [],
      advisory: ['B-001', 'C-001'],
      status: 'advisory-only',
      ok: true,
    });
    expect(read.groups).toBe(1);
  });

  it('keeps a failure of level failure: the fault is no implied one (a false alarm without --strict)', () => {
    const s = summaryOf([
      {
        outcome: 'failed',
        violations: [
          { id: 'B-001', level: 'implied', severity: 'failure' },
          { id: 'D-001', level: 'failure', severity: 'failure' },
        ],
      },
    ]);
    expect(plainReading(strictRow, s, job)).toMatchObject({
      failed: ['D-001'],
      status: 'FALSE-ALARM',
      ok: false,
    });
  });

  it('says where a plain row that ran and its reading differ', () => {
    const s = summaryOf([
      { outcome: 'failed', violations: [{ id: 'B-001', level: 'implied', severity: 'failure' }] },
    ]);
    const read = plainReading(strictRow, s, job);
    expect(readingDiffers({ ...read }, read)).toBeUndefined();
    expect(readingDiffers({ ...read, failed: ['B-001'], status: 'FALSE-ALARM' }, read)).toMatch(
      /ran: FALSE-ALARM/,
    );
  });
});
