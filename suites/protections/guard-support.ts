/** A protection's 429 as the suites judge it ("| 429 | not stated | rate limit or protection |"). */
import { apiErrorShape, type CheckContext, type HttpResponse } from '../../src/suite/index.ts';

/** A guard's 429 must have the APIError shape (ERR-001's envelope, judged under the guard's own id). */
export function guard429Shape(t: CheckContext, id: string, what: string, res: HttpResponse): void {
  const problems = apiErrorShape(res);
  t.ensure(problems.length === 0, id, `${what} lacks the APIError shape: ${problems.join('; ')}`, {
    pointer: '',
    exchange: res.exchange,
  });
}
