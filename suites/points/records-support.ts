import { type CheckContext, type Role, readWholeList } from '../../src/suite/index.ts';

/**
 * A read of usage or ledger, whole (every page, in whichever order it is served); undefined when it was
 * not answered 2xx (USAGE-001 and LEDGER-001 judge that) or could not be read whole (the comparison
 * that needs it is then not judged).
 */
export async function listing(t: CheckContext, path: '/v1/usage' | '/v1/ledger', as: Role = 'primary') {
  const list = await readWholeList(t, path, { as });
  if (list?.incomplete)
    t.note(`${path} was not read whole (${list.incomplete}): what needs it is not judged`);
  return list && !list.incomplete ? list : undefined;
}
