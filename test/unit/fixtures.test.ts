import { readdirSync, readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { targetsFileSchema } from '../../src/config/schema.ts';
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

  it('our own JSON Schemas are valid against their meta-schemas (the validators skip that check at every start)', () => {
    const meta2020 = new Ajv2020({ strict: false });
    addFormats.default(meta2020);
    const files = readdirSync(pkgPath('schemas')).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const schema = JSON.parse(readFileSync(pkgPath('schemas', f), 'utf8'));
      expect(meta2020.validateSchema(schema), `${f}: ${meta2020.errorsText()}`).toBe(true);
    }
    const draft7 = new Ajv({ strict: false });
    expect(draft7.validateSchema(targetsFileSchema), draft7.errorsText()).toBe(true);
    // A broken schema is caught: the check can fail.
    expect(meta2020.validateSchema({ type: 'no-such-type' })).toBe(false);
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
