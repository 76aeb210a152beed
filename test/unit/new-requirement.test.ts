// The scaffolding command for a new requirement (tools/new-requirement.ts): what it refuses, the id it
// proposes, the area file it names, and what it writes (the catalogue, the traceability map, a test stub
// and a fault stub), the last on a temporary copy of the files it touches.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { catalogue } from '../../src/catalogue.ts';
import { contractLines } from '../../src/contract.ts';
import { pkgPath } from '../../src/paths.ts';
import {
  AREAS,
  areaOf,
  leftToDo,
  main,
  type NewRequirement,
  prefixOf,
  refusal,
  resolveId,
  scaffold,
} from '../../tools/new-requirement.ts';

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
    const plan = { id: 'TICKET-099', name: 'x', areaFile: 'reference/faults/tickets.ts', testStub: true };
    expect(leftToDo({ ...plan, faultStub: true, traced: 0 })[0]).toMatch(/^Traceability: no line/);
    expect(leftToDo({ ...plan, faultStub: true, traced: 1 }).join('\n')).toMatch(
      /npm run mutants -- --only x/,
    );
  });

  it('proposes the next free id of a prefix given alone, and refuses a prefix with nothing to count from', () => {
    const known = ['MJOB-001', 'MJOB-044', 'MJOB-009', 'MIN-015', 'MJOBX-100'];
    expect(resolveId('MJOB', known)).toEqual({ id: 'MJOB-045' });
    expect(resolveId('MJOB-?', known)).toEqual({ id: 'MJOB-045' });
    expect(resolveId('MJOB-', known)).toEqual({ id: 'MJOB-045' });
    expect(resolveId('MIN', known)).toEqual({ id: 'MIN-016' });
    // A whole id, or a malformed one, is passed on as given (refusal() judges it).
    expect(resolveId('MJOB-012', known)).toEqual({ id: 'MJOB-012' });
    expect(resolveId('mjob', known)).toEqual({ id: 'mjob' });
    expect(resolveId('NOPE', known)).toEqual({
      refusal: expect.stringMatching(/no NOPE-NNN .*give a whole id/),
    });
  });

  it('names an existing area file (and seeding module) for every prefix of the catalogue, and refuses an unknown one', () => {
    const prefixes = new Set([...catalogue().keys()].map(prefixOf));
    for (const prefix of prefixes) expect(AREAS, `${prefix}: add its row to AREAS`).toHaveProperty([prefix]);
    for (const [prefix, row] of Object.entries(AREAS)) {
      expect(existsSync(pkgPath('reference', 'faults', `${row.area}.ts`)), prefix).toBe(true);
      if (row.seed) expect(existsSync(pkgPath(row.seed)), `${prefix}: ${row.seed}`).toBe(true);
    }
    expect(areaOf('MJOB-045')).toEqual({ area: 'media', seed: 'reference/routes/media-jobs.ts' });
    expect(areaOf('AUTH-014')).toEqual({ area: 'auth', seed: 'reference/auth.ts' });
    expect(areaOf('PTS-007')).toMatchObject({ area: 'points' });
    expect(areaOf('ZZZ-001')).toEqual({
      refusal: expect.stringMatching(/^ZZZ: no area file .* give --area/),
    });
    expect(areaOf('ZZZ-001', 'race')).toEqual({ area: 'race' });
  });

  describe('on a temporary copy of the files it touches', () => {
    let root = '';
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    /** The package's catalogue, case tables, one suite file and the fault area files, a small contract and map. */
    function copy(): { contract: string; keys: string[] } {
      root = mkdtempSync(join(tmpdir(), 'new-requirement-'));
      for (const dir of ['fixtures/cases', 'reference/faults'])
        cpSync(pkgPath(dir), join(root, dir), { recursive: true });
      cpSync(pkgPath('fixtures', 'requirements.yaml'), join(root, 'fixtures', 'requirements.yaml'));
      mkdirSync(join(root, 'suites', 'tickets'), { recursive: true });
      cpSync(
        pkgPath('suites', 'tickets', 'tickets.test.ts'),
        join(root, 'suites', 'tickets', 'tickets.test.ts'),
      );
      const keys = contractLines(CONTRACT).map((l) => l.key);
      writeFileSync(
        join(root, 'fixtures', 'traceability.yaml'),
        TRACE.replace('KEY1', keys[2]!).replace('KEY2', keys[4]!),
      );
      const contract = join(root, 'contract.md');
      writeFileSync(contract, CONTRACT);
      return { contract, keys };
    }
    const run = (argv: string[], contract: string) => {
      let out = '';
      let err = '';
      const code = main(
        argv,
        { root, contract, format: false },
        (t) => {
          out += t;
        },
        (t) => {
          err += t;
        },
      );
      return { code, out, err };
    };
    const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

    it('takes the next free id, writes the entry, the trace, a test stub and a fault stub, and lists the rest by file', () => {
      const { contract, keys } = copy();
      const top = Math.max(
        ...[...catalogue().keys()].filter((id) => prefixOf(id) === 'TICKET').map((id) => Number(id.slice(7))),
      );
      const id = `TICKET-${String(top + 1).padStart(3, '0')}`;
      const { code, out, err } = run(
        ['TICKET', '--words', 'at most 120 characters', '--fault', 'ticket-probe'],
        contract,
      );
      expect(err).toBe('');
      expect(code).toBe(0);
      expect(out).toContain(`wrote ${id} (failure, section "Tickets") into fixtures/requirements.yaml`);
      expect(out).toContain(`onto 1 contract line(s) of fixtures/traceability.yaml (${keys[2]})`);
      expect(out).toContain('seeding file: reference/routes/tickets.ts');
      expect(out).toMatch(
        /files touched: 4 \(fixtures\/requirements.yaml, fixtures\/traceability.yaml, suites\/tickets\/tickets.test.ts, reference\/faults\/tickets.ts\)/,
      );
      // The steps left, numbered, each naming its files.
      expect(out).toMatch(
        /left to do by hand:\n1\. Test: write the stub of TICKET-\d{3} at the end of suites\/tickets\/tickets.test.ts/,
      );
      expect(out).toMatch(
        /\n3\. Fault: finish the stub 'ticket-probe' at the end of the FAULTS list of reference\/faults\/tickets.ts/,
      );
      expect(out).toMatch(
        /\n4\. Seed: the `ctx.fault === 'ticket-probe'` branch in reference\/routes\/tickets.ts/,
      );

      const entries = (parse(read('fixtures/requirements.yaml')) as { requirements: Array<{ id: string }> })
        .requirements;
      expect(entries.filter((r) => r.id === id)).toHaveLength(1);
      expect(read('fixtures/traceability.yaml')).toContain(`ids: [${id}]`);
      expect(read('suites/tickets/tickets.test.ts').trimEnd()).toMatch(
        new RegExp(
          `check\\(\\{ ids: \\['${id}'\\], effect: 'read' \\}, 'at most 120 characters', async \\(\\) => \\{\\n.*throw new Error[^\\n]*\\n\\}\\);$`,
        ),
      );
      const faults = read('reference/faults/tickets.ts');
      const stub = faults.indexOf(`name: 'ticket-probe'`);
      expect(stub).toBeGreaterThan(0);
      expect(faults.slice(stub)).toMatch(
        new RegExp(
          `^name: 'ticket-probe',[^]*breaks: \\['${id}'\\],[^]*\\n\\] as const satisfies readonly Fault\\[\\];`,
        ),
      );
      // Only the copy was written.
      expect(readFileSync(pkgPath('reference', 'faults', 'tickets.ts'), 'utf8')).not.toContain(
        'ticket-probe',
      );
    });

    it('keeps its refusals: an id that exists, a malformed id, an unknown prefix, a fault name that exists', () => {
      const { contract } = copy();
      const words = ['--words', 'at most 120 characters'];
      expect(run(['TICKET-001', ...words], contract).err).toMatch(
        /TICKET-001 is already in fixtures\/requirements.yaml/,
      );
      expect(run(['ticket-99', ...words], contract).err).toMatch(/not a requirement id/);
      expect(run(['ZZZ-001', ...words], contract).err).toMatch(/ZZZ: no area file for this prefix/);
      expect(run(['TICKET', ...words, '--fault', 'ticket-category-dropped'], contract).err).toMatch(
        /--fault ticket-category-dropped: reference\/faults\/tickets.ts already has an entry/,
      );
      expect(run(['--id', 'TICKET-?', ...words, '--dry-run'], contract)).toMatchObject({ code: 0, err: '' });
      expect(read('fixtures/requirements.yaml')).toBe(
        readFileSync(pkgPath('fixtures', 'requirements.yaml'), 'utf8'),
      );
    });
  });
});
