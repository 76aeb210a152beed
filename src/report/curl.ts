/**
 * The curl command that repeats a recorded request, as the HTML report shows it beside an exchange: the
 * redacted credentials become shell variables, everything else is quoted for a POSIX shell.
 */
import type { Exchange, RecordedBody } from '../http/client.ts';
import type { Summary } from './summary.ts';

const REDACTED = /\[REDACTED(?::([A-Za-z0-9_]+))?\]/g;

/** The environment variable that holds a role's key (CONFORMANCE_API_KEY for primary). */
export function keyVariable(role?: string): string {
  return !role || role === 'primary' ? 'CONFORMANCE_API_KEY' : `CONFORMANCE_KEY_${role.toUpperCase()}`;
}

/** Single-quoted shell word. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

interface CurlContext {
  vars: Set<string>;
  unlabeled: boolean;
}

/** A shell word for s where every redaction marker becomes a variable reference ("$CONFORMANCE_API_KEY"). */
function shellWord(s: string, ctx: CurlContext): string {
  const parts: Array<{ lit: string } | { v: string }> = [];
  let last = 0;
  for (const m of s.matchAll(REDACTED)) {
    if (m.index > last) parts.push({ lit: s.slice(last, m.index) });
    const v = keyVariable(m[1]);
    if (!m[1]) ctx.unlabeled = true;
    ctx.vars.add(v);
    parts.push({ v });
    last = m.index + m[0].length;
  }
  if (parts.length === 0) return shellQuote(s);
  if (last < s.length) parts.push({ lit: s.slice(last) });
  // One double-quoted word when the literal parts need no escaping there; else concatenated pieces.
  if (parts.every((p) => !('lit' in p) || !/[$`"\\!\n]/.test(p.lit))) {
    let out = '';
    parts.forEach((p, i) => {
      if ('lit' in p) out += p.lit;
      else {
        const next = parts[i + 1];
        out += next && 'lit' in next && /^[A-Za-z0-9_]/.test(next.lit) ? `\${${p.v}}` : `$${p.v}`;
      }
    });
    return `"${out}"`;
  }
  return parts.map((p) => ('lit' in p ? shellQuote(p.lit) : `"$${p.v}"`)).join('');
}

function isTextBody(body: RecordedBody): boolean {
  const mt = body.contentType?.split(';')[0]?.trim().toLowerCase();
  return (
    body.preview !== undefined &&
    (!mt || mt === 'application/json' || mt.endsWith('+json') || mt.startsWith('text/') || mt.includes('xml'))
  );
}

/** The target of a run as the curl commands need it: its URL, and whether it was the embedded reference. */
export type CurlTarget = Pick<Summary['target'], 'baseUrl' | 'embedded'>;

/**
 * A curl command that repeats a recorded request: the key comes from $CONFORMANCE_API_KEY (other roles
 * from $CONFORMANCE_KEY_<ROLE>) wherever the record shows a redacted credential; every other part is
 * quoted for a POSIX shell. Notes say where the command cannot be exact.
 */
export function curlCommand(ex: Exchange, target: CurlTarget): { command: string; notes: string[] } {
  const ctx: CurlContext = { vars: new Set(), unlabeled: false };
  const notes: string[] = [];
  const url = target.baseUrl.replace(/\/+$/, '') + ex.path;
  const body = ex.requestBody;
  const hasText = !!body && body.bytes > 0 && isTextBody(body);
  const method = ex.method.toUpperCase();
  const args: string[] = ['curl -sS -i'];
  if (method === 'HEAD') args[0] += ' --head';
  else if (method !== 'GET' || (body && body.bytes > 0))
    args[0] += ` -X ${shellQuote(method).replace(/^'([A-Z]+)'$/, '$1')}`;
  if (/[[\]{}]/.test(url.replace(REDACTED, ''))) args[0] += ' --globoff';
  args.push(shellWord(url, ctx));
  for (const [name, value] of Object.entries(ex.requestHeaders))
    args.push(`-H ${shellWord(`${name}: ${value}`, ctx)}`);
  if (body && body.bytes > 0) {
    if (hasText) {
      let text = body.preview!;
      if (text.endsWith('…') && Buffer.byteLength(text) - Buffer.byteLength('…') < body.bytes) {
        text = text.slice(0, -1);
        notes.push(
          `The record keeps only the first ${Buffer.byteLength(text)} of the body's ${body.bytes} bytes; the command sends that prefix (sha256 of the full body: ${body.sha256}).`,
        );
      }
      args.push(`--data-binary ${shellWord(text, ctx)}`);
    } else {
      notes.push(
        `The request had a ${body.contentType ? `${body.contentType} ` : ''}body of ${body.bytes} bytes (sha256 ${body.sha256}) that the report does not keep (binary or multipart): add it with --data-binary @FILE.`,
      );
    }
  }
  if (target.embedded)
    notes.push(
      'The embedded reference stopped with the run: start one with `npm run reference` and put its URL (and keys) in place.',
    );
  if (ctx.unlabeled)
    notes.push(
      'A probe credential (truncated, altered or foreign) was redacted: $CONFORMANCE_API_KEY stands in for it.',
    );
  const others = [...ctx.vars].filter((v) => v !== 'CONFORMANCE_API_KEY');
  if (others.length)
    notes.push(
      `Set ${others.join(', ')} to the key${others.length > 1 ? 's of those roles' : ' of that role'}.`,
    );
  return { command: args.join(' \\\n  '), notes };
}
