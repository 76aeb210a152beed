/**
 * Captures of traffic recorded with the suite's own HTTP layer (src/http/client.ts) against the
 * reference, optionally with a fault: one short session of a client (description, catalogs, chat with
 * a replayed Idempotency-Key, out-of-range parameters and other bodies the contract refuses, a responses
 * stream, media jobs polled to their end, the asset) written as HAR 1.2, for check-traffic to judge.
 */
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startReference } from '../reference/start.ts';
import { HttpClient, type HttpResponse, type RequestSpec } from '../src/http/client.ts';
import { Redactor } from '../src/http/redact.ts';
import { harDocument, harEntry } from '../src/traffic/har-write.ts';

const ACK = { provider_processing_acknowledged: true };

/** Record the session against a reference started with `fault` (if any); the HAR is written to `file`. */
export async function recordCapture(
  file: string,
  fault?: string,
  variant?: string,
  /** Also write the session as the suite's own exchange log (one Exchange a line, as a live run's exchanges.ndjson). */
  exchangesFile?: string,
): Promise<{ keys: Record<string, string> }> {
  const ref = await startReference({
    ...(fault ? { fault } : {}),
    ...(variant ? { variant } : {}),
    mediaStepMs: 20,
  });
  const entries: unknown[] = [];
  const exchanges: string[] = [];
  const client = new HttpClient({ baseUrl: ref.url, timeoutMs: 10_000, redactor: new Redactor({}) });
  const send = async (spec: RequestSpec): Promise<HttpResponse> => {
    const res = await client.send(spec);
    entries.push(harEntry(ref.url, spec, res));
    exchanges.push(`${JSON.stringify(res.exchange)}\n`);
    return res;
  };
  const as = (role = 'primary') => ({ authorization: `Bearer ${ref.keys[role]}` });
  const nonce = Math.random().toString(36).slice(2, 10);
  try {
    await send({ method: 'GET', path: '/openapi.json' });
    await send({ method: 'GET', path: '/v1/models', headers: as() });
    await send({ method: 'GET', path: '/v1/media/models', headers: as() });
    await send({ method: 'GET', path: '/v1/balance', headers: as() });
    // The same read in the legacy currency format (LEGACY-001: no points field left in it).
    await send({
      method: 'GET',
      path: '/v1/balance',
      headers: { ...as(), accept: 'application/vnd.service.currency.v1+json' },
    });
    const chat = { model: ref.hints.chat, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 };
    const keyed = { ...as(), 'idempotency-key': `chat-${nonce}` };
    await send({ method: 'POST', path: '/v1/chat/completions', headers: keyed, json: chat });
    await send({ method: 'POST', path: '/v1/chat/completions', headers: keyed, json: chat });
    await send({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: as(),
      json: { ...chat, temperature: 2.5 },
    });
    await send({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: as(),
      json: { ...chat, max_tokens: -1 },
    });
    await send({ method: 'POST', path: '/v1/chat/completions', json: chat });
    // Settled charges read, another call, read again (PTS-006).
    await send({ method: 'GET', path: '/v1/usage', headers: as() });
    await send({ method: 'POST', path: '/v1/chat/completions', headers: as(), json: chat });
    await send({ method: 'GET', path: '/v1/usage', headers: as() });
    await send({
      method: 'POST',
      path: '/v1/embeddings',
      headers: as(),
      json: { model: ref.hints.embedding, input: 'hi' },
    });
    // The catalog read again: the priced calls since the first read are judged by both (PTS-007).
    await send({ method: 'GET', path: '/v1/models', headers: as() });
    // Bodies that break a rule of their documented shape, each refused (src/rules/requests.ts).
    const refused: Array<[string, Record<string, unknown>]> = [
      ['/v1/chat/completions', { ...chat, messages: [{ role: 'user' }] }],
      ['/v1/chat/completions', { ...chat, user: 42 }],
      ['/v1/responses', { model: ref.hints.responses, input: 42 }],
      ['/v1/embeddings', { model: ref.hints.embedding, input: ['hi', 'there'] }],
      ['/v1/embeddings', { model: ref.hints.embedding, input: 'hi', extra: true }],
      [
        '/v1/support/tickets',
        { category: 'technical', subject: 'Probe', message: 'Probe.', priority: 'high' },
      ],
      ['/v1/payment-orders', { method: 'paypal', amount_cny: '100.00', note: 'probe' }],
    ];
    for (const [path, json] of refused) await send({ method: 'POST', path, headers: as(), json });
    // The usage records of the calls above, each naming its request's X-Request-ID (USAGE-080).
    await send({ method: 'GET', path: '/v1/usage', headers: as() });
    // The ledger of those charges, its running balances (LEDGER-002).
    await send({ method: 'GET', path: '/v1/ledger', headers: as() });
    await send({
      method: 'POST',
      path: '/v1/responses',
      headers: as(),
      json: { model: ref.hints.responses, input: 'hi', stream: true },
    });
    await send({
      method: 'POST',
      path: '/v1/media/jobs',
      headers: { ...as(), 'idempotency-key': `noack-${nonce}` },
      json: { model: 'wc-100010', prompt: 'a small red house', parameters: {} },
    });
    const job = { model: 'wc-100010', prompt: 'a small red house', parameters: ACK };
    // No other top-level fields (MJOB-002): refused.
    await send({ method: 'POST', path: '/v1/media/jobs', headers: as(), json: { ...job, seed: 1 } });
    const jobKey = { ...as(), 'idempotency-key': `job-${nonce}` };
    const created = await send({ method: 'POST', path: '/v1/media/jobs', headers: jobKey, json: job });
    await send({ method: 'POST', path: '/v1/media/jobs', headers: jobKey, json: job });
    const failing = await send({
      method: 'POST',
      path: '/v1/media/jobs',
      headers: { ...as(), 'idempotency-key': `fail-${nonce}` },
      json: { ...job, prompt: 'CONFORMANCE_FAIL_JOB house' },
    });
    let asset: string | undefined;
    for (const id of [created, failing].map((r) => (r.json as { id?: string } | undefined)?.id)) {
      if (!id) continue;
      // Polled to its end, then read twice more (bounded).
      let ended = 0;
      for (let i = 0; i < 60 && ended < 3; i++) {
        const read = await send({ method: 'GET', path: `/v1/media/jobs/${id}`, headers: as() });
        const body = read.json as { status?: string; asset_id?: string } | undefined;
        if (['succeeded', 'failed', 'cancelled', 'expired'].includes(body?.status ?? '')) ended++;
        if (body?.asset_id) asset = body.asset_id;
        await sleep(20);
      }
    }
    // The first create repeated once the job ended, as a client that lost its answer does (the same job).
    await send({ method: 'POST', path: '/v1/media/jobs', headers: jobKey, json: job });
    if (asset) {
      await send({ method: 'GET', path: `/v1/media/assets/${asset}`, headers: as() });
      await send({ method: 'GET', path: `/v1/media/assets/${asset}` });
      await send({ method: 'GET', path: `/v1/media/assets/${asset}`, headers: as('other_tenant') });
    }
    // The usage records of the jobs above, each naming its job (USAGE-080).
    await send({ method: 'GET', path: '/v1/usage', headers: as() });
  } finally {
    await ref.close();
  }
  writeFileSync(file, JSON.stringify(harDocument(entries), null, 1));
  if (exchangesFile) writeFileSync(exchangesFile, exchanges.join(''));
  return { keys: ref.keys };
}
