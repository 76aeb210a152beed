/**
 * A set of fixed-width windows of text, kept as hashes in typed arrays: the redactor's tables of key
 * fragments. Why not a Map of strings: a capture may hold thousands of keys, each with some 500 windows,
 * and a string and a map entry a window cost about 20-30 kB a key in every redacting thread; a slot
 * here costs 4 or 12 bytes. And a lookup hashes the characters where they are, without cutting a
 * string out of the text.
 *
 * What a hash may get wrong, and why it is safe: a window of a key always has the same hash, so a key's
 * fragment is never missed; only a window that is not a fragment can be taken for one when its hash
 * collides. With `exact` (64 bits, the fragments that are masked) that takes about 2^-64 a lookup, from
 * seeds drawn per table, so no text can be written to collide on purpose; without (32 bits, the anchors
 * that only say where to look closer) a collision costs one closer look, nothing more.
 */
import { randomFillSync } from 'node:crypto';

/** The largest share of slots in use before the table doubles (linear probing stays short). */
const MAX_LOAD = 0.75;
const FIRST_SLOTS = 1 << 10;
/** Multipliers of the two hashes (odd: each step is a bijection of the state, given the character). */
const M1 = 0x01000193;
const M2 = 0x5bd1e995;

export class WindowTable {
  /** Per slot: the hash (0: empty), then with `exact` its second word. */
  private keys: Uint32Array;
  /** Per slot, with `exact`: the value stored. */
  private values: Uint32Array | undefined;
  private mask: number;
  private used = 0;
  private readonly seeds = randomFillSync(new Uint32Array(2));
  /** The second word of the last hash computed (hash() returns the first). */
  private second = 0;

  /** Windows of `width` characters; `exact`: 64-bit hashes and a value each (else 32 bits, no value). */
  constructor(
    readonly width: number,
    private readonly exact: boolean,
  ) {
    this.mask = FIRST_SLOTS - 1;
    this.keys = new Uint32Array(FIRST_SLOTS * (exact ? 2 : 1));
    this.values = exact ? new Uint32Array(FIRST_SLOTS) : undefined;
  }

  /** How many windows are held. */
  get size(): number {
    return this.used;
  }

  /** Add the window of `s` at `at` with `value` (a uint32), unless held: then it keeps its value. */
  add(s: string, at: number, value = 0): void {
    const h = this.hash(s, at);
    const h2 = this.second;
    if (this.find(h, h2) >= 0) return;
    if ((this.used + 1) / (this.mask + 1) > MAX_LOAD) this.grow();
    this.place(h, h2, value);
    this.used++;
  }

  /** Whether the window of `s` at `at` is held. */
  has(s: string, at: number): boolean {
    return this.find(this.hash(s, at), this.second) >= 0;
  }

  /** The value of the window of `s` at `at`, or -1 when it is not held (only with `exact`). */
  get(s: string, at: number): number {
    const slot = this.find(this.hash(s, at), this.second);
    return slot < 0 ? -1 : this.values![slot]!;
  }

  /** The window's first hash word (never 0); its second is left in `second`. */
  private hash(s: string, at: number): number {
    let a = this.seeds[0]!;
    let b = this.seeds[1]!;
    for (let j = at, end = at + this.width; j < end; j++) {
      const c = s.charCodeAt(j);
      a = Math.imul(a ^ c, M1);
      b = Math.imul(b ^ c, M2);
    }
    this.second = fmix(b);
    return fmix(a) || 1;
  }

  private find(h: number, h2: number): number {
    const { keys, mask } = this;
    if (this.exact) {
      for (let i = h & mask; ; i = (i + 1) & mask) {
        const k = keys[2 * i]!;
        if (k === 0) return -1;
        if (k === h && keys[2 * i + 1] === h2) return i;
      }
    }
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = keys[i]!;
      if (k === 0) return -1;
      if (k === h) return i;
    }
  }

  private place(h: number, h2: number, value: number): void {
    const { keys, mask } = this;
    if (this.exact) {
      let i = h & mask;
      while (keys[2 * i] !== 0) i = (i + 1) & mask;
      keys[2 * i] = h;
      keys[2 * i + 1] = h2;
      this.values![i] = value;
      return;
    }
    let i = h & mask;
    while (keys[i] !== 0) i = (i + 1) & mask;
    keys[i] = h;
  }

  private grow(): void {
    const { keys, values, exact } = this;
    const slots = (this.mask + 1) * 2;
    this.mask = slots - 1;
    this.keys = new Uint32Array(slots * (exact ? 2 : 1));
    this.values = exact ? new Uint32Array(slots) : undefined;
    const step = exact ? 2 : 1;
    for (let i = 0; i < keys.length; i += step) {
      const h = keys[i]!;
      if (h !== 0) this.place(h, exact ? keys[i + 1]! : 0, exact ? values![i / 2]! : 0);
    }
  }
}

/** MurmurHash3's finalizer: every bit of the state reaches the low bits that pick a slot. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
