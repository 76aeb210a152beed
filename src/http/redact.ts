import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SharedWindows, WindowFilter, WindowTable } from './windows.ts';

/**
 * Redaction of secrets in everything the suite records or prints. Why fragments and not only whole
 * values: a probe sends *parts* and *encodings* of a key (truncated, appended, URL-encoded, in a cookie)
 * and a target may echo any of them back ("Incorrect API key provided: sk-..."), so every run of at least
 * FRAGMENT_CHARS characters of a key, in any of the forms a key travels in (raw, URL-encoded,
 * JSON-escaped, base64 at each of the three byte alignments), is replaced wherever it appears.
 * Credential-bearing request headers and query parameters are also masked whole, so what the suite
 * sent never shows even a short piece of a key.
 */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'cookie',
  'x-api-key',
  'api-key',
  'proxy-authorization',
]);
const CREDENTIAL_PARAM = /key|token|auth|secret|password/i;

/**
 * The credentials the suite's own probes send that are not keys of anyone: published in this source, so
 * not secrets. Why they are exempt: registered as a "sent credential" their fragments (`conformance-`)
 * would blank later evidence that merely shares them (a model id `no-such-model-conformance-...`), and
 * the evidence would no longer be the request that was judged. Suites take them from here.
 */
export const PROBE_CREDENTIALS = {
  /** A well-formed key that no deployment issued. */
  unknownKey: `sk-conformance-${'0123456789abcdef'.repeat(2)}`,
  /** A bearer value that is not even shaped like a key. */
  notAKey: 'sk-conformance-not-a-key',
} as const;
const PUBLIC_CREDENTIALS: ReadonlySet<string> = new Set(Object.values(PROBE_CREDENTIALS));

/**
 * The shortest run of a key's characters that is redacted. Why 12: a key's random part carries about
 * 6 bits a character, so 12 characters (~70 bits) never occur by chance in a reply or a report (nothing
 * but the key is redacted), while an echo long enough to matter is caught: the 30-character prefix of a
 * 36-character key (the truncated-key probe) holds 19 such runs, and after URL-encoding (`+` -> `%2B`)
 * or JSON-escaping (`/` -> `\/`) it only grows. Shorter keys are redacted whole.
 */
export const FRAGMENT_CHARS = 12;

/** Texts up to this length are remembered redacted (Redactor.text), up to MEMO_ENTRIES of them. */
const MEMO_MAX_CHARS = 256;
const MEMO_ENTRIES = 4_096;

/** Positions looked up in a text: every 6th (anchors of 7 characters, ~40 bits of a key's randomness). */
const SAMPLE_STEP = 6;
/** An anchor's length: any run of FRAGMENT_CHARS holds one that starts at a sampled position. */
const ANCHOR_CHARS = FRAGMENT_CHARS - SAMPLE_STEP + 1;
/** The label index of fragments whose label came after 255 others (WindowTable holds 0 to 255). */
const UNNAMED = 255;

/** The forms a key takes on the wire and in files, each to be searched for fragments. */
export function keyForms(key: string): string[] {
  const forms = new Set<string>([key]);
  const url = encodeURIComponent(key);
  forms.add(url);
  forms.add(url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  const json = JSON.stringify(key).slice(1, -1);
  forms.add(json);
  forms.add(json.replaceAll('/', '\\/'));
  const bytes = Buffer.from(key, 'utf8');
  for (const align of [0, 1, 2]) {
    // The characters that encode only the key's bytes when `align` other bytes precede it.
    const b64 = Buffer.concat([Buffer.alloc(align), bytes]).toString('base64');
    const body = b64.slice(align ? 4 : 0, Math.floor((align + bytes.length) / 3) * 4);
    forms.add(body);
    forms.add(body.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms].filter((f) => f.length > 0);
}

/**
 * The secrets registered, each once, with their labels and in their order: what another thread's redactor
 * is made from. Alone (no redaction), it is what a thread that only learns a capture's credentials for
 * another needs: the Redactor's tables cost about 0.1 ms a key, and a capture may hold many keys.
 */
export class Registrations {
  /**
   * Each value registered and its label: registered once each, whatever their number (a capture's
   * credentials), and the role of a masked credential header named by a lookup, not a scan.
   */
  protected readonly labels = new Map<string, string>();
  /** What was registered (value, label), in order: another thread's redactor is made the same from it. */
  private readonly order: Array<[string, string]> = [];

  /** How many values were registered. */
  protected get count(): number {
    return this.order.length;
  }

  /** Note `value` with `label` (values shorter than 4 characters are no secret anyone could use). */
  register(value: string, label: string): void {
    this.note(value, label);
  }

  /** Whether `value` is new and a secret: then noted. */
  protected note(value: string, label: string): boolean {
    if (value.length < 4 || this.labels.has(value)) return false;
    this.labels.set(value, label);
    this.order.push([value, label]);
    return true;
  }

  /**
   * Every value registered and its label, in the order registered (a copy: `new Redactor` then `register`
   * each); from the `from`-th on, given it (what was registered since).
   */
  registrations(from = 0): Array<[string, string]> {
    return this.order.slice(from).map(([v, l]) => [v, l]);
  }

  /**
   * Register the credentials a request is about to carry (header values after their scheme, cookie
   * values, credential-like query parameters), so that an echo of exactly what was sent is redacted
   * even when it is not derived from a configured key.
   */
  registerSent(path: string, headers: Record<string, string>): void {
    for (const [name, value] of Object.entries(headers)) {
      const h = name.toLowerCase();
      if (!CREDENTIAL_HEADERS.has(h)) continue;
      if (h === 'cookie')
        for (const m of value.matchAll(/=([^;]*)/g)) this.register(m[1]!.trim(), 'sent credential');
      else if (!PUBLIC_CREDENTIALS.has(credentialOf(value)))
        this.register(credentialOf(value), 'sent credential');
    }
    const q = path.indexOf('?');
    if (q < 0) return;
    for (const [k, v] of new URLSearchParams(path.slice(q + 1)))
      if (CREDENTIAL_PARAM.test(k)) this.register(v, 'sent credential');
  }
}

/**
 * A redactor as another thread takes it over (Redactor.tables, Redactor.from): what was registered, and
 * the tables built from it, the large ones in shared memory. Why not the registrations alone: a capture
 * of thousands of keys makes tables of tens of MB (40 MB for 15,596 keys), which each thread would build
 * again, and hold.
 */
export interface RedactorTables {
  registrations: Array<[string, string]>;
  grams: SharedWindows;
  anchors: SharedWindows;
  names: string[];
  heads: Uint32Array;
  wideHeads: boolean;
  whole: Array<[string, string]>;
}

export class Redactor extends Registrations {
  /** Every FRAGMENT_CHARS-long run of every form of every secret, with its label's index in `names`. */
  private grams = new WindowTable(FRAGMENT_CHARS);
  /** Every shorter run (FRAGMENT_CHARS - SAMPLE_STEP + 1) of the same forms: where to look closer. */
  private anchors = new WindowFilter(ANCHOR_CHARS);
  /**
   * The labels of the fragments, each once (grams holds their indexes): the first UNNAMED; a fragment
   * of a later label is masked without one (labels are the few roles of a configuration).
   */
  private names: string[] = [];
  /**
   * The anchors' first three characters, one bit each (7-bit characters: 2^21 bits): a sampled position
   * whose three characters are not among them holds no anchor, so the scan passes on without hashing
   * a window (most positions of most texts, while the keys are few). `wideHeads`: some anchor starts
   * with a character beyond 7 bits, so a position with one is looked up.
   */
  private heads = new Uint32Array(1 << 16);
  private wideHeads = false;
  /** Secrets shorter than a fragment, matched whole, longest first. */
  private whole: Array<[string, string]> = [];
  /** Short texts already redacted (header values, paths recur): emptied whenever a secret is registered. */
  private readonly done = new Map<string, string>();
  /** How many of the values registered the tables hold (`build` adds the others). */
  private built = 0;

  constructor(secrets: Record<string, string | undefined>) {
    super();
    for (const [label, value] of Object.entries(secrets))
      if (typeof value === 'string') this.register(value, label);
  }

  /** This redactor for another thread (Redactor.from), its large tables shared, not copied. */
  tables(): RedactorTables {
    if (this.built < this.count) this.build();
    return {
      registrations: this.registrations(),
      grams: this.grams.share(),
      anchors: this.anchors.share(),
      names: [...this.names],
      heads: this.heads,
      wideHeads: this.wideHeads,
      whole: this.whole.map(([v, l]) => [v, l]),
    };
  }

  /** A redactor that redacts as the one whose `tables` these are, without building them again. */
  static from(t: RedactorTables): Redactor {
    const r = new Redactor({});
    for (const [value, label] of t.registrations) r.note(value, label);
    r.built = t.registrations.length;
    r.grams = WindowTable.from(t.grams);
    r.anchors = WindowFilter.from(t.anchors);
    r.names = [...t.names];
    r.heads = t.heads.slice();
    r.wideHeads = t.wideHeads;
    r.whole = t.whole.map(([v, l]) => [v, l]);
    return r;
  }

  /**
   * Redact `value` (and every long-enough fragment of it, in every form) from now on. Values shorter
   * than 4 characters are not secrets anyone could use and are ignored. Its tables are built before the
   * next redaction (`build`): a capture's thousands of keys are registered before anything is redacted.
   */
  override register(value: string, label: string): void {
    if (this.note(value, label)) this.done.clear();
  }

  /**
   * The tables of every value registered since the last build, in one go: the fragment table and the
   * anchor filter sized once for all of them (built one key at a time, the filter was made again and
   * again from every key so far, and the table doubled as often).
   */
  private build(): void {
    const todo = this.registrations(this.built);
    this.built += todo.length;
    const forms = todo.map(([value, label]) => ({ forms: keyForms(value), label }));
    let windows = 0;
    let fragments = 0;
    for (const { forms: fs } of forms)
      for (const f of fs)
        if (f.length >= FRAGMENT_CHARS) {
          windows += f.length - ANCHOR_CHARS + 1;
          fragments += f.length - FRAGMENT_CHARS + 1;
        }
    this.grams.reserve(fragments);
    let anchors = this.anchors;
    if (!anchors.fits(windows)) {
      // A filter for all of them, made again from every form registered before (it cannot grow).
      anchors = new WindowFilter(ANCHOR_CHARS, anchors.size + windows);
      for (const [value] of this.registrations().slice(0, this.built - todo.length))
        for (const form of keyForms(value)) if (form.length >= FRAGMENT_CHARS) this.addAnchors(anchors, form);
      this.anchors = anchors;
    }
    for (const { forms: fs, label } of forms) {
      let name = this.names.indexOf(label);
      if (name < 0) name = this.names.length < UNNAMED ? this.names.push(label) - 1 : UNNAMED;
      for (const form of fs) {
        if (form.length < FRAGMENT_CHARS) {
          if (form.length >= 4 && !this.whole.some(([v]) => v === form)) this.whole.push([form, label]);
          continue;
        }
        for (let i = 0; i + FRAGMENT_CHARS <= form.length; i++) this.grams.add(form, i, name);
        this.addAnchors(anchors, form);
      }
    }
    this.whole.sort((a, b) => b[0].length - a[0].length);
  }

  private addAnchors(anchors: WindowFilter, form: string): void {
    for (let i = 0; i + ANCHOR_CHARS <= form.length; i++) {
      anchors.add(form, i);
      const head = headOf(form, i);
      if (head < 0) this.wideHeads = true;
      else this.heads[head >>> 5]! |= 1 << (head & 31);
    }
  }

  /** Replace every secret value, and every run of a secret's fragments, in a string. */
  text(s: string): string {
    if (this.built < this.count) this.build();
    if (s.length > MEMO_MAX_CHARS) return this.redacted(s);
    let out = this.done.get(s);
    if (out === undefined) {
      if (this.done.size >= MEMO_ENTRIES) this.done.clear();
      out = this.redacted(s);
      this.done.set(s, out);
    }
    return out;
  }

  private redacted(s: string): string {
    let out = this.grams.size > 0 ? this.fragments(s) : s;
    for (const [value, label] of this.whole) {
      if (out.includes(value)) out = out.split(value).join(`[REDACTED:${label}]`);
    }
    return out;
  }

  /**
   * Linear in the text, and cheap where it holds no key material: only every SAMPLE_STEP-th position is
   * looked up, as a shorter anchor window; any run of FRAGMENT_CHARS key characters holds an anchor at
   * one of those positions (the anchor is FRAGMENT_CHARS - SAMPLE_STEP + 1 long), and only around a hit
   * are the full windows looked up.
   */
  private fragments(s: string): string {
    const L = FRAGMENT_CHARS;
    const G = ANCHOR_CHARS;
    let out = '';
    let copied = 0;
    for (let p = 0; p + G <= s.length; p += SAMPLE_STEP) {
      if (p < copied) continue;
      const head = headOf(s, p);
      if (head < 0 ? !this.wideHeads : (this.heads[head >>> 5]! & (1 << (head & 31))) === 0) continue;
      if (!this.anchors.has(s, p)) continue;
      for (let i = Math.max(copied, p - (L - G)); i <= p && i + L <= s.length; i++) {
        const name = this.grams.get(s, i);
        if (name < 0) continue;
        // A run: extend while the next window still matches.
        let end = i + L;
        while (end < s.length && this.grams.has(s, end - L + 1)) end++;
        let start = i;
        // An escape's backslash left dangling before the mask would break JSON text (`\/` in a form).
        let slashes = 0;
        while (start - slashes - 1 >= copied && s[start - slashes - 1] === '\\') slashes++;
        if (slashes % 2 === 1) start--;
        out += `${s.slice(copied, start)}${name === UNNAMED ? '[REDACTED]' : `[REDACTED:${this.names[name]}]`}`;
        copied = end;
        break;
      }
    }
    return copied === 0 ? s : out + s.slice(copied);
  }

  /** Deep-redact a JSON-like value (strings inside are scanned). */
  value<T>(v: T): T {
    return JSON.parse(this.text(JSON.stringify(v) ?? 'null')) as T;
  }

  /** The label of the longest value registered that ends `value` after a space (a header's credential). */
  private labelOfSuffix(value: string): string | undefined {
    // Each space from the left: the longest suffix first.
    for (let p = value.indexOf(' '); p >= 0; p = value.indexOf(' ', p + 1)) {
      const label = this.labels.get(value.slice(p + 1));
      if (label !== undefined) return label;
    }
    return undefined;
  }

  requestHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (CREDENTIAL_HEADERS.has(name.toLowerCase()) && !PUBLIC_CREDENTIALS.has(credentialOf(value))) {
        const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
        const label = this.labelOfSuffix(value);
        const mask = `[REDACTED${label ? `:${label}` : ''}]`;
        out[name] =
          name.toLowerCase() === 'cookie'
            ? value.replace(/=([^;]*)/g, `=${mask}`)
            : scheme
              ? `${scheme} ${mask}`
              : mask;
      } else {
        out[name] = this.text(value);
      }
    }
    return out;
  }

  /** Path with query: credential-like parameter values masked, every other secret value replaced. */
  pathWithQuery(path: string): string {
    const q = path.indexOf('?');
    if (q < 0) return this.text(path);
    const params = new URLSearchParams(path.slice(q + 1));
    const parts: string[] = [];
    for (const [k, v] of params) {
      parts.push(
        `${encodeURIComponent(k)}=${CREDENTIAL_PARAM.test(k) ? '[REDACTED]' : encodeURIComponent(v)}`,
      );
    }
    return this.text(`${path.slice(0, q)}?${parts.join('&')}`);
  }
}

/** The three characters of `s` at `at` as one number (Redactor.heads), or -1 when one is beyond 7 bits. */
function headOf(s: string, at: number): number {
  const a = s.charCodeAt(at);
  const b = s.charCodeAt(at + 1);
  const c = s.charCodeAt(at + 2);
  return (a | b | c) < 128 ? (a << 14) | (b << 7) | c : -1;
}

/** A credential header's value without its scheme (`Bearer x` -> `x`). */
function credentialOf(value: string): string {
  return value.replace(/^\S+\s+(?=\S)/, '');
}

/**
 * Re-redact text files of a directory in place (all of them, or the named ones); a file that does not
 * change is not rewritten.
 */
export function redactFiles(dir: string, redactor: Redactor, only?: string[]): void {
  for (const name of only ?? readdirSync(dir)) {
    const file = join(dir, name);
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) continue;
    const text = readFileSync(file, 'utf8');
    const out = redactor.text(text);
    if (out !== text) writeFileSync(file, out);
  }
}
