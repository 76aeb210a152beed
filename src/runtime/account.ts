/**
 * The account a test speaks for as `primary`: the primary account, or, for the tests of the serial files
 * the run moved beside the other files (src/app/suites.ts balanceChecks, RunConfig.isolatedFiles), the
 * isolated account. The test's key, its account lock, whether its balance may move under other traffic
 * (CheckContext) and whether it runs alone in its file (check()) follow from it.
 */
import { relative, sep } from 'node:path';
import { PKG_ROOT } from '../paths.ts';
import type { Role } from '../vocabulary.ts';

export type AccountRole = Extract<Role, 'primary' | 'isolated'>;

/** The files whose tests compare balances or state that other traffic may move (src/app/suite-hints.ts). */
export const SERIAL_FILE = /\.serial\.test\.ts$/;

/** The path of `file` (absolute, or from the package root) from the package root, with `/`. */
const own = (file: string) => relative(PKG_ROOT, file).split(sep).join('/');

/**
 * Whether the tests of `file` run alone, after every other file of the run (runtime/turns.ts): a serial
 * file the run did not move beside the others on the isolated account.
 */
export function runsAlone(file: string, isolatedFiles: readonly string[] | undefined): boolean {
  return SERIAL_FILE.test(file) && !isolatedFiles?.includes(own(file));
}

/** The account of the tests of `file` (absolute, or from the package root) in a run that moved `isolatedFiles`. */
export function accountOf(file: string, isolatedFiles: readonly string[] | undefined): AccountRole {
  return isolatedFiles?.includes(own(file)) ? 'isolated' : 'primary';
}
