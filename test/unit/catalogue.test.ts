import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { catalogue, ID_PATTERN, notJudged, violation } from '../../src/catalogue.ts';
import { keysFromEnv } from '../../src/config/env.ts';
import { pkgPath } from '../../src/paths.ts';
import { citedIds } from '../../tools/cited.ts';
import { contractText, fold } from '../helpers.ts';

describe('requirement catalogue', () => {
  const raw = parse(readFileSync(pkgPath('fixtures', 'requirements.yaml'), 'utf8')) as {
    requirements: Array<Record<string, unknown>>;
  };

  it('has unique, well-formed ids and a level, section and words for each', () => {
    const ids = raw.requirements.map((r) => r.id as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of raw.requirements) {
      expect(r.id, String(r.id)).toMatch(ID_PATTERN);
      expect(['failure', 'implied', 'notable'], String(r.id)).toContain(r.level);
      expect(typeof r.section === 'string' && typeof r.words === 'string', String(r.id)).toBe(true);
      if (r.testable === false)
        expect(typeof r.why === 'string' && (r.why as string).length > 10, `${r.id} needs why`).toBe(true);
      else expect(r.testable, String(r.id)).toBe(true);
      // The form completes "the target never showed ...": a noun phrase.
      if (r.form !== undefined) expect(r.form, `${r.id} form`).toMatch(/^(a|an|two|ledger) .+[^.]$/);
    }
  });

  it("quotes the contract's own words and names one of its sections", (ctx) => {
    const text = contractText();
    if (!text) return ctx.skip('shared/contract/customer-api.md is not beside the checkout');
    const sections = new Set(
      [
        ...readFileSync(pkgPath('..', 'shared', 'contract', 'customer-api.md'), 'utf8').matchAll(
          /^#+ (.+)$/gm,
        ),
      ].map((m) => m[1]!.trim()),
    );
    for (const r of catalogue().values()) {
      expect(text.includes(fold(r.words)), `${r.id}: words not found in the contract: ${r.words}`).toBe(true);
      expect(sections.has(r.section), `${r.id}: no section '${r.section}'`).toBe(true);
    }
  });

  it('every id a test cites exists, and every testable requirement has a test', () => {
    const cited = citedIds();
    const cat = catalogue();
    const unknown = [...cited.keys()].filter((id) => !cat.has(id));
    expect(unknown, 'tests cite ids missing from the catalogue').toEqual([]);
    const untested = [...cat.values()].filter((r) => r.testable && !cited.has(r.id)).map((r) => r.id);
    expect(untested, 'testable requirements without a test').toEqual([]);
  });
});

describe('violations, made in one place', () => {
  it('take their level from the catalogue and their severity from it and --strict', () => {
    expect(violation('GEN-001', 'm')).toEqual({
      id: 'GEN-001',
      level: 'failure',
      severity: 'failure',
      message: 'm',
      count: 1,
    });
    expect(violation('CHAT-004', 'm')).toMatchObject({ level: 'implied', severity: 'advisory' });
    expect(violation('CHAT-004', 'm', { strict: true })).toMatchObject({
      level: 'implied',
      severity: 'failure',
    });
    expect(violation('OAS-004', 'm', { strict: true })).toMatchObject({
      level: 'notable',
      severity: 'advisory',
    });
    expect(violation('GEN-001', 'm', { level: 'notable' })).toMatchObject({
      level: 'notable',
      severity: 'advisory',
    });
    expect(() => violation('NOPE-001', 'm', { level: 'notable' })).toThrow(/unknown requirement id NOPE-001/);
  });

  it('a violation not judged becomes a note that says why', () => {
    const v = violation('GEN-001', 'GET /v1/balance answered 429');
    notJudged(v, 'the target answered 429');
    expect(v).toMatchObject({
      level: 'notable',
      severity: 'advisory',
      message: 'not judged, the target answered 429: GET /v1/balance answered 429',
    });
  });
});

describe('keys, read from the environment in one place', () => {
  it('gives the key of each role whose variable is set and not empty', () => {
    const env = { K_PRIMARY: 'sk-1', K_ADMIN: '', OTHER: 'x' };
    expect(
      keysFromEnv({ primary: 'K_PRIMARY', enterprise: 'K_ADMIN', other_tenant: 'K_UNSET' }, env),
    ).toEqual({
      primary: 'sk-1',
    });
  });
});
