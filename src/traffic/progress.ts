/**
 * check-traffic's progress: a capture of hours is judged in minutes, and a terminal or a CI log that
 * stays silent that long looks hung. A line every few seconds (none for a capture judged sooner), the
 * same on a terminal and in a log: which pass, entries, megabytes of the files' total, the rate, and
 * the time left at that rate. The work is two passes over every byte (credentials and the description
 * first, then the judging), so the share done counts both.
 */
import { statSync } from 'node:fs';

const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0);

export type Pass = 'reading' | 'judging';

export class TrafficProgress {
  private readonly started = Date.now();
  private last = this.started;
  /** Bytes of the files finished in the current pass (the file being read adds its own). */
  private doneFiles = 0;

  constructor(
    private readonly total: number,
    private readonly log: ((line: string) => void) | undefined,
    private readonly everyMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
    this.last = this.started;
  }

  /** The files' total size in bytes (a file that cannot be read counts 0: its problem is said elsewhere). */
  static sizeOf(files: readonly string[]): number {
    let total = 0;
    for (const f of files)
      try {
        total += statSync(f).size;
      } catch {
        // unreadable: harItems names it
      }
    return total;
  }

  /** A file of the pass is read to its end (`bytes`: its size as read). */
  fileDone(bytes: number): void {
    this.doneFiles += bytes;
  }

  /** A new pass starts over the same files. */
  nextPass(): void {
    this.doneFiles = 0;
  }

  /** Where the pass is (`bytesInFile`: read of the current file); prints a line when one is due. */
  tick(pass: Pass, bytesInFile: number, entries: number): void {
    const now = this.now();
    if (!this.log || now - this.last < this.everyMs) return;
    this.last = now;
    this.log(this.line(pass, this.doneFiles + bytesInFile, entries, now));
  }

  line(pass: Pass, bytes: number, entries: number, now = this.now()): string {
    const work = 2 * Math.max(this.total, 1);
    const done = Math.min(work, (pass === 'reading' ? 0 : this.total) + bytes);
    const seconds = (now - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const left = rate > 0 ? Math.ceil((work - done) / rate) : undefined;
    return `… [${Math.round(seconds)} s] ${pass} the capture: ${entries.toLocaleString('en-US')} entries, ${mb(bytes)} of ${mb(this.total)} MB (${Math.floor((100 * done) / work)}% of both passes), ${mb(rate)} MB/s${left !== undefined ? `, about ${left} s left` : ''}`;
  }
}
