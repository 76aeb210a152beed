import type { FastifyRequest } from 'fastify';
import type { ApiKey } from '../state.ts';

/** The key the auth hook accepted; business routes only run after it did. */
export function callerOf(request: FastifyRequest): ApiKey {
  if (!request.caller) throw new Error('reference: business route reached without an authenticated caller');
  return request.caller;
}
