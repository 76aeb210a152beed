import { randomUUID } from 'node:crypto';
import {
  type CheckContext,
  callCharge,
  chargeJudgement,
  check,
  type HttpResponse,
  isSuccess,
  modelPrices,
  type Prices,
} from '../../src/suite/index.ts';

/** The model's prices in a catalog read now: undefined where its entry is missing or not priced. */
async function pricesOf(t: CheckContext, model: string): Promise<Prices | undefined> {
  const res = await t.get('/v1/models');
  return isSuccess(res.status) ? modelPrices(res.json, model) : undefined;
}

const KINDS = [
  {
    call: 'a chat call',
    path: '/v1/chat/completions',
    hint: 'chat',
    body: (model: string) => ({
      model,
      // A prompt of its own each run: no prompt cache a deployment might price apart.
      messages: [{ role: 'user', content: `Say ok, then count from one to five. ${randomUUID()}` }],
      max_tokens: 16,
    }),
  },
  {
    call: 'an embeddings call',
    path: '/v1/embeddings',
    hint: 'embedding',
    body: (model: string) => ({ model, input: `ok ${randomUUID()}` }),
  },
] as const;

const precondition = (subject: string) => ({ kind: 'precondition' as const, subject });

for (const k of KINDS)
  check(
    { ids: ['PTS-007'], effect: 'billable' },
    `charges ${k.call} its usage at the catalog prices per million tokens`,
    async (t) => {
      const model = await t.hint(k.hint);
      const before = await pricesOf(t, model);
      if (!before)
        return t.skip(`the catalog gives no prices for ${model}`, precondition('a priced catalog entry'));
      const res: HttpResponse = await t.post(k.path, k.body(model));
      if (!isSuccess(res.status)) return t.skip(`${k.call} was answered ${res.status}`);
      // "Every request is bound to the price snapshot valid when it was confirmed": the same prices read
      // before and after the call are that snapshot; a change between the reads leaves it not judged.
      const after = await pricesOf(t, model);
      const charge = callCharge(k.path, res.json);
      if (!charge)
        return t.skip(
          `the reply states no billing.charged_points or no usage token counts`,
          precondition('a reply with billing.charged_points and its usage'),
        );
      const judged = chargeJudgement(k.path, model, charge, before, after);
      if ('unjudged' in judged) return t.skip(judged.unjudged, precondition('prices unchanged, each priced'));
      const { message = '', ...where } = judged.problem ?? {};
      t.ensure(judged.problem === undefined, 'PTS-007', message, { ...where, exchange: res.exchange });
    },
  );
