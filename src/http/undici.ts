/**
 * The two parts of undici the client uses, its Agent and its request, loaded without the rest of the
 * package: undici's index also loads fetch, WebSocket, the mocks and the cache stores, about three times
 * as long (0.17 s against 0.055 s on the 2-core machine), paid by the CLI and by every worker thread of
 * every run. test/unit/undici-parts.test.ts checks that they are the package's own: an undici that moves
 * them fails it, not a run.
 */
import { createRequire } from 'node:module';
import type { Dispatcher, Agent as UndiciAgent } from 'undici';

const require = createRequire(import.meta.url);
export const Agent: typeof UndiciAgent = require('undici/lib/dispatcher/agent.js');
export type Agent = UndiciAgent;
const dispatchRequest = require('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  opts: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/** undici's `request(url, options)`, through the dispatcher the options name. */
export function request(
  url: URL,
  opts: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = opts;
  return dispatchRequest.call(dispatcher, {
    ...rest,
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
  });
}
