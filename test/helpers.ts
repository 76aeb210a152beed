import { existsSync, readFileSync } from 'node:fs';
import { CONTRACT_PATH, fold } from '../src/contract.ts';

export { CONTRACT_PATH };

/** The contract's text, whitespace folded; undefined when shared/ is not beside the checkout. */
export function contractText(): string | undefined {
  if (!existsSync(CONTRACT_PATH)) return undefined;
  return fold(readFileSync(CONTRACT_PATH, 'utf8'));
}

export { type CliRun, runCli } from '../tools/run-cli.ts';
export { fold };
