import { describe, expect, it } from 'vitest';
import {
  applicabilityDoc,
  assertsPredicate,
  globMatches,
  placesJudged,
  placesOf,
  STATED,
  type Touch,
  touchIn,
  touchOf,
} from '../../src/applicability.ts';
import { catalogue } from '../../src/catalogue.ts';
import { placeRows, tally } from '../../tools/applicability.ts';

describe('applicability map', () => {
  const rows = placeRows();

  it('names only catalogue requirements, and each of their links matches one of their places', () => {
    const cat = catalogue();
    for (const [id, entry] of Object.entries(applicabilityDoc().requirements)) {
      expect(cat.has(id), `${id} is not in fixtures/requirements.yaml`).toBe(true);
      const keys = placesOf(id).map((p) => p.key);
      for (const l of entry.links ?? []) {
        expect(
          keys.some((k) => globMatches(l.places, k)),
          `${id}: the link '${l.places}' matches none of its places`,
        ).toBe(true);
        expect(
          [l.test, l.excluded, l.pending].filter((v) => v !== undefined).length,
          `${id}: ${l.places}`,
        ).toBe(1);
      }
    }
  });

  it('gives every applicable place a test or a reasoned exclusion (pending ones are counted)', () => {
    const t = tally(rows);
    const pending = rows.filter((r) => r.status.kind === 'pending');
    // Printed so the lead sees what is pending on every npm test.
    console.log(
      `applicability: ${t.places} places, ${t.tested} tested, ${t.excluded} excluded, ${t.pending} pending${pending
        .map((r) => `\n  pending ${r.id} ${r.place.key}: ${(r.status as { reason: string }).reason}`)
        .join('')}`,
    );
    const uncovered = rows.filter((r) => r.status.kind === 'uncovered').map((r) => `${r.id} ${r.place.key}`);
    expect(
      uncovered,
      'places with neither a test nor a reasoned exclusion (fixtures/applicability.yaml)',
    ).toEqual([]);
    for (const r of rows)
      if (r.status.kind === 'excluded' || r.status.kind === 'pending')
        expect(r.status.reason.length, `${r.id} ${r.place.key}: a reason`).toBeGreaterThan(20);
  });

  it('derives places from the fixtures: endpoints, restricted roles by scope, forms', () => {
    expect(placesOf('GEN-001')).toEqual([{ key: STATED, sig: {} }]);
    expect(placesOf('MODEL-003').map((p) => p.key)).toEqual([
      'POST /v1/chat/completions · form=streamed',
      'POST /v1/chat/completions · form=not streamed',
      'POST /v1/responses · form=streamed',
      'POST /v1/responses · form=not streamed',
      'POST /v1/embeddings',
      'POST /v1/media/jobs',
    ]);
    expect(placesOf('MJOB-012').map((p) => p.key)).toEqual(['form=input_asset_ids', 'form=studio_asset_ids']);
    const scope = placesOf('SCOPE-002').map((p) => p.key);
    expect(scope).toContain('POST /v1/media/jobs · role=restricted_media');
    expect(scope).not.toContain('POST /v1/media/jobs · role=restricted_models');
    expect(placesOf('SCOPE-001').map((p) => p.key)).not.toContain(
      'GET /v1/payment-methods · role=restricted_models',
    );
    expect(placesOf('MJOB-009').map((p) => p.key)).toContain('model=wc-100040 · form=size *');
  });

  it('computes the touch of a request and judges places from the touches of judged citing tests', () => {
    const job = touchOf({
      method: 'POST',
      path: '/v1/media/jobs',
      role: 'restricted_media',
      headers: { accept: 'application/vnd.service.currency.v1+json' },
      json: { model: 'wc-100040', parameters: { studio_asset_ids: ['a'], size: '1024*1024' } },
    });
    expect(job).toEqual({
      method: 'POST',
      path: '/v1/media/jobs',
      role: 'restricted_media',
      format: 'legacy',
      model: 'wc-100040',
      forms: ['studio_asset_ids', 'size *'],
    });
    const read = touchOf({ method: 'GET', path: '/v1/media/jobs/j%2F1?x=1', role: 'primary' });
    expect(read.path).toBe('/v1/media/jobs/{job_id}');
    const stream = touchOf({
      method: 'POST',
      path: '/v1/responses',
      role: 'primary',
      json: { model: 'm', stream: true },
      responseType: 'text/event-stream',
      responseText: 'event: response.output_text.delta\ndata: {}\n\nevent: response.completed\ndata: {}\n\n',
    });
    expect(stream.forms).toEqual(['streamed', 'outcome response.completed']);
    expect(touchIn(job, { form: 'studio_asset_ids', output: 'image' })).toBe(true);
    expect(touchIn(job, { form: 'input_asset_ids' })).toBe(false);

    // Each test observed its own ids on every answer (an observation naming no answer).
    const t = (outcome: string, ids: string[], touches: Touch[], observed: string[] = ids) => ({
      outcome,
      ids,
      touches,
      observed: Object.fromEntries(observed.map((id) => [id, [] as number[]])),
    });
    const studio = t('passed', ['MJOB-012'], [job]);
    expect(placesJudged('MJOB-012', [studio])).toEqual({
      applicable: 2,
      aimed: 1,
      judged: 1,
      unjudged: ['form=input_asset_ids'],
    });
    // Not run, or not citing the id: judges nothing.
    expect(placesJudged('MJOB-012', [{ ...studio, outcome: 'not_run' }]).judged).toBe(0);
    expect(placesJudged('MJOB-012', [{ ...studio, ids: ['MJOB-010'], observed: {} }]).judged).toBe(0);
    // Aimed, never observed: the place was looked at, the target never showed the form.
    expect(placesJudged('MJOB-012', [t('passed', ['MJOB-012'], [job], [])])).toEqual({
      applicable: 2,
      aimed: 1,
      judged: 0,
      unjudged: ['form=input_asset_ids', 'form=studio_asset_ids'],
      aimedOnly: ['form=studio_asset_ids'],
    });
    // Observed on one answer only: judged at that answer's place, not at the test's other places.
    const input = touchOf({
      method: 'POST',
      path: '/v1/media/jobs',
      role: 'primary',
      json: { model: 'wc-100011', parameters: { input_asset_ids: ['a'] } },
    });
    const both = { ...t('passed', ['MJOB-012'], [job, input]), observed: { 'MJOB-012': [1] } };
    expect(placesJudged('MJOB-012', [both])).toMatchObject({
      aimed: 2,
      judged: 1,
      unjudged: ['form=studio_asset_ids'],
    });
    // A rule checked on every exchange: any judged test's touches count.
    expect(placesJudged('PTS-001', [t('passed', ['GEN-001'], [read], ['PTS-001'])]).judged).toBe(1);
    // Excluded places are not applicable.
    expect(placesJudged('RSP-006', []).applicable).toBe(2);
    expect(placesJudged('GEN-001', [t('passed', ['GEN-001'], [])])).toEqual({
      applicable: 1,
      aimed: 1,
      judged: 1,
      unjudged: [],
    });
  });
});

describe('predicate strength', () => {
  it('an asserted status meets the rule only when it accepts no status the rule refuses', () => {
    const forbidden = { status: [403] };
    expect(assertsPredicate('403', forbidden)).toBe(true);
    expect(assertsPredicate('4xx', forbidden)).toBe(false);
    expect(assertsPredicate('403|404', forbidden)).toBe(false);
    expect(assertsPredicate('not 401|403', forbidden)).toBe(false);
    expect(assertsPredicate('403|404', { status: [403, 404] })).toBe(true);
    expect(assertsPredicate('404', { status: [403, 404] })).toBe(true);
    // A reading that allows another status in some tests only, by their titles.
    const also = { status: [403], also: [{ status: [401], tests: 'restricted_', quote: 'q' }] };
    expect(assertsPredicate('401|403', also, 'refuses order creation (its key restricted_models)')).toBe(
      true,
    );
    expect(assertsPredicate('401|403', also, 'refuses order creation to an enterprise with 403')).toBe(false);
    expect(assertsPredicate('403', also)).toBe(true);
  });
});
