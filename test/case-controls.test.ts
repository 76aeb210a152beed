/**
 * Controls, each through the CLI on the reference (a fault or a variant where the point needs one): a
 * judgement is made only where its input shows something. First, a case table's refusal rows stand
 * beside their control (src/suite/cases.ts): the table's base request,
 * accepted. Against a target that refuses the base request itself (here: the chat hint names the
 * embedding model, so every chat call is refused 404 wrong_endpoint_type), a refusal says nothing of
 * CHAT-008, which is then not run, saying why, never passed; with the right hint it is judged and passes.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../reference/start.ts';
import { writeRefTargets } from '../tools/ref-target.ts';
import { runCli } from './helpers.ts';

type Reference = Awaited<ReturnType<typeof startReference>>;
let ref: Reference;
const dir = mkdtempSync(join(tmpdir(), 'case-controls-'));

beforeAll(async () => {
  ref = await startReference({ port: 0 });
});
afterAll(() => ref.close());

/** One requirement's outcome in a run of `filter` against `target` (with `over`'s hints, limits or keys in place of its own). */
async function outcome(
  target: Reference,
  name: string,
  filter: string,
  id: string,
  over: Partial<Pick<Reference, 'hints' | 'limits' | 'keys'>> = {},
) {
  const file = join(dir, `${name}.yaml`);
  const env = writeRefTargets({ ...target, ...over }, file);
  const out = join(dir, name);
  const r = await runCli(
    [
      ...['--targets', file, '--target', 'ref', '--allow', 'all'],
      ...['--filter', filter, '--report-dir', out],
    ],
    env,
  );
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
    requirements: Record<string, { outcome: string }>;
  };
  return { r, outcome: summary.requirements[id]?.outcome, requirements: summary.requirements };
}

/** `fn` with a reference started with `opts` (a fault or a variant), closed after. */
async function withReference<T>(
  opts: { fault: string } | { variant: string },
  fn: (target: Reference) => Promise<T>,
): Promise<T> {
  const target = await startReference({ port: 0, ...opts });
  try {
    return await fn(target);
  } finally {
    await target.close();
  }
}

/** A media job's refusal test of one model, and the acceptance test of the same model (its control). */
const JOB_REFUSAL = 'wc-100033: refuses a job without a true acknowledgement';
const JOB_ACCEPTANCE = 'wc-100033: accepts every valid value of its covering design';

/** The wrong-method probes of /status, and GET /status (their control) answered. */
const STATUS_PROBES = 'refuses [A-Z]+ /status, a method|GET /status answers without a key';

/**
 * The plain reference's side of the controls below, in one run: each test's selection on the reference,
 * where each is judged and passes (one CLI run for all of them, not one each: the same tests run).
 */
const ON_REFERENCE = [
  'CHAT-008',
  'ISO-002',
  'refuses the category sales',
  'PAY-005',
  'is refused outside its scope: GET /v1/models',
  'RSP-002',
  'refuses a Content-Type outside the four media types',
  'shows two keys of one enterprise account one balance',
  'keeps jobs and assets to their owner and behind the key',
  `${JOB_REFUSAL}|${JOB_ACCEPTANCE}`,
  'refuses to delete an input an active job references',
  STATUS_PROBES,
];
let onReference: Promise<{ stdout: string; summary: Summary }> | undefined;
function referenceRun(): Promise<{ stdout: string; summary: Summary }> {
  onReference ??= (async () => {
    const file = join(dir, 'on-reference.yaml');
    const env = writeRefTargets(ref, file);
    const out = join(dir, 'on-reference');
    const r = await runCli(
      [
        ...['--targets', file, '--target', 'ref', '--allow', 'all'],
        ...['--filter', `(${ON_REFERENCE.join('|')})`, '--report-dir', out],
      ],
      env,
    );
    return { stdout: r.stdout, summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) };
  })();
  return onReference;
}

interface Summary {
  requirements: Record<string, { outcome: string }>;
  tests: Array<{ title: string; outcome: string; reason?: string }>;
}

/** A requirement's outcome in the plain reference's run of the selections above. */
async function onReferenceOutcome(id: string) {
  const { stdout, summary } = await referenceRun();
  return { r: { stdout }, outcome: summary.requirements[id]?.outcome };
}

/**
 * A fault whose target refuses the control too (every request of its kind) leaves `id` not run, saying
 * `said`; the plain reference judges it and it passes.
 */
async function notRunBesideRefusedControl(fault: string, filter: string, id: string, said: RegExp) {
  await withReference({ fault }, async (refusing) => {
    const all = await outcome(refusing, fault, filter, id);
    expect(all.outcome, all.r.stdout).toBe('not_run');
    expect(all.r.stdout).toMatch(said);
  });
  const judged = await onReferenceOutcome(id);
  expect(judged.outcome, judged.r.stdout).toBe('passed');
}

describe('case tables: a refusal row is judged only beside its accepted control', () => {
  it('CHAT-008: refusals of a target that refuses the base request too are not run, never passed', async () => {
    const refusesAll = await outcome(ref, 'refuses-all', 'CHAT-008', 'CHAT-008', {
      hints: { ...ref.hints, chat: ref.hints.embedding! },
    });
    expect(refusesAll.outcome, refusesAll.r.stdout).toBe('not_run');
    expect(refusesAll.r.stdout).toMatch(
      /the control \(the table's base request to \/v1\/chat\/completions\) was answered 404/,
    );
    const control = await onReferenceOutcome('CHAT-008');
    expect(control.outcome, control.r.stdout).toBe('passed');
  });
});

// The suite's tests are independent: each makes what it reads. The guard tests of a call other than
// chat leaned on the chat test's burst coming first: the embedding test alone met no 429 from the spend
// guard within its 20 calls of a few points each, and failed RATE-005 on the reference (found when the
// mutation matrix began to run single tests: variant embeddings-201).
describe('a test selected alone is judged as in the whole run', () => {
  it('RATE-003 RATE-005: the embedding call past a low guard, without the chat test before it, passes', async () => {
    const file = join(dir, 'alone.yaml');
    const env = writeRefTargets(ref, file);
    const out = join(dir, 'alone');
    const r = await runCli(
      [
        ...['--targets', file, '--target', 'ref', '--allow', 'all'],
        ...['--filter', 'RATE-00[35] answers embedding calls', '--report-dir', out],
      ],
      env,
    );
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      tests: Array<{ title: string; outcome: string }>;
    };
    const judged = summary.tests.filter((t) => t.outcome !== 'not_run');
    expect(judged.map((t) => [t.title.slice(0, 8), t.outcome]).sort(), r.stdout).toEqual([
      ['RATE-003', 'passed'],
      ['RATE-005', 'passed'],
    ]);
  });
});

// The embedding test alone meets the spend guard with one more embedding after a chat burst met it (429):
// its own burst before was accepted throughout, so a 403 then is the guard answered under another status
// (fault spend-guard-403-embeddings), not the key's own refusal "not shown" (as it was before).
describe('a refusal after the same call was accepted is the guard', () => {
  it('RATE-005: the embedding call refused 403 past the guard, selected alone, fails', async () => {
    await withReference({ fault: 'spend-guard-403-embeddings' }, async (faulty) => {
      const alone = await outcome(faulty, 'guard-403', 'RATE-005 answers embedding calls', 'RATE-005');
      expect(alone.outcome, alone.r.stdout).toBe('failed');
      expect(alone.r.stdout).toMatch(/had made accepted was refused 403/);
    });
  });
});

// A test that compared nothing has judged nothing. ISO-002 compares the two tenants' usage and ledger
// records that name themselves (an id or a time): where no record does (variant records-bare, the
// contract's named fields only), it says isolation was not shown, never passed; on the reference it is judged.
describe('a comparison of nothing is not run', () => {
  it('ISO-002: lists whose records name nothing are not run; lists with ids are judged and pass', async () => {
    await withReference({ variant: 'records-bare' }, async (bare) => {
      const unshown = await outcome(bare, 'records-bare', 'ISO-002', 'ISO-002');
      expect(unshown.outcome, unshown.r.stdout).toBe('not_run');
      expect(unshown.r.stdout).toMatch(/no usage or ledger record of the other tenant names itself/);
    });
    const judged = await onReferenceOutcome('ISO-002');
    expect(judged.outcome, judged.r.stdout).toBe('passed');
  });
});

// Tickets and orders are permanent state: their refusals stand beside a ticket or an order the file's own
// acceptance test made (noted, none made for the control), else one valid request; an order's only where
// the deployment's minimum makes an amount known valid.
describe('a refusal of a ticket or an order is judged only beside an accepted one', () => {
  it('TICKET-003: a target refusing every ticket leaves the refusals not run; the reference judges them', async () => {
    await withReference({ fault: 'tickets-refused' }, async (refusing) => {
      const all = await outcome(refusing, 'tickets-refused', 'refuses the category sales', 'TICKET-003');
      expect(all.outcome, all.r.stdout).toBe('not_run');
      expect(all.r.stdout).toMatch(
        /the control \(the table's base request to \/v1\/support\/tickets\) was answered 400/,
      );
    });
    const judged = await onReferenceOutcome('TICKET-003');
    expect(judged.outcome, judged.r.stdout).toBe('passed');
  });

  it("PAY-005: without the deployment's minimum no order is sent as the control (not run); with it, judged", async () => {
    const { payment_min_cny: _, ...unstated } = ref.limits;
    const without = await outcome(ref, 'orders-no-min', 'PAY-005', 'PAY-005', { limits: unstated });
    expect(without.outcome, without.r.stdout).toBe('not_run');
    expect(without.r.stdout).toMatch(/no amount is known to be valid without the deployment's minimum/);
    const judged = await onReferenceOutcome('PAY-005');
    expect(judged.outcome, judged.r.stdout).toBe('passed');
  });
});

// A key restricted by scope refused outside its scope proves the scope rule only where the same key is
// accepted inside its scope (a key not provisioned is refused everywhere: fault scoped-keys-refused).
describe("a restricted key's refusal is judged only beside its acceptance inside its scope", () => {
  it('SCOPE-001: keys refused everywhere leave the refusals not run; the reference judges them', async () => {
    const filter = 'is refused outside its scope: GET /v1/models';
    /** The outcomes of the five restricted keys' tests (each key but the models one), sorted. */
    const outcomes = (tests: Summary['tests']) =>
      tests
        .filter((t) => t.title.endsWith(filter))
        .map((t) =>
          t.outcome === 'not_run' ? `not_run: ${t.reason?.replace(/ inside its scope.*/, '')}` : t.outcome,
        )
        .sort();
    const testsIn = (out: string) =>
      (JSON.parse(readFileSync(join(dir, out, 'summary.json'), 'utf8')) as Summary).tests;
    await withReference({ fault: 'scoped-keys-refused' }, async (refusing) => {
      const all = await outcome(refusing, 'scoped-refused', filter, 'SCOPE-001');
      // The balance, usage and support keys have a read their scope alone covers; the inference and
      // media keys none (their calls are billable, their reads name an id or share a scope): their tests
      // run, and their refusals stand beside a call inside the scope accepted in the run, which this run
      // has none of: SCOPE-001 is judged by none of the five.
      expect(outcomes(testsIn('scoped-refused')), all.r.stdout).toEqual([
        'not_run: the control (GET /v1/balance',
        'not_run: the control (GET /v1/support/tickets',
        'not_run: the control (GET /v1/usage',
        'passed',
        'passed',
      ]);
      expect(all.outcome, all.r.stdout).toBe('not_judged');
    });
    const judged = await referenceRun();
    expect(outcomes(judged.summary.tests), judged.stdout).toEqual(Array(5).fill('passed'));
  });
});

// RSP-002's refusal of a model without native responses support stands beside the same call for a model
// with it, accepted: an endpoint that refuses every model (fault responses-refused) proves nothing of it.
describe('a refusal on /v1/responses is judged only beside a native model accepted', () => {
  it('RSP-002: an endpoint refusing every model leaves it not run; the reference judges it', async () => {
    await notRunBesideRefusedControl(
      'responses-refused',
      'RSP-002',
      'RSP-002',
      /native responses support\)\) was answered 400/,
    );
  });
});

// An upload's refusal stands beside a valid file of its kind uploaded by the same key: uploads refused
// altogether (fault uploads-refused) prove nothing of the Content-Type rule.
describe('an upload refusal is judged only beside a valid upload accepted', () => {
  it('MIN-004: uploads refused altogether leave it not run; the reference judges it', async () => {
    await notRunBesideRefusedControl(
      'uploads-refused',
      'refuses a Content-Type outside the four media types',
      'MIN-004',
      /a valid image, with the same key\) was answered 415/,
    );
  });
});

// A comparison of nothing is no pass (as ISO-002's above): two enterprise keys that cannot read the balance,
// the usage or the ledger (here: keys the target does not know) show nothing of one shared account.
describe('a sharing of nothing is not run', () => {
  it('ENT-001: keys that read nothing leave it not run; the reference judges it', async () => {
    const filter = 'shows two keys of one enterprise account one balance';
    const keys = {
      ...ref.keys,
      enterprise: 'sk-unknown-enterprise-1',
      enterprise_second: 'sk-unknown-enterprise-2',
    };
    const unread = await outcome(ref, 'ent-unread', filter, 'ENT-001', { keys });
    expect(unread.outcome, unread.r.stdout).toBe('not_run');
    expect(unread.r.stdout).toMatch(/could be read by both keys: one balance, usage and ledger not shown/);
    const judged = await onReferenceOutcome('ENT-001');
    expect(judged.outcome, judged.r.stdout).toBe('passed');
  });
});

// An asset refused to another tenant and to a request without a key shows the rule only where its owner
// is served it: an asset route that answers nobody (fault asset-not-served) refuses all three alike.
describe("an asset's refusals are judged only beside its owner served", () => {
  it('MASSET-002: an asset served to nobody leaves them not run; the reference judges them', async () => {
    const filter = 'keeps jobs and assets to their owner and behind the key';
    await withReference({ fault: 'asset-not-served' }, async (unserved) => {
      const none = await outcome(unserved, 'asset-unserved', filter, 'MASSET-002');
      expect(none.outcome, none.r.stdout).toBe('not_run');
      expect(none.r.stdout).toMatch(/the asset was answered 404 to its owner/);
    });
    const judged = await onReferenceOutcome('MASSET-002');
    expect(judged.outcome, judged.r.stdout).toBe('passed');
  });
});

// A media job's refusals prove their rule only beside a job of the same model accepted somewhere in the
// run: no job is bought for it (a write test; a job costs points and time), the acceptance tests' jobs are
// the control, in any file or shard (src/report/requirements.ts). Where none was accepted, not judged.
describe("a media job's refusals are judged only beside a job of its model accepted in the run", () => {
  it('MJOB-001: a target refusing every job of the model leaves them not judged; beside its covering design accepted, judged', async () => {
    const filter = `(${JOB_REFUSAL}|${JOB_ACCEPTANCE})`;
    await withReference({ fault: 'model-jobs-refused' }, async (refusing) => {
      const all = await outcome(refusing, 'model-jobs-refused', filter, 'MJOB-001');
      expect(all.outcome, all.r.stdout).toBe('not_judged');
      // The covering design judges the rules of the values its jobs carry where they were accepted (or
      // blamed): the job sending `kind` refused, and refused without it too, shows nothing of MJOB-070.
      expect(all.requirements['MJOB-070']?.outcome, all.r.stdout).toBe('not_judged');
    });
    // The refusal test alone on the reference: no job of the model was accepted in that run either.
    const alone = await outcome(ref, 'job-refusal-alone', JOB_REFUSAL, 'MJOB-001');
    expect(alone.outcome, alone.r.stdout).toBe('not_judged');
    const judged = await onReferenceOutcome('MJOB-001');
    expect(judged.outcome, judged.r.stdout).toBe('passed');
    expect((await onReferenceOutcome('MJOB-070')).outcome).toBe('passed');
    // Not every rule the covering test cites: wc-100033 has no size presets, so nothing of MJOB-009.
    expect((await onReferenceOutcome('MJOB-009')).outcome).toBe('not_judged');
  });
});

// A delete refused while a job holds the input proves MIN-010 only where a delete of an input no job
// references is accepted: a target refusing every delete (fault deletes-refused) refuses that one too.
describe("an input's refused delete is judged only beside a free input deleted", () => {
  it('MIN-010: deletes refused altogether leave it not run; the reference judges it', async () => {
    await notRunBesideRefusedControl(
      'deletes-refused',
      'refuses to delete an input an active job references',
      'MIN-010',
      /the delete of a ready input no job references\) was answered 409/,
    );
  });
});

// A path refusing a method the endpoint table does not give it shows the rule only where the path answers
// a method it gives: a target without the route (fault status-absent: 404 for every method) refuses them
// all alike. The endpoint's own tests are the control: no request is made for it.
describe('a refusal of a wrong method is judged only beside the path answering its own', () => {
  it('ERR-070: a path answering nothing leaves its probes not judged; the reference judges them', async () => {
    await withReference({ fault: 'status-absent' }, async (absent) => {
      const none = await outcome(absent, 'status-absent', STATUS_PROBES, 'ERR-070');
      expect(none.outcome, none.r.stdout).toBe('not_judged');
      expect(none.requirements['HEALTH-002']?.outcome, none.r.stdout).toBe('failed');
    });
    const judged = await onReferenceOutcome('ERR-070');
    expect(judged.outcome, judged.r.stdout).toBe('passed');
  });
});
