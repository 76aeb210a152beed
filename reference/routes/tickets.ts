// GET/POST /v1/support/tickets: "`category` (enterprise_onboarding, billing, api_access or technical),
// `subject` (max 120 characters, single line), `message` (max 2000 characters), optional
// `preferred_contact` (max 160 characters, single line). Unknown fields are rejected." Characters are
// Unicode code points. Tickets belong to the account (enterprise keys share them); "at most 10
// unresolved tickets per tenant". The reference never resolves a ticket, so every ticket is `open`.
// The `support` scope of restricted keys is enforced by auth.ts.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { isVariant } from '../reach.ts';
import type { JsonObject } from '../schemas.ts';
import { callerOf } from './caller.ts';

const PATH = '/v1/support/tickets';
export const CATEGORIES = ['enterprise_onboarding', 'billing', 'api_access', 'technical'];
export const UNRESOLVED_LIMIT = 10;
/** Variant ticket-ids-per-tenant: the resolved tickets each other tenant holds from before the run. */
const TICKET_HISTORY = 20;
const FIELDS = ['category', 'subject', 'message', 'preferred_contact'];

interface Ticket {
  id: string;
  accountId: string;
  /** The key it was created with (fault tickets-per-key). */
  keyValue?: string;
  status: 'open' | 'resolved';
  category: string;
  subject: string;
  message: string;
  preferredContact?: string;
  createdAt: string;
}

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);
const length = (s: string) => [...s].length;
const singleLine = (s: string) => !/[\r\n]/.test(s);

/** The first violation of the ticket create parameters, or undefined. */
function ticketProblem(ctx: RefContext, body: unknown): string | undefined {
  if (!isObject(body)) return 'The body must be a JSON object.';
  if (ctx.fault !== 'ticket-unknown-field') {
    const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
    if (unknown.length > 0) return `Unknown field(s): ${unknown.join(', ')}.`;
  }
  // Fault ticket-numbers-as-text: a number given for a text field is taken as its decimal text.
  const text = (v: unknown) =>
    ctx.fault === 'ticket-numbers-as-text' && typeof v === 'number' ? String(v) : v;
  const { category } = body;
  const [subject, message, contact] = [body.subject, body.message, body.preferred_contact].map(text);
  const laxCategory = ctx.fault === 'ticket-category-lax' && typeof category === 'string' && category !== '';
  // Fault ticket-category-dropped: one listed category is not known.
  const known = ctx.fault === 'ticket-category-dropped' ? CATEGORIES.slice(1) : CATEGORIES;
  if (typeof category !== 'string' || !(known.includes(category) || laxCategory))
    return `\`category\` is required, one of ${CATEGORIES.join(', ')}.`;
  // Fault ticket-utf16: lengths counted in UTF-16 code units (a character outside the BMP counts twice).
  const count = (s: string) => (ctx.fault === 'ticket-utf16' ? s.length : length(s));
  if (typeof subject !== 'string') return '`subject` is required and must be a string.';
  const subjectMax = ctx.fault === 'ticket-subject-121' ? 121 : 120;
  if (count(subject) > subjectMax) return '`subject` must be at most 120 characters.';
  if (!singleLine(subject) && ctx.fault !== 'ticket-subject-newline')
    return '`subject` must be a single line.';
  if (typeof message !== 'string') return '`message` is required and must be a string.';
  const messageMax = ctx.fault === 'ticket-message-2001' ? 2001 : 2000;
  if (count(message) > messageMax) return '`message` must be at most 2000 characters.';
  // Fault ticket-message-single-line: the message held to a single line, as the subject is.
  if (ctx.fault === 'ticket-message-single-line' && !singleLine(message))
    return '`message` must be a single line.';
  if (contact !== undefined) {
    if (typeof contact !== 'string') return '`preferred_contact` must be a string.';
    const contactMax = ctx.fault === 'ticket-contact-161' ? 161 : 160;
    if (count(contact) > contactMax) return '`preferred_contact` must be at most 160 characters.';
    // Fault ticket-contact-newline: a preferred_contact of several lines accepted.
    if (!singleLine(contact) && ctx.fault !== 'ticket-contact-newline')
      return '`preferred_contact` must be a single line.';
  }
  return undefined;
}

/** The ticket object as sent; variant ticket-shape uses other field names. */
function view(ctx: RefContext, t: Ticket): Record<string, unknown> {
  const contact = t.preferredContact === undefined ? {} : { preferred_contact: t.preferredContact };
  if (isVariant(ctx, 'ticket-shape')) {
    return {
      ticket_id: t.id,
      state: t.status,
      category: t.category,
      topic: t.subject,
      body: t.message,
      ...contact,
      created_at: t.createdAt,
    };
  }
  return {
    id: t.id,
    status: t.status,
    category: t.category,
    subject: t.subject,
    message: t.message,
    ...contact,
    created_at: t.createdAt,
  };
}

export function registerTickets(app: FastifyInstance, ctx: RefContext): void {
  // Every ticket of the run, oldest first.
  const tickets: Ticket[] = [];
  // Variant ticket-ids-per-tenant: ids number each tenant's tickets from 1, and every tenant but the
  // primary one holds a history of resolved tickets (listed) from before the run.
  const primaryAccount = ctx.state.keys.get(ctx.state.roleKeys.primary ?? '')?.account.id;
  const seeded = new Set<string>();
  const withHistory = (accountId: string) => {
    if (!isVariant(ctx, 'ticket-ids-per-tenant') || accountId === primaryAccount || seeded.has(accountId))
      return;
    seeded.add(accountId);
    for (let n = 1; n <= TICKET_HISTORY; n++)
      tickets.push({
        id: String(n),
        accountId,
        status: 'resolved',
        category: 'technical',
        subject: `An earlier question ${n}`,
        message: 'Resolved before the run.',
        createdAt: new Date(Date.UTC(2026, 0, n)).toISOString(),
      });
  };

  app.get(PATH, async (request, reply) => {
    const accountId = callerOf(request).account.id;
    withHistory(accountId);
    // Fault tickets-cross-tenant: every tenant's tickets are listed.
    // Fault tickets-per-key: the list shows only the tickets the calling key created, not the tenant's.
    const key = callerOf(request).value;
    const visible = tickets.filter(
      (t) =>
        (t.accountId === accountId &&
          (ctx.fault !== 'tickets-per-key' || t.keyValue === undefined || t.keyValue === key)) ||
        ctx.fault === 'tickets-cross-tenant',
    );
    // Fault ticket-list-lag: the list shows a ticket only a minute after its creation (a lagging replica).
    const shown = visible.filter(
      (t) => ctx.fault !== 'ticket-list-lag' || Date.now() - Date.parse(t.createdAt) >= 60_000,
    );
    const data = shown.map((t) => view(ctx, t));
    return reply
      .type('application/json; charset=utf-8')
      .send(ctx.fault === 'ticket-list-envelope' ? data : { object: 'list', data });
  });

  app.post(PATH, async (request, reply) => {
    const accountId = callerOf(request).account.id;
    // Fault tickets-refused: every ticket is refused as invalid, the valid ones too.
    const problem =
      ctx.fault === 'tickets-refused' ? 'Tickets cannot be created.' : ticketProblem(ctx, request.body);
    if (problem) return sendError(reply, ctx, 'invalid_request', problem);
    const unresolved = tickets.filter((t) => t.accountId === accountId && t.status === 'open').length;
    // Fault ticket-limit-9: the limit is one lower than stated.
    const limit = ctx.fault === 'ticket-limit-9' ? UNRESOLVED_LIMIT - 1 : UNRESOLVED_LIMIT;
    if (unresolved >= limit && ctx.fault !== 'ticket-limit-ignored') {
      // Its window said, so that a client that waits it out learns it is no rate limit at once.
      if (ctx.fault === 'ticket-limit-9') reply.header('Retry-After', '1');
      return sendError(
        reply,
        ctx,
        'ticket_limit_reached',
        `The account has ${UNRESOLVED_LIMIT} unresolved tickets; wait until one is resolved.`,
      );
    }
    const body = request.body as Body;
    withHistory(accountId);
    const ticket: Ticket = {
      id: isVariant(ctx, 'ticket-ids-per-tenant')
        ? String(tickets.filter((t) => t.accountId === accountId).length + 1)
        : `tkt_${randomBytes(12).toString('hex')}`,
      accountId,
      keyValue: callerOf(request).value,
      status: 'open',
      category: body.category as string,
      subject: String(body.subject),
      message: String(body.message),
      ...(typeof body.preferred_contact === 'string' ? { preferredContact: body.preferred_contact } : {}),
      createdAt: new Date().toISOString(),
    };
    tickets.push(ticket);
    return reply
      .code(ctx.fault === 'ticket-200' ? 200 : 201)
      .type('application/json; charset=utf-8')
      .send({ object: 'support_ticket', ticket: view(ctx, ticket) });
  });
}

/** The success status of ticket creation in the description. */
export function ticketCreatedStatus(ctx: RefContext): string {
  return ctx.fault === 'ticket-200' ? '200' : '201';
}

/** Reference shapes of the ticket API, next to the contract's SupportTicketList/-Envelope. */
export function ticketSchemas(ctx: RefContext): Record<string, JsonObject> {
  const string = { type: 'string' };
  const other = isVariant(ctx, 'ticket-shape');
  const [id, status, subject, message] = other
    ? ['ticket_id', 'state', 'topic', 'body']
    : ['id', 'status', 'subject', 'message'];
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  return {
    SupportTicket: {
      type: 'object',
      description: 'A support ticket. The reference never resolves tickets, so each one stays open.',
      required: [id, status, 'category', subject, message, 'created_at'],
      properties: {
        [id]: string,
        // Variant ticket-ids-per-tenant: the other tenants' tickets from before the run are resolved.
        [status]: isVariant(ctx, 'ticket-ids-per-tenant')
          ? { enum: ['open', 'resolved'] }
          : { const: 'open' },
        category: string,
        [subject]: string,
        [message]: string,
        preferred_contact: string,
        created_at: { type: 'string', format: 'date-time' },
      },
    },
    SupportTicketListResponse:
      ctx.fault === 'ticket-list-envelope'
        ? { type: 'array', items: ref('SupportTicket') }
        : {
            allOf: [
              ref('SupportTicketList'),
              { type: 'object', properties: { data: { type: 'array', items: ref('SupportTicket') } } },
            ],
          },
    SupportTicketEnvelopeResponse: {
      allOf: [ref('SupportTicketEnvelope'), { type: 'object', properties: { ticket: ref('SupportTicket') } }],
    },
  };
}
