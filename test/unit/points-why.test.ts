/**
 * Issue 25: `points spent: X (the primary balance moved by Z)` says why X and Z differ, in one clause
 * computed from the run's own figures (finish.ts balanceWhy), the same in the console, summary.md and HTML.
 */
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { balanceWhy } from '../../src/app/finish.ts';
import { printVerdict } from '../../src/app/print.ts';
import { renderHtmlReport } from '../../src/report/html.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { aggregate, balanceDeltaClause, type Summary } from '../../src/report/summary.ts';

const d = (v: string) => new Decimal(v);

describe('why the points spent and the balance move differ', () => {
  it.for([
    {
      case: 'a hold still pending and a hold settled lower (the issue: 244.27 vs 219.50)',
      spent: '244.27',
      moved: '219.50',
      held: '20',
      shared: false,
      clause:
        '20 still held by requests not settled yet; 4.77 of holds counted in full but released or settled lower',
    },
    {
      case: 'charges no reply reported, on a shared account',
      spent: '1',
      moved: '3.5',
      held: '0',
      shared: true,
      clause: '2.5 more than the replies reported; the account is shared, so other traffic moves it too',
    },
    {
      case: 'a refund only (no held point left)',
      spent: '10',
      moved: '6',
      held: undefined,
      shared: false,
      clause: '4 of holds counted in full but released or settled lower',
    },
  ])('$case', ({ spent, moved, held, shared, clause }) => {
    const { balanceDeltaWhy } = balanceWhy(d(spent), moved, held ? d(held) : undefined, shared);
    expect(balanceDeltaWhy).toBeDefined();
    expect(balanceDeltaClause(balanceDeltaWhy!)).toBe(clause);
  });

  it('counts apart what other roles keys spent (the isolated account): not in the primary balance', () => {
    const { balanceDeltaWhy } = balanceWhy(d('63'), '22.5', undefined, false, d('40.5'));
    expect(balanceDeltaWhy).toEqual({ elsewhere: '40.5' });
    expect(balanceDeltaClause(balanceDeltaWhy!)).toBe("40.5 spent with other roles' keys (other accounts)");
    const mixed = balanceWhy(d('70'), '22.5', d('2'), false, d('40.5')).balanceDeltaWhy!;
    expect(balanceDeltaClause(mixed)).toBe(
      "2 still held by requests not settled yet; 40.5 spent with other roles' keys (other accounts); 5 of holds counted in full but released or settled lower",
    );
  });

  it('says nothing when they agree or the balance was not read', () => {
    expect(balanceWhy(d('2.5'), '2.50', d('0'), true)).toEqual({});
    expect(balanceWhy(d('2.5'), undefined, undefined, false)).toEqual({});
  });

  it('the console, summary.md and the HTML report give the same clause', () => {
    const points: NonNullable<Summary['points']> = {
      spent: '244.27',
      budget: '500',
      source: 'replies',
      balanceDelta: '219.5',
      ...balanceWhy(d('244.27'), '219.5', d('20'), false),
    };
    const s = {
      suite: { name: 'gateway-conformance', version: '0.1.0' },
      target: {
        name: 't',
        baseUrl: 'https://api.example.test',
        embedded: false,
        allow: [],
        roles: [],
        models: {},
      },
      strict: false,
      seed: 1,
      startedAt: '2026-11-01T00:00:00.000Z',
      durationMs: 1,
      openapi: { valid: true, errors: [] },
      ...aggregate([], []),
      exchanges: { file: 'exchanges.ndjson', count: 0 },
      tests: [],
      points,
    } as Summary;
    const clause =
      '20 still held by requests not settled yet; 4.77 of holds counted in full but released or settled lower';
    const lines: string[] = [];
    printVerdict(s, [], '/tmp/r', (l) => lines.push(l));
    expect(lines).toContain(
      `  points spent: 244.27 of a budget of 500 (the primary balance moved by 219.5: ${clause})`,
    );
    expect(renderMarkdown(s)).toContain(
      `points spent: 244.27 of a budget of 500 \\(the primary balance moved by 219.5: ${clause}\\)`,
    );
    expect(renderHtmlReport({ summary: s, requirements: [] })).toContain(
      `<span data-points="why">Why it differs from the points spent: ${clause}</span>`,
    );
  });
});
