import { readFileSync } from 'node:fs';
import { Redactor } from '../src/http/redact.ts';
const text = readFileSync('/tmp/mytmp/rep1/exchanges.ndjson', 'utf8');
const keys: Record<string, string> = {};
for (let i = 0; i < 8; i++) keys[`role${i}`] = `sk-ref-${i}f8e7d6c5b4a3210abcdef${i}`;
const r = new Redactor(keys);
for (let i = 0; i < 20; i++) r.registerSent('/x', { authorization: `Bearer sent-credential-${i}-0123456789` });
let best = Infinity;
for (let i = 0; i < 5; i++) { const t = performance.now(); r.text(text); best = Math.min(best, performance.now() - t); }
console.log('MB', (text.length / 1e6).toFixed(1), 'best ms', best.toFixed(0));
