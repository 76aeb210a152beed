#!/usr/bin/env node
// `node bench/run.mjs <standard|latency|overhead|matrix|generation|points|hostile> [flags]`: the benchmark scripts through tsx,
// registered like bin/*.mjs (the same as `node --import tsx bench/<name>.ts [flags]`).
import { register } from 'tsx/esm/api';

const NAMES = ['standard', 'latency', 'overhead', 'matrix', 'generation', 'points', 'hostile'];
const name = process.argv[2];
if (!NAMES.includes(name ?? '')) {
  console.error(`usage: node bench/run.mjs <${NAMES.join('|')}> [flags] (--help for each)`);
  process.exit(2);
}
process.argv.splice(2, 1);
register();
await import(`./${name}.ts`);
