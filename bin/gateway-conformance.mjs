#!/usr/bin/env node
// Entry point: the CLI's TypeScript, bundled once per change of its sources (bin/launch.mjs).
import { loadEntry } from './launch.mjs';

const { cliEntry } = await loadEntry('src/app/cli.ts');
await cliEntry();
