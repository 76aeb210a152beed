import { createParser } from 'eventsource-parser';

export interface SseEvent {
  event?: string;
  data: string;
}

/** Parse a complete text/event-stream body (eventsource-parser: the WHATWG parsing rules). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const ev: SseEvent = { data: e.data };
      if (e.event !== undefined) ev.event = e.event;
      events.push(ev);
    },
  });
  parser.feed(text);
  // A last event without its blank line is still dispatched by a flush of two newlines.
  parser.feed('\n\n');
  return events;
}

export const TERMINAL_EVENTS = ['response.completed', 'response.incomplete', 'response.failed'];

/**
 * RSP-006: exactly one terminal event, and it is the last event. The problems of a stream's events
 * (empty when it ends as the contract says), for the live run and a captured stream alike.
 */
export function terminalEventProblems(
  events: readonly SseEvent[],
): Array<{ message: string; received: unknown; expected?: string }> {
  const out: Array<{ message: string; received: unknown; expected?: string }> = [];
  const terminals = events
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => TERMINAL_EVENTS.includes(e.event ?? ''));
  if (terminals.length !== 1)
    out.push({
      message: `the stream holds ${terminals.length} terminal events`,
      received: terminals.map(({ e }) => e.event),
      expected: `exactly one of ${TERMINAL_EVENTS.join(', ')}`,
    });
  const last = terminals.at(-1);
  if (last && last.i !== events.length - 1)
    out.push({
      message: `the terminal event ${last.e.event} is not the last event`,
      received: events.slice(last.i + 1).map((e) => e.event ?? '(unnamed)'),
    });
  return out;
}
