// Faults and variants of support tickets (routes/tickets.ts).
import { type Fault, req, TICKETS, type Variant } from './probe.ts';

export const TICKETS_FAULTS = [
  // routes/tickets.ts: the first listed category (enterprise_onboarding) refused
  {
    name: 'ticket-category-dropped',
    description: 'tickets refuse the category enterprise_onboarding',
    breaks: ['TICKET-003'],
    probe: { request: req.ticket({ category: 'enterprise_onboarding' }), holds: (r) => r.status !== 201 },
  },
  // routes/tickets.ts: a message with a line break refused ("single line" is said of subject and contact only)
  {
    name: 'ticket-message-single-line',
    description: 'a ticket whose message holds a line break is refused, as if the message were single line',
    breaks: ['TICKET-005'],
    probe: { request: req.ticket({ message: 'Two lines:\nthe second.' }), holds: (r) => r.status === 400 },
  },
  // routes/tickets.ts: GET lists every tenant's tickets
  {
    name: 'tickets-cross-tenant',
    description: "GET /v1/support/tickets lists every tenant's tickets",
    breaks: ['ISO-001'],
    probe: {
      run: async ({ ref, ticket, call }) => {
        await ticket(ref, {});
        return (await call(ref, TICKETS, { role: 'other_tenant' })).body.data.length > 0;
      },
    },
  },
  // routes/tickets.ts: no limit on unresolved tickets
  // routes/tickets.ts: the 10th unresolved ticket refused (the limit one lower than stated)
  {
    name: 'ticket-limit-9',
    description: 'the 10th unresolved ticket is refused 429: the limit is 9, not 10',
    breaks: ['TICKET-008'],
    probe: {
      run: async ({ ref, ticket }) => {
        for (let i = 0; i < 9; i++) await ticket(ref, {}, 'ticket_limit');
        return (await ticket(ref, {}, 'ticket_limit')).status === 429;
      },
    },
  },
  {
    name: 'ticket-limit-ignored',
    description: 'an 11th unresolved ticket is accepted',
    breaks: ['TICKET-008'],
    probe: {
      run: async ({ ref, ticket }) => {
        for (let i = 0; i < 10; i++) await ticket(ref, {}, 'ticket_limit');
        return (await ticket(ref, {}, 'ticket_limit')).status === 201;
      },
    },
  },
  // routes/tickets.ts: the list lags a minute behind creation (implied: a created ticket is listed)
  {
    name: 'ticket-list-lag',
    description:
      'GET /v1/support/tickets lists a ticket only a minute after its creation (a lagging replica)',
    breaks: ['TICKET-010'],
    level: 'implied',
    probe: {
      run: async ({ ref, ticket, call }) => {
        await ticket(ref, { subject: 'Probe lag' });
        return !(await call(ref, TICKETS, { role: 'primary' })).text.includes('Probe lag');
      },
    },
  },
  // routes/tickets.ts: the list shows the calling key's tickets, not the tenant's (implied: a created ticket is listed)
  {
    name: 'tickets-per-key',
    description:
      "GET /v1/support/tickets lists only the tickets the calling key created: a ticket of the enterprise key is missing from the list of the same account's second key",
    breaks: ['TICKET-010'],
    level: 'implied',
    probe: {
      run: async ({ ref, ticket, call }) => {
        await ticket(ref, { subject: 'Probe per key' }, 'enterprise');
        const mine = (await call(ref, TICKETS, { role: 'enterprise' })).text.includes('Probe per key');
        return (
          mine && !(await call(ref, TICKETS, { role: 'enterprise_second' })).text.includes('Probe per key')
        );
      },
    },
  },
  // routes/tickets.ts: a subject with a line feed or carriage return accepted
  {
    name: 'ticket-subject-newline',
    description: 'a ticket subject with \\n is accepted',
    breaks: ['TICKET-004'],
    probe: { request: req.ticket({ subject: 'a\nb' }), holds: (r) => r.status === 201 },
  },
  // routes/tickets.ts: subject limit 121
  {
    name: 'ticket-subject-121',
    description: 'a 121-character ticket subject is accepted',
    breaks: ['TICKET-004'],
    probe: { request: req.ticket({ subject: 's'.repeat(121) }), holds: (r) => r.status === 201 },
  },
  // routes/tickets.ts: message limit 2001
  {
    name: 'ticket-message-2001',
    description: 'a 2001-character ticket message is accepted',
    breaks: ['TICKET-005'],
    probe: { request: req.ticket({ message: 'm'.repeat(2001) }), holds: (r) => r.status === 201 },
  },
  // routes/tickets.ts: preferred_contact limit 161
  {
    name: 'ticket-contact-161',
    description: 'a 161-character preferred_contact is accepted',
    breaks: ['TICKET-006'],
    probe: { request: req.ticket({ preferred_contact: 'c'.repeat(161) }), holds: (r) => r.status === 201 },
  },
  // routes/tickets.ts: lengths counted in UTF-16 code units, not characters
  {
    name: 'ticket-utf16',
    description:
      'ticket subject, message and preferred_contact lengths are counted in UTF-16 code units: 120 characters outside the BMP (emoji) make a subject of 240 and are refused',
    breaks: ['TICKET-004', 'TICKET-005', 'TICKET-006'],
    probe: { request: req.ticket({ subject: '\u{1F600}'.repeat(120) }), holds: (r) => r.status === 400 },
  },
  // routes/tickets.ts: a preferred_contact with a line feed or carriage return accepted
  {
    name: 'ticket-contact-newline',
    description: 'a ticket preferred_contact with \\n is accepted',
    breaks: ['TICKET-006'],
    probe: { request: req.ticket({ preferred_contact: 'a\nb' }), holds: (r) => r.status === 201 },
  },
  // routes/tickets.ts: unknown fields accepted
  {
    name: 'ticket-unknown-field',
    description: 'unknown ticket fields are accepted',
    breaks: ['TICKET-007'],
    probe: { request: req.ticket({ priority: 'high' }), holds: (r) => r.status === 201 },
  },
  // routes/tickets.ts: any category accepted
  {
    name: 'ticket-category-lax',
    description: 'the ticket category "sales" is accepted',
    breaks: ['TICKET-003'],
    probe: { request: req.ticket({ category: 'sales' }), holds: (r) => r.status === 201 },
  },
  // routes/tickets.ts: every creation refused 400 invalid_request, the valid ones too (the refusals of the
  // case table and generated values are then not run, beside no accepted control: test/case-controls.test.ts)
  {
    name: 'tickets-refused',
    description: 'every ticket creation is refused 400 invalid_request, valid tickets too',
    breaks: ['TICKET-001'],
    probe: { request: req.ticket({}), holds: (r) => r.status === 400 },
  },
  // routes/tickets.ts + openapi.ts: creation answers 200 (described so)
  {
    name: 'ticket-200',
    description: 'ticket creation answers 200 instead of 201',
    breaks: ['TICKET-001'],
    probe: { request: req.ticket({}), holds: (r) => r.status === 200 },
  },
  // routes/tickets.ts + openapi.ts: GET answers a bare array (described so)
  {
    name: 'ticket-list-envelope',
    description: 'GET /v1/support/tickets answers a bare array (and is described so)',
    breaks: ['TICKET-002'],
    probe: { request: req.call(TICKETS, { role: 'primary' }), holds: (r) => Array.isArray(r.body) },
  },
  // routes/tickets.ts: numbers for subject, message and preferred_contact taken as their text
  {
    name: 'ticket-numbers-as-text',
    description: 'a ticket whose subject, message or preferred_contact is a number is accepted',
    breaks: ['TICKET-004', 'TICKET-005', 'TICKET-006'],
    probe: { request: req.ticket({ subject: 42 }), holds: (r) => r.status === 201 },
  },
] as const satisfies readonly Fault[];

export const TICKETS_VARIANTS = [
  // routes/tickets.ts: ticket ids numbered per tenant; other tenants hold resolved tickets from before
  {
    name: 'ticket-ids-per-tenant',
    readings: ['ISO-001'],
    description:
      'ticket ids number each tenant\'s tickets from 1 ("3"), and every tenant but the primary one lists 20 resolved tickets from before the run: another tenant\'s own ticket 3 is no leak',
    probe: {
      run: async ({ ref, ticket, call }) => {
        const mine = await ticket(ref, {});
        const theirs = (await call(ref, TICKETS, { role: 'other_tenant' })).body.data as Array<{
          id: string;
        }>;
        return /^\d+$/.test(mine.body.ticket.id) && theirs.some((t) => t.id === mine.body.ticket.id);
      },
    },
  },
  // routes/tickets.ts + openapi.ts
  {
    name: 'ticket-shape',
    readings: ['TICKET-001', 'TICKET-002'],
    description:
      'the ticket object is {ticket_id, state, category, topic, body, preferred_contact?, created_at}',
    probe: { request: req.ticket({}), holds: (r) => r.body.ticket.ticket_id !== undefined },
  },
] as const satisfies readonly Variant[];
