import { randomUUID } from 'node:crypto';
import { type AccountModel, nextLabel } from '../account-state.ts';
import { is2xx, type Real } from '../real.ts';
import { Step } from './step.ts';

/**
 * POST /v1/support/tickets (class `tickets`): tickets cannot be deleted and a tenant keeps at most 10
 * unresolved, so a run creates at most `env.ticketsLeft` of them (the suite allows one per test).
 */
export class CreateTicket extends Step {
  check(m: Readonly<AccountModel>): boolean {
    return m.env.tickets && m.env.ticketsLeft.n > 0;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    m.env.ticketsLeft.n -= 1;
    const tag = `stateful-${randomUUID().slice(0, 8)}`;
    const res = await r.t.post('/v1/support/tickets', {
      category: 'technical',
      subject: `Conformance ${tag}`,
      message: 'Automated conformance probe (model-based sequence); please ignore.',
    });
    // At its limit of unresolved tickets (429) the tenant gets no more from this run.
    if (res.status === 429) m.env.ticketsLeft.n = 0;
    if (!is2xx(res.status)) return;
    const label = nextLabel('ticket', m.tickets);
    this.target = label;
    m.tickets.push({ label, tag });
  }

  toString(): string {
    return `create a ticket${this.target ? ` as ${this.target}` : ''}`;
  }
}
