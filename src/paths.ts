import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the installed package (where package.json, fixtures/, schemas/ and suites/ live). */
export const PKG_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const pkgPath = (...parts: string[]): string => resolve(PKG_ROOT, ...parts);

export const SUITE_VERSION: string = (
  JSON.parse(readFileSync(pkgPath('package.json'), 'utf8')) as { version: string }
).version;
