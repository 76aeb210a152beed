import type { TargetConfig } from '../config/targets.ts';
import { type ClientOptions, HttpClient } from './client.ts';

/**
 * The one way a client for the target is built: its base URL, request timeout and how it sends a request
 * that is not safe to repeat (TargetConfig.unrepeatable) from the target, the
 * run's redactor, and what the caller adds (test name, gate, deadline, exchange recording, signal).
 */
export function targetClient(
  target: Pick<TargetConfig, 'baseUrl' | 'timeouts' | 'unrepeatable'>,
  redactor: ClientOptions['redactor'],
  more: Omit<ClientOptions, 'baseUrl' | 'timeoutMs' | 'redactor'> = {},
): HttpClient {
  return new HttpClient({
    baseUrl: target.baseUrl,
    timeoutMs: target.timeouts.requestMs,
    redactor,
    ...(target.unrepeatable === 'pooled' ? { pooledUnrepeatable: true } : {}),
    ...more,
  });
}
