/**
 * The one log of violations, for a live test (CheckContext) and for a requirement judged on captured
 * traffic (src/traffic/judge.ts) alike: each violation once per id, message and pointer (repeats
 * counted), at most MAX_LISTED_PER_ID listed per id (the rest counted in one entry: a reply may raise a
 * finding per entry of a 40,000-entry list), messages redacted and evidence capped in size.
 */
import { violation } from './catalogue.ts';
import type { Exchange } from './http/client.ts';
import type { Redactor } from './http/redact.ts';
import { capEvidence } from './openapi/guard.ts';
import type { VerdictCase, Violation } from './vocabulary.ts';

/** Distinct violations of one requirement id listed; the rest are counted in one entry. */
export const MAX_LISTED_PER_ID = 25;

export type CountedViolation = Violation & { count: number };

/** What a violation may carry beside its id and message. */
export interface ViolationExtra {
  pointer?: string;
  received?: unknown;
  expected?: unknown;
  exchange?: Exchange;
  level?: 'notable' | 'failure';
  scope?: 'exchange';
  verdictCase?: VerdictCase;
}

export class ViolationLog {
  readonly violations: CountedViolation[] = [];
  /** The exchanges the violations cite, by id. */
  readonly cited = new Map<string, Exchange>();
  private readonly byKey = new Map<string, CountedViolation>();
  private readonly listedById = new Map<string, number>();

  constructor(
    private readonly redactor: Redactor,
    private readonly strict: boolean,
  ) {}

  add(id: string, message: string, extra: ViolationExtra = {}): void {
    const made = (text: string) =>
      violation(id, text, { strict: this.strict, ...(extra.level ? { level: extra.level } : {}) });
    const key = `${id}\n${message}\n${extra.pointer ?? ''}`;
    const same = this.byKey.get(key);
    if (same) {
      same.count++;
      return;
    }
    const listed = this.listedById.get(id) ?? 0;
    if (listed >= MAX_LISTED_PER_ID) {
      const more = this.byKey.get(`${id}\n(more)`);
      if (more) more.count++;
      else {
        const v = made(
          `${id}: more violations like the ${MAX_LISTED_PER_ID} above, counted here but not listed`,
        );
        v.unlisted = true;
        this.byKey.set(`${id}\n(more)`, v);
        this.violations.push(v);
      }
      return;
    }
    this.listedById.set(id, listed + 1);
    const v = made(this.redactor.text(message));
    if (extra.pointer !== undefined) v.pointer = extra.pointer;
    // Evidence is capped in size (the rest counted, not copied): a body or enum may be megabytes.
    if (extra.received !== undefined) v.received = this.redactor.value(capEvidence(extra.received));
    if (extra.expected !== undefined) v.expected = this.redactor.value(capEvidence(extra.expected));
    // Only a listed violation cites its exchange (repeats and the unlisted are counted): the evidence kept
    // stays bounded by MAX_LISTED_PER_ID per id, however long a followed log runs.
    if (extra.exchange) {
      v.exchangeId = extra.exchange.id;
      this.cited.set(extra.exchange.id, extra.exchange);
    }
    if (extra.scope) v.scope = extra.scope;
    if (extra.verdictCase)
      v.verdictCase = { ...extra.verdictCase, what: this.redactor.text(extra.verdictCase.what) };
    this.byKey.set(key, v);
    this.violations.push(v);
  }
}
