/**
 * Independent search for key material in output: every `minChars`-long run of each key, in the forms a
 * key travels in (raw, URL-encoded, JSON-escaped with and without `\/`, base64 of the run), looked up at
 * every position of the text. Built from the runs of the key, not from the redactor's own forms.
 */
export interface Leak {
  label: string;
  form: string;
  fragment: string;
  at: number;
}

export function keyFragments(key: string, minChars: number): Array<{ form: string; text: string }> {
  const out: Array<{ form: string; text: string }> = [];
  const n = Math.min(minChars, key.length);
  for (let i = 0; i + n <= key.length; i++) {
    const f = key.slice(i, i + n);
    out.push({ form: 'raw', text: f });
    out.push({ form: 'url', text: encodeURIComponent(f) });
    out.push({ form: 'json', text: JSON.stringify(f).slice(1, -1).replaceAll('/', '\\/') });
    const b64 = Buffer.from(f).toString('base64');
    out.push({ form: 'base64', text: b64.slice(0, Math.floor(f.length / 3) * 4) });
  }
  return out.filter((f) => f.text.length > 0);
}

/** Every occurrence of a fragment of any key (labelled) in `text`; empty when none. */
export function findLeaks(text: string, keys: Record<string, string>, minChars: number, max = 20): Leak[] {
  const byLength = new Map<number, Map<string, { label: string; form: string }>>();
  for (const [label, key] of Object.entries(keys))
    for (const f of keyFragments(key, minChars)) {
      const m = byLength.get(f.text.length) ?? new Map<string, { label: string; form: string }>();
      byLength.set(f.text.length, m);
      m.set(f.text, { label, form: f.form });
    }
  const leaks: Leak[] = [];
  for (const [len, grams] of byLength)
    for (let i = 0; i + len <= text.length && leaks.length < max; i++) {
      const hit = grams.get(text.slice(i, i + len));
      if (hit) leaks.push({ ...hit, fragment: text.slice(i, i + len), at: i });
    }
  return leaks;
}
