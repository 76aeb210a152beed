/**
 * The one owner of a report directory's layout: every file a run, a dry run or `merge` puts there, with
 * its kind and its one writer, and the two logs the run appends to while it goes (exchanges, spend).
 * Nobody else names a file of a report directory: they ask this table (reportFile) or a log.
 *
 * It sits below every layer that uses it (runtime/, app/, report/, traffic/), not in report/: the worker
 * threads (src/runtime/) append to the logs and read the control files while the run goes, and data
 * flows one way, config -> target -> client -> validators -> verdict -> report, so runtime may not import
 * report/. Moving the table and the two logs here is the simpler honest fix: handing each path down
 * instead would thread a dozen file paths through run.json and every liveness and budget call, while the
 * table only needs node:fs and the client's Exchange type. src/report/layout.ts re-exports it for the
 * report side and adds what only reads a finished report.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from './errors.ts';
import type { Exchange } from './http/client.ts';

/**
 * Makes a report directory given by the user (--report-dir), its missing parents with it, or says why it
 * cannot (a UsageError naming the flag: exit 2, before anything is judged). Not node's recursive mkdir:
 * where a parent refuses a new entry with ENOENT (a name under /proc) it loops for ever at full CPU.
 */
export function makeReportDir(dir: string, flag = '--report-dir'): void {
  for (const d of missingDirs(dir, flag))
    try {
      mkdirSync(d);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' || !statSync(d).isDirectory())
        throw new UsageError(
          `${flag}: cannot make the report directory ${dir}: ${d} cannot be made (${code ?? err})`,
        );
    }
}

/**
 * The directories makeReportDir would make for `dir`, outermost first, made of none: refuses (as it does)
 * a file as the directory or on its way. What only making one can tell (a folder that takes no new entry)
 * is makeReportDir's to say.
 */
export function missingDirs(dir: string, flag = '--report-dir'): string[] {
  const refuse = (why: string): never => {
    throw new UsageError(`${flag}: cannot make the report directory ${dir}: ${why}`);
  };
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(at, { throwIfNoEntry: false });
    } catch (err) {
      // ENOTDIR: a parent is a file (found as the walk goes up); any other, said as it is.
      if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR')
        refuse(`${at} cannot be read (${(err as Error).message})`);
      st = undefined;
    }
    if (st) {
      if (!st.isDirectory())
        refuse(at === resolve(dir) ? 'it is not a directory' : `${at} is not a directory`);
      break;
    }
    missing.unshift(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  return missing;
}

/**
 * `report`: written once at the end by the one report writer (src/report/write.ts). `data`: the run's
 * evidence, part of the report and of its bundle. `control`: how the run's worker threads and shards
 * coordinate while it goes; cleared by finish before the report is written (never part of it).
 */
export type FileKind = 'report' | 'data' | 'control';

/** Every file of a report directory, by key: its name, kind and writer. */
export const REPORT_FILES = {
  summary: { name: 'summary.json', kind: 'report', writer: 'src/report/write.ts' },
  junit: { name: 'junit.xml', kind: 'report', writer: 'src/report/write.ts' },
  requirementsJunit: { name: 'requirements.junit.xml', kind: 'report', writer: 'src/report/write.ts' },
  html: { name: 'report.html', kind: 'report', writer: 'src/report/html.ts (via write.ts)' },
  markdown: { name: 'summary.md', kind: 'report', writer: 'src/report/write.ts' },
  sarif: { name: 'report.sarif', kind: 'report', writer: 'src/report/sarif.ts (via write.ts)' },
  manifest: { name: 'manifest.json', kind: 'report', writer: 'src/report/bundle.ts (via write.ts)' },
  signature: { name: 'manifest.sig', kind: 'report', writer: 'src/report/signature.ts (via write.ts)' },
  exchanges: { name: 'exchanges.ndjson', kind: 'data', writer: 'ExchangeLog (run, workers, merge)' },
  spend: { name: 'spend.ndjson', kind: 'data', writer: 'SpendLog (src/runtime/budget.ts)' },
  openapi: { name: 'openapi.json', kind: 'data', writer: 'src/app/preflight.ts' },
  run: { name: 'run.json', kind: 'data', writer: 'src/app/run.ts (the workers read it)' },
  drift: { name: 'drift.json', kind: 'data', writer: 'src/app/finish.ts' },
  stop: { name: 'stop-requested', kind: 'control', writer: 'src/runtime/liveness.ts' },
  deadTarget: { name: 'dead-target', kind: 'control', writer: 'src/runtime/liveness.ts' },
  streak: { name: 'no-answer-streak', kind: 'control', writer: 'src/runtime/liveness.ts' },
  balanceOut: { name: 'balance-ran-out', kind: 'control', writer: 'src/runtime/budget.ts' },
  /** --har: the run's answered exchanges as HAR entries, one per line; finish assembles the HAR file. */
  har: { name: 'har-entries.ndjson', kind: 'control', writer: 'src/traffic/har-record.ts (run, workers)' },
  /** A directory: one small file per worker thread (its count of media jobs waited on). */
  jobs: { name: 'jobs-in-flight', kind: 'control', writer: 'src/runtime/liveness.ts' },
  /** A directory: the files that run alone wait there for the others to end, then for their turn. */
  turns: { name: 'serial-turns', kind: 'control', writer: 'src/runtime/turns.ts (run, workers)' },
} as const satisfies Record<string, { name: string; kind: FileKind; writer: string }>;

export type ReportFile = keyof typeof REPORT_FILES;

/** The path of one file of a report directory. */
export const reportFile = (dir: string, file: ReportFile): string => join(dir, REPORT_FILES[file].name);

/** The names of the control files (finish clears them; they are never part of a report). */
export const CONTROL_FILES: string[] = Object.values(REPORT_FILES)
  .filter((f) => f.kind === 'control')
  .map((f) => f.name);

/**
 * Remove the control files of a report directory: at a run's end (they are never part of a report) and
 * at its start (a run killed before its end leaves them: a stop asked of it would stop the next run in
 * the same directory at once, its HAR entries would join the next run's HAR).
 */
export function clearControlFiles(dir: string): void {
  for (const f of CONTROL_FILES) rmSync(join(dir, f), { force: true, recursive: true });
}

/**
 * The run's log of exchanges, one JSON line each: appended by the run (preflight) and every worker
 * thread (an append of one line is atomic), read by the report (cited exchanges), the comparison with
 * an earlier run and the dry run's plan.
 */
export class ExchangeLog {
  constructor(readonly file: string) {}

  /** The exchange log of a report directory (or the file a summary names, relative to it). */
  static of(dir: string, named?: string): ExchangeLog {
    return new ExchangeLog(
      named ? (isAbsolute(named) ? named : join(dir, named)) : reportFile(dir, 'exchanges'),
    );
  }

  /** Start an empty log. */
  create(): void {
    writeFileSync(this.file, '');
  }

  append(ex: Exchange): void {
    appendFileSync(this.file, `${JSON.stringify(ex)}\n`);
  }

  /** Append the lines of another log as they are (merge). Returns how many lines it added. */
  appendText(text: string): number {
    appendFileSync(this.file, text);
    return text.split('\n').filter(Boolean).length;
  }

  exists(): boolean {
    return existsSync(this.file);
  }

  size(): number {
    return existsSync(this.file) ? statSync(this.file).size : 0;
  }

  text(): string {
    return readFileSync(this.file, 'utf8');
  }

  /** How many exchanges it holds (0 when there is no log). */
  count(): number {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.file);
    } catch {
      return 0;
    }
    // Its non-empty lines, counted in the bytes (a log of a run is megabytes: no text, no split).
    let n = 0;
    for (let start = 0; start < bytes.length; ) {
      const end = bytes.indexOf(10, start);
      const stop = end < 0 ? bytes.length : end;
      if (stop > start) n++;
      start = stop + 1;
    }
    return n;
  }

  /** Every exchange, in order; a line that does not parse (a torn last line) is passed over. */
  *all(): Generator<Exchange> {
    for (const line of this.text().split('\n')) {
      if (!line) continue;
      try {
        yield JSON.parse(line) as Exchange;
      } catch {
        // a torn last line of an interrupted run
      }
    }
  }

  /** The exchanges `select` keeps, grouped by the model each bought ('(unknown model)' without one). */
  byModel(select: (ex: Exchange) => boolean): Map<string, Exchange[]> {
    const out = new Map<string, Exchange[]>();
    for (const ex of this.all()) {
      if (!select(ex)) continue;
      const model = ex.model ?? '(unknown model)';
      const list = out.get(model);
      if (list) list.push(ex);
      else out.set(model, [ex]);
    }
    return out;
  }

  /**
   * The exchanges of these ids, read in chunks and stopping when all are found (the log may be large;
   * only the cited exchanges missing from their test records are wanted).
   */
  byIds(ids: ReadonlySet<string>): Map<string, Exchange> {
    const found = new Map<string, Exchange>();
    if (!ids.size || !existsSync(this.file)) return found;
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(1 << 20);
      let rest = '';
      const line = (l: string) => {
        const m = /^\{"id":"([^"]+)"/.exec(l);
        if (m ? !ids.has(m[1]!) : ![...ids].some((id) => l.includes(id))) return;
        try {
          const ex = JSON.parse(l) as Exchange;
          if (ids.has(ex.id)) found.set(ex.id, ex);
        } catch {
          // a torn last line of an interrupted run
        }
      };
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        const lines = (rest + buf.subarray(0, n).toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const l of lines) if (l) line(l);
        if (found.size === ids.size) break;
      }
      if (rest) line(rest);
    } finally {
      closeSync(fd);
    }
    return found;
  }
}

/**
 * The run's spend log, one JSON line per event (a reply's spend, a reservation and its release, an
 * unreadable reply, a balance read, a price known before the run), shared by every worker thread: an
 * append of one short line is atomic, so no lock is needed. What the lines mean is src/runtime/budget.ts's;
 * this owns the file and reads each byte once (`since`).
 */
export class SpendLog<Line> {
  constructor(readonly file: string) {}

  static of<Line>(dir: string): SpendLog<Line> {
    return new SpendLog<Line>(reportFile(dir, 'spend'));
  }

  /** Start an empty log: a run into a report directory used before spends nothing of the last run's. */
  create(): void {
    writeFileSync(this.file, '');
  }

  append(line: Line): void {
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }

  /**
   * The complete lines appended after byte `offset`, parsed (a malformed line is passed over), and the
   * offset to read from next time; a line still being appended (no newline yet) is read next time.
   * `restart`: the file is shorter than the offset (a later run into the same directory): read it anew.
   */
  since(offset: number): { lines: Line[]; offset: number; restart: boolean } | undefined {
    if (!existsSync(this.file)) return undefined;
    const size = statSync(this.file).size;
    const restart = size < offset;
    const from = restart ? 0 : offset;
    if (size === from) return { lines: [], offset: from, restart };
    const buf = Buffer.alloc(size - from);
    const fd = openSync(this.file, 'r');
    try {
      readSync(fd, buf, 0, buf.length, from);
    } finally {
      closeSync(fd);
    }
    const text = buf.toString('utf8');
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    const lines: Line[] = [];
    for (const line of complete.split('\n')) {
      if (!line) continue;
      try {
        lines.push(JSON.parse(line) as Line);
      } catch {
        // a malformed line: ignored (the budget errs only by that line)
      }
    }
    return { lines, offset: from + Buffer.byteLength(complete), restart };
  }
}
