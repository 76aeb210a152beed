import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { pkgPath } from '../../src/paths.ts';
import { endpoints } from '../../src/suite/endpoints.ts';
import { HINTS, ROLES } from '../../src/vocabulary.ts';
import { contractText } from '../helpers.ts';

describe('shared fixtures agree with the contract', () => {
  it('endpoints.yaml holds exactly the rows of the endpoint table', (ctx) => {
    const text = contractText();
    if (!text) return ctx.skip('shared/contract/customer-api.md is not beside the checkout');
    const rows = [...text.matchAll(/\| (GET|POST|DELETE|PUT|PATCH) \| (\/[^ |]*) \| ([^|]+) \|/g)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]!.trim()}`,
    );
    expect(rows).toHaveLength(20);
    expect(endpoints().map((e) => `${e.method} ${e.path} ${e.purpose}`)).toEqual(rows);
  });

  it('only /healthz, /status and /openapi.json are public; every business path starts with /v1', () => {
    for (const e of endpoints()) expect(e.public === true, e.path).toBe(!e.path.startsWith('/v1/'));
  });

  it('every documented schema named by an endpoint exists', () => {
    for (const e of endpoints()) {
      for (const s of [e.request_schema, e.response_schema])
        if (s) expect(() => readFileSync(pkgPath('schemas', s))).not.toThrow();
    }
  });

  it('roles.yaml lists the roles and hints the harness knows', () => {
    const doc = parse(readFileSync(pkgPath('fixtures', 'roles.yaml'), 'utf8')) as {
      roles: object;
      hints: object;
    };
    expect(Object.keys(doc.roles)).toEqual([...ROLES]);
    expect(Object.keys(doc.hints)).toEqual([...HINTS]);
  });
});
