/**
 * A target that answers garbage where a test only needed a step on its way (tools/hostile-server.ts
 * `garble`, `chaos`): what the suite met is judged wherever it met it. A test that could go no further
 * after a reply that broke the contract fails on that reply (it is not "not run", the finding lost);
 * the harness's own reads of the balance (the budget's) are judged like the tests' replies; and a target
 * that mangles replies at random is blamed, never the harness.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Summary } from '../src/report/summary.ts';
import { HANG_BOUND_MS } from '../tools/bounds.ts';
import {
  type HostileOptions,
  type HostileServer,
  hostileTarget,
  type Json,
  STACK_FRAME,
} from '../tools/hostile-server.ts';
import { runCli } from './helpers.ts';

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A run of the CLI against a hostile server in mode `o`, with `args`; its summary and exchange log. */
async function runAgainst(o: HostileOptions, args: string[]) {
  const h = await hostileTarget(o);
  server = h.server;
  const report = h.report;
  const run = await runCli([...h.args, '--report-dir', report, ...args], h.env);
  const summary = JSON.parse(readFileSync(join(report, 'summary.json'), 'utf8')) as Summary;
  const exchanges = new Map<string, { method: string; path: string; status?: number }>();
  for (const line of readFileSync(join(report, 'exchanges.ndjson'), 'utf8').split('\n'))
    if (line) {
      const x = JSON.parse(line) as { id: string; method: string; path: string; status?: number };
      exchanges.set(x.id, x);
    }
  return { run, summary, exchanges };
}

const test = (s: Summary, title: RegExp) => {
  const found = s.tests.find((t) => title.test(t.title));
  expect(found, `no test titled ${title}`).toBeDefined();
  return found!;
};

describe('replies met on the way', { timeout: HANG_BOUND_MS }, () => {
  /** Uploads answered 201 without their input's id. */
  const uploadWithoutId = {
    match: (method: string, path: string, status: number) =>
      method === 'POST' && path === '/v1/media/inputs' && status === 201,
    edit: (json: Json) => {
      if (json.input && typeof json.input === 'object') delete json.input.id;
    },
  };
  /**
   * Balance reads after the preflight's (the budget is planned from that one) giving held_points as a
   * JSON number (PTS-001: points values are decimal strings).
   */
  const balanceHeldNumber = {
    match: (method: string, path: string, status: number) =>
      method === 'GET' && path === '/v1/balance' && status === 200,
    after: 1,
    edit: (json: Json) => {
      json.held_points = 0;
    },
  };
  /** A test's findings on the exchanges of `method path`. */
  const findingsOn = (
    t: Summary['tests'][number],
    exchanges: Map<string, { method: string; path: string }>,
    method: string,
    path: string,
  ) =>
    (t.violations ?? []).filter((v) => {
      const x = v.exchangeId ? exchanges.get(v.exchangeId) : undefined;
      return x?.method === method && x.path === path;
    });

  it('a test that goes no further after an upload answered without its id fails on that reply, not "not run"; the budget\'s balance reads are judged like the tests\' replies', async () => {
    // The property's accepted cases are billable: the budget reads the balance every few of them.
    const { run, summary, exchanges } = await runAgainst(
      { mode: 'garble', garble: [uploadWithoutId, balanceHeldNumber] },
      [
        '--allow',
        'read,write,billable',
        '--filter',
        'MIN-009 deletes a ready input|CHAT-006 judges generated top_p',
        '--property-runs',
        '40',
      ],
    );
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    const deleting = test(summary, /^MIN-009 deletes a ready input/);
    expect(deleting.outcome).toBe('failed');
    // The finding is the upload's: the reply the description and the contract judge, cited.
    expect(findingsOn(deleting, exchanges, 'POST', '/v1/media/inputs').length).toBeGreaterThan(0);
    expect(deleting.notes?.some((n) => n.startsWith('went no further: the upload was answered 201'))).toBe(
      true,
    );
    // The requirement it never reached is not judged, never passed.
    expect(summary.requirements?.['MIN-009']?.outcome).not.toBe('passed');
    const property = test(summary, /^CHAT-006 judges generated top_p/);
    expect(property.outcome).toBe('failed');
    expect(findingsOn(property, exchanges, 'GET', '/v1/balance').map((v) => v.id)).toContain('PTS-001');
  });

  it('control: the same tests against the uploads and balance reads as the reference answers them pass', async () => {
    const { summary } = await runAgainst({ mode: 'garble', garble: [] }, [
      '--allow',
      'read,write,billable',
      '--filter',
      'MIN-009 deletes a ready input|CHAT-006 judges generated top_p',
      '--property-runs',
      '40',
    ]);
    expect(test(summary, /^MIN-009 deletes a ready input/).outcome).toBe('passed');
    expect(test(summary, /^CHAT-006 judges generated top_p/).outcome).toBe('passed');
  });
});

describe('a target that mangles replies at random', { timeout: HANG_BOUND_MS }, () => {
  // The quick profile (every suite file and class, fewer property cases): `tools/chaos.ts` runs more
  // seeds of the standard one.
  it('chaos: a quarter of the replies mangled (types, members, bodies, statuses, content types, headers): the target is blamed, the report written, no harness error', async () => {
    const { run, summary } = await runAgainst({ mode: 'chaos', seed: 7, rate: 0.25 }, [
      '--allow',
      'all',
      '--profile',
      'quick',
    ]);
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    expect(server!.mangled().length).toBeGreaterThan(100);
    expect(summary.counts.harness_error).toBe(0);
    expect(summary.counts.failed).toBeGreaterThan(0);
    for (const out of [run.stdout, run.stderr]) {
      expect(out).not.toMatch(/internal error/i);
      // No stack trace: a frame line is `    at fn (file:line:col)`.
      expect(out).not.toMatch(STACK_FRAME);
    }
  });

  it('chaos in the description: one place of it mangled (a value of another type, a member dropped), seeds 1-2: judged, no harness error', async () => {
    const mangledDescriptions: string[] = [];
    for (const seed of [1, 2]) {
      const { run, summary } = await runAgainst({ mode: 'chaos', seed, rate: 0, description: true }, [
        '--suite',
        'openapi,models,health',
      ]);
      mangledDescriptions.push(...server!.mangled());
      expect([0, 1], run.stderr.slice(-2000)).toContain(run.code);
      expect(summary.counts.harness_error).toBe(0);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/internal error/i);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(STACK_FRAME);
      await server!.close();
      server = undefined;
    }
    expect(mangledDescriptions.filter((m) => m.includes('GET /openapi.json')).length).toBe(2);
  });
});
