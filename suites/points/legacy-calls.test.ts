import {
  type CheckContext,
  check,
  expectStatus,
  isPlainObject,
  pointsFieldPointers,
  replyBody,
} from '../../src/suite/index.ts';

import { LEGACY, modelUnchanged } from './legacy-support.ts';

/**
 * A billable call under the legacy Accept header: its points fields (at any depth; in a streamed reply,
 * in any event's data) are violations, and the model it names is the one requested.
 */
async function legacyCall(t: CheckContext, path: string, body: { model: string } & Record<string, unknown>) {
  const res = await t.post(path, body, { headers: LEGACY });
  if (!expectStatus(t, res, 'LEGACY-001', '2xx', `POST ${path} with the legacy Accept header`))
    return undefined;
  for (const p of pointsFieldPointers(replyBody(res)))
    t.violate('LEGACY-001', `the legacy reply of POST ${path} still carries the points field ${p}`, {
      pointer: p,
      exchange: res.exchange,
      verdictCase: { wrong: 'carried', what: `${p} of POST ${path}`, family: 'legacy' },
    });
  modelUnchanged(t, res, body.model, `the reply of POST ${path}`);
  return res;
}

check(
  { ids: ['LEGACY-001', 'LEGACY-002'], effect: 'billable' },
  'replaces the points fields of an embedding reply and keeps its usage and model id',
  async (t) => {
    const res = await legacyCall(t, '/v1/embeddings', { model: await t.hint('embedding'), input: 'ok' });
    if (!res) return;
    const u = (res.json as { usage?: Record<string, unknown> } | undefined)?.usage;
    t.ensure(
      isPlainObject(u) && ['prompt_tokens', 'total_tokens'].every((k) => Number.isInteger(u[k])),
      'LEGACY-002',
      'the legacy embedding reply does not carry the usage token integers',
      { pointer: '/usage', received: u, exchange: res.exchange },
    );
  },
);

check(
  { ids: ['LEGACY-001', 'LEGACY-002'], effect: 'billable' },
  'replaces the points fields of a responses reply and keeps its model id',
  async (t) => {
    await legacyCall(t, '/v1/responses', {
      model: await t.hint('responses'),
      input: 'Say ok.',
      max_output_tokens: 16,
    });
  },
);

// "On ... inference requests": a streamed reply is one too. Its events carry the response (the terminal
// event of /v1/responses) and, where the deployment reports it there, the billing.
check(
  { ids: ['LEGACY-001'], effect: 'billable' },
  'replaces the points fields of a streamed chat reply and a streamed responses reply',
  async (t) => {
    await legacyCall(t, '/v1/chat/completions', {
      model: await t.hint('chat'),
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 2,
      stream: true,
    });
    await legacyCall(t, '/v1/responses', {
      model: await t.hint('responses'),
      input: 'Say ok.',
      max_output_tokens: 16,
      stream: true,
    });
  },
);
