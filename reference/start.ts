// Programmatic entry point of the reference server.
import { buildApp, CAPABILITIES } from './app.ts';
import { parseFault, parseVariant } from './faults.ts';
import { createState } from './state.ts';

export { FAULTS, VARIANTS } from './faults.ts';

export interface ReferenceOptions {
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  latencyMs?: number;
  fault?: string;
  variant?: string;
  logger?: boolean;
}

export interface ReferenceHandle {
  url: string;
  /** Role -> key value, every role of fixtures/roles.yaml. */
  keys: Record<string, string>;
  /** chat, embedding, responses, no_responses, forbidden -> model id. */
  hints: Record<string, string>;
  capabilities: string[];
  close(): Promise<void>;
}

export async function startReference(opts: ReferenceOptions = {}): Promise<ReferenceHandle> {
  const toggles = { fault: parseFault(opts.fault), variant: parseVariant(opts.variant) };
  const state = createState(toggles);
  const app = buildApp({ ...toggles, state }, { latencyMs: opts.latencyMs, logger: opts.logger });
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
    close: () => app.close(),
  };
}
