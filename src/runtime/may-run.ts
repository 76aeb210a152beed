/**
 * Whether a conformance test may run at all, before its body starts: the test's declaration (side-effect
 * class, roles, capabilities) against the facts of the run (what the target allows, the keys it has, a
 * stop, the budget, a dry run). Pure: the facts that live in files (a stop, a budget refusal) come in as
 * functions the caller reads them with, asked only when the earlier reasons let the test through.
 */
import { envRoleName } from '../config/targets.ts';
import type { Effect, NotRunCause, Role } from '../vocabulary.ts';
import type { BudgetRefusal } from './budget.ts';

/** What of a test's declaration decides whether it may run. */
export interface Applies {
  effect: Effect;
  roles?: Role[];
  capabilities?: string[];
}

/** The facts of the run a test's applicability is judged against. */
export interface RunFacts {
  target: { name: string; allow: readonly Effect[]; capabilities: readonly string[] };
  /** Whether a role has a key in this run. */
  hasRole: (role: Role) => boolean;
  /** Why the run was asked to stop, if it was (read when asked). */
  stopReason: () => string | undefined;
  /** Why the budget or the balance refuses billable work now, if it does (read when asked). */
  budgetRefusal: () => BudgetRefusal | undefined;
  dryRun: boolean;
}

/** Why a test is not run: the reason it shows, its typed cause, and the marks its record carries. */
export interface NotApplicable {
  reason: string;
  cause: NotRunCause;
  /** The budget or the account's balance could not pay for it (TestRecord.unpaid). */
  unpaid?: true;
  /** Dry run: it would have run (TestRecord.planned). */
  planned?: true;
}

export const BUDGET_REMEDY =
  'raise --budget-points (or CONFORMANCE_BUDGET_POINTS, budget_points in the targets file; unlimited for none)';

/** Not run for want of points: one cause per ground (its subject), with the remedy. */
export const budgetCause = (subject: string, remedy = BUDGET_REMEDY): NotRunCause => ({
  kind: 'budget',
  subject,
  remedy,
});

/** A role without a key: the variable that would give it one. */
export function roleCause(role: Role): NotRunCause {
  return {
    kind: 'role',
    subject: role,
    remedy: `set ${envRoleName(role)} (or keys.${role} in the targets file, naming the variable that holds its key)`,
  };
}

/**
 * The first reason the test may not run, in this order: its side-effect class is not allowed, a role
 * it needs has no key, a capability it needs is not declared, the run was asked to stop, the budget
 * refuses billable work, a dry run (it would run). Undefined: the test runs.
 */
export function notApplicable(spec: Applies, facts: RunFacts): NotApplicable | undefined {
  const { target } = facts;
  if (!target.allow.includes(spec.effect))
    return {
      reason: `side-effect class '${spec.effect}' is not allowed for target '${target.name}' (allowed: ${target.allow.join(', ')})`,
      cause: {
        kind: 'class',
        subject: spec.effect,
        remedy: `allow it with --allow ${[...target.allow, spec.effect].join(',')} (or CONFORMANCE_ALLOW, allow: in the targets file)`,
      },
    };
  for (const role of spec.roles ?? [])
    if (!facts.hasRole(role))
      return {
        reason: `role '${role}' is not configured for target '${target.name}'`,
        cause: roleCause(role),
      };
  for (const cap of spec.capabilities ?? [])
    if (!target.capabilities.includes(cap))
      return {
        reason: `capability '${cap}' is not declared for target '${target.name}'`,
        cause: {
          kind: 'capability',
          subject: cap,
          remedy: `declare it in capabilities: of the targets file if the target offers the hook '${cap}'`,
        },
      };
  const stop = facts.stopReason();
  if (stop) return { reason: stop, cause: { kind: 'stopped', subject: stop } };
  if (spec.effect === 'billable') {
    const refused = facts.budgetRefusal();
    if (refused)
      return { reason: refused.reason, cause: budgetCause(refused.subject, refused.remedy), unpaid: true };
  }
  if (facts.dryRun)
    return { reason: 'dry run: would run', cause: { kind: 'dry_run', subject: 'would run' }, planned: true };
  return undefined;
}
