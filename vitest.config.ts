import { defineConfig } from 'vitest/config';
import StartEarlyFirst from './test/support/sequencer.ts';
import { HANG_BOUND_MS } from './tools/bounds.ts';

// The project's own tests (npm test). The conformance suites in suites/ run only through the CLI.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A bound on a hung test or hook only: no test may fail because the machine is slow.
    testTimeout: HANG_BOUND_MS,
    hookTimeout: HANG_BOUND_MS,
    // vitest's default on 2 cores is one file at a time; most files here mostly wait (child processes,
    // servers, timers), so three run at once: the mutation matrix (which spreads its own rows over the
    // cores) starts first and the other files run beside it.
    maxWorkers: 3,
    // A worker keeps the modules it loaded from one test file to the next (none of these tests leaves
    // state behind: each starts its own servers and report directories): loading and JIT-warming the
    // same modules again for each of the ~80 files cost half the CPU of the unit tests (37.9 -> 18.6
    // CPU-s) and a fifth of the in-process reference tests' (224 -> 176), measured with and without.
    isolate: false,
    sequence: { sequencer: StartEarlyFirst },
    // Every temporary file of the run under one directory, removed at its end (test/support/tmp-dir.ts).
    globalSetup: ['./test/support/tmp-dir.ts'],
    reporters: ['default', './test/support/plain-reporter.ts'],
  },
});
