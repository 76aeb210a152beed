import { describe, expect, test } from 'vitest';
import { FAULTS, type ReferenceHandle, startReference, VARIANTS } from '../../reference/start.ts';
import { call, referencePool } from './helpers.ts';

const start = referencePool();

const models = (ref: ReferenceHandle, role = 'primary') => call(ref, '/v1/models', { role });
const balance = (ref: ReferenceHandle) => call(ref, '/v1/balance', { role: 'primary' });
const openapi = async (ref: ReferenceHandle) => (await call(ref, '/openapi.json')).body;
const withKey = (ref: ReferenceHandle, headers: (key: string) => Record<string, string>, query = '') =>
  call(ref, `/v1/models${query}`, { headers: headers(ref.keys.primary as string) });
// biome-ignore lint/suspicious/noExplicitAny: model entries are probed field by field
const unpriced = (entries: any[]) => entries.find((m) => m.id === 'tx-chat-unpriced');

/** Per toggle, a probe that is true when its deviation is visible (and false on the plain server). */
const FAULT_PROBES: Record<string, (ref: ReferenceHandle) => Promise<boolean>> = {
  'auth-query-key': async (ref) =>
    (await withKey(ref, () => ({}), `?api_key=${ref.keys.primary}`)).status === 200,
  'auth-scheme-lax': async (ref) =>
    (await withKey(ref, (k) => ({ authorization: `Token ${k}` }))).status === 200,
  'auth-prefix-key': async (ref) =>
    (await withKey(ref, (k) => ({ authorization: `Bearer ${k.slice(0, 24)}` }))).status === 200,
  'auth-suffix-key': async (ref) =>
    (await withKey(ref, (k) => ({ authorization: `Bearer ${k}xyz` }))).status === 200,
  'auth-cookie': async (ref) => (await withKey(ref, (k) => ({ cookie: `session=${k}` }))).status === 200,
  'auth-revoked-accepted': async (ref) => (await models(ref, 'revoked')).status === 200,
  'auth-expired-accepted': async (ref) => (await models(ref, 'expired')).status === 200,
  'auth-wrong-code': async (ref) => (await call(ref, '/v1/models')).body.error.code === 'unauthorized',
  'error-shape-flat': async (ref) => typeof (await call(ref, '/v1/models')).body.error === 'string',
  'ip-allowlist-ignored': async (ref) => (await models(ref, 'ip_blocked')).status === 200,
  'healthz-auth': async (ref) => (await call(ref, '/healthz')).status === 401,
  'status-500': async (ref) => (await call(ref, '/status')).status === 500,
  'openapi-invalid': async (ref) => (await openapi(ref)).info === undefined,
  'openapi-missing-endpoint': async (ref) => (await openapi(ref)).paths['/v1/embeddings'] === undefined,
  'openapi-enum-drift': async (ref) =>
    (await openapi(ref)).components.schemas.ChatCompletionRequest.properties.temperature.maximum === 1,
  'openapi-undeclared-401': async (ref) =>
    (await openapi(ref)).paths['/v1/models'].get.responses['401'] === undefined,
  'models-undocumented-shape': async (ref) => (await models(ref)).body.data[0].context_length === undefined,
  'balance-text-plain': async (ref) =>
    (await balance(ref)).headers.get('content-type')?.startsWith('text/plain') ?? false,
  'models-price-number': async (ref) =>
    typeof (await models(ref)).body.data[0].request_points_per_million_tokens === 'number',
  'models-zero-quote': async (ref) =>
    unpriced((await models(ref)).body.data).request_points_per_million_tokens === '0',
  'models-forbidden-listed': async (ref) =>
    (await models(ref)).body.data.some((m: { id: string }) => m.id === ref.hints.forbidden),
  'balance-number': async (ref) => typeof (await balance(ref)).body.total_points === 'number',
  'balance-missing-held': async (ref) => !('held_points' in (await balance(ref)).body),
  'balance-available-off': async (ref) => (await balance(ref)).body.available_points !== '988.25',
  'key-echo': async (ref) => (await models(ref)).headers.get('x-debug-key') === ref.keys.primary,
};

const VARIANT_PROBES: Record<string, (ref: ReferenceHandle) => Promise<boolean>> = {
  'models-envelope': async (ref) => Array.isArray((await models(ref)).body.models),
  'extra-fields': async (ref) => {
    const [ok, error] = [await models(ref), await call(ref, '/v1/models')];
    return (
      ok.body.x_vendor !== undefined &&
      ok.body.data[0].x_vendor !== undefined &&
      error.body.error.x_vendor !== undefined
    );
  },
  'no-request-id': async (ref) => (await call(ref, '/healthz')).headers.get('x-request-id') === null,
  'error-codes': async (ref) =>
    (await call(ref, '/v1/nowhere', { role: 'primary' })).body.error.code === 'route_not_found',
  'expired-403': async (ref) => (await models(ref, 'expired')).body.error.code === 'key_expired',
  'long-ids': async (ref) =>
    Buffer.byteLength((await call(ref, '/healthz')).headers.get('x-request-id') ?? '') === 160 &&
    (ref.hints.chat ?? '').length === 120,
  'balance-envelope': async (ref) => (await balance(ref)).body.data?.total_points !== undefined,
  'unpriced-omitted': async (ref) => !('points_configured' in unpriced((await models(ref)).body.data)),
  'fractional-prices': async (ref) => (await balance(ref)).body.total_points === '1234567.123456789012',
  'healthz-text': async (ref) => (await call(ref, '/healthz')).text === 'ok',
  'openapi-default-errors': async (ref) =>
    (await openapi(ref)).paths['/v1/models'].get.responses.default !== undefined,
};

describe('faults', () => {
  test('names are unique and each lists the requirements it breaks', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const fault of FAULTS) {
      expect(fault.description, fault.name).not.toBe('');
      expect(fault.breaks.length, fault.name).toBeGreaterThan(0);
      for (const id of fault.breaks) expect(id, fault.name).toMatch(/^[A-Z]+(-[A-Z]+)*-\d{3}$/);
    }
  });

  test.for(FAULTS.map((f) => f.name))('%s starts and shows its deviation', async (name) => {
    const probe = FAULT_PROBES[name];
    expect(probe, `a probe for ${name}`).toBeDefined();
    expect(await probe?.(await start({ fault: name }))).toBe(true);
    expect(await probe?.(await start())).toBe(false);
  });

  test('an unknown fault name is refused with the valid names', async () => {
    await expect(startReference({ fault: 'no-such-fault' })).rejects.toThrow(
      /Unknown fault "no-such-fault".*auth-query-key/,
    );
  });
});

describe('variants', () => {
  test('names are unique and distinct from fault names', () => {
    const names = VARIANTS.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(FAULTS.map((f) => f.name)).not.toContain(name);
  });

  test.for(VARIANTS.map((v) => v.name))('%s starts and shows its choice', async (name) => {
    const probe = VARIANT_PROBES[name];
    expect(probe, `a probe for ${name}`).toBeDefined();
    expect(await probe?.(await start({ variant: name }))).toBe(true);
    expect(await probe?.(await start())).toBe(false);
  });

  test('an unknown variant name is refused with the valid names', async () => {
    await expect(startReference({ variant: 'nope' })).rejects.toThrow(
      /Unknown variant "nope".*models-envelope/,
    );
  });
});
