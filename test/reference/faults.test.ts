import { describe, expect, test } from 'vitest';
import { FAULTS, startReference, VARIANTS } from '../../reference/start.ts';
import { referencePool } from './helpers.ts';
import { probe } from './probe-kit.ts';

const pool = referencePool();
// Short media stages keep the lifecycle probes quick; 40 ms still lets a poll see every stage.
const start = (opts: Parameters<typeof pool>[0] = {}) => pool({ mediaStepMs: 40, ...opts });

// Each entry of reference/faults/ carries its probe: true when its deviation is visible, false on the
// plain server.
describe('faults', () => {
  test('names are unique and each lists the requirements it breaks', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const fault of FAULTS) {
      expect(fault.description, fault.name).not.toBe('');
      expect(fault.breaks.length, fault.name).toBeGreaterThan(0);
      for (const id of fault.breaks) expect(id, fault.name).toMatch(/^[A-Z]+(-[A-Z]+)*-\d{3}$/);
    }
  });

  test.for(FAULTS.map((f) => f.name))('%s starts and shows its deviation', async (name) => {
    const fault = FAULTS.find((f) => f.name === name)!;
    expect(await probe(fault, await start({ fault: fault.name }))).toBe(true);
    expect(await probe(fault, await start())).toBe(false);
  });

  test('an unknown fault name is refused with the valid names', async () => {
    await expect(startReference({ fault: 'no-such-fault' })).rejects.toThrow(
      /Unknown fault "no-such-fault".*auth-query-key/,
    );
  });
});

describe('variants', () => {
  test('names are unique and distinct from fault names', () => {
    const names = VARIANTS.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(FAULTS.map((f) => f.name)).not.toContain(name);
  });

  test.for(VARIANTS.map((v) => v.name))('%s starts and shows its choice', async (name) => {
    const variant = VARIANTS.find((v) => v.name === name)!;
    expect(await probe(variant, await start({ variant: variant.name }))).toBe(true);
    expect(await probe(variant, await start())).toBe(false);
  });

  test('an unknown variant name is refused with the valid names', async () => {
    await expect(startReference({ variant: 'nope' })).rejects.toThrow(
      /Unknown variant "nope".*models-envelope/,
    );
  });
});
