// Programmatic entry point of the reference server.
import { buildApp, CAPABILITIES } from './app.ts';
import { Exact, setModelPrice, spendAll } from './billing.ts';
import type { HoldHook } from './context.ts';
import { FAULTS as FAULT_LIST, parseFault, parseVariant } from './faults.ts';
import { CANARIES } from './internal.ts';
import type { JobDurations } from './media/store.ts';
import { isVariant, type ReachRecorder } from './reach.ts';
import { PAYMENT_MIN_CNY } from './routes/payments.ts';
import { createState, type Prices } from './state.ts';

export { FAULTS, VARIANTS } from './faults.ts';
export { ReachRecorder } from './reach.ts';

export interface ReferenceOptions {
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  latencyMs?: number;
  fault?: string;
  variant?: string;
  logger?: boolean;
  /** Duration of each media job stage; default 150 ms (a job succeeds after 4 stages). */
  mediaStepMs?: number;
  /**
   * Whole-job durations by output kind, e.g. { image: 20_000, video: 60_000 } for real generation
   * times (each of the 4 stages takes a quarter); kinds not given take 4 x mediaStepMs.
   */
  mediaJobMs?: JobDurations;
  /** A requests-per-minute guard on every account (see RefContext.rateLimitPerMinute). */
  rateLimitPerMinute?: number;
  /** Fault transport-hang: how long the server holds a hanging request's socket; default 120 s. */
  hangLimitMs?: number;
  /** Race faults: the delay window between a check and the write that depends on it; default 200 ms. */
  raceWindowMs?: number;
  /**
   * Media job prices: `flat` (default) per output kind; `scaled` by duration x resolution (audio extra)
   * for video and by pixels and quality for images, like a real deployment's price list.
   */
  mediaPricing?: 'flat' | 'scaled';
  /** Notes where the variants' branches are reached (reference/reach.ts): the mutation matrix's plan. */
  reach?: ReachRecorder;
  /** Test hook: sees each media job the reference accepted before its hold (HoldHook). */
  beforeHold?: HoldHook;
}

export interface ReferenceHandle {
  url: string;
  /** Role -> key value, every role of fixtures/roles.yaml. */
  keys: Record<string, string>;
  /** chat, embedding, responses, no_responses, forbidden -> model id. */
  hints: Record<string, string>;
  capabilities: string[];
  /** Strings no response may contain (upstream key prefixes, internal node names): a target's `canaries`. */
  canaries: string[];
  /**
   * Configured limits a target file declares: the payment-order minimum (exclusive), in CNY; the media
   * input quota the quota_nearly_full account has left, in bytes.
   */
  limits: { payment_min_cny?: string; quota_nearly_full_bytes?: string };
  /** Internal hook for tests: changes a model's public price (settled usage keeps its snapshot). */
  setPrice(modelId: string, prices: Prices): void;
  /**
   * Internal hook for tests: a role's account's true available points (total - held), whatever
   * GET /v1/balance shows under a fault: what the account really lost is measured by this.
   */
  trueAvailable(role: string): string;
  /**
   * Internal hook for tests: another user of the role's account spends all its available points at once
   * (a charge in its ledger), as a drain by another client would.
   */
  spendAll(role: string): void;
  close(): Promise<void>;
}

export async function startReference(opts: ReferenceOptions = {}): Promise<ReferenceHandle> {
  const fault = parseFault(opts.fault);
  const patch = FAULT_LIST.find((f) => f.name === fault)?.patch;
  const toggles = {
    fault,
    variant: parseVariant(opts.variant),
    ...(patch ? { patch } : {}),
    ...(opts.reach ? { reach: opts.reach } : {}),
  };
  const state = createState(toggles);
  const app = buildApp(
    {
      ...toggles,
      state,
      ...(opts.raceWindowMs !== undefined ? { raceWindowMs: opts.raceWindowMs } : {}),
      ...(opts.mediaPricing ? { mediaPricing: opts.mediaPricing } : {}),
      ...(opts.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: opts.rateLimitPerMinute } : {}),
      ...(opts.beforeHold ? { beforeHold: opts.beforeHold } : {}),
    },
    {
      latencyMs: opts.latencyMs,
      logger: opts.logger,
      mediaStepMs: opts.mediaStepMs,
      ...(opts.mediaJobMs ? { mediaJobMs: opts.mediaJobMs } : {}),
      hangLimitMs: opts.hangLimitMs,
    },
  );
  const accountOf = (role: string) => {
    const account = state.keys.get(state.roleKeys[role] ?? '')?.account;
    if (!account) throw new Error(`reference: no role ${role}`);
    return account;
  };
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ port: opts.port ?? 0, host });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('reference: no TCP address');
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    keys: { ...state.roleKeys },
    hints: { ...state.hints },
    capabilities: [...CAPABILITIES],
    canaries: [...CANARIES],
    // Variant payment-min-unstated: the deployment's minimum is not published to the suite.
    limits: {
      ...(isVariant(toggles, 'payment-min-unstated') ? {} : { payment_min_cny: PAYMENT_MIN_CNY }),
      ...(isVariant(toggles, 'quota-left-unstated')
        ? {}
        : { quota_nearly_full_bytes: String(accountOf('quota_nearly_full').inputQuotaBytes) }),
    },
    setPrice: (modelId, prices) => setModelPrice(state, modelId, prices),
    trueAvailable: (role) => {
      const account = accountOf(role);
      return new Exact(account.totalPoints).minus(account.heldPoints).toFixed();
    },
    spendAll: (role) => spendAll(accountOf(role)),
    close: () => app.close(),
  };
}
