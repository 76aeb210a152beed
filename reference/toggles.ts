/**
 * The one fault and/or variant a reference server is started with (and the recorder of where the
 * variants' branches are reached). Its own leaf module, not state.ts: reach.ts reads it and state.ts calls
 * reach.ts, so with the type in state.ts the two imported each other (reach.ts <-> state.ts); here both
 * import it and it imports only the fault table's names.
 */
import type { FaultName, VariantName } from './faults.ts';
import type { TablePatch } from './patch.ts';

export interface Toggles {
  fault?: FaultName;
  variant?: VariantName;
  /** The fault's patch of the tables the reference enforces (reference/patch.ts), resolved at start. */
  patch?: TablePatch;
  /** Where the variants' branches are reached (reference/reach.ts), when the starter records it. */
  reach?: { note(name: VariantName): void };
}
