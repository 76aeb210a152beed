import { check, expectStatus, refusalControl } from '../../src/suite/index.ts';

check(
  { ids: ['RSP-002'], effect: 'billable' },
  'refuses a model without native responses support when streamed',
  async (t) => {
    const model = await t.hint('no_responses');
    const streamed = (m: string) =>
      t.post(
        '/v1/responses',
        { model: m, input: 'Say ok.', max_output_tokens: 16, stream: true },
        { timeoutMs: t.target.timeouts.streamMs },
      );
    const res = await streamed(model);
    const refused = expectStatus(
      t,
      res,
      'RSP-002',
      '4xx',
      `a streamed responses call for ${model} (no native responses support)`,
    );
    // Beside the same streamed call for a model with native support, accepted.
    if (refused) {
      const native = await t.hint('responses');
      await refusalControl(t, {
        table: 'streamed responses call',
        what: `the same streamed responses call for ${native} (native responses support)`,
        send: () => streamed(native),
      });
    }
  },
);
