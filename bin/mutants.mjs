#!/usr/bin/env node
import { loadEntry } from './launch.mjs';

await loadEntry('tools/mutation/cli.ts');
