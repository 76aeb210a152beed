import { readFileSync } from 'node:fs';
import type { TargetConfig } from '../config/targets.ts';

/** What the CLI hands to the test workers (through a file named in CONFORMANCE_RUN_FILE). No secret values. */
export interface RunConfig {
  target: TargetConfig;
  strict: boolean;
  reportDir: string;
  exchangesFile: string;
  suiteVersion: string;
  /** fast-check seed of the run (printed in every property failure; --seed replays it). */
  seed: number;
  /** Runs per property test. */
  propertyRuns: number;
  /** The live description as fetched once by the CLI. */
  openapi?: { file: string; sha256: string; valid: boolean; errors: string[] };
}

export const RUN_FILE_ENV = 'CONFORMANCE_RUN_FILE';

let cached: RunConfig | undefined;

export function runConfig(): RunConfig {
  if (!cached) {
    const file = process.env[RUN_FILE_ENV];
    if (!file) {
      throw new Error(
        `${RUN_FILE_ENV} is not set: run the suites through the CLI (npm run conformance), not with vitest directly`,
      );
    }
    cached = JSON.parse(readFileSync(file, 'utf8')) as RunConfig;
  }
  return cached;
}
