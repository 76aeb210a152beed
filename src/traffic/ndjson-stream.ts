/**
 * An NDJSON exchange log read as a stream, line by line: memory is bounded by the longest line. Each
 * line becomes a HAR entry (formats.ts), the item the judging takes, numbered by its line; what cannot
 * be read is said with the file and line number and the rest is read. A last line cut short (no end of
 * line, and no JSON) is a truncated file, as a HAR that ends inside an entry is. `LineSplitter` is also
 * what `--follow` cuts a growing file with (follow.ts).
 */
import { createReadStream } from 'node:fs';
import type { HarItem } from './har-stream.ts';

/** A line's value read into a HAR entry (formats.ts), or why it cannot be (a line that is no JSON object). */
export type LineEntry = (value: unknown) => Record<string, unknown> | string;

const NEWLINE = 0x0a;

/** Cuts bytes into lines as they arrive; a line is kept until its end of line arrives. */
export class LineSplitter {
  private rest: Buffer[] = [];
  /** The line number of the next line handed out (1-based). */
  line = 1;

  /** The complete lines of this chunk (and what came before it), with their numbers. */
  push(chunk: Buffer): Array<{ n: number; text: string }> {
    const out: Array<{ n: number; text: string }> = [];
    let start = 0;
    for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, start)) {
      const part = chunk.subarray(start, i);
      const text = (this.rest.length ? Buffer.concat([...this.rest, part]) : part).toString('utf8');
      this.rest = [];
      out.push({ n: this.line++, text: text.endsWith('\r') ? text.slice(0, -1) : text });
      start = i + 1;
    }
    if (start < chunk.length) this.rest.push(Buffer.from(chunk.subarray(start)));
    return out;
  }

  /** What arrived after the last end of line (a line not ended yet), if anything but blanks. */
  pending(): { n: number; text: string } | undefined {
    const text = Buffer.concat(this.rest).toString('utf8');
    return text.trim() === '' ? undefined : { n: this.line, text };
  }

  /** Forget everything (a followed file was truncated or replaced: read again from its start). */
  reset(): void {
    this.rest = [];
    this.line = 1;
  }
}

/** One line of a log as the item the judging takes (blank lines are none). */
export function lineItem(file: string, n: number, text: string, entry: LineEntry): HarItem | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return {
      kind: 'problem',
      index: n,
      message: `${file}: line ${n} is not valid JSON (${(err as Error).message})`,
    };
  }
  let e: ReturnType<LineEntry>;
  try {
    e = entry(value);
  } catch (err) {
    // A line the reader could not make an entry of is that line's problem, never the rest of the log's.
    return {
      kind: 'problem',
      index: n,
      message: `${file}: line ${n} cannot be read (${(err as Error).message})`,
    };
  }
  if (typeof e === 'string') return { kind: 'problem', index: n, message: `${file}: line ${n} is ${e}` };
  return { kind: 'entry', index: n, unit: 'line', value: e };
}

/** The entries of one NDJSON log, in order; `read` hears how many bytes were read after each chunk. */
export async function* ndjsonItems(
  file: string,
  entry: LineEntry,
  read?: (bytes: number) => void,
): AsyncGenerator<HarItem> {
  const stream = createReadStream(file, { highWaterMark: 1 << 20 });
  const lines = new LineSplitter();
  let lastEnded = true;
  let sawAny = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const items: HarItem[] = [];
      for (const { n, text } of lines.push(chunk)) {
        const item = lineItem(file, n, text, entry);
        if (item) items.push(item);
      }
      if (chunk.length) lastEnded = chunk[chunk.length - 1] === NEWLINE;
      read?.(stream.bytesRead);
      sawAny ||= items.length > 0;
      yield* items;
    }
  } catch (err) {
    yield { kind: 'problem', message: `${file}: cannot be read (${(err as Error).message})` };
    return;
  }
  const last = lines.pending();
  if (last) {
    sawAny = true;
    const item = lineItem(file, last.n, last.text, entry);
    // A last line without its end of line that is JSON is whole (a writer that ends without a newline);
    // one that is not was cut: the file is truncated there.
    if (item?.kind === 'problem' && !lastEnded)
      yield {
        kind: 'problem',
        index: last.n,
        message: `${file}: truncated in line ${last.n} (the file ends inside it; it is not judged)`,
      };
    else if (item) yield item;
  }
  if (!sawAny) yield { kind: 'problem', message: `${file}: empty, no exchange in it` };
}
