/**
 * Sets of fixed-width windows of text, kept as hashes in typed arrays: the redactor's tables of key
 * fragments (WindowTable) and of the anchors that say where to look for them (WindowFilter). Why not
 * Maps and Sets of strings: a capture may hold thousands of keys, each with some 500 windows, and a
 * string and an entry a window cost 20-30 kB a key in every redacting thread; here a fragment costs
 * 8 to 16 bytes and an anchor 2 to 4, and one copy serves every thread. And a lookup hashes the
 * characters where they are, without cutting a string out of the text.
 *
 * What a hash may get wrong, and why it is safe: a window of a key always has the same hash, so a key's
 * fragment is never missed; only a window that is not a fragment can be taken for one, and masked. A
 * WindowTable compares 56 bits, from seeds drawn per table: with n windows held, a lookup of a window
 * that is no fragment errs with a chance of about n in 2^56 (2 million windows: once in 3.6e10
 * lookups). The hash is fast, not keyed against an adversary: a text made to collide with a key's run
 * (flipping the top bit of two of its characters does, whatever the seeds) is masked as the run would
 * be. Only a target that knows the key can make one, and it masks no more than echoing the key does.
 * A WindowFilter errs more often (about one window in 50 that is no anchor passes), and an error costs
 * one closer look in the table, nothing more.
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
 * Windows as another thread takes them over (share, then WindowTable.from or WindowFilter.from): the
 * array is shared memory, read by both sides and written by neither (each copies it before it writes).
 */
export interface SharedWindows {
  width: number;
  words: Uint32Array;
  count: number;
  seeds: Uint32Array;
}

/** What a table and a filter share: their words, their seeds, and how they are handed to a thread. */
abstract class Windows {
  protected words: Uint32Array;
  /** The windows added (a table: held, each once; a filter: added, each time). */
  protected count = 0;
  protected seeds: Uint32Array = randomFillSync(new Uint32Array(2));
  /** The words are shared with another thread: copied before they are written. */
  private shared = false;

  constructor(
    readonly width: number,
    words: number,
  ) {
    this.words = new Uint32Array(words);
  }

  /** How many windows are held (a filter: were added, a window added twice counted twice). */
  get size(): number {
    return this.count;
  }

  /**
   * These windows for another thread: the words move to shared memory once, and from now on each side
   * copies them before it writes (a thread never reads a word half written).
   */
  share(): SharedWindows {
    if (!(this.words.buffer instanceof SharedArrayBuffer)) {
      const words = new Uint32Array(new SharedArrayBuffer(this.words.byteLength));
      words.set(this.words);
      this.words = words;
    }
    this.shared = true;
    const { width, words, count, seeds } = this;
    return { width, words, count, seeds };
  }

  /** Take over what another side shared. */
  protected adopt(shared: SharedWindows): this {
    this.words = shared.words;
    this.count = shared.count;
    this.seeds = shared.seeds;
    this.shared = true;
    return this;
  }

  /** Before a write: the words are this side's own. */
  protected own(): void {
    if (!this.shared) return;
    this.words = this.words.slice();
    this.shared = false;
  }
}

/**
 * Windows with a small value each (0 to 255), by hash: open addressing, linear probing. A slot is two
 * words, the hash's first and, in the second, 24 more of its bits beside the value: 56 bits compared, and
 * one place in memory read per lookup (the tables of thousands of keys are far larger than a cache).
 * Per slot: the hash's first word (0: empty), then its second word's top 24 bits and the value.
 */
export class WindowTable extends Windows {
  private mask = FIRST_SLOTS - 1;

  constructor(width: number) {
    super(width, 2 * FIRST_SLOTS);
  }

  /** The same table in another thread, over the same memory. */
  static from(shared: SharedWindows): WindowTable {
    const t = new WindowTable(shared.width).adopt(shared);
    t.mask = shared.words.length / 2 - 1;
    return t;
  }

  /** Room for `more` windows (fewer when some are held already) without growing while they are added. */
  reserve(more: number): void {
    const fits = () => (this.count + more) / (this.mask + 1) <= MAX_LOAD;
    if (fits()) return;
    this.own();
    while (!fits()) this.grow();
  }

  /** Add the window of `s` at `at` with `value` (0 to 255), unless held: then it keeps its value. */
  add(s: string, at: number, value: number): void {
    const h = hashOf(s, at, this.width, this.seeds);
    const h2 = second & ~0xff;
    if (this.find(h, h2) >= 0) return;
    this.own();
    if ((this.count + 1) / (this.mask + 1) > MAX_LOAD) this.grow();
    this.place(h, (h2 | (value & 0xff)) >>> 0);
    this.count++;
  }

  /** Whether the window of `s` at `at` is held. */
  has(s: string, at: number): boolean {
    return this.find(hashOf(s, at, this.width, this.seeds), second & ~0xff) >= 0;
  }

  /** The value of the window of `s` at `at`, or -1 when it is not held. */
  get(s: string, at: number): number {
    const slot = this.find(hashOf(s, at, this.width, this.seeds), second & ~0xff);
    return slot < 0 ? -1 : this.words[2 * slot + 1]! & 0xff;
  }

  /** The slot of hash (h, h2: the second word's top 24 bits, the rest 0), or -1. */
  private find(h: number, h2: number): number {
    const { words, mask } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const k = words[2 * i]!;
      if (k === 0) return -1;
      if (k === h && (words[2 * i + 1]! & ~0xff) === h2) return i;
    }
  }

  private place(h: number, word: number): void {
    const { words, mask } = this;
    let i = h & mask;
    while (words[2 * i] !== 0) i = (i + 1) & mask;
    words[2 * i] = h;
    words[2 * i + 1] = word;
  }

  private grow(): void {
    const old = this.words;
    this.words = new Uint32Array(2 * old.length);
    this.mask = old.length - 1;
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0) this.place(old[i]!, old[i + 1]!);
  }
}

/**
 * Whether a window may be held: a Bloom filter of two bits a window, both in one 32-bit word (one place
 * in memory a lookup). Never wrong about a window added; a stranger passes about once in 50 while it
 * holds at most `capacity` windows. It does not grow: its owner builds a larger one from what it knows
 * (`fits`).
 */
export class WindowFilter extends Windows {
  /** A filter for `capacity` windows of `width` characters. */
  constructor(width: number, capacity = 0) {
    let bits = FIRST_FILTER_BITS;
    while (bits < capacity * FILTER_BITS_PER_WINDOW) bits *= 2;
    super(width, bits / 32);
  }

  /** The same filter in another thread, over the same memory. */
  static from(shared: SharedWindows): WindowFilter {
    return new WindowFilter(shared.width).adopt(shared);
  }

  /** Whether `more` windows added stay within what it was made for (past it, strangers pass more often). */
  fits(more: number): boolean {
    return (this.count + more) * FILTER_BITS_PER_WINDOW <= this.words.length * 32;
  }

  add(s: string, at: number): void {
    this.own();
    const word = hashOf(s, at, this.width, this.seeds) & (this.words.length - 1);
    this.words[word]! |= (1 << (second & 31)) | (1 << ((second >>> 5) & 31));
    this.count++;
  }

  /** Whether the window of `s` at `at` may be held (surely, when it was added). */
  has(s: string, at: number): boolean {
    const word = hashOf(s, at, this.width, this.seeds) & (this.words.length - 1);
    const both = (1 << (second & 31)) | (1 << ((second >>> 5) & 31));
    return (this.words[word]! & both) === both;
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
