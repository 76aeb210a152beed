/**
 * --har FILE: the live run's own traffic as a HAR 1.2 capture, so that a run can be judged again by
 * check-traffic (the same checks, no request sent) or handed to whoever reads HAR. Every worker thread
 * and the preflight append one entry per answered exchange to a line file of the report directory (an
 * append of one line is atomic); the run's end assembles FILE from it, entry by entry, and removes it.
 * Credentials never reach the file: credential headers are masked with the role they belong to
 * (`Bearer [REDACTED:primary]`), credential query parameters masked, and every configured secret
 * replaced wherever it appears in a header, URL or text body (the run's Redactor). Binary bodies (media)
 * are kept as base64: what check-traffic sniffs.
 */
import {
  accessSync,
  appendFileSync,
  closeSync,
  constants,
  createReadStream,
  existsSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { UsageError } from '../errors.ts';
import type { HttpResponse, RequestSpec } from '../http/client.ts';
import type { Redactor } from '../http/redact.ts';
import { reportFile } from '../layout.ts';
import { harEntry } from './har-write.ts';

/** One answered exchange as a HAR entry, its credentials and secrets redacted. */
export function redactedHarEntry(
  baseUrl: string,
  spec: RequestSpec,
  res: HttpResponse,
  redactor: Redactor,
): Record<string, unknown> {
  const sent: RequestSpec = {
    method: spec.method,
    path: redactor.pathWithQuery(spec.path),
    headers: redactor.requestHeaders(spec.headers ?? {}),
    ...(spec.json !== undefined ? { json: redactor.value(spec.json) } : {}),
    ...(typeof spec.body === 'string' ? { body: redactor.text(spec.body) } : {}),
    ...(Buffer.isBuffer(spec.body) ? { body: spec.body } : {}),
  };
  const answered: HttpResponse = {
    ...res,
    headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, redactor.text(v)])),
    text: redactor.text(res.text),
  };
  return harEntry(baseUrl, sent, answered);
}

/**
 * Refuses a --har FILE that the run's end could not write, before the run starts (a run may take an hour
 * and spend points): a directory, or a name in a folder that is not there or not writable. What only the
 * write can tell (a full disk) is the run's end's to say (finish.ts).
 */
export function checkHarFile(file: string): void {
  const refuse = (why: string) => {
    throw new UsageError(`--har: cannot write the capture to ${file}: ${why}`);
  };
  const folder = dirname(resolve(file));
  const dir = statSync(folder, { throwIfNoEntry: false });
  if (!dir) refuse(`${folder} is not there`);
  else if (!dir.isDirectory()) refuse(`${folder} is not a directory`);
  const st = statSync(file, { throwIfNoEntry: false });
  if (st?.isDirectory()) refuse('it is a directory');
  try {
    accessSync(st ? file : folder, constants.W_OK);
  } catch (err) {
    refuse(`${st ? 'it' : folder} is not writable (${(err as NodeJS.ErrnoException).code ?? 'denied'})`);
  }
}

/** The line file of a run's HAR entries (one JSON entry per line). */
export class HarEntries {
  constructor(readonly file: string) {}

  append(entry: Record<string, unknown>): void {
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  /**
   * FILE as a HAR 1.2 document of the entries in the order they were appended, written entry by entry
   * (a run's media bodies may be large: never the whole capture in memory as one string), then the line
   * file removed. Returns how many entries FILE holds.
   */
  async assemble(out: string, suiteVersion: string): Promise<number> {
    const fd = openSync(out, 'w');
    let n = 0;
    try {
      writeSync(
        fd,
        `{"log":{"version":"1.2","creator":{"name":"gateway-conformance","version":${JSON.stringify(suiteVersion)}},"entries":[`,
      );
      if (existsSync(this.file))
        for await (const line of createInterface({
          input: createReadStream(this.file),
          crlfDelay: Infinity,
        })) {
          if (line === '') continue;
          writeSync(fd, `${n === 0 ? '\n' : ',\n'}${line}`);
          n++;
        }
      writeSync(fd, '\n]}}\n');
    } finally {
      closeSync(fd);
    }
    rmSync(this.file, { force: true });
    return n;
  }
}

/**
 * Append one answered exchange of a run to its HAR entries. A reply larger than the suite reads
 * (HttpResponse.bodyTooLarge) is left out: only its first bytes were kept, and a capture holding them
 * would be judged on a body that was never sent so.
 */
export function recordHar(
  run: { reportDir: string; target: { baseUrl: string } },
  spec: RequestSpec,
  res: HttpResponse,
  redactor: Redactor,
): void {
  if (res.bodyTooLarge) return;
  new HarEntries(reportFile(run.reportDir, 'har')).append(
    redactedHarEntry(run.target.baseUrl, spec, res, redactor),
  );
}
