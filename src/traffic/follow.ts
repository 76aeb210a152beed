/**
 * `check-traffic --follow LOG.ndjson`: judge an NDJSON exchange log (the suite's own or the gateway line
 * format) as it grows, as `tail -f` reads it. Each new complete line is judged when it arrives, by the
 * one code path a capture takes (judging.ts), and each finding is printed as one line then. The file is
 * polled (its size, every POLL_MS): a file that shrinks or is replaced (another inode: log rotation) is
 * read again from its start, said. Memory stays bounded over days: the sequence state expires after the
 * window (rules.ts TrafficState, `--window`, 15 minutes by default), a line is held only until its end
 * of line arrives. SIGINT or SIGTERM ends it: what arrived is judged, the report written, and the verdict
 * is that of what was judged: FAILED (exit 1) when a finding fails, else INCOMPLETE (exit 4), since a
 * followed log is never complete: it never PASSES.
 */

import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { violation } from '../catalogue.ts';
import type { Secret } from '../checks/exchange.ts';
import { UsageError } from '../errors.ts';
import type { Redactor } from '../http/redact.ts';
import { redactConsole } from '../report/neutral.ts';
import type { Summary } from '../report/summary.ts';
import { lineEntry, lineFormat } from './formats.ts';
import {
  type CaptureFacts,
  canarySecrets,
  describe,
  reportCapture,
  type TrafficOptions,
  trafficRedactor,
} from './judge.ts';
import { ExchangeJudge } from './judging.ts';
import { learnEntry, nothingLearned } from './learn.ts';
import { LineSplitter, lineItem } from './ndjson-stream.ts';
import { TrafficState } from './rules.ts';

/** How long a sequence's state is kept after its last step, unless --window says. */
export const DEFAULT_WINDOW_MS = 15 * 60_000;
/** How often the file's size is looked at. */
export const POLL_MS = 250;
const CHUNK = 1 << 20;

export interface FollowOptions extends TrafficOptions {
  windowMs?: number;
  pollMs?: number;
  /** Ends the follow (tests); without it, the first SIGINT or SIGTERM does. */
  signal?: AbortSignal;
}

export async function follow(
  opts: FollowOptions,
  out: (s: string) => void = console.log,
): Promise<{ summary: Summary; exitCode: number; reportDir: string }> {
  const redactor = trafficRedactor(opts);
  const restore = redactConsole(redactor);
  const stop = stopper(opts.signal);
  try {
    return await followLog(opts, redactor, (s) => out(redactor.text(s)), stop.signal);
  } finally {
    stop.dispose();
    restore();
  }
}

/** The signal that ends the follow: the caller's, else the first SIGINT or SIGTERM (its name the reason). */
function stopper(given: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
  if (given) return { signal: given, dispose: () => {} };
  const ac = new AbortController();
  const on = (sig: NodeJS.Signals) => ac.abort(sig);
  process.once('SIGINT', on);
  process.once('SIGTERM', on);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}

async function followLog(
  opts: FollowOptions,
  redactor: Redactor,
  log: (s: string) => void,
  signal: AbortSignal,
): Promise<{ summary: Summary; exitCode: number; reportDir: string }> {
  const file = opts.files[0]!;
  // A log not there yet is waited for (a gateway may create it later); a directory or device never grows
  // lines to read.
  const there = await stat(file).catch(() => undefined);
  if (there && !there.isFile())
    throw new UsageError(
      `check-traffic --follow: ${file} is ${there.isDirectory() ? 'a directory' : 'not a regular file'}; name the log file`,
    );
  const startedAt = new Date();
  const windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
  // A log's own GET /openapi.json may come at any time or never: --description, else the documented contract.
  const description = await describe(
    opts.description,
    undefined,
    "a followed log's own GET /openapi.json is not waited for (give --description)",
  );
  const facts: CaptureFacts = { ...nothingLearned(), entries: 0, files: [] };
  // The canaries first; the list only grows, at its end, by the keys the log shows accepted.
  const secrets: Secret[] = canarySecrets(opts.canaries);
  const state = new TrafficState(false, windowMs);
  const judge = new ExchangeJudge(
    redactor,
    !!opts.strict,
    { secrets, responses: description.responses },
    state,
  );
  let format = opts.format === 'har' ? undefined : opts.format;
  const lines = new LineSplitter();
  const minutes = Math.round(windowMs / 6000) / 10;
  if (!opts.quiet)
    log(
      `check-traffic: following ${file} (sequences kept ${minutes} min after their last step; responses validated against ${description.source}); Ctrl-C or SIGTERM writes the report`,
    );

  /** One complete line: its credentials known before anything of it is printed, then judged. */
  const line = (n: number, text: string) => {
    if (format === undefined && text.trim() !== '')
      try {
        const o = JSON.parse(text) as Record<string, unknown>;
        if (o && typeof o === 'object') format = lineFormat(o);
      } catch {
        // the line is said as not JSON below; the format is told by the next one
      }
    const item = lineItem(file, n, text, lineEntry(format ?? 'gateway'));
    if (!item) return;
    if (item.kind === 'entry') {
      // The list only grows, at its end: SEC-001's matcher takes the new keys alone (checks/exchange.ts).
      for (const value of learnEntry(facts, item.value, redactor))
        secrets.push({ label: 'captured key', value });
      state.credentialsRecorded = facts.authorized;
    }
    const said = judge.judged.problems.length;
    const findings = judge.item(item, file, generation);
    for (const p of judge.judged.problems.slice(said)) log(`check-traffic: ${p}`);
    for (const f of findings) {
      const { severity } = violation(f.id, f.message, {
        strict: !!opts.strict,
        ...(f.level ? { level: f.level } : {}),
      });
      log(`${file} line ${n}: ${f.id} ${severity}: ${f.message}`);
    }
  };

  let offset = 0;
  let identity: string | undefined;
  /** How often the log was read again from its start: its lines' exchange ids stay apart. */
  let generation = 0;
  /**
   * Bytes appended that a stop left unread: a stop ends a look between chunks, so a follow far behind its
   * log (a day's backlog at its start) writes its report when told, not after reading the backlog.
   */
  let unread = 0;
  /** Everything appended since the last look, read to the size the file has now (or, `untilStop`, to a stop). */
  const readNew = async (untilStop = true) => {
    let st: Awaited<ReturnType<typeof stat>>;
    try {
      st = await stat(file);
    } catch {
      return; // not there (yet, or rotated away): looked at again
    }
    if (!st.isFile()) return; // replaced by what is no log (a directory): looked at again, as if not there
    const id = `${st.dev}:${st.ino}`;
    if (identity !== undefined && (id !== identity || st.size < offset)) {
      log(
        `check-traffic: ${file} was ${id !== identity ? 'replaced' : 'truncated'}; reading it again from its start`,
      );
      offset = 0;
      generation++;
      lines.reset();
    }
    identity = id;
    if (st.size <= offset) return;
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(CHUNK);
      while (offset < st.size) {
        if (untilStop && signal.aborted) {
          unread = st.size - offset;
          break;
        }
        const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, st.size - offset), offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        for (const l of lines.push(buf.subarray(0, bytesRead))) line(l.n, l.text);
      }
    } finally {
      await fh.close();
    }
  };

  const pollMs = opts.pollMs ?? POLL_MS;
  while (!signal.aborted) {
    await readNew();
    await sleep(pollMs, undefined, { signal }).catch(() => {});
  }
  // What arrived before the stop is judged too, unless the stop came while a look was still reading.
  const stoppedReading = unread > 0;
  if (!stoppedReading) await readNew(false);
  const cut = lines.pending();
  const notRead = unread + (stoppedReading && cut ? Buffer.byteLength(cut.text) : 0);
  if (stoppedReading)
    log(
      `check-traffic: ${file}: the follow stopped ${notRead} bytes before the end of what was appended (it was still reading them; from line ${cut?.n ?? 'the next'} on, not judged)`,
    );
  else if (cut)
    log(`check-traffic: ${file} line ${cut.n} was still being written when the follow stopped; not judged`);
  const took = Math.round((Date.now() - startedAt.getTime()) / 1000);
  const why = typeof signal.reason === 'string' ? signal.reason : 'a stop';
  return reportCapture(
    {
      opts,
      startedAt,
      hosts: facts.hosts,
      description,
      judged: judge.judged,
      redactor,
      stopped: `followed ${file} for ${took} s until ${why}${stoppedReading ? `, ${notRead} bytes appended not read` : ''}: a followed log is never complete`,
    },
    log,
  );
}
