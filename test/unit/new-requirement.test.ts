// The scaffolding command for a new requirement (tools/new-requirement.ts): what it refuses, and
// what it writes into the catalogue and the traceability map.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { contractLines } from '../../src/contract.ts';
import { type NewRequirement, refusal, scaffold } from '../../tools/new-requirement.ts';

const CONTRACT = [
  '# Customer API',
  '## Tickets',
  'A ticket subject is at most 120 characters.',
  '| a | b |',
  '|---|---|',
  'Replies are never edited.',
  '',
].join('\n');

const REQUIREMENTS = `requirements:
  # tickets
  - id: TICKET-001
    section: Tickets
    words: Replies are never edited.
    level: failure
    testable: true
  # transport
  - id: GEN-001
    section: Customer API
    words: Customer API
    level: failure
    testable: true
`;

const TRACE = `lines:
  - section: "Tickets"
    key: "KEY1"
    text: "A ticket subject is at most 120 characters."
    reason: not a rule
  - section: "Tickets"
    key: "KEY2"
    text: "Replies are never edited."
    ids: [TICKET-001]
`;

const req = (over: Partial<NewRequirement> = {}): NewRequirement => ({
  id: 'TICKET-099',
  words: 'at most 120 characters',
  level: 'failure',
  readings: [],
  ...over,
});

describe('npm run new-requirement', () => {
  it('refuses an id that exists, a malformed id, an unknown level and words the contract lacks', () => {
    expect(refusal(req({ id: 'GEN-001' }), CONTRACT)).toMatch(/already in fixtures\/requirements.yaml/);
    expect(refusal(req({ id: 'ticket-99' }), CONTRACT)).toMatch(/not a requirement id/);
    expect(refusal(req({ level: 'fatal' as NewRequirement['level'] }), CONTRACT)).toMatch(/--level fatal/);
    expect(refusal(req({ words: 'at most 121 characters' }), CONTRACT)).toMatch(
      /do not occur in the contract/,
    );
    expect(refusal(req({ words: '  at most   120\ncharacters ' }), CONTRACT)).toBeUndefined();
  });

  it('writes the entry after the last of its prefix, with the section of the words, and traces the line', () => {
    const keys = contractLines(CONTRACT).map((l) => l.key);
    const fixture = TRACE.replace('KEY1', keys[2]!).replace('KEY2', keys[4]!);
    const s = scaffold(req({ readings: ['Counted in code points.'] }), CONTRACT, REQUIREMENTS, fixture);
    expect(s.section).toBe('Tickets');
    const doc = parse(s.requirements) as { requirements: Array<Record<string, unknown>> };
    expect(doc.requirements.map((r) => r.id)).toEqual(['TICKET-001', 'TICKET-099', 'GEN-001']);
    expect(doc.requirements[1]).toEqual({
      id: 'TICKET-099',
      section: 'Tickets',
      words: 'at most 120 characters',
      level: 'failure',
      testable: true,
      readings: ['Counted in code points.'],
    });
    // The comments of the catalogue stay.
    expect(s.requirements).toContain('# transport');
    const lines = (parse(s.traceability) as { lines: Array<Record<string, unknown>> }).lines;
    expect(lines[0]).toMatchObject({ ids: ['TICKET-099'] });
    expect(lines[0]).not.toHaveProperty('reason');
    expect(lines[1]).toMatchObject({ ids: ['TICKET-001'] });
    expect(s.traced).toEqual([keys[2]]);
    expect(s.steps.join('\n')).toMatch(/npm run mutants -- --only/);
  });

  it('adds the id to a line that already maps others, and says so when no line holds the words whole', () => {
    const keys = contractLines(CONTRACT).map((l) => l.key);
    const fixture = TRACE.replace('KEY1', keys[2]!).replace('KEY2', keys[4]!);
    const s = scaffold(req({ words: 'never edited' }), CONTRACT, REQUIREMENTS, fixture);
    expect((parse(s.traceability) as { lines: Array<{ ids?: string[] }> }).lines[1]!.ids).toEqual([
      'TICKET-001',
      'TICKET-099',
    ]);
    const none = scaffold(req(), CONTRACT, REQUIREMENTS, 'lines: []\n');
    expect(none.traced).toEqual([]);
    expect(none.steps[0]).toMatch(/^Traceability: no line/);
  });
});
