// Named seeded faults and conformant variants of the reference server. One is chosen per start;
// the code checks `ctx.fault === 'name'` / `isVariant(ctx, 'name')` (reach.ts) at the point of the deviation.
// Each entry lives in its area's file under reference/faults/ (see probe.ts for what an entry holds:
// its name, the ids it breaks or the readings it takes, its description, its probe and, where the
// deployment describes itself so, its patch of the live description); this file concatenates them.
// A fault's `breaks` lists the requirement ids that must catch it, and the matrix fails a row on any
// other id failing in those tests (specificity), so it also lists ids the fault legitimately implies
// (a reply breaking a stated rule usually breaks the target's own description too: RESP-00x); `level: 'implied'` faults break
// only an implied invariant and are caught only under --strict; `level: 'notable'` faults break a
// notable-level requirement (advisory verdicts, such as checks of an undocumented model's entry).

import { AUTH_FAULTS, AUTH_VARIANTS } from './faults/auth.ts';
import { GUARDS_FAULTS, GUARDS_VARIANTS } from './faults/guards.ts';
import { INFERENCE_FAULTS, INFERENCE_VARIANTS } from './faults/inference.ts';
import { MEDIA_FAULTS, MEDIA_VARIANTS } from './faults/media.ts';
import { OPENAPI_FAULTS, OPENAPI_VARIANTS } from './faults/openapi.ts';
import { PAYMENTS_FAULTS, PAYMENTS_VARIANTS } from './faults/payments.ts';
import { isPlaceFault, PLACE_FAULTS } from './faults/places.ts';
import { POINTS_FAULTS, POINTS_VARIANTS } from './faults/points.ts';
import type { Fault, Variant } from './faults/probe.ts';
import { RACE_FAULTS, RACE_VARIANTS } from './faults/race.ts';
import { SERVICE_FAULTS, SERVICE_VARIANTS } from './faults/service.ts';
import { TICKETS_FAULTS, TICKETS_VARIANTS } from './faults/tickets.ts';
import { TRANSPORT_FAULTS, TRANSPORT_VARIANTS } from './faults/transport.ts';

export type {
  Fault,
  OpenApiPatch,
  Probe,
  ProbeKit,
  ProbeReply,
  ProbeRequest,
  Variant,
} from './faults/probe.ts';

const HAND_WRITTEN = [
  ...AUTH_FAULTS,
  ...SERVICE_FAULTS,
  ...OPENAPI_FAULTS,
  ...POINTS_FAULTS,
  ...INFERENCE_FAULTS,
  ...TICKETS_FAULTS,
  ...PAYMENTS_FAULTS,
  ...GUARDS_FAULTS,
  ...MEDIA_FAULTS,
  ...TRANSPORT_FAULTS,
  ...RACE_FAULTS,
] as const;

/** The generated faults whose places no hand-written fault breaks already (the same places, exactly). */
function generatedOnly<F extends Fault>(hand: readonly Fault[], generated: readonly F[]): F[] {
  const key = (f: Fault) =>
    (f.places ?? [])
      .map((p) => `${p.id} @ ${p.place}`)
      .sort()
      .join(' | ');
  const taken = new Set(hand.filter((f) => f.places).map(key));
  return generated.filter((f) => !taken.has(key(f)));
}

// Then the generated ones, one per place of the applicability map the reference enforces through data.
const FAULT_LIST = [...HAND_WRITTEN, ...generatedOnly(HAND_WRITTEN, PLACE_FAULTS)] as const;

const VARIANT_LIST = [
  ...AUTH_VARIANTS,
  ...SERVICE_VARIANTS,
  ...OPENAPI_VARIANTS,
  ...POINTS_VARIANTS,
  ...INFERENCE_VARIANTS,
  ...TICKETS_VARIANTS,
  ...PAYMENTS_VARIANTS,
  ...GUARDS_VARIANTS,
  ...MEDIA_VARIANTS,
  ...TRANSPORT_VARIANTS,
  ...RACE_VARIANTS,
] as const;

export type FaultName = (typeof FAULT_LIST)[number]['name'];
export type VariantName = (typeof VARIANT_LIST)[number]['name'];

export const FAULTS: readonly Fault[] = FAULT_LIST;
export const VARIANTS: readonly Variant[] = VARIANT_LIST;

export function parseFault(name: string | undefined): FaultName | undefined {
  return pick(name, FAULT_LIST, 'fault');
}

export function parseVariant(name: string | undefined): VariantName | undefined {
  return pick(name, VARIANT_LIST, 'variant');
}

function pick<N extends string>(
  name: string | undefined,
  list: readonly { name: N }[],
  what: string,
): N | undefined {
  if (name === undefined || name === '') return undefined;
  const found = list.find((entry) => entry.name === name);
  if (!found) {
    // The generated place faults are named by pattern, not listed one by one.
    const names = list.map((e) => e.name).filter((n) => !isPlaceFault(n));
    const generated = list.length - names.length;
    throw new Error(
      `Unknown ${what} "${name}". Valid ${what}s: ${names.join(', ')}${generated ? `, and ${generated} generated place faults place:<ID>:<place> (npm run mutants -- --places lists them)` : ''}`,
    );
  }
  return found.name;
}
