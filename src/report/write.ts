/**
 * The one writer of a report directory: from a finished summary to summary.json, junit.xml,
 * requirements.junit.xml, report.html, summary.md, report.sarif, a final redaction pass over every file, manifest.json (it hashes the rest) and, with a
 * signing key, manifest.sig (last: it signs the manifest).
 * A run, a dry run (its billable plan included) and `merge` all write through here, so no report file
 * misses the harness errors or the redaction.
 */
import type { KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../http/redact.ts';
import { redactFiles } from '../http/redact.ts';
import { MANIFEST, writeManifest } from './bundle.ts';
import { writeHtmlReport } from './html.ts';
import { reportFile } from './layout.ts';
import { renderMarkdown, SUMMARY_MD } from './markdown.ts';
import { writeJunit, writeRequirementsJunit } from './reporter.ts';
import { writeSarif } from './sarif.ts';
import { signManifest } from './signature.ts';
import type { StoredSummary, Summary } from './summary.ts';

/**
 * Write the report files of `dir` (data files such as exchanges.ndjson and openapi.json are already
 * there). `redactor`: the run's keys; every file of the directory is redacted before the manifest.
 */
export function writeReport(
  dir: string,
  summary: Summary,
  harnessErrors: string[],
  redactor?: Redactor,
  signKey?: KeyObject,
): void {
  const text = (s: string) => (redactor ? redactor.text(s) : s);
  const stored = text(JSON.stringify({ ...summary, harnessErrors } satisfies StoredSummary, null, 2));
  writeFileSync(reportFile(dir, 'summary'), stored);
  // The same redacted text, read back, for the files that escape their text their own way (XML, SARIF's
  // JSON): a value is redacted as its JSON text is (Redactor.value), so the summary once is enough.
  const safe: Summary = redactor ? (JSON.parse(stored) as StoredSummary) : summary;
  writeJunit(reportFile(dir, 'junit'), safe.tests, harnessErrors.map(text), safe.cut);
  writeRequirementsJunit(reportFile(dir, 'requirementsJunit'), safe.tests, safe.requirements, safe.cut);
  writeSarif(reportFile(dir, 'sarif'), safe, harnessErrors.map(text));
  writeHtmlReport(dir);
  writeFileSync(join(dir, SUMMARY_MD), text(renderMarkdown(summary)));
  // A last redaction pass over every file written (exchanges, description, drift, HTML, ...): a
  // secret must not reach the report by any path. The manifest, written from these, comes after.
  if (redactor) redactFiles(dir, redactor);
  writeManifest(dir, summary);
  if (redactor) redactFiles(dir, redactor, [MANIFEST]);
  if (signKey) signManifest(dir, signKey, MANIFEST);
}
