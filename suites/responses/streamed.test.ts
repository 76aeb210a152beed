import { check } from '../../src/suite/index.ts';

check(
  { ids: ['RSP-002'], effect: 'billable' },
  'refuses a model without native responses support when streamed',
  async (t) => {
    const model = await t.hint('no_responses');
    const res = await t.post(
      '/v1/responses',
      { model, input: 'Say ok.', max_output_tokens: 8, stream: true },
      { timeoutMs: t.target.timeouts.streamMs },
    );
    t.ensure(
      t.refusal(res, `a streamed responses call for ${model}`),
      'RSP-002',
      `a streamed responses call for ${model}, which lacks native responses support, was answered ${res.status}`,
      { received: res.status, expected: 'a 4xx refusal', exchange: res.exchange },
    );
  },
);
