// `npm run reference`: start the reference server and print its settings as env lines.
import { parseArgs } from 'node:util';
import { isPlaceFault } from './faults/places.ts';
import type { JobDurations } from './media/store.ts';
import { FAULTS, startReference, VARIANTS } from './start.ts';

const USAGE = `Usage: npm run reference -- [options]

Starts the in-memory reference server and prints its address, one key per role and the model
hints as environment lines (CONFORMANCE_*=...), ready to paste or source.

Options:
  --port N            port to listen on (default 0: any free port)
  --host H            address to bind (default 127.0.0.1)
  --latency-ms N      delay every response by N milliseconds
  --media-step-ms N   duration of each media job stage (default 150; a job succeeds after 4)
  --media-image-ms N  whole duration of an image job (e.g. 20000 for real generation times)
  --media-video-ms N  whole duration of a video job (e.g. 60000)
  --rate-limit N      a requests-per-minute guard of N on every account (429 with Retry-After)
  --race-window-ms N  race faults: delay between a check and its write (default 200)
  --fault NAME        seed one named fault (see below)
  --variant NAME      flip one contract-silent choice (see below)
  --help              show this help

Faults:
${FAULTS.filter((f) => !isPlaceFault(f.name))
  .map((f) => `  ${f.name.padEnd(26)} ${f.description}`)
  .join('\n')}
  place:<ID>:<place>         ${FAULTS.filter((f) => isPlaceFault(f.name)).length} generated faults, one rule broken at one place of the applicability map (npm run mutants -- --list)

Variants:
${VARIANTS.map((v) => `  ${v.name.padEnd(26)} ${v.description}`).join('\n')}
`;

function fail(message: string): never {
  process.stderr.write(`reference: ${message}\n`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > max) fail(`--${name} must be an integer from 0 to ${max}, got "${value}"`);
  return n;
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value === 0) fail(`--${name} must be at least 1`);
  return value;
}

function jobDurations(image: string | undefined, video: string | undefined): JobDurations {
  const out: JobDurations = {};
  const i = positive('media-image-ms', integer('media-image-ms', image, 3_600_000));
  const v = positive('media-video-ms', integer('media-video-ms', video, 3_600_000));
  if (i !== undefined) out.image = i;
  if (v !== undefined) out.video = v;
  return out;
}

async function main(): Promise<void> {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse().values;
  } catch (error) {
    fail(`${(error as Error).message} (see --help)`);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  let handle: Awaited<ReturnType<typeof startReference>>;
  try {
    handle = await startReference({
      port: integer('port', values.port, 65535),
      host: values.host,
      latencyMs: integer('latency-ms', values['latency-ms'], 600_000),
      mediaStepMs: positive('media-step-ms', integer('media-step-ms', values['media-step-ms'], 3_600_000)),
      raceWindowMs: integer('race-window-ms', values['race-window-ms'], 60_000),
      mediaJobMs: jobDurations(values['media-image-ms'], values['media-video-ms']),
      rateLimitPerMinute: positive('rate-limit', integer('rate-limit', values['rate-limit'], 1_000_000)),
      fault: values.fault,
      variant: values.variant,
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const toggles = [values.fault && `fault ${values.fault}`, values.variant && `variant ${values.variant}`];
  const lines = [
    `# reference server listening on ${handle.url}${toggles.some(Boolean) ? ` (${toggles.filter(Boolean).join(', ')})` : ''}`,
    // Shell lines to paste or eval: exported (a child process such as the suite sees them), each value
    // single-quoted (a model id may hold any character).
    ...[
      ['CONFORMANCE_BASE_URL', handle.url],
      ['CONFORMANCE_API_KEY', handle.keys.primary],
      ...Object.entries(handle.keys).map(([role, key]) => [`CONFORMANCE_KEY_${role.toUpperCase()}`, key]),
      ...Object.entries(handle.hints).map(([hint, model]) => [
        `CONFORMANCE_MODEL_${hint.toUpperCase()}`,
        model,
      ]),
    ].map(([name, value]) => `export ${name}=${shellQuote(String(value))}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = () => {
    handle.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function parse() {
  return parseArgs({
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'latency-ms': { type: 'string' },
      'media-step-ms': { type: 'string' },
      'race-window-ms': { type: 'string' },
      'media-image-ms': { type: 'string' },
      'media-video-ms': { type: 'string' },
      'rate-limit': { type: 'string' },
      fault: { type: 'string' },
      variant: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}

await main();

/** A value as one single-quoted shell word ('…', a quote inside written '\''). */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
