/**
 * The certification bundle: a report directory (summary.json, junit.xml, report.html, exchanges.ndjson,
 * openapi.json, ...) plus manifest.json with the sha256 of every file, the suite's version, git commit
 * and a digest of its own source tree, the target's openapi sha256 and the run's options. `verify`
 * checks a bundle's integrity, recomputes the source digest when it runs as the claimed version, and
 * judges completeness against fixtures/certification.yaml from summary.json itself (never from the
 * manifest's own claim).
 */
import { execFileSync } from 'node:child_process';
import { createHash, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { UsageError } from '../errors.ts';
import { PKG_ROOT, pkgPath, SUITE_VERSION } from '../paths.ts';
import { REPORT_FILES, reportFile } from './layout.ts';
import { checkSignature, SIGNATURE } from './signature.ts';
import { firstError, loadSummary } from './stored.ts';
import type { Summary } from './summary.ts';

export const MANIFEST = REPORT_FILES.manifest.name;
/** What the source digest covers: everything that decides a verdict against a real target. */
export const SOURCE_PARTS = [
  'bin',
  'src',
  'suites',
  'fixtures',
  'schemas',
  'package.json',
  'package-lock.json',
];

export interface Manifest {
  format: 'gateway-conformance-bundle/1';
  createdAt: string;
  suite: { name: string; version: string; commit: string | null; sourceDigest: string };
  target: { name: string; baseUrl: string; openapiSha256: string | null };
  options: Record<string, unknown>;
  files: Array<{ path: string; sha256: string; bytes: number }>;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.name !== 'node_modules' && !e.name.startsWith('.'))
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

/**
 * sha256 over the sorted lines `<sha256 of file>  <path>` of the suite's source parts: recomputable
 * from a checkout of a released version (`gateway-conformance verify` does it for its own version).
 */
export function sourceDigest(root = PKG_ROOT): string {
  // Once per process and root, like the commit: a run reads it twice (its selection's title cache, its
  // manifest) and the mutation matrix's row runners run hundreds of rows on the same installation.
  let digest = digests.get(root);
  if (digest === undefined) {
    const files = SOURCE_PARTS.flatMap((p) => walk(join(root, p)))
      .map((f) => relative(root, f).split(sep).join('/'))
      .sort();
    digest = sha256(files.map((f) => `${sha256(readFileSync(join(root, f)))}  ${f}\n`).join(''));
    digests.set(root, digest);
  }
  return digest;
}
const digests = new Map<string, string>();

let commit: { value: string | null } | undefined;
/** The checkout's commit, asked of git once per process. */
function gitCommit(): string | null {
  if (commit) return commit.value;
  try {
    commit = {
      value: execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: PKG_ROOT,
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim(),
    };
  } catch {
    commit = { value: null };
  }
  return commit.value;
}

/** Write manifest.json for a finished report directory. */
export function writeManifest(dir: string, summary: Summary): Manifest {
  const files = walk(dir)
    .map((f) => relative(dir, f).split(sep).join('/'))
    .filter((f) => f !== MANIFEST)
    .sort()
    .map((path) => {
      const data = readFileSync(join(dir, path));
      return { path, sha256: sha256(data), bytes: data.length };
    });
  const manifest: Manifest = {
    format: 'gateway-conformance-bundle/1',
    createdAt: new Date().toISOString(),
    suite: {
      name: 'gateway-conformance',
      version: SUITE_VERSION,
      commit: gitCommit(),
      sourceDigest: sourceDigest(),
    },
    target: {
      name: summary.target.name,
      baseUrl: summary.target.baseUrl,
      openapiSha256: summary.openapi.sha256 ?? null,
    },
    options: {
      strict: summary.strict,
      profile: summary.profile ?? null,
      seed: summary.seed,
      filter: summary.filter ?? null,
      suites: summary.suites ?? null,
      shard: summary.shard ?? null,
      shards: summary.shards ?? null,
      allow: summary.target.allow,
      roles: summary.target.roles,
      budgetPoints: summary.points?.budget ?? null,
      dryRun: !!summary.dryRun,
      interrupted: summary.interrupted ?? null,
    },
    files,
  };
  writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest, null, 2));
  return manifest;
}

interface CertificationProfile {
  classes: string[];
  roles: string[];
  profiles: string[];
  forbid: Record<string, string>;
}

/** Why a run cannot certify (empty: it covered everything the certification profile requires). */
export function incompleteness(s: Summary): string[] {
  const p = parse(readFileSync(pkgPath('fixtures', 'certification.yaml'), 'utf8')) as CertificationProfile;
  const out: string[] = [];
  for (const c of p.classes)
    if (!s.target.allow.includes(c as never)) out.push(`side-effect class '${c}' was not allowed`);
  for (const r of p.roles) if (!s.target.roles.includes(r as never)) out.push(`role '${r}' had no key`);
  if (!p.profiles.includes(s.profile ?? 'standard'))
    out.push(`profile '${s.profile}' (needs ${p.profiles.join(' or ')})`);
  if (s.strict) out.push(`--strict: ${p.forbid.strict}`);
  if (s.filter) out.push(`--filter ${s.filter}: ${p.forbid.filter}`);
  if (s.suites?.length) out.push(`--suite ${s.suites.join(',')}: ${p.forbid.suite}`);
  if (s.dryRun) out.push(`--dry-run: ${p.forbid.dry_run}`);
  if (s.interrupted) out.push(`${s.interrupted}: ${p.forbid.interrupted}`);
  const unpaid = s.tests.filter((t) => t.unpaid).length;
  if (unpaid > 0) out.push(`${unpaid} billable test(s) not run for want of points: ${p.forbid.unpaid}`);
  const inconclusive = s.tests.filter((t) => t.outcome === 'inconclusive').length;
  if (inconclusive > 0) out.push(`${inconclusive} test(s) inconclusive: ${p.forbid.inconclusive}`);
  if (s.shard) out.push(`shard ${s.shard}: ${p.forbid.partial_shard}`);
  if (s.shards) {
    const n = Number(s.shards[0]?.split('/')[1]);
    const have = new Set(s.shards);
    for (let i = 1; i <= n; i++)
      if (!have.has(`${i}/${n}`)) out.push(`shard ${i}/${n} is missing from the merge`);
  }
  return out;
}

export interface Verification {
  intact: boolean;
  complete: boolean;
  verdict: string;
  certified: boolean;
  lines: string[];
}

const MANIFEST_SCHEMA = {
  type: 'object',
  required: ['format', 'suite', 'target', 'files'],
  properties: {
    format: { const: 'gateway-conformance-bundle/1' },
    suite: {
      type: 'object',
      required: ['version', 'sourceDigest'],
      properties: { version: { type: 'string' }, sourceDigest: { type: 'string' } },
    },
    target: { type: 'object', properties: { openapiSha256: { type: ['string', 'null'] } } },
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'sha256'],
        properties: { path: { type: 'string', minLength: 1 }, sha256: { type: 'string' } },
      },
    },
  },
} as const;
let validManifest: ValidateFunction | undefined;

/** Why `doc` is not a manifest this suite writes (its shape, or a file outside the report), or undefined. */
function manifestProblem(doc: unknown): string | undefined {
  validManifest ??= new Ajv({ strict: false }).compile(MANIFEST_SCHEMA);
  if (!validManifest(doc)) return firstError(validManifest.errors, 'not a manifest');
  const outside = (doc as Manifest).files.find(
    (f) => isAbsolute(f.path) || f.path.split(/[\\/]/).includes('..'),
  );
  return outside ? `it lists ${JSON.stringify(outside.path)}, outside the report` : undefined;
}

/**
 * Check a bundle: every file listed and unchanged, the suite's digest, and completeness. What
 * "unchanged" means is said exactly: without a signature checked against `publicKey`, the files agree
 * with a manifest anyone could have rewritten; with it, they are unchanged since the run.
 */
export function verifyBundle(dir: string, publicKey?: KeyObject): Verification {
  const mf = join(dir, MANIFEST);
  if (!existsSync(mf))
    throw new UsageError(`${dir}: no ${MANIFEST} (not a report directory of gateway-conformance)`);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(mf, 'utf8'));
  } catch (err) {
    throw new UsageError(`verify: ${mf} is not valid JSON (${(err as Error).message})`);
  }
  const s = loadSummary(dir, 'verify');
  const lines: string[] = [];
  // A manifest this suite did not write (forged, cut, hand-edited) certifies nothing: said, and no file
  // it lists is read (a path may point anywhere).
  const problem = manifestProblem(doc);
  if (problem) lines.push(`✗ ${MANIFEST} is not a bundle manifest of gateway-conformance: ${problem}`);
  let intact = problem === undefined;
  const m: Partial<Manifest> = problem === undefined ? (doc as Manifest) : {};
  const listed = new Set<string>();
  for (const f of m.files ?? []) {
    listed.add(f.path);
    const file = join(dir, f.path);
    if (!existsSync(file)) {
      intact = false;
      lines.push(`✗ missing file ${f.path}`);
    } else if (sha256(readFileSync(file)) !== f.sha256) {
      intact = false;
      lines.push(`✗ ${f.path} does not match its sha256 in the manifest (changed after the run)`);
    }
  }
  // Against a manifest that is none, every file would be unlisted: its own line says it all.
  if (problem === undefined) {
    for (const f of walk(dir).map((x) => relative(dir, x).split(sep).join('/')))
      if (f !== MANIFEST && f !== SIGNATURE && !listed.has(f)) {
        intact = false;
        lines.push(`✗ ${f} is not listed in the manifest`);
      }
    for (const required of (['summary', 'junit', 'exchanges', 'html'] as const).map(
      (f) => REPORT_FILES[f].name,
    ))
      if (!listed.has(required)) {
        intact = false;
        lines.push(`✗ the bundle lacks ${required}`);
      }
  }
  if (m.target?.openapiSha256 && existsSync(reportFile(dir, 'openapi'))) {
    const live = sha256(readFileSync(reportFile(dir, 'openapi')));
    if (live !== m.target.openapiSha256 || s.openapi?.sha256 !== live) {
      intact = false;
      lines.push('✗ openapi.json, the manifest and summary.json disagree on the description sha256');
    }
  }
  if (m.suite?.version === SUITE_VERSION) {
    const mine = sourceDigest();
    if (mine === m.suite.sourceDigest)
      lines.push(`✓ suite ${m.suite.version}: source digest matches this installation`);
    else {
      intact = false;
      lines.push(
        `✗ suite ${m.suite.version}: the source digest ${m.suite.sourceDigest.slice(0, 12)}… differs from this installation's ${mine.slice(0, 12)}… (a modified suite, or another build of the version)`,
      );
    }
  } else if (m.suite) {
    lines.push(
      `• suite ${m.suite.version}: this is ${SUITE_VERSION}; check the source digest ${m.suite.sourceDigest} with that version's verify`,
    );
  }
  const signature = checkSignature(dir, MANIFEST, publicKey);
  const n = m.files?.length ?? 0;
  if (signature.state === 'invalid') {
    intact = false;
    lines.push(`✗ signature: ${signature.reason}`);
  } else if (intact && signature.state === 'valid')
    lines.push(
      `✓ ${n} files unchanged since the run: the manifest is signed by key ${signature.keyFingerprint.slice(0, 16)}… and the signature holds`,
    );
  else if (intact)
    lines.push(
      `• ${n} files intact as far as the manifest says; the manifest itself is ${signature.state === 'unchecked' ? `signed (key ${signature.keyFingerprint.slice(0, 16)}…) but not checked: give verify --public-key FILE` : 'not signed (sign a run with --sign-key FILE)'}, so this does not prove the files unchanged since the run`,
    );
  const missing = incompleteness(s);
  for (const r of missing) lines.push(`✗ incomplete: ${r}`);
  const complete = missing.length === 0;
  // The suite's own server proves nothing about a deployment: its run is never a certificate.
  const embedded = s.target?.embedded === true;
  if (embedded) lines.push('✗ the target is the embedded reference server, not a deployment');
  const failedIds = Object.entries(s.requirements ?? {})
    .filter(([, r]) => r.failed.length > 0)
    .map(([id]) => id);
  if (failedIds.length > 0) lines.push(`✗ failed requirements: ${failedIds.join(', ')}`);
  // Not judged is not failed, and not certified either: the certificate names what the target never showed.
  const notJudged = Object.entries(s.requirements ?? {}).filter(([, r]) => r.outcome === 'not_judged');
  if (notJudged.length > 0)
    lines.push(
      `• not judged (${notJudged.length}; the target never showed what they need, so this certificate says nothing of them): ${notJudged.map(([id]) => id).join(', ')}`,
    );
  const certified = intact && complete && !embedded && s.verdict === 'passed';
  // Without a checked signature, nothing proves who wrote the manifest: said plainly beside the verdict.
  const proof =
    signature.state === 'valid'
      ? 'signed and unchanged since the run'
      : `intact as far as the manifest says; nothing proves who wrote the manifest (${signature.state === 'unchecked' ? 'its signature was not checked: give verify --public-key FILE' : 'it is not signed'})`;
  lines.push(
    certified
      ? `CERTIFIED: target ${s.target.name} passed a complete run of gateway-conformance ${s.suite.version} (${proof})`
      : `NOT CERTIFIED: ${[!intact && 'the bundle is not intact', !complete && 'the run is incomplete', embedded && 'the target is the embedded reference server', s.verdict !== 'passed' && `the verdict is ${s.verdict}${failedIds.length ? ` (${failedIds.length} failed requirement${failedIds.length > 1 ? 's' : ''})` : ''}`].filter(Boolean).join('; ')}`,
  );
  return { intact, complete, verdict: s.verdict, certified, lines };
}
