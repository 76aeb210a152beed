import { defineConfig } from 'vitest/config';

// The project's own tests (npm test). The conformance suites in suites/ run only through the CLI.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/plain-reporter.ts'],
  },
});
