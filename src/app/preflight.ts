/**
 * The preflight of a run: the live description (fetched once) and the primary key, before any test.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { violation } from '../catalogue.ts';
import type { TargetConfig } from '../config/targets.ts';
import { TransportError, UsageError } from '../errors.ts';
import type { Exchange, HttpClient, HttpResponse } from '../http/client.ts';
import { judgeDescription } from '../openapi/live.ts';
import { reportFile } from '../report/layout.ts';
import type { TestResultRecord } from '../report/test-result.ts';
import type { RunConfig } from '../runtime/run-config.ts';

/** Preflight: the description (fetched once) and the primary key. */
export async function preflight(
  target: TargetConfig,
  client: HttpClient,
  auth: Record<string, string>,
  reportDir: string,
  preflightExchanges: Exchange[],
): Promise<{
  openapi?: RunConfig['openapi'];
  descriptionFailure?: TestResultRecord;
  preflightNote?: TestResultRecord;
}> {
  // Preflight 1: the description. A transport failure here means the target is unreachable (exit 2).
  let desc: HttpResponse;
  try {
    desc = await client.send({ method: 'GET', path: '/openapi.json', headers: auth });
  } catch (err) {
    if (err instanceof TransportError) throw new UsageError(unreachable(target, err));
    throw err;
  }
  // Preflight 2: the primary key. A refusal is a configuration error (exit 2), not a verdict.
  // The target answered its description, so it is reachable: a broken answer here (reset, truncated
  // body, timeout) is the target's failure with evidence, and the suite still runs.
  let models: HttpResponse | undefined;
  let preflightNote: TestResultRecord | undefined;
  try {
    models = await client.send({ method: 'GET', path: '/v1/models', headers: auth });
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    const ex = preflightExchanges.find((e) => e.id === err.exchangeId);
    preflightNote = {
      title: 'GEN-001 preflight: GET /v1/models with the primary key gets a complete answer',
      file: 'preflight',
      ids: ['GEN-001'],
      outcome: 'failed',
      durationMs: ex?.durationMs ?? 0,
      violations: [{ ...violation('GEN-001', err.message), ...(ex ? { exchangeId: ex.id } : {}) }],
      exchanges: ex ? [ex] : [],
      exchangeCount: 1,
    };
  }
  if (models && (models.status === 401 || models.status === 403)) {
    throw new UsageError(
      `target '${target.name}' refuses the primary key (GET /v1/models answered ${models.status}); check ${target.keys.primary ?? 'the primary key variable'}`,
    );
  }

  let openapi: RunConfig['openapi'];
  let descriptionFailure: TestResultRecord | undefined;
  if (desc.jsonTooDeep && desc.status < 400) {
    // JSON too deep for the suite to examine: not the target's failure (OAS-006, advisory: the contract
    // sets no size limit); the run goes on with the documented schemas.
    const file = reportFile(reportDir, 'openapi');
    writeFileSync(file, desc.body);
    openapi = {
      file,
      sha256: createHash('sha256').update(desc.body).digest('hex'),
      valid: false,
      errors: [],
      tooLarge: [desc.jsonError ?? 'JSON too deep'],
    };
  } else if (desc.json === undefined || desc.status >= 400) {
    const what =
      desc.status >= 400
        ? `status ${desc.status}`
        : `${desc.mediaType ?? 'no content type'} that is not JSON`;
    descriptionFailure = {
      title: 'OAS-001 preflight: GET /openapi.json answers the description',
      file: 'preflight',
      ids: ['OAS-001'],
      outcome: 'failed',
      durationMs: desc.exchange.durationMs,
      violations: [
        {
          ...violation(
            'OAS-001',
            `GET /openapi.json answered ${what}: the target does not serve the API's description (is ${target.baseUrl} the API's base URL?)`,
          ),
          exchangeId: desc.exchange.id,
        },
      ],
      exchanges: [desc.exchange],
      exchangeCount: 1,
    };
  } else {
    const file = reportFile(reportDir, 'openapi');
    writeFileSync(file, desc.body);
    openapi = { file, ...(await judgeDescription(desc.body, desc.json)) };
  }
  return {
    ...(openapi ? { openapi } : {}),
    ...(descriptionFailure ? { descriptionFailure } : {}),
    ...(preflightNote ? { preflightNote } : {}),
  };
}

/** Why the target's first request got no HTTP answer, in the user's words (exit 2). */
function unreachable(target: TargetConfig, err: TransportError): string {
  const at = `target '${target.name}' at ${target.baseUrl}`;
  const tls = target.baseUrl.startsWith('http:') ? ' (a TLS port needs an https:// URL)' : '';
  if (err.code === 'HTTPParserError')
    return `${at} answered, but not with HTTP: is this the API's port?${tls} (${err.message})`;
  if (err.code === 'UND_ERR_SOCKET' || err.code === 'ECONNRESET')
    return `${at} accepted the connection, then closed it without an HTTP answer: is this the API's port?${tls} (${err.message})`;
  return `cannot reach ${at}: ${err.message}`;
}
