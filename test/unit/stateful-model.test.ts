import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mediaTable } from '../../src/rules/media-models.ts';
import {
  type AccountModel,
  canSpend,
  type Env,
  holders,
  liveInputs,
  newModel,
  nextLabel,
  pickOf,
  spend,
} from '../../src/stateful/account-state.ts';
import { referencesFor } from '../../src/stateful/commands/create-job.ts';
import { DeleteInput } from '../../src/stateful/commands/delete-input.ts';
import { commandsFor } from '../../src/stateful/commands/index.ts';
import type { Real } from '../../src/stateful/real.ts';

const env = (over: Partial<Env> = {}): Env => ({
  mode: 'billable',
  media: [],
  failPrompt: false,
  failingLeft: { n: 0 },
  tickets: false,
  ticketsLeft: { n: 1 },
  pointsCap: new Decimal('2'),
  ...over,
});

function withInputs(m: AccountModel, kinds: Array<'image' | 'video'>): AccountModel {
  for (const kind of kinds)
    m.inputs.push({
      label: nextLabel('input', m.inputs),
      id: `in_${m.inputs.length + 1}`,
      file: kind === 'video' ? 'h264-2s.mp4' : 'png-64x48.png',
      kind,
      key: `k${m.inputs.length}`,
      deleted: false,
    });
  return m;
}

/** A job of wc-100011 referencing the first input, with the statuses the model has seen it in. */
const refJob = (seen: string[]) => ({
  label: 'job#1',
  id: 'j1',
  model: 'wc-100011',
  output: 'image' as const,
  refs: ['in_1'],
  key: 'k',
  body: {},
  seen,
});

describe('the account model', () => {
  it('labels items in creation order and picks among candidates by modulo', () => {
    const m = withInputs(newModel(env()), ['image', 'image']);
    expect(m.inputs.map((i) => i.label)).toEqual(['input#1', 'input#2']);
    expect(pickOf(m.inputs, 3)?.label).toBe('input#2');
    expect(pickOf([], 3)).toBeUndefined();
    m.inputs[0]!.deleted = true;
    expect(liveInputs(m).map((i) => i.label)).toEqual(['input#2']);
    expect(liveInputs(m, 'video')).toEqual([]);
  });

  it('knows which jobs may still hold an input: those it has not seen end', () => {
    const m = withInputs(newModel(env()), ['image']);
    const job = refJob(['queued']);
    m.jobs.push(job);
    expect(holders(m, 'in_1')).toEqual([job]);
    job.seen.push('running', 'succeeded');
    expect(holders(m, 'in_1')).toEqual([]);
    job.seen.push('settlement_pending');
    expect(holders(m, 'in_1')).toEqual([job]);
  });

  it("judges an input's delete by the jobs that reference it: none, 2xx; only ended ones, either outcome", async () => {
    const deleteAnswered = async (status: number, seen?: string[]) => {
      const m = withInputs(newModel(env()), ['image']);
      if (seen) m.jobs.push(refJob(seen));
      const observed: string[] = [];
      const t = {
        request: async () => ({ status, exchange: { id: 'x' } }),
        observe: (id: string) => observed.push(id),
      };
      const r = { t, postJob: async () => ({}), deadline: Date.now() + 1000 } as unknown as Real;
      const outcome = await new DeleteInput(0, 'any').run(m, r).then(
        () => 'ok',
        (e: Error) => e.message.slice(0, 9),
      );
      return [outcome, observed.join(' '), m.inputs[0]!.deleted];
    };
    expect(await deleteAnswered(204)).toEqual(['ok', 'MIN-009', true]);
    expect(await deleteAnswered(409)).toEqual(['[MIN-009]', 'MIN-009', false]);
    // A failed job that keeps its inputs: "active" is defined no further (judging.md).
    expect(await deleteAnswered(409, ['queued', 'failed'])).toEqual(['ok', '', false]);
    expect(await deleteAnswered(204, ['queued', 'succeeded'])).toEqual(['ok', '', true]);
  });

  it('stops billable commands at the points cap of a run', () => {
    const m = newModel(env());
    expect(canSpend(m)).toBe(true);
    spend(m, new Decimal('1.25'));
    spend(m, undefined);
    spend(m, new Decimal('-3'));
    expect(canSpend(m)).toBe(true);
    spend(m, new Decimal('0.75'));
    expect(canSpend(m)).toBe(false);
  });

  it("chooses a job's references from the model's live inputs by the model's rule", () => {
    const table = mediaTable();
    const choice = (id: string) => ({ id, rule: table.models[id]! });
    const m = withInputs(newModel(env()), ['image', 'image', 'video']);
    expect(referencesFor(choice('wc-100010'), m, 0)).toEqual([]);
    expect(referencesFor(choice('wc-100011'), m, 0)).toEqual(['in_1']);
    expect(referencesFor(choice('wc-100011'), m, 1)).toEqual(['in_2', 'in_1']);
    expect(referencesFor(choice('wc-100018'), m, 1)).toEqual(['in_2']);
    const onlyVideo = withInputs(newModel(env()), ['video']);
    expect(referencesFor(choice('wc-100016'), onlyVideo, 0)).toEqual(['in_1']);
    expect(referencesFor(choice('wc-100011'), onlyVideo, 0)).toBeUndefined();
  });
});

describe('the commands', () => {
  const kinds = (mode: Env['mode']) =>
    new Set(fc.sample(commandsFor(mode), { numRuns: 400, seed: 7 }).map((c) => c.constructor.name));

  it('keep each mode to its side effects', () => {
    const free = kinds('free');
    expect([...free].sort()).toEqual(
      ['DeleteInput', 'ListTickets', 'ReadBalance', 'ReadUsage', 'ReplayUpload', 'UploadInput'].sort(),
    );
    const billable = kinds('billable');
    for (const k of ['CreateJob', 'ReplayJob', 'PollJob', 'DownloadAsset', 'UploadInput', 'DeleteInput'])
      expect(billable).toContain(k);
    expect(billable).not.toContain('ChatCall');
    const exclusive = kinds('exclusive');
    for (const k of [
      'ChatCall',
      'ResponsesCall',
      'EmbeddingCall',
      'ReplayCall',
      'ReadLedger',
      'CreateTicket',
    ])
      expect(exclusive).toContain(k);
    expect(exclusive).not.toContain('UploadInput');
  });

  it('read as a script and clone without what a run resolved', () => {
    const del = new DeleteInput(3, 'held');
    expect(del.toString()).toBe('delete input (pick 3)');
    (del as unknown as { target: string }).target = 'input#2';
    expect(del.toString()).toBe('delete input#2');
    const copy = (del as unknown as { [fc.cloneMethod]: () => DeleteInput })[fc.cloneMethod]();
    expect(copy).not.toBe(del);
    expect(copy.toString()).toBe('delete input (pick 3)');
    expect(copy.choice).toBe('held');
  });

  it('are not applicable before what they need exists', () => {
    const m = newModel(env());
    const applicable = fc
      .sample(commandsFor('billable'), { numRuns: 300, seed: 3 })
      .filter((c) => c.check(m))
      .map((c) => c.constructor.name);
    expect(new Set(applicable)).not.toContain('DeleteInput');
    expect(new Set(applicable)).not.toContain('ReplayJob');
    expect(new Set(applicable)).toContain('UploadInput');
  });
});
