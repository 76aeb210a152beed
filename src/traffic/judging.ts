/**
 * One item of a capture judged: the entry read into an exchange (capture.ts readEntry), the live run's
 * per-exchange checks and the traffic rules on it, each finding kept under its requirement id; or what
 * could not be read, said. The one code path every reader feeds (a HAR, an NDJSON log, a followed log):
 * judge.ts over whole captures, follow.ts over a growing log.
 */
import type { Finding } from '../checks/exchange.ts';
import { type ExchangeCheckContext, exchangeFindings } from '../checks/per-exchange.ts';
import type { Exchange } from '../http/client.ts';
import type { Redactor } from '../http/redact.ts';
import { ViolationLog } from '../violation-log.ts';
import { type CapturedExchange, readEntry } from './capture.ts';
import type { HarItem } from './har-stream.ts';
import type { TrafficFinding, TrafficState } from './rules.ts';

export interface IdRecord {
  judged: number;
  /** Its violations, in the one log a live test keeps too. */
  log: ViolationLog;
}

/** What the judging judged, per requirement id, and what of the capture it could not read. */
export interface Judged {
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
  /** Exchanges judged whose response body the capture does not hold, and why (the first one's reason). */
  bodiless: { count: number; why?: string };
}

/** What one exchange was found to break, for a line printed as it happens (--follow). */
export type ItemFinding = Finding | TrafficFinding;

export class ExchangeJudge {
  readonly judged: Judged = {
    ids: new Map(),
    problems: [],
    unreadable: [],
    read: 0,
    entries: 0,
    judgedExchanges: 0,
    bodiless: { count: 0 },
  };

  constructor(
    private readonly redactor: Redactor,
    private readonly strict: boolean,
    /** The secrets no reply may hold and what responses are validated against (a followed log adds keys). */
    private readonly ctx: ExchangeCheckContext,
    private readonly state: TrafficState,
  ) {}

  private rec(id: string): IdRecord {
    let r = this.judged.ids.get(id);
    if (!r) {
      r = { judged: 0, log: new ViolationLog(this.redactor, this.strict) };
      this.judged.ids.set(id, r);
    }
    return r;
  }

  private note(f: ItemFinding, exchange: Exchange, scope?: 'exchange'): void {
    this.rec(f.id).log.add(f.id, f.message, {
      exchange,
      ...((f as Finding).pointer !== undefined ? { pointer: (f as Finding).pointer } : {}),
      ...(f.received !== undefined ? { received: f.received } : {}),
      ...(f.expected !== undefined ? { expected: f.expected } : {}),
      ...(f.level ? { level: f.level } : {}),
      ...((f as Finding).verdictCase ? { verdictCase: (f as Finding).verdictCase } : {}),
      ...(scope ? { scope } : {}),
    });
  }

  /** One item of the `n`-th file: judged in capture order, or said as a problem. Returns its findings. */
  item(item: HarItem, file: string, n: number): ItemFinding[] {
    const judged = this.judged;
    if (item.kind === 'problem') {
      judged.problems.push(item.message);
      judged.unreadable.push(item.message);
      if (item.index !== undefined) judged.entries++;
      return [];
    }
    judged.read++;
    judged.entries++;
    const where = `${file} ${item.unit ?? 'entry'} ${item.index}`;
    const x: CapturedExchange = readEntry(item.value, where, `har-${n}-${item.index}`, this.redactor);
    if (!x.res) {
      const problem = `${where} (${x.method} ${this.redactor.pathWithQuery(x.path)}): ${x.problem}; not judged`;
      judged.problems.push(problem);
      if (x.undecodable) judged.unreadable.push(problem);
      return [];
    }
    judged.judgedExchanges++;
    const res = x.res;
    if (res.bodyAbsent !== undefined)
      judged.bodiless = { count: judged.bodiless.count + 1, why: judged.bodiless.why ?? res.bodyAbsent };
    // The per-exchange checks (the live run's, one code path) say which ids this exchange showed the form of.
    const perExchange = exchangeFindings(res, this.ctx);
    for (const id of perExchange.observed) this.rec(id).judged++;
    for (const f of perExchange.findings) this.note(f, res.exchange, 'exchange');
    const { judged: ids, findings } = this.state.judge(x);
    for (const id of ids) this.rec(id).judged++;
    for (const f of findings) this.note(f, res.exchange);
    return [...perExchange.findings, ...findings];
  }
}
