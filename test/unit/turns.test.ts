/**
 * The turn of the files that run alone (src/runtime/turns.ts): none starts before the main thread says
 * every other file has ended, one holds the turn at a time (another thread's turn is a directory this
 * thread finds there), hooks that nest take the turn the thread already holds, and a stop or the bound
 * ends the wait with the reason the file's tests are not run. (That the serial files' exchanges follow
 * every other file's in a real run: test/run-control.test.ts.)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { reportFile } from '../../src/layout.ts';
import { leaveTurn, othersEnded, TURN_POLL_MS, takeTurn } from '../../src/runtime/turns.ts';

const dirOf = () => mkdtempSync(join(tmpdir(), 'gc-turns-'));
const turnDir = (dir: string) => join(reportFile(dir, 'turns'), 'turn');
const never = () => undefined;
const HOUR = 60 * 60 * 1000;

/** Whether `p` settles within `ms`, and with what. */
async function within<T>(p: Promise<T>, ms: number): Promise<{ settled: boolean; value?: T }> {
  const timer = sleep(ms).then(() => ({ settled: false }));
  return Promise.race([p.then((value) => ({ settled: true, value })), timer]);
}

describe('the turn of the files that run alone', () => {
  it('waits until every other file has ended, then holds the turn until the file gives it back', async () => {
    const dir = dirOf();
    const taking = takeTurn(dir, never, HOUR);
    expect((await within(taking, 20 * TURN_POLL_MS)).settled).toBe(false);
    othersEnded(dir);
    expect(await within(taking, 20 * TURN_POLL_MS)).toEqual({ settled: true, value: undefined });
    expect(existsSync(turnDir(dir))).toBe(true);
    leaveTurn(dir);
    expect(existsSync(turnDir(dir))).toBe(false);
  });

  it('one file at a time: while another thread holds the turn, the file waits for it', async () => {
    const dir = dirOf();
    othersEnded(dir);
    mkdirSync(turnDir(dir)); // another worker thread's turn
    const taking = takeTurn(dir, never, HOUR);
    expect((await within(taking, 20 * TURN_POLL_MS)).settled).toBe(false);
    rmSync(turnDir(dir), { recursive: true });
    expect(await within(taking, 20 * TURN_POLL_MS)).toEqual({ settled: true, value: undefined });
    leaveTurn(dir);
    expect(existsSync(turnDir(dir))).toBe(false);
  });

  it('hooks that nest take the turn the thread holds; it is given back after the outermost', async () => {
    const dir = dirOf();
    othersEnded(dir);
    expect(await takeTurn(dir, never, HOUR)).toBeUndefined();
    expect(await within(takeTurn(dir, never, HOUR), 5 * TURN_POLL_MS)).toEqual({
      settled: true,
      value: undefined,
    });
    leaveTurn(dir);
    expect(existsSync(turnDir(dir))).toBe(true);
    leaveTurn(dir);
    expect(existsSync(turnDir(dir))).toBe(false);
    // Nothing held: giving back does nothing (a file whose wait ended without the turn).
    mkdirSync(turnDir(dir));
    leaveTurn(dir);
    expect(existsSync(turnDir(dir))).toBe(true);
  });

  it('a stop ends the wait with its reason, and the bound with why the tests are not run', async () => {
    const dir = dirOf();
    let stop: string | undefined;
    const taking = takeTurn(dir, () => stop, HOUR);
    expect((await within(taking, 10 * TURN_POLL_MS)).settled).toBe(false);
    stop = 'the run was stopped (SIGINT)';
    expect(await within(taking, 20 * TURN_POLL_MS)).toEqual({ settled: true, value: stop });
    let clock = 0;
    const bounded = takeTurn(dir, never, 1000, () => {
      clock += 400;
      return clock;
    });
    expect(await within(bounded, 50 * TURN_POLL_MS)).toEqual({
      settled: true,
      value: expect.stringMatching(/^not run alone: the run's other files had not ended after 1 s/),
    });
    expect(existsSync(turnDir(dir))).toBe(false);
  });
});
