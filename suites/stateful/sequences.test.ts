// Model-based tests: fast-check generates sequences of real operations (fc.commands), runs each from a
// fresh model of the account (fc.asyncModelRun) and checks the invariants after every command. A failure
// prints the shrunk command list with the seed and path that replay it.
// @conformance start-early 1
import { check } from '../../src/suite/index.ts';
import { modelBasedTest } from './support.ts';

check(
  { ids: ['MIN-008', 'MIN-009', 'BAL-003', 'PTS-006'], effect: 'write' },
  'keeps the account invariants through random sequences of uploads, replays, deletes and reads',
  async (t) => {
    await modelBasedTest(t, 'free');
  },
);

check(
  {
    ids: [
      'MIN-008',
      'MIN-009',
      'MIN-010',
      'MJOB-001',
      'MJOB-003',
      'MJOB-021',
      'MJOB-024',
      'MJOB-025',
      'MASSET-001',
      'BAL-003',
    ],
    effect: 'billable',
  },
  'keeps the account invariants through random sequences of uploads, media jobs, replays, deletes and downloads',
  async (t) => {
    await modelBasedTest(t, 'billable');
  },
);
