import { listingMentions } from '../../checks/json.ts';
import type { AccountModel } from '../account-state.ts';
import { holds } from '../invariants.ts';
import { is2xx, judged, type Real } from '../real.ts';
import { Step } from './step.ts';

/** GET /v1/support/tickets: every ticket the run created is listed (TICKET-010). */
export class ListTickets extends Step {
  check(): boolean {
    return true;
  }

  protected async act(m: AccountModel, r: Real): Promise<void> {
    const res = await r.t.get('/v1/support/tickets');
    if (!is2xx(res.status)) return;
    for (const ticket of m.tickets) {
      const listed = listingMentions(res.json, ticket.tag);
      judged(
        r,
        holds(listed.found, {
          id: 'TICKET-010',
          message: `${ticket.label} (created with 201, subject tag ${ticket.tag}) is not in the tenant's ticket list of ${listed.entries} ticket(s)`,
          expected: ticket.tag,
        }),
        res,
      );
    }
  }

  toString(): string {
    return 'list tickets';
  }
}
