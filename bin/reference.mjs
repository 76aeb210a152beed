#!/usr/bin/env node
// Runs the TypeScript reference server without a build step of its own (bin/launch.mjs bundles it).
import { loadEntry } from './launch.mjs';

await loadEntry('reference/cli.ts');
