import { defineConfig } from 'vitest/config';

// The project's own tests (npm test). The conformance suites in suites/ run only through the CLI.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
