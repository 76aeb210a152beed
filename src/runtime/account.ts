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

/** The account of the tests of `file` (absolute, or from the package root) in a run that moved `isolatedFiles`. */
export function accountOf(file: string, isolatedFiles: readonly string[] | undefined): AccountRole {
  const own = relative(PKG_ROOT, file).split(sep).join('/');
  return isolatedFiles?.includes(own) ? 'isolated' : 'primary';
}
