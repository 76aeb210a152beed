import { check, expectStatus } from '../../src/suite/index.ts';

check(
  { ids: ['RSP-002'], effect: 'billable' },
  'refuses a model without native responses support when streamed',
  async (t) => {
    const model = await t.hint('no_responses');
    const res = await t.post(
      '/v1/responses',
      { model, input: 'Say ok.', max_output_tokens: 16, stream: true },
      { timeoutMs: t.target.timeouts.streamMs },
    );
    expectStatus(
      t,
      res,
      'RSP-002',
      '4xx',
      `a streamed responses call for ${model} (no native responses support)`,
    );
  },
);
