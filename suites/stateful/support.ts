/**
 * Shared by the stateful suites: the environment a model-based test runs in (what the target and the
 * allowed classes offer), its size by profile, the concurrency of the races, and how the serial tests
 * read the balance and report a broken invariant.
 */
import { Decimal } from 'decimal.js';
import {
  type BalanceFigures,
  balanceOf,
  type CheckContext,
  cheapestMegapixels,
  commandsFor,
  depth,
  discoverHints,
  type Env,
  type Exchange,
  type Hint,
  type HttpResponse,
  isProblem,
  isSuccess,
  type Judged,
  type MediaChoice,
  type Mode,
  mediaCatalog,
  newModel,
  PROFILE_PROPERTY_RUNS,
  type Profile,
  type Real,
  type Role,
  readBalance,
  runModel,
  UploadInput,
} from '../../src/suite/index.ts';
import { postJob, table } from '../media/support.ts';

/** On a target whose account other clients use, balance deltas are only indicative. */
export const deltaLevel = (t: CheckContext) => (t.sharedAccount ? { level: 'notable' as const } : {});

/** The balance figures of a role's account; the test is not run when they cannot be read. */
export async function balance(t: CheckContext, as: Role = 'primary'): Promise<BalanceFigures> {
  const res = await t.get('/v1/balance', { as });
  const b = isSuccess(res.status) ? balanceOf(res.json) : undefined;
  if (!b) return t.skip('the balance has no decimal total_points to compare (see BAL-001, PTS-001)');
  return b;
}

/** Records a broken invariant (advisory where the target declares a shared account). */
export function report(t: CheckContext, p: Judged, exchange?: Exchange): void {
  if (p) t.observe(p.id, exchange);
  if (isProblem(p))
    t.violate(p.id, p.message, {
      ...(p.received !== undefined ? { received: p.received } : {}),
      ...(p.expected !== undefined ? { expected: p.expected } : {}),
      ...(exchange ? { exchange } : {}),
      ...deltaLevel(t),
    });
}

/** Runs and the longest command list of one model-based test, by profile (--property-runs scales the runs). */
type Size = Record<Profile, { runs: number; commands: number }>;
const SIZE: Record<Mode, Size> = {
  free: {
    quick: { runs: 4, commands: 16 },
    standard: { runs: 10, commands: 32 },
    thorough: { runs: 50, commands: 60 },
  },
  billable: {
    quick: { runs: 4, commands: 24 },
    standard: { runs: 14, commands: 48 },
    thorough: { runs: 50, commands: 80 },
  },
  exclusive: {
    quick: { runs: 3, commands: 16 },
    standard: { runs: 10, commands: 32 },
    thorough: { runs: 50, commands: 60 },
  },
};

/** The points one run may spend (charges and holds its replies report). */
const POINTS_PER_RUN = { quick: '4', standard: '8', thorough: '20' };
const TIME_LIMIT_MS = { quick: 20_000, standard: 60_000, thorough: 300_000 };

/** Checks that compare the balance over time: only indicative where other clients share the account. */
const QUIET_ONLY = ['BAL-004', 'LEDGER-002', 'LEDGER-003', 'IDEM-001', 'IDEM-003', 'IDEM-004'];

const OUTPUT_ORDER = ['image', 'glb', null, 'video'];

/** Documented media models the account lists, cheapest output first; models whose prompt rule is not shown are left out. */
export async function mediaChoices(t: CheckContext): Promise<MediaChoice[]> {
  const listed = new Set((await mediaCatalog(t)).ids);
  return Object.entries(table.models)
    .filter(([id, rule]) => listed.has(id) && rule.prompt.stated)
    .map(([id, rule]) => ({ id, rule }))
    .sort((a, b) => OUTPUT_ORDER.indexOf(a.rule.output) - OUTPUT_ORDER.indexOf(b.rule.output));
}

/** Images of at most this many megapixels at their cheapest: the sequences' models outside thorough. */
const SMALL_IMAGE_MP = 1;

/**
 * The sequences do not care which model: outside thorough, the image models (the cheapest outputs)
 * whose smallest image is small (all image models when the account lists none of those); 3D, unstated
 * and video outputs and the larger images join them in the thorough profile.
 */
function sequenceModels(t: CheckContext, choices: MediaChoice[]): MediaChoice[] {
  if (t.run.profile === 'thorough') return choices;
  const images = choices.filter((c) => c.rule.output === 'image');
  const small = images.filter((c) => (cheapestMegapixels(table, c.rule) ?? SMALL_IMAGE_MP) <= SMALL_IMAGE_MP);
  return small.length > 0 ? small : images;
}

async function hint(t: CheckContext, h: Hint): Promise<string | undefined> {
  return t.target.models[h] ?? (await discoverHints())[h];
}

async function environment(t: CheckContext, mode: Mode): Promise<Env> {
  const billable = mode !== 'free';
  const env: Env = {
    mode,
    media: mode === 'billable' ? sequenceModels(t, await mediaChoices(t)) : [],
    failPrompt: t.target.capabilities.includes('media-fail-prompt'),
    failingLeft: { n: 0 },
    tickets: mode === 'exclusive' && t.target.allow.includes('tickets'),
    ticketsLeft: { n: 0 },
    pointsCap: new Decimal(depth(t.run, POINTS_PER_RUN)),
  };
  if (billable) {
    const [chat, responses, embedding] = await Promise.all([
      hint(t, 'chat'),
      hint(t, 'responses'),
      hint(t, 'embedding'),
    ]);
    if (chat) env.chat = chat;
    if (responses) env.responses = responses;
    if (embedding) env.embedding = embedding;
  }
  return env;
}

/**
 * One model-based test: random command lists of the mode against the target, the invariants checked
 * after every command, a failure reported once for the shrunk list with its seed and path.
 */
export async function modelBasedTest(t: CheckContext, mode: Mode): Promise<void> {
  const env = await environment(t, mode);
  const size = depth(t.run, SIZE[mode]);
  const scale = t.run.propertyRuns / PROFILE_PROPERTY_RUNS[t.run.profile];
  const timeLimitMs = Math.max(
    5_000,
    Math.min(depth(t.run, TIME_LIMIT_MS), t.target.timeouts.testMs - 15_000),
  );
  const deadline = Date.now() + timeLimitMs;
  const post = (body: Record<string, unknown>, headers: Record<string, string>) =>
    postJob(t, body, { headers });
  const result = await runModel(t, {
    commands: commandsFor(mode),
    setup: async (run) => {
      // One ticket and one failing job per test, in its first run (so a replayed failure sees the same).
      const first = run === 0 ? 1 : 0;
      const model = newModel({ ...env, ticketsLeft: { n: first }, failingLeft: { n: first } });
      const real: Real = { t, postJob: post, deadline };
      // On a quiet account every run starts from the balance as read; a media sequence starts with one
      // image input, so that jobs can reference it from the first command.
      if (mode === 'exclusive') await readBalance(model, real);
      if (mode === 'billable') await new UploadInput('png-64x48.png').run(model, real);
      model.steps = [];
      return { model, real };
    },
    steps: (m) => m.steps,
    runs: Math.max(1, Math.round(size.runs * scale)),
    maxCommands: size.commands,
    timeLimitMs,
    ...(mode === 'billable' ? { preamble: 'upload png-64x48.png as input#1' } : {}),
    levelOf: (id) => (t.sharedAccount && QUIET_ONLY.includes(id) ? 'notable' : undefined),
  });
  if (result.notApplicable) t.skip(result.notApplicable);
}

/** How many identical requests a race sends at once: by profile, at most twice the target's concurrency. */
export function raceSize(t: CheckContext): number {
  return Math.max(
    2,
    Math.min(depth(t.run, { quick: 2, standard: 4, thorough: 8 }), 2 * t.target.concurrency),
  );
}

/** Send `n` requests at the same moment. */
export function atOnce<T>(n: number, send: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => send(i)));
}

export const idOf = (res: HttpResponse, inner?: string): string | undefined => {
  const json = res.json as Record<string, unknown> | undefined;
  const holder = inner ? (json?.[inner] as Record<string, unknown> | undefined) : json;
  return typeof holder?.id === 'string' ? holder.id : undefined;
};

/** The documented models of a kind the account lists: without references, or taking image references. */
export async function raceModel(t: CheckContext, refs: boolean): Promise<MediaChoice> {
  const found = (await mediaChoices(t)).find((c) =>
    refs
      ? (c.rule.references.accepted ?? []).includes('image') && c.rule.references.required === true
      : c.rule.references.required === false && c.rule.output === 'image',
  );
  if (!found)
    return t.skip(
      `the media catalog lists no documented image model ${refs ? 'taking image references' : 'without references'}`,
    );
  return found;
}
