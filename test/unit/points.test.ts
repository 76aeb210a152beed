import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCatalog, findEntryList, findField } from '../../src/checks/json.ts';
import { chargeArithmetic, judgePoints, pointsFindings } from '../../src/checks/points.ts';

describe('points findings, built in one place (PTS-001, PTS-002)', () => {
  it('turns each judged field into its finding, only the fields asked for, at its pointer', () => {
    const body = { data: [{ total_points: 3, held_points: '1e3', available_points: '2' }] };
    expect(pointsFindings(body, ['total_points', 'held_points'], 'GET /v1/balance')).toEqual([
      {
        id: 'PTS-001',
        message: 'GET /v1/balance: total_points is a JSON number (3), not a decimal string',
        pointer: '/data/0/total_points',
        received: 3,
        expected: 'a decimal string',
        verdictCase: { wrong: 'carried', what: 'total_points of GET /v1/balance', family: 'points' },
      },
      {
        id: 'PTS-002',
        message: 'GET /v1/balance: held_points: "1e3" is not in plain decimal notation',
        pointer: '/data/0/held_points',
        received: '1e3',
      },
    ]);
    expect(pointsFindings(body, ['available_points'])).toEqual([]);
    expect(pointsFindings({ charged_points: null }).map((f) => f.message)).toEqual([
      'charged_points is a null, not a decimal string',
    ]);
  });
});

describe('points values (PTS-001, PTS-002)', () => {
  it.for([
    ['12', true, false],
    ['-0.5', true, false],
    ['0.000001234567891234', true, false],
    ['1e3', true, true],
    ['0.30000000000000004', true, true],
    ['0.000000000000001', true, false],
    ['+1', true, true],
    ['007', true, true],
    [12, false, false],
    ['twelve', false, false],
    [' 1', false, false],
    [null, false, false],
  ] as const)('%j: decimal %s, advisory note %s', ([value, ok, note]) => {
    const v = judgePoints(value);
    expect(v.ok).toBe(ok);
    expect(v.ok && v.note !== undefined).toBe(note);
  });

  it('accepts every plain decimal string exactly (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat({ max: 12 }), (n, scale) => {
        const s = n.toString();
        const neg = s.startsWith('-');
        const digits = (neg ? s.slice(1) : s).padStart(scale + 1, '0');
        const str = `${neg ? '-' : ''}${scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits}`;
        const v = judgePoints(str);
        return v.ok && v.value.equals(new Decimal(str));
      }),
    );
  });
});

describe('envelope-agnostic lookups', () => {
  it('finds a list in whichever envelope', () => {
    expect(findEntryList([{ id: 'a' }])?.pointer).toBe('');
    expect(findEntryList({ object: 'list', data: [{ id: 'a' }] })?.pointer).toBe('/data');
    expect(findEntryList({ result: { models: [{ id: 'a' }] }, tags: ['x'] })?.pointer).toBe('/result/models');
    expect(findEntryList({ data: [] })?.entries).toEqual([]);
    expect(findEntryList({ ok: true })).toBeUndefined();
  });

  it('reads a catalog grouped by kind as one catalog, never an array inside an entry', () => {
    const ids = (j: unknown) => findCatalog(j)?.entries.map((e) => (e as { id: string }).id);
    expect(ids({ text: [{ id: 'chat-1' }], embedding: [{ id: 'emb-1' }] })).toEqual(['chat-1', 'emb-1']);
    expect(ids({ page: { models: [{ id: 'a' }], more: [{ id: 'b' }] }, links: [{ rel: 'next' }] })).toEqual([
      'a',
      'b',
    ]);
    expect(ids({ data: [{ id: 'a', aliases: [{ id: 'x' }] }], links: [{ rel: 'next' }] })).toEqual(['a']);
    expect(ids([{ id: 'a' }])).toEqual(['a']);
    expect(findCatalog({ data: [] })?.entries).toEqual([]);
  });

  it('finds a field at any depth with its pointer', () => {
    expect(
      findField({ data: { total_points: '1' }, x: [{ total_points: '2' }] }, 'total_points').map(
        (f) => f.pointer,
      ),
    ).toEqual(['/data/total_points', '/x/0/total_points']);
  });
});

describe('generated chat parameters', () => {
  it('judge each value as it is sent, -0 included', async () => {
    const { rangeParameter } = await import('../../src/rules/chat.ts');
    fc.assert(
      fc.property(rangeParameter(0, 2), (c) => {
        const sent = JSON.parse(JSON.stringify({ v: c.value })).v as unknown;
        return c.valid === (typeof sent === 'number' && sent >= 0 && sent <= 2);
      }),
      { numRuns: 2000 },
    );
  });

  it('send no number whose verdict a 32-bit float reading would change (2.0000000000000004 reads as 2)', async () => {
    const { rangeParameter } = await import('../../src/rules/chat.ts');
    for (const [min, max] of [
      [0, 2],
      [0, 1],
    ] as const) {
      const numbers = fc
        .sample(rangeParameter(min, max), { numRuns: 20000, seed: 7 })
        .filter((c) => typeof c.value === 'number');
      expect(numbers.length).toBeGreaterThan(10000);
      for (const c of numbers) {
        const f = Math.fround(c.value as number);
        expect(c.valid, String(c.value)).toBe(f >= min && f <= max);
      }
    }
  });
});

describe('charge arithmetic at the catalog prices (PTS-007)', () => {
  // tx-chat-1's prices: 0.75 and 2.5 points per million tokens; 10 prompt and 16 completion tokens.
  const prices = { request: new Decimal('0.75'), response: new Decimal('2.5') };
  const tokens = { prompt: 10, completion: 16 };
  const judge = (charged: string) => chargeArithmetic(new Decimal(charged), tokens, prices);

  it('computes (prompt x request + completion x response) / 1000000 exactly', () => {
    expect(judge('0.0000475').exact.toFixed()).toBe('0.0000475');
  });

  it.for([
    ['0.0000475', 'exact'],
    ['0.000048', 'rounded up to 6 decimals'],
    ['0.000047', 'rounded down to 6 decimals'],
    ['0.00005', 'rounded up to 5 decimals'],
    ['0.01', 'rounded up to cents'],
    ['0.010000', 'rounded up to cents, written with 6 decimals'],
    ['0', 'rounded down to whole points'],
    ['1', 'rounded up to whole points'],
  ] as const)('agrees with %s (%s)', ([charged]) => {
    expect(judge(charged).agrees).toBe(true);
  });

  it.for([
    ['0.0475', 'prices read per thousand tokens'],
    ['0.000037', 'the two prices swapped'],
    ['0.0000455', 'one completion token too few'],
    ['0.0000575', 'a fee of 0.00001 added'],
    ['0.02', 'rounded up past the next cent'],
  ] as const)('disagrees with %s (%s)', ([charged]) => {
    expect(judge(charged).agrees).toBe(false);
  });

  it('keeps long fractional prices exact', () => {
    const long = {
      request: new Decimal('0.000001234567891234'),
      response: new Decimal('0.000003703703673702'),
    };
    const exact = chargeArithmetic(new Decimal('0'), { prompt: 6, completion: 3 }, long).exact;
    expect(exact.toFixed()).toBe('0.00000000001851851836851');
  });
});
