/**
 * Sets of fixed-width windows of text, kept as hashes in typed arrays: the redactor's tables of key
 * fragments (WindowTable) and of the anchors that say where to look for them (WindowFilter). Why not
 * Maps and Sets of strings: a capture may hold thousands of keys, each with some 500 windows, and a
 * string and an entry a window cost 20-30 kB a key in every redacting thread; here a fragment costs
 * 8 to 16 bytes and an anchor 2 to 4, and one copy serves every thread. And a lookup hashes the
 * characters where they are, without cutting a string out of the text.
 *
 * What a hash may get wrong, and why it is safe: a window of a key always has the same hash, so a key's
 * fragment is never missed; only a window that is not a fragment can be taken for one. A WindowTable
 * compares 56 bits, from seeds drawn per table: with n windows held, a lookup of a stranger errs with a
 * chance of n in 2^56 (2 million windows: once in 3.6e10 lookups), and no text can be written to collide
 * on purpose. A WindowFilter errs more often (about one window in 50 that is no anchor passes), and an
 * error costs one closer look in the table, nothing more.
 */
import { randomFillSync } from 'node:crypto';

/** The largest share of a table's slots in use before it doubles (linear probing stays short). */
const MAX_LOAD = 0.75;
const FIRST_SLOTS = 1 << 10;
/** A filter's bits per window held (two bits set each, in one word): about 2 % of strangers pass. */
const FILTER_BITS_PER_WINDOW = 16;
const FIRST_FILTER_BITS = 1 << 15;
/** Multipliers of the two hashes (odd: each step is a bijection of the state, given the characters). */
const M1 = 0x01000193;
const M2 = 0x5bd1e995;

/** The second word of the last hash computed (hashOf returns the first). */
let second = 0;

/**
 * The 64-bit hash of the `width` characters of `s` at `at`, from `seeds`: two chains over the characters
 * two at a time (16 bits each, so a pair is one 32-bit word), each word mixed at the end. Returns the
 * first word, never 0; the second is left in `second`.
 */
function hashOf(s: string, at: number, width: number, seeds: Uint32Array): number {
  let a = seeds[0]!;
  let b = seeds[1]!;
  const end = at + width;
  let j = at;
  for (; j + 1 < end; j += 2) {
    const c = s.charCodeAt(j) | (s.charCodeAt(j + 1) << 16);
    a = Math.imul(a ^ c, M1);
    b = Math.imul(b ^ c, M2);
  }
  if (j < end) {
    const c = s.charCodeAt(j);
    a = Math.imul(a ^ c, M1);
    b = Math.imul(b ^ c, M2);
  }
  second = fmix(b);
  return fmix(a) || 1;
}

/**
 * A table as another thread takes it over (WindowTable.share): its array is shared memory, read by
 * both and written by neither (the first `add` on either side copies it first).
 */
export interface SharedWindows {
  width: number;
  slots: Uint32Array;
  used: number;
  seeds: Uint32Array;
}

/**
 * Windows with a small value each (0 to 255), by hash: open addressing, linear probing. A slot is two
 * words, the hash's first and, in the second, 24 more of its bits beside the value: 56 bits compared, and
 * one place in memory read per lookup (the tables of thousands of keys are far larger than a cache).
 */
export class WindowTable {
  /** Per slot: the hash's first word (0: empty), then its second word's top 24 bits and the value. */
  private slots: Uint32Array = new Uint32Array(2 * FIRST_SLOTS);
  private mask = FIRST_SLOTS - 1;
  private used = 0;
  private seeds: Uint32Array = randomFillSync(new Uint32Array(2));
  /** The array is shared with another thread: copied before it is written. */
  private shared = false;

  constructor(readonly width: number) {}

  /** The same table in another thread, over the same memory: neither writes it again (see `add`). */
  static from(shared: SharedWindows): WindowTable {
    const t = new WindowTable(shared.width);
    t.slots = shared.slots;
    t.mask = shared.slots.length / 2 - 1;
    t.used = shared.used;
    t.seeds = shared.seeds;
    t.shared = true;
    return t;
  }

  /**
   * This table for another thread (WindowTable.from): its array moves to shared memory once, and from
   * now on each side copies it before it adds (a thread never reads a slot half written).
   */
  share(): SharedWindows {
    this.slots = toShared(this.slots);
    this.shared = true;
    const { width, slots, used, seeds } = this;
    return { width, slots, used, seeds };
  }

  /** How many windows are held. */
  get size(): number {
    return this.used;
  }

  /** Add the window of `s` at `at` with `value` (0 to 255), unless held: then it keeps its value. */
  add(s: string, at: number, value: number): void {
    const h = hashOf(s, at, this.width, this.seeds);
    const h2 = second & ~0xff;
    if (this.find(h, h2) >= 0) return;
    if (this.shared) {
      this.slots = this.slots.slice();
      this.shared = false;
    }
    if ((this.used + 1) / (this.mask + 1) > MAX_LOAD) this.grow();
    this.place(h, (h2 | (value & 0xff)) >>> 0);
    this.used++;
  }

  /** Whether the window of `s` at `at` is held. */
  has(s: string, at: number): boolean {
    return this.find(hashOf(s, at, this.width, this.seeds), second & ~0xff) >= 0;
  }

  /** The value of the window of `s` at `at`, or -1 when it is not held. */
  get(s: string, at: number): number {
    const slot = this.find(hashOf(s, at, this.width, this.seeds), second & ~0xff);
    return slot < 0 ? -1 : this.slots[2 * slot + 1]! & 0xff;
  }

  /** The slot of hash (h, h2: the second word's top 24 bits, the rest 0), or -1. */
  private find(h: number, h2: number): number {
    const { slots, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = slots[2 * i]!;
      if (k === 0) return -1;
      if (k === h && (slots[2 * i + 1]! & ~0xff) === h2) return i;
    }
  }

  private place(h: number, word: number): void {
    const { slots, mask } = this;
    let i = h & mask;
    while (slots[2 * i] !== 0) i = (i + 1) & mask;
    slots[2 * i] = h;
    slots[2 * i + 1] = word;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(2 * old.length);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.place(old[i]!, old[i + 1]!);
  }
}

/** A filter as another thread takes it over (WindowFilter.share), as SharedWindows are. */
export interface SharedFilter {
  width: number;
  bits: Uint32Array;
  added: number;
  seeds: Uint32Array;
}

/**
 * Whether a window may be held: a Bloom filter of two bits a window, both in one 32-bit word (one place
 * in memory a lookup). Never wrong about a window added; a stranger passes about once in 50 while it
 * holds at most `capacity` windows. It does not grow: its owner builds a larger one from what it knows
 * (`full`).
 */
export class WindowFilter {
  private bits: Uint32Array;
  private added = 0;
  private seeds: Uint32Array = randomFillSync(new Uint32Array(2));
  private shared = false;

  /** A filter for `capacity` windows of `width` characters. */
  constructor(
    readonly width: number,
    capacity = 0,
  ) {
    let n = FIRST_FILTER_BITS;
    while (n < capacity * FILTER_BITS_PER_WINDOW) n *= 2;
    this.bits = new Uint32Array(n / 32);
  }

  static from(shared: SharedFilter): WindowFilter {
    const f = new WindowFilter(shared.width);
    f.bits = shared.bits;
    f.added = shared.added;
    f.seeds = shared.seeds;
    f.shared = true;
    return f;
  }

  share(): SharedFilter {
    this.bits = toShared(this.bits);
    this.shared = true;
    const { width, bits, added, seeds } = this;
    return { width, bits, added, seeds };
  }

  /** How many windows were added (each time: a window added twice counts twice). */
  get size(): number {
    return this.added;
  }

  /** More windows were added than it was made for: strangers pass more often. */
  get full(): boolean {
    return this.added * FILTER_BITS_PER_WINDOW > this.bits.length * 32;
  }

  add(s: string, at: number): void {
    if (this.shared) {
      this.bits = this.bits.slice();
      this.shared = false;
    }
    const word = hashOf(s, at, this.width, this.seeds) & (this.bits.length - 1);
    this.bits[word]! |= (1 << (second & 31)) | (1 << ((second >>> 5) & 31));
    this.added++;
  }

  /** Whether the window of `s` at `at` may be held (surely, when it was added). */
  has(s: string, at: number): boolean {
    const word = hashOf(s, at, this.width, this.seeds) & (this.bits.length - 1);
    const both = (1 << (second & 31)) | (1 << ((second >>> 5) & 31));
    return (this.bits[word]! & both) === both;
  }
}

/** The same array over shared memory (a copy, once; an array already shared is returned). */
function toShared(a: Uint32Array): Uint32Array {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const copy = new Uint32Array(new SharedArrayBuffer(a.byteLength));
  copy.set(a);
  return copy;
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
