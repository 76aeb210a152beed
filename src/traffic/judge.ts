/**
 * `gateway-conformance check-traffic FILE...`: judge the traffic a deployment already has, from HAR
 * captures, with no request sent. Two streamed passes over the files: the first registers every
 * credential the capture holds with the redactor (before anything is printed or written) and finds the
 * capture's own description (`GET /openapi.json`); the second judges each exchange with the live run's
 * per-exchange checks (src/checks/per-exchange.ts) and the contract rules one exchange or a sequence can
 * decide (rules.ts). The result is a run's summary, written by the one report writer, with every rule the
 * capture could not judge listed as not run (never passed).
 */

import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { formOf, violation } from '../catalogue.ts';
import type { Secret } from '../checks/exchange.ts';
import { PER_EXCHANGE_IDS } from '../checks/per-exchange.ts';
import { BUFFERED_STREAM } from '../checks/stream-pacing.ts';
import { UsageError } from '../errors.ts';
import type { Exchange } from '../http/client.ts';
import { Redactor } from '../http/redact.ts';
import { documentedFallback, type ResponseSource } from '../openapi/fallback.ts';
import { onlyTooLarge } from '../openapi/guard.ts';
import { judgeDescription, LiveDescription } from '../openapi/live.ts';
import { SUITE_VERSION } from '../paths.ts';
import { groupLines } from '../report/console.ts';
import { makeReportDir, REPORT_FILES, reportFile } from '../report/layout.ts';
import { redactConsole } from '../report/neutral.ts';
import { useColour } from '../report/progress.ts';
import {
  aggregate,
  captureVerdictLine,
  EXIT,
  exitCodeOf,
  holdsText,
  type Summary,
} from '../report/summary.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { writeReport } from '../report/write.ts';
import type { DescriptionSource } from './entry.ts';
import { type CaptureFormat, captureItems, detectFormat } from './formats.ts';
import {
  fileStamp,
  type HarItem,
  HarPlan,
  harPlaces,
  harPlanned,
  harTexts,
  parseEntry,
} from './har-stream.ts';
import { ExchangeJudge, type IdRecord, type Judged, ThreadedJudging, ThreadedLearning } from './judging.ts';
import {
  addLearnt,
  apiOrigins,
  capturedDescription,
  type Learned,
  learnEntry,
  nothingLearned,
  parseToLearn,
} from './learn.ts';
import { TrafficProgress } from './progress.ts';
import { TRAFFIC_RULES, TrafficState } from './rules.ts';
import { ShardPlan } from './shard.ts';
import { JudgingThreads, textAt } from './threads.ts';

export interface TrafficOptions {
  files: string[];
  reportDir?: string;
  /** A description to validate responses against, instead of the capture's own GET /openapi.json. */
  description?: string;
  strict?: boolean;
  quiet?: boolean;
  /** The files' format (formats.ts); undefined: told from each file's content. */
  format?: CaptureFormat;
  /** `i/n`: judge only the exchanges of shard i (shard.ts); `merge` combines the shards' reports. */
  shard?: string;
  /**
   * Threads that run the per-exchange checks of a HAR's entries beside this one (0: all in this thread;
   * default: judgingThreads'). The findings and the report are the same either way.
   */
  threads?: number;
  /**
   * Canaries (--canary): values the target's configuration declares secret (its upstream key prefixes,
   * internal node names); no reply may hold one (SEC-001), as in a live run (src/runtime/worker.ts).
   */
  canaries?: string[];
}

/** A canary shorter than this would match ordinary text (targets.yaml's `canaries` have the same bound). */
export const MIN_CANARY_CHARS = 4;

/** The canaries as SEC-001's secrets, labelled as a live run labels them. */
export const canarySecrets = (canaries: readonly string[] = []): Secret[] =>
  canaries.map((value, i) => ({ label: `canary #${i + 1}`, value, canary: true as const }));

/** A redactor that knows the canaries before anything is read (no report shows one, as in a live run). */
export function trafficRedactor(opts: Pick<TrafficOptions, 'canaries'>): Redactor {
  return new Redactor(Object.fromEntries(canarySecrets(opts.canaries).map((s) => [s.label, s.value])));
}

/** Judging threads at most: past that the reading thread is what bounds the rate. */
export const MAX_THREADS = 4;
/** A capture of this many bytes or more is judged in threads by default (judgingThreads). */
export const THREADED_BYTES = 16 * 1024 * 1024;

/**
 * How many judging threads judge a capture whose HAR files hold `bytes` beside this one (which judges a share of the
 * batches too, ThreadedJudging): as many as asked (at most MAX_THREADS), else one fewer than the cores
 * (at most MAX_THREADS) where there are 2 cores or more and the capture has THREADED_BYTES or more, else
 * none. Why one fewer: this thread reads, applies the judgements and judges its share, so a thread per
 * core beside it only takes turns on the cores (measured on 2 cores: 1 thread beside this one 4.5-6.3 s
 * and 272 MiB on the 235 MB capture, 2 threads 6.1-6.5 s and 325 MiB). Why not always: a thread loads the
 * checks' code and the description's validators first (about 0.3 s of CPU), more than a small capture's
 * judging takes.
 */
export function judgingThreads(
  given: number | undefined,
  bytes: number,
  cores = availableParallelism(),
): number {
  if (given !== undefined) return Math.max(0, Math.min(MAX_THREADS, Math.floor(given)));
  return cores >= 2 && bytes >= THREADED_BYTES ? Math.min(MAX_THREADS, cores - 1) : 0;
}

/** The per-exchange checks' ids (src/checks/, the description): judged on every exchange read. */
const PER_EXCHANGE = PER_EXCHANGE_IDS;
/** The first pass leaves out `text` values (bodies) of this many bytes or more (harTexts' `cut`). */
const CUT_BODIES = 256;

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

export async function checkTraffic(
  opts: TrafficOptions,
  out: (s: string) => void = console.log,
): Promise<{ summary?: Summary; exitCode: number; reportDir?: string }> {
  if (opts.files.length === 0) throw new UsageError('check-traffic: name one or more HAR files');
  const redactor = trafficRedactor(opts);
  const restore = redactConsole(redactor);
  try {
    return await judgeFiles(opts, redactor, (s) => out(redactor.text(s)));
  } finally {
    restore();
  }
}

/**
 * The two passes, the report and the console, in that order: the first pass registers every credential
 * with the redactor before anything is printed or written, so each part gets what the one before found
 * as a typed value (CaptureFacts, Judged) and nothing here prints or writes before the redactor knows.
 */
async function judgeFiles(
  opts: TrafficOptions,
  redactor: Redactor,
  log: (s: string) => void,
): Promise<{ summary?: Summary; exitCode: number; reportDir?: string }> {
  const startedAt = new Date();
  const progress = new TrafficProgress(TrafficProgress.sizeOf(opts.files), opts.quiet ? undefined : log);
  // Each file's format, told once; threads judge a HAR's entries only, so a HAR's bytes are what count.
  const formats = opts.files.map((f) => opts.format ?? detectFormat(f));
  const harBytes = TrafficProgress.sizeOf(opts.files.filter((_, k) => formats[k] === 'har'));
  // Started now, the threads load their code while the first pass reads.
  const count = judgingThreads(opts.threads, harBytes);
  const threads = count > 0 ? new JudgingThreads(count) : undefined;
  let judged: Judged;
  let description: Description;
  let facts: CaptureFacts;
  try {
    facts = await readCapture(opts, formats, redactor, progress, threads);
    progress.nextPass();
    description = await describe(opts.description, capturedDescription(facts));
    judged = await judgeExchanges(opts, redactor, facts, description, progress, threads);
  } finally {
    await threads?.close();
  }
  for (const p of judged.problems) log(`check-traffic: ${p}`);
  // No exchange could be read (not HAR, empty, unreadable, no entry with a response): said, exit 2, and
  // no report directory is made.
  // A shard given none of a readable capture's exchanges says so in its report: merge needs every shard's.
  if (judged.judgedExchanges === 0 && !(facts.shard && facts.entries > 0)) {
    log('check-traffic: no exchange could be read from the capture; nothing judged');
    return { exitCode: EXIT.usage };
  }
  return reportCapture(
    { opts, startedAt, hosts: apiOrigins(facts) ?? facts.hosts, description, judged, redactor },
    log,
  );
}

/** The report of what was judged, written by the one report writer, and the console's account of it. */
export async function reportCapture(
  input: Omit<SummaryInput, 'tests' | 'cited'>,
  log: (s: string) => void,
): Promise<{ summary: Summary; exitCode: number; reportDir: string }> {
  const { opts, description, judged, redactor } = input;
  const reportDir = resolve(opts.reportDir ?? join('reports', 'captured-traffic', stamp()));
  makeReportDir(reportDir);
  const cited = await writeEvidence(reportDir, description, judged.ids);
  const tests = testRecords(description, judged, redactor);
  const summary = summarise({ ...input, tests, cited });
  writeReport(reportDir, summary, [], redactor);
  printOutcome(log, opts, summary, description.source, judged, reportDir);
  return { summary, exitCode: exitCodeOf(summary), reportDir };
}

/** What the first pass finds in the capture, before any exchange is judged. */
export interface CaptureFacts extends Learned {
  /** --shard: which exchanges this shard judges (learnt over the whole capture). */
  shard?: ShardPlan;
  /** Entries read in the whole capture (each a JSON object). */
  entries: number;
  /** Each file's format, and where a HAR's entries stand as this pass found them (harPlanned). */
  files: CaptureFile[];
}

/** A file as the first pass read it: its format, and a HAR's plan (the second pass cuts entries there). */
interface CaptureFile {
  format: CaptureFormat;
  plan?: HarPlan;
}

/**
 * Pass 1: every credential (registered with the redactor), and the capture's own description. Given
 * `threads` (and no shard), this thread only finds where a HAR's entries stand and where their long bodies
 * do (harTexts' `cuts`), and the threads read and learn from them without those bodies, as this thread
 * reads them (learn.ts Learning), added here in capture order.
 */
async function readCapture(
  opts: TrafficOptions,
  formats: readonly CaptureFormat[],
  redactor: Redactor,
  progress: TrafficProgress,
  threads?: JudgingThreads,
): Promise<CaptureFacts> {
  const shard = ShardPlan.of(opts.shard);
  const facts: CaptureFacts = { ...nothingLearned(), entries: 0, files: [], ...(shard ? { shard } : {}) };
  const learning =
    threads && !shard
      ? new ThreadedLearning(threads, (l) => {
          facts.entries += addLearnt(facts, l, redactor);
        })
      : undefined;
  for (const [n, file] of opts.files.entries()) {
    let bytes = 0;
    const read = (b: number) => {
      bytes = b;
    };
    // A HAR's entries are read as texts (harTexts) and their places kept; a log's lines as they are.
    const format = formats[n]!;
    const plan = format === 'har' ? new HarPlan(file, fileStamp(file) ?? '') : undefined;
    facts.files.push({ format, ...(plan ? { plan } : {}) });
    // Without a shard (whose plan reads job replies), this pass reads no body: long ones are cut out. An
    // entry whose cut body would not parse is learnt from all the same (the second pass says it unreadable).
    const cut = shard ? undefined : CUT_BODIES;
    const places = plan !== undefined && learning !== undefined;
    for await (const text of plan ? harTexts(file, read, cut, !places) : captureItems(file, format, read)) {
      if (plan && text.kind !== 'entry') plan.add(text);
      progress.tick('reading', bytes, facts.entries);
      if (places) {
        if (text.kind === 'text')
          await learning.entry({
            file,
            n,
            index: text.index,
            from: text.from!,
            to: text.to!,
            ...(text.cuts ? { cuts: text.cuts } : {}),
          });
        continue;
      }
      // The capture's own description read again whole at its place (parseToLearn).
      const item =
        text.kind === 'text'
          ? parseToLearn(
              file,
              text.index,
              text.text,
              text.cut ? () => textAt(file, text.from!, text.to!) : undefined,
              (origin) => facts.descriptions.has(origin),
            )
          : text;
      if (item.kind !== 'entry') continue;
      // A log's line after a HAR's batches: what they learnt comes first.
      await learning?.settle();
      facts.entries++;
      shard?.learn(item.value);
      learnEntry(facts, item.value, redactor);
    }
    progress.fileDone(bytes);
  }
  await learning?.settle();
  return facts;
}

/**
 * Pass 2: judge every exchange in capture order, with the live run's checks and the traffic rules. The
 * per-exchange checks of a HAR's entries run here or, given `threads`, in those threads on batches of
 * entries (judging.ts ThreadedJudging); the findings, their order and the report are the same.
 */
async function judgeExchanges(
  opts: TrafficOptions,
  redactor: Redactor,
  facts: CaptureFacts,
  description: Description,
  progress: TrafficProgress,
  threads?: JudgingThreads,
): Promise<Judged> {
  const state = new TrafficState(facts.authorized);
  // SEC-001: no reply may hold an accepted key the capture's requests carried (cookies are echoed by design),
  // nor a canary given.
  const secrets = [
    ...[...facts.keys].map((value) => ({ label: 'captured key', value })),
    ...canarySecrets(opts.canaries),
  ];
  const ctx = { secrets, responses: description.responses };
  const judge = new ExchangeJudge(redactor, !!opts.strict, ctx, state, apiOrigins(facts));
  threads?.setup({ redactor: redactor.tables(), secrets, description: description.from });
  const batches = threads ? new ThreadedJudging(threads, judge) : undefined;
  const { shard } = facts;
  for (const [n, file] of opts.files.entries()) {
    let bytes = 0;
    const read = (b: number) => {
      bytes = b;
    };
    const { format, plan } = facts.files[n]!;
    // A HAR's entries where the first pass found them (the file read anew if it changed since); with
    // threads and no shard, only their places: each thread reads the bytes it judges.
    const items: AsyncIterable<HarItem> | Iterable<HarItem> = !plan
      ? captureItems(file, format, read)
      : batches && !shard && fileStamp(file) === plan.stamp
        ? harPlaces(plan, read)
        : harPlanned(plan, read);
    for await (let item of items) {
      progress.tick('judging', bytes, judge.judged.entries);
      if (shard) {
        // Another shard's exchange (shard.ts); what could not be read is shard 1's to say. A shard reads
        // an entry to tell its sender (judged here, it is parsed once; a thread parses its text again).
        const parsed = item.kind === 'text' ? parseEntry(file, item.index, item.text) : item;
        if (!shard.owns(parsed.kind === 'entry' ? parsed.value : undefined)) continue;
        if (!batches) item = parsed;
      }
      if (batches) await batches.add(item, file, n);
      else judge.item(item, file, n);
    }
    progress.fileDone(bytes);
  }
  await batches?.finish();
  return judge.judged;
}

/**
 * The report directory's evidence: the description judged against (when there was one) and the
 * exchange log. The log holds the exchanges the findings cite (redacted), not the whole capture: the
 * capture is the full log already, and the report writer reads its files whole (memory stays bounded
 * by the findings, not by the size of the capture). Returns the exchanges cited, by id.
 */
export async function writeEvidence(
  reportDir: string,
  description: Description,
  ids: Map<string, IdRecord>,
): Promise<Map<string, Exchange>> {
  const exchangeLog = createWriteStream(reportFile(reportDir, 'exchanges'));
  if (description.text !== undefined) writeFileSync(reportFile(reportDir, 'openapi'), description.text);
  const cited = new Map<string, Exchange>();
  for (const r of ids.values()) for (const [id, ex] of r.log.cited) cited.set(id, ex);
  for (const ex of cited.values())
    if (!exchangeLog.write(`${JSON.stringify(ex)}\n`))
      await new Promise<void>((r) => exchangeLog.once('drain', () => r()));
  await new Promise<void>((r) => exchangeLog.end(r));
  return cited;
}

/**
 * One test record per requirement the capture could judge (not run where it held nothing it needs, so
 * never passed by default), the description's own failure first, and one record for what could not be read.
 */
export function testRecords(
  description: Description,
  judged: Judged,
  redactor: Redactor,
): TestResultRecord[] {
  const tests: TestResultRecord[] = [];
  if (description.failure) tests.push(description.failure);
  // A format without bodies cannot show what a body shows: said with the rules it leaves not judged.
  const { count, why } = judged.bodiless;
  const bodiless = count ? `; the response bodies of ${count} exchange(s) are not in it (${why})` : '';
  for (const { id, needs } of captureRules()) {
    const r = judged.ids.get(id);
    if (!r || r.judged === 0) {
      tests.push({
        title: `${id} captured traffic: not judged`,
        file: 'capture',
        ids: [id],
        effect: 'read',
        outcome: 'not_run',
        durationMs: 0,
        reason: `not judged: the capture holds nothing it needs (${needs})${bodiless}`,
        // One not-run line for them all, whose remedy is no one rule's: each rule's need is its reason
        // (listed per rule under the verdict, in summary.json and the HTML).
        cause: {
          kind: 'precondition',
          subject: 'the capture holds nothing these rules could judge',
          remedy: 'capture traffic that holds what each rule needs (its reason)',
        },
        violations: [],
        exchanges: [],
        exchangeCount: 0,
      });
      continue;
    }
    const failures = r.log.violations.filter((v) => v.severity === 'failure');
    tests.push({
      title: `${id} captured traffic: ${r.judged} exchange(s) judged`,
      file: 'capture',
      ids: [id],
      // Judged on the exchanges that showed its form (the rule's own count), as a live run observes it.
      observed: { [id]: [] },
      effect: 'read',
      outcome: failures.length > 0 ? 'failed' : r.log.violations.length > 0 ? 'advisory' : 'passed',
      durationMs: 0,
      violations: r.log.violations,
      exchanges: [...r.log.cited.values()],
      exchangeCount: r.judged,
    });
  }
  const { unreadable } = judged;
  // What could not be read was not judged: one record for it, not reached (an error in junit.xml, as the
  // INCOMPLETE verdict says), naming each part.
  if (unreadable.length)
    tests.push({
      title: `captured traffic: ${parts(unreadable.length)} of the capture could not be read`,
      file: 'capture',
      ids: [],
      effect: 'read',
      outcome: 'not_run',
      durationMs: 0,
      reason: `not judged: ${unreadable
        .slice(0, 20)
        .map((p) => redactor.text(p))
        .join('; ')}${unreadable.length > 20 ? `; and ${unreadable.length - 20} more` : ''}`,
      cause: { kind: 'stopped', subject: 'the capture could not be read whole' },
      violations: [],
      exchanges: [],
      exchangeCount: 0,
    });
  return tests;
}

/** What the summary of a capture is made from (the parts above hand it over as they found it). */
export interface SummaryInput {
  opts: TrafficOptions;
  startedAt: Date;
  hosts: ReadonlySet<string>;
  description: Description;
  judged: Judged;
  tests: TestResultRecord[];
  cited: Map<string, Exchange>;
  redactor: Redactor;
  /** Why the judging stopped short of the whole traffic (a followed log is never whole). */
  stopped?: string;
}

/** The run's summary of a capture: the shape a live run's has, with the capture's own counts. */
export function summarise(input: SummaryInput): Summary {
  const { opts, startedAt, hosts, description, judged, tests, redactor } = input;
  const { unreadable } = judged;
  const judgedIds = tests.filter((t) => t.outcome !== 'not_run' && t.ids.length > 0).length;
  return {
    suite: { name: 'gateway-conformance', version: SUITE_VERSION, node: process.version },
    target: {
      name: 'captured traffic',
      baseUrl: [...hosts].join(', ') || '(no host in the capture)',
      embedded: false,
      allow: [],
      roles: [],
      models: {},
    },
    strict: !!opts.strict,
    seed: 0,
    ...(opts.shard ? { shard: opts.shard } : {}),
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    openapi: {
      ...(description.sha256 ? { sha256: description.sha256 } : {}),
      valid: description.valid,
      ...(description.version ? { version: description.version } : {}),
      errors: description.errors,
      validatedAgainst: description.valid ? 'live' : 'documented',
      ...(description.valid ? {} : { documentedBecause: description.because }),
    },
    ...aggregate(tests, [], {
      // One shard judged a part of the capture: PARTIAL at best, as a live run's shard (merge combines them).
      partial: !!opts.shard,
      ...(unreadable.length || input.stopped
        ? {
            cut: {
              kind: 'capture' as const,
              reason: [
                input.stopped,
                unreadable.length
                  ? `${parts(unreadable.length)} of the capture could not be read, the first: ${redactor.text(unreadable[0]!)}`
                  : undefined,
              ]
                .filter(Boolean)
                .join('; '),
            },
          }
        : {}),
    }),
    exchanges: { file: REPORT_FILES.exchanges.name, count: input.cited.size },
    tests,
    capture: {
      files: opts.files,
      entries: judged.entries,
      entriesRead: judged.read,
      exchangesJudged: judged.judgedExchanges,
      requirementsJudged: judgedIds,
      notJudged: tests.filter((t) => t.outcome === 'not_run').flatMap((t) => t.ids),
      problems: judged.problems.map((p) => redactor.text(p)),
      ...(judged.otherOrigins.byOrigin.size
        ? {
            otherOrigins: {
              ...Object.fromEntries(judged.otherOrigins.byOrigin),
              ...(judged.otherOrigins.more ? { '(more origins)': judged.otherOrigins.more } : {}),
            },
          }
        : {}),
      description: description.source,
      holds: {
        ...(judged.holds.from ? { from: judged.holds.from } : {}),
        ...(judged.holds.to ? { to: judged.holds.to } : {}),
        credentials: judged.holds.credentials.size,
        endpoints: [...judged.holds.endpoints].sort(),
        ...(judged.holds.moreEndpoints ? { moreEndpoints: judged.holds.moreEndpoints } : {}),
      },
    },
  };
}

/** The console's account of the capture (unless quiet), and the verdict line, always the last. */
export function printOutcome(
  log: (s: string) => void,
  opts: TrafficOptions,
  summary: Summary,
  source: string,
  _judged: Judged,
  reportDir: string,
): void {
  const line = captureVerdictLine(summary);
  if (!opts.quiet) {
    const c = summary.counts;
    log('');
    log(
      `gateway-conformance ${SUITE_VERSION} — captured traffic (${opts.files.join(', ')}); no request was sent`,
    );
    log(`  responses validated against ${source}`);
    const holds = summary.capture?.holds;
    if (holds) log(`  the capture holds: ${holdsText(holds)}`);
    const other = Object.entries(summary.capture?.otherOrigins ?? {});
    if (other.length)
      log(
        `  left out, not the API's origin: ${other.reduce((n, [, k]) => n + k, 0)} exchange(s) (${other.map(([o, k]) => `${o} ×${k}`).join(', ')})`,
      );
    log(`  passed ${c.passed}, failed ${c.failed}, advisory ${c.advisory}, not judged ${c.not_run}`);
    const failed = Object.entries(summary.failedRequirements);
    if (failed.length) log(`  failed requirements: ${failed.map(([id, k]) => `${id}×${k}`).join(', ')}`);
    const adv = Object.entries(summary.advisoryRequirements);
    if (adv.length) log(`  advisories: ${adv.map(([id, k]) => `${id}×${k}`).join(', ')}`);
    for (const l of groupLines(summary, useColour())) log(l);
    // Each rule with what it needs: one rule's remedy is no other's.
    const notJudged = new Set(summary.capture!.notJudged);
    log(`  not judged (the capture holds nothing they could judge):${notJudged.size ? '' : ' none'}`);
    for (const { id, needs } of captureRules()) if (notJudged.has(id)) log(`    ${id}: needs ${needs}`);
    log(`  report: ${reportDir}`);
  }
  log(line);
}

/** The rules a capture is judged by, each with the form it needs to be judged. */
function captureRules(): ReadonlyArray<{ id: string; needs: string }> {
  return [
    ...PER_EXCHANGE.map((id) => ({ id, needs: formOf(id) })),
    ...TRAFFIC_RULES,
    { id: BUFFERED_STREAM, needs: formOf(BUFFERED_STREAM) },
  ];
}

export interface Description {
  responses: ResponseSource;
  /** What a judging thread builds the same `responses` from. */
  from: DescriptionSource;
  valid: boolean;
  /** The OpenAPI version a valid description declares (`3.1.0`, `3.2.0`). */
  version?: string;
  errors: string[];
  sha256?: string;
  text?: string;
  source: string;
  because?: string;
  failure?: TestResultRecord;
}

/**
 * What responses are validated against: --description, else the capture's own, else schemas/ (`none`:
 * why there is no description, said with each finding and in the summary).
 */
export async function describe(
  file: string | undefined,
  captured: string | undefined,
  none = 'the capture holds no GET /openapi.json',
): Promise<Description> {
  let text = captured;
  let source = "the capture's own GET /openapi.json";
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`--description: cannot read ${file} (${(err as Error).message})`);
    }
    source = file;
  }
  if (text === undefined) {
    const facts = { errors: ['not in the capture'] };
    return {
      responses: documentedFallback(facts, none),
      from: { kind: 'documented', facts, because: none },
      valid: false,
      errors: facts.errors,
      source: `the documented contract (schemas/): ${none}`,
      because: none,
    };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    if (file !== undefined)
      throw new UsageError(`--description: ${file} is not JSON (${(err as Error).message})`);
    doc = undefined;
  }
  const { sha256, ...check } = await judgeDescription(text, doc);
  if (check.valid)
    return {
      responses: new LiveDescription(doc as Record<string, unknown>),
      from: { kind: 'live', text },
      valid: true,
      errors: [],
      ...(check.version ? { version: check.version } : {}),
      sha256,
      text,
      source,
    };
  const facts = { errors: check.errors, ...(check.tooLarge ? { tooLarge: check.tooLarge } : {}) };
  // Only the capture's own description is judged, and only where it is invalid (OAS-001): a file given on
  // the command line, or a description only beyond what the suite examines, is said without an id.
  const judged = file === undefined && check.errors.length > 0;
  const because = `${file ?? "the capture's GET /openapi.json"} is ${onlyTooLarge(facts) ? 'beyond what the suite examines' : 'not usable'}${judged ? ', see OAS-001' : ''}`;
  const out: Description = {
    responses: documentedFallback(facts, because),
    from: { kind: 'documented', facts, because },
    valid: false,
    errors: check.errors,
    sha256,
    text,
    source: `the documented contract (schemas/): ${because}`,
    because,
  };
  if (judged) {
    const v = violation(
      'OAS-001',
      `the capture's GET /openapi.json is not a valid OpenAPI 3.1 or 3.2 document: ${check.errors.slice(0, 3).join('; ')}`,
    );
    out.failure = {
      title: "OAS-001 captured traffic: the capture's description",
      file: 'capture',
      ids: ['OAS-001'],
      effect: 'read',
      outcome: v.severity === 'failure' ? 'failed' : 'advisory',
      durationMs: 0,
      violations: [v],
      exchanges: [],
      exchangeCount: 1,
    };
  }
  return out;
}

const parts = (n: number) => `${n} ${n === 1 ? 'part' : 'parts'}`;
