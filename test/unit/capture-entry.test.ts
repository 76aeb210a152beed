import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';
import { readEntry } from '../../src/traffic/capture.ts';

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
