/** The shared endpoint table (fixtures/endpoints.yaml) and probes built from it. */
import { randomUUID } from 'node:crypto';
import { businessEndpoints, type Endpoint, label } from '../endpoint-table.ts';
import type { CheckContext, Req } from '../runtime/check.ts';

export {
  businessEndpoints,
  concretePath,
  contractPathOf,
  type Endpoint,
  endpointOf,
  endpoints,
  label,
} from '../endpoint-table.ts';

/** The calls that stream (`stream` true in the body). */
const STREAMED = ['/v1/chat/completions', '/v1/responses'];

/**
 * Every business endpoint as `METHOD /path`, and after them the streamed form of the calls that stream,
 * an equivalent form of the same endpoint: its probe body with `stream` true, named
 * `METHOD /path (streamed)`. A streaming handler is often a route of its own, so what is judged on the
 * call (its key, its scope) is judged there too.
 */
export function businessForms(): Array<{ e: Endpoint; name: string }> {
  const plain = businessEndpoints();
  const streamed = plain
    .filter((e) => e.method === 'POST' && STREAMED.includes(e.path) && e.probe?.json)
    .map((e) => ({
      e: { ...e, probe: { ...e.probe, json: { ...(e.probe!.json as object), stream: true } } },
      name: `${label(e)} (streamed)`,
    }));
  return [...plain.map((e) => ({ e, name: label(e) })), ...streamed];
}

/**
 * A valid request for an endpoint (model placeholders such as `{chat}` filled from the target's hints),
 * so that a probe differs from a good request only where the probe means it to.
 */
export async function probeRequest(t: CheckContext, e: Endpoint): Promise<Req> {
  const p = e.probe;
  if (!p) return {};
  const keyed = idempotencyHeader(e);
  if (p.base64 !== undefined) {
    return {
      body: Buffer.from(p.base64, 'base64'),
      headers: { 'content-type': p.content_type ?? 'application/octet-stream', ...keyed },
    };
  }
  let json = JSON.stringify(p.json);
  for (const m of json.matchAll(/"\{(chat|embedding|responses|no_responses|forbidden)\}"/g)) {
    json = json.replace(m[0], JSON.stringify(await t.hint(m[1] as 'chat')));
  }
  return { json: JSON.parse(json), ...(Object.keys(keyed).length > 0 ? { headers: keyed } : {}) };
}

/** The requests that carry an Idempotency-Key: "sent on chat, responses, media input upload and media job creation". */
const KEYED = ['/v1/chat/completions', '/v1/responses', '/v1/media/inputs', '/v1/media/jobs'];

/**
 * A fresh Idempotency-Key for a request to one of KEYED (none for the others): the upload lists it among
 * its headers, so a probe meant to be refused for its key or scope carries it, as a valid request does,
 * and a server that asks for it before judging the key still judges the key.
 */
export function idempotencyHeader(e: Pick<Endpoint, 'method' | 'path'>): Record<string, string> {
  return e.method === 'POST' && KEYED.includes(e.path)
    ? { 'idempotency-key': `conformance-probe-${randomUUID()}` }
    : {};
}
