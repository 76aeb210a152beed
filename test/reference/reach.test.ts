/**
 * reference/reach.ts: a plain reference with a recorder notes which variants' branches each request
 * reached (by the X-Request-ID it answered with), and those reached outside any request. The mutation
 * matrix plans its variant rows from it, so it must attribute a branch to the request that reached it,
 * also after the body was parsed and across the handler's awaits.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReachRecorder } from '../../reference/start.ts';
import { pkgPath } from '../../src/paths.ts';
import { call, referencePool } from './helpers.ts';

const start = referencePool();

describe('variant reach of a plain reference', () => {
  it('attributes each branch to the request that reached it, and start-time branches to none', async () => {
    const reach = new ReachRecorder();
    const ref = await start({ reach });
    // Built into the app or the state at start: reached outside any request.
    expect(reach.outside.has('long-ids')).toBe(true);
    expect(reach.outside.has('account-runs-out')).toBe(true);
    // An expired key: the 401 would be a 403 under expired-403 (reached before any body is read).
    const expired = await call(ref, '/v1/models', { role: 'expired' });
    expect(expired.status).toBe(401);
    const expiredId = expired.headers.get('x-request-id')!;
    expect(reach.byRequest.get(expiredId)?.has('expired-403')).toBe(true);
    // A posted body: branches reached after the body was parsed belong to the request too.
    const embed = await call(ref, '/v1/embeddings', {
      method: 'POST',
      role: 'primary',
      json: { model: ref.hints.embedding, input: 'hello' },
    });
    expect(embed.status).toBe(200);
    const embedId = embed.headers.get('x-request-id')!;
    expect(reach.byRequest.get(embedId)?.has('embeddings-201')).toBe(true);
    // Each request's own: the embedding request did not reach the expired-key branch.
    expect(reach.byRequest.get(embedId)?.has('expired-403')).toBe(false);
    expect(reach.byRequest.get(expiredId)?.has('embeddings-201') ?? false).toBe(false);
  });

  it('records nothing and changes nothing without a recorder', async () => {
    const ref = await start();
    const res = await call(ref, '/v1/models', { role: 'expired' });
    expect(res.status).toBe(401);
  });
});

it('every branch on a variant goes through isVariant (a bare comparison would hide it from the plan)', () => {
  const root = pkgPath('reference');
  const bare: string[] = [];
  for (const f of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!f.endsWith('.ts') || f === 'reach.ts') continue;
    readFileSync(join(root, f), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/\.variant\s*[!=]==|[!=]==\s*\w+(\?)?\.variant\b/.test(line))
          bare.push(`reference/${f}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(bare).toEqual([]);
});
