/**
 * One line of an NDJSON log (src/traffic/ndjson-stream.ts lineItem): whatever its reader makes of it,
 * a line's trouble is that line's problem, named by file and line, never the rest of the log's.
 */
import { describe, expect, it } from 'vitest';
import { lineItem } from '../../src/traffic/ndjson-stream.ts';

describe('a line of a log', () => {
  it('is an entry, a problem the reader names, or a problem the reader threw on, each with its line', () => {
    const entry = { request: {} };
    expect(lineItem('a.ndjson', 3, '{"x": 1}', () => entry)).toEqual({
      kind: 'entry',
      index: 3,
      unit: 'line',
      value: entry,
    });
    expect(lineItem('a.ndjson', 4, '[1]', () => 'not a JSON object')).toEqual({
      kind: 'problem',
      index: 4,
      message: 'a.ndjson: line 4 is not a JSON object',
    });
    const thrown = lineItem('a.ndjson', 5, '{"time": 1}', () => {
      throw new RangeError('Invalid time value');
    });
    expect(thrown).toEqual({
      kind: 'problem',
      index: 5,
      message: 'a.ndjson: line 5 cannot be read (Invalid time value)',
    });
    expect(lineItem('a.ndjson', 6, '   ', () => entry)).toBeUndefined();
  });
});
