/**
 * What a suite file declares about itself for the run's scheduling, so that the harness names no suite
 * file. A hint is a line of the file's opening comment:
 *
 *   // @conformance start-early 2     the file starts before the others (rank 1 first; default 1): its
 *                                     tests hold long chains of dependent requests or wait for media jobs,
 *                                     and against a slow target they would set the end of the run if
 *                                     they started last
 *   // @conformance media-acceptance  the file buys media jobs of the covering design (what the
 *                                     covering plan line announces before the run)
 *   // @conformance isolated-account  a `*.serial.test.ts` file whose tests compare the primary
 *                                     account's balance and nothing of another account: when the target
 *                                     names an `isolated` key they run on that account instead, beside
 *                                     the other files (src/app/suites.ts balanceChecks)
 *
 * Files named `*.serial.test.ts` run alone after the others (src/app/suites.ts).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { PKG_ROOT } from '../paths.ts';

export interface SuiteHints {
  /** Start before the files without it; a lower rank first. */
  startEarly?: number;
  mediaAcceptance?: boolean;
  /** A serial file that may run on the isolated account beside the others (its balance checks' account). */
  isolatedAccount?: boolean;
}

const HINT = /^\/\/ @conformance (start-early(?: (\d+))?|media-acceptance|isolated-account)\s*$/gm;
const cache = new Map<string, SuiteHints>();

/** The hints of one suite file (a path under the package, or absolute); none for a file it cannot read. */
export function suiteHints(file: string): SuiteHints {
  const path = isAbsolute(file) ? file : join(PKG_ROOT, file);
  let hints = cache.get(path);
  if (hints) return hints;
  hints = {};
  let head = '';
  try {
    head = readFileSync(path, 'utf8').slice(0, 4000);
  } catch {
    // No hints: the file is vitest's to report.
  }
  // Only the opening comment counts: a hint cannot hide in a test body.
  const lines = head.split('\n');
  const end = lines.findIndex((l) => !l.startsWith('//'));
  for (const m of lines
    .slice(0, end < 0 ? lines.length : end)
    .join('\n')
    .matchAll(HINT)) {
    if (m[1]!.startsWith('start-early')) hints.startEarly = m[2] === undefined ? 1 : Number(m[2]);
    else if (m[1] === 'isolated-account') hints.isolatedAccount = true;
    else hints.mediaAcceptance = true;
  }
  cache.set(path, hints);
  return hints;
}
