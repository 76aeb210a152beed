// StrykerJS (the mutation engine) over the reference server's modules, with the suite as the test: a
// mutant of the reference that the suite, run against it, does not fail survives. Not part of .ci/run
// (minutes per module): `npm run mutation-engine -- --mutate reference/billing.ts` (docs/mutation-matrix.md "Mutation
// engine"). The command runner activates each mutant through __STRYKER_ACTIVE_MUTANT__, which reaches the
// embedded reference (it runs in the CLI's process); the suite is narrowed to the files that reach the
// module by STRYKER_SUITES (default: the billing suites). Each run writes its own report directory
// (the shell's pid): runs at once sharing one were refused since the report directory has one owner,
// and before that, one run's workers could read another's run.json and judge that run's reference (its
// mutant): the media run of 46dfcec counted survivors and kills that were the other runner's.
const suites = process.env.STRYKER_SUITES ?? 'points,balance,chat,responses,embeddings,stateful,accounts';
// The suite's worker threads per run (tools/mutation/staged.ts sets 1: two runs at once on two cores).
const workers = process.env.STRYKER_WORKERS ? ` --workers ${Number(process.env.STRYKER_WORKERS)}` : '';

export default {
  testRunner: 'command',
  commandRunner: {
    command: `node bin/gateway-conformance.mjs --suite ${suites} --strict${workers} --report-dir .stryker-tmp/report-$$`,
  },
  mutate: ['reference/billing.ts'],
  // Fault and variant switches are not mutated (tools/mutation/stryker-ignorer.mjs says why).
  plugins: ['@stryker-mutator/*', './tools/mutation/stryker-ignorer.mjs'],
  ignorers: ['fault-switch'],
  coverageAnalysis: 'off',
  concurrency: 2,
  timeoutMS: 180000,
  reporters: ['clear-text', 'json', 'progress'],
  jsonReporter: { fileName: process.env.STRYKER_JSON ?? 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  ignorePatterns: ['reports', '.stryker-tmp', 'bench'],
};
