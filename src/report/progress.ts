/**
 * Progress a CI log shows: in non-TTY output a heartbeat line at least every HEARTBEAT_MS (tests done of
 * those collected, failures so far, what the run waits for); on a TTY one live line, rewritten in place.
 * A vitest reporter in the main thread feeds it; the run sets the phase before the suites start
 * (preflight, starting the workers). Colours only on a TTY, NO_COLOR and FORCE_COLOR respected.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/** The longest a non-TTY log stays silent while the run is going. */
export const HEARTBEAT_MS = 8_000;

export interface ProgressStream {
  write(s: string): boolean;
  isTTY?: boolean;
}

/** Colours: never with NO_COLOR, always with FORCE_COLOR (not 0), else only on a terminal. */
export function useColour(
  stream: ProgressStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  return stream.isTTY === true;
}

const CODES = { red: 31, green: 32, yellow: 33, dim: 2, bold: 1 } as const;
export function paint(on: boolean, colour: keyof typeof CODES, s: string): string {
  return on ? `\u001b[${CODES[colour]}m${s}\u001b[0m` : s;
}

export class Progress {
  private planned = 0;
  private filesTotal = 0;
  private filesCollected = 0;
  private done = 0;
  private failed = 0;
  private notRun = 0;
  private readonly running = new Map<string, number>();
  private phase = 'starting';
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private lastWrite = 0;
  private liveShown = false;
  private readonly tty: boolean;
  private readonly colour: boolean;

  constructor(
    private readonly out: ProgressStream = process.stdout,
    /** The media jobs the run's worker threads wait on (they run in other threads: read, not told). */
    private readonly jobs: () => number = () => 0,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {
    this.tty = out.isTTY === true;
    this.colour = useColour(out);
  }

  start(): void {
    this.lastWrite = Date.now();
    // Checked often, written only when the log was silent for heartbeatMs (or, on a TTY, every second).
    this.timer = setInterval(() => this.tick(), Math.min(1_000, this.heartbeatMs / 4));
    this.timer.unref();
  }

  /** What the run is doing before or between the tests (the preflight's request, starting workers...). */
  setPhase(phase: string): void {
    this.phase = phase;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearLive();
  }

  /** Something else was printed (a line of the run): the silence starts again. */
  noteOutput(): void {
    this.lastWrite = Date.now();
  }

  /** A line of output that must not be mixed into the live line. */
  line(s: string): void {
    this.clearLive();
    this.out.write(`${s}\n`);
    this.lastWrite = Date.now();
  }

  /** The test files of the run: until each is collected, the tests planned are a count so far. */
  files(n: number): void {
    this.filesTotal = n;
  }

  collected(n: number): void {
    this.planned += n;
    this.filesCollected++;
    this.phase = 'running tests';
  }

  started(title: string): void {
    this.running.set(title, Date.now());
  }

  finished(title: string, state: 'passed' | 'failed' | 'skipped' | 'pending'): void {
    this.running.delete(title);
    this.done++;
    if (state === 'failed') this.failed++;
    if (state === 'skipped') this.notRun++;
    if (this.tty) this.live();
  }

  /** The heartbeat's text: `[42 s] 120/659 tests done, 3 failed, 80 not run; waiting for ...`. */
  status(): string {
    const secs = Math.round((Date.now() - this.startedAt) / 1000);
    const counts =
      this.planned === 0
        ? this.phase
        : this.filesCollected < this.filesTotal
          ? // Files are collected as workers reach them: the total grows, so it is not shown as one.
            `${this.done} tests done of ${this.planned} collected so far (${this.filesCollected}/${this.filesTotal} files), ${this.failed} failed, ${this.notRun} not run`
          : `${this.done}/${this.planned} tests done, ${this.failed} failed, ${this.notRun} not run`;
    return `[${secs} s] ${counts}; ${this.waitingFor()}`;
  }

  private waitingFor(): string {
    const jobs = this.jobs();
    const media = jobs > 0 ? `waiting for ${jobs} media job${jobs === 1 ? '' : 's'}; ` : '';
    return `${media}${this.runningTests()}`;
  }

  private runningTests(): string {
    if (this.running.size === 0) return this.planned > 0 ? 'waiting for the next tests' : 'waiting';
    let oldest: [string, number] | undefined;
    for (const e of this.running) if (!oldest || e[1] < oldest[1]) oldest = e;
    const [title, since] = oldest!;
    const name = title.length > 70 ? `${title.slice(0, 69)}…` : title;
    return `waiting for ${this.running.size} running test(s), the longest ${Math.round((Date.now() - since) / 1000)} s: ${name}`;
  }

  private tick(): void {
    if (this.tty) {
      this.live();
      return;
    }
    if (Date.now() - this.lastWrite >= this.heartbeatMs - 500)
      this.line(paint(this.colour, 'dim', `… ${this.status()}`));
  }

  private live(): void {
    const now = Date.now();
    if (this.liveShown && now - this.lastWrite < 100) return;
    // A terminal that reports no usable width (0, or a pseudo-terminal's default) gets 100 columns.
    const columns = (this.out as { columns?: number }).columns ?? 0;
    const width = columns >= 40 ? columns : 100;
    this.out.write(`\r\u001b[2K${this.status().slice(0, width - 1)}`);
    this.liveShown = true;
    this.lastWrite = now;
  }

  /** Take the live line away before other output (it comes back with the next update). */
  clearLive(): void {
    if (!this.liveShown) return;
    this.out.write('\r\u001b[2K');
    this.liveShown = false;
  }
}

/** The vitest side of Progress: what the main thread learns of the tests in the workers. */
export class ProgressReporter implements Reporter {
  constructor(private readonly progress: Progress) {}

  onTestRunStart(specifications: ReadonlyArray<unknown>): void {
    this.progress.files(specifications.length);
  }

  onTestModuleCollected(mod: TestModule): void {
    this.progress.collected([...mod.children.allTests()].length);
  }

  onTestCaseReady(tc: TestCase): void {
    this.progress.started(tc.fullName);
  }

  onTestCaseResult(tc: TestCase): void {
    this.progress.finished(tc.fullName, tc.result().state);
  }

  /** What a test printed (none of ours does; a suite's debugging line must still be seen). */
  onUserConsoleLog(log: { content: string }): void {
    this.progress.line(log.content.replace(/\n$/, ''));
  }
}
