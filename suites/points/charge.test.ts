import { randomUUID } from 'node:crypto';
import type { Decimal } from 'decimal.js';
import {
  type CheckContext,
  chargeArithmetic,
  chargedOf,
  check,
  entryIds,
  findCatalog,
  type HttpResponse,
  isPlainObject,
  isSuccess,
  pointsFields,
} from '../../src/suite/index.ts';

interface Prices {
  request: Decimal;
  /** Absent from an entry that prices its prompt only (an embedding model: no completion to price). */
  response?: Decimal;
}

/** The model's prices in a catalog read now: undefined where its entry is missing or not priced. */
async function pricesOf(t: CheckContext, model: string): Promise<Prices | undefined> {
  const res = await t.get('/v1/models');
  if (!isSuccess(res.status)) return undefined;
  const entry = findCatalog(res.json)?.entries.find((e) => entryIds(e).includes(model));
  if (!isPlainObject(entry)) return undefined;
  // The entry's full shape is not shown: its prices may sit in an object of their own (`pricing`), the
  // response price beside the request price.
  const found = pointsFields(entry, ['request_points_per_million_tokens'])[0];
  if (!found || entry.points_configured === false || found.parent.points_configured === false)
    return undefined;
  const request = found.verdict;
  const response = pointsFields(found.parent, ['response_points_per_million_tokens']).find(
    (p) => p.parent === found.parent,
  )?.verdict;
  if (!request.ok || (response && !response.ok)) return undefined;
  return response?.ok ? { request: request.value, response: response.value } : { request: request.value };
}

interface Kind {
  call: string;
  path: string;
  hint: 'chat' | 'embedding';
  body: (model: string) => Record<string, unknown>;
  /** The reply's token counts the prices apply to: prompt, and completion (none for an embedding). */
  tokens: (usage: Record<string, unknown>) => { prompt: number; completion: number } | undefined;
}

const counts = (prompt: unknown, completion: unknown) =>
  Number.isInteger(prompt) && Number.isInteger(completion)
    ? { prompt: prompt as number, completion: completion as number }
    : undefined;

const KINDS: Kind[] = [
  {
    call: 'a chat call',
    path: '/v1/chat/completions',
    hint: 'chat',
    body: (model) => ({
      model,
      // A prompt of its own each run: no prompt cache a deployment might price apart.
      messages: [{ role: 'user', content: `Say ok, then count from one to five. ${randomUUID()}` }],
      max_tokens: 16,
    }),
    tokens: (u) => counts(u.prompt_tokens, u.completion_tokens),
  },
  {
    call: 'an embeddings call',
    path: '/v1/embeddings',
    hint: 'embedding',
    body: (model) => ({ model, input: `ok ${randomUUID()}` }),
    tokens: (u) =>
      Number.isInteger(u.total_tokens) && Number.isInteger(u.prompt_tokens)
        ? counts(u.prompt_tokens, (u.total_tokens as number) - (u.prompt_tokens as number))
        : undefined,
  },
];

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
      const same = (a?: Decimal, b?: Decimal) => (a && b ? a.equals(b) : a === b);
      if (!after || !same(after.request, before.request) || !same(after.response, before.response))
        return t.skip(`the prices of ${model} changed around the call`, precondition('prices unchanged'));
      const reply = isPlainObject(res.json) ? res.json : {};
      const charged = chargedOf(reply.billing);
      const tokens = isPlainObject(reply.usage) ? k.tokens(reply.usage) : undefined;
      if (!charged || !tokens)
        return t.skip(
          `the reply states no billing.charged_points or no usage token counts`,
          precondition('a reply with billing.charged_points and its usage'),
        );
      if (!before.response && tokens.completion > 0)
        return t.skip(
          `the catalog gives no response price for ${model}, whose reply counts ${tokens.completion} completion tokens`,
          precondition('a response price for a reply with completion tokens'),
        );
      const prices = { request: before.request, response: before.response ?? before.request.times(0) };
      const { exact, agrees } = chargeArithmetic(charged, tokens, prices);
      t.ensure(
        agrees,
        'PTS-007',
        `POST ${k.path} charged ${charged.toFixed()}, but ${tokens.prompt} prompt and ${tokens.completion} completion tokens at ${prices.request.toFixed()} and ${prices.response.toFixed()} points per million tokens cost ${exact.toFixed()}`,
        {
          pointer: '/billing/charged_points',
          received: charged.toFixed(),
          expected: `${exact.toFixed()} (rounded either way to the charge's own decimals)`,
          exchange: res.exchange,
        },
      );
    },
  );
