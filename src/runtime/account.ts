/**
 * The account a test speaks for as `primary`: the primary account, or, for the balance checks the run
 * moved beside the other files (src/app/suites.ts balanceChecks), the isolated account. Its project
 * names it through vitest's provided context; the test's key, its account lock and whether its balance
 * may move under other traffic follow from it (CheckContext).
 */
import type { Role } from '../vocabulary.ts';

export type AccountRole = Extract<Role, 'primary' | 'isolated'>;

/** The key of vitest's provided context that names a project's account (`provide` of its config). */
export const ACCOUNT_PROVIDED = 'conformanceAccount';
