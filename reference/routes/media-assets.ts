// GET /v1/media/models (the account's media catalog) and GET /v1/media/assets/{asset_id} (the bytes
// of a succeeded job's output, for its owner only: "returns the output file bytes; needs the key").
import type { FastifyInstance } from 'fastify';
import type { RefContext } from '../context.ts';
import { sendError } from '../errors.ts';
import { catalogEntry, mediaCatalog } from '../media/catalog.ts';
import { outputFile } from '../media/output.ts';
import { inputKey, type MediaStore, settleDue } from '../media/store.ts';
import { isVariant } from '../reach.ts';
import { callerOf } from './caller.ts';

export function registerMediaModels(app: FastifyInstance, ctx: RefContext): void {
  app.get('/v1/media/models', async (request, reply) => {
    const data = mediaCatalog(ctx, callerOf(request).account).map((id) => catalogEntry(ctx, id));
    // Fault catalog-missing-data: a bare array instead of {data: [...]}.
    return reply
      .type('application/json; charset=utf-8')
      .send(ctx.fault === 'catalog-missing-data' ? data : { data });
  });
}

export function registerMediaAssets(app: FastifyInstance, ctx: RefContext, store: MediaStore): void {
  app.get('/v1/media/assets/:asset_id', async (request, reply) => {
    const { asset_id: id } = request.params as { asset_id: string };
    // Variant job-ids-per-tenant: asset ids are looked up in the caller's account.
    const perTenant = isVariant(ctx, 'job-ids-per-tenant') && request.caller !== undefined;
    const assetKey = perTenant ? inputKey(true, callerOf(request).account.id, id) : id;
    const job = store.jobs.get(store.assets.get(assetKey) ?? '');
    const owner = ctx.state.accounts.find((a) => a.id === job?.accountId);
    if (owner) settleDue(store, owner);
    if (job?.settlement !== 'charged') return sendError(reply, ctx, 'not_found', `No asset ${id}.`);
    // Fault asset-no-key lets requests without a key through auth.ts; they reach any asset.
    const caller = request.caller ? callerOf(request) : undefined;
    if (caller && caller.account.id !== job.accountId && ctx.fault !== 'asset-other-tenant') {
      if (isVariant(ctx, 'foreign-ids-403'))
        return sendError(reply, ctx, 'resource_forbidden', 'This asset belongs to another account.');
      return sendError(reply, ctx, 'not_found', `No asset ${id}.`);
    }
    // Variant succeeded-expires: "expired means preview or asset is no longer available". Fault
    // asset-not-served: no asset, while its job still reads succeeded.
    if ((job.expired && isVariant(ctx, 'succeeded-expires')) || ctx.fault === 'asset-not-served')
      return sendError(reply, ctx, 'not_found', `The asset ${id} has expired.`);
    // Fault output-format-ignored: wc-100031..34 serve their default png whatever output_format asked.
    const file = outputFile(
      job.output,
      ctx.fault === 'output-format-ignored' && /^wc-10003[1-4]$/.test(job.model) ? 'png' : job.format,
    );
    // Fault asset-wrong-format: a PNG was asked for, JPEG bytes are served (labelled image/png).
    if (ctx.fault === 'asset-wrong-format' && job.output === 'image' && job.format === 'png') {
      return reply.type('image/png').send(outputFile('image', 'jpeg').bytes);
    }
    return reply.type(file.type).send(file.bytes);
  });
}
