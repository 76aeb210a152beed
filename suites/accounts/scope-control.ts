import type { Role } from '../../src/suite/index.ts';

/**
 * The control of a restricted key's refusals outside its scope, where its scope has no read of its own:
 * a call of the same key inside its scope accepted in the run (CheckContext.standBeside / showAccepted).
 */
export const insideScope = (role: Role): string => `inside-scope:${role}`;
