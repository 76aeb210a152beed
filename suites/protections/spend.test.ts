import { check, isSuccess } from '../../src/suite/index.ts';

check(
  { ids: ['ERR-001'], effect: 'billable', roles: ['poor'], judges429: true },
  'refuses a chat call the account cannot cover with the APIError object, if it refuses it',
  async (t) => {
    const body = {
      model: await t.hint('chat'),
      messages: [{ role: 'user', content: 'Say ok.' }],
      max_tokens: 4096,
    };
    // The body of a refusal is judged on every exchange (ERR-001); whether a call the balance cannot
    // cover is refused at all is not stated (points "may be fractional or negative").
    const res = await t.post('/v1/chat/completions', body, { as: 'poor', retry429: false });
    if (isSuccess(res.status))
      t.skip(`the poor account's chat call was answered ${res.status}: no spend refusal was met`);
  },
);
