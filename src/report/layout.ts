/**
 * A report directory as the report side reads it: the layout (the table of its files and the two logs)
 * is src/layout.ts, below every layer that uses it (the runtime's workers append to the logs while the run
 * goes); this re-exports it for the report side's callers and adds what only reads a finished report.
 */
import { existsSync } from 'node:fs';
import { reportFile } from '../layout.ts';

export {
  CONTROL_FILES,
  clearControlFiles,
  ExchangeLog,
  type FileKind,
  makeReportDir,
  missingDirs,
  REPORT_FILES,
  type ReportFile,
  reportFile,
  SpendLog,
} from '../layout.ts';

/** Whether `dir` holds a report (its summary). */
export const isReportDir = (dir: string): boolean => existsSync(reportFile(dir, 'summary'));
