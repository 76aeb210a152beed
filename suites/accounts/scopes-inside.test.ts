import {
  businessEndpoints,
  businessForms,
  type CheckContext,
  check,
  concretePath,
  type Endpoint,
  expectStatus,
  type HttpResponse,
  isSuccess,
  pollJob,
  probeRequest,
  type Role,
  upload,
} from '../../src/suite/index.ts';
import { postJob } from '../media/support.ts';
import { insideScope } from './scope-control.ts';

// The calls of a scope that change something (scopes.test.ts judges its reads): a key restricted to the
// scope is accepted wherever the account's full-scope key is. The full key goes first, so a refusal of
// the account itself (its catalog, its balance) is never laid at the scope. The streamed form of chat and
// responses is the same inference call ("With `stream` true the reply is streamed"), often a route of its
// own: accepted inside the scope too, as SCOPE-001 refuses it outside.
const RESTRICTED: Array<[Role, string]> = [
  ['restricted_inference', 'inference'],
  ['restricted_media', 'media'],
  ['restricted_support', 'support'],
];

async function send(t: CheckContext, e: Endpoint, as: Role): Promise<HttpResponse> {
  if (e.path === '/v1/media/inputs') return (await upload(t, 'png-1x1.png', { as })).res;
  const valid = await probeRequest(t, e);
  if (e.path === '/v1/media/jobs') return postJob(t, valid.json, { as });
  const streamed = (valid.json as { stream?: unknown } | undefined)?.stream === true;
  return t.request(e.method, concretePath(e), {
    ...valid,
    as,
    ...(streamed ? { timeoutMs: t.target.timeouts.streamMs } : {}),
  });
}

for (const [role, scope] of RESTRICTED) {
  for (const { e, name } of businessForms()) {
    if (e.method !== 'POST' || e.path.includes('{') || (e.scopes ?? []).join() !== scope) continue;
    check(
      { ids: ['SCOPE-002'], effect: e.effect, roles: [role, 'enterprise'] },
      `accepts a call inside its scope as the full key does: ${name} (${role})`,
      async (t) => {
        const full = await send(t, e, 'enterprise');
        if (!isSuccess(full.status))
          return t.skip(`${name} with the account's full-scope key was answered ${full.status}`);
        const res = await send(t, e, role);
        // The control of the key's refusals outside its scope (scopes.test.ts), where no read shows it.
        if (isSuccess(res.status)) t.showAccepted(insideScope(role));
        expectStatus(
          t,
          res,
          'SCOPE-002',
          { not: [401, 403] },
          `${name} with a key restricted to its own scope ${scope} (the full-scope key: ${full.status})`,
        );
      },
    );
  }
}

/**
 * The paths of the media scope that name a resource, sent with the key `as` on its own account's
 * resources: an input `uploader` uploaded (which `as` deletes), a job the full-scope key made and that
 * job's asset, so that a refusal cannot be that of a foreign or unknown id (judging.md). Each answer but
 * a 429 goes to `judge`; undefined when something was sent, else why nothing could be.
 */
async function ownMediaPaths(
  t: CheckContext,
  as: Role,
  uploader: Role,
  judge: (res: HttpResponse, what: string) => void,
): Promise<string | undefined> {
  let sent = false;
  const send = (res: HttpResponse, what: string) => {
    sent = true;
    if (!t.notJudged429(res, what)) judge(res, what);
  };
  const input = await upload(t, 'png-1x1.png', { as: uploader });
  if (input.id)
    send(
      await t.request('DELETE', `/v1/media/inputs/${encodeURIComponent(input.id)}`, { as }),
      'DELETE /v1/media/inputs/{input_id}',
    );
  const jobs = businessEndpoints().find((e) => e.method === 'POST' && e.path === '/v1/media/jobs')!;
  const created = await postJob(t, (await probeRequest(t, jobs)).json, { as: 'enterprise' });
  const id = (created.json as { id?: unknown } | undefined)?.id;
  if (isSuccess(created.status) && typeof id === 'string') {
    send(await t.get(`/v1/media/jobs/${encodeURIComponent(id)}`, { as }), 'GET /v1/media/jobs/{job_id}');
    const asset = (await pollJob(t, id, { as: 'enterprise' })).last?.asset_id;
    if (typeof asset === 'string')
      send(
        await t.get(`/v1/media/assets/${encodeURIComponent(asset)}`, { as }),
        'GET /v1/media/assets/{asset_id}',
      );
  }
  return sent
    ? undefined
    : `neither an upload of ${uploader} (${input.res.status}) nor a job of the full-scope key (${created.status}) was made`;
}

// Inside the media scope: accepted.
check(
  { ids: ['SCOPE-002'], effect: 'billable', roles: ['restricted_media', 'enterprise'] },
  "accepts the account's own input, job and asset inside its scope (restricted_media)",
  async (t) => {
    const none = await ownMediaPaths(t, 'restricted_media', 'restricted_media', (res, what) =>
      expectStatus(
        t,
        res,
        'SCOPE-002',
        { not: [401, 403] },
        `${what} with a key restricted to its own scope media`,
      ),
    );
    if (none) t.skip(none);
  },
);

// Outside it, with a key of the account restricted to another scope: refused, whichever way (401 or 403;
// 404 too, judging.md: "on a path that names a resource id the key cannot see ... a 404 is also a
// refusal"). The account's own resources: the unknown ids of scopes.test.ts answer 404 whether the scope
// is checked or not.
const OUTSIDE_MEDIA: Role[] = [
  'restricted_models',
  'restricted_inference',
  'restricted_support',
  'restricted_usage',
  'restricted_balance',
];
for (const as of OUTSIDE_MEDIA) {
  check(
    { ids: ['SCOPE-001'], effect: 'billable', roles: [as, 'enterprise'] },
    `refuses the account's own input, job and asset outside its scope (${as})`,
    async (t) => {
      const none = await ownMediaPaths(t, as, 'enterprise', (res, what) =>
        expectStatus(
          t,
          res,
          'SCOPE-001',
          [401, 403, 404],
          `${what} with a key restricted to another scope than media`,
          // Every resource answered so is one cause, no scope check: the scope family groups them.
          { family: 'scope' },
        ),
      );
      if (none) t.skip(none);
    },
  );
}
