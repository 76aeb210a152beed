#!/usr/bin/env node
import { loadEntry } from './launch.mjs';

await loadEntry('test/mutation/cli.ts');
