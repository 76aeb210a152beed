import {
  type BodySide,
  type CheckContext,
  check,
  checkOpenApi31Once,
  DriftComparer,
  documented,
  endpoints,
  group,
  LiveDescription,
  label,
} from '../../src/suite/index.ts';

/** A description the suite does not examine, and why (the size bounds it crosses). */
const beyond = (why: string | undefined) =>
  `the description is beyond what the suite examines (${why ?? 'too large'}): not compiled nor judged, responses are validated against the documented schemas`;

let fetched: Promise<{ live?: LiveDescription; error?: string }> | undefined;

/** The live description, fetched in this file's first test that needs it (and recorded there). */
async function liveDescription(t: CheckContext): Promise<LiveDescription> {
  fetched ??= (async () => {
    const res = await t.get('/openapi.json');
    if (res.status === 200 && res.jsonTooDeep) return { error: `${beyond(res.jsonError)}; see OAS-006` };
    if (res.status !== 200 || res.json === undefined)
      return { error: `GET /openapi.json answered ${res.status} ${res.mediaType ?? ''}; see OAS-001` };
    const ok = await checkOpenApi31Once(res.body, res.json, t.run.openapi);
    if (ok.errors.length > 0)
      return { error: `the description is not valid OpenAPI 3.1: ${ok.errors.join('; ')}; see OAS-001` };
    if (ok.tooLarge) return { error: `${beyond(ok.tooLarge.join('; '))}; see OAS-006` };
    return { live: new LiveDescription(res.json as Record<string, unknown>) };
  })();
  const got = await fetched;
  if (!got.live) return t.skip(`no valid live description (${got.error})`);
  return got.live;
}

check(
  { ids: ['OAS-001', 'OAS-006'], effect: 'read' },
  'serves a valid OpenAPI 3.1 description at /openapi.json',
  async (t) => {
    const res = await t.get('/openapi.json');
    // JSON nested deeper than the client walks: the contract sets no size limit (advisory).
    if (res.status === 200 && res.jsonTooDeep) {
      t.violate('OAS-006', beyond(res.jsonError), { exchange: res.exchange });
      return;
    }
    if (
      !t.ensure(
        res.status === 200 && res.json !== undefined,
        'OAS-001',
        'GET /openapi.json did not answer 200 with JSON',
        {
          received: `${res.status} ${res.mediaType ?? ''}${res.jsonError ? ` (${res.jsonError})` : ''}`,
          expected: '200 application/json',
          exchange: res.exchange,
        },
      )
    ) {
      return;
    }
    const ok = await checkOpenApi31Once(res.body, res.json, t.run.openapi);
    t.observe('OAS-006', res.exchange);
    if (ok.tooLarge) t.violate('OAS-006', beyond(ok.tooLarge.join('; ')), { exchange: res.exchange });
    // Invalid (errors) fails; beyond the suite's bounds alone does not: the contract sets no size limit.
    t.ensure(
      ok.errors.length === 0,
      'OAS-001',
      `the description is not a valid OpenAPI 3.1 document: ${ok.errors.join('; ')}`,
      {
        received: ok.version,
        expected: 'OpenAPI 3.1.x, valid against the 3.1 schema',
        exchange: res.exchange,
      },
    );
  },
);

group('every endpoint of the contract is described', () => {
  for (const e of endpoints()) {
    const spec = e.public
      ? { ids: ['OAS-005'], effect: 'read' as const }
      : { ids: ['OAS-002'], effect: 'read' as const };
    check(spec, `describes ${label(e)}`, async (t) => {
      const live = await liveDescription(t);
      t.ensure(
        live.hasOperation(e.method, e.path),
        spec.ids[0]!,
        `the live description has no operation ${label(e)}`,
        {
          expected: label(e),
          pointer: '/paths',
        },
      );
    });
  }
});

group('the description agrees with the contract on what the contract shows', () => {
  for (const e of endpoints()) {
    for (const side of ['request', 'response'] as BodySide[]) {
      const docName = side === 'request' ? e.request_schema : e.response_schema;
      if (!docName) continue;
      check(
        { ids: ['OAS-003', 'OAS-004'], effect: 'read' },
        `${side} body of ${label(e)} agrees with ${docName}`,
        async (t) => {
          const live = await liveDescription(t);
          const op = live.document.operationFor(e.method, e.path);
          const found = op && live.document.jsonBody(op, side);
          if (!found) return t.skip(`the live description shows no JSON ${side} body for ${label(e)}`);
          t.observeOwn();
          for (const f of new DriftComparer(documented(), live).compare(docName, found.schema, side)) {
            t.violate(f.id, `${label(e)} ${side} ${f.path}: ${f.message}`, {
              pointer: `${found.at}${f.path === '/' ? '' : f.path}`,
              ...(f.live !== undefined ? { received: f.live } : {}),
              ...(f.documented !== undefined ? { expected: f.documented } : {}),
            });
          }
        },
      );
    }
  }

  check({ ids: ['OAS-003'], effect: 'read' }, 'error responses agree with the APIError object', async (t) => {
    const live = await liveDescription(t);
    const comparer = new DriftComparer(documented(), live);
    for (const op of live.operations()) {
      for (const { status, content, at } of live.document.responses(op)) {
        if (!/^[45]|default/.test(status)) continue;
        for (const [mt, media] of Object.entries(content)) {
          const schema = (media as { schema?: unknown } | null)?.schema;
          if (!mt.includes('json') || !schema) continue;
          t.observe('OAS-003');
          for (const f of comparer.compare('api-error.json', schema, 'response')) {
            if (f.id !== 'OAS-003') continue;
            t.violate(f.id, `${op.method} ${op.template} ${status}: ${f.path}: ${f.message}`, {
              pointer: at,
              ...(f.live !== undefined ? { received: f.live } : {}),
              ...(f.documented !== undefined ? { expected: f.documented } : {}),
            });
          }
        }
      }
    }
  });
});

/** The endpoints the contract's table calls deprecated (the payment interface, "Versioning" 4). */
const DEPRECATED = endpoints().filter((e) => /\bdeprecated\b/.test(e.purpose));
const markedDeprecated = (op: Record<string, unknown>): boolean =>
  op.deprecated === true ||
  [op.summary, op.description].some((s) => typeof s === 'string' && /\bdeprecated\b/i.test(s));

for (const e of DEPRECATED)
  check(
    { ids: ['OAS-007'], effect: 'read' },
    `marks ${label(e)} deprecated (the payment interface is kept only for compatibility)`,
    async (t) => {
      const live = await liveDescription(t);
      const op = live.document.operationFor(e.method, e.path);
      if (!op) return t.skip(`the live description has no operation ${label(e)} (see OAS-002)`);
      t.ensure(
        markedDeprecated(op.op),
        'OAS-007',
        `the live description does not mark ${label(e)} deprecated`,
        {
          pointer: op.pointer,
          expected: '`deprecated: true`, or "deprecated" in its summary or description',
        },
      );
    },
  );
