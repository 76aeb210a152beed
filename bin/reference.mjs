#!/usr/bin/env node
// Runs the TypeScript reference server without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../reference/cli.ts');
