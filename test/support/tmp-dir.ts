// vitest globalSetup: the project's tests write their temporary files (report directories, captures,
// locks, caches) under one directory of their own, removed when the run ends, instead of leaving
// thousands of `gc-*` directories in the machine's temporary directory. Set before the workers start,
// TMPDIR reaches them and every process they spawn (os.tmpdir() reads it on each call).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'gc-tests-'));
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
