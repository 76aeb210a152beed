/**
 * src/layout.ts owns the report directory: no other file of src/ names one of its files, the control
 * files finish clears come from its table, and its two logs read what they append. No file of
 * src/runtime/ imports src/report/ (data flows one way; the runtime reaches the layout below both).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.ts';
import type { Exchange } from '../../src/http/client.ts';
import {
  CONTROL_FILES,
  ExchangeLog,
  makeReportDir,
  REPORT_FILES,
  SpendLog,
} from '../../src/report/layout.ts';

const root = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('the report directory layout', () => {
  it('is the only file of src/ that names a file of a report directory as a literal', () => {
    const names = Object.values(REPORT_FILES).map((f) => f.name.replace(/\./g, '\\.'));
    const literal = new RegExp(`['"\`](${names.join('|')})['"\`]`);
    const naming = sources(join(root, 'src'))
      .filter((f) => f !== join(root, 'src', 'layout.ts'))
      .filter((f) => literal.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(naming).toEqual([]);
  });

  it('is below the runtime: no file of src/runtime/ imports src/report/', () => {
    const upward = sources(join(root, 'src', 'runtime'))
      .filter((f) => /from '\.\.\/report\//.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(upward).toEqual([]);
  });

  it('lists the control files the workers coordinate through, and nothing of the report among them', () => {
    expect(CONTROL_FILES.sort()).toEqual(
      [
        'balance-ran-out',
        'dead-target',
        'har-entries.ndjson',
        'jobs-in-flight',
        'no-answer-streak',
        'serial-turns',
        'stop-requested',
      ].sort(),
    );
  });

  it('an exchange log reads back what it appended: by ids, by model, counted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-layout-'));
    const log = ExchangeLog.of(dir);
    expect(log.count()).toBe(0);
    log.create();
    const ex = (id: string, model?: string) =>
      ({ id, method: 'POST', path: '/v1/chat/completions', ...(model ? { model } : {}) }) as Exchange;
    for (const e of [ex('a', 'm1'), ex('b', 'm2'), ex('c', 'm1'), ex('d')]) log.append(e);
    expect(log.count()).toBe(4);
    expect([...log.byIds(new Set(['b', 'd', 'zz'])).keys()].sort()).toEqual(['b', 'd']);
    const byModel = log.byModel(() => true);
    expect([...byModel.keys()].sort()).toEqual(['(unknown model)', 'm1', 'm2']);
    expect(byModel.get('m1')!.map((e) => e.id)).toEqual(['a', 'c']);
    // Counted as its non-empty lines: blank lines and a last line without its newline as well.
    for (const [text, n] of [
      ['', 0],
      ['\n\n', 0],
      ['{"id":"a"}', 1],
      ['\n{"id":"a"}\n\n{"id":"b"}', 2],
      ['{"id":"a"}\n{"id":"b"}\n', 2],
    ] as const) {
      writeFileSync(log.file, text);
      expect(log.count(), JSON.stringify(text)).toBe(n);
    }
  });

  it('a spend log reads each complete line once, and anew when the file was started again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-layout-'));
    const log = SpendLog.of<{ n: number }>(dir);
    expect(log.since(0)).toBeUndefined();
    log.append({ n: 1 });
    log.append({ n: 2 });
    const first = log.since(0)!;
    expect(first.lines).toEqual([{ n: 1 }, { n: 2 }]);
    log.append({ n: 3 });
    const next = log.since(first.offset)!;
    expect(next.lines).toEqual([{ n: 3 }]);
    expect(log.since(next.offset + 100)?.restart).toBe(true);
  });
});

describe('makeReportDir: a --report-dir made with its parents, or refused with the reason (exit 2)', () => {
  it('makes the missing parents, takes an existing directory, refuses a file on the way', () => {
    const base = mkdtempSync(join(tmpdir(), 'gc-reportdir-'));
    makeReportDir(join(base, 'a', 'b', 'c'));
    expect(statSync(join(base, 'a', 'b', 'c')).isDirectory()).toBe(true);
    makeReportDir(join(base, 'a', 'b', 'c'));
    writeFileSync(join(base, 'file'), '');
    expect(() => makeReportDir(join(base, 'file'))).toThrow(UsageError);
    expect(() => makeReportDir(join(base, 'file'))).toThrow(/--report-dir: .* it is not a directory/);
    expect(() => makeReportDir(join(base, 'file', 'x', 'y'))).toThrow(/\/file is not a directory/);
    expect(existsSync(join(base, 'file', 'x'))).toBe(false);
  });

  // node's recursive mkdir loops for ever at full CPU where a parent answers ENOENT to a new entry.
  it.skipIf(!existsSync('/proc/self'))('refuses a name /proc will not take, at once', () => {
    expect(() => makeReportDir('/proc/gc-no-such/report')).toThrow(/cannot be made \(ENOENT\)/);
  });
});
