/**
 * One HAR entry judged by the per-exchange checks, in whichever thread: read into the client's exchange
 * record (capture.ts), then the live run's checks (src/checks/per-exchange.ts). The sequence rules
 * (rules.ts) are not run here: they judge in capture order, in one thread (judge.ts). What a judging
 * thread needs to judge alike is `JudgeSetup`: the credentials registered in the first pass, in order,
 * the keys no reply may hold, and the description responses are validated against.
 */
import type { Finding } from '../checks/exchange.ts';
import {
  type ExchangeCheckContext,
  type ExchangeJudgement,
  exchangeFindings,
} from '../checks/per-exchange.ts';
import { type Exchange, recordNow } from '../http/client.ts';
import type { Redactor, RedactorTables } from '../http/redact.ts';
import { documentedFallback } from '../openapi/fallback.ts';
import type { DescriptionFacts } from '../openapi/guard.ts';
import { LiveDescription } from '../openapi/live.ts';
import { type CapturedExchange, readEntry } from './capture.ts';
import { parseEntry } from './har-stream.ts';
import { type SequenceExchange, sequenceView } from './rules.ts';

/** The description in use, as another thread builds the same checker from it. */
export type DescriptionSource =
  | { kind: 'live'; text: string }
  /** `because`: why the description is not used, said with each finding (documentedFallback). */
  | { kind: 'documented'; facts: DescriptionFacts; because: string };

export interface JudgeSetup {
  /** The redactor after the first pass: its registrations, in order, and its tables (Redactor.tables). */
  redactor: RedactorTables;
  secrets: ExchangeCheckContext['secrets'];
  description: DescriptionSource;
}

/** The response checker of a description source (the same one judge.ts builds from it). */
export function responsesOf(source: DescriptionSource): ExchangeCheckContext['responses'] {
  return source.kind === 'live'
    ? new LiveDescription(JSON.parse(source.text) as Record<string, unknown>)
    : documentedFallback(source.facts, source.because);
}

/** How an entry is named in problems and findings (`unit`: a HAR's entry, a log's line). */
export const entryWhere = (file: string, index: number, unit: 'entry' | 'line' = 'entry'): string =>
  `${file} ${unit} ${index}`;
/** The id of the exchange of entry `index` of the `n`-th file (unique over the capture). */
export const entryId = (n: number, index: number): string => `har-${n}-${index}`;

/** What one entry of a capture came to, before the sequence rules. */
export type EntryJudgement<X extends SequenceExchange = CapturedExchange> =
  /** The entry is not JSON (parseEntry's problem): not read. */
  | { kind: 'unreadable'; message: string }
  /** An entry with no usable response, or a body that does not decode: said, not judged. */
  | { kind: 'problem'; problem: string; undecodable: boolean }
  | {
      kind: 'exchange';
      x: X;
      perExchange: ExchangeJudgement;
      /** The exchange's record, when another thread judged it and a finding cites it (recordNow). */
      exchange?: Exchange;
    };

/** One entry (parsed, `where` names it) read and judged by the per-exchange checks. */
export function judgeEntry(
  value: unknown,
  where: string,
  id: string,
  redactor: Redactor,
  ctx: ExchangeCheckContext,
): EntryJudgement {
  const x = readEntry(value, where, id, redactor);
  if (!x.res)
    return {
      kind: 'problem',
      problem: `${where} (${x.method} ${redactor.pathWithQuery(x.path)}): ${x.problem}; not judged`,
      undecodable: x.undecodable === true,
    };
  return { kind: 'exchange', x, perExchange: exchangeFindings(x.res, ctx) };
}

/**
 * A judgement as another thread hands it over: the exchange reduced to what the rules read, and its
 * record (made now) only where a finding of the per-exchange checks cites it.
 */
export function forTransfer(j: EntryJudgement): EntryJudgement<SequenceExchange> {
  if (j.kind !== 'exchange') return j;
  const { x, perExchange } = j;
  const res = x.res!;
  const findings: Finding[] = perExchange.findings;
  return {
    kind: 'exchange',
    x: sequenceView(x),
    perExchange,
    ...(findings.length ? { exchange: recordNow(res.exchange) } : {}),
  };
}

/**
 * One entry of a batch judged from its text, as every judging thread (and the reading thread, for its
 * share of the batches) does: not JSON is unreadable; else judged and handed over (forTransfer).
 */
export function judgeText(
  e: { file: string; n: number; index: number },
  text: string,
  redactor: Redactor,
  ctx: ExchangeCheckContext,
): EntryJudgement<SequenceExchange> {
  const parsed = parseEntry(e.file, e.index, text);
  if (parsed.kind === 'problem') return { kind: 'unreadable', message: parsed.message };
  return forTransfer(
    judgeEntry(parsed.value, entryWhere(e.file, e.index), entryId(e.n, e.index), redactor, ctx),
  );
}
