import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors.ts';
import { ModelViolation } from '../../src/stateful/real.ts';
import { type Host, runModel, type Step, splitPath } from '../../src/stateful/runner.ts';

/** A counter the model expects to add up, and a real one that silently stops at 9. */
interface Model {
  n: number;
  steps: string[];
}
interface Real {
  n: number;
}

class Add implements Step<Model, Real> {
  constructor(readonly by: number) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    m.steps.push('Add');
    m.n += this.by;
    r.n = Math.min(9, r.n + this.by);
    if (r.n !== m.n)
      throw new ModelViolation({
        id: 'GEN-001',
        message: `the counter reads ${r.n}, not ${m.n}`,
        received: r.n,
      });
  }
  toString(): string {
    return `add ${this.by}`;
  }
}

class Boom implements Step<Model, Real> {
  check(): boolean {
    return true;
  }
  async run(): Promise<void> {
    throw new Error('harness broke');
  }
  toString(): string {
    return 'boom';
  }
}

function host(path?: string) {
  const violations: Array<{ id: string; message: string; extra?: Record<string, unknown> }> = [];
  const h: Host = {
    title: 'GEN-001 counts (a test)',
    run: { seed: 1234, ...(path ? { path } : {}) },
    target: { embedded: true },
    violate: (id, message, extra) => void violations.push({ id, message, ...(extra ? { extra } : {}) }),
  };
  return { h, violations };
}

const spec = (commands: fc.Arbitrary<Step<Model, Real>>, runs = 30) => ({
  commands,
  setup: async () => ({ model: { n: 0, steps: [] }, real: { n: 0 } }),
  steps: (m: Model) => m.steps,
  runs,
  maxCommands: 12,
  timeLimitMs: 10_000,
});

const adds = fc.integer({ min: 1, max: 5 }).map((n) => new Add(n));

describe('runModel', () => {
  it('reports one violation for the shrunk command list, with the seed and the path that replay it', async () => {
    const { h, violations } = host();
    const result = await runModel(h, spec(adds));
    expect(result.failed).toBe(true);
    expect(violations).toHaveLength(1);
    const [v] = violations;
    expect(v!.id).toBe('GEN-001');
    expect(v!.message).toMatch(/after the commands \(1\) add \d \(2\) add \d/);
    expect(v!.message).toContain('seed 1234');
    const path = /--path '([^']+)'/.exec(v!.message)?.[1];
    expect(path).toMatch(/^\d+(:\d+)*(@.+)?$/);
    expect(v!.message).toContain("--filter 'GEN-001 counts \\(a test\\)'");

    // The printed path replays exactly that case: one run, the same script.
    const again = host(path);
    const replay = await runModel(again.h, spec(adds));
    expect(replay.failed).toBe(true);
    expect(replay.runs).toBe(1);
    const script = (m: string) => /after the commands (.*); found/.exec(m)?.[1];
    expect(script(again.violations[0]!.message)).toBe(script(v!.message));
  });

  it('tells setup the index of the run, and the index of the failing run to its shrinks and replays', async () => {
    const seen: number[] = [];
    const indexed = (path?: string) => {
      const base = spec(adds);
      return {
        h: host(path),
        spec: {
          ...base,
          setup: async (run: number) => {
            seen.push(run);
            return base.setup();
          },
        },
      };
    };
    const first = indexed();
    const result = await runModel(first.h.h, first.spec);
    const failingRun = result.runs - 1;
    expect(seen.slice(0, result.runs)).toEqual([...Array(result.runs).keys()]);
    expect(new Set(seen.slice(result.runs))).toEqual(new Set(result.shrinks > 0 ? [failingRun] : []));
    const path = /--path '([^']+)'/.exec(first.h.violations[0]!.message)?.[1];
    seen.length = 0;
    const again = indexed(path);
    await runModel(again.h.h, again.spec);
    expect(new Set(seen)).toEqual(new Set([failingRun]));
  });

  it('counts generated runs and their commands, shrink runs aside', async () => {
    const small = fc.constant(new Add(0));
    const { h, violations } = host();
    const result = await runModel(h, spec(small, 7));
    expect(violations).toEqual([]);
    expect(result.runs).toBe(7);
    expect(result.average).toBe(result.commands / 7);
  });

  it('raises an error that is not a violation after fast-check, and sends nothing more', async () => {
    const { h, violations } = host();
    let runs = 0;
    const counting = { ...spec(fc.constant(new Boom()) as fc.Arbitrary<Step<Model, Real>>), runs: 20 };
    const setup = counting.setup;
    counting.setup = async () => {
      runs += 1;
      return setup();
    };
    await expect(runModel(h, counting)).rejects.toThrow('harness broke');
    expect(violations).toEqual([]);
    expect(runs).toBeLessThanOrEqual(2);
  });

  it('a run broken by a stop of the run ends as the stop (not run), never as a harness error', async () => {
    const { h, violations } = host();
    class Stopped extends Error {}
    let stopped = false;
    h.haltIfStopped = () => {
      if (stopped) throw new Stopped('the target stopped answering');
    };
    // Before a stop, what the command throws is raised as it is (a harness error of the test)...
    await expect(
      runModel(h, spec(fc.constant(new Boom()) as fc.Arbitrary<Step<Model, Real>>)),
    ).rejects.toThrow('harness broke');
    // ... after one, the stop is raised instead.
    stopped = true;
    await expect(
      runModel(h, spec(fc.constant(new Boom()) as fc.Arbitrary<Step<Model, Real>>)),
    ).rejects.toBeInstanceOf(Stopped);
    // A transport failure stays the target's, stop or not.
    class Lost implements Step<Model, Real> {
      check = () => true;
      async run(): Promise<void> {
        throw new TransportError('GET /v1/balance: other side closed [UND_ERR_SOCKET]', 'UND_ERR_SOCKET');
      }
      toString = () => 'lost';
    }
    await expect(
      runModel(h, spec(fc.constant(new Lost()) as fc.Arbitrary<Step<Model, Real>>)),
    ).rejects.toBeInstanceOf(TransportError);
    expect(violations).toEqual([]);
  });

  it('says when a --path names no case of the test', async () => {
    const { h } = host('3:9:9:9:9:9');
    const result = await runModel(h, spec(adds));
    expect(result.notApplicable).toContain('--path 3:9:9:9:9:9');
  });

  it('splits a printed path into the fast-check path and the replay path of the commands', () => {
    expect(splitPath('12:0:3@AAB:C')).toEqual({ path: '12:0:3', replayPath: 'AAB:C' });
    expect(splitPath('4')).toEqual({ path: '4' });
    expect(splitPath(undefined)).toEqual({});
  });
});
