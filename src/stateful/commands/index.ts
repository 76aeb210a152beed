/** The commands of each kind of model-based test, weighted: what a sequence is made of. */
import fc from 'fast-check';
import type { Mode } from '../account-state.ts';
import { ChatCall } from './chat-call.ts';
import { CreateJob, type JobKind } from './create-job.ts';
import { CreateTicket } from './create-ticket.ts';
import { type DeleteChoice, DeleteInput } from './delete-input.ts';
import { DownloadAsset } from './download-asset.ts';
import { EmbeddingCall } from './embedding-call.ts';
import { ListTickets } from './list-tickets.ts';
import { PollJob } from './poll-job.ts';
import { ReadBalance } from './read-balance.ts';
import { ReadLedger } from './read-ledger.ts';
import { ReadUsage } from './read-usage.ts';
import { ReplayCall } from './replay-call.ts';
import { ReplayJob } from './replay-job.ts';
import { ReplayUpload } from './replay-upload.ts';
import { ResponsesCall } from './responses-call.ts';
import type { Step } from './step.ts';
import { UPLOAD_FILES, UploadInput } from './upload-input.ts';

export { PROMPT } from './create-job.ts';
export type { Step } from './step.ts';

type Weighted = { weight: number; arbitrary: fc.Arbitrary<Step> };
const w = (weight: number, arbitrary: fc.Arbitrary<Step>): Weighted => ({ weight, arbitrary });
const pick = fc.nat({ max: 7 });
/** A boolean that is true `n` times in `of`. */
const often = (n: number, of: number) => fc.nat({ max: of - 1 }).map((v) => v < n);

const upload = () =>
  fc.constantFrom(...UPLOAD_FILES, 'png-64x48.png' as const).map((f) => new UploadInput(f));
const replayUpload = () => pick.map((p) => new ReplayUpload(p));
const del = () =>
  fc
    .tuple(pick, fc.constantFrom<DeleteChoice>('any', 'held', 'recent', 'recent', 'recent', 'again'))
    .map(([p, c]) => new DeleteInput(p, c));
const job = () =>
  fc
    .record({
      model: fc.nat({ max: 15 }),
      refs: pick,
      kind: fc.oneof(
        { weight: 9, arbitrary: fc.constant<JobKind>('valid') },
        { weight: 2, arbitrary: fc.constantFrom<JobKind>('no-ack', 'never-accepted', 'deleted-ref') },
      ),
      variant: fc.nat({ max: 13 }),
      // A failing job (capability media-fail-prompt) never charges, but sees fewer statuses: one in six.
      failing: often(1, 6),
      withRefs: often(4, 5),
    })
    .map((p) => new CreateJob(p));
const replayJob = () =>
  fc
    .tuple(pick, fc.boolean(), often(3, 4))
    .map(([p, legacy, referencing]) => new ReplayJob(p, legacy, referencing));
const replayCall = () => fc.tuple(pick, fc.boolean()).map(([p, legacy]) => new ReplayCall(p, legacy));

/**
 * free: inputs and reads (classes read and write). billable: inputs, media jobs and their replays; other
 * traffic may touch the account, so no balance deltas. exclusive: a quiet account (a serial file, alone or on the isolated account):
 * inference calls, their replays, balance, usage and ledger reads, and tickets where the class is
 * allowed. Weights favour the operations that interact (a replay, a delete of an input a job holds).
 */
export function commandsFor(mode: Mode): fc.Arbitrary<Step> {
  const balance = fc.constant(new ReadBalance());
  const usage = fc.constant(new ReadUsage());
  const tickets = fc.constant(new ListTickets());
  const poll = pick.map((p) => new PollJob(p));
  const download = pick.map((p) => new DownloadAsset(p));
  const weighted: Weighted[] =
    mode === 'exclusive'
      ? [
          w(3, fc.constant(new ChatCall())),
          w(2, fc.constant(new ResponsesCall())),
          w(1, fc.constant(new EmbeddingCall())),
          w(4, replayCall()),
          w(2, balance),
          w(2, usage),
          w(2, fc.constant(new ReadLedger())),
          w(1, tickets),
          w(1, fc.constant(new CreateTicket())),
        ]
      : mode === 'billable'
        ? [
            w(12, upload()),
            w(4, replayUpload()),
            w(16, del()),
            w(16, job()),
            w(16, replayJob()),
            w(4, poll),
            // Rare: its wait lets the run's jobs end, and with them the chance of a delete while active.
            w(1, download),
            w(2, balance),
          ]
        : [w(4, upload()), w(2, replayUpload()), w(3, del()), w(1, balance), w(1, usage), w(1, tickets)];
  return fc.oneof(...weighted);
}
