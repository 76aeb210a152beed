/**
 * Triage of StrykerJS's surviving mutants (npm run mutation-engine): reads its JSON report and sorts
 * every mutant that survived into what needs no test and what does.
 * - `switch`: a mutant of a fault or variant switch (`ctx.fault === ...`, `isVariant(...)`, the name of
 *   a fault or variant). Equivalent by construction: the suite runs against the plain reference, where a
 *   fault switch turned off changes nothing, and a variant switch turned on is another reading the
 *   contract allows (the matrix proves each fault killed and each variant passed on its own).
 * - the others are listed with their line, the mutation and the reason given in RANGES: a survivor
 *   with no reason is "to triage", and the script exits 1.
 * Usage: npx tsx tools/mutation-triage.ts [REPORT...] [--write [--out FILE]] (REPORT: default
 * reports/mutation/mutation.json; several: the same mutants run with parts of the suite, unionOf)
 * (--write: reference/mutation-triage.md, the billing module's; --out another module's file, e.g.
 * reference/mutation-triage-media.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pkgPath } from '../src/paths.ts';

export interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
export interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

/**
 * Survivors that need no new test, by file and line range (reviewed by hand against the source the
 * report was made from: re-run and re-triage when the file changes), with the reason.
 */
const MEDIA = 'reference/media/validate.ts';
const GUARDED = 'inside a fault or variant branch (its guard is a switch): equivalent on the plain reference';
const MESSAGE =
  "equivalent: a refusal's message text is not stated by the contract (its status and error object are judged; the text emptied is still that refusal)";
/** `only`: the reason holds for this mutator alone (another mutation of the line is triaged on its own). */
const RANGES: Array<{ file: string; from: number; to: number; reason: string; only?: string }> = [
  // reference/billing.ts (StrykerJS at 3101f2a, each run with its own report directory).
  {
    file: 'reference/billing.ts',
    from: 11,
    to: 11,
    reason:
      "equivalent on the reference's prices: Decimal's default precision (20 significant digits) holds every charge of the standard prices exactly (the 18-decimal prices are variant fractional-prices')",
  },
  {
    file: 'reference/billing.ts',
    from: 56,
    to: 68,
    reason:
      "unreachable over HTTP: spendAll is a hook of the project's own reference tests (reference/start.ts: another client spends the account), nothing a request does",
  },
  {
    file: 'reference/billing.ts',
    from: 79,
    to: 79,
    reason:
      "not stated: released_points is named ('Call settlement | charged_points, released_points') but its value is not given, and the hold it comes from is never shown",
  },
  { file: 'reference/billing.ts', from: 85, to: 85, reason: `${GUARDED} (balance-not-settled's offset)` },
  {
    file: 'reference/billing.ts',
    from: 91,
    to: 91,
    reason:
      'equivalent: usage and ledger ids are opaque (their format is not shown); only the prefix changes',
  },
  {
    file: 'reference/billing.ts',
    from: 107,
    to: 107,
    reason:
      'equivalent: usage and ledger ids are opaque (their format is not shown); only the prefix changes',
  },
  { file: 'reference/billing.ts', from: 117, to: 127, reason: `${GUARDED} (snapshot-drift)` },
  {
    file: 'reference/billing.ts',
    from: 132,
    to: 132,
    reason: 'unreachable over HTTP: a model without prices is refused before it is settled (it answers 503)',
  },
  {
    file: 'reference/billing.ts',
    from: 140,
    to: 147,
    reason:
      "unreachable over HTTP: setModelPrice is a hook of the project's own reference tests (reference/start.ts setPrice), nothing a deployment does",
  },
  {
    file: 'reference/billing.ts',
    from: 158,
    to: 159,
    reason: `${GUARDED} (variant spend-unreported, fault spend-unmeasurable: the function answers false on the plain reference, and undefined is as false)`,
  },
  { file: 'reference/billing.ts', from: 177, to: 179, reason: `${GUARDED} (chat-credits-names)` },
  {
    file: 'reference/billing.ts',
    from: 185,
    to: 192,
    reason: `${GUARDED} (snapshot-drift, usage-charge-mismatch)`,
  },
  { file: 'reference/billing.ts', from: 194, to: 206, reason: `${GUARDED} (variant usage-envelope)` },
  { file: 'reference/billing.ts', from: 223, to: 224, reason: `${GUARDED} (ledger-balance-off)` },
  // reference/media/validate.ts (StrykerJS at 6ec2ae0, fault and variant switches ignored): a refusal's
  // message emptied is still the refusal.
  { file: MEDIA, from: 54, to: 54, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 58, to: 58, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 59, to: 59, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 60, to: 60, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 79, to: 79, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 83, to: 83, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 241, to: 241, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 250, to: 250, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 289, to: 289, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 303, to: 303, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 305, to: 305, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 317, to: 317, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 322, to: 322, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 329, to: 329, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 341, to: 341, reason: MESSAGE, only: 'StringLiteral' },
  { file: MEDIA, from: 346, to: 346, reason: MESSAGE, only: 'StringLiteral' },
  {
    file: MEDIA,
    from: 39,
    to: 39,
    reason: "equivalent: Buffer.byteLength with an empty encoding name counts UTF-8 (Node's default)",
  },
  {
    file: MEDIA,
    from: 42,
    to: 42,
    reason:
      'equivalent on the plain reference: trimAscii is used only under variant trim-ascii-only (promptProblem picks the trim by the variant)',
  },
  {
    file: MEDIA,
    from: 43,
    to: 43,
    reason:
      "equivalent: the route answers invalid_request for every kind but not_found, unknown_input and forbidden (reference/routes/media-jobs.ts), so the kind 'invalid' emptied is still that refusal",
    only: 'StringLiteral',
  },
  {
    file: MEDIA,
    from: 59,
    to: 59,
    reason: 'equivalent: a missing model is refused by the next check (no string) with the same 400',
  },
  {
    file: MEDIA,
    from: 60,
    to: 60,
    reason:
      'equivalent under the recorded reading: a model that is no string is then looked up as an id, which no media model has, and refused 404 (a wrong model id) instead of 400; MJOB-044 accepts any 4xx for a model outside the media catalog',
  },
  {
    file: MEDIA,
    from: 68,
    to: 68,
    reason: `${GUARDED} (the substitute model of media-job-unknown-model-accepted, media-job-text-model)`,
  },
  {
    file: MEDIA,
    from: 69,
    to: 69,
    reason:
      "equivalent under the recorded readings: an unknown id then meets the catalog check and is refused 403 (judging.md: 403 for an unauthorised model, 404 may be given for an unknown id), and the kind not_found emptied is a 400 invalid_request (MJOB-044: any 4xx; MODEL-003's 404 is advisory on media jobs); a message text is not stated",
  },
  {
    file: MEDIA,
    from: 73,
    to: 73,
    reason: `${GUARDED} (the substitute model of media-job-unknown-model-accepted, media-job-text-model)`,
  },
  {
    file: MEDIA,
    from: 74,
    to: 74,
    reason:
      "equivalent under the recorded reading: the kind forbidden emptied is a 400 invalid_request, and a job for a documented model outside the account's media catalog may be refused with any 4xx (MODELS-004, MODEL-002: MediaJobCreate's model rule); a message text is not stated",
  },
  { file: MEDIA, from: 91, to: 91, reason: `${GUARDED} (ref-max-refused)` },
  {
    file: MEDIA,
    from: 94,
    to: 94,
    reason:
      'equivalent on the plain reference: resolveReferences answers a JobProblem (rather than a message or the inputs) only under variant ref-unknown-404',
  },
  {
    file: MEDIA,
    from: 96,
    to: 96,
    reason:
      'equivalent: a model without output_format gets a PNG either way (an unknown format is served the PNG sample, reference/media/output.ts)',
  },
  {
    file: MEDIA,
    from: 102,
    to: 102,
    reason:
      'equivalent on the plain reference: kindSent is read only by fault kind-missing (reference/media/view.ts)',
  },
  {
    file: MEDIA,
    from: 103,
    to: 103,
    reason:
      "not a contract rule: the job's prompt is read only by the reference's test hooks, the markers of the capabilities media-fail-prompt and media-uncertain-prompt a target declares (reference/routes/media-jobs.ts); without them the failing and uncertain jobs' tests are not judged",
  },
  {
    file: MEDIA,
    from: 113,
    to: 113,
    reason: 'equivalent: without the acknowledgement the next check (not true) refuses with the same 400',
  },
  {
    file: MEDIA,
    from: 118,
    to: 118,
    reason:
      "unreachable: every model of the reference lists the reference kinds it accepts (wc-100019's, not stated, is the reference's own choice: none)",
  },
  {
    file: MEDIA,
    from: 122,
    to: 122,
    reason:
      "equivalent for every name a client sends: the mutant admits one more parameter name ('Stryker was here') for models that take no references",
  },
  {
    file: MEDIA,
    from: 129,
    to: 129,
    reason:
      "equivalent: a never-accepted name is in no model's parameter list, so the unsupported-name check just after refuses it with the same 400",
  },
  {
    file: MEDIA,
    from: 144,
    to: 144,
    reason:
      'equivalent: every value set of the table is of strings, so a value that is no string is not among them either way',
  },
  {
    file: MEDIA,
    from: 149,
    to: 149,
    reason:
      "only wc-900001 (the reference's undocumented model) has an integer step: its checks come from its catalog entry and are advisory (MCAT-004 is notable, judging.md)",
  },
  {
    file: MEDIA,
    from: 152,
    to: 152,
    reason:
      'unreachable on the plain reference: no parameter is a free string (only fault undocumented-unenforced gives one)',
  },
  {
    file: MEDIA,
    from: 153,
    to: 154,
    reason:
      "unreachable: every parameter of the reference is a value set, an integer, a boolean or a size (wc-100019's seed, not stated, is the reference's own integer)",
  },
  { file: MEDIA, from: 164, to: 165, reason: `${GUARDED} (list-b-refused)` },
  {
    file: MEDIA,
    from: 167,
    to: 167,
    reason:
      'unreachable: sizeOk is called only for a parameter with presets, and each presets name is a list of the table',
  },
  { file: MEDIA, from: 194, to: 194, reason: `${GUARDED} (prompt-inner-space-stripped)` },
  {
    file: MEDIA,
    from: 200,
    to: 200,
    reason:
      "every documented model caps prompts at 4000 UTF-8 bytes; only wc-900001 (the reference's undocumented model, 900) differs, judged from its catalog entry as advisory (MCAT-004 is notable)",
  },
  {
    file: MEDIA,
    from: 216,
    to: 218,
    reason: `${GUARDED} (underStudioName is read only under fault switches: studio-ids-*, the id bound of studio-ids-chars, studio-ids-not-held in reference/routes/media-jobs.ts)`,
  },
  { file: MEDIA, from: 225, to: 225, reason: `${GUARDED} (ref-id-chars, studio-ids-chars)` },
  {
    file: MEDIA,
    from: 231,
    to: 231,
    reason:
      'equivalent: a model that takes no references cannot carry a reference field here (refused before as an unsupported parameter), so past this line its ids are absent and `required` false: the same undefined; its `?? []` is unreachable (every model lists its reference kinds)',
  },
  {
    file: MEDIA,
    from: 238,
    to: 239,
    reason:
      "equivalent for the documented models: every one that takes references requires them, and a job without ids is refused anyway (as malformed, or by the count: 0 images, minimum 1; the same 400); only wc-900001's optional references differ, advisory (MCAT-004)",
  },
  { file: MEDIA, from: 248, to: 248, reason: `${GUARDED} (ref-id-chars, studio-ids-chars)` },
  {
    file: MEDIA,
    from: 263,
    to: 264,
    reason:
      'equivalent: for a model that takes no references the lookup finds no ids and the count bounds are 0 to 0, the same empty list; its `?? []` is unreachable (every model lists its reference kinds)',
  },
  {
    file: MEDIA,
    from: 272,
    to: 276,
    reason: `${GUARDED} (isLong holds only under ref-id-161 and ref-id-chars)`,
  },
  {
    file: MEDIA,
    from: 296,
    to: 296,
    reason:
      "unreachable on the plain reference: uploads already refuse a type that is not the bytes', a video that is not H.264 or lasts outside 1-30 s (reference/routes/media-inputs.ts); these checks at job creation act under variant sniff-at-job only",
  },
  { file: MEDIA, from: 300, to: 301, reason: `${GUARDED} (video-as-image, studio-ids-video-as-image)` },
  {
    file: MEDIA,
    from: 302,
    to: 302,
    reason:
      'equivalent on the plain reference: ghosts (over-long ids counted as images) exist only under faults ref-id-161 and ref-id-chars',
  },
  {
    file: MEDIA,
    from: 303,
    to: 303,
    reason:
      'equivalent for the documented models: a video sent to an image-only model leaves no image to count (0, minimum 1) or is mixed with images (refused as mixed): the same 400; only wc-900001 (minimum 0) would take it, advisory (MCAT-004)',
  },
  {
    file: MEDIA,
    from: 321,
    to: 321,
    reason:
      'equivalent on the plain reference: video mode takes exactly one video (checked just before), so `some` is `every`; its upper bound, 30 s, is the upload bound itself, so no input over it exists (only fault video-31s moves one of them)',
  },
  {
    file: MEDIA,
    from: 325,
    to: 325,
    reason:
      'equivalent for the documented models: each that takes references has a minimum of 1 (those that take none return before); only wc-900001 (0) differs, advisory (MCAT-004)',
  },
  {
    file: MEDIA,
    from: 337,
    to: 347,
    reason:
      "unreachable on the plain reference: uploads already refuse a type that is not the bytes', a video that is not H.264 or lasts outside 1-30 s (reference/routes/media-inputs.ts); these checks at job creation act under variant sniff-at-job only",
  },
];

const reasonOf = (file: string, line: number, mutator: string): string | undefined =>
  RANGES.find((r) => r.file === file && line >= r.from && line <= r.to && (!r.only || r.only === mutator))
    ?.reason;

const SWITCH = /ctx\.fault|isVariant\(|fault ===|toggles\.fault/;

/** One surviving mutant with the reason it survives. */
export interface TriageRow {
  file: string;
  line: number;
  mutator: string;
  original: string;
  replacement: string;
  reason: string;
}

/** The statuses of a mutant the suite failed on, and of one it let through (covered or not). */
export const DETECTED = new Set(['Killed', 'Timeout']);
export const ALIVE = new Set(['Survived', 'NoCoverage']);
const mutantKey = (m: Mutant) =>
  `${m.mutatorName} ${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.replacement ?? ''}`;

/**
 * Reports of the same mutants, each run with a part of the suite's files (run side by side to share a
 * machine's cores): a mutant is killed when one part's run failed on it, as the run of every part
 * together would have (a run fails when any of its tests fails). The first report's mutants, with the
 * status the union gives them.
 */
export function unionOf(reports: Report[]): Report {
  const [first, ...rest] = reports;
  if (!first) throw new Error('no report');
  const detectedBy = new Map<string, string>();
  for (const r of rest)
    for (const [file, f] of Object.entries(r.files))
      for (const m of f.mutants)
        if (DETECTED.has(m.status)) detectedBy.set(`${file} ${mutantKey(m)}`, m.status);
  const files: Report['files'] = {};
  for (const [file, f] of Object.entries(first.files)) {
    const mutants = f.mutants.map((m) => {
      const other = DETECTED.has(m.status) ? undefined : detectedBy.get(`${file} ${mutantKey(m)}`);
      return other ? { ...m, status: other } : m;
    });
    files[file] = { ...f, mutants };
  }
  return { ...first, files };
}

/**
 * The line numbers of `before` that are unchanged in `after`, each with its number there (the lines of
 * a longest common subsequence of the two texts' lines).
 */
export function lineMap(before: string, after: string): Map<number, number> {
  const a = before.split('\n');
  const b = after.split('\n');
  // lcs[i][j]: the common subsequence's length of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const map = new Map<number, number>();
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) map.set(++i, ++j);
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  return map;
}

/**
 * An earlier run's results carried onto the current run's source: the current run decides every line it
 * mutated; an earlier mutant on a line unchanged since (and not re-run) keeps its status at that line's
 * new number (the suite has only grown since). `uncovered`: the current lines that changed since the
 * earlier run and that no current mutant covers (a comment, or a line the current run left out: review).
 */
export function carriedForward(earlier: Report, current: Report): { report: Report; uncovered: string[] } {
  const files: Report['files'] = {};
  const uncovered: string[] = [];
  for (const [file, f] of Object.entries(current.files)) {
    const before = earlier.files[file];
    if (!before) {
      files[file] = f;
      continue;
    }
    const map = lineMap(before.source, f.source);
    const covered = new Set<number>();
    for (const m of f.mutants)
      for (let l = m.location.start.line; l <= m.location.end.line; l++) covered.add(l);
    const carried: Mutant[] = [];
    for (const m of before.mutants) {
      const start = map.get(m.location.start.line);
      const end = map.get(m.location.end.line);
      if (start === undefined || end === undefined || covered.has(start) || covered.has(end)) continue;
      carried.push({
        ...m,
        location: { start: { ...m.location.start, line: start }, end: { ...m.location.end, line: end } },
      });
    }
    const unchanged = new Set(map.values());
    f.source.split('\n').forEach((text, i) => {
      if (!unchanged.has(i + 1) && !covered.has(i + 1) && text.trim() !== '')
        uncovered.push(`${file}:${i + 1}`);
    });
    const mutants = [...f.mutants, ...carried].sort(
      (x, y) =>
        x.location.start.line - y.location.start.line || x.location.start.column - y.location.start.column,
    );
    files[file] = { ...f, mutants };
  }
  return { report: { ...current, files }, uncovered };
}

export function triage(report: Report): { counts: Record<string, number>; rows: TriageRow[] } {
  const counts: Record<string, number> = {};
  const rows: TriageRow[] = [];
  for (const [file, f] of Object.entries(report.files)) {
    const lines = f.source.split('\n');
    for (const m of f.mutants) {
      counts[m.status] = (counts[m.status] ?? 0) + 1;
      // Not run: a fault or variant switch (tools/mutation/stryker-ignorer.mjs).
      if (m.status === 'Ignored') counts.switch = (counts.switch ?? 0) + 1;
      if (!ALIVE.has(m.status)) continue;
      const line = lines[m.location.start.line - 1] ?? '';
      const original =
        m.location.start.line === m.location.end.line
          ? line.slice(m.location.start.column - 1, m.location.end.column - 1)
          : `${line.slice(m.location.start.column - 1)} …`;
      if (SWITCH.test(line) || SWITCH.test(original)) {
        counts.switch = (counts.switch ?? 0) + 1;
        continue;
      }
      rows.push({
        file,
        line: m.location.start.line,
        mutator: m.mutatorName,
        original: original.trim().slice(0, 80),
        replacement: (m.replacement ?? '').trim().slice(0, 80),
        reason: reasonOf(file, m.location.start.line, m.mutatorName) ?? 'to triage',
      });
    }
  }
  return { counts, rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const valued = new Set(['--out', '--earlier', '--about']);
  const aboutAt = process.argv.indexOf('--about');
  const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !valued.has(all[i - 1]!));
  const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as Report;
  const reports = (files.length > 0 ? files : [pkgPath('reports', 'mutation', 'mutation.json')]).map(read);
  const earlierAt = process.argv.indexOf('--earlier');
  const earlier = earlierAt > 0 ? (process.argv[earlierAt + 1] ?? '').split(',').filter(Boolean) : [];
  let report = unionOf(reports);
  if (earlier.length > 0) {
    const carried = carriedForward(unionOf(earlier.map(read)), report);
    report = carried.report;
    if (carried.uncovered.length > 0)
      console.error(`changed since the earlier run and not re-run (review): ${carried.uncovered.join(', ')}`);
  }
  const { counts, rows } = triage(report);
  const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const survived = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  const total = Object.entries(counts)
    .filter(([k]) => k !== 'switch')
    .reduce((n, [, v]) => n + v, 0);
  const notSwitch = total - (counts.switch ?? 0);
  const open = rows.filter((r) => r.reason === 'to triage').length;
  const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-');
  const lines = [
    '# Surviving mutants of the reference, triaged',
    '',
    `Generated by \`npx tsx tools/mutation-triage.ts --write\` from StrykerJS's report (\`npm run mutation-engine\`).`,
    ...(aboutAt > 0 ? ['', process.argv[aboutAt + 1] ?? ''] : []),
    ...(earlier.length > 0
      ? [
          '',
          `Results of an earlier run (${earlier.length} reports, united) are carried onto the current source for the lines unchanged since and not re-run (\`--earlier\`, carriedForward); the current run decides every line it mutated.`,
        ]
      : []),
    '',
    `- mutants: ${Object.entries(counts)
      .filter(([k]) => k !== 'switch')
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')} (score ${pct(killed, total)}%)`,
    `- fault or variant switches, not run (Ignored: tools/mutation/stryker-ignorer.mjs) or surviving on a switch's line (equivalent by construction: the suite runs the plain reference; each fault and variant is proved by the mutation matrix): ${counts.switch ?? 0}`,
    `- the other mutants: ${notSwitch}, of which ${killed} killed (${pct(killed, notSwitch)}%); of the ${rows.length} that survived, ${rows.length - open} are equivalent, unreachable over HTTP or not stated by the contract (each reason below), ${open} not triaged yet`,
    `- score over the mutants a contract test could kill: ${killed} of ${killed + open} (${pct(killed, killed + open)}%)`,
    '',
    '| file:line | mutator | original | mutated | reason |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.file}:${r.line} | ${r.mutator} | \`${r.original.replace(/\|/g, '\\|')}\` | \`${r.replacement.replace(/\|/g, '\\|')}\` | ${r.reason} |`,
    ),
    '',
  ];
  const text = lines.join('\n');
  const out = process.argv[process.argv.indexOf('--out') + 1];
  if (process.argv.includes('--write'))
    writeFileSync(
      process.argv.includes('--out') && out ? out : pkgPath('reference', 'mutation-triage.md'),
      text,
    );
  console.log(text);
  console.log(`(${survived} survived in all)`);
  process.exitCode = rows.some((r) => r.reason === 'to triage') ? 1 : 0;
}
