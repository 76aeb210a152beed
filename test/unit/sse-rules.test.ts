/**
 * The stream rules one function judges for the live run and a captured stream alike (src/checks/sse.ts):
 * RSP-004 on every event, RSP-005 on the deltas (a zero-length increment counts), RSP-006 on the end.
 */
import { describe, expect, it } from 'vitest';
import {
  carriesText,
  incrementOf,
  parseSse,
  replyText,
  streamEventProblems,
  terminalEventProblems,
} from '../../src/checks/sse.ts';

const sse = (...events: Array<[string | undefined, string]>) =>
  parseSse(events.map(([e, d]) => `${e ? `event: ${e}\n` : ''}data: ${d}\n\n`).join(''));

describe('streamEventProblems', () => {
  it('judges RSP-004 on any stream and RSP-005 only where a delta stands', () => {
    const ok = sse(['response.output_text.delta', '{"delta":"Hi"}'], ['response.completed', '{"text":"Hi"}']);
    expect(streamEventProblems(ok)).toEqual({ judged: ['RSP-004', 'RSP-005'], problems: [] });
    expect(streamEventProblems(sse(['response.completed', '{}']))).toEqual({
      judged: ['RSP-004'],
      problems: [],
    });
    expect(terminalEventProblems(ok)).toEqual([]);
  });

  it('finds a stream with no event, events without a name or data; a delta of any data has an increment', () => {
    expect(streamEventProblems([]).problems.map((p) => p.message)).toEqual(['the stream holds no event']);
    const bad = streamEventProblems([
      { data: '{"delta":"a"}' },
      // A terminal event without its response; a heartbeat's empty data is a shape not shown.
      { event: 'response.incomplete', data: '' },
      { event: 'ping', data: '' },
      // Plain text: a zero-length increment, and a token that reads as a number.
      { event: 'response.output_text.delta', data: '' },
      { event: 'response.output_text.delta', data: '42' },
      { event: 'response.completed', data: '{}' },
    ]);
    expect(bad.problems.map((p) => [p.id, p.message])).toEqual([
      ['RSP-004', 'events of the stream have no event name'],
      ['RSP-004', 'events of the stream have no data'],
    ]);
  });

  it('takes a zero-length increment as one, and notes only all of them empty beside a text', () => {
    expect(incrementOf('{"delta":""}')).toBe('');
    expect(incrementOf('plain')).toBe('plain');
    // Plain text whatever it is: empty (a zero-length increment), or a token that reads as a JSON scalar.
    expect(incrementOf('')).toBe('');
    expect(incrementOf('42')).toBe('42');
    expect(incrementOf('null')).toBe('null');
    expect(incrementOf('true')).toBe('true');
    // The first string delta or text member, depth first; any other object is an increment as written.
    expect(incrementOf('{"type":"x","item":{"text":"a"},"delta":"b"}')).toBe('a');
    expect(incrementOf('{"delta":{"x":1}}')).toBe('{"delta":{"x":1}}');
    expect(incrementOf('[{"n":1},{"delta":"c"}]')).toBe('c');
    const blank = sse(
      ['response.output_text.delta', '{"delta":""}'],
      ['response.completed', '{"text":"Hi"}'],
    );
    expect(streamEventProblems(blank).problems).toMatchObject([{ id: 'RSP-005', level: 'notable' }]);
    const empty = sse(['response.output_text.delta', '{"delta":""}'], ['response.completed', '{"text":""}']);
    expect(streamEventProblems(empty).problems).toEqual([]);
    // The reply's text read as replyText reads it (the same reader as the lost-increment finding): its
    // output_text parts where the end nests them, a text that starts with an escaped quote included.
    const nested = sse(
      ['response.output_text.delta', '{"delta":""}'],
      [
        'response.completed',
        '{"response":{"output":[{"content":[{"type":"output_text","text":"\\"Hi\\""}]}]}}',
      ],
    );
    expect(streamEventProblems(nested).problems).toMatchObject([{ id: 'RSP-005', level: 'notable' }]);
  });

  it('fails a delta whose JSON holds no string beyond its type and ids: its text is lost (RSP-005)', () => {
    expect(carriesText('{"type":"response.output_text.delta","item_id":"m1","output_index":0}')).toBe(false);
    expect(carriesText('{}')).toBe(false);
    expect(carriesText('{"delta":null,"id":"e1"}')).toBe(false);
    // A string anywhere else is text (a zero-length one too), as are plain text and a JSON string.
    expect(carriesText('{"type":"response.output_text.delta","delta":""}')).toBe(true);
    expect(carriesText('{"content":{"value":"Hi"}}')).toBe(true);
    expect(carriesText('["Hi"]')).toBe(true);
    expect(carriesText('"Hi"')).toBe(true);
    expect(carriesText('42')).toBe(true);
    expect(carriesText('')).toBe(true);
    const lost = sse(
      ['response.output_text.delta', '{"type":"response.output_text.delta","item_id":"m1"}'],
      ['response.completed', '{"text":"Hi"}'],
    );
    expect(streamEventProblems(lost).problems).toMatchObject([{ id: 'RSP-005' }]);
    expect(streamEventProblems(lost).problems[0]).not.toHaveProperty('level');
  });

  it("takes a delta without its empty member for a zero-length increment when the others make the end's text", () => {
    const omitted = '{"type":"response.output_text.delta","item_id":"m1","output_index":0}';
    const end =
      '{"response":{"output":[{"content":[{"type":"output_text","text":"Hi there"}]}],"text":{"format":{}}}}';
    // Go's omitempty: the opening zero-length increment written without `delta`; nothing is lost.
    const whole = sse(
      ['response.output_text.delta', omitted],
      ['response.output_text.delta', '{"delta":"Hi"}'],
      ['response.output_text.delta', '{"delta":" there"}'],
      ['response.completed', end],
    );
    expect(streamEventProblems(whole).problems).toEqual([]);
    // A token's text dropped: the increments make "Hi", the end shows "Hi there": lost, a failure.
    const dropped = sse(
      ['response.output_text.delta', '{"delta":"Hi"}'],
      ['response.output_text.delta', omitted],
      ['response.completed', end],
    );
    expect(streamEventProblems(dropped).problems).toMatchObject([{ id: 'RSP-005' }]);
    expect(streamEventProblems(dropped).problems[0]).not.toHaveProperty('level');
    // An end that shows no text cannot tell: advisory where other deltas carry text.
    const untold = sse(
      ['response.output_text.delta', omitted],
      ['response.output_text.delta', '{"delta":"Hi"}'],
      ['response.completed', '{"response":{"id":"r1"}}'],
    );
    expect(streamEventProblems(untold).problems).toMatchObject([{ id: 'RSP-005', level: 'notable' }]);
    // No delta carries text and the end shows none either: the text is lost, a failure.
    const none = sse(['response.output_text.delta', omitted], ['response.completed', '{"response":{}}']);
    expect(streamEventProblems(none).problems[0]).not.toHaveProperty('level');
    expect(replyText(sse(['response.completed', end]))).toBe('Hi there');
    expect(replyText(sse(['response.completed', '{"text":"a"}']))).toBe('a');
    expect(replyText(sse(['response.completed', 'plain']))).toBeUndefined();
  });
});
