import {
  type CheckContext,
  type Exchange,
  isProblem,
  type Role,
  readWholeList,
  recordTokenJudgements,
} from '../../src/suite/index.ts';

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

/**
 * PTS-005 on usage records read (every token count one shows is an integer), cited to the read that
 * listed them; false where they show no token count (nothing judged).
 */
export function judgeRecordTokens(
  t: CheckContext,
  records: ReadonlyArray<Record<string, unknown>>,
  exchange: Exchange,
): boolean {
  const judged = recordTokenJudgements(records);
  for (const j of judged)
    if (isProblem(j)) t.violate(j.id, j.message, { received: j.received, exchange });
    else if (j) t.observe(j.id, exchange);
  return judged.length > 0;
}
