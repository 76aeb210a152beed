// A long-lived matrix row runner: the CLI's own entry (runArgs) on each row's arguments, one row at a time.
import { register } from 'tsx/esm/api';

register();
await import('./row-runner.ts');
