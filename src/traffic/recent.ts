/**
 * A Map whose entries expire: each remembers when it was last set, by the clock of what is judged (a
 * log's own time), and `expire` drops those set before a moment. What keeps the sequence state of a
 * log followed for days bounded (follow.ts `--window`). Until `track` gives it a clock it is a plain Map.
 */
export class Recent<K, V> extends Map<K, V> {
  /** When each key was last set, oldest first (a key set again moves to the end). */
  private readonly setAt = new Map<K, number>();

  private clock: (() => number) | undefined;

  /** From now on, remember when each key is set, by `clock`. */
  track(clock: () => number): void {
    this.clock = clock;
  }

  override set(key: K, value: V): this {
    if (this.clock && this.setAt) {
      this.setAt.delete(key);
      this.setAt.set(key, this.clock());
    }
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.setAt?.delete(key);
    return super.delete(key);
  }

  /** Forget every entry last set before `before` (ms); returns how many were dropped. */
  expire(before: number): number {
    let dropped = 0;
    for (const [key, at] of this.setAt) {
      if (at >= before) break;
      this.delete(key);
      dropped++;
    }
    return dropped;
  }
}
