import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import { harHeaders, readEntry } from '../../src/traffic/capture.ts';

const entry = (text: string, encoding?: string) => ({
  request: { method: 'GET', url: 'http://h/v1/models', headers: [] },
  response: {
    status: 200,
    headers: [{ name: 'content-type', value: 'application/json' }],
    content: { mimeType: 'application/json', text, ...(encoding ? { encoding } : {}) },
  },
});

describe('a captured body read as the live client reads one (capture.ts readEntry)', () => {
  it('holds the text of the bytes: as written, or as its UTF-8 bytes decode where it cannot be bytes', () => {
    for (const text of ['{"a":"é😀"}', '{"a":"\ud800"}', '{"a":"x\udc00y"}']) {
      const res = readEntry(entry(text), 'e', 'id', new Redactor({})).res!;
      const bytes = Buffer.from(text, 'utf8');
      expect(res.body.equals(bytes)).toBe(true);
      // The live client decodes the bytes it received: a lone surrogate is no UTF-8, so U+FFFD.
      expect(res.text).toBe(bytes.toString('utf8'));
      expect(res.json).toEqual(JSON.parse(bytes.toString('utf8')));
    }
    const b64 = readEntry(
      entry(Buffer.from('{"b":1}').toString('base64'), 'base64'),
      'e',
      'id',
      new Redactor({}),
    );
    expect(b64.res!.text).toBe('{"b":1}');
  });
});

describe("a captured entry's headers (capture.ts harHeaders)", () => {
  it('are read whatever their names, those an object inherits too, repeated ones joined', () => {
    const headers = [
      { name: 'Constructor', value: 'a' },
      { name: '__proto__', value: 'b' },
      { name: 'toString', value: 'c' },
      { name: 'toString', value: 'd' },
      { name: ':authority', value: 'h' },
    ];
    const h = harHeaders(headers);
    expect(Object.entries(h)).toEqual([
      ['constructor', 'a'],
      ['__proto__', 'b'],
      ['tostring', 'c, d'],
    ]);
    expect(Object.getPrototypeOf(h)).toBe(Object.prototype);
  });
});

describe("a captured exchange's records, made when a finding cites it (client.ts recordNow)", () => {
  const captured = {
    request: {
      method: 'POST',
      url: 'http://h/v1/chat/completions',
      headers: [
        { name: 'content-type', value: 'application/json' },
        { name: 'authorization', value: 'Bearer sk-live-secret-123456' },
      ],
      postData: { mimeType: 'application/json', text: '{"model":"m","messages":[]}' },
    },
    response: {
      status: 400,
      headers: [
        { name: 'content-type', value: 'application/json' },
        { name: 'x-echo', value: 'sk-live-secret-123456' },
      ],
      content: { mimeType: 'application/json', text: '{"detail":"key sk-live-secret-123456 refused"}' },
    },
  };

  it('are the records made at once, the same keys in the same order, and nothing else', async () => {
    const { closeExchange, openExchange } = await import('../../src/http/client.ts');
    const redactor = new Redactor({});
    const x = readEntry(captured, 'e', 'id', redactor);
    const deferred = x.res!.exchange;
    // Before: no body or response header record is made (JSON leaves the places out).
    expect(JSON.parse(JSON.stringify(deferred))).not.toHaveProperty('responseBody');
    const { recordNow } = await import('../../src/http/client.ts');
    expect(recordNow(deferred)).toBe(deferred);
    // The same exchange recorded at once, by the same functions.
    const eager = openExchange(redactor, {
      id: 'id',
      startedAt: '',
      method: 'POST',
      path: '/v1/chat/completions',
      headers: x.headers,
      body: Buffer.from(captured.request.postData.text),
      json: x.json,
    });
    eager.test = 'capture';
    closeExchange(redactor, eager, x.path, 400, x.res!.headers, x.res!.body);
    expect(JSON.stringify(deferred)).toBe(JSON.stringify(eager));
    expect(Object.keys(deferred)).toEqual(Object.keys(eager));
    expect(JSON.stringify(deferred)).not.toContain('sk-live-secret-123456');
    expect(deferred.responseBody?.preview).toContain('refused');
    // Made once: a second call changes nothing, and no symbol or function crosses to another thread.
    expect(recordNow(deferred)).toBe(deferred);
    expect(structuredClone(deferred)).toEqual(JSON.parse(JSON.stringify(deferred)));
  });

  it("ERR-001 names the record's preview, made for it, as a live run's finding does", async () => {
    const { genericChecks } = await import('../../src/checks/exchange.ts');
    const x = readEntry(captured, 'e', 'id', new Redactor({}));
    const f = genericChecks(x.res!).find((v) => v.id === 'ERR-001');
    expect(f?.received).toContain('refused');
    expect(String(f?.received)).not.toContain('sk-live-secret-123456');
  });
});
