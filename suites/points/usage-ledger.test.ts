import { type CheckContext, check, isSuccess, listedRecords } from '../../src/suite/index.ts';
import { judgeRecordTokens } from './records-support.ts';

async function read(t: CheckContext, path: string, id: string) {
  const res = await t.get(path);
  t.ensure(isSuccess(res.status) && res.json !== undefined, id, `GET ${path} did not answer 2xx JSON`, {
    received: `${res.status} ${res.mediaType ?? ''}`,
    expected: '2xx application/json',
    exchange: res.exchange,
  });
  return res;
}

check({ ids: ['USAGE-001'], effect: 'read' }, 'lists per-request usage', async (t) => {
  await read(t, '/v1/usage', 'USAGE-001');
});

check({ ids: ['LEDGER-001'], effect: 'read' }, 'lists the public record of fund movements', async (t) => {
  await read(t, '/v1/ledger', 'LEDGER-001');
});

check(
  { ids: ['PTS-004', 'PTS-001', 'PTS-003'], effect: 'billable' },
  'answers chat, a streamed responses call, usage, ledger and balance with *_points fields only, in service_points',
  async (t) => {
    // The per-exchange points checks judge every reply (a stream's events too: the terminal event of
    // /v1/responses carries the response and its billing); this test makes sure each interface is read.
    const model = await t.hint('chat');
    await t.post('/v1/chat/completions', {
      model,
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 2,
    });
    await t.post(
      '/v1/responses',
      { model: await t.hint('responses'), input: 'Say ok.', max_output_tokens: 16, stream: true },
      { timeoutMs: t.target.timeouts.streamMs },
    );
    for (const p of ['/v1/usage', '/v1/ledger', '/v1/balance']) await t.get(p);
  },
);

check({ ids: ['PTS-005'], effect: 'read' }, 'keeps token counts of usage records as integers', async (t) => {
  const res = await read(t, '/v1/usage', 'USAGE-001');
  // Every token count the list shows (the one judgement a capture's usage listings get too).
  if (!judgeRecordTokens(t, listedRecords(res.json), res.exchange))
    return t.skip(
      'the usage list shows no token count (no field ending in _tokens): nothing for PTS-005 to judge',
      {
        kind: 'precondition',
        subject: 'a token count in the usage list',
      },
    );
});
