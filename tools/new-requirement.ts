// Scaffolding for a new requirement: `npm run new-requirement -- ID|PREFIX --words "the contract's words"
// [--level failure|implied|notable] [--reading "..."]... [--fault NAME] [--area AREA] [--dry-run]`.
// Given only a prefix (`MJOB`, `MJOB-?`), it takes the next free number of the prefix. It writes what can
// be written: the catalogue entry in fixtures/requirements.yaml, the id on the contract lines of
// fixtures/traceability.yaml that hold the words, a test stub in the suite file that cites the prefix
// most, and a fault stub (`breaks: [ID]`) at the end of the FAULTS list of the prefix's area file
// reference/faults/<area>.ts (AREAS below); then it prints, numbered and with their files, the steps
// that need a person (the test's body, the fault's probe and its seeding branch in the reference module
// serving the endpoint, a variant, the applicability axes, the table in docs/mutation-matrix.md). The
// stubs fail until they are written (the test throws, the fault's probe never holds). It refuses an id
// that exists, a malformed id, a prefix without an area, a fault name that exists, a level outside
// judging.md's three, and words that do not occur in the contract.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
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

/**
 * Where a requirement's fault goes, by its id's prefix: the area file reference/faults/<area>.ts whose
 * FAULTS list takes the entry, and the reference module that serves the prefix's endpoint or concern
 * (where the `ctx.fault` branch goes), when the prefix tells it. A new prefix gets its row here
 * (test/unit/new-requirement.test.ts checks that every prefix of the catalogue has one).
 */
export const AREAS: Readonly<Record<string, { area: string; seed?: string }>> = {
  AUTH: { area: 'auth', seed: 'reference/auth.ts' },
  SCOPE: { area: 'auth', seed: 'reference/auth.ts' },
  ENT: { area: 'auth', seed: 'reference/auth.ts' },
  HEALTH: { area: 'service', seed: 'reference/routes/public.ts' },
  ERR: { area: 'service', seed: 'reference/errors.ts' },
  SEC: { area: 'service' },
  GEN: { area: 'transport', seed: 'reference/transport.ts' },
  OAS: { area: 'openapi', seed: 'reference/openapi.ts' },
  RESP: { area: 'openapi' },
  VER: { area: 'openapi' },
  PTS: { area: 'points', seed: 'reference/billing.ts' },
  BAL: { area: 'points', seed: 'reference/routes/balance.ts' },
  USAGE: { area: 'points', seed: 'reference/routes/usage.ts' },
  LEDGER: { area: 'points', seed: 'reference/routes/ledger.ts' },
  LEGACY: { area: 'points', seed: 'reference/legacy.ts' },
  MODELS: { area: 'points', seed: 'reference/routes/models.ts' },
  CHAT: { area: 'inference', seed: 'reference/routes/chat.ts' },
  RSP: { area: 'inference', seed: 'reference/routes/responses.ts' },
  EMB: { area: 'inference', seed: 'reference/routes/embeddings.ts' },
  MODEL: { area: 'inference', seed: 'reference/inference.ts' },
  IDEM: { area: 'inference', seed: 'reference/inference.ts' },
  TICKET: { area: 'tickets', seed: 'reference/routes/tickets.ts' },
  ISO: { area: 'tickets' },
  PAY: { area: 'payments', seed: 'reference/routes/payments.ts' },
  RATE: { area: 'guards', seed: 'reference/guards.ts' },
  MJOB: { area: 'media', seed: 'reference/routes/media-jobs.ts' },
  MIN: { area: 'media', seed: 'reference/routes/media-inputs.ts' },
  MASSET: { area: 'media', seed: 'reference/routes/media-assets.ts' },
  MCAT: { area: 'media', seed: 'reference/media/catalog.ts' },
};

export const prefixOf = (id: string) => id.replace(/-(\d{3}|\?)?$/, '');

/** A whole id as given, or the next free id of a prefix given alone (`MJOB`, `MJOB-`, `MJOB-?`). */
export function resolveId(given: string, known: Iterable<string>): { id: string } | { refusal: string } {
  if (!/^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*(-\??)?$/.test(given) || /-\d{3}$/.test(given)) return { id: given };
  const prefix = prefixOf(given);
  let top = 0;
  for (const id of known)
    if (prefixOf(id) === prefix) top = Math.max(top, Number(id.slice(prefix.length + 1)));
  if (top === 0)
    return {
      refusal: `${given}: no ${prefix}-NNN in fixtures/requirements.yaml to count from; give a whole id`,
    };
  if (top >= 999) return { refusal: `${prefix}: every number up to 999 is taken` };
  return { id: `${prefix}-${String(top + 1).padStart(3, '0')}` };
}

/** Why the request cannot be scaffolded, or undefined. */
export function refusal(
  req: NewRequirement,
  contract: string,
  known: ReadonlySet<string> = new Set(catalogue().keys()),
): string | undefined {
  if (!ID_PATTERN.test(req.id))
    return `${req.id}: not a requirement id (like MJOB-012: a prefix, a dash, three digits; or a prefix alone, MJOB, for its next free id)`;
  if (known.has(req.id)) return `${req.id} is already in fixtures/requirements.yaml: ids are never reused`;
  if (!LEVELS.includes(req.level)) return `--level ${req.level}: one of ${LEVELS.join(', ')} (judging.md)`;
  if (fold(req.words) === '') return "--words is empty: copy the contract's own words";
  if (!fold(contract).includes(fold(req.words)))
    return `--words do not occur in the contract (white space folded): copy them exactly from ${CONTRACT_PATH}`;
  return undefined;
}

/** The area (and seeding module) of an id, `area` overriding the table; a refusal for a prefix not in it. */
export function areaOf(id: string, area?: string): { area: string; seed?: string } | { refusal: string } {
  const row = AREAS[prefixOf(id)];
  if (area !== undefined) return { area, ...(row?.area === area && row.seed ? { seed: row.seed } : {}) };
  if (row) return row;
  return {
    refusal: `${prefixOf(id)}: no area file for this prefix in AREAS (tools/new-requirement.ts); give --area (${[...new Set(Object.values(AREAS).map((r) => r.area))].sort().join(', ')}, race) or add the prefix there`,
  };
}

export interface Fixtures {
  /** The catalogue section of the entry (the contract heading above the words' first line). */
  section: string;
  requirements: string;
  traceability: string;
  /** The traceability keys the id was added to. */
  traced: string[];
}

/** The new texts of the two fixtures. Pure: the caller writes the files. */
export function scaffold(
  req: NewRequirement,
  contract: string,
  requirementsYaml: string,
  traceabilityYaml: string,
): Fixtures {
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
  return { section, requirements, traceability, traced };
}

/**
 * The suite test file (root-relative) that cites the most ids of the prefix (ties: the first by name),
 * or undefined when only case tables or suite modules cite it, or nothing does.
 */
export function suiteFor(prefix: string, cited: Map<string, string[]>, root: string): string | undefined {
  const count = new Map<string, number>();
  for (const [id, files] of cited)
    if (prefixOf(id) === prefix)
      for (const f of new Set(files))
        if (isAbsolute(f) && f.endsWith('.test.ts')) {
          const rel = relative(root, f);
          count.set(rel, (count.get(rel) ?? 0) + 1);
        }
  return [...count].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/** A string literal as Biome writes it (single quotes unless the text holds one and no double quote). */
const literal = (text: string) =>
  text.includes("'") && !text.includes('"')
    ? JSON.stringify(text)
    : `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** The suite file's text with a test stub for the id at its end: it fails until it is written. */
export function withTestStub(text: string, req: NewRequirement): string | undefined {
  if (!/^import \{[^}]*\bcheck\b[^}]*\} from '[./]*src\/suite\/index\.ts';/m.test(text)) return undefined;
  const title = fold(req.words).replace(/\s+/g, ' ');
  return `${text.trimEnd()}

// TODO ${req.id} (scaffolded by npm run new-requirement): prove it, both sides of a bound, with its effect class.
check({ ids: ['${req.id}'], effect: 'read' }, ${literal(title)}, async () => {
  throw new Error('${req.id}: a stub of npm run new-requirement, not written yet');
});
`;
}

/** The area file's text with a fault stub at the end of its FAULTS list: its probe never holds until written. */
export function withFaultStub(
  text: string,
  req: NewRequirement,
  name: string,
  seed?: string,
): string | undefined {
  const end = /^\] as const satisfies readonly Fault\[\];$/m.exec(text);
  if (!end) return undefined;
  const stub = `  // ${seed ? seed.replace(/^reference\//, '') : '<where the behaviour lives in reference/>'}: TODO (npm run new-requirement) the ctx.fault === '${name}' branch
  {
    name: '${name}',
    description: 'TODO: what the reference does wrong under this fault (${req.id})',
    breaks: ['${req.id}'],
    probe: { run: async () => false },
  },
`;
  return text.slice(0, end.index) + stub + text.slice(end.index);
}

export interface Plan {
  id: string;
  name: string;
  areaFile: string;
  seed?: string;
  suite?: string;
  /** Which stubs were written (a file the stub could not be placed in is a step instead). */
  testStub: boolean;
  faultStub: boolean;
  traced: number;
}

/** The steps left to a person, in order, each naming its files. */
export function leftToDo(p: Plan): string[] {
  const { id, name } = p;
  const steps: string[] = [];
  if (p.traced === 0)
    steps.push(
      `Traceability: no line of fixtures/traceability.yaml holds these words whole; add ${id} to the \`ids\` of the contract lines it checks.`,
    );
  steps.push(
    p.testStub
      ? `Test: write the stub of ${id} at the end of ${p.suite} (it throws until then): its effect ('read' | 'write' | 'billable' | 'tickets' | 'payments'), a title that reads like the contract, statuses judged with expectStatus and findings with t.ensure/t.violate citing '${id}'; both sides of a bound. Move it beside its kin in the file. (Case tables: fixtures/cases/*.yaml rows citing the id instead.)`
      : `Test: ${p.suite ? `in ${p.suite} (no stub written: the file does not import check from src/suite/index.ts)` : 'in a new file suites/<area>/<topic>.test.ts (no suite file cites the prefix)'}, a check({ ids: ['${id}'], effect: ... }, '<what it proves>', async (t) => { ... }); both sides of a bound.`,
    `Places: if the rule applies on several endpoints, roles, formats, models or forms, give it \`applies\` and \`links\` in fixtures/applicability.yaml; \`npx tsx tools/applicability.ts --uncovered\` lists what is left.`,
    p.faultStub
      ? `Fault: finish the stub '${name}' at the end of the FAULTS list of ${p.areaFile} (its probe never holds until then): its description, its probe (a request and a predicate \`holds\`, or a run; reference/faults/probe.ts) and, where the deployment would describe itself so, an \`openapi\` patch. A fault that needs requests at the same moment goes in reference/faults/race.ts instead.`
      : `Fault: an entry '${name}' breaking ['${id}'] at the end of the FAULTS list of ${p.areaFile} (no stub written: no FAULTS list found there).`,
    p.seed
      ? `Seed: the \`ctx.fault === '${name}'\` branch in ${p.seed}, where the behaviour lives (none when the \`openapi\` patch is the fault).`
      : `Seed: the \`ctx.fault === '${name}'\` branch where the behaviour lives in reference/ (the prefix does not tell which module serves it; none when the \`openapi\` patch is the fault).`,
    `Prove the fault: nice npx vitest run test/reference/faults.test.ts -t ${name}, then npm run mutants -- --only ${name} (killed by ${id}).`,
    `Variant: if the words allow another reading, an entry of the VARIANTS list of ${p.areaFile} taking it (readings: ['${id}']), its branch behind isVariant(ctx, '<variant>'), the reading in the catalogue entry of fixtures/requirements.yaml, and npm run mutants -- --only <variant> passing.`,
    `Table: npx tsx tools/requirements-table.ts --write (the requirements table in docs/mutation-matrix.md is generated).`,
    `Check: npx vitest run test/unit/catalogue.test.ts test/unit/traceability.test.ts test/unit/applicability.test.ts test/unit/requirements-table.test.ts`,
  );
  return steps;
}

const OPTIONS = {
  id: { type: 'string' },
  words: { type: 'string' },
  level: { type: 'string', default: 'failure' },
  reading: { type: 'string', multiple: true, default: [] as string[] },
  fault: { type: 'string' },
  area: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
} satisfies NonNullable<ParseArgsConfig['options']>;

const USAGE =
  'usage: npm run new-requirement -- ID|PREFIX --words "the contract\'s words" [--level failure|implied|notable] [--reading "..."]... [--fault NAME] [--area AREA] [--dry-run]\n';

export interface Where {
  /** The package root whose files are read and written. */
  root: string;
  contract: string;
  /** Run Biome's formatter over the two TypeScript files written (the stubs' long lines). */
  format: boolean;
}

export function main(
  argv: string[],
  where: Where = { root: pkgPath(), contract: CONTRACT_PATH, format: true },
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
): number {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>
  >;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (e) {
    err(`new-requirement: ${(e as Error).message}\n`);
    return 2;
  }
  const [positional, ...rest] = parsed.positionals;
  const given = parsed.values.id ?? positional;
  if (!given || rest.length > 0 || (parsed.values.id && positional) || parsed.values.words === undefined) {
    err(USAGE);
    return 2;
  }
  const at = (rel: string) => join(where.root, rel);
  let contract: string;
  try {
    contract = readFileSync(where.contract, 'utf8');
  } catch {
    err(`new-requirement: the contract is not readable at ${where.contract}\n`);
    return 2;
  }
  const reqFile = 'fixtures/requirements.yaml';
  const traceFile = 'fixtures/traceability.yaml';
  const requirementsYaml = readFileSync(at(reqFile), 'utf8');
  const known = new Set(
    ((YAML.parse(requirementsYaml) as { requirements: Array<{ id: string }> }).requirements ?? []).map(
      (r) => r.id,
    ),
  );
  const resolved = resolveId(given, known);
  if ('refusal' in resolved) {
    err(`new-requirement: ${resolved.refusal}\n`);
    return 2;
  }
  const req: NewRequirement = {
    id: resolved.id,
    words: parsed.values.words,
    level: parsed.values.level as Level,
    readings: parsed.values.reading,
  };
  const area = areaOf(req.id, parsed.values.area);
  const areaFile = 'refusal' in area ? '' : `reference/faults/${area.area}.ts`;
  const name = parsed.values.fault ?? `todo-${req.id.toLowerCase()}`;
  const why =
    refusal(req, contract, known) ??
    ('refusal' in area ? area.refusal : undefined) ??
    (existsSync(at(areaFile)) ? undefined : `--area ${parsed.values.area}: no file ${areaFile}`) ??
    (/^[a-z0-9][a-z0-9.-]*$/.test(name)
      ? undefined
      : `--fault ${name}: lower case, digits, dots and dashes`) ??
    faultTaken(at('reference/faults'), name);
  if (why || 'refusal' in area) {
    err(`new-requirement: ${why}\n`);
    return 2;
  }
  const fixtures = scaffold(req, contract, requirementsYaml, readFileSync(at(traceFile), 'utf8'));
  const suite = suiteFor(prefixOf(req.id), citedIds(where.root), where.root);
  const suiteText = suite ? withTestStub(readFileSync(at(suite), 'utf8'), req) : undefined;
  const faultText = withFaultStub(readFileSync(at(areaFile), 'utf8'), req, name, area.seed);
  const written: string[] = [reqFile];
  if (fixtures.traced.length > 0) written.push(traceFile);
  if (suite && suiteText) written.push(suite);
  if (faultText) written.push(areaFile);
  const dry = parsed.values['dry-run'];
  if (!dry) {
    writeFileSync(at(reqFile), fixtures.requirements);
    writeFileSync(at(traceFile), fixtures.traceability);
    if (suite && suiteText) writeFileSync(at(suite), suiteText);
    if (faultText) writeFileSync(at(areaFile), faultText);
    const ts = written.filter((f) => f.endsWith('.ts'));
    if (where.format && ts.length > 0)
      execFileSync(at('node_modules/.bin/biome'), ['format', '--write', ...ts], {
        cwd: where.root,
        stdio: 'ignore',
      });
  }
  const verb = dry ? 'would write' : 'wrote';
  const steps = leftToDo({
    id: req.id,
    name,
    areaFile,
    ...(area.seed ? { seed: area.seed } : {}),
    ...(suite ? { suite } : {}),
    testStub: suiteText !== undefined,
    faultStub: faultText !== undefined,
    traced: fixtures.traced.length,
  });
  out(
    [
      `${verb} ${req.id} (${req.level}, section "${fixtures.section}") into ${reqFile}`,
      ...(fixtures.traced.length > 0
        ? [
            `${verb} ${req.id} onto ${fixtures.traced.length} contract line(s) of ${traceFile} (${fixtures.traced.join(', ')})`,
          ]
        : []),
      ...(suite && suiteText ? [`${verb} a test stub citing ${req.id} at the end of ${suite}`] : []),
      ...(faultText
        ? [`${verb} the fault stub '${name}' (breaks: [${req.id}]) into the FAULTS list of ${areaFile}`]
        : []),
      `seeding file: ${area.seed ?? 'not told by the prefix (see step "Seed")'}`,
      `files ${dry ? 'it would touch' : 'touched'}: ${written.length} (${written.join(', ')})`,
      '',
      'left to do by hand:',
      ...steps.map((step, i) => `${i + 1}. ${step}`),
      '',
    ].join('\n'),
  );
  return 0;
}

/** A refusal when a fault or variant of that name exists in an area file. */
function faultTaken(dir: string, name: string): string | undefined {
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts')))
    if (readFileSync(join(dir, f), 'utf8').includes(`name: '${name}'`))
      return `--fault ${name}: reference/faults/${f} already has an entry of that name`;
  return undefined;
}

if (process.argv[1]?.endsWith('new-requirement.ts')) process.exitCode = main(process.argv.slice(2));
