#!/usr/bin/env node
// Entry point: TypeScript sources run through tsx (Node 20 has no type stripping).
import { register } from 'tsx/esm/api';

register();
const { cliEntry } = await import('../src/app/cli.ts');
await cliEntry();
