/**
 * check-traffic (src/traffic/): captures recorded with the suite's own HTTP layer against the reference
 * and against faults, judged with no request sent. The reference's capture passes; each fault's capture
 * fails by its expected ids (at least one per per-exchange check family and one per sequence rule); a
 * capture holding keys leaves none in any output; bad input is named entry by entry.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startReference, VARIANTS } from '../reference/start.ts';
import { bufferedStream } from '../src/checks/stream-pacing.ts';
import { HttpClient } from '../src/http/client.ts';
import { FRAGMENT_CHARS, Redactor } from '../src/http/redact.ts';
import { pkgPath } from '../src/paths.ts';
import type { SarifLog } from '../src/report/sarif.ts';
import { EXIT } from '../src/report/summary.ts';
import { harItems } from '../src/traffic/har-stream.ts';
import { checkTraffic } from '../src/traffic/judge.ts';
import { findLeaks } from '../tools/leaks.ts';
import { writeRefTargets } from '../tools/ref-target.ts';
import { recordCapture } from '../tools/traffic-capture.ts';
import { runCli } from './helpers.ts';
import { sarifErrors } from './support/sarif-schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'traffic-'));
const har = (name: string) => pkgPath('fixtures', 'har', name);

/** Judge files quietly: the result and every line it printed. */
async function judge(files: string[], name: string) {
  const lines: string[] = [];
  const reportDir = join(dir, `report-${name}`);
  const result = await checkTraffic({ files, reportDir }, (s) => lines.push(s));
  return { ...result, lines, reportDir };
}

/** A verdict line as summary.md writes it (Markdown's parentheses escaped). */
const mdEscapedVerdict = (line: string) => line.replace(/[()]/g, (c) => `\\${c}`);

/** Every file a report directory holds, as text. */
const reportTexts = (reportDir: string) =>
  readdirSync(reportDir).map((f) => [f, readFileSync(join(reportDir, f), 'utf8')] as const);

/** check-traffic's report.sarif (the one report writer's), valid against the SARIF 2.1.0 schema. */
function sarifRun(reportDir: string): SarifLog['runs'][0] {
  const doc = JSON.parse(readFileSync(join(reportDir, 'report.sarif'), 'utf8')) as SarifLog;
  expect(sarifErrors(doc)).toEqual([]);
  return doc.runs[0];
}

describe('check-traffic on captures of the reference', () => {
  let keys: Record<string, string>;
  const capture = join(dir, 'reference.har');
  beforeAll(async () => {
    ({ keys } = await recordCapture(capture));
  });

  it('passes the reference capture, judged against its own description, and says what it could not judge', async () => {
    const r = await judge([capture], 'reference');
    expect(r.exitCode, r.lines.join('\n')).toBe(EXIT.passed);
    const s = r.summary!;
    expect(s.verdict).toBe('passed');
    expect(s.openapi.validatedAgainst).toBe('live');
    expect(s.capture!.exchangesJudged).toBeGreaterThan(15);
    expect(s.capture!.problems).toEqual([]);
    // Judged: the per-exchange families, refusals of invalid requests, sequences.
    for (const id of [
      'ERR-001',
      'RESP-003',
      'SEC-001',
      'PTS-001',
      'CHAT-005',
      'MJOB-001',
      'RSP-006',
      'IDEM-001',
      'MJOB-024',
      'MJOB-025',
      'MASSET-003',
      'PTS-006',
      'PTS-007',
      'RSP-090',
      'USAGE-080',
      'BAL-003',
      'PTS-005',
      'CHAT-004',
      'LEDGER-002',
      'MJOB-021',
      'RSP-003',
      'RSP-004',
      'RSP-005',
    ])
      expect(s.requirements[id]?.outcome, id).toBe('passed');
    // Nothing in the capture could judge these: not judged, never passed.
    expect(s.capture!.notJudged).toContain('EMB-004');
    expect(s.requirements['EMB-004']?.outcome).toBe('not_run');
    expect(s.requirements['TICKET-001']?.outcome).toBe('no_test');
    expect(r.lines.at(-1)).toMatch(
      /^VERDICT: PASSED \(captured traffic: \d+ of \d+ entries judged, \d+ requirements judged/,
    );
    // In a capture's words (issue 38 item 7): each rule not judged with its own need, not one rule's for all;
    // what the capture holds; no seed, roles or cleanup of a run; summary.md ends on the capture's line.
    expect(r.lines).toContain('    EMB-004: needs an embedding request with dimensions other than 1024');
    expect(r.lines).toContain(
      '    EMB-005: needs an embedding request with an encoding_format other than float',
    );
    expect(r.lines.some((l) => l.includes('capture traffic with'))).toBe(false);
    const holds = s.capture!.holds!;
    expect(holds.credentials).toBeGreaterThan(1);
    expect(holds.endpoints).toContain('POST /v1/media/jobs');
    expect(holds.endpoints).toContain('GET /v1/media/jobs/{id}');
    expect(holds.from! <= holds.to!).toBe(true);
    expect(r.lines.find((l) => l.startsWith('  the capture holds: exchanges from '))).toBeDefined();
    const html = readFileSync(join(r.reportDir, 'report.html'), 'utf8');
    expect(html).toContain('The capture holds');
    expect(html).not.toMatch(/<th>Seed<\/th>|<th>Roles<\/th>|id="cleanup"/);
    expect(readFileSync(join(r.reportDir, 'summary.md'), 'utf8')).toContain(
      mdEscapedVerdict(r.lines.at(-1)!),
    );
  });

  it('leaves no key of the capture in any report file or console line', async () => {
    const r = await judge([capture], 'keys');
    const used = { primary: keys.primary! };
    expect(readFileSync(capture, 'utf8')).toContain(keys.primary);
    for (const [name, text] of reportTexts(r.reportDir))
      expect(findLeaks(text, used, FRAGMENT_CHARS), name).toEqual([]);
    expect(findLeaks(r.lines.join('\n'), used, FRAGMENT_CHARS)).toEqual([]);
  });

  it('the CLI judges a capture with no request sent (npm run conformance -- check-traffic FILE)', async () => {
    const run = await runCli(['check-traffic', '--report-dir', join(dir, 'cli'), capture]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/VERDICT: PASSED \(captured traffic/);
    expect(findLeaks(run.stdout + run.stderr, { primary: keys.primary! }, FRAGMENT_CHARS)).toEqual([]);
  });
});

/** Fault -> the ids its capture must fail by: each per-exchange family, each single-exchange and sequence rule. */
const FAULTS: Array<[string, string]> = [
  ['error-shape-flat', 'ERR-001'],
  ['key-echo', 'SEC-001'],
  ['chat-billing-numbers', 'PTS-001'],
  ['chat-no-id', 'RESP-003'],
  ['chat-temperature-lax', 'CHAT-005'],
  ['chat-max-tokens-negative', 'CHAT-007'],
  ['ack-missing-accepted', 'MJOB-001'],
  // The rules of a body's documented shape (src/rules/requests.ts), one fault each on its endpoint.
  ['chat-missing-content', 'CHAT-008'],
  ['chat-user-any', 'CHAT-071'],
  ['responses-input-any', 'RSP-071'],
  ['embed-array-input', 'EMB-003'],
  ['embed-unknown-field', 'EMB-002'],
  ['top-level-extra-accepted', 'MJOB-002'],
  ['ticket-unknown-field', 'TICKET-007'],
  ['order-method-lax', 'PAY-005'],
  ['chat-model-substituted', 'MODEL-001'],
  ['responses-stream-model-substituted', 'MODEL-001'],
  ['job-create-model-substituted', 'MJOB-020'],
  ['legacy-added', 'LEGACY-001'],
  ['asset-no-key', 'MASSET-002'],
  ['responses-two-terminals', 'RSP-006'],
  ['openapi-stream-items-drift', 'RESP-003'],
  ['idem-double-charge', 'IDEM-001'],
  ['job-replay-new', 'MJOB-024'],
  ['failed-flips', 'MJOB-025'],
  ['snapshot-drift', 'PTS-006'],
  ['usage-tokens-as-strings', 'PTS-005'],
  ['usage-record-tokens-as-strings', 'PTS-005'],
  ['responses-unnamed-events', 'RSP-004'],
  ['responses-json-stream', 'RSP-003'],
  ['succeeded-no-asset', 'MJOB-021'],
];

describe('check-traffic on usage and billing of the same request (USAGE-080)', () => {
  it('usage-charge-mismatch: a usage record naming a reply states another charge than its billing', async () => {
    const file = join(dir, 'usage-charge-mismatch.har');
    await recordCapture(file, 'usage-charge-mismatch');
    const lines: string[] = [];
    const r = await checkTraffic({ files: [file], reportDir: join(dir, 'report-ucm'), strict: true }, (s) =>
      lines.push(s),
    );
    expect(r.summary!.failedRequirements, lines.join('\n')).toEqual({ 'USAGE-080': 1 });
    const v = r.summary!.tests.find((t) => t.ids[0] === 'USAGE-080')!.violations;
    expect(v[0]!.message).toMatch(/billing\.charged_points is [\d.]+, but .* state charged_points [\d.]+/);
    // Implied (the contract does not say the two figures are one): advisory without --strict.
    const lax = await judge([file], 'ucm-lax');
    expect(lax.summary!.advisoryRequirements['USAGE-080']).toBe(1);
    expect(lax.exitCode).toBe(EXIT.passed);
  });

  it('the small capture kept in fixtures/har/ fails the same way', async () => {
    const lines: string[] = [];
    const r = await checkTraffic(
      { files: [har('usage-billing.har')], reportDir: join(dir, 'report-ub'), strict: true },
      (s) => lines.push(s),
    );
    expect(r.summary!.failedRequirements, lines.join('\n')).toEqual({ 'USAGE-080': 1 });
    expect(r.summary!.requirements['USAGE-080']?.outcome).toBe('failed');
  });
});

describe('check-traffic on captures of every conformant variant (no false alarm)', () => {
  it.each(VARIANTS.map((v) => v.name))('%s: its capture passes, no requirement failed', async (variant) => {
    const file = join(dir, `variant-${variant}.har`);
    await recordCapture(file, undefined, variant);
    const r = await judge([file], `variant-${variant}`);
    expect(r.summary!.failedRequirements, r.lines.join('\n')).toEqual({});
    expect(r.exitCode).toBe(EXIT.passed);
  });
});

describe('check-traffic on captures of faults of implied invariants (advisory unless --strict)', () => {
  it.each([
    [
      'balance-available-off',
      'BAL-003',
      /GET \/v1\/balance .*available_points [\d.]+ is not total_points [\d.]+ - held_points [\d.]+/,
    ],
    [
      'chat-usage-total-off',
      'CHAT-004',
      /total_tokens \d+ is not prompt_tokens \d+ \+ completion_tokens \d+/,
    ],
    ['ledger-balance-off', 'LEDGER-002', /GET \/v1\/ledger .*consecutive ledger entries disagree/],
    // A call's charge against its usage at the prices of the catalog read before it and after it.
    [
      'charge-per-thousand',
      'PTS-007',
      /POST \/v1\/(chat\/completions|embeddings) .*charged [\d.]+, but \d+ prompt and \d+ completion tokens at [\d.]+ and [\d.]+ points per million tokens cost [\d.e-]+ \(the catalog read before it and this one, GET \/v1\/models/,
    ],
    // A media job's charged_points against its usage record, which names the job.
    [
      'media-charged-misreported',
      'USAGE-080',
      /GET \/v1\/usage .*the record of job_\w+: the job's charged_points is [\d.]+, but .* state charged_points [\d.]+/,
    ],
  ])('%s: its capture fails by %s with --strict, and is advisory without', async (fault, id, words) => {
    const file = join(dir, `${fault}.har`);
    await recordCapture(file, fault);
    const lines: string[] = [];
    const r = await checkTraffic(
      { files: [file], reportDir: join(dir, `report-${fault}`), strict: true },
      (s) => lines.push(s),
    );
    expect(r.summary!.failedRequirements, lines.join('\n')).toEqual({ [id]: 1 });
    const v = r.summary!.tests.find((t) => t.ids[0] === id)!.violations;
    expect(v[0]!.message).toMatch(words);
    const lax = await judge([file], `${fault}-lax`);
    expect(lax.summary!.advisoryRequirements[id]).toBe(1);
    expect(lax.exitCode).toBe(EXIT.passed);
  });
});

describe('check-traffic on a capture of an asset served to another tenant', () => {
  it('asset-other-tenant: MASSET-003 is advisory (the capture cannot say the keys are two tenants)', async () => {
    const file = join(dir, 'asset-other-tenant.har');
    await recordCapture(file, 'asset-other-tenant');
    const r = await judge([file], 'asset-other-tenant');
    expect(r.summary!.advisoryRequirements['MASSET-003'], r.lines.join('\n')).toBe(1);
    expect(r.summary!.failedRequirements['MASSET-003']).toBeUndefined();
  });
});

describe('check-traffic on captures of faults', () => {
  it.each(FAULTS)('%s: its capture fails by %s', async (fault, id) => {
    const file = join(dir, `${fault}.har`);
    const { keys } = await recordCapture(file, fault);
    const r = await judge([file], fault);
    expect(r.exitCode).toBe(EXIT.failed);
    expect(Object.keys(r.summary!.failedRequirements), r.lines.join('\n')).toContain(id);
    expect(sarifRun(r.reportDir).results.map((x) => x.ruleId)).toContain(id);
    if (fault === 'key-echo') {
      // The replies echo the key: the evidence names it, the report holds none of it.
      for (const [name, text] of reportTexts(r.reportDir))
        expect(findLeaks(text, { primary: keys.primary! }, FRAGMENT_CHARS), name).toEqual([]);
      expect(findLeaks(r.lines.join('\n'), { primary: keys.primary! }, FRAGMENT_CHARS)).toEqual([]);
    }
  });
});

describe('a live run recorded with --har', () => {
  it('is a capture check-traffic judges the same way, and holds no key of any role', async () => {
    const ref = await startReference({ mediaStepMs: 20 });
    try {
      const targets = join(dir, 'har-targets.yaml');
      const env = writeRefTargets(ref, targets, { requestMs: 10_000, concurrency: 4 });
      const file = join(dir, 'live.har');
      const live = await runCli(
        [
          '--targets',
          targets,
          '--target',
          'ref',
          '--allow',
          'all',
          '--suite',
          'chat',
          '--har',
          file,
          '--report-dir',
          join(dir, 'har-run'),
        ],
        env,
      );
      expect(live.code, live.stdout.slice(-2000)).toBe(0);
      expect(live.stdout).toMatch(/har: .*live\.har \(\d+ exchanges; judge it again with check-traffic/);
      const text = readFileSync(file, 'utf8');
      const entries = (JSON.parse(text) as { log: { entries: unknown[] } }).log.entries;
      expect(entries.length).toBeGreaterThan(10);
      // Every role's key is masked with its role, in headers, URLs and bodies alike.
      expect(findLeaks(text, ref.keys, FRAGMENT_CHARS)).toEqual([]);
      expect(text).toContain('Bearer [REDACTED:primary]');
      const r = await judge([file], 'live-har');
      expect(r.exitCode, r.lines.join('\n')).toBe(EXIT.passed);
      expect(r.summary!.capture!.exchangesJudged).toBe(entries.length);
    } finally {
      await ref.close();
    }
  });
});

describe('check-traffic on a capture whose description is OpenAPI 3.2', () => {
  it('openapi-3.2-item-schemas: every streamed item judged against its itemSchema, and the capture passes', async () => {
    const file = join(dir, 'openapi-32.har');
    await recordCapture(file, undefined, 'openapi-3.2-item-schemas');
    const r = await judge([file], 'openapi-32');
    expect(r.exitCode, r.lines.join('\n')).toBe(EXIT.passed);
    expect(r.summary!.openapi).toMatchObject({ valid: true, version: '3.2.0', validatedAgainst: 'live' });
  });
});

describe('check-traffic on bad input', () => {
  it('names each entry it cannot read and judges the rest', async () => {
    const r = await judge([har('broken-entries.har')], 'broken');
    // A body that does not decode and an entry that is no JSON object are parts not read: INCOMPLETE.
    expect(r.exitCode).toBe(EXIT.incomplete);
    expect(r.summary!.cut?.kind).toBe('capture');
    const p = r.summary!.capture!.problems;
    expect(p.find((m) => m.includes('entry 1'))).toMatch(/no response/);
    expect(p.find((m) => m.includes('entry 2'))).toMatch(/base64 body that does not decode/);
    expect(p.find((m) => m.includes('entry 3'))).toMatch(/not a JSON object/);
    expect(r.summary!.capture!.exchangesJudged).toBe(2);
    expect(r.lines.at(-1)).toMatch(
      /^VERDICT: INCOMPLETE \(2 parts of the capture could not be read, the first: .*entry 2.*2 of 5 entries judged.*3 input problem/,
    );
  });

  it('an entry without a response is read as it stands: the capture is complete', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-traffic-noresp-'));
    const file = join(dir, 'no-response.har');
    const doc = JSON.parse(readFileSync(har('broken-entries.har'), 'utf8')) as {
      log: { entries: unknown[] };
    };
    // Keep the readable entries and the one without a response (the client got none).
    doc.log.entries = doc.log.entries.filter((_, i) => i === 0 || i === 1 || i === 4);
    writeFileSync(file, JSON.stringify(doc));
    const r = await judge([file], 'no-response');
    expect(r.exitCode).toBe(EXIT.passed);
    expect(r.summary!.capture!.problems).toHaveLength(1);
  });

  it('says where a truncated file ends and judges the entries before it', async () => {
    const r = await judge([har('truncated.har')], 'truncated');
    expect(r.summary!.capture!.problems[0]).toMatch(/truncated after \d+ bytes \(entry 1 is incomplete/);
    expect(r.summary!.capture!.exchangesJudged).toBe(1);
    // A cut capture is never PASSED: INCOMPLETE, exit 4, naming where it stopped.
    expect(r.exitCode).toBe(EXIT.incomplete);
    expect(r.lines.at(-1)).toMatch(
      /^VERDICT: INCOMPLETE \(1 part of the capture could not be read, the first: .*truncated after \d+ bytes — entry 1 is incomplete/,
    );
    const junit = readFileSync(join(r.reportDir!, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/errors="[1-9]/);
    const inv = sarifRun(r.reportDir!).invocations[0];
    expect(inv.executionSuccessful).toBe(false);
    expect(inv.toolExecutionNotifications[0]?.message.text).toMatch(/^INCOMPLETE: .*truncated after/);
  });

  it('exits 2 only when nothing could be read', async () => {
    const r = await judge([har('not-har.txt')], 'not-har');
    expect(r.exitCode).toBe(EXIT.usage);
    expect(r.lines.join('\n')).toMatch(/not-har.txt: not a HAR file/);
    expect(existsSync(r.reportDir), 'no empty report directory').toBe(false);
    const both = await judge([har('not-har.txt'), har('broken-entries.har')], 'not-har-and-broken');
    expect(both.exitCode).toBe(EXIT.incomplete);
  });

  it.for([
    ['an empty file', '', /empty, not a HAR file/],
    ['JSON that is not HAR', '{"log": {"version": "1.2"}}', /not a HAR file \(no log\.entries array\)/],
    [
      'log.entries an object, not an array',
      '{"log": {"entries": {"a": {"request": {"method": "GET", "url": "https://gw.example/v1/models"}, "response": {"status": 200, "content": {"text": "{}"}}}}}}',
      /not a HAR file \(no log\.entries array\)/,
    ],
    ['a JSON array', '[1, 2]', /not a HAR file \(it does not start with a JSON object\)/],
    [
      'a HAR whose only entry is not JSON',
      '{"log": {"entries": [{"request": nope}]}}',
      /entry 0 is not valid JSON/,
    ],
    ['a file that does not exist', undefined, /cannot be read/],
    [
      'a HAR whose only entry has no response',
      '{"log": {"entries": [{"request": {"method": "GET", "url": "https://gw.example/v1/models"}}]}}',
      /entry 0 \(GET \/v1\/models\): no response \(status null\); not judged/,
    ],
  ] as const)('%s: a clear message, exit 2, no report directory (the CLI)', async ([name, text, message]) => {
    const file = join(dir, `bad-${name.replace(/\W+/g, '-')}.har`);
    if (text !== undefined) writeFileSync(file, text);
    const out = join(dir, `cli-bad-${name.replace(/\W+/g, '-')}`);
    const run = await runCli(['check-traffic', '--report-dir', out, file]);
    expect(run.code, run.stdout + run.stderr).toBe(EXIT.usage);
    expect(run.stdout + run.stderr).toMatch(message);
    expect(run.stdout + run.stderr).toMatch(/no exchange could be read from the capture; nothing judged/);
    expect(existsSync(out)).toBe(false);
  });

  it('does not judge AUTH-001 on a sanitized export (no Authorization header anywhere)', async () => {
    const doc = JSON.parse(readFileSync(har('broken-entries.har'), 'utf8'));
    // Its readable entries only (the broken ones make a capture INCOMPLETE, judged elsewhere).
    doc.log.entries = doc.log.entries.filter((_: unknown, i: number) => i === 0 || i === 1 || i === 4);
    for (const e of doc.log.entries)
      if (e?.request?.headers)
        e.request.headers = e.request.headers.filter(
          (h: { name: string }) => !/^(authorization|cookie)$/i.test(h.name),
        );
    const file = join(dir, 'sanitized.har');
    writeFileSync(file, JSON.stringify(doc));
    const r = await judge([file], 'sanitized');
    expect(r.summary!.verdict).toBe('passed');
    expect(r.summary!.capture!.notJudged).toContain('AUTH-001');
    // The same capture with its credentials judges it (the 401 without a key is a refusal).
    const full = await judge([har('broken-entries.har')], 'unsanitized');
    expect(full.summary!.requirements['AUTH-001']?.outcome).toBe('passed');
  });

  it('never prints the keys and cookies of a hand-written capture', async () => {
    const r = await judge([har('broken-entries.har')], 'hand-keys');
    const secrets = {
      key: 'sk-capture-TESTKEY-0123456789abcdefABCDEF',
      cookie: 'cookie-SECRET-value-987654321',
    };
    for (const [name, text] of reportTexts(r.reportDir))
      expect(findLeaks(text, secrets, FRAGMENT_CHARS), name).toEqual([]);
  });
});

describe('a capture without a description', () => {
  it('judges a body only where the documented schemas show it: a cut chat reply fails RESP-003, an undocumented one is not judged', async () => {
    const entry = (url: string, method: string, body: string) => ({
      startedDateTime: '2026-01-01T00:00:00Z',
      request: {
        method,
        url: `http://127.0.0.1:1${url}`,
        headers: [{ name: 'Authorization', value: 'Bearer sk-capture-undescribed-0123456789' }],
      },
      response: {
        status: 200,
        headers: [{ name: 'Content-Type', value: 'application/json' }],
        content: { mimeType: 'application/json', text: body },
      },
    });
    const write = (name: string, e: unknown) => {
      const file = join(dir, `${name}.har`);
      writeFileSync(file, JSON.stringify({ log: { version: '1.2', entries: [e] } }));
      return file;
    };
    const cut = await judge(
      [write('cut-chat', entry('/v1/chat/completions', 'POST', '{"id": "c1", "choices": ['))],
      'cut-chat',
    );
    expect(cut.summary!.failedRequirements).toEqual({ 'RESP-003': 1 });
    // Why the documented schemas: the capture's own reason, not a requirement it does not judge (OAS-001).
    const [v] = cut.summary!.tests.find((t) => t.ids[0] === 'RESP-003')!.violations;
    expect(v!.message).toMatch(
      /documented schema chat-completion\.json; the capture holds no GET \/openapi\.json/,
    );
    expect(v!.message).not.toMatch(/OAS-001/);
    expect(cut.summary!.openapi.documentedBecause).toBe('the capture holds no GET /openapi.json');
    // GET /v1/models: the contract shows no schema of its body, and nothing declares its status.
    const models = await judge(
      [write('models-undescribed', entry('/v1/models', 'GET', '{"object": "list", "data": 5}'))],
      'models',
    );
    expect(models.summary!.verdict).toBe('passed');
    for (const id of ['RESP-001', 'RESP-002', 'RESP-003', 'RESP-004'])
      expect(models.summary!.capture!.notJudged, id).toContain(id);
  });
});

describe('keys in a capture', () => {
  it('an accepted key in a reply fails SEC-001; an echo of a wrong key the client sent does not; neither is printed', async () => {
    const r = await judge([har('key-echo.har')], 'key-echo-hand');
    expect(r.summary!.failedRequirements).toEqual({ 'SEC-001': 1 });
    const v = r.summary!.tests.find((t) => t.ids[0] === 'SEC-001')!.violations;
    expect(v).toHaveLength(1);
    expect(v[0]!.message).toMatch(/entry 2\b|x-debug-key/);
    const secrets = {
      good: 'sk-capture-GOODKEY-0123456789abcdefABCDEF',
      wrong: 'sk-capture-WRONGKEY-zyxwvutsrqponm98765',
    };
    for (const [name, text] of reportTexts(r.reportDir))
      expect(findLeaks(text, secrets, FRAGMENT_CHARS), name).toEqual([]);
    expect(findLeaks(r.lines.join('\n'), secrets, FRAGMENT_CHARS)).toEqual([]);
  });
});

describe('streaming realism (RSP-090, advisory)', () => {
  it('a stream whose events all arrived at once is advisory; a paced one is not', async () => {
    const r = await judge([har('streams.har')], 'streams');
    expect(r.summary!.verdict).toBe('passed');
    expect(r.summary!.advisoryRequirements).toEqual({ 'RSP-090': 1 });
    const v = r.summary!.tests.find((t) => t.ids[0] === 'RSP-090')!;
    expect(v.exchangeCount).toBe(2);
    expect(v.violations).toHaveLength(1);
    expect(v.violations[0]!.message).toMatch(/all 4 events of the stream arrived within 0 ms/);
    expect(v.violations[0]!.exchangeId).toBe('har-0-0');
  });

  it('one check for both sides: the live client times each chunk, so a buffered stream shows in the live run and in its capture', async () => {
    for (const fault of [undefined, 'stream-buffered']) {
      const ref = await startReference(fault ? { fault } : {});
      try {
        const client = new HttpClient({ baseUrl: ref.url, timeoutMs: 10_000, redactor: new Redactor({}) });
        const res = await client.send({
          method: 'POST',
          path: '/v1/responses',
          headers: { authorization: `Bearer ${ref.keys.primary}` },
          json: { model: ref.hints.responses, input: 'hi', max_output_tokens: 4, stream: true },
        });
        expect(res.arrival?.kind).toBe('chunks');
        const found = bufferedStream(res).map((f) => f.id);
        expect(found, fault ?? 'reference').toEqual(fault ? ['RSP-090'] : []);
      } finally {
        await ref.close();
      }
    }
    // The same session recorded as HAR (the client's chunk times become timings.receive) and judged.
    const file = join(dir, 'stream-buffered.har');
    await recordCapture(file, 'stream-buffered');
    const r = await judge([file], 'stream-buffered');
    expect(r.summary!.advisoryRequirements['RSP-090'], r.lines.join('\n')).toBe(1);
    expect(r.summary!.failedRequirements['RSP-090']).toBeUndefined();
  });
});

describe('the HAR reader', () => {
  it('streams a capture larger than its read chunks, entry by entry', async () => {
    const one = JSON.parse(readFileSync(har('streams.har'), 'utf8')).log.entries[1];
    // A body with quotes, braces and escapes inside strings, in entries crossing 1 MiB chunk borders.
    one.response.content.text = `${one.response.content.text}: {"x":"}]\\"["}`.repeat(2000);
    const entries = Array.from({ length: 60 }, () => one);
    const file = join(dir, 'large.har');
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', pages: [{ id: 'p' }], entries } }));
    let n = 0;
    for await (const item of harItems(file)) {
      expect(item.kind).toBe('entry');
      n++;
    }
    expect(n).toBe(60);
  });
});
