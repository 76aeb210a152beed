// A long-lived matrix row runner: the CLI's own entry (runArgs) on each row's arguments, one row at a time.
import { loadEntry } from '../../bin/launch.mjs';

await loadEntry('tools/mutation/row-runner.ts');
