// Scaffolding for a new requirement: `npm run new-requirement -- ID --words "the contract's words"
// [--level failure|implied|notable] [--reading "..."]...`. Writes what is data (the catalogue entry in
// fixtures/requirements.yaml, the id on the contract lines of fixtures/traceability.yaml that hold the
// words) and prints the steps that need a person (the test, the fault, a variant, the applicability
// axes, the table in docs/mutation-matrix.md), with the files each one touches. It refuses an id that
// exists, a malformed id, a level outside judging.md's three, and words that do not occur in the contract.
import { readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import YAML from 'yaml';
import { catalogue, ID_PATTERN } from '../src/catalogue.ts';
import { CONTRACT_PATH, contractLines, fold } from '../src/contract.ts';
import { pkgPath } from '../src/paths.ts';
import { citedIds } from './cited.ts';

const LEVELS = ['failure', 'implied', 'notable'] as const;
type Level = (typeof LEVELS)[number];

export interface NewRequirement {
  id: string;
  words: string;
  level: Level;
  readings: string[];
}

export interface Scaffold {
  /** The catalogue section of the entry (the contract heading above the words' first line). */
  section: string;
  requirements: string;
  traceability: string;
  /** The traceability keys the id was added to. */
  traced: string[];
  /** The steps left to a person, in order. */
  steps: string[];
}

/** Why the request cannot be scaffolded, or undefined. */
export function refusal(req: NewRequirement, contract: string): string | undefined {
  if (!ID_PATTERN.test(req.id))
    return `${req.id}: not a requirement id (like MJOB-012: a prefix, a dash, three digits)`;
  if (catalogue().has(req.id))
    return `${req.id} is already in fixtures/requirements.yaml: ids are never reused`;
  if (!LEVELS.includes(req.level)) return `--level ${req.level}: one of ${LEVELS.join(', ')} (judging.md)`;
  if (fold(req.words) === '') return "--words is empty: copy the contract's own words";
  if (!fold(contract).includes(fold(req.words)))
    return `--words do not occur in the contract (white space folded): copy them exactly from ${CONTRACT_PATH}`;
  return undefined;
}

const prefixOf = (id: string) => id.replace(/-\d{3}$/, '');

/** The new texts of the two fixtures, and the steps left. Pure: the caller writes the files. */
export function scaffold(
  req: NewRequirement,
  contract: string,
  requirementsYaml: string,
  traceabilityYaml: string,
  cited: Map<string, string[]> = new Map(),
): Scaffold {
  const words = fold(req.words);
  const lines = contractLines(contract);
  // The lines holding the words: one line, or (words across lines) the lines whose text the words hold.
  let holding = lines.filter((l) => l.text.includes(words));
  if (holding.length === 0) holding = lines.filter((l) => l.text.length > 0 && words.includes(l.text));
  const section = holding[0]?.section ?? '';

  // The catalogue: after the last entry of the same prefix (the sections of the file group by area), else last.
  const doc = YAML.parseDocument(requirementsYaml);
  const list = doc.get('requirements') as YAML.YAMLSeq;
  const ids = list.items.map((n) => String((n as YAML.YAMLMap).get('id')));
  const last = ids.map(prefixOf).lastIndexOf(prefixOf(req.id));
  const entry = doc.createNode({
    id: req.id,
    section,
    words: req.words,
    level: req.level,
    testable: true,
    ...(req.readings.length > 0 ? { readings: req.readings } : {}),
  });
  list.items.splice(last < 0 ? list.items.length : last + 1, 0, entry);
  const requirements = doc.toString({ lineWidth: 0 });

  // Traceability: the id joins each holding line's `ids` (a line given a reason before now maps to it).
  const keys = new Set(holding.map((l) => l.key));
  const out = traceabilityYaml.split('\n');
  const traced: string[] = [];
  for (let i = 0; i < out.length; i++) {
    const key = /^ {4}key: "([0-9a-f]{12})"$/.exec(out[i]!)?.[1];
    if (!key || !keys.has(key)) continue;
    for (let j = i + 1; j < out.length && !out[j]!.startsWith('  - '); j++) {
      const idsLine = /^( {4}ids: \[)(.*)\]$/.exec(out[j]!);
      if (idsLine) {
        const have = idsLine[2]!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        out[j] = `${idsLine[1]}${[...have, req.id].sort().join(', ')}]`;
        traced.push(key);
        break;
      }
      const reason = /^ {4}reason: (.*)$/.exec(out[j]!);
      if (reason) {
        out[j] = `    ids: [${req.id}]`;
        traced.push(key);
        break;
      }
    }
  }
  const traceability = out.join('\n');

  const prefix = prefixOf(req.id);
  const suites = new Set<string>();
  for (const [id, files] of cited)
    if (prefixOf(id) === prefix)
      for (const f of files) suites.add(isAbsolute(f) ? relative(pkgPath(), f) : `fixtures/cases/${f}`);
  const where = suites.size > 0 ? [...suites].sort().join(', ') : `a new file suites/<area>/<topic>.test.ts`;
  const steps = [
    `Test: in ${where}, a check({ ids: ['${req.id}'], effect: 'read' | 'write' | 'billable' | 'tickets' | 'payments' }, '<what it proves>', async (t) => { ... }) whose title reads like the contract; judge statuses with expectStatus and findings with t.ensure/t.violate citing '${req.id}'. Both sides of a bound: the acceptance at it and the refusal just past it. (Case tables: fixtures/cases/*.yaml rows citing the id.)`,
    `Places: if the rule applies on several endpoints, roles, formats, models or forms, give it \`applies\` and \`links\` in fixtures/applicability.yaml; \`npx tsx tools/applicability.ts --uncovered\` lists what is left.`,
    `Fault: an entry breaking ['${req.id}'] in its area's list (reference/faults/<area>.ts) with its description, its probe (a request and a predicate, or a run) and, where the deployment would describe itself so, an \`openapi\` patch; plus the \`ctx.fault === '<name>'\` branch where the behaviour lives in reference/ (none when the patch is the fault); prove it: npm run mutants -- --only <name> (killed by ${req.id}).`,
    `Variant: if the words allow another reading, an entry of the area's variant list taking it (readings: ['${req.id}']), its reading written in the catalogue entry, and npm run mutants -- --only <variant> passing.`,
    `Table: npx tsx tools/requirements-table.ts --write (the requirements table in docs/mutation-matrix.md is generated).`,
    `Check: npx vitest run test/unit/catalogue.test.ts test/unit/traceability.test.ts test/unit/applicability.test.ts test/unit/requirements-table.test.ts`,
  ];
  if (traced.length === 0)
    steps.unshift(
      `Traceability: no line of fixtures/traceability.yaml holds these words whole; add ${req.id} to the \`ids\` of the contract lines it checks.`,
    );
  return { section, requirements, traceability, traced, steps };
}

const OPTIONS = {
  words: { type: 'string' },
  level: { type: 'string', default: 'failure' },
  reading: { type: 'string', multiple: true, default: [] as string[] },
  'dry-run': { type: 'boolean', default: false },
} satisfies NonNullable<ParseArgsConfig['options']>;

export function main(argv: string[]): number {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>
  >;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    process.stderr.write(`new-requirement: ${(err as Error).message}\n`);
    return 2;
  }
  const [id, ...rest] = parsed.positionals;
  if (!id || rest.length > 0 || parsed.values.words === undefined) {
    process.stderr.write(
      'usage: npm run new-requirement -- ID --words "the contract\'s words" [--level failure|implied|notable] [--reading "..."]... [--dry-run]\n',
    );
    return 2;
  }
  const req: NewRequirement = {
    id,
    words: parsed.values.words,
    level: parsed.values.level as Level,
    readings: parsed.values.reading,
  };
  let contract: string;
  try {
    contract = readFileSync(CONTRACT_PATH, 'utf8');
  } catch {
    process.stderr.write(`new-requirement: the contract is not readable at ${CONTRACT_PATH}\n`);
    return 2;
  }
  const why = refusal(req, contract);
  if (why) {
    process.stderr.write(`new-requirement: ${why}\n`);
    return 2;
  }
  const reqFile = pkgPath('fixtures', 'requirements.yaml');
  const traceFile = pkgPath('fixtures', 'traceability.yaml');
  const s = scaffold(
    req,
    contract,
    readFileSync(reqFile, 'utf8'),
    readFileSync(traceFile, 'utf8'),
    citedIds(),
  );
  if (!parsed.values['dry-run']) {
    writeFileSync(reqFile, s.requirements);
    writeFileSync(traceFile, s.traceability);
  }
  const verb = parsed.values['dry-run'] ? 'would write' : 'wrote';
  process.stdout.write(
    [
      `${verb} ${req.id} (${req.level}, section "${s.section}") into fixtures/requirements.yaml`,
      s.traced.length > 0
        ? `${verb} ${req.id} onto ${s.traced.length} contract line(s) of fixtures/traceability.yaml (${s.traced.join(', ')})`
        : '',
      '',
      'left to do:',
      ...s.steps.map((step, i) => `${i + 1}. ${step}`),
      '',
    ]
      .filter((l, i) => l !== '' || i > 1)
      .join('\n'),
  );
  return 0;
}

if (process.argv[1]?.endsWith('new-requirement.ts')) process.exitCode = main(process.argv.slice(2));
