import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FRAGMENT_CHARS,
  keyForms,
  PROBE_CREDENTIALS,
  Redactor,
  Registrations,
} from '../../src/http/redact.ts';
import type { WindowTable } from '../../src/http/windows.ts';
import { findLeaks } from '../../tools/leaks.ts';

const r = new Redactor({ primary: 'sk-ref-0123456789abcdef', other_tenant: 'sk-ref-fedcba9876543210' });

describe('redaction', () => {
  it('replaces every key value with its role', () => {
    expect(r.text('a sk-ref-0123456789abcdef b sk-ref-fedcba9876543210')).toBe(
      'a [REDACTED:primary] b [REDACTED:other_tenant]',
    );
  });

  it('masks credential headers whole, even a truncated key no value scan would find', () => {
    expect(r.requestHeaders({ authorization: 'Bearer sk-ref-0123456789' })).toEqual({
      authorization: 'Bearer [REDACTED]',
    });
    expect(r.requestHeaders({ Authorization: 'Bearer sk-ref-0123456789abcdef' })).toEqual({
      Authorization: 'Bearer [REDACTED:primary]',
    });
    expect(r.requestHeaders({ cookie: 'session=sk-ref; a=b' })).toEqual({
      cookie: 'session=[REDACTED]; a=[REDACTED]',
    });
    expect(r.requestHeaders({ 'content-type': 'application/json' })).toEqual({
      'content-type': 'application/json',
    });
  });

  it("names a masked header's role by the longest value it ends with, among thousands registered", () => {
    const many = new Redactor({});
    for (let i = 0; i < 5000; i++) many.register(`sk-many-${String(i).padStart(6, '0')}`, `key ${i}`);
    // A value with a space, and its own tail registered apart: the longer one names the role.
    many.register('tail-0001', 'the tail');
    many.register('two words tail-0001', 'the whole');
    expect(many.requestHeaders({ authorization: 'Bearer sk-many-004321' })).toEqual({
      authorization: 'Bearer [REDACTED:key 4321]',
    });
    expect(many.requestHeaders({ authorization: 'Token two words tail-0001' }).authorization).toBe(
      'Token [REDACTED:the whole]',
    );
    expect(many.requestHeaders({ authorization: 'Token other tail-0001' }).authorization).toBe(
      'Token [REDACTED:the tail]',
    );
    // Registered twice: the first label stays.
    many.register('sk-many-000007', 'again');
    expect(many.requestHeaders({ authorization: 'Bearer sk-many-000007' }).authorization).toBe(
      'Bearer [REDACTED:key 7]',
    );
  });

  it('masks credential-like query parameters', () => {
    expect(r.pathWithQuery('/v1/models?api_key=sk-ref-01&limit=2&access_token=x')).toBe(
      '/v1/models?api_key=[REDACTED]&limit=2&access_token=[REDACTED]',
    );
  });

  it('redacts inside JSON values', () => {
    expect(r.value({ a: ['x sk-ref-0123456789abcdef'] })).toEqual({ a: ['x [REDACTED:primary]'] });
  });
});

describe('redaction of key fragments', () => {
  // 36 characters with URL-special ones, as real keys have.
  const key = 'sk-Ab+9/xY=Qr7+Lm/Zt2=Wv8+Kp/Hd4=Ns1';
  const other = 'sk-zzNOTAKEY0123456789abcdefghijklmn';
  const red = new Redactor({ primary: key, other_tenant: other });
  const keys = { primary: key, other_tenant: other };
  const prefix = key.slice(0, 30);

  it(`FRAGMENT_CHARS (${FRAGMENT_CHARS}) catches a 30-char prefix of a 36-char key`, () => {
    expect(key.length).toBe(36);
    expect(FRAGMENT_CHARS).toBeLessThanOrEqual(30);
  });

  for (const [form, echo] of [
    ['raw', prefix],
    ['URL-encoded', encodeURIComponent(prefix)],
    [
      'URL-encoded, lower-case hex',
      encodeURIComponent(prefix).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ],
    ['JSON-escaped', JSON.stringify(prefix).slice(1, -1).replaceAll('/', '\\/')],
    ['base64', Buffer.from(prefix).toString('base64')],
    ['base64 behind a user name', Buffer.from(`user:${key}`).toString('base64')],
    ['base64url', Buffer.from(`x${prefix}`).toString('base64url')],
    ['appended', `${key}x9`],
  ] as const) {
    it(`redacts the echo of a ${form} prefix, leaving no ${FRAGMENT_CHARS}-char fragment`, () => {
      const text = `Incorrect API key provided: ${echo}. See docs.`;
      const out = red.text(text);
      expect(out).toContain('[REDACTED:primary]');
      expect(out.startsWith('Incorrect API key provided: ')).toBe(true);
      expect(out.endsWith('. See docs.')).toBe(true);
      expect(findLeaks(out, keys, FRAGMENT_CHARS)).toEqual([]);
    });
  }

  it('finds every run of FRAGMENT_CHARS or more key characters at every offset and length', () => {
    for (let pad = 0; pad < 14; pad++)
      for (let from = 0; from + FRAGMENT_CHARS <= key.length; from += 5)
        for (let len = FRAGMENT_CHARS; from + len <= key.length; len += 3) {
          const text = `${'x'.repeat(pad)}<${key.slice(from, from + len)}>${'y'.repeat(pad)}`;
          expect(findLeaks(red.text(text), keys, FRAGMENT_CHARS), `${pad}/${from}/${len}`).toEqual([]);
          expect(red.text(text)).toBe(`${'x'.repeat(pad)}<[REDACTED:primary]>${'y'.repeat(pad)}`);
        }
  });

  it('keeps JSON valid when a fragment follows an escape', () => {
    const json = JSON.stringify({ message: `key ${key.slice(3, 33)} and "${prefix}"` }).replaceAll(
      '/',
      '\\/',
    );
    const out = red.text(json);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(findLeaks(out, keys, FRAGMENT_CHARS)).toEqual([]);
  });

  it('leaves text without key material alone, also short runs of a key', () => {
    const text = `model sk-Ab+9 id ${key.slice(5, 5 + FRAGMENT_CHARS - 1)} end`;
    expect(red.text(text)).toBe(text);
  });

  it('redacts what a request carried as a credential once registered, also if no key is configured', () => {
    const r2 = new Redactor({});
    r2.registerSent('/v1/models?api_key=made-up-credential-123', { cookie: 'session=another-made-up-one' });
    expect(r2.text('echo made-up-credential-123 and another-made-up-one')).toBe(
      'echo [REDACTED:sent credential] and [REDACTED:sent credential]',
    );
  });

  it("leaves the suite's own probe credentials and text sharing their fragments alone; keys still go", () => {
    const r2 = new Redactor({ primary: 'sk-ref-9f8e7d6c5b4a3210' });
    for (const fake of Object.values(PROBE_CREDENTIALS)) {
      r2.registerSent('/v1/models', { authorization: `Bearer ${fake}` });
      expect(r2.requestHeaders({ authorization: `Bearer ${fake}` })).toEqual({
        authorization: `Bearer ${fake}`,
      });
    }
    const later = '{"model":"no-such-model-conformance-4f2a","echo":"sk-conformance-not-a-key"}';
    expect(r2.text(later)).toBe(later);
    r2.registerSent('/v1/models', { authorization: 'Bearer sk-ref-9f8e7d6c5b4a3210-x' });
    expect(r2.requestHeaders({ authorization: 'Bearer sk-ref-9f8e7d6c5b4a3210' })).toEqual({
      authorization: 'Bearer [REDACTED:primary]',
    });
    expect(r2.text('sk-ref-9f8e7d6c5b4a3210-x')).not.toContain('9f8e7d6c5b4a');
  });

  it('is linear: its lookups per character of text stay under a constant, at 0.5 MB and at 4 MB alike', () => {
    // Counted, not timed: a loaded machine must not decide this test. Every step of the scan is a lookup
    // of a window in the anchor set or the fragment map, so the lookups measure its work; a scan that
    // looked back over what it had passed (quadratic) would need ever more lookups per character.
    const counted = new Redactor({ primary: key, other_tenant: other });
    const inner = counted as unknown as {
      anchors: Pick<WindowTable, 'has'>;
      grams: Pick<WindowTable, 'has' | 'get'>;
    };
    // At most 3 lookups a character; past that the scan is stopped at once (a quadratic one would
    // otherwise run for hours on 4 MB, not fail).
    const PER_CHAR = 3;
    let lookups = 0;
    let allowed = 0;
    const count =
      <A extends unknown[], R>(f: (...a: A) => R) =>
      (...a: A): R => {
        if (++lookups > allowed) throw new Error(`more than ${PER_CHAR} lookups a character`);
        return f(...a);
      };
    inner.anchors.has = count(inner.anchors.has.bind(inner.anchors));
    inner.grams.has = count(inner.grams.has.bind(inner.grams));
    inner.grams.get = count(inner.grams.get.bind(inner.grams));
    const perChar = (text: string) => {
      lookups = 0;
      allowed = PER_CHAR * text.length;
      const out = counted.text(text);
      return { out, perChar: lookups / text.length };
    };
    const big = 'abcdefghij'.repeat(400_000) + prefix;
    expect(perChar(big).out.endsWith('[REDACTED:primary]')).toBe(true);
    const inputs: Record<string, (n: number) => string> = {
      // no key material
      plain: (n) => 'the quick brown fox jumps over the lazy dog '.repeat(n / 44),
      // runs of the other key's characters ('abcdefghij'), each too short to be a fragment
      'short runs': (n) => 'abcdefghij'.repeat(n / 10),
      // anchors everywhere, no fragment: the closer look at every sampled position finds nothing
      'near misses': (n) => `${key.slice(0, FRAGMENT_CHARS - 1)}|`.repeat(n / FRAGMENT_CHARS),
      // a fragment everywhere: each run is extended to its end and the scan resumes after it
      fragments: (n) => `${prefix}|`.repeat(n / (prefix.length + 1)),
      // one run of key characters as long as the text
      'one long run': (n) => key.repeat(n / key.length),
    };
    // No key material whose first three characters any anchor starts with: no lookup at all (the
    // anchors' heads filter every position).
    expect(perChar(inputs.plain!(500_000)).perChar).toBe(0);
    delete inputs.plain;
    for (const [name, make] of Object.entries(inputs)) {
      const small = perChar(make(500_000)).perChar;
      const large = perChar(make(4_000_000)).perChar;
      expect(small, name).toBeGreaterThan(0);
      expect(large, name).toBeLessThanOrEqual(PER_CHAR);
      expect(large, name).toBeLessThan(small * 1.1);
    }
  });

  it("the anchors' heads only skip positions the anchors' lookup would pass: the same text with and without them", () => {
    // A key of 7-bit characters and a sent credential with wider ones (an anchor that starts beyond 7 bits).
    const secrets = { primary: key, other_tenant: other };
    const wide = 'pässwörd-crédential-ü1234';
    const make = () => {
      const red = new Redactor(secrets);
      red.register(wide, 'sent credential');
      return red;
    };
    const filtered = make();
    const plain = make();
    const inner = plain as unknown as { heads: Uint32Array; wideHeads: boolean };
    inner.heads.fill(0xffffffff);
    inner.wideHeads = true;
    const forms = [...keyForms(key), ...keyForms(other), ...keyForms(wide)];
    const piece = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc
        .tuple(fc.constantFrom(...forms), fc.nat(), fc.integer({ min: 4, max: 40 }))
        .map(([f, at, len]) => f.slice(at % f.length, (at % f.length) + len)),
    );
    // Every alignment of the wide credential's fragments: some sampled positions start beyond 7 bits.
    for (let pad = 0; pad < 7; pad++)
      for (let from = 0; from + FRAGMENT_CHARS <= wide.length; from++) {
        const text = `${'x'.repeat(pad)}<${wide.slice(from, from + FRAGMENT_CHARS)}>`;
        expect(filtered.text(text), text).toBe(`${'x'.repeat(pad)}<[REDACTED:sent credential]>`);
      }
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(filtered.text(text)).toBe(plain.text(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('registrations without redaction', () => {
  it('notes what a Redactor registers, in the same order, from values and from sent requests alike', () => {
    const value = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('sk-a', 'sk-abcdef', 'abc', 'x'));
    const call = fc.oneof(
      fc.record({ value, label: fc.constantFrom('primary', 'sent credential') }),
      fc.record({
        path: fc.constantFrom('/v1/balance', '/v1/models?api_key=sk-query', '/x?token=t0k3n&a=b'),
        headers: fc.dictionary(
          fc.constantFrom('authorization', 'Cookie', 'x-api-key', 'accept'),
          fc.oneof(
            value.map((v) => `Bearer ${v}`),
            value.map((v) => `a=${v}; b=sk-cookie`),
            value,
          ),
        ),
      }),
    );
    fc.assert(
      fc.property(fc.array(call, { maxLength: 12 }), (calls) => {
        const redactor = new Redactor({});
        const noted = new Registrations();
        for (const c of calls)
          for (const r of [redactor, noted])
            if ('value' in c) r.register(c.value, c.label);
            else r.registerSent(c.path, c.headers);
        expect(noted.registrations()).toEqual(redactor.registrations());
        expect(noted.registrations(1)).toEqual(redactor.registrations(1));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a redactor taken over by another thread', () => {
  const key = 'sk-Ab+9/xY=Qr7+Lm/Zt2=Wv8+Kp/Hd4=Ns1';
  const other = 'sk-zzNOTAKEY0123456789abcdefghijklmn';
  const secrets = { primary: key, other_tenant: other };
  const wide = 'pässwörd-crédential-ü1234';
  const short = 'sk-short9';

  it('redacts as the one whose tables it shares, headers and texts alike', () => {
    const original = new Redactor(secrets);
    original.register(wide, 'sent credential');
    original.register(short, 'sent credential');
    const taken = Redactor.from(structuredClone(original.tables()));
    const forms = [...keyForms(key), ...keyForms(other), ...keyForms(wide), short];
    const piece = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc
        .tuple(fc.constantFrom(...forms), fc.nat(), fc.integer({ min: 4, max: 40 }))
        .map(([f, at, len]) => f.slice(at % f.length, (at % f.length) + len)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(taken.text(text)).toBe(original.text(text));
      }),
      { numRuns: 1000 },
    );
    expect(taken.text(`<${key}>`)).toBe('<[REDACTED:primary]>');
    expect(taken.requestHeaders({ authorization: `Bearer ${other}` })).toEqual({
      authorization: 'Bearer [REDACTED:other_tenant]',
    });
    expect(taken.registrations()).toEqual(original.registrations());
  });

  it('leaves the shared tables as they were when either side registers more: each writes its own copy', () => {
    const original = new Redactor({ primary: key });
    const taken = Redactor.from(original.tables());
    const later = 'sk-later-9a8b7c6d5e4f3a2b1c0d';
    const another = 'sk-another-1f2e3d4c5b6a7980';
    original.register(later, 'later');
    taken.register(another, 'another');
    const text = `${key} ${later} ${another}`;
    expect(original.text(text)).toBe(`[REDACTED:primary] [REDACTED:later] ${another}`);
    expect(taken.text(text)).toBe(`[REDACTED:primary] ${later} [REDACTED:another]`);
    // And a third, taken from the first after both wrote, sees only what the first registered.
    expect(Redactor.from(original.tables()).text(text)).toBe(original.text(text));
  });
});

describe('redaction of many keys', () => {
  it('redacts a fragment of each of thousands of keys, the first as the last', () => {
    const many = new Redactor({});
    const keyOf = (i: number) =>
      `sk-${i.toString(36).padStart(4, '0')}-${'Qx7Lm2Zt9Wv4'}${(i * 7919).toString(36)}`;
    for (let i = 0; i < 3000; i++) many.register(keyOf(i), i % 2 ? 'odd' : 'even');
    for (let i = 0; i < 3000; i += 1) {
      const k = keyOf(i);
      const text = `<${k.slice(2, 2 + FRAGMENT_CHARS + 1)}> ${encodeURIComponent(k)}`;
      const out = many.text(text);
      if (out !== `<[REDACTED:${i % 2 ? 'odd' : 'even'}]> [REDACTED:${i % 2 ? 'odd' : 'even'}]`)
        throw new Error(`key ${i}: ${out}`);
    }
  });

  it('builds its tables before each redaction from what was registered since: the keys before as the keys after', () => {
    const keyOf = (i: number) =>
      `sk-${i.toString(36).padStart(4, '0')}-Rt5Yu8Io2Pa6${(i * 104729).toString(36)}`;
    const probe = (k: string) =>
      `<${k.slice(1, 1 + FRAGMENT_CHARS + 2)}> ${Buffer.from(k).toString('base64')}`;
    const stepwise = new Redactor({ first: keyOf(0) });
    expect(stepwise.text(probe(keyOf(0)))).toMatch(/^<\[REDACTED:first\]> \[REDACTED:first\].{0,4}$/);
    // Then more keys than its anchor filter holds: the filter is made again, the first key's anchors in it.
    for (let i = 1; i < 3000; i++) {
      stepwise.register(keyOf(i), 'later');
      if (i % 1000 === 0)
        expect(stepwise.text(probe(keyOf(i)))).toMatch(/^<\[REDACTED:later\]> \[REDACTED:later\].{0,4}$/);
    }
    const atOnce = new Redactor({ first: keyOf(0) });
    for (let i = 1; i < 3000; i++) atOnce.register(keyOf(i), 'later');
    for (let i = 0; i < 3000; i++) {
      const text = probe(keyOf(i));
      const out = stepwise.text(text);
      if (out !== atOnce.text(text) || !/^<\[REDACTED:\w+\]> \[REDACTED:\w+\].{0,4}$/.test(out))
        throw new Error(`key ${i}: ${out}`);
    }
  });

  it('masks a fragment without a name past 255 labels (the roles of a configuration are few)', () => {
    const labelled = new Redactor({});
    const keyOf = (i: number) => `${i.toString().padStart(4, '0')}-sk-labelled-Hd4Ns1Kp8Wv`;
    for (let i = 0; i < 300; i++) labelled.register(keyOf(i), `role ${i}`);
    expect(labelled.text(`a ${keyOf(254).slice(0, 20)}`)).toBe('a [REDACTED:role 254]');
    expect(labelled.text(`a ${keyOf(255).slice(0, 20)}`)).toBe('a [REDACTED]');
    expect(labelled.text(`a ${keyOf(299)}`)).toBe('a [REDACTED]');
  });
});
