import { type CheckContext, caseTableChecks, fieldPropertyChecks, rules } from '../../src/suite/index.ts';

const PATH = '/v1/chat/completions';

async function base(t: CheckContext): Promise<Record<string, unknown>> {
  return { model: await t.hint('chat'), messages: [{ role: 'user', content: 'Say ok.' }], max_tokens: 2 };
}

caseTableChecks({ table: 'chat', effect: 'billable', path: PATH, base });

fieldPropertyChecks({
  effect: 'billable',
  path: PATH,
  base,
  fields: [
    {
      id: 'CHAT-005',
      field: 'temperature',
      arbitrary: rules.rangeParameter(rules.TEMPERATURE.min, rules.TEMPERATURE.max),
      examples: rules.rangeExamples(rules.TEMPERATURE.min, rules.TEMPERATURE.max),
    },
    {
      id: 'CHAT-006',
      field: 'top_p',
      arbitrary: rules.rangeParameter(rules.TOP_P.min, rules.TOP_P.max),
      examples: rules.rangeExamples(rules.TOP_P.min, rules.TOP_P.max),
    },
    {
      id: 'CHAT-007',
      field: 'max_tokens',
      arbitrary: rules.maxTokens(),
      examples: rules.maxTokensExamples(),
    },
  ],
});
