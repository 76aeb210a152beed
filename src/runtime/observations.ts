/**
 * What one test observed: the places its requests touched (src/applicability.ts), each once; the
 * requirement ids a judgement was made on, each with the answers it read; the status expectations it
 * asserted. A requirement no judged test observed is *not judged* in the run, never passed.
 */
import { type Touch, touchOf } from '../applicability.ts';
import type { Exchange } from '../http/client.ts';

/** What a touched place is made of: the request as sent and what answered it. */
export interface TouchInput {
  method: string;
  path: string;
  role: string;
  headers?: Record<string, string>;
  json?: unknown;
  responseType?: string;
  responseText?: string;
  exchangeId: string;
}

export class Observations {
  /** The places touched, each once (by its JSON form). */
  private readonly touched = new Map<string, Touch>();
  /** The touch (its key in `touched`) of each exchange of the test's own requests. */
  private readonly touchKeyOf = new Map<string, string>();
  /** Ids observed: the touch keys of the answers read, '*' where no answer was named. */
  private readonly observed = new Map<string, Set<string>>();
  /** The status expectations asserted per id. */
  private readonly asserted = new Map<string, Set<string>>();

  /** Notes the place a request touched (method, template, role, format, model, forms), once. */
  touch(input: TouchInput): void {
    const { exchangeId, ...place } = input;
    const t = touchOf(place);
    const key = JSON.stringify(t);
    this.touched.set(key, t);
    this.touchKeyOf.set(exchangeId, key);
  }

  /** A judgement of `id` was made on the answer `exchange` (or on the test's answers as a whole). */
  observe(id: string, exchange?: Exchange): void {
    addTo(this.observed, id, (exchange && this.touchKeyOf.get(exchange.id)) ?? '*');
  }

  /** A status expectation `label` was judged for `id`. */
  assert(id: string, label: string): void {
    addTo(this.asserted, id, label);
  }

  touches(): Touch[] {
    return [...this.touched.values()];
  }

  /** The status expectations asserted, per id (TestRecord.asserted). */
  assertedStatuses(): Record<string, string[]> {
    return Object.fromEntries([...this.asserted].map(([id, labels]) => [id, [...labels].sort()]));
  }

  /** The ids observed, each with the indices into touches() of the answers read (TestRecord.observed). */
  observedIds(): Record<string, number[]> {
    // touches() lists the touched map's values in its key order: a key's position is its index there.
    const index = new Map([...this.touched.keys()].map((k, i) => [k, i]));
    const out: Record<string, number[]> = {};
    for (const [id, keys] of this.observed) {
      const at = [...keys].map((k) => index.get(k)).filter((i): i is number => i !== undefined);
      out[id] = keys.has('*') ? [] : [...new Set(at)].sort((a, b) => a - b);
    }
    return out;
  }
}

/** Adds `value` to the set of `key` in `map`, creating the set on first use. */
function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}
