/**
 * report.sarif (SARIF 2.1.0): each failed requirement a result at its sentence in the contract, so code
 * scanning shows it where a developer reads the rule. Built from the finished summary the other report
 * files are written from: a requirement is a result exactly when the summary's rollup says it failed
 * (src/report/requirements.ts), and the invocation says what the verdict line says (a run cut short,
 * inconclusive or hit by a harness error is not an execution that succeeded). Written by writeReport.
 */
import { writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { catalogue } from '../catalogue.ts';
import { SARIF_CONTRACT_ENV } from '../config/env.ts';
import { CONTRACT_PATH, readContract, requirementLines } from '../contract.ts';
import type { Level } from '../vocabulary.ts';
import { pathTemplate } from './groups.ts';
import { exitCodeOf, type Summary, verdictLine } from './summary.ts';
import type { TestResultRecord } from './test-result.ts';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

/** The base id of the contract's folder where the contract's place in a repository is not given. */
export const CONTRACT_BASE_ID = 'CONTRACTROOT';
/** The base id of the analysed repository's root, as code scanning reads it. */
export const SRCROOT_BASE_ID = '%SRCROOT%';

/** How many violation messages and endpoints a result's message quotes; tests its properties list. */
const MESSAGES_SHOWN = 3;
const MESSAGE_CHARS = 300;
const ENDPOINTS_SHOWN = 5;
const TESTS_LISTED = 20;
/** Harness errors told as notifications (the rest are counted in the last one). */
const HARNESS_ERRORS_SHOWN = 50;

// The part of SARIF 2.1.0 this file writes (names as in the standard).
export type SarifLevel = 'none' | 'note' | 'warning' | 'error';
interface Text {
  text: string;
}
interface ArtifactLocation {
  uri: string;
  uriBaseId?: string;
}
interface SarifLocation {
  physicalLocation: { artifactLocation: ArtifactLocation; region?: { startLine: number } };
}
export interface SarifRule {
  id: string;
  shortDescription: Text;
  fullDescription: Text;
  help: Text;
  defaultConfiguration: { level: SarifLevel };
  properties: { section: string; level: Level };
}
export interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: Text;
  locations: SarifLocation[];
  partialFingerprints: Record<string, string>;
  properties: { failedTests: number; tests: string[]; endpoints: string[] };
}
export interface SarifNotification {
  level: SarifLevel;
  message: Text;
}
export interface SarifInvocation {
  executionSuccessful: boolean;
  exitCode: number;
  exitCodeDescription: string;
  startTimeUtc: string;
  endTimeUtc: string;
  toolExecutionNotifications: SarifNotification[];
  properties: { verdict: Summary['verdict'] };
}
export interface SarifLog {
  $schema: string;
  version: '2.1.0';
  runs: [
    {
      tool: { driver: { name: string; version: string; semanticVersion: string; rules: SarifRule[] } };
      originalUriBaseIds?: Record<string, { uri: string; description: Text }>;
      invocations: [SarifInvocation];
      results: SarifResult[];
      properties: { target: string };
    },
  ];
}

/** Where results point: the contract as an artifact, and the line of each requirement in it. */
export interface ContractLocation {
  artifact: ArtifactLocation;
  /** run.originalUriBaseIds: what the artifact's base id stands for, where the suite knows it. */
  baseIds?: Record<string, { uri: string; description: Text }>;
  /** Each requirement's line (src/contract.ts requirementLines); empty when the contract was not read. */
  lines: ReadonlyMap<string, number>;
  /** Why results carry no line or not the place asked for (a notification of the run). */
  problems: string[];
}

/**
 * A path relative to the repository root, as a URI reference (each segment percent-encoded), or why
 * it is not one: code scanning resolves only paths inside the repository.
 */
function repositoryUri(path: string): { uri: string } | { problem: string } {
  const segments = path.split('/');
  if (!path || path.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(path) || segments.includes('..'))
    return {
      problem: `${SARIF_CONTRACT_ENV}='${path}' is not a path inside the repository (relative, without '..'): the contract's own folder is named instead`,
    };
  return {
    uri: segments
      .filter((s) => s && s !== '.')
      .map(encodeURIComponent)
      .join('/'),
  };
}

/**
 * The contract's place as the run sees it. With SARIF_CONTRACT_ENV set: that path under %SRCROOT%,
 * the repository root code scanning resolves it against. Else `customer-api.md` under CONTRACTROOT,
 * the folder the run read it from (a file URI in originalUriBaseIds), which a SARIF viewer on the same
 * machine opens. The lines always come from the file the run reads.
 */
export function contractLocation(
  env: NodeJS.ProcessEnv = process.env,
  file: string = CONTRACT_PATH,
): ContractLocation {
  const markdown = readContract(file);
  const problems: string[] = [];
  if (markdown === undefined)
    problems.push(`the contract is not at ${file}: results name the contract file without a line`);
  const lines = markdown === undefined ? new Map<string, number>() : requirementLines(markdown);
  const asked = env[SARIF_CONTRACT_ENV];
  const inRepo = asked === undefined ? undefined : repositoryUri(asked);
  if (inRepo && 'uri' in inRepo)
    return { artifact: { uri: inRepo.uri, uriBaseId: SRCROOT_BASE_ID }, lines, problems };
  if (inRepo && 'problem' in inRepo) problems.push(inRepo.problem);
  const folder = pathToFileURL(dirname(file)).href;
  return {
    artifact: { uri: encodeURIComponent(basename(file)), uriBaseId: CONTRACT_BASE_ID },
    baseIds: {
      [CONTRACT_BASE_ID]: {
        uri: folder.endsWith('/') ? folder : `${folder}/`,
        description: { text: 'the folder of the contract the run read' },
      },
    },
    lines,
    problems,
  };
}

/** A rule's default level from the catalogue's: a stated rule an error, an implied one a warning. */
const LEVEL: Record<Level, SarifLevel> = { failure: 'error', implied: 'warning', notable: 'note' };

/**
 * What a failure that is no requirement of the contract checks (an id the catalogue lacks): the run's
 * own checks, today the expectations file's entries (src/report/expectations.ts).
 */
const OUTSIDE_CONTRACT: Record<string, string> = {
  EXPECTATIONS: 'Every entry of the expectations file has not expired and still matches a failure',
};

function rule(id: string): SarifRule {
  const r = catalogue().get(id);
  const words = r?.words ?? OUTSIDE_CONTRACT[id] ?? `${id}: a check of the run outside the contract`;
  const section = r?.section ?? '(not in the contract)';
  return {
    id,
    shortDescription: { text: words },
    fullDescription: { text: `${words} (contract section "${section}")` },
    help: {
      text: `Contract section "${section}": ${words}${r?.readings?.length ? `\nHow the suite reads it:\n- ${r.readings.join('\n- ')}` : ''}`,
    },
    defaultConfiguration: { level: LEVEL[r?.level ?? 'failure'] },
    properties: { section, level: r?.level ?? 'failure' },
  };
}

/**
 * Where a failure stands: a requirement of the contract at its line; a failure outside the contract at
 * the file its records name (the expectations file, as the run was given it: a path relative to the
 * working directory is taken as relative to the repository root, where CI starts the run).
 */
function locationOf(id: string, failed: readonly TestResultRecord[], where: ContractLocation): SarifLocation {
  const line = where.lines.get(id);
  const file = failed[0]?.file;
  if (catalogue().has(id) || file === undefined)
    return {
      physicalLocation: {
        artifactLocation: where.artifact,
        ...(line !== undefined ? { region: { startLine: line } } : {}),
      },
    };
  const inRepo = isAbsolute(file) ? undefined : repositoryUri(file);
  return {
    physicalLocation: {
      artifactLocation:
        inRepo && 'uri' in inRepo
          ? { uri: inRepo.uri, uriBaseId: SRCROOT_BASE_ID }
          : { uri: pathToFileURL(resolve(file)).href },
    },
  };
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const distinct = (xs: string[]) => [...new Set(xs)];
/** ` and 4 more` after the first `shown` of a list, or nothing. */
const more = (xs: readonly string[], shown: number, joint: string) =>
  xs.length > shown ? `${joint} ${xs.length - shown} more` : '';

/** What the failed tests of one requirement say of it: the failing messages and the endpoints they cite. */
function failureOf(
  id: string,
  failed: readonly TestResultRecord[],
): { messages: string[]; endpoints: string[] } {
  const messages: string[] = [];
  const endpoints: string[] = [];
  for (const t of failed) {
    const exchanges = new Map(t.exchanges.map((e) => [e.id, e]));
    for (const v of t.violations) {
      if (v.id !== id || v.severity !== 'failure') continue;
      messages.push(v.message);
      const ex = v.exchangeId ? exchanges.get(v.exchangeId) : undefined;
      if (ex) endpoints.push(`${ex.method} ${pathTemplate(ex.path)}`);
    }
  }
  return { messages: distinct(messages), endpoints: distinct(endpoints) };
}

function result(
  id: string,
  ruleIndex: number,
  failed: readonly TestResultRecord[],
  where: ContractLocation,
): SarifResult {
  const { messages, endpoints } = failureOf(id, failed);
  const tests = `${failed.length} test${failed.length === 1 ? '' : 's'}`;
  const on = endpoints.length
    ? ` Endpoints: ${endpoints.slice(0, ENDPOINTS_SHOWN).join(', ')}${more(endpoints, ENDPOINTS_SHOWN, ' and')}.`
    : '';
  const shown = messages.slice(0, MESSAGES_SHOWN).map((m) => clip(m, MESSAGE_CHARS));
  const found = shown.length ? ` Found: ${shown.join('; ')}${more(messages, MESSAGES_SHOWN, ';')}` : '';
  return {
    ruleId: id,
    ruleIndex,
    level: 'error',
    message: { text: `${id} failed in ${tests}.${on}${found}` },
    locations: [locationOf(id, failed, where)],
    // One alert per requirement across runs, wherever its sentence moves in the contract.
    partialFingerprints: { 'gatewayConformanceRequirement/v1': id },
    properties: {
      failedTests: failed.length,
      tests: failed.slice(0, TESTS_LISTED).map((t) => t.title),
      endpoints,
    },
  };
}

/** Why the run is not a complete judgement, as notifications: the cut, the inconclusive tests, harness errors. */
function notifications(
  summary: Summary,
  harnessErrors: readonly string[],
  where: ContractLocation,
): SarifNotification[] {
  const out: SarifNotification[] = [];
  if (summary.cut)
    out.push({
      level: 'error',
      message: {
        text: `INCOMPLETE: the run was cut short (${summary.cut.reason}); the requirements only its unreached tests cite were not judged`,
      },
    });
  if (summary.inconclusive)
    out.push({ level: 'error', message: { text: `INCOMPLETE: ${summary.inconclusive}` } });
  for (const e of harnessErrors.slice(0, HARNESS_ERRORS_SHOWN))
    out.push({ level: 'error', message: { text: `harness error: ${e}` } });
  if (harnessErrors.length > HARNESS_ERRORS_SHOWN)
    out.push({
      level: 'error',
      message: { text: `${harnessErrors.length - HARNESS_ERRORS_SHOWN} more harness errors (summary.json)` },
    });
  for (const p of where.problems) out.push({ level: 'warning', message: { text: p } });
  return out;
}

/** The SARIF log of a finished run (or merge): one run, a result per failed requirement. */
export function sarifLog(
  summary: Summary,
  harnessErrors: readonly string[],
  where: ContractLocation,
): SarifLog {
  const failed = Object.entries(summary.requirements).filter(([, r]) => r.outcome === 'failed');
  const rules = failed.map(([id]) => rule(id));
  const results = failed.map(([id, r], i) =>
    result(
      id,
      i,
      r.failed.map((t) => summary.tests[t]).filter((t) => t !== undefined),
      where,
    ),
  );
  const start = Date.parse(summary.startedAt);
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: summary.suite.name,
            version: summary.suite.version,
            semanticVersion: summary.suite.version,
            rules,
          },
        },
        ...(where.baseIds ? { originalUriBaseIds: where.baseIds } : {}),
        invocations: [
          {
            // A failure found is a successful execution; one that could not judge all it was asked is not.
            executionSuccessful: !summary.cut && !summary.inconclusive && summary.verdict !== 'harness_error',
            exitCode: exitCodeOf(summary),
            exitCodeDescription: verdictLine(summary),
            startTimeUtc: new Date(start).toISOString(),
            endTimeUtc: new Date(start + summary.durationMs).toISOString(),
            toolExecutionNotifications: notifications(summary, harnessErrors, where),
            properties: { verdict: summary.verdict },
          },
        ],
        results,
        properties: { target: summary.target.name },
      },
    ],
  };
}

/** Write report.sarif. */
export function writeSarif(
  file: string,
  summary: Summary,
  harnessErrors: readonly string[],
  where: ContractLocation = contractLocation(),
): void {
  writeFileSync(file, `${JSON.stringify(sarifLog(summary, harnessErrors, where), null, 2)}\n`);
}
