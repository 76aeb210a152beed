/**
 * A report's summary.json as every reader takes it (src/report/stored.ts loadSummary): what a run writes
 * is read; a file that is not (another tool's, cut, hand-edited) is a usage error naming the reader, the
 * file and what is wrong, never an internal error half way through merge, compare or verify.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.ts';
import { pkgPath } from '../../src/paths.ts';
import { verifyBundle } from '../../src/report/bundle.ts';
import { mergeReports } from '../../src/report/merge.ts';
import { loadSummary } from '../../src/report/stored.ts';
import { checkTraffic } from '../../src/traffic/judge.ts';

const dir = mkdtempSync(join(tmpdir(), 'stored-summary-'));
const shard = (i: number) => join(dir, `shard-${i}`);
const quiet = () => {};

beforeAll(async () => {
  for (const i of [1, 2])
    await checkTraffic(
      {
        files: [pkgPath('fixtures', 'har', 'key-echo.har')],
        reportDir: shard(i),
        shard: `${i}/2`,
        quiet: true,
      },
      quiet,
    );
}, 60_000);

/** A copy of shard 1 whose summary.json is `edit` of the one written. */
/** The parts of a summary the cases edit. */
type Doc = {
  suite: { name: string };
  openapi: { sha256?: string };
  target?: unknown;
  tests: Array<{ ids: unknown }>;
  requirements: Record<string, Record<string, unknown>>;
};

function edited(name: string, edit: (s: Doc) => unknown): string {
  const copy = join(dir, name);
  rmSync(copy, { recursive: true, force: true });
  cpSync(shard(1), copy, { recursive: true });
  const file = join(copy, 'summary.json');
  const s = JSON.parse(readFileSync(file, 'utf8')) as Doc;
  writeFileSync(file, JSON.stringify(edit(s) ?? s));
  return copy;
}

const refused = (f: () => unknown, message: RegExp) => {
  expect(f).toThrow(UsageError);
  expect(f).toThrow(message);
};

describe('a summary.json as the readers take it', () => {
  it('reads what a run writes, and merges it', () => {
    expect(loadSummary(shard(1), 'merge').suite.name).toBe('gateway-conformance');
    const merged = mergeReports([shard(1), shard(2)], join(dir, 'merged'));
    expect(merged.shards).toEqual(['1/2', '2/2']);
    // A summary of a build before the requirements' rollup was part of it: read (the readers make it).
    const older = edited('older', (s) => {
      delete (s as Partial<Doc>).requirements;
    });
    expect(loadSummary(older, 'compare').tests.length).toBeGreaterThan(0);
    // Shards that saw different descriptions (here one, beside none) are said with both.
    const described = edited('described', (s) => {
      s.openapi.sha256 = 'ab'.repeat(32);
    });
    expect(() => mergeReports([shard(2), described], join(dir, 'out-described'))).toThrow(
      /saw another live description \(sha256 (ab){32}; the first report's: none\)/,
    );
  });

  it('refuses what a run does not write, naming the reader, the file and the place', () => {
    const cases: Array<[string, (s: Doc) => unknown, RegExp]> = [
      ['other-tool', () => ({ a: 1 }), /must have required property 'suite'/],
      [
        'other-name',
        (s) => {
          s.suite.name = 'x';
        },
        /\/suite\/name must be equal to constant/,
      ],
      [
        'ids',
        (s) => {
          s.tests[0]!.ids = 'SEC-001';
        },
        /\/tests\/0\/ids must be array/,
      ],
      [
        'no-failed',
        (s) => {
          delete Object.values(s.requirements)[0]!.failed;
        },
        /must have required property 'failed'/,
      ],
      [
        'no-target',
        (s) => {
          delete s.target;
        },
        /must have required property 'target'/,
      ],
    ];
    for (const [name, edit, message] of cases) {
      const bad = edited(name, edit);
      refused(
        () => loadSummary(bad, 'merge'),
        new RegExp(
          `^merge: .*${name}.summary\\.json is not a summary\\.json of gateway-conformance: .*${message.source}`,
        ),
      );
      refused(() => mergeReports([shard(2), bad], join(dir, `out-${name}`)), message);
      refused(() => verifyBundle(bad), message);
    }
    const cut = join(dir, 'cut');
    cpSync(shard(1), cut, { recursive: true });
    writeFileSync(join(cut, 'summary.json'), '{"suite": {');
    refused(() => loadSummary(cut, 'compare'), /^compare: .*summary\.json is not valid JSON/);
    refused(
      () => loadSummary(join(dir, 'nothing'), 'compare'),
      /^compare: .*nothing is not a report directory/,
    );
  });
});
