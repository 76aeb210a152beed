/**
 * A HAR file read as a stream: each entry of `log.entries` is cut out of the bytes as they arrive and
 * parsed alone, so a capture of any size is judged in memory bounded by its largest entry. Why no
 * streaming-JSON dependency: the file's shape is fixed (`{"log": {..., "entries": [...]}}`), so the
 * reader only has to track strings and nesting to find where each entry starts and ends; every entry is
 * then parsed by JSON.parse, which also names what is wrong with a broken one. Why bytes, not text: the
 * characters that delimit JSON are ASCII, and no byte of a multi-byte UTF-8 character is, so the reader
 * decodes only the entries it parses, and jumps over strings (most of a capture: its bodies) with
 * Buffer.indexOf instead of reading them character by character.
 */
import { createReadStream, statSync } from 'node:fs';

export type HarItem =
  /** `unit`: what `index` counts (a HAR's entries from 0, an NDJSON log's lines from 1). */
  | { kind: 'entry'; index: number; value: unknown; unit?: 'entry' | 'line' }
  /** An entry's JSON text, not yet parsed (harTexts; parseEntry parses it). */
  | {
      kind: 'text';
      index: number;
      text: string;
      /** Where the entry's bytes stand in the file: [from, to) (harTexts; a HarPlan keeps them). */
      from?: number;
      to?: number;
      /** A long `text` member's value was left out of `text` (harTexts' `cut`): the bytes hold it. */
      cut?: true;
      /**
       * Where each value left out stands in the file, [from, to) pairs in order (harTexts' `cut` with
       * places only): cutText makes the entry's text without them from its bytes.
       */
      cuts?: number[];
    }
  /** An entry that could not be read (index set), or the file as a whole (not HAR, truncated). */
  | { kind: 'problem'; index?: number; message: string };

const OPEN_OBJ = 0x7b; // {
const CLOSE_OBJ = 0x7d; // }
const OPEN_ARR = 0x5b; // [
const CLOSE_ARR = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
/** Bytes of a string read one by one before the reader jumps (Buffer.indexOf costs a call). */
const SHORT_STRING = 64;

/**
 * The entries of one HAR file, in order, with what could not be read said where it was found; `read`
 * hears how many bytes of the file were read after each chunk.
 */
export async function* harItems(
  file: string,
  read?: (bytes: number) => void,
): AsyncGenerator<Exclude<HarItem, { kind: 'text' }>> {
  for await (const item of harTexts(file, read))
    yield item.kind === 'text' ? parseEntry(file, item.index, item.text) : item;
}

/**
 * harItems with each entry's JSON text not parsed (where another thread parses it). Given `cut`, the
 * value of a `text` member (a body) of at least `cut` bytes is left out of the entry's text, an empty
 * string in its place, and the item says `cut`: for a reader that needs no body (a first pass), most of
 * a capture is then neither decoded nor parsed. A value that straddles two chunks of the file, or a key
 * written with escapes, is kept. With places only (`texts` false), the item says where the values left
 * out stand (`cuts`), for the thread that reads the bytes to leave them out alike (cutText).
 */
export async function* harTexts(
  file: string,
  read?: (bytes: number) => void,
  cut?: number,
  /** false: each entry's place only ([from, to), `text` empty), for threads that read the bytes. */
  texts = true,
): AsyncGenerator<Exclude<HarItem, { kind: 'entry' }>> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  /** 'o' object or 'a' array, per level; the key under which each object level's current value sits. */
  const stack: Array<'o' | 'a'> = [];
  const keys: string[] = [];
  let expectKey = false;
  let inString = false;
  let escaped = false;
  let keyText: string | undefined;
  /** The current entry's bytes read so far (undefined: not in an entry). */
  let entryParts: Buffer[] | undefined;
  /** Where the entry's bytes not yet in entryParts start in this chunk; where the entry starts in the file. */
  let pieceStart = 0;
  let entryFrom = 0;
  /** `cut`: where the values left out of the current entry stand in the file (cutText leaves them out). */
  let entryCuts: number[] = [];
  /** `cut`: the key just opened is `text`; its value is next; where that value's string opens here. */
  let textKey = false;
  let textValue = false;
  let valueAt = -1;
  let index = 0;
  let sawEntries = false;
  let started = false;
  let offset = 0;
  // log.entries is an array (HAR 1.2): an object there holds no entries.
  const inEntries = () =>
    stack.length === 3 && stack[2] === 'a' && keys[0] === 'log' && keys[1] === 'entries';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const items: Array<Exclude<HarItem, { kind: 'entry' }>> = [];
      // The next quote and backslash at or after the scan (-1: not looked up yet in this chunk).
      let nextQuote = -1;
      let nextSlash = -1;
      for (let i = 0; i < chunk.length; i++) {
        if (inString && !escaped && keyText === undefined) {
          // A string's content, up to its closing quote, an escape skipped with the byte it escapes. A
          // short run of plain bytes is read directly; past that (a body), the scan jumps to the next
          // quote or backslash.
          const len = chunk.length;
          let j = i;
          /** Where the string closes in this chunk (-1: not here). */
          let end = -1;
          for (;;) {
            const stop = Math.min(len, j + SHORT_STRING);
            while (j < stop && chunk[j] !== QUOTE && chunk[j] !== BACKSLASH) j++;
            if (j === stop && stop < len) {
              if (nextQuote < j) nextQuote = indexOr(chunk, QUOTE, j);
              if (nextSlash < j) nextSlash = indexOr(chunk, BACKSLASH, j);
              j = Math.min(nextQuote, nextSlash);
            }
            if (j >= len) break;
            if (chunk[j] === QUOTE) {
              end = j;
              break;
            }
            j += 2;
          }
          // An escape that goes on into the next chunk: its byte is skipped there.
          if (end < 0) escaped = j > len;
          i = end < 0 ? len : end;
          if (end >= 0) {
            inString = false;
            if (valueAt >= 0) {
              // A `text` value: left out when long (its quotes kept, so the entry stays JSON).
              if (end - valueAt > cut!) entryCuts.push(offset + valueAt + 1, offset + end);
              valueAt = -1;
            } else if (textKey) {
              textKey = false;
              textValue = true;
            }
          }
          continue;
        }
        const c = chunk[i]!;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) {
            inString = false;
            if (keyText !== undefined) {
              keys[stack.length - 1] = keyText;
              keyText = undefined;
            }
          } else if (keyText !== undefined) keyText += String.fromCharCode(c);
          continue;
        }
        if (c <= 0x20) continue;
        if (textValue && c !== COLON) {
          textValue = false;
          if (c === QUOTE) valueAt = i;
        }
        if (!started) {
          started = true;
          if (c !== OPEN_OBJ) {
            yield {
              kind: 'problem',
              message: `${file}: not a HAR file (it does not start with a JSON object)`,
            };
            return;
          }
        }
        if (c === QUOTE) {
          inString = true;
          // Keys matter only on the way to log.entries; deeper keys are not kept.
          if (expectKey && stack.length <= 2) keyText = '';
          else if (cut !== undefined && expectKey && entryParts !== undefined) textKey = isTextKey(chunk, i);
          expectKey = false;
        } else if (c === OPEN_OBJ || c === OPEN_ARR) {
          if (inEntries() && c === OPEN_OBJ && entryParts === undefined) {
            entryParts = [];
            pieceStart = i;
            entryFrom = offset + i;
            entryCuts = [];
          }
          stack.push(c === OPEN_OBJ ? 'o' : 'a');
          if (inEntries()) sawEntries = true;
          expectKey = c === OPEN_OBJ;
        } else if (c === CLOSE_OBJ || c === CLOSE_ARR) {
          const top = stack.pop();
          if (top !== (c === CLOSE_OBJ ? 'o' : 'a')) {
            yield {
              kind: 'problem',
              message: `${file}: not valid JSON at byte ${offset + i}: an unexpected '${String.fromCharCode(c)}'; what follows is not read`,
            };
            return;
          }
          keys.length = stack.length;
          expectKey = false;
          if (entryParts !== undefined && inEntries()) {
            const to = offset + i + 1;
            const cutOut = entryCuts.length > 0;
            let text = '';
            if (texts) {
              entryParts.push(chunk.subarray(pieceStart, i + 1));
              const bytes = entryParts.length === 1 ? entryParts[0]! : Buffer.concat(entryParts);
              text = cutOut ? cutText(bytes, entryFrom, entryFrom, to, entryCuts) : bytes.toString('utf8');
            }
            items.push({
              kind: 'text',
              index: index++,
              text,
              from: entryFrom,
              to,
              ...(cutOut ? { cut: true as const } : {}),
              ...(cutOut && !texts ? { cuts: entryCuts } : {}),
            });
            entryParts = undefined;
          }
        } else if (c === COMMA) {
          expectKey = stack[stack.length - 1] === 'o';
        } else if (inEntries() && entryParts === undefined && c !== COLON) {
          // A scalar where an entry should be: consume it as a broken entry.
          items.push({
            kind: 'problem',
            index: index++,
            message: `${file}: entry ${index - 1} is not a JSON object`,
          });
          while (i + 1 < chunk.length && chunk[i + 1] !== COMMA && chunk[i + 1] !== CLOSE_ARR) i++;
        }
      }
      if (entryParts !== undefined && texts) {
        entryParts.push(chunk.subarray(pieceStart));
        pieceStart = 0;
      }
      // A value that goes on into the next chunk is kept whole.
      valueAt = -1;
      offset += chunk.length;
      // Bytes read so far: what a progress line measures against the file's size.
      read?.(stream.bytesRead);
      yield* items;
    }
  } catch (err) {
    yield { kind: 'problem', message: `${file}: cannot be read (${(err as Error).message})` };
    return;
  }
  if (!started) yield { kind: 'problem', message: `${file}: empty, not a HAR file` };
  else if (stack.length > 0)
    yield {
      kind: 'problem',
      ...(entryParts !== undefined ? { index } : {}),
      message: `${file}: truncated after ${offset} bytes${entryParts !== undefined ? ` (entry ${index} is incomplete and not judged)` : ''}`,
    };
  else if (!sawEntries) yield { kind: 'problem', message: `${file}: not a HAR file (no log.entries array)` };
}

/**
 * The text of an entry whose bytes [from, to) of a file stand in `bytes` from file offset `base`, without
 * the values harTexts left out (`cuts`): the text harTexts with `cut` makes of it. Each piece ends and
 * starts at a quote, so no UTF-8 character is split.
 */
export function cutText(
  bytes: Buffer,
  base: number,
  from: number,
  to: number,
  cuts: readonly number[],
): string {
  let text = '';
  let at = from;
  for (let k = 0; k < cuts.length; k += 2) {
    text += bytes.toString('utf8', at - base, cuts[k]! - base);
    at = cuts[k + 1]!;
  }
  return text + bytes.toString('utf8', at - base, to - base);
}

/** Whether the string that opens at `at` is `"text"` (read within this chunk only). */
function isTextKey(chunk: Buffer, at: number): boolean {
  return (
    at + 5 < chunk.length &&
    chunk[at + 1] === 0x74 &&
    chunk[at + 2] === 0x65 &&
    chunk[at + 3] === 0x78 &&
    chunk[at + 4] === 0x74 &&
    chunk[at + 5] === QUOTE
  );
}

/** Where byte `what` occurs in `b` from `from` on, or `b.length` when it does not. */
function indexOr(b: Buffer, what: number, from: number): number {
  const at = b.indexOf(what, from);
  return at < 0 ? b.length : at;
}

/** An entry's JSON text parsed, or why it is not JSON (said with the file and the entry's index). */
export function parseEntry(file: string, index: number, text: string): Exclude<HarItem, { kind: 'text' }> {
  try {
    return { kind: 'entry', index, value: JSON.parse(text) };
  } catch (err) {
    return {
      kind: 'problem',
      index,
      message: `${file}: entry ${index} is not valid JSON (${(err as Error).message})`,
    };
  }
}

/**
 * What a first reading of a HAR file found, in order: where each entry's bytes stand, and the problems
 * between them. A second reading (harPlanned) cuts the entries out at those places instead of reading
 * the file's structure again. Kept in a typed array: 24 bytes an entry, whatever its size.
 */
export class HarPlan {
  /** Per item: from, to, index of an entry; or -1, the problem's position in `problems`, 0. */
  private spans = new Float64Array(3 * 1024);
  private count = 0;
  private readonly problems: Array<Exclude<HarItem, { kind: 'entry' | 'text' }>> = [];

  constructor(
    readonly file: string,
    /** The file's size and modification time when read: a file changed since is read anew. */
    readonly stamp: string,
  ) {}

  get length(): number {
    return this.count;
  }

  add(item: Exclude<HarItem, { kind: 'entry' }>): void {
    if (this.count * 3 === this.spans.length) {
      const more = new Float64Array(this.spans.length * 2);
      more.set(this.spans);
      this.spans = more;
    }
    const at = this.count++ * 3;
    if (item.kind === 'text' && item.from !== undefined && item.to !== undefined) {
      this.spans[at] = item.from;
      this.spans[at + 1] = item.to;
      this.spans[at + 2] = item.index;
    } else {
      this.spans[at] = -1;
      this.spans[at + 1] = this.problems.length;
      this.problems.push(item.kind === 'problem' ? item : { kind: 'problem', message: 'no place' });
    }
  }

  /** Item `k`: an entry's place ([from, to) and index), or a problem. */
  item(
    k: number,
  ): { from: number; to: number; index: number } | Exclude<HarItem, { kind: 'entry' | 'text' }> {
    const at = k * 3;
    const from = this.spans[at]!;
    if (from < 0) return this.problems[this.spans[at + 1]!]!;
    return { from, to: this.spans[at + 1]!, index: this.spans[at + 2]! };
  }
}

/** The size and modification time of a file, as a HarPlan is stamped with. */
export function fileStamp(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.size} ${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * The items of a file as its HarPlan says (harTexts' items, in the same order), each entry's text cut out
 * at its place. When the file no longer matches the plan's stamp, it is read anew with harTexts.
 */
export async function* harPlanned(
  plan: HarPlan,
  read?: (bytes: number) => void,
): AsyncGenerator<Exclude<HarItem, { kind: 'entry' }>> {
  if (fileStamp(plan.file) !== plan.stamp) {
    yield* harTexts(plan.file, read);
    return;
  }
  const stream = createReadStream(plan.file, { highWaterMark: 1 << 20 });
  let offset = 0;
  let k = 0;
  let parts: Buffer[] = [];
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const end = offset + chunk.length;
      const items: Array<Exclude<HarItem, { kind: 'entry' }>> = [];
      for (; k < plan.length; k++) {
        const it = plan.item(k);
        if ('kind' in it) {
          items.push(it);
          continue;
        }
        if (it.from >= end) break;
        const piece = chunk.subarray(Math.max(it.from - offset, 0), Math.min(it.to, end) - offset);
        if (it.to > end) {
          parts.push(piece);
          break;
        }
        parts.push(piece);
        const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
        parts = [];
        items.push({ kind: 'text', index: it.index, text: bytes.toString('utf8') });
      }
      offset = end;
      read?.(stream.bytesRead);
      yield* items;
    }
  } catch (err) {
    yield { kind: 'problem', message: `${plan.file}: cannot be read (${(err as Error).message})` };
    return;
  }
  for (; k < plan.length; k++) {
    const it = plan.item(k);
    if ('kind' in it) yield it;
  }
}

/**
 * The items of a HarPlan without reading the entries: each entry's place ([from, to), `text` empty), for
 * threads that read the bytes they judge (entryTexts). `read` hears each place's end as bytes read.
 */
export function* harPlaces(
  plan: HarPlan,
  read?: (bytes: number) => void,
): Generator<Exclude<HarItem, { kind: 'entry' }>> {
  for (let k = 0; k < plan.length; k++) {
    const it = plan.item(k);
    if ('kind' in it) {
      yield it;
      continue;
    }
    read?.(it.to);
    yield { kind: 'text', index: it.index, text: '', from: it.from, to: it.to };
  }
}
