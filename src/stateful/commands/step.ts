/**
 * What every command shares: it counts itself in the model, and a clone per generated value (fast-check
 * clones commands that have a clone method), so that the names a command resolved while it ran (`input#2`)
 * belong to that run alone and the printed counterexample reads as the script that failed.
 */
import fc from 'fast-check';
import type { AccountModel } from '../account-state.ts';
import type { Real } from '../real.ts';

export abstract class Step implements fc.AsyncCommand<AccountModel, Real> {
  /** What the command acted on, as resolved when it ran (`input#2`); shown by toString. */
  protected target?: string;

  abstract check(m: Readonly<AccountModel>): boolean;

  async run(m: AccountModel, r: Real): Promise<void> {
    m.steps.push(this.constructor.name);
    await this.act(m, r);
  }

  protected abstract act(m: AccountModel, r: Real): Promise<void>;

  abstract toString(): string;

  [fc.cloneMethod](): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    Object.assign(copy, this);
    copy.target = undefined;
    return copy;
  }
}

/** `what` with the resolved target when the command ran, else its selector (`delete input (pick 3)`). */
export const named = (what: string, target: string | undefined, pick: number, kind: string): string =>
  target ? `${what} ${target}` : `${what} ${kind} (pick ${pick})`;
