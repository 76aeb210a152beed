// Where the variants' branches are reached: every `isVariant(ctx, name)` of the reference is a point
// where the server would answer otherwise under that variant. A reference started with a recorder
// notes, for each request, which variants' branches it reached (also when, being plain, it took none),
// and which were reached outside any request: at start, when the app is built, per connection. The
// mutation matrix runs the plain reference so, joins the requests to the tests that sent them (their
// X-Request-ID), and runs each variant on the suite files whose tests reached it; a variant reached
// outside a request runs the whole suite.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import type { VariantName } from './faults.ts';
import type { Toggles } from './toggles.ts';

/** The request being answered (its id, the X-Request-ID it is sent with), across its async steps. */
const current = new AsyncLocalStorage<string>();
/** Not a request id: the description being built (reference/openapi.ts). */
const DESCRIPTION = Symbol('description');
const building = new AsyncLocalStorage<typeof DESCRIPTION>();

export class ReachRecorder {
  /** Request id -> the variants whose branches the request reached. */
  readonly byRequest = new Map<string, Set<VariantName>>();
  /** Variants reached outside any request (at start, at build, per connection, by a timer). */
  readonly outside = new Set<VariantName>();
  /** Variants reached while the description was built: each describes itself in it. */
  readonly described = new Set<VariantName>();

  note(name: VariantName): void {
    if (building.getStore() === DESCRIPTION) {
      this.described.add(name);
      return;
    }
    const id = current.getStore();
    if (id === undefined) {
      this.outside.add(name);
      return;
    }
    const set = this.byRequest.get(id) ?? new Set<VariantName>();
    set.add(name);
    this.byRequest.set(id, set);
  }
}

/** Whether the server runs under variant `name` (and, with a recorder, that this point was reached). */
export function isVariant(t: Toggles | undefined, name: VariantName): boolean {
  t?.reach?.note(name);
  return t?.variant === name;
}

/**
 * Every request's steps run with its id as the current request: from the first hook (before the other
 * hooks, which the app registers after), and again once the body is parsed (the parser's stream events
 * come from the connection, not from the request).
 */
export function registerReach(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => current.run(request.id, done));
  app.addHook('preValidation', (request, _reply, done) => current.run(request.id, done));
}

/** Builds the description: the branches it reaches are the variants' own descriptions (`described`). */
export function describing<T>(build: () => T): T {
  return building.run(DESCRIPTION, build);
}
