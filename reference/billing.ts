// Points settlement of inference calls: price snapshots, holds, charges, usage records and ledger
// entries, and how they are rendered. All arithmetic is exact decimal ("Clients compute with
// decimals"), every points value leaves as a decimal string.
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { RefContext } from './context.ts';
import { isVariant } from './reach.ts';
import type { Account, LedgerEntry, Prices, State, TextModel, UsageRecord } from './state.ts';

// Enough precision that decimal strings of any realistic length stay exact.
export const Exact = Decimal.clone({ precision: 200 });

const MILLION = 1_000_000;

/** A decimal as a plain string: never exponent notation, never "-0". */
export function points(value: Decimal): string {
  return value.isZero() ? '0' : value.toFixed();
}

export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

/** (prompt × request price + completion × response price) / 1e6, exactly. */
export function cost(prices: Prices, promptTokens: number, completionTokens: number): Decimal {
  return new Exact(prices.request)
    .times(promptTokens)
    .plus(new Exact(prices.response).times(completionTokens))
    .div(MILLION);
}

export function available(account: Account): Decimal {
  return new Exact(account.totalPoints).minus(account.heldPoints);
}

export interface Call {
  endpoint: string;
  /** The catalog model that runs the call (its prices are the snapshot). */
  model: TextModel;
  /** The model id the usage record names. */
  recordedModel: string;
  requestId: string;
  promptTokens: number;
  completionTokens: number;
  /** The points held while the call ran: the quote for its largest possible completion. */
  hold: Decimal;
}

export interface Settlement {
  usageId: string;
  charged: string;
  released: string;
}

/** Test hook (ReferenceHandle.spendAll): another client spends the account's available points. */
export function spendAll(account: Account): void {
  const available = new Exact(account.totalPoints).minus(account.heldPoints);
  if (!available.isPositive()) return;
  account.totalPoints = points(new Exact(account.totalPoints).minus(available));
  account.ledger.push({
    id: newId('le_'),
    type: 'charge',
    amountPoints: points(available.neg()),
    heldChangePoints: '0',
    balanceAfterPoints: account.totalPoints,
    usageId: null,
    createdAt: new Date().toISOString(),
  });
}

/**
 * Settles one confirmed call: charges it at the price snapshot valid now, releases the rest of its
 * hold, writes one usage record and one ledger entry. The hold is taken and released within the
 * call, so the ledger entry's held change is 0 and the account's held points stay as they are.
 */
export function settle(ctx: RefContext, account: Account, call: Call): Settlement {
  const prices = snapshotOf(call.model);
  const charge = chargeOf(ctx, prices, call);
  const released = Exact.max(call.hold.minus(charge), 0);
  // Fault balance-not-settled: the balance moves by more than the charge.
  // Fault responses-balance-off: the same, for /v1/responses calls only.
  const off =
    ctx.fault === 'balance-not-settled' ||
    (ctx.fault === 'responses-balance-off' && call.endpoint === '/v1/responses');
  const debit = off ? charge.plus('0.001') : charge;
  // Fault call-hold-kept: what the call's hold did not charge is never released (held grows, total not).
  if (ctx.fault === 'call-hold-kept' && released.isPositive())
    account.heldPoints = points(new Exact(account.heldPoints).plus(released));
  // What the account's guards count (guards.ts): the call's tokens now, the points it is charged.
  if (account.tokensPerMinute !== undefined)
    account.spent.tokens.push({ at: Date.now(), tokens: call.promptTokens + call.completionTokens });
  account.spent.points = points(new Exact(account.spent.points).plus(charge));
  const total = new Exact(account.totalPoints).minus(debit);
  account.totalPoints = points(total);

  const createdAt = new Date().toISOString();
  const usage: UsageRecord = {
    id: newId('usage_'),
    requestId: call.requestId,
    endpoint: call.endpoint,
    model: call.recordedModel,
    promptTokens: call.promptTokens,
    completionTokens: call.completionTokens,
    prices,
    // Fault usage-records-hold: the usage record states the points held, not the points charged.
    chargedPoints: points(ctx.fault === 'usage-records-hold' ? Exact.max(call.hold, charge) : charge),
    createdAt,
  };
  // Fault responses-usage-unrecorded: a /v1/responses call is charged (and in the ledger) but writes no
  // usage record.
  // Fault unreported-usage-unrecorded: the same for /v1/embeddings, whose replies (as every billable
  // reply under it) report no spend.
  const unrecorded =
    (ctx.fault === 'responses-usage-unrecorded' && call.endpoint === '/v1/responses') ||
    (ctx.fault === 'unreported-usage-unrecorded' && call.endpoint === '/v1/embeddings');
  if (!unrecorded) account.usage.push(usage);
  account.ledger.push({
    id: newId('le_'),
    type: 'charge',
    amountPoints: points(charge.neg()),
    heldChangePoints: '0',
    balanceAfterPoints: account.totalPoints,
    usageId: usage.id,
    createdAt,
  });

  // Fault snapshot-drift: the chat model's price rises a little after every chat call.
  if (
    ctx.fault === 'snapshot-drift' &&
    call.endpoint === '/v1/chat/completions' &&
    call.model.id === ctx.state.hints.chat &&
    call.model.prices
  ) {
    call.model.prices = {
      request: points(new Exact(call.model.prices.request).plus('0.01')),
      response: points(new Exact(call.model.prices.response).plus('0.01')),
    };
  }
  return { usageId: usage.id, charged: points(charge), released: points(released) };
}

/**
 * What a call is charged at its price snapshot: cost(), exactly. Variant charge-rounded-up rounds it up to
 * 0.01 points (no rounding is stated). Fault charge-per-thousand reads the prices per thousand tokens;
 * fault charge-prices-swapped applies the request price to the completion and the response price to the
 * prompt.
 */
function chargeOf(ctx: RefContext, prices: Prices, call: Call): Decimal {
  if (ctx.fault === 'charge-per-thousand')
    return cost(prices, call.promptTokens, call.completionTokens).times(1000);
  if (ctx.fault === 'charge-prices-swapped')
    return cost(
      { request: prices.response, response: prices.request },
      call.promptTokens,
      call.completionTokens,
    );
  const exact = cost(prices, call.promptTokens, call.completionTokens);
  return isVariant(ctx, 'charge-rounded-up') ? exact.toDecimalPlaces(2, Decimal.ROUND_UP) : exact;
}

function snapshotOf(model: TextModel): Prices {
  if (!model.prices) throw new Error(`reference: ${model.id} has no prices to settle with`);
  return { ...model.prices };
}

/**
 * Internal hook (tests): changes a model's public price. Settled usage records keep their
 * snapshot; only later calls use the new price.
 */
export function setModelPrice(state: State, modelId: string, prices: Prices): void {
  const model = state.models.find((m) => m.id === modelId);
  if (!model) throw new Error(`reference: no model ${modelId}`);
  for (const value of [prices.request, prices.response]) {
    if (!/^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value)) throw new Error(`reference: bad price "${value}"`);
  }
  model.prices = { ...prices };
}

/** The unit the `billing` object names (fault billing-unit-credits: `credits`). */
export function billingUnit(ctx: RefContext): string {
  return ctx.fault === 'billing-unit-credits' ? 'credits' : 'service_points';
}

/**
 * Whether billable replies report no spend: variant spend-unreported (the balance shows it), and fault
 * spend-unmeasurable (nor does the balance).
 */
export const spendUnreported = (ctx: RefContext): boolean =>
  isVariant(ctx, 'spend-unreported') || ctx.fault === 'spend-unmeasurable';

/**
 * Whether inference replies carry no billing object: variant no-billing, fault
 * unreported-usage-unrecorded, and whatever reports no spend (spendUnreported).
 */
export const billingUnreported = (ctx: RefContext): boolean =>
  isVariant(ctx, 'no-billing') || ctx.fault === 'unreported-usage-unrecorded' || spendUnreported(ctx);

/**
 * A spend a billable reply reports (charged, released, pending points): faults spend-numbers and
 * points-numbers send it as a JSON number; fault spend-misreported reports a tenth of it (the account
 * pays it whole).
 */
export function spendShown(ctx: RefContext, v: string): string | number {
  if (ctx.fault === 'spend-numbers' || ctx.fault === 'points-numbers') return Number(v);
  if (ctx.fault === 'spend-misreported') return new Exact(v).dividedBy(10).toFixed();
  return v;
}

/** The `billing` object of an inference reply; undefined under variant no-billing. */
export function billingOf(ctx: RefContext, s: Settlement): Record<string, unknown> | undefined {
  if (billingUnreported(ctx)) return undefined;
  const value = (v: string) => (ctx.fault === 'chat-billing-numbers' ? Number(v) : spendShown(ctx, v));
  const unit = billingUnit(ctx);
  if (ctx.fault === 'chat-credits-names') {
    return { unit, charged_credits: value(s.charged), released_credits: value(s.released) };
  }
  return { unit, charged_points: value(s.charged), released_points: value(s.released) };
}

export function usageView(ctx: RefContext, record: UsageRecord): Record<string, unknown> {
  let charged = record.chargedPoints;
  if (ctx.fault === 'snapshot-drift' && record.jobId === undefined) {
    // The fault: recomputed from the current price instead of the snapshot.
    const current = ctx.state.models.find((m) => m.id === record.model)?.prices ?? record.prices;
    charged = points(cost(current, record.promptTokens, record.completionTokens));
  }
  // Fault usage-charge-mismatch: an embeddings record states a little more than was charged.
  if (ctx.fault === 'usage-charge-mismatch' && record.endpoint === '/v1/embeddings')
    charged = points(new Exact(charged).plus('0.000001'));
  const total = record.promptTokens + record.completionTokens;
  if (isVariant(ctx, 'usage-envelope')) {
    return {
      usage_id: record.id,
      request_ref: record.requestId,
      path: record.endpoint,
      model: record.model,
      input_tokens: record.promptTokens,
      output_tokens: record.completionTokens,
      tokens: total,
      charged_points: charged,
      timestamp: record.createdAt,
    };
  }
  // Fault usage-record-tokens-as-strings: the record's token counts as strings.
  const count = (n: number) => (ctx.fault === 'usage-record-tokens-as-strings' ? String(n) : n);
  // Variant usage-job-record-bare: a media job's record names its job only by its model and request id
  // (no job_id, no endpoint), its token counts null, its charge null until the job settles.
  if (record.jobId !== undefined && isVariant(ctx, 'usage-job-record-bare'))
    return {
      id: record.id,
      request_id: record.jobId,
      model: record.model,
      prompt_tokens: null,
      completion_tokens: null,
      total_tokens: null,
      charged_points: record.unsettled ? null : charged,
      created_at: record.createdAt,
    };
  // A media job's record: its job, no tokens; its charge under the studio's older name in variant
  // usage-studio-credits ("Studio metering fields keep the older `*_credits` names").
  if (record.jobId !== undefined)
    return {
      id: record.id,
      job_id: record.jobId,
      endpoint: record.endpoint,
      model: record.model,
      // Variant usage-job-null-tokens: a job's record gives its token counts as null (it has none).
      ...(isVariant(ctx, 'usage-job-null-tokens')
        ? { prompt_tokens: null, completion_tokens: null, total_tokens: null }
        : {}),
      ...(isVariant(ctx, 'usage-studio-credits') || isVariant(ctx, 'legacy-credits-studio')
        ? { charged_credits: charged }
        : { charged_points: charged }),
      created_at: record.createdAt,
    };
  // Variants usage-records-bare and records-bare: a call's record is its model, token counts and charge,
  // nothing more.
  if (isVariant(ctx, 'usage-records-bare') || isVariant(ctx, 'records-bare'))
    return {
      model_id: record.model,
      prompt_tokens: record.promptTokens,
      completion_tokens: record.completionTokens,
      total_tokens: total,
      charged_points: charged,
    };
  return {
    id: record.id,
    request_id: record.requestId,
    endpoint: record.endpoint,
    model: record.model,
    prompt_tokens: count(record.promptTokens),
    // Variant usage-embeddings-completion-null: an embedding has no completion ("usage": prompt_tokens
    // and total_tokens), so its record says null where a chat record counts them.
    completion_tokens:
      isVariant(ctx, 'usage-embeddings-completion-null') && record.endpoint === '/v1/embeddings'
        ? null
        : count(record.completionTokens),
    total_tokens: count(total),
    // Fault usage-call-credits: a chat call's record states its charge as charged_credits.
    ...(ctx.fault === 'usage-call-credits' && record.endpoint === '/v1/chat/completions'
      ? { charged_credits: charged }
      : { charged_points: charged }),
    // Variant usage-price-snapshot: the record shows the price snapshot it was charged at, by the points
    // table's names (which end in `_tokens` and are points values, not token counts).
    ...(isVariant(ctx, 'usage-price-snapshot')
      ? {
          request_points_per_million_tokens: record.prices.request,
          response_points_per_million_tokens: record.prices.response,
        }
      : {}),
    created_at: record.createdAt,
  };
}

export function ledgerView(ctx: RefContext, entry: LedgerEntry): Record<string, unknown> {
  let after = entry.balanceAfterPoints;
  // Fault ledger-balance-off: charge entries misstate the balance after them.
  if (ctx.fault === 'ledger-balance-off' && entry.type === 'charge')
    after = points(new Exact(after).plus('0.01'));
  // Variant records-bare: an entry is the three amounts the contract names, nothing more.
  if (isVariant(ctx, 'records-bare'))
    return {
      amount_points: entry.amountPoints,
      held_change_points: entry.heldChangePoints,
      balance_after_points: after,
    };
  return {
    id: entry.id,
    type: entry.type,
    amount_points: entry.amountPoints,
    held_change_points: entry.heldChangePoints,
    balance_after_points: after,
    usage_id: entry.usageId,
    created_at: entry.createdAt,
  };
}
