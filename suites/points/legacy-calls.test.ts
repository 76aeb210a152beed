import { check, isPlainObject } from '../../src/suite/index.ts';

import { legacyCall } from './legacy-support.ts';

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
