/**
 * Nothing a target says is obeyed: the one neutraliser of what a target controls (error messages and
 * codes, model ids, statuses, header values, descriptions) on its way to a console line, and the guard
 * every console line passes. Why both: a value shown escaped cannot start a line of its own (its line
 * breaks are escaped) nor drive the terminal (cursor moves, OSC hyperlinks and titles); the line guard
 * makes sure no line, whatever it holds, reads as a CI workflow command: GitHub Actions obeys `::cmd::`
 * at the start of a line (after leading white space) and `##[cmd]` anywhere in it.
 */

import type { Redactor } from '../http/redact.ts';

/** C0 and C1 controls, DEL, and the Unicode format characters that reorder or break lines. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escaped(ch: string): string {
  const c = ch.charCodeAt(0);
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  return c <= 0xff ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`;
}

/**
 * Multi-line text the target controls, inert in a document (the HTML report): line breaks and tabs kept,
 * every other control character, bidi override and line separator shown escaped.
 */
export function inertLines(value: string): string {
  return value.replace(CONTROL, (ch) => ('\n\t\r'.includes(ch) ? ch : escaped(ch)));
}

/** The GitHub Actions v1 command mark, obeyed anywhere in a line (and Azure's `##vso[`). */
const HASH_COMMAND = /##(?=(?:vso)?\[)/gi;

/**
 * A value the target controls, inert on one console line: every control character and so every escape
 * sequence shown escaped (`\x1b`, `\n`, `\u202e`), and `##[` shown as `#\x23[`.
 */
export function inert(value: unknown): string {
  const s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return s.replace(CONTROL, escaped).replace(HASH_COMMAND, '#\\x23');
}

/**
 * The suite's own sequences (progress.ts: `paint`'s colours, the live line's carriage return and erase):
 * the only ones a console line keeps.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const OWN_SGR = /\u001b\[(?:0|1|2|31|32|33)m|\r\u001b\[2K/y;
/** A leading `::`, after white space and the suite's own colours. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const LEADING_COMMAND = /^(\s*(?:\u001b\[\d+m\s*)*):(?=:)/;

/**
 * Text as it may reach stdout or stderr, line by line: controls shown escaped but the line breaks and the
 * suite's own colours, and no line that a CI reads as a command (a leading `::` shown as `\x3a:`, every
 * `##[` as `#\x23[`).
 */
export function consoleText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let out = '';
      for (let i = 0; i < line.length; ) {
        OWN_SGR.lastIndex = i;
        const own = OWN_SGR.exec(line);
        if (own) {
          out += own[0];
          i += own[0].length;
          continue;
        }
        const ch = line[i]!;
        out += ch === '\t' ? ch : ch.replace(CONTROL, escaped);
        i++;
      }
      return out.replace(HASH_COMMAND, '#\\x23').replace(LEADING_COMMAND, '$1\\x3a');
    })
    .join('\n');
}

/**
 * Redact everything written to stdout and stderr until the returned function is called, and pass it
 * through the console guard (no line a CI obeys). Why at the stream: vitest's reporter and the worker
 * logs it relays write there, outside the report's own paths.
 */
export function redactConsole(redactor: Redactor): () => void {
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((s) => s.write);
  for (const [i, stream] of streams.entries()) {
    const original = originals[i]!;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text =
        typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : chunk;
      return (original as (...a: unknown[]) => boolean).call(
        stream,
        typeof text === 'string' ? consoleText(redactor.text(text)) : text,
        ...rest,
      );
    }) as typeof stream.write;
  }
  return () => {
    for (const [i, stream] of streams.entries()) stream.write = originals[i]!;
  };
}
