// In-memory accounts, keys and catalogs of one reference server run. Keys are random per start.
import { randomBytes } from 'node:crypto';
import { BlockList } from 'node:net';
import { Decimal } from 'decimal.js';
import { ROLE_NAMES } from './fixtures.ts';
import { isVariant } from './reach.ts';
import type { Toggles } from './toggles.ts';

export type Scope = 'models' | 'inference' | 'media' | 'support' | 'usage' | 'balance';

export interface TextModel {
  id: string;
  capabilities: string[];
  contextLength: number;
  /** Absent when points configuration is unavailable. */
  prices?: Prices;
}

export interface Prices {
  request: string;
  response: string;
}

/** One settled inference call; `prices` is the snapshot valid when the request was confirmed. */
export interface UsageRecord {
  id: string;
  requestId: string;
  endpoint: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  prices: Prices;
  chargedPoints: string;
  createdAt: string;
  /** A media job's record (judging.md: "every billable call (chat, responses, embeddings, a media job)"). */
  jobId?: string;
  /** Listed before its job settled (variants usage-job-record-early, usage-job-record-bare). */
  unsettled?: true;
}

export interface LedgerEntry {
  id: string;
  /** release: a media job's hold given back when it fails. */
  type: 'top_up' | 'hold' | 'charge' | 'release';
  amountPoints: string;
  heldChangePoints: string;
  balanceAfterPoints: string;
  usageId: string | null;
  createdAt: string;
}

/** A settled call kept for Idempotency-Key replays: the request's fingerprint and its result. */
export interface StoredCall {
  fingerprint: string;
  result: unknown;
}

export interface Account {
  id: string;
  kind: 'personal' | 'enterprise';
  catalog: TextModel[];
  totalPoints: string;
  heldPoints: string;
  inputQuotaBytes: number;
  requestsPerMinute?: number;
  /** The tokens-per-minute guard (guards.ts): tokens of settled calls in the last minute, at most this. */
  tokensPerMinute?: number;
  /** The concurrency guard (guards.ts): billable calls in flight at once, at most this. */
  concurrency?: number;
  /** The spend guard (guards.ts): points charged since the account was made, at most this. */
  spendLimitPoints?: string;
  /** What the guards count (guards.ts): settled calls' tokens by time, points charged, calls in flight. */
  spent: { tokens: Array<{ at: number; tokens: number }>; points: string; inFlight: number };
  /** Oldest first. */
  usage: UsageRecord[];
  /** Oldest first. */
  ledger: LedgerEntry[];
  /** By Idempotency-Key value: keys are per account. */
  idempotency: Map<string, StoredCall>;
}

export interface ApiKey {
  value: string;
  /** The role it is handed out under; undefined for keys the caller never sees. */
  role?: string;
  account: Account;
  /** Undefined = every scope. */
  scopes?: Scope[];
  expiresAt?: number;
  revoked?: boolean;
  allowlist?: BlockList;
}

export interface State {
  models: TextModel[];
  accounts: Account[];
  /** By exact key value. */
  keys: Map<string, ApiKey>;
  /** Role -> key value, every role of fixtures/roles.yaml. */
  roleKeys: Record<string, string>;
  hints: Record<string, string>;
}

const GIB = 1024 ** 3;

type CatalogName = 'standard' | 'enterprise' | 'empty';

interface AccountSpec {
  kind: Account['kind'];
  catalog: CatalogName;
  total: string;
  held: string;
  inputQuotaBytes?: number;
  requestsPerMinute?: number;
  tokensPerMinute?: number;
  concurrency?: number;
  /** The spend guard, as the cost of this many tokens at the chat model's prices (both directions). */
  spendLimitTokens?: number;
}

const ACCOUNTS = {
  primary: { kind: 'personal', catalog: 'standard', total: '1000.50', held: '12.25' },
  // The role isolated: the primary account's twin that only the balance checks use.
  isolated: { kind: 'personal', catalog: 'standard', total: '1000.50', held: '12.25' },
  other: { kind: 'personal', catalog: 'standard', total: '500', held: '0' },
  enterprise: { kind: 'enterprise', catalog: 'enterprise', total: '250000.00', held: '1500.5' },
  revoked: { kind: 'personal', catalog: 'standard', total: '100', held: '0' },
  no_models: { kind: 'personal', catalog: 'empty', total: '100', held: '0' },
  poor: { kind: 'personal', catalog: 'standard', total: '0.01', held: '0' },
  quota_nearly_full: {
    kind: 'personal',
    catalog: 'standard',
    total: '1000',
    held: '0',
    inputQuotaBytes: 4096,
  },
  ticket_limit: { kind: 'personal', catalog: 'standard', total: '100', held: '0' },
  ratelimited: { kind: 'personal', catalog: 'standard', total: '1000', held: '0', requestsPerMinute: 5 },
  // The other three guards, each low on an account of its own (guards.ts): a chat call of the suite's
  // (about 10 prompt and 16 completion tokens) meets each within a few calls.
  tokens_limited: { kind: 'personal', catalog: 'standard', total: '1000', held: '0', tokensPerMinute: 100 },
  concurrency_limited: { kind: 'personal', catalog: 'standard', total: '1000', held: '0', concurrency: 2 },
  spend_limited: { kind: 'personal', catalog: 'standard', total: '1000', held: '0', spendLimitTokens: 60 },
} satisfies Record<string, AccountSpec>;

type AccountName = keyof typeof ACCOUNTS;

interface KeySpec {
  account: AccountName;
  scopes?: Scope[];
  expired?: boolean;
  revoked?: boolean;
  allowlist?: string;
}

// The enterprise account holds exactly its 10 allowed named keys.
const ROLES: Record<string, KeySpec> = {
  primary: { account: 'primary' },
  isolated: { account: 'isolated' },
  other_tenant: { account: 'other' },
  enterprise: { account: 'enterprise' },
  enterprise_second: { account: 'enterprise' },
  restricted_models: { account: 'enterprise', scopes: ['models'] },
  restricted_inference: { account: 'enterprise', scopes: ['inference'] },
  restricted_media: { account: 'enterprise', scopes: ['media'] },
  restricted_support: { account: 'enterprise', scopes: ['support'] },
  restricted_usage: { account: 'enterprise', scopes: ['usage'] },
  restricted_balance: { account: 'enterprise', scopes: ['balance'] },
  expired: { account: 'enterprise', expired: true },
  ip_blocked: { account: 'enterprise', allowlist: '203.0.113.0/24' },
  revoked: { account: 'revoked', revoked: true },
  no_models: { account: 'no_models' },
  poor: { account: 'poor' },
  quota_nearly_full: { account: 'quota_nearly_full' },
  ticket_limit: { account: 'ticket_limit' },
  ratelimited: { account: 'ratelimited' },
  tokens_limited: { account: 'tokens_limited' },
  concurrency_limited: { account: 'concurrency_limited' },
  spend_limited: { account: 'spend_limited' },
};

// Variant account-runs-out: a primary account of 50 points, which a whole run spends long before its end.
const RUNS_OUT_BALANCE = { total: '50', held: '0' };
const FRACTIONAL_BALANCE = { total: '1234567.123456789012', held: '0.123456789012345678' };

type ModelSet = Record<
  'chat' | 'noResponses' | 'embedding' | 'unpriced' | 'premium' | 'premiumEmbedding',
  TextModel
>;

function textModels(toggles: Toggles): ModelSet {
  const fractional = isVariant(toggles, 'fractional-prices');
  const price = (request: string, response: string, requestFr: string, responseFr: string) =>
    fractional ? { request: requestFr, response: responseFr } : { request, response };
  const models: ModelSet = {
    chat: {
      id: 'tx-chat-1',
      capabilities: ['chat', 'responses'],
      contextLength: 128000,
      prices: price('0.75', '2.5', '0.000001234567891234', '0.000003703703673702'),
    },
    noResponses: {
      id: 'tx-chat-2',
      capabilities: ['chat'],
      contextLength: 32768,
      prices: price('0.5', '1.5', '0.000000512345678901', '0.0000015'),
    },
    embedding: {
      id: 'tx-embed-1',
      capabilities: ['embedding'],
      contextLength: 8192,
      prices: price('0.02', '0.02', '0.000000021234567891', '0.000000021234567891'),
    },
    unpriced: { id: 'tx-chat-unpriced', capabilities: ['chat'], contextLength: 32768 },
    premium: {
      id: 'tx-chat-premium',
      capabilities: ['chat', 'responses'],
      contextLength: 200000,
      prices: price('12', '36', '12.000012345678901234', '36.123456789'),
    },
    // Outside the standard catalog like premium, but an embedding model: the forbidden_embedding hint.
    premiumEmbedding: {
      id: 'tx-embed-premium',
      capabilities: ['embedding'],
      contextLength: 8192,
      prices: price('0.5', '0.5', '0.500000001234567891', '0.500000001234567891'),
    },
  };
  if (isVariant(toggles, 'long-ids')) {
    // Contract-silent: ids are opaque; about 120 bytes each, still unique.
    for (const model of Object.values(models)) {
      model.id = `${model.id}.${'long-logical-model-identifier-'.repeat(5)}`.slice(0, 120);
    }
  }
  return models;
}

/** What `tokens` tokens each way cost at a model's prices (a spend guard's limit), as a decimal string. */
function spendOf(model: TextModel, tokens: number): string {
  const prices = model.prices ?? { request: '0', response: '0' };
  return new Decimal(prices.request).plus(prices.response).times(tokens).div(1_000_000).toFixed();
}

export function createState(toggles: Toggles): State {
  const m = textModels(toggles);
  const standard = [m.chat, m.noResponses, m.embedding, m.unpriced];
  const catalogs: Record<CatalogName, TextModel[]> = {
    standard: toggles.fault === 'models-forbidden-listed' ? [...standard, m.premium] : standard,
    enterprise: [...standard, m.premium, m.premiumEmbedding],
    empty: [],
  };

  const accounts = {} as Record<AccountName, Account>;
  for (const name of Object.keys(ACCOUNTS) as AccountName[]) {
    const spec: AccountSpec = ACCOUNTS[name];
    const balance =
      isVariant(toggles, 'fractional-prices') && name !== 'poor'
        ? FRACTIONAL_BALANCE
        : (isVariant(toggles, 'account-runs-out') ||
              isVariant(toggles, 'runs-out-refused-403') ||
              isVariant(toggles, 'unaffordable-job-402')) &&
            name === 'primary'
          ? RUNS_OUT_BALANCE
          : spec;
    accounts[name] = {
      id: `acct_${name}`,
      kind: spec.kind,
      catalog: catalogs[spec.catalog],
      totalPoints: balance.total,
      heldPoints: balance.held,
      // Variant quota-left-unstated: the nearly full account has 1 MiB left, and the suite is not told.
      inputQuotaBytes:
        name === 'quota_nearly_full' && isVariant(toggles, 'quota-left-unstated')
          ? 1024 * 1024
          : (spec.inputQuotaBytes ?? 10 * GIB),
      requestsPerMinute: spec.requestsPerMinute,
      tokensPerMinute: spec.tokensPerMinute,
      concurrency: spec.concurrency,
      spendLimitPoints:
        spec.spendLimitTokens === undefined ? undefined : spendOf(m.chat, spec.spendLimitTokens),
      spent: { tokens: [], points: '0', inFlight: 0 },
      usage: [],
      ledger: openingLedger(`acct_${name}`, balance.total, balance.held),
      idempotency: new Map(),
    };
  }

  const keys = new Map<string, ApiKey>();
  const roleKeys: Record<string, string> = {};
  const add = (key: Omit<ApiKey, 'value'>) => {
    const value = `sk-ref-${randomBytes(20).toString('hex')}`;
    keys.set(value, { value, ...key });
    return value;
  };
  for (const role of ROLE_NAMES) {
    const spec = ROLES[role];
    if (!spec) throw new Error(`reference: no key specification for role "${role}" of fixtures/roles.yaml`);
    roleKeys[role] = add({
      role,
      account: accounts[spec.account],
      scopes: spec.scopes,
      revoked: spec.revoked,
      expiresAt: spec.expired ? Date.now() - 24 * 3600 * 1000 : undefined,
      allowlist: spec.allowlist ? blockList(spec.allowlist) : undefined,
    });
  }
  // "a revoked key whose account still has a working key": that one is never handed out.
  add({ account: accounts.revoked });

  const hints: Record<string, string> = {
    chat: m.chat.id,
    embedding: m.embedding.id,
    responses: m.chat.id,
    no_responses: m.noResponses.id,
    forbidden: m.premium.id,
    forbidden_embedding: m.premiumEmbedding.id,
    forbidden_responses: m.premium.id,
  };
  return { models: Object.values(m), accounts: Object.values(accounts), keys, roleKeys, hints };
}

/**
 * The ledger that explains the seeded balance: a top-up of the whole total and, where points are
 * held, a hold that moves them to held without changing the total.
 */
function openingLedger(account: string, total: string, held: string): LedgerEntry[] {
  const createdAt = new Date().toISOString();
  const entries: LedgerEntry[] = [
    {
      id: `le_${account}_opening`,
      type: 'top_up',
      amountPoints: total,
      heldChangePoints: '0',
      balanceAfterPoints: total,
      usageId: null,
      createdAt,
    },
  ];
  if (Number(held) !== 0) {
    entries.push({
      id: `le_${account}_hold`,
      type: 'hold',
      amountPoints: '0',
      heldChangePoints: held,
      balanceAfterPoints: total,
      usageId: null,
      createdAt,
    });
  }
  return entries;
}

function blockList(cidr: string): BlockList {
  const [address, prefix] = cidr.split('/');
  const list = new BlockList();
  list.addSubnet(address as string, Number(prefix), 'ipv4');
  return list;
}
