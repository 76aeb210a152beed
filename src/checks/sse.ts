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
