/**
 * `gateway-conformance check-traffic FILE...`: judge the traffic a deployment already has, from HAR
 * captures, with no request sent. Two streamed passes over the files: the first registers every
 * credential the capture holds with the redactor (before anything is printed or written) and finds the
 * capture's own description (`GET /openapi.json`); the second judges each exchange with the live run's
 * per-exchange checks (src/checks/per-exchange.ts) and the contract rules one exchange or a sequence can
 * decide (rules.ts). The result is a run's summary, written by the one report writer, with every rule the
 * capture could not judge listed as not run (never passed).
 */
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formOf, violation } from '../catalogue.ts';
import type { Finding } from '../checks/exchange.ts';
import { PER_EXCHANGE_IDS } from '../checks/per-exchange.ts';
import { BUFFERED_STREAM } from '../checks/stream-pacing.ts';
import { UsageError } from '../errors.ts';
import { type Exchange, recordNow } from '../http/client.ts';
import { Redactor } from '../http/redact.ts';
import { documentedBecause, documentedFallback } from '../openapi/fallback.ts';
import { judgeDescription, LiveDescription } from '../openapi/live.ts';
import { SUITE_VERSION } from '../paths.ts';
import { groupLines } from '../report/console.ts';
import { REPORT_FILES, reportFile } from '../report/layout.ts';
import { redactConsole } from '../report/neutral.ts';
import { useColour } from '../report/progress.ts';
import { aggregate, EXIT, exitCodeOf, flatReason, type Summary, verdictWord } from '../report/summary.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import { writeReport } from '../report/write.ts';
import { ViolationLog } from '../violation-log.ts';
import { type CapturedExchange, harHeaders, readEntry, registerCredentials } from './capture.ts';
import { type DescriptionSource, type EntryJudgement, judgeEntry } from './entry.ts';
import { fileStamp, HarPlan, harPlaces, harPlanned, harTexts, parseEntry } from './har-stream.ts';
import { TrafficProgress } from './progress.ts';
import {
  type SequenceExchange,
  sequenceView,
  TRAFFIC_RULES,
  type TrafficFinding,
  TrafficState,
} from './rules.ts';
import { type EntryText, entryTexts, JudgingThreads } from './threads.ts';

export interface TrafficOptions {
  files: string[];
  reportDir?: string;
  /** A description to validate responses against, instead of the capture's own GET /openapi.json. */
  description?: string;
  strict?: boolean;
  quiet?: boolean;
  /**
   * Threads that run the per-exchange checks beside this one (default 0: all in this thread). The
   * findings and the report are the same either way. Why not by default: on 2 cores the reading thread
   * (reading, handing entries over, taking the judgements back) costs about what the threads save.
   */
  threads?: number;
}

/** Judging threads at most: past that the reading thread is what bounds the rate. */
const MAX_THREADS = 4;

/** The per-exchange checks' ids (src/checks/, the description): judged on every exchange read. */
const PER_EXCHANGE = PER_EXCHANGE_IDS;
/** The capture's own description is kept only up to this size (it is read into memory). */
const MAX_DESCRIPTION_BYTES = 16 * 1024 * 1024;

interface IdRecord {
  judged: number;
  /** Its violations, in the one log a live test keeps too. */
  log: ViolationLog;
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

export async function checkTraffic(
  opts: TrafficOptions,
  out: (s: string) => void = console.log,
): Promise<{ summary?: Summary; exitCode: number; reportDir?: string }> {
  if (opts.files.length === 0) throw new UsageError('check-traffic: name one or more HAR files');
  const redactor = new Redactor({});
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
  const size = TrafficProgress.sizeOf(opts.files);
  const progress = new TrafficProgress(size, opts.quiet ? undefined : log);
  // Started now, the threads load their code while the first pass reads.
  const count = Math.max(0, Math.min(MAX_THREADS, Math.floor(opts.threads ?? 0)));
  const threads = count > 0 ? new JudgingThreads(count) : undefined;
  let judged: Judged;
  let description: Description;
  let facts: CaptureFacts;
  try {
    facts = await readCapture(opts.files, redactor, progress);
    progress.nextPass();
    description = await describe(opts.description, facts.captured);
    judged = await judgeExchanges(opts, redactor, facts, description, progress, threads);
  } finally {
    await threads?.close();
  }
  for (const p of judged.problems) log(`check-traffic: ${p}`);
  // No exchange could be read (not HAR, empty, unreadable, no entry with a response): said, exit 2, and
  // no report directory is made.
  if (judged.judgedExchanges === 0) {
    log('check-traffic: no exchange could be read from the capture; nothing judged');
    return { exitCode: EXIT.usage };
  }
  const reportDir = resolve(opts.reportDir ?? join('reports', 'captured-traffic', stamp()));
  mkdirSync(reportDir, { recursive: true });
  const cited = await writeEvidence(reportDir, description, judged.ids);
  const tests = testRecords(description, judged, redactor);
  const summary = summarise({
    opts,
    startedAt,
    hosts: facts.hosts,
    description,
    judged,
    tests,
    cited,
    redactor,
  });
  writeReport(reportDir, summary, [], redactor);
  printOutcome(log, opts, summary, description.source, judged, reportDir);
  return { summary, exitCode: exitCodeOf(summary), reportDir };
}

/** What the first pass finds in the capture, before any exchange is judged. */
interface CaptureFacts {
  /** The capture's own description (the body of its first GET /openapi.json 200), if it holds one. */
  captured?: string;
  /** The keys the deployment accepted (a 2xx with it): no reply may hold them (SEC-001). */
  keys: Set<string>;
  /** Whether the capture's requests carry an Authorization header at all (rules.ts judges auth then). */
  authorized: boolean;
  /** The origins the capture's requests went to (the summary's target). */
  hosts: Set<string>;
  /** Where each file's entries stand, as this pass found them: the second pass cuts them out there. */
  plans: HarPlan[];
}

/** Pass 1: every credential (registered with the redactor), and the capture's own description. */
async function readCapture(
  files: string[],
  redactor: Redactor,
  progress: TrafficProgress,
): Promise<CaptureFacts> {
  const facts: CaptureFacts = { keys: new Set(), authorized: false, hosts: new Set(), plans: [] };
  let entries = 0;
  for (const file of files) {
    let bytes = 0;
    const plan = new HarPlan(file, fileStamp(file) ?? '');
    facts.plans.push(plan);
    for await (const text of harTexts(file, (b) => {
      bytes = b;
    })) {
      plan.add(text);
      progress.tick('reading', bytes, entries);
      const item = text.kind === 'text' ? parseEntry(file, text.index, text.text) : text;
      if (item.kind !== 'entry') continue;
      entries++;
      // Every credential is redacted; only a key the deployment accepted (a 2xx with it) is a secret no
      // reply may hold (SEC-001): an echo of a wrong key the client sent is no leak of a key.
      const sent = registerCredentials(item.value, redactor);
      const status = (item.value as { response?: { status?: unknown } })?.response?.status;
      if (typeof status === 'number' && status >= 200 && status < 300)
        for (const k of sent) facts.keys.add(k);
      if (!facts.authorized && (item.value as { request?: { headers?: unknown } })?.request?.headers)
        facts.authorized =
          'authorization' in harHeaders((item.value as { request: { headers: unknown } }).request.headers);
      const e = item.value as {
        request?: { url?: unknown; method?: unknown };
        response?: { status?: unknown; content?: { text?: unknown; encoding?: unknown } };
      };
      const url = typeof e?.request?.url === 'string' ? e.request.url : '';
      try {
        facts.hosts.add(new URL(url).origin);
      } catch {
        // a relative url names no host
      }
      if (
        facts.captured === undefined &&
        e?.request?.method === 'GET' &&
        /^(?:[a-z]+:\/\/[^/]+)?\/openapi\.json(?:\?|$)/i.test(url) &&
        e.response?.status === 200 &&
        typeof e.response.content?.text === 'string' &&
        e.response.content.text.length <= MAX_DESCRIPTION_BYTES
      )
        facts.captured =
          e.response.content.encoding === 'base64'
            ? Buffer.from(e.response.content.text, 'base64').toString('utf8')
            : e.response.content.text;
    }
    progress.fileDone(bytes);
  }
  return facts;
}

/** What the second pass judged, per requirement id, and what of the capture it could not read. */
interface Judged {
  ids: Map<string, IdRecord>;
  /** Every input problem, in capture order (printed, and listed in the summary). */
  problems: string[];
  /**
   * Where the capture could not be read (a truncated file, an entry that is no JSON object, a body that
   * does not decode): what stood there was not judged, so the verdict cannot be PASSED (INCOMPLETE).
   * An entry without a response, or whose body the capturing tool left out, is read as it stands.
   */
  unreadable: string[];
  /** Entries read (each a JSON object). */
  read: number;
  /** Entries met, read or not. */
  entries: number;
  /** Exchanges judged (entries with a response). */
  judgedExchanges: number;
}

/** Entries per batch handed to a judging thread, and batches in flight per thread (memory stays bounded). */
const BATCH_ENTRIES = 256;
const IN_FLIGHT_PER_THREAD = 3;

/** A slot of pass 2, in capture order: what the reader could not read, or an entry to judge. */
type Slot = { kind: 'problem'; message: string; counted: boolean } | { kind: 'entry'; entry: EntryText };

/**
 * Pass 2: judge every exchange in capture order, with the live run's checks and the traffic rules. The
 * per-exchange checks run here or, given `threads`, in those threads on batches of entries; their
 * judgements are applied in capture order all the same, each exchange's before the sequence rules judge
 * it (one thread, capture order), so the findings, their order and the report do not depend on threads.
 */
async function judgeExchanges(
  opts: TrafficOptions,
  redactor: Redactor,
  facts: CaptureFacts,
  description: Description,
  progress: TrafficProgress,
  threads?: JudgingThreads,
): Promise<Judged> {
  const judged: Judged = {
    ids: new Map(),
    problems: [],
    unreadable: [],
    read: 0,
    entries: 0,
    judgedExchanges: 0,
  };
  const rec = (id: string): IdRecord => {
    let r = judged.ids.get(id);
    if (!r) {
      r = { judged: 0, log: new ViolationLog(redactor, !!opts.strict) };
      judged.ids.set(id, r);
    }
    return r;
  };
  const note = (f: Finding | TrafficFinding, exchange: Exchange, scope?: 'exchange') => {
    rec(f.id).log.add(f.id, f.message, {
      exchange,
      ...((f as Finding).pointer !== undefined ? { pointer: (f as Finding).pointer } : {}),
      ...(f.received !== undefined ? { received: f.received } : {}),
      ...(f.expected !== undefined ? { expected: f.expected } : {}),
      ...(f.level ? { level: f.level } : {}),
      ...((f as Finding).verdictCase ? { verdictCase: (f as Finding).verdictCase } : {}),
      ...(scope ? { scope } : {}),
    });
  };
  const state = new TrafficState(facts.authorized);
  // SEC-001: no reply may hold an accepted key the capture's requests carried (cookies are echoed by design).
  const secrets = [...facts.keys].map((value) => ({ label: 'captured key', value }));
  const ctx = { secrets, responses: description.responses };
  threads?.setup({ registrations: redactor.registrations(), secrets, description: description.from });
  const where = (e: EntryText) => `${e.file} entry ${e.index}`;
  const idOf = (e: EntryText) => `har-${e.n}-${e.index}`;

  /** A problem of the reader: said, and not judged (an entry that is no JSON counts as an entry). */
  const applyProblem = (message: string, counted: boolean) => {
    judged.problems.push(message);
    judged.unreadable.push(message);
    if (counted) judged.entries++;
  };
  /** One entry's judgement: its per-exchange findings, then what the sequence rules find on it. */
  const apply = (j: EntryJudgement<SequenceExchange>, cite: () => Exchange) => {
    if (j.kind === 'unreadable') return applyProblem(j.message, true);
    judged.read++;
    judged.entries++;
    if (j.kind === 'problem') {
      judged.problems.push(j.problem);
      if (j.undecodable) judged.unreadable.push(j.problem);
      return;
    }
    judged.judgedExchanges++;
    // The exchange's record, made once when a finding first cites it.
    let cited: Exchange | undefined;
    const exchange = () => {
      cited ??= j.exchange ?? recordNow(cite());
      return cited;
    };
    // The per-exchange checks (the live run's, one code path) say which ids this exchange showed the form of.
    for (const id of j.perExchange.observed) rec(id).judged++;
    for (const f of j.perExchange.findings) note(f, exchange(), 'exchange');
    // The rules judge their view of the exchange, whichever thread read it (one hands over only that).
    const { judged: ids, findings } = state.judge(sequenceView(j.x));
    for (const id of ids) rec(id).judged++;
    for (const f of findings) note(f, exchange());
  };
  /** An entry judged in this thread. */
  const judgeHere = (e: EntryText) => {
    const parsed = parseEntry(e.file, e.index, e.text ?? entryTexts([e])[0]!);
    if (parsed.kind === 'problem')
      return apply({ kind: 'unreadable', message: parsed.message }, () => {
        throw new Error('an unreadable entry cites no exchange');
      });
    const j = judgeEntry(parsed.value, where(e), idOf(e), redactor, ctx);
    apply(j, () => (j as { x: CapturedExchange }).x.res!.exchange);
  };
  /**
   * The record of an exchange another thread judged, where only a sequence rule cites it: read again
   * here from its text (the record is made from the same entry by the same redactor).
   */
  const reread = (e: EntryText) => () =>
    readEntry(JSON.parse(entryTexts([e])[0]!), where(e), idOf(e), redactor).res!.exchange;

  const pending: Array<{ slots: Slot[]; judgements: Promise<Array<EntryJudgement<SequenceExchange>>> }> = [];
  let batch: Slot[] = [];
  let entries = 0;
  const settle = async (b: (typeof pending)[number]) => {
    const js = await b.judgements;
    let k = 0;
    for (const slot of b.slots)
      if (slot.kind === 'problem') applyProblem(slot.message, slot.counted);
      else apply(js[k++]!, reread(slot.entry));
  };
  const flush = async (pool: JudgingThreads) => {
    const texts = batch.flatMap((s) => (s.kind === 'entry' ? [s.entry] : []));
    pending.push({ slots: batch, judgements: texts.length ? pool.judge(texts) : Promise.resolve([]) });
    batch = [];
    entries = 0;
    while (pending.length > pool.size * IN_FLIGHT_PER_THREAD) await settle(pending.shift()!);
  };
  for (const [n, file] of opts.files.entries()) {
    let bytes = 0;
    // The entries where the first pass found them (the file read anew if it changed since).
    // With threads, only the entries' places: each thread reads the bytes it judges.
    const plan = facts.plans[n]!;
    for await (const item of threads && fileStamp(file) === plan.stamp
      ? harPlaces(plan, (b) => {
          bytes = b;
        })
      : harPlanned(plan, (b) => {
          bytes = b;
        })) {
      progress.tick('judging', bytes, judged.entries);
      const slot: Slot =
        item.kind === 'problem'
          ? { kind: 'problem', message: item.message, counted: item.index !== undefined }
          : {
              kind: 'entry',
              entry:
                item.from !== undefined && item.text === ''
                  ? { file, n, index: item.index, from: item.from, to: item.to! }
                  : { file, n, index: item.index, text: item.text },
            };
      if (!threads) {
        if (slot.kind === 'problem') applyProblem(slot.message, slot.counted);
        else judgeHere(slot.entry);
        continue;
      }
      batch.push(slot);
      if (slot.kind === 'entry' && ++entries >= BATCH_ENTRIES) await flush(threads);
    }
    progress.fileDone(bytes);
  }
  if (threads) {
    await flush(threads);
    while (pending.length) await settle(pending.shift()!);
  }
  return judged;
}

/**
 * The report directory's evidence: the description judged against (when there was one) and the
 * exchange log. The log holds the exchanges the findings cite (redacted), not the whole capture: the
 * capture is the full log already, and the report writer reads its files whole (memory stays bounded
 * by the findings, not by the size of the capture). Returns the exchanges cited, by id.
 */
async function writeEvidence(
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
function testRecords(description: Description, judged: Judged, redactor: Redactor): TestResultRecord[] {
  const tests: TestResultRecord[] = [];
  if (description.failure) tests.push(description.failure);
  const known = [
    ...PER_EXCHANGE.map((id) => ({ id, needs: formOf(id) })),
    ...TRAFFIC_RULES,
    { id: BUFFERED_STREAM, needs: formOf(BUFFERED_STREAM) },
  ];
  for (const { id, needs } of known) {
    const r = judged.ids.get(id);
    if (!r || r.judged === 0) {
      tests.push({
        title: `${id} captured traffic: not judged`,
        file: 'capture',
        ids: [id],
        effect: 'read',
        outcome: 'not_run',
        durationMs: 0,
        reason: `not judged: the capture holds nothing it needs (${needs})`,
        cause: { kind: 'precondition', subject: 'captured traffic', remedy: `capture traffic with ${needs}` },
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
interface SummaryInput {
  opts: TrafficOptions;
  startedAt: Date;
  hosts: Set<string>;
  description: Description;
  judged: Judged;
  tests: TestResultRecord[];
  cited: Map<string, Exchange>;
  redactor: Redactor;
}

/** The run's summary of a capture: the shape a live run's has, with the capture's own counts. */
function summarise(input: SummaryInput): Summary {
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
      ...(unreadable.length
        ? {
            cut: {
              kind: 'capture' as const,
              reason: `${parts(unreadable.length)} of the capture could not be read, the first: ${redactor.text(unreadable[0]!)}`,
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
      description: description.source,
    },
  };
}

/** The console's account of the capture (unless quiet), and the verdict line, always the last. */
function printOutcome(
  log: (s: string) => void,
  opts: TrafficOptions,
  summary: Summary,
  source: string,
  judged: Judged,
  reportDir: string,
): void {
  const capture = summary.capture!;
  const line = `VERDICT: ${verdictWord(summary.verdict)} (${summary.cut ? flatReason(`${summary.verdict === 'incomplete' ? '' : 'INCOMPLETE: '}${summary.cut.reason}; `) : ''}captured traffic: ${judged.judgedExchanges} of ${judged.entries} entries judged, ${capture.requirementsJudged} requirements judged, ${capture.notJudged.length} not judged by this capture${judged.problems.length ? `, ${judged.problems.length} input problem(s)` : ''})`;
  if (!opts.quiet) {
    const c = summary.counts;
    log('');
    log(
      `gateway-conformance ${SUITE_VERSION} — captured traffic (${opts.files.join(', ')}); no request was sent`,
    );
    log(`  responses validated against ${source}`);
    log(`  passed ${c.passed}, failed ${c.failed}, advisory ${c.advisory}, not judged ${c.not_run}`);
    const failed = Object.entries(summary.failedRequirements);
    if (failed.length) log(`  failed requirements: ${failed.map(([id, k]) => `${id}×${k}`).join(', ')}`);
    const adv = Object.entries(summary.advisoryRequirements);
    if (adv.length) log(`  advisories: ${adv.map(([id, k]) => `${id}×${k}`).join(', ')}`);
    for (const l of groupLines(summary, useColour())) log(l);
    log(
      `  not judged (the capture holds nothing they could judge): ${capture.notJudged.join(', ') || 'none'}`,
    );
    log(`  report: ${reportDir}`);
  }
  log(line);
}

interface Description {
  responses: { checkResponse: LiveDescription['checkResponse'] };
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

/** What responses are validated against: --description, else the capture's own, else schemas/. */
async function describe(file: string | undefined, captured: string | undefined): Promise<Description> {
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
      responses: documentedFallback(facts),
      from: { kind: 'documented', facts },
      valid: false,
      errors: facts.errors,
      source: 'the documented contract (schemas/): the capture holds no GET /openapi.json',
      because: 'the capture holds no GET /openapi.json',
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
  const out: Description = {
    responses: documentedFallback(facts),
    from: { kind: 'documented', facts },
    valid: false,
    errors: check.errors,
    sha256,
    text,
    source: `the documented contract (schemas/): ${source} is not usable`,
    because: documentedBecause(facts),
  };
  // The target's own description is judged (OAS-001); a file given on the command line is not the target's.
  if (file === undefined && check.errors.length > 0) {
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
