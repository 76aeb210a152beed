import {
  check,
  concretePath,
  type Endpoint,
  endpoints,
  expectStatus,
  group,
  routeControl,
} from '../../src/suite/index.ts';

type Effect = Endpoint['effect'];

/** The methods a known path is called with when the endpoint table does not give them to it. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Why a (method, path) pair is not probed (ERR-070's readings): "any other media endpoint" exists
 * unshown, and a compatible gateway may list stored completions, responses or orders.
 */
function excluded(method: string, path: string): string | undefined {
  if (path.startsWith('/v1/media/'))
    return 'Listing or cancelling media jobs and any other media endpoint are not shown';
  if (method === 'GET' && ['/v1/chat/completions', '/v1/responses', '/v1/payment-orders'].includes(path))
    return 'a listing of stored calls or orders is a compatible extension';
  return undefined;
}

/** Each known path with the methods the table gives it. */
function paths(): Array<{ path: string; given: Endpoint[] }> {
  const byPath = new Map<string, Endpoint[]>();
  for (const e of endpoints()) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  return [...byPath].map(([path, given]) => ({ path, given }));
}

/**
 * The side-effect class of a wrong-method probe if the target wrongly acts on it: a GET reads, any
 * other method is at least a write, and a path whose own endpoint bills or files something keeps that class.
 */
function effectOf(method: string, given: Endpoint[]): Effect {
  if (method === 'GET') return 'read';
  return given.find((e) => e.effect !== 'read')?.effect ?? 'write';
}

for (const { path, given } of paths()) {
  const public_ = given.every((e) => e.public);
  group(path, () => {
    for (const method of METHODS) {
      if (given.some((e) => e.method === method) || excluded(method, path)) continue;
      check(
        { ids: ['ERR-070', 'ERR-001'], effect: effectOf(method, given) },
        `refuses ${method} ${path}, a method the endpoint table does not give the path`,
        async (t) => {
          // A target that answers nothing on the path refuses every method: the refusal stands beside a
          // call of a method the table gives the path, answered 2xx anywhere in the run (no call is made
          // for it here: the endpoint's own tests are the control).
          t.standBeside(
            routeControl(path),
            `a call of ${path} with a method the endpoint table gives it (${given.map((e) => e.method).join(', ')}), answered 2xx`,
          );
          const res = await t.request(method, concretePath(given[0]!), {
            ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }),
            ...(public_ ? { as: 'none' as const } : {}),
          });
          expectStatus(t, res, 'ERR-070', '4xx', `${method} ${path}`, {
            expected: 'a 4xx refusal (404 or 405)',
          });
        },
      );
    }
  });
}
